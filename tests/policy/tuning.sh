#!/bin/sh
# Proves: a tuning file is used whole or not at all, short_rep_max too.
# The runtime (tests/policy/probe.c) and `repstos patch --cpu=native`
# read the tuning file through one reader:
#  - one over REPSTOS_TUNING_MAX - 1 bytes whose last line is cut there
#    ("variant avx512_split" straddling byte 4095, which read as far as
#    the cut names "avx512") is malformed: the runtime says so and
#    keeps the policy's numbers, the tool refuses it with an error;
#  - so is one whose last line has no newline;
#  - one of just under the limit is read;
#  - short_rep_max reaches the routines (__repstos_short_rep_max).
. "$(dirname "$0")/../lib.sh"
bin=$BUILT/probe
need $bin $TOOL
scratch
max=$(awk '$1 == "#define" && $2 == "REPSTOS_TUNING_MAX" { print $3 }' runtime/policy/policy.h)

$bin tuning $W/base || { fail "cannot write a tuning file"; finish; }
base=$($bin status)
run() { REPSTOS_TUNING=$1 REPSTOS_DEBUG=1 $bin status 2>$W/err; }

# pad FILE BYTES: comment lines to FILE until it holds BYTES bytes.
pad() {
	while [ $(($2 - $(wc -c < "$1"))) -gt 80 ]; do
		printf '# %076d\n' 0 >> "$1"
	done
	n=$(($2 - $(wc -c < "$1")))
	[ $n -ge 2 ] && printf "#%$((n - 2))s\n" "" >> "$1"
}

# ---- a file that does not fit ------------------------------------------
cp $W/base $W/big
pad $W/big $((max - 1 - 14))
printf 'variant avx512_split\n' >> $W/big
at=$(grep -b -o 'variant avx512_split' $W/big | tail -n 1 | cut -d: -f1)
[ "$at" -eq $((max - 1 - 14)) ] && [ "$(head -c $((max - 1)) $W/big | tail -c 14)" = "variant avx512" ] ||
	fail "the test's file: the line is at $at"
out=$(run $W/big)
if echo "$out" | grep -q "tuning=tuning file"; then
	fail "a file of $(wc -c < $W/big) bytes was used: $out"
elif ! grep -q "malformed tuning file" $W/err; then
	fail "a file of $(wc -c < $W/big) bytes: ignored, but not said: $(cat $W/err)"
else
	ok "a file of $(wc -c < $W/big) bytes, its last line cut at $((max - 1)): $(grep malformed $W/err)"
fi
REPSTOS_TUNING=$W/big $TOOL patch --cpu=native $bin -o $W/patched >$W/out 2>$W/err
rc=$?
[ $rc -ne 0 ] && [ ! -e $W/patched ] && grep -q "malformed tuning file" $W/err &&
	ok "the tool refuses it: exit $rc, $(cat $W/err)" ||
	fail "the tool: exit $rc, wrote $(ls $W/patched 2>/dev/null): $(cat $W/out $W/err)"

# ---- a last line without a newline --------------------------------------
cp $W/base $W/nonl
printf 'variant erms' >> $W/nonl
out=$(run $W/nonl)
! echo "$out" | grep -q "tuning=tuning file" && grep -q "malformed tuning file" $W/err &&
	ok "a last line without a newline: $(grep malformed $W/err)" ||
	fail "a last line without a newline: $out $(cat $W/err)"

# ---- a file that fits ----------------------------------------------------
cp $W/base $W/fits
printf 'short_rep_max 777\n' >> $W/fits
pad $W/fits $((max - 1 - 13))
printf 'variant erms\n' >> $W/fits
out=$(run $W/fits)
echo "$out" | grep -q "tuning=tuning file variant=erms " && ! grep -q malformed $W/err &&
	ok "a file of $(wc -c < $W/fits) bytes is read whole (variant erms, its last line)" ||
	fail "a file of $(wc -c < $W/fits) bytes: $out $(cat $W/err)"
[ "$(field "$out" short_rep_max)" = 777 ] &&
	ok "short_rep_max 777 reaches the routines (was $(field "$base" short_rep_max))" ||
	fail "short_rep_max: $(field "$out" short_rep_max), want 777"
finish
