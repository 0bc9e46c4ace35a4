#!/bin/sh
# startup.sh - start-up cost of patching N sites (default 10000): a
# generated program with N REPSTOS_MEMSET sites, one per function (as in
# real code), run R times per route; prints the median whole start-up
# (CPUID, environment, tuning file, patching) and patching alone, and the
# pages written.  Goal: 10,000 sites in < 1 ms.
#   bench/startup.sh [N] [R]
. "$(dirname "$0")/lib.sh"
n=${1:-10000}
reps=${2:-21}
dir=build/bench
mkdir -p $dir
src=$dir/sites$n.c
bin=$dir/sites$n
{
	echo '#include <stdio.h>'
	echo '#include "repstos.h"'
	i=0
	while [ $i -lt $n ]; do
		echo "__attribute__((noinline)) void f$i(char *p, unsigned long n) { REPSTOS_MEMSET(p, $((i % 256)), n); }"
		i=$((i + 1))
	done
	echo 'int main(void) {'
	echo '	const struct repstos_stats *s = repstos_stats();'
	echo '	static char b[64];'
	echo "	f$((n - 1))(b, 64); f0(b, 64);"
	printf '%s\n' '	printf("%u %u %u %llu %llu %s\n", s->sites, s->patched, s->pages, s->nsec, s->patch_nsec, s->method);'
	echo '	return b[3] != 0 || b[0] != 0;'
	echo '}'
} > $src.tmp && mv $src.tmp $src
[ $bin -nt $src ] && [ $bin -nt runtime/librepstos.a ] ||
	${CC:-gcc} -O2 -mno-red-zone -Iinclude -Iruntime -o $bin $src runtime/librepstos.a || exit 1
text=$(size -A $bin | awk '$1 == ".text" { print $2 }')
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu: $(cpu_desc); $(nproc) cpus; $(uname -r)"
echo "start-up with $n sites ($(( text / 1024 )) KiB of text), $reps runs per route, medians:"
for route in auto mprotect; do
	i=0
	: > $dir/startup.$route
	while [ $i -lt $reps ]; do
		REPSTOS_PATCH=$route $bin >> $dir/startup.$route || exit 1
		i=$((i + 1))
	done
	m=$(( (reps + 1) / 2 ))
	all=$(sort -n -k4 $dir/startup.$route | sed -n ${m}p | cut -d' ' -f4)
	pat=$(sort -n -k5 $dir/startup.$route | sed -n ${m}p | cut -d' ' -f5)
	set -- $(head -n 1 $dir/startup.$route)
	echo "  REPSTOS_PATCH=$route ($6): $1 sites, $2 patched, $3 pages;" \
		"start-up $((all / 1000)) us, of which patching $((pat / 1000)) us"
done
