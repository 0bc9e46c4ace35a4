# rounds.sh - time builds of one program against each other, interleaved.
# Sourced by examples/demo.sh (and its test); the caller defines
# run_config LABEL, which runs LABEL's build once.
#
# Runs taken one build after the other (best of 5 of the plain build,
# then best of 5 of the next) measure how the machine drifts between
# them as much as the builds: on a shared guest they read 0.90x and
# 0.83x where an earlier run read 1.31x, and interleaved rounds of the
# same binaries found them level.  So every round runs every build
# once, in an order rotated each round, and each round yields one ratio
# a build, against the base build run in the same round.
#
# The verdict is a sign rule: when every round's ratio lies on one side
# of 1.0, the build is "faster in every round" or "slower in every
# round"; when the rounds' min..max spans 1.0 (at least one round each
# way, or one exactly level) it is "level within the noise".  If two
# builds were equal, each round would come out either way by chance,
# and seven rounds would all agree with a chance of 2/128, 1.6%.

# time_rounds R LABEL...: R rounds; round r runs each LABEL once, from
# the (r mod N)th on, wrapping, so that over N rounds each LABEL runs in
# every place once.  One line a run on stdout: ROUND LABEL NANOSECONDS.
# A LABEL is one word.  Fails as soon as a run fails.
time_rounds() {
	tr_n=$1
	shift
	tr_r=0
	while [ "$tr_r" -lt "$tr_n" ]; do
		tr_i=0
		while [ "$tr_i" -lt $# ]; do
			eval "tr_l=\${$(( (tr_r + tr_i) % $# + 1 ))}"
			tr_t0=$(date +%s%N)
			run_config "$tr_l" >/dev/null || return 1
			tr_t1=$(date +%s%N)
			echo "$tr_r $tr_l $((tr_t1 - tr_t0))"
			tr_i=$((tr_i + 1))
		done
		tr_r=$((tr_r + 1))
	done
}

# rounds_report BASE LABEL...: reads time_rounds' lines on stdin; for
# each LABEL, one line: its median time, BASE's, the median over the
# rounds of BASE's time / LABEL's (> 1: LABEL is faster), the least and
# greatest of those ratios, and the verdict above:
#   auto: 0.759s, plain: 0.992s, ratio 1.31x (1.20..1.40): faster in every round
# A round that lacks either time is left out.
rounds_report() {
	awk -v base="$1" -v labels="$*" '
	function median(a, n,   i, j, v) {	# sorts a[1..n]
		for (i = 2; i <= n; i++) {
			v = a[i]
			for (j = i - 1; j >= 1 && a[j] > v; j--)
				a[j + 1] = a[j]
			a[j + 1] = v
		}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ t[$1, $2] = $3; if (!($1 in seen)) { seen[$1]; order[++nr] = $1 } }
	END {
		nl = split(labels, l, " ")
		for (k = 2; k <= nl; k++) {
			n = 0
			for (i = 1; i <= nr; i++) {
				r = order[i]
				if (!((r, base) in t) || !((r, l[k]) in t) || t[r, l[k]] <= 0)
					continue
				n++
				ratio[n] = t[r, base] / t[r, l[k]]
				tb[n] = t[r, base]
				tl[n] = t[r, l[k]]
			}
			if (n == 0) {
				printf "%s: no round timed both it and %s\n", l[k], base
				continue
			}
			mb = median(tb, n); ml = median(tl, n); mr = median(ratio, n)
			lo = ratio[1]; hi = ratio[n]	# sorted by median()
			verdict = lo > 1 ? "faster in every round" : \
				hi < 1 ? "slower in every round" : "level within the noise"
			printf "%s: %.3fs, %s: %.3fs, ratio %.2fx (%.2f..%.2f): %s\n",
				l[k], ml / 1e9, base, mb / 1e9, mr, lo, hi, verdict
		}
	}'
}
