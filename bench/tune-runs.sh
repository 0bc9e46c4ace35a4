#!/bin/sh
# tune-runs.sh - `repstos tune --report` N times in a row (default 10):
# the full report of the first run, then each run's decision and time.
# The decision (module routine, copy routine and rep stosb thresholds)
# should be the same every time on an idle machine.  --report also
# measures the use-after-write shape: about twice `repstos tune`'s time.
#   bench/tune-runs.sh [N]
n=${1:-10}
t=$(mktemp)
i=1
while [ $i -le $n ]; do
	start=$(date +%s.%N)
	patcher/repstos tune --report > $t.$i 2>&1 || { echo "tune failed"; exit 1; }
	end=$(date +%s.%N)
	awk -v a=$start -v b=$end 'BEGIN { print b - a }' > $t.$i.time
	i=$((i + 1))
done
cat $t.1
echo
echo "decisions of $n runs (module routines, set and copy; read routines; rep stosb thresholds):"
i=1
while [ $i -le $n ]; do
	# the decisions: each family's module routine (*) and read
	# routine (r), set first
	pick=$(sed -n 's/^  \* \([a-z0-9_]*\) .*/\1/p' $t.$i | paste -sd' ')
	read=$(sed -n 's/^  r \([a-z0-9_]*\) .*/\1/p' $t.$i | paste -sd' ')
	[ -z "$read" ] || pick="$pick; read $read"
	thr=$(sed -n 's/^  rep stosb thresholds: //p' $t.$i)
	printf 'run %2d: %-21s %s; in %.2f s\n' $i "$pick" "$thr" "$(cat $t.$i.time)"
	i=$((i + 1))
done
distinct=$(for i in $(seq 1 $n); do
	sed -n 's/^  [*r] \([a-z0-9_]*\) .*/\1/p; s/^  rep stosb thresholds: //p' $t.$i |
		tr '\n' ' '; echo; done | sort -u | wc -l)
echo "distinct decisions: $distinct"
rm -f $t $t.*
