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
. "$(dirname "$0")/../lib.sh"
P=build/tests/policy
need $P/probe $P/libfailalloc.so
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
finish
