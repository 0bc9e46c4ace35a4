# tests/runtime/lib.sh - the runtime tests' helpers on top of tests/lib.sh:
# where the test programs are, and a probe's KEY=VALUE fields.
. "$(dirname "$0")/../lib.sh"
d=build/tests/runtime

# field LINE KEY: VALUE from the KEY=VALUE words of a probe's line.
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }

# $tmp: a folder of the test's own, removed when it exits.
make_tmp() {
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
}
