#!/bin/sh
# A dlopen()ed shared object with its own sites, beside an executable with
# sites: both patched by their own runtime copy, both correct.
d=build/tests/runtime
fails=0
for env in "" "REPSTOS_VARIANT=erms" "REPSTOS_VARIANT=inline" "REPSTOS_PATCH=0"; do
	out=$(env $env REPSTOS_DEBUG=1 $d/dlopen_main $d/libdso.so 2>&1); rc=$?
	echo "${env:-default}: $(echo "$out" | grep '^exe:')"
	n=$(echo "$out" | grep -c '^repstos: ')
	if [ $rc -ne 0 ] || [ "$n" -ne 2 ]; then
		echo "FAIL (exit $rc, $n debug lines, want one per module):"
		echo "$out" | tail -n 10
		fails=$((fails + 1))
	fi
done
echo "$fails failures"
[ $fails -eq 0 ]
