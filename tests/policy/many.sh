#!/bin/sh
# Proves: a profile of every site costs start-up little more than none.
# tests/policy/many.c: 10,000 sites, every one called once with 8 bytes
# and profiled; then started with that profile (REPSTOS_PROFILE_USE) and
# without, best of 5 runs each: choosing and writing the sites with it
# takes at most 3 times as long as without, plus 0.3 ms (every profiled
# site weighed every form over its row: 25 times as long).  Also that
# every site is patched either way.
. "$(dirname "$0")/../lib.sh"
bin=$BUILT/manysites
need $bin
scratch

REPSTOS_PROFILE=$W/prof $bin run >/dev/null || fail "recording"
rows=$(grep -c '^site ' $W/prof)
[ "$rows" -eq 10000 ] || fail "the profile has $rows site lines, want 10000"

# best ENV...: the least patch_us of 5 runs into $b, the last line into
# $out; every run must patch every site.
best() {
	b=""
	for i in 1 2 3 4 5; do
		out=$(env "$@" $bin) || fail "$*: exit $?"
		[ "$(field "$out" patched)" = 10000 ] || fail "$*: $out"
		us=$(field "$out" patch_us)
		if [ -z "$b" ] || [ "$us" -lt "$b" ]; then b=$us; fi
	done
}
best REPSTOS_DEBUG=0
plain=$b start_plain=$(field "$out" start_us)
best REPSTOS_PROFILE_USE=$W/prof
profiled=$b start=$(field "$out" start_us)
out=$(REPSTOS_PROFILE_USE=$W/prof REPSTOS_DEBUG=1 $bin 2>&1)
echo "$out" | grep -q "chosen with the profile" || fail "the profile was not used: $out"
if [ "$profiled" -le $((3 * plain + 300)) ]; then
	ok "10,000 sites: patched in $profiled us with the profile, $plain us without (start-up $start and $start_plain us)"
else
	fail "10,000 sites: patched in $profiled us with the profile, $plain us without"
fi
finish
