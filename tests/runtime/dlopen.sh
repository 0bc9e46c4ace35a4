#!/bin/sh
# Proves: a dlopen()ed object and its executable each patch their own sites.
# A dlopen()ed shared object with its own sites, beside an executable with
# sites: both patched by their own runtime copy, both correct.  A stub, a
# store loop and the inline form suffice: the modules' independence is
# the point, not the variants (tests/runtime/sites.sh runs them all).
. "$(dirname "$0")/../lib.sh"
need $BUILT/dlopen_main $BUILT/libdso.so
for env in "" "REPSTOS_VARIANT=erms" "REPSTOS_VARIANT=inline" "REPSTOS_PATCH=0"; do
	out=$(env $env REPSTOS_DEBUG=1 $BUILT/dlopen_main $BUILT/libdso.so 2>&1); rc=$?
	n=$(echo "$out" | grep -c '^repstos: ')
	if [ $rc -ne 0 ] || [ "$n" -ne 2 ]; then
		fail "${env:-default}: exit $rc, $n debug lines, want one per module:"
		echo "$out" | tail -n 10
	else
		ok "${env:-default}: $(echo "$out" | grep '^exe:')"
	fi
done
finish
