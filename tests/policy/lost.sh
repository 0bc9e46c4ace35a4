#!/bin/sh
# Proves: a profile that cannot be recorded says so, once, at start-up.
# Allocations of the runtime (linked into tests/policy/probe) made to
# fail by an LD_PRELOAD (tests/policy/failalloc.c):
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
P=$BUILT
lean=build/tests/runtime/harden
need $P/probe $P/libfailalloc.so $lean
scratch

# run FAILALLOC [ENV...]: the probe with allocations failing; out, err.
run() {
	how=$1; shift
	env LD_PRELOAD=$PWD/$P/libfailalloc.so FAILALLOC=$how "$@" \
		$P/probe status >$W/out 2>$W/err
	rc=$?
}

run all REPSTOS_PROFILE=$W/all
if [ $rc -ne 0 ] || ! grep -q "site=ok" $W/out; then
	fail "no memory: exit $rc: $(cat $W/out $W/err)"
elif [ "$(wc -l < $W/err)" -ne 1 ] || ! grep -q "$W/all" $W/err; then
	fail "no memory: $(wc -l < $W/err) lines on stderr, want one naming the profile: $(cat $W/err)"
else
	ok "no memory: the sites work, and one line: $(cat $W/err)"
fi
[ ! -e $W/all ] && ok "no memory: no file" || fail "no memory: $(cat $W/all)"
run all
[ $rc -eq 0 ] && [ ! -s $W/err ] && ok "no memory, no REPSTOS_PROFILE: nothing said" ||
	fail "no memory, no REPSTOS_PROFILE: exit $rc: $(cat $W/err)"

run 1024 REPSTOS_PROFILE=$W/small
if [ $rc -eq 0 ] && [ ! -s $W/err ] && grep -q '^end ' $W/small; then
	ok "no allocation over 1 KiB: the section ($(wc -c < $W/small) bytes) written"
else
	fail "no allocation over 1 KiB: exit $rc: $(cat $W/err)"
fi
REPSTOS_PROFILE=$W/lean $lean status >$W/out 2>$W/err; rc=$?
if [ $rc -ne 0 ] || ! grep -q "site=ok" $W/out; then
	fail "librepstos.a: exit $rc: $(cat $W/out $W/err)"
elif [ "$(wc -l < $W/err)" -ne 1 ] ||
     ! grep -q "^repstos: $W/lean: profile of .* not recorded: size profiles not linked" $W/err; then
	fail "librepstos.a: $(wc -l < $W/err) lines on stderr, want one saying why: $(cat $W/err)"
elif [ -e $W/lean ]; then
	fail "librepstos.a: a profile written: $(cat $W/lean)"
else
	ok "librepstos.a: the sites work, no file, and one line: $(cat $W/err)"
fi
echo "profile 2 table 0 sites 0 name x" >$W/use
REPSTOS_PROFILE_USE=$W/use REPSTOS_DEBUG=1 $lean status >$W/out 2>$W/err
grep -q "site=ok" $W/out && grep -q "profile $W/use ignored: size profiles not linked" $W/err &&
	ok "librepstos.a: REPSTOS_PROFILE_USE not read, and REPSTOS_DEBUG says so" ||
	fail "librepstos.a, REPSTOS_PROFILE_USE: $(cat $W/out $W/err)"
finish
