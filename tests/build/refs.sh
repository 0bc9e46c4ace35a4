#!/bin/sh
# Proves: no comment, script or Makefile of the tree names a path that is not there, or a function in a file that does not define it.
# tests/build/refs.py reads every tracked file of code (C, assembler,
# shell, make, the linker's) for a path under one of the tree's top
# folders, and for the forms the comments name a function in
# ("(write.c, holds_poke)", "plain.S's tail_yc", "crowded() in
# write.c"), and prints each one that went stale: a file was renamed,
# split or removed, a function moved.  First it is shown a tree made
# here with three stale references and one good one, so that a reader
# that finds nothing fails too.
. "$(dirname "$0")/../lib.sh"
scratch

mkdir -p "$W/t/runtime/a" "$W/t/tests/x"
cat > "$W/t/runtime/a/good.c" <<'C'
/* what (runtime/a/good.c, keep_me) and "good.c's keep_me" say */
static int keep_me(void)
{
	return 0;
}
C
cat > "$W/t/runtime/a/other.c" <<'C'
/* keep_me is here (other.c, keep_me), run by tests/x/gone.sh */
int other(void);
C
echo '# good.c'"'"'s moved_away()' > "$W/t/tests/x/t.mk"
out=$(python3 tests/build/refs.py "$W/t")
n=$(echo "$out" | grep -c ': names \|: says ')
echo "$out" | grep -q 'other.c:1: says other.c defines keep_me' &&
echo "$out" | grep -q 'other.c:1: names tests/x/gone.sh' &&
echo "$out" | grep -q 't.mk:1: says good.c defines moved_away' && [ "$n" = 3 ] &&
	ok "a made tree: its three stale references found, its good ones not" ||
	fail "a made tree: not just its three stale references: $out"

out=$(python3 tests/build/refs.py .)
rc=$?
stale=$(echo "$out" | grep ': names \|: says ')
while IFS= read -r l; do
	[ -n "$l" ] && fail "$l"
done <<END
$stale
END
last=$(echo "$out" | tail -n 1)
[ $rc = 0 ] && [ -z "$stale" ] && ok "the tree: no stale reference ($last)" ||
	fail "the tree: $(echo "$out" | grep -c ': names \|: says ') stale references ($last)"
finish
