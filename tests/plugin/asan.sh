#!/bin/sh
# Proves: with -fsanitize=address a site keeps the checks ASan gives memset and the copies, memcpy's overlap report included.
# ASan checks memset in libc's interceptor, which a site bypasses,
# so the plugin emits the same check before it (__asan_region_is_poisoned, then __asan_report_store_n at the first bad byte).  With -fsanitize=address:
# the calls become sites (and memset/explicit_bzero are no longer called,
# so any report comes from the plugin's check); in-bounds lengths work; an
# overflow of a heap block is reported as heap-buffer-overflow, also with
# -fsanitize-recover=address (the _noabort report, the run continues).
# Copy sites keep memcpy's overlap report too (memcpy-param-overlap), for
# mempcpy as well.
# Under -fsanitize=thread (no such check to emit) calls are left alone.
. "$(dirname "$0")/lib.sh"

# ended_as_mode MODE CASE: after a report in $out with status $rc, the
# program stopped (abort) or went on and finished CASE (recover).
ended_as_mode() {
	if [ "$1" = abort ]; then
		[ $rc -ne 0 ] || fail "$1: $2 reported but exit 0"
	else
		echo "$out" | grep -q "${2%:*} ${2#*:}: ok" ||
			fail "recover: $2 did not continue after the report"
	fi
}
# run_as_mode MODE PROG ARGS...: PROG's output (and stderr) as ASan
# leaves it, halting at the first report (abort) or going on (recover).
run_as_mode() {
	m=$1; shift
	ASAN_OPTIONS=halt_on_error=$([ "$m" = recover ] && echo 0 || echo 1) "$@" 2>&1
}
S=tests/plugin/asan/asan.c
scratch
echo 'int main(void){return 0;}' >$W/probe.c
$CC -fsanitize=address -o $W/probe $W/probe.c 2>/dev/null && $W/probe ||
	skip "no working -fsanitize=address (libasan missing?)"

for mode in abort recover; do
	b=$W/asan-$mode
	flags="-O2 -g -fsanitize=address"
	check=__asan_report_store_n
	if [ $mode = recover ]; then
		flags="$flags -fsanitize-recover=address"
		check=__asan_report_store_n_noabort
	fi
	$CC $flags $PV -c -o $b.o $S 2>$b.notes && $CC $flags -o $b $b.o $RTLIB ||
		{ fail "$mode: build"; cat $b.notes; continue; }
	[ "$(rewritten_count $b.notes)" -eq 2 ] || { fail "$mode: not 2 sites"; cat $b.notes; }
	# (in the test's own code: the runtime, built without the plugin,
	# calls libc's memset itself, as it does memcpy)
	objdump -dr $b.o | grep -E 'R_X86_64_PLT32[[:space:]]+(memset|explicit_bzero|__interceptor_memset)' &&
		fail "$mode: libc memset still called"
	[ "$(objdump -d $b | grep -c "call.*<$check@plt>")" -ge 2 ] ||
		fail "$mode: no call to $check"
	for c in memset:16 memset:1 memset:0 ebz:16 ebz:9; do
		out=$(ASAN_OPTIONS=halt_on_error=1 $b ${c%:*} ${c#*:} 2>&1) ||
			fail "$mode: $c in bounds: $out"
	done
	for c in memset:17 memset:64 ebz:17; do
		out=$(run_as_mode $mode $b ${c%:*} ${c#*:}); rc=$?
		echo "$out" | grep -q 'ERROR: AddressSanitizer: heap-buffer-overflow' ||
			{ fail "$mode: $c overflow not reported (exit $rc)"; echo "$out" | head -5; continue; }
		ended_as_mode "$mode" "$c"
	done
	ok "-fsanitize=address ($mode, $check): in-bounds work, heap overflows reported"
done

# Copies (-fplugin-arg-repstos-copy): the read range [src, src + n) and
# the write range [dst, dst + n) each keep their report, as a READ or a
# WRITE of the whole size at the first bad byte.
for mode in abort recover; do
	b=$W/copy-$mode
	flags="-O2 -g -fsanitize=address -fplugin-arg-repstos-copy"
	[ $mode = recover ] && flags="$flags -fsanitize-recover=address"
	$CC $PV $flags -c -o $b.o tests/plugin/copy/asan.c 2>$b.notes &&
		$CC $flags -o $b $b.o $RTLIB ||
		{ fail "copy $mode: build"; cat $b.notes; continue; }
	[ "$(grep -c 'mem[a-z]* rewritten' $b.notes)" -eq 3 ] ||
		{ fail "copy $mode: not 3 copy sites"; cat $b.notes; }
	# (in the test's own code: the runtime calls libc's memcpy itself)
	objdump -dr $b.o | grep -E 'R_X86_64_PLT32[[:space:]]+(memcpy|memmove|mempcpy|__interceptor_mem[a-z]*)' &&
		fail "copy $mode: libc copies still called"
	for c in read:16 read:0 write:16 write:1 move:16 pcpy:16 pcpy:3; do
		out=$(ASAN_OPTIONS=halt_on_error=1 $b ${c%:*} ${c#*:} 2>&1) ||
			fail "copy $mode: $c in bounds: $out"
	done
	# GCC's own ASan pass checks mempcpy inline, before the site's
	# check, and reports it as an unknown-crash at the start, with or
	# without the plugin: the kind of report is GCC's there.
	for c in read:17:READ:heap-buffer-overflow read:40:READ:heap-buffer-overflow \
		 write:17:WRITE:heap-buffer-overflow move:17:WRITE:heap-buffer-overflow \
		 pcpy:30:WRITE:unknown-crash; do
		what=${c##*:} c=${c%:*}
		w=${c%:*} kind=${c##*:}
		out=$(run_as_mode $mode $b ${w%:*} ${w#*:}); rc=$?
		echo "$out" | grep -q "ERROR: AddressSanitizer: $what" &&
			echo "$out" | grep -q "^$kind of size ${w#*:} at" ||
			{ fail "copy $mode: $w: no $what $kind of size ${w#*:}"; echo "$out" | head -5; continue; }
		ended_as_mode "$mode" "$w"
	done
	ok "-fsanitize=address copies ($mode): in-bounds work; overflows of the source reported as READ, of the destination as WRITE"
	# Overlap, which ASan's memcpy reports before either range (GCC 12's
	# libasan has no mempcpy interceptor: the plain build calls libc's
	# unchecked, the site reports it as memcpy does).
	for c in olap:8 olapr:8 polap:8 same:16; do
		out=$(ASAN_OPTIONS=halt_on_error=1 $b ${c%:*} ${c#*:} 2>&1) ||
			fail "copy $mode: $c does not overlap: $out"
	done
	for c in olap:9 olapr:9 polap:9 olap:56; do
		out=$(run_as_mode $mode $b ${c%:*} ${c#*:}); rc=$?
		echo "$out" | grep -q 'ERROR: AddressSanitizer: memcpy-param-overlap' ||
			{ fail "copy $mode: $c: overlap not reported (exit $rc)"; echo "$out" | head -5; continue; }
		ended_as_mode "$mode" "$c"
	done
	ok "-fsanitize=address copies ($mode): memcpy and mempcpy overlaps reported as memcpy-param-overlap"
done

b=$W/tsan
echo 'int main(void){return 0;}' >$W/probe.c
if $CC -fsanitize=thread -o $W/tprobe $W/probe.c 2>/dev/null; then
	$CC -O2 -fsanitize=thread $PV -o $b $S $RTLIB 2>$b.notes || fail "tsan: build"
	[ "$(rewritten_count $b.notes)" -eq 0 ] &&
		grep -q 'left alone.*-fsanitize=thread' $b.notes &&
		ok "-fsanitize=thread: calls left alone, with the reason" ||
		fail "tsan: calls rewritten or no reason given"
fi
finish
