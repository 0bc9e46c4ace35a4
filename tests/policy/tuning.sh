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
bin=build/tests/policy/probe
tool=patcher/repstos
need $bin $tool
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
# field LINE KEY: VALUE of a KEY=VALUE word of the probe's line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
max=$(awk '$1 == "#define" && $2 == "REPSTOS_TUNING_MAX" { print $3 }' runtime/policy/policy.h)

$bin tuning $t/base || { fail "cannot write a tuning file"; finish; }
base=$($bin status)
run() { REPSTOS_TUNING=$1 REPSTOS_DEBUG=1 $bin status 2>$t/err; }

# pad FILE BYTES: comment lines to FILE until it holds BYTES bytes.
pad() {
	while [ $(($2 - $(wc -c < "$1"))) -gt 80 ]; do
		printf '# %076d\n' 0 >> "$1"
	done
	n=$(($2 - $(wc -c < "$1")))
	[ $n -ge 2 ] && printf "#%$((n - 2))s\n" "" >> "$1"
}

# ---- a file that does not fit ------------------------------------------
cp $t/base $t/big
pad $t/big $((max - 1 - 14))
printf 'variant avx512_split\n' >> $t/big
at=$(grep -b -o 'variant avx512_split' $t/big | cut -d: -f1)
[ "$at" -eq $((max - 1 - 14)) ] && [ "$(head -c $((max - 1)) $t/big | tail -c 14)" = "variant avx512" ] ||
	fail "the test's file: the line is at $at"
out=$(run $t/big)
if echo "$out" | grep -q "tuning=tuning file"; then
	fail "a file of $(wc -c < $t/big) bytes was used: $out"
elif ! grep -q "malformed tuning file" $t/err; then
	fail "a file of $(wc -c < $t/big) bytes: ignored, but not said: $(cat $t/err)"
else
	ok "a file of $(wc -c < $t/big) bytes, its last line cut at $((max - 1)): $(grep malformed $t/err)"
fi
REPSTOS_TUNING=$t/big $tool patch --cpu=native $bin -o $t/patched >$t/out 2>$t/err
rc=$?
[ $rc -ne 0 ] && [ ! -e $t/patched ] && grep -q "malformed tuning file" $t/err &&
	ok "the tool refuses it: exit $rc, $(cat $t/err)" ||
	fail "the tool: exit $rc, wrote $(ls $t/patched 2>/dev/null): $(cat $t/out $t/err)"

# ---- a last line without a newline --------------------------------------
cp $t/base $t/nonl
printf 'variant erms' >> $t/nonl
out=$(run $t/nonl)
! echo "$out" | grep -q "tuning=tuning file" && grep -q "malformed tuning file" $t/err &&
	ok "a last line without a newline: $(grep malformed $t/err)" ||
	fail "a last line without a newline: $out $(cat $t/err)"

# ---- a file that fits ----------------------------------------------------
cp $t/base $t/fits
printf 'short_rep_max 777\n' >> $t/fits
pad $t/fits $((max - 1 - 13))
printf 'variant erms\n' >> $t/fits
out=$(run $t/fits)
echo "$out" | grep -q "tuning=tuning file variant=erms " && ! grep -q malformed $t/err &&
	ok "a file of $(wc -c < $t/fits) bytes is read whole (variant erms, its last line)" ||
	fail "a file of $(wc -c < $t/fits) bytes: $out $(cat $t/err)"
[ "$(field "$out" short_rep_max)" = 777 ] &&
	ok "short_rep_max 777 reaches the routines (was $(field "$base" short_rep_max))" ||
	fail "short_rep_max: $(field "$out" short_rep_max), want 777"
finish
