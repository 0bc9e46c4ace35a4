#!/bin/sh
# Proves: READ_IMPLIES_EXEC makes no dispatch data or text window wx.
# The personality set from .preinit_array, before any constructor
# (tests/policy/probe.c, PROBE_RIE=1), so that every later protection
# asked with read access comes back executable too:
#  - the sealed dispatch page of the executable, and of a library
#    dlopen()ed then (tests/runtime/cyclelib.c), is read-only and not
#    executable;
#  - the mprotect route, whose window would be writable and executable,
#    is not taken: REPSTOS_PATCH=mprotect leaves the sites calling the
#    stub, and says why; the default route writes through
#    /proc/self/mem; the sites are right either way.
. "$(dirname "$0")/../lib.sh"
probe=build/tests/policy/probe lib=$BUILT/libcycle.so
need $probe $lib

out=$($probe maps $lib 2>&1)
[ "$(field "$out" dispatch)" = r--p ] && [ "$(field "$out" lib)" = r--p ] ||
	fail "without the personality: $out"

out=$(PROBE_RIE=1 $probe maps $lib 2>&1)
case $(field "$out" personality) in
0x4?????) ;;
*) skip "READ_IMPLIES_EXEC could not be set: $out" ;;
esac
for m in dispatch lib; do
	perm=$(field "$out" $m)
	case $perm in
	r-[-]p) ok "$m page: $perm" ;;
	*) fail "$m page under READ_IMPLIES_EXEC: ${perm:-?}: $out" ;;
	esac
done
[ "$(field "$out" site)" = ok ] && [ "$(field "$out" method)" = /proc/self/mem ] &&
	ok "default route: $(field "$out" patched) sites via /proc/self/mem, right" ||
	fail "default route: $out"

out=$(PROBE_RIE=1 REPSTOS_PATCH=mprotect REPSTOS_DEBUG=1 $probe maps $lib 2>&1)
if echo "$out" | grep -q "via mprotect\|method=mprotect"; then
	fail "REPSTOS_PATCH=mprotect: the route was taken: $out"
elif [ "$(field "$out" site)" != ok ] || [ "$(field "$out" patched)" != 0 ]; then
	fail "REPSTOS_PATCH=mprotect: $out"
elif ! echo "$out" | grep -q "READ_IMPLIES_EXEC"; then
	fail "REPSTOS_PATCH=mprotect: refused, but not said why: $out"
else
	ok "REPSTOS_PATCH=mprotect: refused:$(echo "$out" | grep -o '(mprotect: [^)]*)' | head -n 1)"
fi
finish
