#!/bin/bash
# Proves: the tool's tests pass, with no sanitizer report, with the tool
# built under ASan+UBSan.
# SPDX-License-Identifier: MIT
# The patcher tests (tune --run's too) and the profile and read-back
# policy tests run again with the tool built under AddressSanitizer +
# UBSan (leak checks on).  A report makes the tool exit 99, which no
# test accepts.
. "$(dirname "$0")/lib.sh"

ASAN_TOOL=$top/build/patcher/asan/repstos
need "$ASAN_TOOL"
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
export LSAN_OPTIONS=exitcode=99
for t in inputs broken patch copies badinput harden kernel tunerun ../policy/profile \
	../policy/readback; do
	rc=0
	(cd "$top" && REPSTOS_TOOL=$ASAN_TOOL "tests/patcher/$t.sh") \
		>"$W/${t##*/}.log" 2>&1 || rc=$?
	if [ $rc = 0 ]; then
		ok "$t.sh under ASan+UBSan: $(tail -1 "$W/${t##*/}.log")"
	elif [ $rc = 77 ]; then
		# a test that cannot run on this CPU skips here as in make test
		skipped "$t.sh under ASan+UBSan: $(tail -1 "$W/${t##*/}.log")"
	else
		fail "$t.sh under ASan+UBSan"
		grep -v '^ok' "$W/${t##*/}.log" | head -30 | sed 's/^/    | /'
	fi
	if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$W/${t##*/}.log"; then
		fail "$t.sh: a sanitizer report"
	fi
done
finish
