#!/bin/bash
# Proves: no input crashes, leaks or misbehaves in the tool.
# SPDX-License-Identifier: MIT
# Every seed in tests/patcher/corpus gives an exit code (0, 1 or 2) from
# check and dump; so does every copy of an ELF seed with one section
# header given another type or flag (elfpoke.py retype: a .notes of
# SHT_NOBITS, a symbol table of SHT_NOTE, ...), through the tool's
# check, dump, dump --stats and tune --run, and through the fuzz target
# under ASan+UBSan.  Then a bounded libFuzzer run (REPSTOS_FUZZ_SECONDS,
# default 60) over check, dump and patch --dry-run, which changes
# section headers' types and flags too, finds no crash, leak or
# undefined behaviour.
. "$(dirname "$0")/lib.sh"

CORPUS=$top/tests/patcher/corpus
FUZZ=$top/build/patcher/repstos-fuzz
SECS=${REPSTOS_FUZZ_SECONDS:-60}

for f in "$CORPUS"/*; do
	for cmd in check dump "dump --json" "dump --stats"; do
		"$TOOL" $cmd "$f" >/dev/null 2>&1
		rc=$?
		if [ $rc -le 2 ]; then
			ok "$cmd $(basename "$f"): exit $rc"
		else
			fail "$cmd $(basename "$f"): exit $rc"
		fi
	done
done

# Section types and flags: every one-field change of every section
# header of every ELF seed.  The tool's own command line on those of the
# kernel-mode object and an object with sites (tune --run refuses
# objects, after reading them); the fuzz target, under the sanitizers,
# on all of them below.
mkdir -p "$W/retyped"
n=0
for f in "$CORPUS"/*; do
	[ "$(head -c 5 "$f" | od -An -tx1 | tr -d ' ')" = 7f454c4602 ] || continue
	n=$((n + $($POKE retype "$f" "$W/retyped")))
done
bad=0 runs=0
for f in "$W"/retyped/kernel-o.* "$W"/retyped/kernel14-o.* "$W"/retyped/sites-o.*; do
	for cmd in check dump "dump --stats" "tune --run=true -o $W/tuned"; do
		"$TOOL" $cmd "$f" >/dev/null 2>&1
		rc=$? runs=$((runs + 1))
		if [ $rc -gt 2 ]; then
			bad=$((bad + 1))
			[ $bad -le 10 ] && fail "$cmd $(basename "$f"): exit $rc"
		fi
	done
done
[ $bad = 0 ] && ok "section types and flags: $runs runs of the tool, exits 0 to 2"

# make builds the fuzzer wherever it finds clang (patcher/patcher.mk).
if ! command -v clang-14 >/dev/null && ! command -v clang >/dev/null; then
	skipped "no clang to build $FUZZ: seeds replayed only"
	finish
fi
need "$FUZZ"
if "$FUZZ" -runs=0 -artifact_prefix="$W/" "$W/retyped" >"$W/retyped.log" 2>&1; then
	ok "section types and flags: $n variants of the seeds through the fuzz target, no crash"
else
	fail "the fuzz target on a section of another type or flag:"
	grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$W/retyped.log" | head -20
fi
# New inputs go to the scratch directory; the committed corpus is read only.
mkdir -p "$W/corpus"
if "$FUZZ" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$W/" -print_final_stats=1 "$W/corpus" "$CORPUS" >"$W/fuzz.log" 2>&1; then
	ok "fuzzing ${SECS}s: $(grep -E '^stat::number_of_executed_units' "$W/fuzz.log") , no crash"
else
	fail "the fuzzer found a problem:"
	grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$W/fuzz.log" | head -20
fi
finish
