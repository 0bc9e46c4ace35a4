#!/bin/sh
# The runtime tests, clean under Valgrind's memcheck.  Patching runs
# before any site does, so memcheck translates only the final code.
d=build/tests/runtime
vg="valgrind -q --error-exitcode=1 --exit-on-first-error=no"
fails=0
run() {
	out=$("$@" 2>&1); rc=$?
	echo "exit $rc: $*"
	[ $rc -eq 0 ] || { echo "$out" | tail -n 20; fails=$((fails + 1)); }
}
command -v valgrind >/dev/null || { echo "valgrind missing: make deps"; exit 1; }
for v in auto inline erms rep_good original; do
	run env REPSTOS_VARIANT=$v REPSTOS_DEBUG=1 $vg $d/sites quick
done
run env REPSTOS_PATCH=0 $vg $d/sites quick
run env REPSTOS_PATCH=mprotect $vg $d/sites quick
run $vg $d/regs
run $vg $d/dlopen_main $d/libdso.so
echo "$fails failures"
[ $fails -eq 0 ]
