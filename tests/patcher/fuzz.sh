#!/bin/bash
# Proves: no input crashes, leaks or misbehaves in the tool.
# SPDX-License-Identifier: MIT
# Every seed in tests/patcher/corpus gives an exit code (0, 1 or 2) from
# check and dump, then a bounded libFuzzer run (REPSTOS_FUZZ_SECONDS,
# default 60) over check, dump and patch --dry-run finds no crash, leak
# or undefined behaviour.
. "$(dirname "$0")/lib.sh"

CORPUS=$top/tests/patcher/corpus
FUZZ=$top/build/patcher/repstos-fuzz
SECS=${REPSTOS_FUZZ_SECONDS:-60}

for f in "$CORPUS"/*; do
	for cmd in check dump "dump --json"; do
		"$TOOL" $cmd "$f" >/dev/null 2>&1
		rc=$?
		if [ $rc -le 2 ]; then
			ok "$cmd $(basename "$f"): exit $rc"
		else
			fail "$cmd $(basename "$f"): exit $rc"
		fi
	done
done
# make builds the fuzzer wherever it finds clang (patcher/patcher.mk).
if ! command -v clang-14 >/dev/null && ! command -v clang >/dev/null; then
	skipped "no clang to build $FUZZ: seeds replayed only"
	finish
fi
need "$FUZZ"
# New inputs go to the scratch directory; the committed corpus is read only.
mkdir -p "$W/corpus"
if "$FUZZ" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$W/corpus" "$CORPUS" >"$W/fuzz.log" 2>&1; then
	ok "fuzzing ${SECS}s: $(grep -E '^stat::number_of_executed_units' "$W/fuzz.log") , no crash"
else
	fail "the fuzzer found a problem:"
	grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$W/fuzz.log" | head -20
fi
finish
