#!/bin/sh
# Proves: every set and copy routine writes exactly its bytes and keeps every register outside the contract at every size, page position, overlap and threshold it branches on, and the sweep takes every path of every routine (the path check itself fails when paths are left).
#
# build/tests/runtime/sweep (tests/runtime/sweep.c says what it varies)
# in its quick form: sizes 0..1024 at 250-odd places each, large sizes
# to 1 MiB, moves at the distances the code tests; `make sweep-routines`
# runs the full form.  The routines in it are assembled with their path
# records (path_mark, runtime/routines/asm.h), and the run fails on any path of a
# routine this CPU runs that no case took.  Then the path check is shown
# able to fail: sizes up to 63 only must leave the large sizes' paths
# untaken, and say so (exit 3, "path not taken").
. "$(dirname "$0")/../lib.sh"
SWEEP=$top/$BUILT/sweep
need "$SWEEP"
scratch

"$SWEEP" -p "$W/paths.txt" >"$W/out" 2>&1
rc=$?
cat "$W/out"
reached=$(grep '^paths reached' "$W/out")
if [ $rc -eq 0 ] && [ -n "$reached" ]; then
	ok "quick sweep: $(tail -n 1 "$W/out")"
	ok "$reached"
	echo "summary: $reached ($(sed -n 's/^\([0-9]*\) cases.*/\1 cases/p' "$W/out"))"
else
	fail "quick sweep exited $rc"
fi
grep -q '^regression: 256-byte clear at every page offset by avx512_split: 0 wrong' "$W/out" &&
	ok "256-byte clear at every page offset (avx512_split, the default here)" ||
	grep -q 'avx512_split: not on this CPU' "$W/out" ||
	fail "no 256-byte clear regression line for avx512_split"

"$SWEEP" -m 63 >"$W/small" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q '^path not taken: vec_129_up' "$W/small"; then
	ok "path check fails when paths are left ($(grep '^paths reached' "$W/small"))"
else
	fail "sizes to 63 only: exit $rc, expected 3 with vec_129_up untaken"
	tail -n 5 "$W/small"
fi
finish
