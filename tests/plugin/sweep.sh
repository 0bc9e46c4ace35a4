#!/bin/sh
# Proves: plugin-made memset, bzero, explicit_bzero, memcpy, mempcpy and memmove sites write what a byte loop does at every size and placement by a guard page, under every variant, patch profile and runtime.
# Why: 44de022 fixed avx512_split, which left the first 64 bytes of a
# 256-byte set unwritten when the destination started in a page's last
# 64 bytes; every other test kept its buffers at one page offset.
# tests/plugin/sweep/sweep.c has one site per op (memset with a fill,
# bzero, explicit_bzero, memcpy, mempcpy, memmove) and sweeps them over
# sizes, destinations and sources that end 0..4159 bytes before a guard
# page or start in a page's last 64 bytes, overlapping moves both ways,
# and the regression by name; each call against a byte loop (sweep.c
# says how).  Checked here:
#  - it builds with plugin/repstos-cc and -fplugin-arg-repstos-copy at
#    -O2, -O3, -O2 -flto and -O2 with the shared runtime, each with
#    exactly six sites, one per op in its own function; and with plain
#    gcc, the reference run, whose check count every run must match;
#  - a fault in a site is reported as the case it happened in;
#  - the -O2, -O3, LTO and shared builds under every REPSTOS_VARIANT, the
#    policy's choice (auto) and REPSTOS_PATCH=0 (the stub); the -O2 build
#    after `repstos patch --cpu=X` for every CPU profile, native and
#    every variant name: no mismatch, no fault, every run.
# Modes (sweep.c's plans): quick, for make test: sizes 0..300 and
# 2^k-1..2^k+1 to 64 KiB, ends 0..300 and 3840..4159 before the guard
# page, 2.6 million checks a run, ~25 s in all.  Full (SWEEP_FULL=1 or
# the argument `full`; make sweep-sites): sizes 0..1024 and to 16 MiB,
# every end distance 0..4159, 31 million checks a run, 8-15 s each
# alone: so the patched copies, whose routines the REPSTOS_VARIANT runs
# sweep in full, run the quick plan (6.5 CPU minutes in all: 8.5 minutes
# while another build shared the machine).  Two runs at a time: the
# machine has two cores.  SWEEP_TOP=DIR takes the plugin, runtime and
# tool of another built tree (a pre-fix one, to see this test fail).
# SWEEP_CC=clang-16 builds with clang and the LLVM plugin instead
# (tests/plugin/llvm-sweep.sh): the reference by plain clang, LTO as
# -flto=thin through lld 16, which makes the sites at the link (none
# where lld 16 is not installed), and clang's loop idiom pass off where
# GCC's loop distribution is.
. "$(dirname "$0")/lib.sh"
self=$top/tests/plugin/${0##*/}

# One run, in the shell xargs starts (below): sweep.sh --run LABEL WANT
# BIN MODE LOG [VAR=VALUE...], WANT the reference's checks.  Prints
# "ok LABEL: ..." or "FAIL LABEL: ..." with the parts that failed and
# their first cases, indented; the whole output goes to LOG.
if [ "${1:-}" = --run ]; then
	label=$2 want=$3 bin=$4 mode=$5 log=$6; shift 6
	t0=$(date +%s.%N)
	out=$(env "$@" REPSTOS_DEBUG=1 "$bin" "$mode" 2>&1); rc=$?
	echo "$out" >"$log"
	secs=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
	# a variant this CPU lacks runs as auto, and says so
	out=$(echo "$out" | grep -v "^repstos: REPSTOS_VARIANT '.*' needs instructions this CPU lacks")
	last=$(echo "$out" | grep '^sweep: ' | tail -n 1)
	got=$(echo "$last" | sed -n 's/^sweep: [a-z]*: \([0-9]*\) checks, 0 mismatches.*/\1/p')
	# what the runtime made of the sites (a patched file's label says)
	chose=$(echo "$out" | sed -n '/statically patched/d
		s/^repstos: [^;]*; variant \([a-z_0-9]*\)[^,]*, copy \([a-z_0-9]*\).*/\1, copy \2/p' | head -n 1)
	echo "$out" | grep -q '^repstos: .*text patching off' && chose="the stub, to $chose"
	chose=${chose:+ ($chose)}
	if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then
		echo "ok $label: $got checks, 0 mismatches, ${secs}s$chose"
		exit 0
	fi
	case $rc in
	0) why="$got checks, not the reference's $want" ;;
	1) why=$(echo "$last" | sed 's/^sweep: [a-z]*: \([0-9]*\) checks, \([0-9]*\) mismatches.*/\2 mismatches in \1 checks/') ;;
	3) why="a fault in a site" ;;
	*) [ $rc -gt 128 ] && why="killed by signal $((rc - 128))" || why="exit $rc" ;;
	esac
	echo "FAIL $label: $why, ${secs}s$chose; all of it in $log"
	# each part's first two cases (its line follows them), and the fault
	echo "$out" | awk '/^(MISMATCH|FAULT)/ { n++ }
		/^(MISMATCH|FAULT|    )/ { if (n <= 2) print; next }
		/ checks, [1-9][0-9]* mismatches/ && !/^sweep: / { print }
		/ checks, [0-9]* mismatches/ { n = 0 }' | sed 's/^/    /'
	exit 1
fi

ST=$(cd "${SWEEP_TOP:-$top}" && pwd) || { echo "FAIL: SWEEP_TOP=$SWEEP_TOP"; exit 1; }
TOOL=$ST/patcher/repstos		# for sites(), too
RCC=$ST/plugin/repstos-cc
need $ST/plugin/repstos.so $RCC $ST/runtime/librepstos.a \
	$ST/runtime/librepstos.so.0 $ST/runtime/librepstos_nonshared.a $TOOL
mode=quick
{ [ "${SWEEP_FULL:-0}" = 1 ] || [ "${1:-}" = full ]; } && mode=full
S=tests/plugin/sweep
scratch
mkdir -p $W/patched
note "mode $mode; plugin, runtime and tool from $ST"
CF="-std=gnu11 -g -Wall -Wextra -Wno-unused-parameter -fno-tree-loop-distribute-patterns"
PC=-fplugin-arg-repstos-copy
LTO="-O2 -flto"
if [ -n "${SWEEP_CC:-}" ]; then
	CC=$SWEEP_CC
	export REPSTOS_CC=$SWEEP_CC
	need $ST/plugin/librepstos-llvm.so
	CF="-std=gnu11 -g -Wall -Wextra -Wno-unused-parameter -mllvm -disable-loop-idiom-all"
	lld=$(command -v ld.lld-16) &&
		LTO="-O2 -flto=thin -fuse-ld=lld --ld-path=$lld -Wl,-mllvm,-disable-loop-idiom-all" ||
		{ LTO=; skipped "LTO: no ld.lld-16 to load the LLVM plugin at the link"; }
fi

# seconds since the epoch, and "N.Ns" since a time
now() { date +%s.%N; }
since() { echo "$1 $(now)" | awk '{ printf "%.1fs", $2 - $1 }'; }
start=$(now)

# ---- the builds --------------------------------------------------------------
# build NAME COMMAND...: sweep.c to $W/NAME, the compiler's words in $W/NAME.log
build() {
	name=$1; shift
	"$@" $CF -o $W/$name $S/sweep.c >$W/$name.log 2>&1 && return 0
	fail "$name: $* does not build:"
	tail -n 20 $W/$name.log
	return 1
}

# sites_ok NAME: six sites, each op once and in its own function; none
# elsewhere (the harness is loops, so a seventh is a stray).
sites_ok() {
	f=$W/$1 n=$(sites $W/$1)
	[ "$n" -gt 0 ] || { fail "$1: 0 sites"; return 1; }
	"$TOOL" dump $f >$f.dump 2>&1 || { fail "$1: repstos dump:"; cat $f.dump; return 1; }
	bad=""
	for w in site_memset:memset site_bzero:zero site_clear:clear \
		 site_memcpy:copy site_mempcpy:copy site_memmove:move; do
		c=$(awk -v fn=${w%:*} -v op=${w#*:} 'index($3, fn) == 1 &&
			substr($3, length(fn) + 1, 1) ~ /[+.]/ &&
			($5 == op || op == "move" && $5 == "move_fwd")' $f.dump | wc -l)
		[ "$c" -eq 1 ] || bad="$bad; ${w%:*}: $c ${w#*:} sites"
	done
	[ "$n" -eq 6 ] || bad="$bad; $n sites in all"
	[ -z "$bad" ] && return 0
	fail "$1: not one site per op${bad}:"
	cat $f.dump
	return 1
}

builds=""
build ref $CC -O2 && { [ "$(sites $W/ref)" -eq 0 ] || fail "ref: plain $CC made sites"; }
for b in "O2:-O2" "O3:-O3" ${LTO:+"lto:$LTO"} "shared:-O2"; do
	name=${b%%:*}
	rt=static; [ $name = shared ] && rt=shared
	build $name env REPSTOS_RUNTIME=$rt $RCC ${b#*:} $PC && sites_ok $name &&
		builds="$builds $name" &&
		ok "$name (${b#*:}, $rt runtime): 6 sites, one per op ($("$TOOL" dump --stats $W/$name | sed -n 's/^op: //p'))"
done
# the shared build runs on this tree's librepstos.so.0 (repstos-cc's rpath)
case " $builds " in
*" shared "*)
	so=$(ldd $W/shared | sed -n 's/.*librepstos\.so\.0 => \([^ ]*\) .*/\1/p')
	if [ "$so" = "$ST/runtime/librepstos.so.0" ]; then
		ok "shared: runs on $so"
	else
		fail "shared: librepstos.so.0 is '$so', not $ST's"
		builds=$(echo "$builds" | sed 's/ shared//')
	fi ;;
esac
note "builds: $(since $start)"

# ---- the reference, and a fault as it must be reported ----------------------
[ -x $W/ref ] || finish
# reference MODE: the reference's checks in that mode (every run's count)
reference() {
	out=$($W/ref $1 2>&1)
	n=$(echo "$out" | sed -n 's/^sweep: [a-z]*: \([0-9]*\) checks, 0 mismatches.*/\1/p')
	if [ -z "$n" ]; then
		fail "ref (plain $CC, $1): the harness fails without the plugin:"
		echo "$out" | head -n 20
		finish
	fi
	ok "ref (plain $CC): $(echo "$out" | tail -n 1)"
	eval want_$1=$n
}
reference quick
[ $mode = quick ] || reference full
case " $builds " in
*" O2 "*)
	out=$($W/O2 fault 2>&1); rc=$?
	[ $rc -eq 3 ] && echo "$out" | grep -q '^FAULT: SIGSEGV at dst+63 during memset size 64: dst at page offset 0xfc1, -1 bytes before the guard page' &&
		ok "a site's fault names its case (exit 3): $out" ||
		fail "O2 fault: exit $rc, not 3 with the case: $out" ;;
esac

# ---- the run list -----------------------------------------------------------------
# one line a run: LABEL|BIN|MODE|VAR=VALUE...
runs=$W/runs
: >$runs
for b in $builds; do
	for v in $(variants) auto; do
		echo "$b REPSTOS_VARIANT=$v|$W/$b|$mode|REPSTOS_VARIANT=$v"
	done
	echo "$b REPSTOS_PATCH=0|$W/$b|$mode|REPSTOS_PATCH=0"
done >>$runs
case " $builds " in
*" O2 "*)
	for p in $("$TOOL" --help 2>&1 | sed -n 's/.*or a CPU: //p') native $(variants); do
		if "$TOOL" patch --cpu=$p $W/O2 -o $W/patched/$p >$W/patched/$p.log 2>&1; then
			# the routines it chose, from the table
			r=$("$TOOL" dump --stats $W/patched/$p | awk '/^(copy )?variant:/ {
				for (i = $1 == "copy" ? 3 : 2; i < NF; i += 2)
					if ($(i + 1) > 0) s = s (s ? ", " : "") ($1 == "copy" ? "copy " : "") $i
			} END { print s }')
			echo "O2 patch --cpu=$p ($r)|$W/patched/$p|quick|"
		else
			fail "repstos patch --cpu=$p:"; cat $W/patched/$p.log
		fi
	done >>$runs ;;
esac

# Two at a time, each verdict in a file of its own, numbered as the list
# (so they read in its order), each run's output beside it; they are
# counted here, as xargs ran them in other shells.
t0=$(now)
rm -rf $W/verdicts $W/logs; mkdir -p $W/verdicts $W/logs
awk '{ print NR "|" $0 }' $runs | tr '\n' '\0' | xargs -0 -P 2 -I{} sh -c '
	set -f; o=$2 q=$3 f=$4
	IFS="|"; set -- $1; IFS=" "
	[ $4 = full ] && want=$f || want=$q
	exec sh "$0" --run "$2" $want "$3" $4 "$o/logs/$1.log" $5 >"$o/verdicts/$1"' \
	"$self" {} $W $want_quick "${want_full:-}"
for f in $(ls $W/verdicts | sort -n); do
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" ;;
		"FAIL "*) fail "${line#FAIL }" ;;
		*) echo "$line" ;;
		esac
	done <$W/verdicts/$f
done
n=$(cat $W/verdicts/* | grep -c '^ok \|^FAIL ')
[ "$n" -eq "$(wc -l <$runs)" ] || fail "$n verdicts for $(wc -l <$runs) runs"
note "timings: $(grep -c "|$mode|" $runs) $mode runs$([ $mode = quick ] ||
	echo " and $(grep -c '|quick|' $runs) quick ones") in $(since $t0), two at a time; $(since $start) in all"
finish
