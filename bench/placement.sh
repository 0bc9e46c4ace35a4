#!/bin/sh
# placement.sh - how much where the timing loop lies moves bench's
# figures: the same candidates in each of the loop placements alone
# (bench -P N, bench.h), then cycling through them as every other run of
# bench does.  Prints, per run, ns a call at small fixed sizes and the
# geometric means over the distributions, back to back and with use
# after write, aligned.
#   bench/placement.sh [REPS] [CANDIDATES]
reps=${1:-40}
cands=${2:-glibc,site-vec,site-avx512,site-avx512_split}
dir=build/bench
make -s $dir/bench || exit 1
cpu=$(($(nproc) - 1))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# bench/placement.sh $reps $cands"
echo "# taskset -c $cpu $dir/bench -r $reps -c $cands -z 8,32,100,256,dists -s b2b,use -a 0 -t 200 [-P N]"
# a run first, unreported, so that the CPU's clock has settled
taskset -c $cpu $dir/bench -o "$out" -r 500 -c "$cands" -z dists \
	-s b2b -a 0 -t 200 >/dev/null 2>&1 || exit 1
for p in 0 1 2 3 all; do
	case $p in
	all) opt= ;;
	*) opt="-P $p" ;;
	esac
	taskset -c $cpu $dir/bench -o "$out" -r "$reps" -c "$cands" \
		-z 8,32,100,256,dists -s b2b,use -a 0 -t 200 $opt >/dev/null 2>&1 ||
		exit 1
	echo
	echo "== placement $p"
	# ns a call back to back at the fixed sizes, then the geomeans
	sed -n '/^ns\/call (median), back to back, destination 4 KiB aligned/,/^$/p' \
		"$out/summary.txt" | grep -v dist-
	sed -n '/^Geometric mean/,/^$/p' "$out/summary.txt" | grep -v '^$'
done
