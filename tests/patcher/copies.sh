#!/bin/bash
# Proves: `repstos patch` writes copy sites as the runtime would, and the
# patched programs still copy right.
# SPDX-License-Identifier: MIT
# A program with copy sites (the plugin's memcpy, mempcpy, memmove and
# a memmove it proves forwards-safe, and REPSTOS_MEMCPY and
# REPSTOS_MEMMOVE; tests/patcher/src/copies.c) is patched as an
# executable, a PIE, a shared object and an object linked afterwards,
# for every copy routine, "inline", a set-only routine (erms) and two
# CPUs (zen4, generic).  After each: check is clean, every site dumps
# (--json) in the form and with the bytes the target means - a copy
# routine called by name; "inline": rep movsb in copy and move_fwd
# sites and a call of the overlap-checking routine in move sites (a
# move site is never rep movsb); a CPU: the copy routine the runtime
# itself names under REPSTOS_CPU=that CPU - and the program still
# copies right (copies.c checks every result, overlaps both ways).
. "$(dirname "$0")/lib.sh"

d=$W/in
mkdir -p "$d"
gcc $CFLAGS -fPIC -fplugin="$PLUGIN" -fplugin-arg-repstos-copy \
	-c "$SRC/copies.c" -o "$d/copies.o" &&
gcc $CFLAGS -c "$SRC/copies_main.c" -o "$d/main.o" &&
gcc -no-pie -o "$d/exe" "$d/main.o" "$d/copies.o" "$RTLIB" &&
gcc -pie -o "$d/pie" "$d/main.o" "$d/copies.o" "$RTLIB" &&
gcc -shared -Wl,-soname,copies.so -o "$d/copies.so" "$d/copies.o" "$RTLIB" &&
gcc -pie -o "$d/pieso" "$d/main.o" "$d/copies.so" -Wl,-rpath,'$ORIGIN' ||
	{ fail "cannot build the copy inputs"; finish; }

# The ops the plugin gave: the "site: OP" comment of each site's line.
expected_sites "$SRC/copies.c" >"$W/ops"
nsites=$(wc -l <"$W/ops")
"$TOOL" dump --json "$d/copies.o" >"$W/ops.json"
assert "the plugin marked every copy site with its op (move_fwd too)" \
	python3 -c '
import json, sys
want = dict(l.split() for l in open(sys.argv[1]))
sites = json.load(open(sys.argv[2]))["sites"]
got = {str(s["line"]): s["op"] for s in sites}
sys.exit(got != want or len(sites) != len(want))' "$W/ops" "$W/ops.json"

# The copy routine the runtime chooses for a CPU, in its own words.
runtime_copy() {
	env ${1:+REPSTOS_CPU=$1} REPSTOS_DEBUG=1 "$d/exe" 2>&1 >/dev/null |
		sed -n 's/.*, copy \([a-z_0-9]*\)[;,( ].*/\1/p' | head -1
}
NATIVE=$(runtime_copy)
# Zen 4's row (rows.c) copies with avx512; the runtime says so too, as
# zen4, on a CPU with AVX-512 (on one without it takes avx2).
ZEN4_COPY=avx512
host=$(REPSTOS_DEBUG=1 "$d/exe" 2>&1 >/dev/null | sed -n 's/.*\[\(.*\)\].*/ \1 /p' | head -1)
# One flag at a time: adjacent flags share the space between them, so a
# single pattern naming three would never match.
host_has() {
	for f; do
		case $host in *" $f "*) ;; *) return 1 ;; esac
	done
}
if host_has avx512f avx512bw avx512vl; then
	assert "the runtime as zen4 copies with zen4's row's avx512" \
		[ "$(runtime_copy zen4)" = "$ZEN4_COPY" ]
else
	assert "the runtime as zen4 without AVX-512 copies with avx2" \
		[ "$(runtime_copy zen4)" = avx2 ]
fi
assert "the runtime names its copy routine on this CPU ($NATIVE)" [ -n "$NATIVE" ]

"$top/tests/xlist.sh" COPY_VARIANTS name >"$W/names"
"$top/tests/xlist.sh" COPY_VARIANTS sym >"$W/syms"
# forms FILE TARGET: every site as TARGET means it, by `dump --json`.
# TARGET is "inline" or a copy routine (every site calls it).
# The routine each copy variant calls, from the contract's list.
COPY_SYMS=$(paste -d= "$W/names" "$W/syms" 2>/dev/null)
forms() {
	"$TOOL" dump --json "$1" | COPY_SYMS="$COPY_SYMS" python3 -c '
import json, os, sys
want = sys.argv[1]
chooses = sys.argv[3] == "chooses"
sym = dict(p.split("=") for p in os.environ["COPY_SYMS"].split())
sites = json.load(sys.stdin)["sites"]
bad = 0
for s in sites:
    b = s["bytes"]
    if s["op"] == "move" and s["form"] == "inline":
        print("  MOVE SITE INLINE at", s["address"]); bad += 1
    if want == "inline" and s["op"] != "move":
        ok = s["form"] == "inline" and b[:4] == "f3a4" and b[4:] == "0f1f00"
    elif s["size_kind"] == "const" and chooses:
        # a named CPU chooses a constant size by its table: any routine,
        # so long as the call is to that routine
        ok = (s["form"] == "call" and b[:2] == "e8" and
              s["target"] == sym.get(s["variant"]))
    else:
        ok = (s["form"] == "call" and s["variant"] == want and b[:2] == "e8"
              and s["target"] == sym[want])
    if not ok:
        print("  site", s["address"], s["op"], "is", s["form"], s["variant"],
              s["target"], b); bad += 1
sys.exit(1 if bad or len(sites) != int(sys.argv[2]) else 0)' "$2" \
		"$nsites" "${3:-}"
}

runnable() {
	case $1 in
	avx2) grep -qw avx2 /proc/cpuinfo ;;
	avx512*) grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo ;;
	esac
}

# run DIR PROG: copies right, and the runtime left the module static
run() {
	local out
	if out=$(REPSTOS_DEBUG=1 "$1/$2" 2>&1) && echo "$out" | grep -q '^OK$' &&
	   echo "$out" | grep -q 'statically patched'; then
		ok "$2 ($(basename "$1")): copies right, left static"
	else
		fail "$2 ($(basename "$1")): $(echo "$out" | head -5)"
	fi
}

for t in $(variants copy) erms zen4 generic; do
	# a CPU's name: its policy chooses constant sizes by its table
	how=
	case $t in erms | zen4 | generic) how=chooses ;; esac
	case $t in
	erms) want=$NATIVE ;;
	# A named CPU is patched for as that CPU, whatever runs the tool,
	# where the runtime under REPSTOS_CPU keeps to this one's features:
	# they agree only where this CPU has the named one's.
	zen4) want=$ZEN4_COPY ;;
	generic) want=$(runtime_copy $t) ;;
	*) want=$t ;;
	esac
	o=$W/$t
	mkdir -p "$o"
	cp "$d/exe" "$d/pie" "$d/copies.so" "$d/pieso" "$o/"
	for f in exe pie copies.so; do
		expect_rc 0 "patch --cpu=$t --dry-run $f" \
			"$TOOL" patch --cpu=$t --dry-run "$o/$f"
		if [ $t = erms ]; then
			assert "--cpu=erms: the dry run says copy sites get $NATIVE" \
				grep -q "erms is no copy routine: $nsites copy sites get this CPU's choice, $NATIVE" "$W/out"
		fi
		expect_rc 0 "patch --cpu=$t $f" "$TOOL" patch --cpu=$t "$o/$f"
		expect_rc 0 "check $f after --cpu=$t" "$TOOL" check "$o/$f"
		assert "$f --cpu=$t: every site $want, by its bytes" forms "$o/$f" "$want" $how
		sum=$(md5sum <"$o/$f")
		expect_rc 0 "patch --cpu=$t $f again" "$TOOL" patch --cpu=$t "$o/$f"
		assert "second patch of $f: unchanged" [ "$(md5sum <"$o/$f")" = "$sum" ]
	done

	# The object, patched and then linked.
	cp "$d/copies.o" "$o/"
	expect_rc 0 "patch --cpu=$t copies.o" "$TOOL" patch --cpu=$t "$o/copies.o"
	expect_rc 0 "check copies.o after --cpu=$t" "$TOOL" check "$o/copies.o"
	assert "copies.o --cpu=$t: every site $want" forms "$o/copies.o" "$want" $how
	gcc -no-pie -o "$o/linked" "$d/main.o" "$o/copies.o" "$RTLIB" ||
		fail "link copies.o patched for $t"
	expect_rc 0 "check the program linked from it" "$TOOL" check "$o/linked"
	assert "linked --cpu=$t: every site $want" forms "$o/linked" "$want" $how

	if ! runnable $want; then
		skipped "this CPU cannot run $want: $t not run"
		continue
	fi
	for f in exe pie pieso; do
		run "$o" $f
	done
	# linked from the object: not marked static (an object has no
	# module record), so it must only copy right
	if out=$("$o/linked") && [ "$out" = OK ]; then
		ok "linked ($t): copies right"
	else
		fail "linked ($t): $out"
	fi
done

# --profile: copy sites are profiled as set sites are.  dump shows each
# with the calls it saw and the copy form its sizes and zen4's copy table
# choose; patch --profile writes exactly those forms, and never rep
# movsb in place in a move site.  The executable linked with
# librepstos-full.a: librepstos.a records no profile (runtime/runtime.mk).
gcc -no-pie -o "$d/exe-full" "$d/main.o" "$d/copies.o" "$top/runtime/librepstos-full.a" ||
	fail "link the copy input with librepstos-full.a"
REPSTOS_PROFILE=$W/sizes "$d/exe-full" >/dev/null || fail "record a profile"
expect_rc 0 "dump --profile=sizes --cpu=zen4" \
	"$TOOL" dump --profile="$W/sizes" --cpu=zen4 "$d/exe-full"
assert "dump --profile: the $nsites copy sites, each with its calls" \
	[ "$(grep -c '  \(copy\|move\|move_fwd\)  size=[^ ]*  calls [1-9]' "$W/out")" = "$nsites" ]
chosen=$(sed -n 's/.*  chosen \([a-z0-9_]*\)  gain .*/\1/p' "$W/out" | tr '\n' ' ')
cp "$d/exe-full" "$W/exe.prof"
expect_rc 0 "patch --profile=sizes --cpu=zen4" \
	"$TOOL" patch --profile="$W/sizes" --cpu=zen4 "$W/exe.prof"
got=$("$TOOL" dump --json "$W/exe.prof" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sites"]:
    if s["op"] == "move" and s["form"] == "inline":
        print("MOVE-SITE-INLINE", end=" ")
    print("inline" if s["form"] == "inline" else s["variant"], end=" ")')
assert "patch --profile: every copy site in the form dump chose ($chosen)" \
	[ -n "$chosen" ] && [ "$got" = "$chosen" ]
finish
