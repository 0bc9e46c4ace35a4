#!/bin/bash
# Proves: patch --cpu=X fixes every site in X's form, and the patched
# programs run right.
# SPDX-License-Identifier: MIT
# `repstos patch --cpu=X` for every variant, `native` and a named CPU,
# on an executable, a PIE with its shared object, and on objects linked
# afterwards: the programs pass the
# memset semantics test (tests/patcher/src/main.c), every site dumps in
# form X, a patched executable or library is left alone by the runtime
# (status REPSTOS_ST_STATIC, "static" in its REPSTOS_DEBUG line); a
# second run changes nothing; --dry-run and -o write nothing in place;
# the file mode is kept.
. "$(dirname "$0")/lib.sh"

build_inputs

# The variant the runtime picks for sites of unknown size on this CPU.
NATIVE=$(REPSTOS_DEBUG=1 "$IN/exe" 2>&1 >/dev/null | sed -n 's/.*; variant \([a-z_0-9]*\).*/\1/p' | head -1)
assert "the runtime names its variant on this CPU ($NATIVE)" [ -n "$NATIVE" ]

# forms FILE WANT: every site of FILE dumps as WANT (a variant name).
forms() {
	"$TOOL" dump --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
want = sys.argv[1]
bad = [s for s in d["sites"] if s.get("variant") != want]
for s in bad:
    print("  site", s["address"], "is", s["form"], s.get("variant"))
sys.exit(1 if bad or not d["sites"] else 0)' "$2"
}

no_stub() {
	"$TOOL" dump --json "$1" | python3 -c '
import json, sys
sys.exit(any(s["form"] != "call" and s["form"] != "inline" for s in json.load(sys.stdin)["sites"]))'
}

static_run() {	# DIR PROGRAM ARGS...: semantics OK and the runtime says static
	local dir=$1 prog=$2
	shift 2
	LD_LIBRARY_PATH=$dir REPSTOS_DEBUG=1 "$dir/$prog" "$@" >"$W/run.out" 2>"$W/run.err"
	local rc=$?
	if [ $rc -eq 0 ] && grep -q '^OK$' "$W/run.out" && grep -q static "$W/run.err"; then
		ok "$prog ($(basename "$dir")): semantics OK, runtime left it static"
	else
		fail "$prog ($(basename "$dir")): exit $rc"
		sed 's/^/    | /' "$W/run.out" "$W/run.err" | head -20
	fi
}

# Every variant of the contract header, native and a named CPU; a vector
# variant only where this CPU can run it.  --help lists the same.
VARIANTS=$(variants | tr '\n' ' ')
assert "--help lists the variants ($VARIANTS)" [ "$("$TOOL" --help |
	sed -n 's/^PROFILE: a variant for every site: *//p' | tr -d ';') " = "$VARIANTS" ]
runnable() {
	case $1 in
	avx2) grep -qw avx2 /proc/cpuinfo ;;
	avx512*) grep -qw avx512f /proc/cpuinfo ;;
	esac
}
for v in $VARIANTS native zen3; do
	if ! runnable "$v"; then
		skipped "this CPU cannot run $v"
		continue
	fi
	want=$v
	[ "$v" = native ] && want=$NATIVE
	d=$W/$v
	mkdir -p "$d"
	cp "$IN/exe" "$IN/pielib" "$IN/lib.so" "$d/"
	chmod 751 "$d/exe"

	# Executable, PIE and its shared object, patched in place.
	for f in exe pielib lib.so; do
		expect_rc 0 "patch --cpu=$v $f" "$TOOL" patch --cpu="$v" "$d/$f"
		sum=$(md5sum <"$d/$f")
		expect_rc 0 "patch --cpu=$v $f again" "$TOOL" patch --cpu="$v" "$d/$f"
		assert "second patch of $f: file unchanged" [ "$(md5sum <"$d/$f")" = "$sum" ]
		assert "second patch of $f: says nothing to change" \
			grep -q 'nothing to change' "$W/out"
		expect_rc 0 "check $v/$f" "$TOOL" check "$d/$f"
		if [ "$v" = zen3 ]; then
			assert "$v/$f: no site calls the stub" no_stub "$d/$f"
		else
			assert "$v/$f: every site is $want" forms "$d/$f" "$want"
		fi
		assert "$v/$f: module record static ($v)" \
			grep -q "static ($v)" <("$TOOL" dump "$d/$f" | head -1)
	done
	assert "$v: mode 751 kept" [ "$(stat -c %a "$d/exe")" = 751 ]
	static_run "$d" exe static
	static_run "$d" pielib static static

	# An object patched, then linked: the runtime leaves non-stub sites.
	cp "$IN/sites.o" "$d/sites.o"
	expect_rc 0 "patch --cpu=$v sites.o" "$TOOL" patch --cpu="$v" "$d/sites.o"
	sum=$(md5sum <"$d/sites.o")
	"$TOOL" patch --cpu="$v" "$d/sites.o" >/dev/null
	assert "second patch of sites.o changes nothing" [ "$(md5sum <"$d/sites.o")" = "$sum" ]
	expect_rc 0 "check $v/sites.o" "$TOOL" check "$d/sites.o"
	if gcc -no-pie -o "$d/linked" "$IN/main.o" "$d/sites.o" "$RTLIB"; then
		ok "$v: patched sites.o links"
		"$d/linked" >"$W/run.out" 2>&1 && grep -q '^OK$' "$W/run.out" &&
			ok "$v: linked program passes the semantics test" ||
			fail "$v: linked program fails: $(tail -3 "$W/run.out")"
		if [ "$v" != zen3 ]; then
			assert "$v: every site of the linked program is $want" forms "$d/linked" "$want"
		fi
	else
		fail "$v: patched sites.o does not link"
	fi
done

# Inline in a .o: the call relocations became R_X86_64_NONE.
assert "inline sites.o: 5 call relocations are R_X86_64_NONE" \
	[ "$(readelf -rW "$W/inline/sites.o" | grep -c R_X86_64_NONE)" -eq 5 ]
# A variant absent from the object was added as an undefined hidden symbol.
assert "erms sites.o: __repstos_erms is UND GLOBAL HIDDEN" \
	grep -Eq 'NOTYPE +GLOBAL +HIDDEN +UND __repstos_erms' <(readelf -sW "$W/erms/sites.o")
# Round trip in a .o: inline back to a call.
cp "$W/inline/sites.o" "$W/round.o"
expect_rc 0 "patch an inline sites.o to erms" "$TOOL" patch --cpu=erms "$W/round.o"
expect_rc 0 "check the round-tripped object" "$TOOL" check "$W/round.o"
gcc -no-pie -o "$W/round" "$IN/main.o" "$W/round.o" "$RTLIB" &&
	"$W/round" | grep -q '^OK$' && ok "round-tripped object runs OK" ||
	fail "round-tripped object fails"
assert "round-tripped program: every site erms" forms "$W/round" erms

# --dry-run: says what, writes nothing.
cp "$IN/exe" "$W/dry"
sum=$(md5sum <"$W/dry")
expect_rc 0 "patch --dry-run" "$TOOL" patch --cpu=erms --dry-run "$W/dry"
assert "dry run lists 5 sites stub -> erms" [ "$(grep -c ': stub -> erms$' "$W/out")" -eq 5 ]
assert "dry run mentions the module record" grep -q 'repstos_module: mark static' "$W/out"
assert "dry run wrote nothing" [ "$(md5sum <"$W/dry")" = "$sum" ]

# -o: the input stays, the output gets the input's mode.
chmod 700 "$W/dry"
expect_rc 0 "patch -o" "$TOOL" patch --cpu=vec "$W/dry" -o "$W/dry.out"
assert "-o left the input unchanged" [ "$(md5sum <"$W/dry")" = "$sum" ]
assert "-o output has the input's mode" [ "$(stat -c %a "$W/dry.out")" = 700 ]
assert "-o output: every site vec" forms "$W/dry.out" vec
assert "no temporary file left behind" [ -z "$(ls -A "$W" | grep '^\.repstos')" ]

# Unknown profile: usage error, nothing written.
expect_rc 2 "patch --cpu=nonsense" "$TOOL" patch --cpu=nonsense "$W/dry"
assert "unknown profile wrote nothing" [ "$(md5sum <"$W/dry")" = "$sum" ]
finish
