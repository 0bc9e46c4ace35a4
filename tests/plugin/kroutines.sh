#!/bin/sh
# Proves: kernel mode's routines (every set, copy and move class) write exactly their bytes and keep every register outside the site contract, at every size to 1100 and beside each fast-string threshold, at guard pages and with overlaps, and the calls take every path their -fplugin-arg-repstos-kernel-paths counters name (the path check itself fails when paths are left).
# kernel/routines_unit.c is built as a vmlinux unit (it defines
# start_kernel) with the path counters on; kernel/routines.c calls each
# routine as a site does (tests/plugin/kernel/routines.c says how) and
# then walks the unit's path notes.  Sizes up to 63 only must leave the
# loop and fast-string paths untaken, and say so (exit 3).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kernel/tree.sh"
scratch
D=$(dirname "$0")/kernel
fixture_tree "$W/t14" 14
KFLAGS="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx $(tree_flags "$W/t14")"

if $CC $KFLAGS $P -fplugin-arg-repstos-kernel -fplugin-arg-repstos-kernel-paths \
		-c -o "$W/unit.o" "$D/routines_unit.c" 2>"$W/unit.err"; then
	ok "the routines build with their path counters"
else
	fail "routines unit: $(head -3 "$W/unit.err")"
	finish
fi
$CC -std=gnu11 -O2 -mno-red-zone -no-pie -o "$W/routines" "$D/routines.c" "$W/unit.o" ||
	{ fail "the harness does not link"; finish; }

"$W/routines" >"$W/out" 2>&1
rc=$?
[ $rc = 0 ] && ok "every routine byte-exact, registers kept: $(grep calls "$W/out")" ||
	{ fail "routines: exit $rc"; head -20 "$W/out"; }
grep -q '^paths reached \([0-9]*\) of \1$' "$W/out" &&
	ok "$(grep '^paths reached' "$W/out")" || fail "$(grep '^paths\|^path not' "$W/out" | head -5)"
# how many calls took each path, for the log
sed -n 's/^path \([^ ]*\) \([0-9]*\)$/note: path \1: \2 calls/p' "$W/out"

"$W/routines" -m 63 >"$W/small" 2>&1
rc=$?
if [ $rc = 3 ] && grep -q '^path not taken: set_orig:loop' "$W/small" &&
		grep -q '^path not taken: copy_rep_good:rep' "$W/small"; then
	ok "path check fails when paths are left ($(grep '^paths reached' "$W/small"))"
else
	fail "sizes to 63: exit $rc, $(grep '^paths' "$W/small")"
fi

# Without the option: no counter, no path note, the same code.
$CC $KFLAGS $P -fplugin-arg-repstos-kernel -c -o "$W/plain.o" "$D/routines_unit.c"
if objdump -d "$W/plain.o" | grep -q 'pushf'; then
	fail "a production build counts paths"
else
	ok "without -fplugin-arg-repstos-kernel-paths the routines count nothing"
fi
finish
