#!/bin/sh
# Proves: the stub's dispatch pointer is read-only once start-up is done.
# The dispatch pointer every stub-form site jumps through is read-only
# once start-up is done, as RELRO makes glibc's own: in
# a PIE, a non-PIE, a static and a static-pie executable linked with
# -z relro -z now, and in a shared object loaded with dlopen(); and
# sites still work through the stub (REPSTOS_PATCH=0) and patched.
. "$(dirname "$0")/../lib.sh"
need $BUILT/relro-pie $BUILT/relro-nopie $BUILT/relro-static $BUILT/relro-static-pie \
	$BUILT/librelro.so $BUILT/dlopen_main

for kind in pie nopie static static-pie; do
	bin=$BUILT/relro-$kind
	# The pointer is what is checked; the stub to two targets suffices.
	for env in "" "REPSTOS_PATCH=0" "REPSTOS_PATCH=0 REPSTOS_VARIANT=erms"; do
		out=$(env $env $bin relro 2>&1); rc=$?
		if [ $rc -ne 0 ] || ! echo "$out" | grep -q "site=ok"; then
			fail "$kind ${env:-default}: exit $rc: $out"
		else
			ok "$kind ${env:-default}: $(echo "$out" | tail -n 1)"
		fi
	done
done
for env in "" "REPSTOS_PATCH=0"; do
	out=$(env $env $BUILT/dlopen_main $BUILT/librelro.so 2>&1); rc=$?
	if [ $rc -ne 0 ]; then
		fail "dlopen ${env:-default}: exit $rc: $out"
	else
		ok "dlopen ${env:-default}: $(echo "$out" | grep '^dso:')"
	fi
done
finish
