#!/bin/sh
# Proves: one size limit for profiles, and the recorder keeps under it.
# REPSTOS_PROFILE_MAX (runtime/policy/profile.h, in MiB REPSTOS_PROFILE_MAX_MIB)
# is the one limit:
#  - a profile just under it (copies of one section, then one of another
#    table), recorded to once more, is merged (each table's sections
#    summed into one) instead of growing past it, and every call it held
#    is still counted;
#  - the merged file is read by the runtime (REPSTOS_PROFILE_USE) and by
#    `repstos dump --profile`;
#  - a file over the limit is refused by both, naming the same limit.
. "$(dirname "$0")/../lib.sh"
bin=$BUILT/probe
need $bin $TOOL
scratch
mib=$(awk '$1 == "#define" && $2 == "REPSTOS_PROFILE_MAX_MIB" { print $3 }' runtime/policy/profile.h)
case $mib in
[1-9]|[1-9][0-9]|[1-9][0-9][0-9]) max=$((mib << 20)) ;;
*) fail "no REPSTOS_PROFILE_MAX_MIB of 1..999 in runtime/policy/profile.h: '$mib'"; finish ;;
esac

# calls PROFILE: the calls of every site line, summed.
calls() { awk '$1 == "site" { n += $3 } END { print n + 0 }' "$1"; }

REPSTOS_PROFILE=$W/one $bin status >/dev/null || fail "probe, recording"
lines=$(wc -l < $W/one) size=$(wc -c < $W/one) per=$(calls $W/one)
# Copies of the section, doubled past half the limit, cut to the most
# whole sections that leave room for one of another table last (so that
# the next is not simply added into the last one).
sed 's/[0-9a-f]\{16\}/0123456789abcdef/' $W/one > $W/another
copies=$(( (max - 1 - size) / size ))
cp $W/one $W/big
while [ $(($(wc -c < $W/big) * 2)) -le "$max" ]; do
	cat $W/big $W/big > $W/tmp && mv $W/tmp $W/big
done
cat $W/big $W/big | head -n $((copies * lines)) > $W/tmp && cat $W/tmp $W/another > $W/big
rm -f $W/tmp
before=$(wc -c < $W/big)
want=$((per * (copies + 2)))
note "$copies sections and one of another table, $before bytes, limit $max"

REPSTOS_PROFILE=$W/big $bin status >/dev/null 2>$W/err || fail "probe, recording to the large file"
after=$(wc -c < $W/big)
if [ "$after" -gt "$max" ]; then
	fail "recorded to: $before bytes grew to $after, over the limit $max"
elif [ "$(calls $W/big)" -ne $want ]; then
	fail "recorded to: $(calls $W/big) calls, want $want"
else
	ok "recorded to: $before bytes became $after ($(grep -c '^profile ' $W/big) sections), $(calls $W/big) calls kept"
fi
out=$(REPSTOS_PROFILE_USE=$W/big REPSTOS_DEBUG=1 $bin status 2>&1)
echo "$out" | grep -q "chosen with the profile" && ! echo "$out" | grep -q ignored &&
	ok "the runtime uses it" || fail "the runtime: $out"
$TOOL dump --profile=$W/big $bin >/dev/null 2>$W/err &&
	ok "dump --profile reads it" || fail "dump --profile: $(cat $W/err)"

# Over the limit: refused by both.
head -c $((max + 1)) /dev/zero | tr '\0' '\n' > $W/over
cat $W/one >> $W/over
out=$(REPSTOS_PROFILE_USE=$W/over REPSTOS_DEBUG=1 $bin status 2>&1)
echo "$out" | grep -q "profile .* ignored: .*$mib MiB" &&
	ok "the runtime refuses $(wc -c < $W/over) bytes: $(echo "$out" | grep ignored | sed 's/.*ignored: //')" ||
	fail "the runtime, $(wc -c < $W/over) bytes: $out"
$TOOL dump --profile=$W/over $bin >/dev/null 2>$W/err
rc=$?
[ $rc -eq 2 ] && grep -q "$mib MiB" $W/err &&
	ok "the tool refuses it: $(cat $W/err)" || fail "the tool: exit $rc: $(cat $W/err)"
finish
