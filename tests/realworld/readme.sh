#!/bin/sh
# Proves: the demo transcript in examples/README.md has the shape of what the tools print today, and the check fails when it does not.
# examples/transcript.sh --check runs the demo and compares its output,
# numbers, addresses, features and the chosen routine made alike, with
# the transcript in examples/README.md (which examples/transcript.sh
# wrote from a real run, naming its CPU).  Then a copy of that file with
# one line of repstos check's output changed, as after a change of
# format, must fail the same check.
. "$(dirname "$0")/lib.sh"
serialize readme
scratch
doc=examples/README.md

if examples/transcript.sh --check >"$W/out" 2>&1; then
	ok "$(tail -n 1 "$W/out")"
else
	fail "$doc's transcript is not what the demo prints now:"
	sed 's/^/    /' "$W/out" | tail -n 30
fi
grep -q '^On .*family 0x[0-9a-f]* model 0x[0-9a-f]*), 20[0-9-]* (times' "$doc" &&
	ok "the transcript names the CPU and the date it ran on" ||
	fail "the transcript does not name its CPU"

sed 's/: clean, \([0-9]*\) sites$/: OK (\1 sites)/' "$doc" >"$W/README.md"
if cmp -s "$doc" "$W/README.md"; then
	fail "control: no 'clean, N sites' line in the transcript to change"
elif TRANSCRIPT_README=$W/README.md examples/transcript.sh --check >"$W/ctl" 2>&1; then
	fail "control: a transcript with check's line changed passed the check"
else
	grep -q 'run examples/transcript.sh' "$W/ctl" &&
		ok "control: a changed output line fails, saying to run examples/transcript.sh" ||
		fail "control failed without saying why: $(tail -n 1 "$W/ctl")"
fi
finish
