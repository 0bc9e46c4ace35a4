#!/bin/sh
# Proves: vectors live across a site in AVX and AVX-512 code survive every routine, and a narrow (older) site gets only forms that keep them.
# The vector-state rule (include/repstos_site.h): routines may change
# ymm0-15's upper halves and xmm16-31, which the plugin declares where
# the code is built with AVX (xmm0-15) or AVX-512F (and xmm16-31).
# tests/plugin/vector/vector.c keeps 14 (AVX) or 28 (AVX-512) vectors
# live across a memset site, a memcpy site and a hand-written site of
# the narrow entry version; it runs under every variant, with patching
# off, and as `repstos patch --cpu=avx2` wrote it.  Two more hand-written
# sites share a proven size range, the current one first in the table:
# the start-up's answer for that range must not pass from the one to the
# narrow one.  The control claims
# the current version for the narrow site: the routines that use the
# rule must corrupt its vectors, so the check can fail.
. "$(dirname "$0")/lib.sh"
S=tests/plugin/vector/vector.c
scratch

has() { for f; do grep -qw "$f" /proc/cpuinfo || return 1; done; }

# build TAG FLAGS...: $W/TAG and its control $W/TAG-control
build() {
	tag=$1; shift
	$CC -O2 "$@" $P -fplugin-arg-repstos-copy -Iinclude -Iruntime -Itests/runtime -o $W/$tag $S \
		$RTLIB 2>$W/$tag.notes &&
	$CC -O2 "$@" -DCONTROL $P -fplugin-arg-repstos-copy -Iinclude -Iruntime -Itests/runtime \
		-o $W/$tag-control $S $RTLIB 2>>$W/$tag.notes ||
		{ fail "$tag: build"; cat $W/$tag.notes; return 1; }
}

# control TAG ROUTINE: the control, whose narrow site is written as current,
# is corrupted when ROUTINE runs there
control() {
	out=$(REPSTOS_VARIANT=$2 $W/$1-control)
	case $out in
	*"narrow site"*"vectors changed"*)
		ok "$1 control: a current-version site declaring xmm0 only loses its vectors to $2" ;;
	*)	fail "$1 control: no corruption seen under $2 ($out)" ;;
	esac
}

check() {
	tag=$1 routine=$2
	n=$(objdump -d $W/$tag | grep -c 'call.*<__repstos_\(copy_\)\?stub>')
	[ "$n" -eq 5 ] || { fail "$tag: $n site calls, want 5"; return; }
	run_variants $W/$tag ok &&
		ok "$tag: vectors and bytes intact under every variant and the stub"
	$TOOL patch --cpu=avx2 $W/$tag -o $W/$tag.p >/dev/null &&
		[ "$($W/$tag.p)" = ok ] && $TOOL check $W/$tag.p >/dev/null &&
		$TOOL dump $W/$tag.p | grep ' memset/v1 ' | grep -q ' vec __repstos_vec$' &&
		ok "$tag: patch --cpu=avx2 gives the narrow site vec, and check passes" ||
		fail "$tag: patch --cpu=avx2"
	REPSTOS_DEBUG=1 $W/$tag 2>&1 >/dev/null | grep -q 'older plugin' &&
		ok "$tag: REPSTOS_DEBUG=1 says why the narrow site's forms are few" ||
		fail "$tag: REPSTOS_DEBUG=1 says nothing of the narrow site"
	# the patched set site made narrow: it calls avx2, which check reports
	cp $W/$tag.p $W/$tag.bad
	k=$(python3 tests/plugin/copy/entries.py $W/$tag.bad |
		awk '$1 ~ /^set/ { print NR - 1 }')
	$POKE field $W/$tag.bad $k version 01 &&
	out=$($TOOL check $W/$tag.bad 2>&1)
	[ $? -eq 1 ] && echo "$out" | grep -q 'version 1 site calls avx2' &&
		ok "$tag: check reports a narrow site that calls avx2" ||
		fail "$tag: check of a narrow site calling avx2: $out"
	same_range $tag
	control $tag $routine
}

# same_range TAG: the current bounded site got a form a narrow site may
# not take, and the narrow bounded site after it one it may
same_range() {
	forms=$($W/$1 forms) || { fail "$1: forms"; return; }
	wide=$(echo "$forms" | awk '$1 != 1 && $2 == 1 { print NR, $3; exit }')
	narrow=$(echo "$forms" | awk '$1 == 1 && $2 == 1 { print NR, $3; exit }')
	case "${wide#* }" in
	vec|inline|erms|rep_good|original)
		skipped "$1: the range's form, ${wide#* }, suits a narrow site too"
		return ;;
	esac
	[ "${wide%% *}" -lt "${narrow%% *}" ] ||
		{ fail "$1: the current bounded site is not first ($forms)"; return; }
	case "${narrow#* }" in
	vec|inline|erms|rep_good|original)
		ok "$1: one size range, current site ${wide#* }, narrow site ${narrow#* }" ;;
	*)	fail "$1: the narrow bounded site got ${narrow#* } after the current one's ${wide#* }" ;;
	esac
}

if has avx2; then
	build avx2 -mavx2 && check avx2 avx2
else
	skipped "avx2: this CPU has no AVX2"
fi
if has avx512f avx512bw avx512vl bmi2; then
	build avx512 -mavx2 -mavx512f -mavx512bw && check avx512 avx512
else
	skipped "avx512: this CPU has no AVX-512"
fi
finish
