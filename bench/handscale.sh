#!/bin/sh
# handscale.sh - hand-written sites at scale: a generated unit of N
# REPSTOS_MEMSET sites (default 20000), 100 to a function, each site's
# offset its own (or GCC folds the functions into one), compiled with
# gcc (CC) and without the plugin, once with this tree's repstos.h and
# once with the headers of git revision OLD (default c55d05a, the last
# whose entries each had a link of their own).  Prints, for each, the
# seconds to compile to assembler and to assemble, and the table
# sections of the object.  Measures; asserts nothing.  Pin it:
#   taskset -c N bench/handscale.sh [N...]      (make bench-handscale)
cd "$(dirname "$0")/.."
. bench/lib.sh
old=${OLD:-c55d05a}
cc=${CC:-gcc}
per=100
dir=build/bench/handscale
mkdir -p $dir/old || exit 1
for h in repstos.h repstos_site.h; do
	git show "$old:include/$h" >$dir/old/$h || exit 1
done
tab=$(python3 tests/patcher/elfpoke.py const REPSTOS_SITES_SECTION)
tables() { readelf -SW "$1" | grep -c " $tab "; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
now() { date +%s.%N; }

# gen N: the unit, on stdout
gen() {
	echo '#include "repstos.h"'
	f=0
	while [ $((f * per)) -lt $1 ]; do
		echo "void f$f(char *p, unsigned long n) {"
		i=0
		while [ $i -lt $per ] && [ $((f * per + i)) -lt $1 ]; do
			echo "	REPSTOS_MEMSET(p + $((f * per + i)), $((i + 1)), n);"
			i=$((i + 1))
		done
		echo "}"
		f=$((f + 1))
	done
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu: $(cpu_desc); $(nproc) cpus; $($cc --version | head -n 1); $(as --version | head -n 1)"
for n in ${@:-20000}; do
	gen $n >$dir/hand$n.c
	for which in old new; do
		inc=include
		[ $which = old ] && inc=$dir/old
		s=$dir/hand$n-$which.s
		t0=$(now)
		$cc -O2 -I$inc -S -o $s $dir/hand$n.c || exit 1
		t1=$(now)
		as -o ${s%.s}.o $s || exit 1
		t2=$(now)
		echo "$n sites, $which repstos.h: compile to assembler $(secs $t0 $t1) s, assemble $(secs $t1 $t2) s, $(tables ${s%.s}.o) table sections"
	done
done
