#!/bin/sh
# scale.sh - the plugin's sites at scale: a generated unit of N memset
# calls of unknown size (default 100000), 100 to a function, built with
# the plugin.  Prints the seconds to compile it to assembler, to
# assemble that as the plugin writes it (one table section per text
# section) and as one link per site would (each entry linked to its own
# site, the form before; skipped above 20000 sites unless OLD=1, since
# it takes minutes), the table sections of each object, and the
# start-up (median of R runs) with no profile and with an installed
# profile of every site.
#   bench/scale.sh [N] [R]
cd "$(dirname "$0")/.."
. bench/lib.sh
n=${1:-100000}
reps=${2:-11}
per=100
dir=build/bench/scale
mkdir -p $dir
make -s plugin/repstos.so runtime/librepstos-full.a || exit 1
src=$dir/sites$n.c
{
	echo '#include <string.h>'
	echo '#include <stdio.h>'
	echo '#include "repstos.h"'
	f=0
	while [ $((f * per)) -lt $n ]; do
		echo "__attribute__((noinline)) void f$f(char *p, unsigned long n) {"
		i=0
		while [ $i -lt $per ] && [ $((f * per + i)) -lt $n ]; do
			echo "	memset(p + $i, $((i + 1)), n);"
			i=$((i + 1))
		done
		echo "}"
		f=$((f + 1))
	done
	echo 'int main(int argc, char **argv) {'
	echo '	const struct repstos_stats *s = repstos_stats();'
	echo '	static char b[256];'
	echo '	if (argc > 1) {'
	i=0
	while [ $i -lt $f ]; do
		echo "		f$i(b, 8);"
		i=$((i + 1))
	done
	echo '	}'
	printf '%s\n' '	printf("%u %u %llu %llu\n", s->sites, s->patched, s->nsec, s->patch_nsec);'
	echo '	return 0;'
	echo '}'
} >$src

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
now() { date +%s.%N; }
tab=$(python3 tests/patcher/elfpoke.py const REPSTOS_SITES_SECTION)
tables() { readelf -SW "$1" | grep -c " $tab "; }

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu: $(cpu_desc); $(nproc) cpus; $(gcc -dumpfullversion); $(as --version | head -n 1)"
echo "$n sites in $f functions"
t0=$(now)
gcc -O2 -Iinclude -fplugin=plugin/repstos.so -S -o $dir/sites.s $src || exit 1
t1=$(now)
as -o $dir/sites.o $dir/sites.s || exit 1
t2=$(now)
echo "compile to assembler: $(secs $t0 $t1) s"
echo "assemble, one link per text section: $(secs $t1 $t2) s, $(tables $dir/sites.o) table sections"
if [ $n -le 20000 ] || [ "${OLD:-0}" = 1 ]; then
	# the entry linked to its own site: .Lrepstos_siteK, as before
	sed 's/\(\.Lrepstos_site[0-9]*\): call \(.*\)repstos_sites, "ao", @progbits, \.Lrepstos_link[0-9]*/\1: call \2repstos_sites, "ao", @progbits, \1/' \
		$dir/sites.s >$dir/sites-old.s
	t3=$(now)
	as -o $dir/sites-old.o $dir/sites-old.s || exit 1
	t4=$(now)
	echo "assemble, one link per site: $(secs $t3 $t4) s, $(tables $dir/sites-old.o) table sections"
fi
gcc -o $dir/sites $dir/sites.o runtime/librepstos-full.a || exit 1

# median start-up and patching, in microseconds, of R runs under ENV...
startup() {
	: >$dir/runs
	i=0
	while [ $i -lt $reps ]; do
		env "$@" $dir/sites >>$dir/runs || exit 1
		i=$((i + 1))
	done
	m=$(( (reps + 1) / 2 ))
	all=$(sort -n -k3 $dir/runs | sed -n ${m}p | cut -d' ' -f3)
	pat=$(sort -n -k4 $dir/runs | sed -n ${m}p | cut -d' ' -f4)
	set -- $(head -n 1 $dir/runs)
	echo "$1 sites, $2 patched: start-up $((all / 1000)) us, of which patching $((pat / 1000)) us"
}
echo "start-up, no profile: $(startup REPSTOS_DEBUG=0)"
rm -f $dir/prof
REPSTOS_PROFILE=$dir/prof $dir/sites run >/dev/null || exit 1
echo "start-up, every site profiled: $(startup REPSTOS_PROFILE_USE=$dir/prof)"
