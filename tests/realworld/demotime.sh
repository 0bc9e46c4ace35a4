#!/bin/sh
# Proves: the demo times its builds in interleaved rounds, rotated each round, and reports the median ratio, its min..max and "level within the noise" when the rounds disagree.
# examples/rounds.sh, as examples/demo.sh uses it: time_rounds with a
# run_config that only notes which build it was asked for (nothing is
# timed here: the order is checked, not the times), then rounds_report
# on made-up times whose ratios are known, each verdict and an even
# count of rounds.  Last, that the demo times through these two and no
# longer takes best-of runs one build after the other.
. "$(dirname "$0")/lib.sh"
scratch
. examples/rounds.sh

# ---- the order: every build once a round, rotated --------------------------
run_config() { echo "$1" >>"$W/order"; }
: >"$W/order"
if time_rounds 3 a b c >"$W/runs"; then
	got=$(tr '\n' ' ' <"$W/order")
	[ "$got" = "a b c b c a c a b " ] &&
		ok "3 rounds of a b c run in the order a b c, b c a, c a b" ||
		fail "3 rounds of a b c ran in the order $got"
	got=$(awk '$3 ~ /^[0-9]+$/ { printf "%s%s ", $1, $2 }' "$W/runs")
	[ "$got" = "0a 0b 0c 1b 1c 1a 2c 2a 2b " ] &&
		ok "one line a run: round, build, nanoseconds" ||
		fail "time_rounds printed: $(tr '\n' ';' <"$W/runs")"
else
	fail "time_rounds failed where every run succeeded"
fi
run_config() { echo "$1" >>"$W/order"; [ "$1" != b ]; }
: >"$W/order"
if time_rounds 2 a b c >/dev/null; then
	fail "time_rounds succeeded where a run failed"
else
	[ "$(tr '\n' ' ' <"$W/order")" = "a b " ] &&
		ok "a failed run stops the rounds, and time_rounds fails" ||
		fail "after a failed run, it ran $(tr '\n' ' ' <"$W/order")"
fi

# ---- the report, on known times ----------------------------------------------
# report WANT BASE LABEL... < RUNS: rounds_report's output is WANT.
report() {
	want=$1; shift
	got=$(rounds_report "$@")
	[ "$got" = "$want" ] && ok "$want" || fail "wanted '$want', got '$got'"
}
# five rounds, x faster in each (ratios 1.11 1.25 1.18 1.05 1.43), the
# order within a round as time_rounds rotates it
report "x: 0.850s, p: 1.000s, ratio 1.18x (1.05..1.43): faster in every round" p x <<'EOF'
0 p 1000000000
0 x 900000000
1 x 800000000
1 p 1000000000
2 p 1000000000
2 x 850000000
3 x 950000000
3 p 1000000000
4 p 1000000000
4 x 700000000
EOF
# ratios 0.91 1.25 1.11: one round slower, so no verdict but the noise's
report "y: 0.900s, p: 1.000s, ratio 1.11x (0.91..1.25): level within the noise" p y <<'EOF'
0 p 1000000000
0 y 1100000000
1 p 1000000000
1 y 800000000
2 p 1000000000
2 y 900000000
EOF
# ratios 1.00 1.20 1.30: a round exactly level is not a faster one
report "y: 0.833s, p: 1.000s, ratio 1.20x (1.00..1.30): level within the noise" p y <<'EOF'
0 p 1000000000
0 y 1000000000
1 p 1000000000
1 y 833333333
2 p 1000000000
2 y 769230769
EOF
# four rounds, slower in each (ratios 0.80 0.50 0.67 0.91): the median of
# an even count is the mean of the middle two; two builds, one report each
report "z: 1.375s, p: 1.000s, ratio 0.73x (0.50..0.91): slower in every round
x: 1.000s, p: 1.000s, ratio 1.00x (1.00..1.00): level within the noise" p z x <<'EOF'
0 p 1000000000
0 z 1250000000
0 x 1000000000
1 z 2000000000
1 x 1000000000
1 p 1000000000
2 x 1000000000
2 p 1000000000
2 z 1500000000
3 p 1000000000
3 z 1100000000
3 x 1000000000
EOF
report "x: no round timed both it and p" p x <<'EOF'
0 x 1000000000
EOF

# ---- the demo times through them ----------------------------------------------
sed -n '/^say "time/,/^say "every site/p' examples/demo.sh >"$W/timing"
grep -q '^time_rounds ' "$W/timing" && grep -q '^rounds_report ' "$W/timing" &&
	ok "examples/demo.sh times through time_rounds and rounds_report" ||
	fail "examples/demo.sh does not time through rounds.sh: $(tr '\n' ' ' <"$W/timing" | cut -c1-200)"
grep -qi 'best' "$W/timing" &&
	fail "examples/demo.sh still takes a best of runs: $(grep -i best "$W/timing")" ||
	ok "examples/demo.sh takes no best of runs"
finish
