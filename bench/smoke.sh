#!/bin/sh
# Proves: the benchmarks run to the end as any CPU, poorer than this one too.
# The benchmarks run to the end on any CPU, in every shape (bench.h: back
# to back, use after write, read after write): under REPSTOS_CPU profiles with
# fewer features than this machine, make bench's memset benchmark skips
# the routines such a CPU lacks (a SIGILL there killed it on a Zen 4
# without AVX-512) and the many-site program runs only the variants the
# CPU has; the same for copies (copybench, manysite.sh -c).  Tiny
# batches: this checks that they run, never how fast.
# (footprint.sh runs in tests/runtime/shared.sh, which checks its goals.)
. "$(dirname "$0")/../tests/lib.sh"
bin=build/bench/bench
copybench=build/bench/copybench
need $bin $copybench build/bench/plaincheck plugin/repstos.so runtime/librepstos.a patcher/repstos
t=$(mktemp -d build/bench/smoke.XXXXXX) || exit 1
trap 'rm -rf $t' EXIT

# shapes DIR "SHAPE.." "OFFSET..": what summary.txt and bench.csv in DIR
# lack of those shapes (bench.h) at those offsets, for the 6 sizes smoke
# runs: per shape a section with a speedup table per offset, auto's goal
# lines and (back to back) the ns tables; a geometric-mean line per shape
# and offset; CSV rows with the shape and offset columns.  Empty: all there.
shapes() {
	for s in $2; do
		sec=$(sed -n "/^==== .* ($s)\$/,/^==== \|^Geometric/p" $1/summary.txt)
		n=$(echo "$2" | wc -w) no=$(echo "$3" | wc -w)
		ratios=$(echo "$sec" | grep -c '^speedup vs glibc')
		rows=$(echo "$sec" | grep -c '^ *\(0\|16\|300\|5000\|mix\|dist-A\) ')
		goals=$(echo "$sec" | grep -c '^  \(aligned\|misaligned\|random\) *fill')
		want=$((no * 6)) nsw=0
		[ $s = b2b ] && want=$((no * 12)) nsw=$no
		ns=$(echo "$sec" | grep -c '^ns/call')
		[ "$ratios" -eq $no ] && [ "$rows" -eq $want ] &&
			[ "$ns" -eq $nsw ] && [ "$goals" -eq $((no * 2)) ] ||
			echo "$s: $ratios speedup tables, $ns ns tables, $rows rows, $goals goal lines;"
		for o in $3; do
			grep -q "^$s $o " $1/summary.txt ||
				echo "no geometric mean for $s $o;"
			grep -q "^glibc,dist-A,$s,$o,90," $1/bench.csv ||
				echo "no CSV row for $s $o;"
		done
	done
	n=$(grep -c '^==== ' $1/summary.txt)
	[ $n -eq $(echo "$2" | wc -w) ] || echo "$n shape sections;"
	grep -q '^candidate,size,shape,offset,fill,' $1/bench.csv ||
		echo "no shape and offset columns in bench.csv;"
}

for cpu in generic zen3 zen4-noavx512 native; do
	out=$(REPSTOS_CPU=$cpu $bin -r 1 -t 2 -z 0,16,300,5000,mix,dist-A \
		-o $t/$cpu 2>&1); rc=$?
	if [ $rc -ne 0 ] || [ ! -s $t/$cpu/summary.txt ]; then
		fail "bench as $cpu: exit $rc"
		echo "$out" | tail -n 5
		continue
	fi
	# The routines each profile's features (repstos_cpu_profile) leave out.
	case $cpu in
	generic) lack="site-avx2 site-avx512 site-avx512_split site-avx512_plain site-stosb_avx2" ;;
	zen3|zen4-noavx512) lack="site-avx512 site-avx512_split site-avx512_plain" ;;
	*) lack="" ;;
	esac
	for c in $lack; do
		grep -q "^  $c " $t/$cpu/summary.txt &&
			fail "bench as $cpu ran $c, which it lacks"
	done
	grep -q 'dist-A' $t/$cpu/summary.txt ||
		fail "bench as $cpu: no published distribution in the summary"
	miss=$(shapes $t/$cpu "b2b use read" "0 3 rand")
	[ -z "$miss" ] || fail "bench as $cpu, the shapes: $miss"
	ok "bench as $cpu ran to the end${lack:+, without $lack}, every shape"
done

# A quick look takes some shapes and offsets only (-s, -a).
out=$($bin -r 1 -t 2 -z 0,16,300,5000,mix,dist-A -s use,read -a rand \
	-o $t/some 2>&1); rc=$?
miss=$([ $rc -eq 0 ] && shapes $t/some "use read" "rand")
[ $rc -eq 0 ] && [ -z "$miss" ] &&
	! grep -q '^b2b \|, destination 4 KiB aligned' $t/some/summary.txt &&
	ok "bench -s use,read -a rand: those alone" ||
	{ fail "bench -s use,read -a rand (exit $rc): $miss"; echo "$out" | tail -n 5; }

# A range of sizes (-z LO..HI) is a row of its own, and counts as neither a
# fixed size nor a distribution in the goal lines; a bad one is refused.
out=$($bin -r 1 -t 2 -z 16..63,dist-A -s use -a 0 -o $t/range 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q '^  16\.\.63 ' $t/range/summary.txt &&
	grep -q '^glibc,16\.\.63,use,0,' $t/range/bench.csv &&
	grep -q 'no fixed size measured; worst distribution dist-A' \
		$t/range/summary.txt &&
	ok "bench -z 16..63: its own row, not a fixed size" ||
	{ fail "bench -z 16..63 (exit $rc)"; echo "$out" | tail -n 5; }
for bad in 63..16 16.. 16..2000000; do
	out=$($bin -r 1 -t 2 -z $bad -o $t/bad 2>&1); rc=$?
	[ $rc -eq 2 ] && echo "$out" | grep -q "bad size range $bad" &&
		ok "bench -z $bad: refused" ||
		{ fail "bench -z $bad: exit $rc"; echo "$out" | tail -n 3; }
done

# An unknown candidate is refused before anything runs or is written
# (it once ran glibc alone into the committed results folder).
out=$($bin -r 1 -t 2 -c glibc,nosuch -o $t/nosuch 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "no candidate nosuch" && [ ! -e $t/nosuch ] &&
	ok "bench -c nosuch: refused, nothing written" ||
	{ fail "bench -c nosuch: exit $rc"; echo "$out" | tail -n 3; }
out=$($copybench -r 1 -c glibc,nosuch 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "no candidate nosuch" &&
	ok "copybench -c nosuch: refused" ||
	{ fail "copybench -c nosuch: exit $rc"; echo "$out" | tail -n 3; }
$bin -l | grep -q '^site-avx512_split ' && [ "$($copybench -l | head -n 1)" = glibc ] &&
	ok "bench -l and copybench -l list the candidates" ||
	fail "bench -l / copybench -l"

for op in "" -c; do
	what="many-site program${op:+ for copies}"
	out=$(REPSTOS_CPU=generic bench/manysite.sh $op 1 2>&1); rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q '^auto ' &&
		! echo "$out" | grep -q '^avx2 ' &&
		echo "$out" | grep -q 'back to back  *use after write$' &&
		[ $(echo "$out" | awk '$1 == "auto" { print NF }') -eq 7 ] &&
		ok "$what as generic: no avx2, auto $(echo "$out" |
			sed -n 's/^auto *//p')" ||
		{ fail "$what as generic (exit $rc)"; echo "$out"; }
done

# The same program built by clang-16 beside GCC's (MANYSITE_CCS), where
# the LLVM plugin is built: its own plain, auto and profiled rows.
if [ -f plugin/librepstos-llvm.so ] && command -v clang-16 >/dev/null; then
	out=$(MANYSITE_CCS="gcc clang-16" bench/manysite.sh 1 2>&1); rc=$?
	rows=$(echo "$out" | awk '$1 ~ /^clang-16-(plain|auto|profiled)$/ && NF == 7' | wc -l)
	[ $rc -eq 0 ] && [ "$rows" -eq 3 ] &&
		echo "$out" | grep -q '^the clang-16 build: [1-9][0-9]* sites' &&
		ok "many-site program by gcc and clang-16: $(echo "$out" |
			sed -n 's/^\(clang-16-auto\) *\([^ ]*\) *\([^ ]*\).*/\1 \3/p')" ||
		{ fail "many-site program by gcc and clang-16 (exit $rc, $rows rows)"; echo "$out"; }
else
	echo "note: no clang-16 or LLVM plugin: the many-site program's clang build not run"
fi

# copybench: every configuration kind and each distribution at every
# offset, in every shape, one repetition of few calls; as generic no
# avx2 or avx512 column, natively all of them.  Each shape's table has
# every row (3 sizes x al, mis, rnd, ov+64; 5 distributions x al, mis,
# rnd) and a geometric mean per offset.
# can CPU: the routines copybench must have let run ("avx2 yes, avx512
# no"): what the features bench's summary lists for this machine give
# them (the routines' needs, REPSTOS_VARIANTS), none as generic.  A
# benchmark with no site has no constructor to set the bytes they test,
# and so measured "vec" under every name until it set them itself.
can() {
	f=" $(sed -n 's/^features: //p' $t/native/summary.txt) "
	a2=no a5=no
	if [ $1 != generic ]; then
		has avx2 && a2=yes
		has avx512f && has avx512bw && has avx512vl && has bmi2 && a5=yes
	fi
	echo "avx2 $a2, avx512 $a5"
}
has() {
	case $f in *" $1 "*) return 0 ;; esac
	return 1
}

for cpu in generic native; do
	out=$(REPSTOS_CPU=$cpu $copybench -r 1 -n 2000 -z 0,17,5000,dist-A,dist-B,dist-D,dist-L,dist-M 2>&1); rc=$?
	head=$(echo "$out" | grep -m1 '^config ')
	bad=
	for s in b2b use read; do
		sec=$(echo "$out" | sed -n "/^## .* ($s): /,/^## /p")
		rows=$(echo "$sec" | grep -c '^[0-9]* [a-z]\|^dist-')
		means=$(echo "$sec" | grep -c '^geomean \(al\|mis\|rnd\) ')
		[ "$rows" -eq 27 ] && [ "$means" -eq 3 ] ||
			bad="$bad $s: $rows of 27 rows, $means of 3 means;"
	done
	if [ $rc -ne 0 ] || [ -n "$bad" ]; then
		fail "copybench as $cpu: exit $rc;$bad"
		echo "$out" | tail -n 5
	elif [ $cpu = generic ] && echo "$head" | grep -q 'avx'; then
		fail "copybench as generic ran an AVX routine: $head"
	elif ! echo "$head" | grep -q 'gcc-vector_loop'; then
		fail "copybench as $cpu: no GCC strategy columns: $head"
	elif ! echo "$out" | grep -q "^# routines enabled: $(can $cpu)\$"; then
		fail "copybench as $cpu: $(echo "$out" | grep -m1 'routines enabled' ||
			echo 'no routines line'), where this CPU as $cpu can run: $(can $cpu)"
	else
		ok "copybench as $cpu ran to the end, $(echo "$head" | wc -w) columns, every shape"
	fi
done

# plain.S's and plaincopy.S's routines (bench-only, timed beside
# avx512_split and avx512) are correct memsets and memmoves, every path
# taken, where this CPU can run them.
out=$(build/bench/plaincheck); rc=$?
case $rc in
0|2) ok "$(echo "$out" | sed -n 1p); $(echo "$out" | tail -n 1)" ;;
*) fail "plaincheck:"; echo "$out" | tail -n 20 ;;
esac

# A -z entry the benchmarks cannot read is one line and exit 2, before
# any timing: "dists" was once copybench's size 0, timed unasked.
for b in "$bin dists1" "$bin dist-Q" "$bin 64k" "$copybench dists" \
		"$copybench dist-Q" "$copybench 9x"; do
	set -- $b
	case $1 in
	$bin)	out=$($1 -o $t/bad -z "$2" -r 1 2>&1); rc=$? ;;
	*)	out=$($1 -z "$2" -r 1 -n 1 2>&1); rc=$? ;;
	esac
	[ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		echo "$out" | grep -q -- "-z $2: " &&
		ok "$(basename $1) -z $2: exit 2, \"$out\"" ||
		fail "$(basename $1) -z $2: exit $rc: $out"
done

# plugin-compile-time.sh stops at a compile that fails, rather than
# sum the times it has and print an overhead of nothing.
printf 'int broken = ;\n' >$t/broken.c
out=$(CODE=sqlite SQLITE_C=$t/broken.c ROUNDS=1 bench/plugin-compile-time.sh 2>&1); rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "^compile failed: $t/broken.c" &&
   ! echo "$out" | grep -q overhead; then
	ok "plugin-compile-time.sh on a file that does not compile: exit $rc, no overhead line"
else
	fail "plugin-compile-time.sh on a file that does not compile: exit $rc:"
	echo "$out" | tail -n 5
fi

finish
