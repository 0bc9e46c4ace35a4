#!/bin/sh
# Proves: a profile that cannot be recorded says so, once, at start-up.
# Allocations of the runtime (linked into tests/profile/probe) made to
# fail by an LD_PRELOAD (tests/profile/failalloc.c):
#  - every one: under REPSTOS_PROFILE the program runs, its sites right,
#    and one line on stderr says the profile is not recorded; without
#    REPSTOS_PROFILE nothing is said;
#  - those over 1 KiB: the profile is written all the same, as the
#    buffer for a section at exit is sized from the counts, not 512
#    bytes a site.
# And a program of librepstos.a, which has no size profiles
# (runtime/runtime.mk): under REPSTOS_PROFILE it runs, its sites right,
# and one line says the profile is not recorded, and why; REPSTOS_DEBUG
# also names a REPSTOS_PROFILE_USE it does not read.
. "$(dirname "$0")/../lib.sh"
P=build/tests/profile
lean=build/tests/runtime/harden
need $P/probe $P/libfailalloc.so $lean
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT

# run FAILALLOC [ENV...]: the probe with allocations failing; out, err.
run() {
	how=$1; shift
	env LD_PRELOAD=$PWD/$P/libfailalloc.so FAILALLOC=$how "$@" \
		$P/probe status >$t/out 2>$t/err
	rc=$?
}

run all REPSTOS_PROFILE=$t/all
if [ $rc -ne 0 ] || ! grep -q "site=ok" $t/out; then
	fail "no memory: exit $rc: $(cat $t/out $t/err)"
elif [ "$(wc -l < $t/err)" -ne 1 ] || ! grep -q "$t/all" $t/err; then
	fail "no memory: $(wc -l < $t/err) lines on stderr, want one naming the profile: $(cat $t/err)"
else
	ok "no memory: the sites work, and one line: $(cat $t/err)"
fi
[ ! -e $t/all ] && ok "no memory: no file" || fail "no memory: $(cat $t/all)"
run all
[ $rc -eq 0 ] && [ ! -s $t/err ] && ok "no memory, no REPSTOS_PROFILE: nothing said" ||
	fail "no memory, no REPSTOS_PROFILE: exit $rc: $(cat $t/err)"

run 1024 REPSTOS_PROFILE=$t/small
if [ $rc -eq 0 ] && [ ! -s $t/err ] && grep -q '^end ' $t/small; then
	ok "no allocation over 1 KiB: the section ($(wc -c < $t/small) bytes) written"
else
	fail "no allocation over 1 KiB: exit $rc: $(cat $t/err)"
fi

REPSTOS_PROFILE=$t/lean $lean status >$t/out 2>$t/err; rc=$?
if [ $rc -ne 0 ] || ! grep -q "site=ok" $t/out; then
	fail "librepstos.a: exit $rc: $(cat $t/out $t/err)"
elif [ "$(wc -l < $t/err)" -ne 1 ] ||
     ! grep -q "^repstos: $t/lean: profile of .* not recorded: size profiles not linked" $t/err; then
	fail "librepstos.a: $(wc -l < $t/err) lines on stderr, want one saying why: $(cat $t/err)"
elif [ -e $t/lean ]; then
	fail "librepstos.a: a profile written: $(cat $t/lean)"
else
	ok "librepstos.a: the sites work, no file, and one line: $(cat $t/err)"
fi
echo "profile 2 table 0 sites 0 name x" >$t/use
REPSTOS_PROFILE_USE=$t/use REPSTOS_DEBUG=1 $lean status >$t/out 2>$t/err
grep -q "site=ok" $t/out && grep -q "profile $t/use ignored: size profiles not linked" $t/err &&
	ok "librepstos.a: REPSTOS_PROFILE_USE not read, and REPSTOS_DEBUG says so" ||
	fail "librepstos.a, REPSTOS_PROFILE_USE: $(cat $t/out $t/err)"
finish
