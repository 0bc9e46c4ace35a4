#!/bin/sh
# Proves: every routine matches a byte loop on the seed corpus and random cases.
# fuzz_routines replays tests/runtime/fuzz-corpus (one of its seeds is the
# avx512_split bug of 44de022), then runs random cases (sets, copies and
# moves of every routine, any size to 1 MiB, near page ends and guard
# pages, under default and small thresholds) for FUZZ_TEST_SECONDS
# (default 15): every byte, the bytes around and the registers as the
# contract says.  FUZZ_SEED=N runs the cases of seed N again; a failure
# prints the case, its input and how to run it alone; FUZZ_BIN=PROG runs
# another build of the driver (one linked with an older runtime).
. "$(dirname "$0")/../lib.sh"
bin=${FUZZ_BIN:-$BUILT/fuzz_routines}
corpus=tests/runtime/fuzz-corpus
need $bin $corpus
secs=${FUZZ_TEST_SECONDS:-15}

out=$("$bin" ${FUZZ_SEED:+-s "$FUZZ_SEED"} -t "$secs" "$corpus" 2>&1)
rc=$?
echo "$out" | grep -E '^(cpu|seed) '
if [ $rc -eq 0 ]; then
	ok "$(echo "$out" | tail -n 1)"
else
	fail "exit $rc after $(echo "$out" | grep -c '^FAIL') failure(s):"
	echo "$out" | grep -A 12 '^FAIL'
fi
echo "$out" | grep -q "avx512 routines on" ||
	skipped "this CPU runs no avx512 routine: they ran vec"
finish
