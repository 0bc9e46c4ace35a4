# tests/runtime/lib.sh - shared by the hardening tests (sourced, run from
# the top of the tree): each check prints an "ok" or a "FAIL" line, and
# `finish` ends with the count.
d=build/tests/runtime
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

# field LINE KEY: VALUE from the KEY=VALUE words of a probe's line.
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }

# $tmp: a folder of the test's own, removed when it exits.
make_tmp() {
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
}

# finish [REASON]: the count; exit 1 after a failure, else 77 (skipped,
# REASON on the last line) if a part could not run, else 0.
finish() {
	echo "$fails failures"
	[ $fails -eq 0 ] || exit 1
	[ -z "$1" ] || { echo "SKIP $1"; exit 77; }
	exit 0
}
