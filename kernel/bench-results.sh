#!/bin/sh
# bench-results.sh [RUNS] - kernel/results/VERSION/routines-vs-linux.txt
# for $KERNEL_VERSION (6.1 unless given): kernel mode's routines against
# that version's own memset_64.S and memcpy_64.S, from RUNS processes (5
# unless given) of make bench-kernel's two programs (kernel/bench.sh),
# every shape and placement, fixed sizes and the published
# distributions, each pinned to CPU 1 (BENCH_CPU), the figures by
# kernel/bench-ratios.sh: Linux's time over ours, the median over the
# processes.  The machine, its load before and after, and what the
# versions' pairs mean go in the file's head; RESULTS_NOTE, where given,
# says what else the machine ran.  Every process's results stay in
# build/kernel/bench/VERSION/run-N; KBENCH_REUSE=1 writes the file again
# from those, running nothing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
v=${KERNEL_VERSION:-6.1}
runs=${1:-5}
cpu=${BENCH_CPU:-1}
case $runs in
*[!0-9]* | "" | 0) echo "bench-results.sh: RUNS must be a count" >&2; exit 2 ;;
esac
out=$top/build/kernel/bench/$v
mkdir -p "$out"
sets="0,1,3,7,8,15,16,31,32,63,64,65,100,128,200,256,511,1024,2048,4096,8192,65536,48,dists"
copies="0,1,4,8,15,16,24,48,64,65,128,192,200,256,512,768,1024,1536,2048,3072,4096,8192,16384,65536,dist-A,dist-B,dist-D,dist-L,dist-M"
shapes="-s b2b,use,read,first -a 0,3,rand"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u '+%Y-%m-%d %H:%M')
i=1
if [ "${KBENCH_REUSE:-0}" = 1 ]; then
	[ -f "$out/run-$runs/copybench.txt" ] ||
		{ echo "bench-results.sh: no $out/run-$runs to reuse" >&2; exit 1; }
	i=$((runs + 1))
	start=$(date -u -r "$out/run-1/bench.csv" '+%Y-%m-%d %H:%M')
fi
while [ "$i" -le "$runs" ]; do
	echo "bench-results.sh: Linux $v, process $i of $runs" >&2
	KERNEL_VERSION=$v COPYBENCH_CPU=$cpu \
	KCOPYBENCH_ARGS="-z $copies $shapes -r 12 -n 20000 -c glibc,linux-memcpy_erms,linux-memcpy_orig,linux-memcpy_rep_good,k-erms,k-rep_good,k-orig" \
	taskset -c "$cpu" "$top/kernel/bench.sh" -z "$sets" $shapes -r 7 \
		-c glibc,linux-memset_erms,linux-memset_orig,linux-memset_rep_good,k-erms,k-rep_good,k-orig \
		>"$out/bench-results.log" 2>&1 ||
		{ tail -5 "$out/bench-results.log" >&2; exit 1; }
	rm -rf "$out/run-$i"
	cp -r "$out/results" "$out/run-$i"
	i=$((i + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
end=$(date -u -r "$out/run-$runs/copybench.txt" '+%H:%M')
# the code measured: HEAD, "-dirty" only for changes outside the results
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
git -C "$top" diff --quiet HEAD -- . ':!kernel/results' 2>/dev/null || rev=$rev-dirty
dirs=$(i=1; while [ "$i" -le "$runs" ]; do echo "$out/run-$i"; i=$((i + 1)); done)
# shellcheck disable=SC2086
"$top/kernel/bench-ratios.sh" $dirs >"$out/ratios.txt"

if grep -q 'SYM_FUNC_START.*memset_erms' \
		"$top/build/kernel/linux-source-$v/arch/x86/lib/memset_64.S"; then
	pairs="k-erms / memset_erms and memcpy_erms (rep stosb, rep movsb), k-rep_good / the REP_GOOD bodies of __memset and __memcpy (rep stosq, rep movsq), k-orig / memset_orig and memcpy_orig"
else
	pairs="k-erms / the FSRS (FSRM) body of __memset (__memcpy): rep stosb (movsb), k-rep_good and k-orig / memset_orig and memcpy_orig (Linux $v runs them on every CPU without FSRS, FSRM: it has no REP_GOOD body and no _erms routines)"
fi
# cpuinfo FIELD: the first CPU's FIELD in /proc/cpuinfo ("model", not
# "model name")
cpuinfo() {
	awk -F'\t*: ' -v f="$1" '$1 == f { print $2; exit }' /proc/cpuinfo
}
res=$top/kernel/results/$v
mkdir -p "$res"
{
	echo "# Linux $v: kernel mode's routines against Linux's own, written by"
	echo "# kernel/bench-results.sh $runs at repstos $rev"
	echo "# from $runs processes, $start to $end UTC,"
	echo "# on $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1) (family $(cpuinfo 'cpu family') model $(printf '0x%x' "$(cpuinfo model)")), $(nproc) CPUs,"
	if [ "${KBENCH_REUSE:-0}" = 1 ]; then
		echo "# pinned to CPU $cpu; the runs' load: see RESULTS_NOTE."
	else
		echo "# pinned to CPU $cpu; load average before $load_before, after $load_after."
	fi
	[ -z "${RESULTS_NOTE:-}" ] || echo "# $RESULTS_NOTE"
	echo "#"
	echo "Figure: Linux's time / ours (> 1: ours faster), each process's two speedups over glibc, the median over the processes.  Pairs: $pairs." |
		fold -s -w 70 | sed 's/^/# /; s/ *$//'
	echo "# Shapes: b2b back to back; use = the next call depends on the last"
	echo "# byte written; first = on the first byte; read = on every 8-byte"
	echo "# word.  Placements: 0 = 4 KiB aligned, 3 = +3 (copies: destination"
	echo "# +3, source +5), rand = +0..63 per call; memset at fill bytes 0"
	echo "# (f0) and 0x5a (f90).  The erms pairs are the same instructions, so"
	echo "# their spread is this run's noise floor."
	echo
	sed -n '/^# per op/,$p' "$out/ratios.txt"
	echo
	echo "# every distribution's cell"
	grep ' dist-' "$out/ratios.txt"
} >"$res/routines-vs-linux.txt.tmp"
mv "$res/routines-vs-linux.txt.tmp" "$res/routines-vs-linux.txt"
echo "$res/routines-vs-linux.txt"
