#!/bin/sh
# Proves: a file patched for a richer CPU runs right on a poorer one.
# A file `repstos patch` fixed for a richer CPU runs on any CPU, whatever
# the route: where its sites call a routine this CPU lacks
# and text cannot be rewritten (REPSTOS_PATCH=0, or refused), the routine
# itself runs "vec" in its place, and the debug line says so.
# REPSTOS_CPU=zen3 (no AVX-512) or generic (no AVX2) makes this CPU look
# poorer; harden's ran= field tells, from zmm0, which routine really ran,
# so the fallback shows even on a CPU that has AVX-512 (where the old
# code ran the routine and could not fault).
. "$(dirname "$0")/../lib.sh"
need $TOOL $BUILT/harden $BUILT/seccomp_run
scratch
# The variants whose routines need more than x86-64 has: only they fall
# back to "vec" (REQUIRE in the routines).
for p in avx512 avx512_split avx2; do
	$TOOL patch --cpu=$p $BUILT/harden -o $W/$p >/dev/null ||
		{ fail "repstos patch --cpu=$p"; finish; }
done
[ "$(field "$($BUILT/harden status)" ran)" = unknown ] &&
	here=0 || here=1	# can this CPU tell which routine ran?

# check NAME FILE WANT-RAN WANT-IN-DEBUG [env...]: the file runs, its
# sites are right, ran= is WANT-RAN (where it can be told), and the
# debug line holds WANT-IN-DEBUG.
check() {
	name=$1 file=$2 want=$3 pat=$4; shift 4
	out=$(env REPSTOS_DEBUG=1 "$@" $file status 2>&1); rc=$?
	got=$(field "$out" ran)
	if [ $rc -ne 0 ] || [ "$(field "$out" site)" != ok ]; then
		fail "$name: exit $rc: $out"
	elif [ $here = 1 ] && [ "$got" != "$want" ]; then
		fail "$name: ran $got, not $want: $out"
	elif ! echo "$out" | grep -q -- "$pat"; then
		fail "$name: the debug line does not say '$pat': $out"
	else
		ok "$name: ran $got; $(echo "$out" | grep -o -- "$pat")"
	fi
}

lacks="2 of them calling a routine this CPU lacks, which runs vec in its place"
off=": text patching off (REPSTOS_PATCH=0)"
refused=": writing text refused (/proc/self/mem: Operation not permitted) (mprotect: Permission denied)"
if [ $here = 1 ]; then
	check "avx512 file, this CPU" $W/avx512 avx512 "2 sites left as they are$" \
		REPSTOS_PATCH=0
	check "avx2 file, this CPU" $W/avx2 avx2 "2 sites left as they are$" \
		REPSTOS_PATCH=0
fi
check "avx512 file, as zen3, patching off" $W/avx512 vec "$lacks$off" \
	REPSTOS_CPU=zen3 REPSTOS_PATCH=0
check "avx512 file, as zen3, writing refused" $W/avx512 vec "$lacks$refused" \
	REPSTOS_CPU=zen3 $BUILT/seccomp_run refuse
# written: the sites are rewritten to the policy's choice for zen3, avx2
check "avx512 file, as zen3, written" $W/avx512 avx2 \
	"0 sites left as they are, 2 calling a routine this CPU lacks rewritten" \
	REPSTOS_CPU=zen3
check "avx512_split file, as zen3, patching off" $W/avx512_split vec \
	"$lacks$off" REPSTOS_CPU=zen3 REPSTOS_PATCH=0
check "avx2 file, as generic, patching off" $W/avx2 vec "$lacks$off" \
	REPSTOS_CPU=generic REPSTOS_PATCH=0
# The stub form: the stub's target runs, its guard set.
[ $here = 1 ] &&
	check "stub form, REPSTOS_VARIANT=avx512" $BUILT/harden avx512 "call the stub" \
		REPSTOS_VARIANT=avx512 REPSTOS_PATCH=0
finish
