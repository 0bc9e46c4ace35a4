#!/bin/sh
# Proves: READ_IMPLIES_EXEC makes no dispatch data or text window wx.
# The personality set from .preinit_array, before any constructor
# (tests/policy/probe.c, PROBE_RIE=1), so that every later protection
# asked with read access comes back executable too:
#  - the stubs have no pointer and no page of their own to seal
#    (runtime/module/dispatch.S): the byte their fallback reads is the
#    module's plain data, which the runtime leaves as the loader mapped
#    it (the executable's read-write, not executable); where text is
#    written, as by the default route, the stub of the executable and
#    of a library dlopen()ed then (tests/runtime/cyclelib.c) jumps
#    straight to its routine and reads no byte at all;
#  - the mprotect route, whose window would be writable and executable,
#    is not taken: REPSTOS_PATCH=mprotect leaves the sites and the
#    stubs as they were (the stub's fallback, the byte still not
#    executable), and says why; the default route writes through
#    /proc/self/mem; the sites are right either way.
. "$(dirname "$0")/../lib.sh"
probe=build/tests/policy/probe lib=$BUILT/libcycle.so
need $probe $lib

out=$($probe maps $lib 2>&1)
[ "$(field "$out" dispatch)" = rw-p ] && [ "$(field "$out" lib)" = rw-p ] &&
	[ "$(field "$out" stub)" = direct ] && [ "$(field "$out" lib_stub)" = direct ] ||
	fail "without the personality: $out"

out=$(PROBE_RIE=1 $probe maps $lib 2>&1)
case $(field "$out" personality) in
0x4?????) ;;
*) skip "READ_IMPLIES_EXEC could not be set: $out" ;;
esac
perm=$(field "$out" dispatch)
case $perm in
rw[-]p) ok "the executable's stub byte: $perm" ;;
*) fail "the executable's stub byte under READ_IMPLIES_EXEC: ${perm:-?}: $out" ;;
esac
for m in stub lib_stub; do
	[ "$(field "$out" $m)" = direct ] &&
		ok "$m under READ_IMPLIES_EXEC: jumps straight to its routine, reads no data" ||
		fail "$m under READ_IMPLIES_EXEC: $(field "$out" $m): $out"
done
[ "$(field "$out" site)" = ok ] && [ "$(field "$out" method)" = /proc/self/mem ] &&
	ok "default route: $(field "$out" patched) sites via /proc/self/mem, right" ||
	fail "default route: $out"

out=$(PROBE_RIE=1 REPSTOS_PATCH=mprotect REPSTOS_DEBUG=1 $probe maps $lib 2>&1)
if echo "$out" | grep -q "via mprotect\|method=mprotect"; then
	fail "REPSTOS_PATCH=mprotect: the route was taken: $out"
elif [ "$(field "$out" site)" != ok ] || [ "$(field "$out" patched)" != 0 ] ||
     [ "$(field "$out" stub)" != fallback ] || [ "$(field "$out" dispatch)" != rw-p ]; then
	fail "REPSTOS_PATCH=mprotect: $out"
elif ! echo "$out" | grep -q "READ_IMPLIES_EXEC"; then
	fail "REPSTOS_PATCH=mprotect: refused, but not said why: $out"
else
	ok "REPSTOS_PATCH=mprotect: refused:$(echo "$out" | grep -o '(mprotect: [^)]*)' | head -n 1); the stub's byte rw-p"
fi
finish
