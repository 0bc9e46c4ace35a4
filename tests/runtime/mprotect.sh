#!/bin/sh
# Proves: patching never maps text W+X, and a refusal leaves correct stubs.
# W^X while patching, and a safe fallback when writing text is refused.
# seccomp_run's filter kills the process on any W+X request, from any code.
# The mprotect route probes first on the page of the module's ELF header,
# which nothing executes; a module linked with its headers in the code's
# segment (-z noseparate-code) has no such page, and the route says so
# and writes nothing.
. "$(dirname "$0")/../lib.sh"
run=$BUILT/seccomp_run
sites=$BUILT/sites
static=$BUILT/sites-static
nosep=$BUILT/sites-nosep
need $run $sites $static $nosep
check() {	# check NAME EXPECTED-EXIT PATTERN-IN-STDERR command...
	name=$1 want=$2 pat=$3; shift 3
	out=$("$@" 2>&1); rc=$?
	if [ $rc -ne "$want" ] || ! echo "$out" | grep -q -- "$pat"; then
		fail "$name: exit $rc (want $want), output:"; echo "$out" | tail -n 8
	else
		ok "$name: $(echo "$out" | grep -o -- "$pat" | head -n 1)"
	fi
}
# The filter itself bites: a W+X request dies with SIGSYS (exit 159).
check "filter kills W+X" 159 "" $run wxtest
for bin in $sites $static; do
	b=$(basename $bin)
	check "$b: mprotect route, no W+X" 0 "via mprotect" \
		env REPSTOS_DEBUG=1 REPSTOS_PATCH=mprotect $run nowx $bin forms
	check "$b: default route, no W+X" 0 "via /proc/self/mem" \
		env REPSTOS_DEBUG=1 $run nowx $bin forms
	check "$b: both routes refused" 0 \
		"none patched: writing text refused (/proc/self/mem: Operation not permitted) (mprotect: Permission denied); sites stay stub calls" \
		env REPSTOS_DEBUG=1 $run refuse $bin quick
	check "$b: execmod refused, caught by the probe" 0 \
		"none patched.*(mprotect: Permission denied)" \
		env REPSTOS_DEBUG=1 $run execmod $bin quick
	check "$b: mprotect only, refused" 0 "none patched.*(mprotect: Permission denied)" \
		env REPSTOS_DEBUG=1 REPSTOS_PATCH=mprotect $run refuse $bin quick
done
check "sites-nosep: mprotect route, no page to probe: nothing written" 0 \
	"none patched: writing text refused (mprotect: no page of this start-up's file to probe first); sites stay stub calls" \
	env REPSTOS_DEBUG=1 REPSTOS_PATCH=mprotect $run nowx $nosep forms
check "sites-nosep: default route" 0 "via /proc/self/mem" \
	env REPSTOS_DEBUG=1 $run nowx $nosep forms
finish
