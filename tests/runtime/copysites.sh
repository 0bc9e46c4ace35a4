#!/bin/sh
# Proves: hand-written copy sites copy right in every form a choice gives
# them, and a move site never holds rep movsb.
# Hand-written copy sites, linked with librepstos.a (dynamic and
# static), copy right and become what each choice says:
# every copy routine by name, "inline" (rep movsb in copy and move_fwd
# sites, the overlap-checking routine in move sites), the policy's, and
# stub calls with text patching off.  A move site never holds rep movsb.
. "$(dirname "$0")/../lib.sh"
rtt=$BUILT
progs=${COPYSITES_PROGS:-"$rtt/copysites $rtt/copysites-static"}
need $progs

# run PROG ENV...: its output in $out, its status checked
run() {
	prog=$1; shift
	if out=$(env "$@" "$prog" 2>&1); then
		ok "$prog $*: copies right"
	else
		fail "$prog $*: $(echo "$out" | grep FAIL | head -3)"
	fi
}

# expect WHAT PATTERN: every site line matches PATTERN (5 sites)
expect() {
	n=$(echo "$out" | grep -c "^site ")
	bad=$(echo "$out" | grep "^site " | grep -v -- "$2")
	if [ "$n" -eq 5 ] && [ -z "$bad" ]; then
		ok "$1"
	else
		fail "$1: $n sites; not as expected: $bad"
	fi
}

for prog in $progs; do
	run $prog
	expect "$prog: the policy's routine at every site" " call "
	run $prog REPSTOS_PATCH=0
	expect "$prog: text patching off: stub calls" " stub -$"
	run $prog REPSTOS_VARIANT=inline
	expect "$prog inline: copy and move_fwd sites rep movsb" \
		"^site \(copy\|move_fwd\) [a-z]* inline -$\|^site move [a-z]* call inline$"
	for v in $(variants copy); do
		case $v in inline) continue ;; esac
		run $prog REPSTOS_VARIANT=$v
		if echo "$out" | grep -q "^copy module routine $v$"; then
			expect "$prog $v: every site calls it" " call $v$"
		else
			skipped "$prog $v: not run by this CPU"
		fi
	done
done
finish
