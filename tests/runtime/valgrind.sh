#!/bin/sh
# Proves: the runtime tests are clean under Valgrind's memcheck.
# Patching runs before any site does, so memcheck translates only the
# final code.  Every variant: Valgrind's CPU has no AVX-512, so there the
# avx512 ones run what the policy chooses instead, as on any such CPU.
. "$(dirname "$0")/../lib.sh"
vg="valgrind -q --error-exitcode=1 --exit-on-first-error=no"
command -v valgrind >/dev/null || { fail "valgrind missing: make deps"; finish; }
need $BUILT/sites $BUILT/regs $BUILT/dlopen_main $BUILT/libdso.so
run() {
	out=$("$@" 2>&1); rc=$?
	if [ $rc -eq 0 ]; then
		ok "$*"
	else
		fail "exit $rc: $*"
		echo "$out" | tail -n 20
	fi
}
for v in auto $(variants); do
	run env REPSTOS_VARIANT=$v REPSTOS_DEBUG=1 $vg $BUILT/sites quick
done
run env REPSTOS_PATCH=0 $vg $BUILT/sites quick
run env REPSTOS_PATCH=mprotect $vg $BUILT/sites quick
run $vg $BUILT/regs
run $vg $BUILT/dlopen_main $BUILT/libdso.so
finish
