#!/bin/sh
# Proves: fortified memset and explicit_bzero become sites that keep their check.
# FORTIFY: with -D_FORTIFY_SOURCE=2 -O2 (and =3 for a heap block whose
# size is known only at run time) the fortified memset and explicit_bzero
# become sites (remarks name __memset_chk / __explicit_bzero_chk, and the
# binary no longer calls them) and keep their check: in-bounds lengths
# work, an overflowing one aborts with glibc's "buffer overflow detected".
. "$(dirname "$0")/lib.sh"

# in_bounds_and_aborts BIN: each of $cases ("what:size") runs, each of
# $bad aborts with glibc's FORTIFY message.
in_bounds_and_aborts() {
	for c in $cases; do
		out=$($1 ${c%:*} ${c#*:} 2>&1) || fail "=$level: $c in bounds: $out"
	done
	for c in $bad; do
		out=$($1 ${c%:*} ${c#*:} 2>&1); rc=$?
		echo "$out" | grep -q 'buffer overflow detected' && [ $rc -ne 0 ] ||
			fail "=$level: $c overflows but did not abort (exit $rc: $out)"
	done
}
S=tests/plugin/fortify/fortify.c
scratch

for level in 2 3; do
	b=$W/fortify$level
	$CC -O2 -D_FORTIFY_SOURCE=$level -g $PV -o $b $S $RTLIB 2>$b.notes ||
		{ fail "build =$level"; cat $b.notes; continue; }
	grep -q '__memset_chk rewritten' $b.notes &&
	grep -q '__explicit_bzero_chk rewritten' $b.notes ||
		{ fail "=$level: the _chk calls were not rewritten"; cat $b.notes; continue; }
	if objdump -d $b | grep -E 'call.*<(__memset_chk|__explicit_bzero_chk)'; then
		fail "=$level: a _chk call is still there"
	fi
	objdump -d $b | grep -q 'call.*<__chk_fail' || fail "=$level: no __chk_fail call"
	cases="memset:16 memset:5 memset:0 ebz:24 ebz:7"
	bad="memset:17 memset:4096 ebz:25"
	if [ $level = 3 ]; then cases="$cases heap:20 heap:3"; bad="$bad heap:21"; fi
	in_bounds_and_aborts $b
	ok "_FORTIFY_SOURCE=$level: sites in bounds [$cases] work, overflows [$bad] abort"

	# Copies (-fplugin-arg-repstos-copy): __memcpy_chk, __mempcpy_chk
	# and __memmove_chk keep their check the same way. 
	b=$W/copy$level
		$CC -O2 -D_FORTIFY_SOURCE=$level -g $PV -fplugin-arg-repstos-copy -o $b \
		tests/plugin/copy/fortify.c $RTLIB 2>$b.notes ||
		{ fail "copy build =$level"; cat $b.notes; continue; }
	for f in __memcpy_chk __mempcpy_chk __memmove_chk; do
		grep -q "$f rewritten" $b.notes || fail "=$level: $f not rewritten"
	done
	objdump -d $b | grep -E 'call.*<(__memcpy_chk|__mempcpy_chk|__memmove_chk)' &&
		fail "=$level: a copy _chk call is still there"
	objdump -d $b | grep -q 'call.*<__chk_fail' || fail "=$level: no __chk_fail call"
	cases="memcpy:16 memcpy:0 mempcpy:16 mempcpy:5 memmove:16 memmove:1"
	bad="memcpy:17 mempcpy:17 memmove:17 memmove:40"
	in_bounds_and_aborts $b
	ok "_FORTIFY_SOURCE=$level copies: _chk sites in bounds [$cases] work, overflows [$bad] abort"
done
finish
