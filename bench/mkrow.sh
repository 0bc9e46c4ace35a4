#!/bin/sh
# SPDX-License-Identifier: MIT
# mkrow.sh - a measured row for this CPU, derived by code from what
# `repstos tune --report` measured: N runs (default 20), pinned to one
# CPU (MKROW_CPU, default 1); the decision most of them made (each
# family's module and read routines, the rep stosb thresholds); and the
# row lines of the first run that made it, written to
# runtime/policy/rows/VENDOR-FAMILY-MODEL.costs under a header that says
# how many runs agreed.  runtime/policy/mkrows.sh turns the file into
# rows.h; rows.c's table names the CPUs the row is for.
#   bench/mkrow.sh [N]
set -eu
cd "$(dirname "$0")/.."
n=${1:-20}
cpu=${MKROW_CPU:-1}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
i=1
while [ $i -le $n ]; do
	taskset -c "$cpu" patcher/repstos tune --report >"$t/$i" 2>&1 ||
		{ echo "mkrow: repstos tune failed" >&2; exit 1; }
	# the decision: the marked routines, each with its mark (* the
	# module's, r the read one's: the routines come in the report's
	# order, not the marks'), and the thresholds, one line
	sed -n 's/^  \([*r]\) \([a-z0-9_]*\) .*/\1\2/p; s/^  rep stosb thresholds: //p' \
		"$t/$i" | paste -sd' ' >"$t/$i.d"
	i=$((i + 1))
done
cat "$t"/*.d | sort | uniq -c | sort -rn >"$t/tally"
best=$(head -n 1 "$t/tally" | sed 's/^ *[0-9]* //')
agree=$(head -n 1 "$t/tally" | awk '{ print $1 }')
first=$(grep -lxF "$best" "$t"/*.d | head -n 1)
run=${first%.d}
file=$(sed -n 's/^for \(runtime\/policy\/rows\/[a-z0-9-]*\.costs\), as a measured row:$/\1/p' "$run")
[ -n "$file" ] || { echo "mkrow: no row in tune's report" >&2; exit 1; }
{
	echo "# The measured row for $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'),"
	echo "# as bench/mkrow.sh $n derived it on $(date -u '+%Y-%m-%d') at $(git rev-parse --short HEAD 2>/dev/null || echo '?'):"
	echo "# $agree of $n runs of \`repstos tune --report\` (pinned to CPU $cpu) decided"
	echo "#   $best"
	echo "# (set then copy, each family's module routine marked *, its read"
	echo "# routine r; the rep stosb thresholds); these lines are the first"
	echo "# such run's."
	echo "# The other decisions:"
	tail -n +2 "$t/tally" | sed 's/^ *\([0-9]*\) /#   \1 runs: /'
	sed -n '/^for runtime\/policy\/rows\/.*as a measured row:$/,/^the policy/p' "$run" |
		sed '1d; $d'
} >"$file"
echo "mkrow: wrote $file ($agree of $n runs agree)"
