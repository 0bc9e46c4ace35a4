#!/bin/sh
# Proves: tests/run-tests says as each test ends that it ended, even while an earlier one holds back the verdicts in make's order.
# Two tests, run two at a time: the first waits until the second has
# ended (its file is there), so its verdict, which comes first in make's
# order, lands last.  The second's end must show before the first's
# verdict (a progress line), then both verdicts in order, then the last
# line; and each test's output is in its log.
. "$(dirname "$0")/../lib.sh"
scratch
run=$(pwd)/tests/run-tests

mkdir -p "$W/t"
cat >"$W/t/first.sh" <<'T'
#!/bin/sh
# Proves: it waits for the second test.
i=0
while [ ! -e "$(dirname "$0")/second.done" ]; do
	i=$((i + 1))
	[ $i -lt 6000 ] || { echo "the second test never ended"; exit 1; }
	sleep 0.1
done
echo "first ran"
T
cat >"$W/t/second.sh" <<'T'
#!/bin/sh
# Proves: it ends at once.
echo "second ran"
T
cat >>"$W/t/second.sh" <<T
sleep 0.2
: >"$W/t/second.done"
T
chmod +x "$W/t/first.sh" "$W/t/second.sh"
out=$(cd "$W" && TEST_JOBS=2 "$run" t/first.sh t/second.sh 2>&1)
echo "$out" | sed 's/^/    | /'
second=$(echo "$out" | grep -n 't/second.sh' | head -n 1 | cut -d: -f1)
first=$(echo "$out" | grep -n '^PASS t/first.sh' | cut -d: -f1)
[ -n "$second" ] && [ -n "$first" ] && [ "$second" -lt "$first" ] &&
	ok "the second test's end shows before the first's verdict" ||
	fail "nothing said of the second test before the first's verdict"
echo "$out" | grep -v '^ ' | grep '^PASS' | cut -d' ' -f2 | tr '\n' ' ' | grep -qx 't/first.sh t/second.sh ' &&
	ok "the verdicts in make's order" || fail "verdicts not in make's order"
[ "$(echo "$out" | tail -n 1)" = "2 passed, 0 failed, 0 skipped" ] &&
	ok "the last line counts them" || fail "last line: $(echo "$out" | tail -n 1)"
grep -q 'first ran' "$W/build/test-logs/t-first.sh.log" &&
	grep -q 'second ran' "$W/build/test-logs/t-second.sh.log" &&
	ok "each test's output in its log" || fail "no logs in $W/build/test-logs: $(ls "$W/build/test-logs")"
finish
