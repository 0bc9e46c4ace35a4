#!/bin/sh
# Proves: the tuning file `repstos tune` writes is the one it printed, is
# keyed to the CPU it measured, and steers the runtime and --cpu=native.
# --report shows every routine's cells in the four shapes, set and copy,
# the module (*) and read (r) routines marked, and the cost tables back
# to back and with the last byte read back.
#
# Also a file statically patched for a CPU with more than this one: the
# runtime rewrites the calls of routines it cannot run and leaves every
# other site alone.  REPSTOS_CPU=zen3 makes the runtime choose as on a
# CPU without AVX-512.
#
# The runtime that reads tuning files is librepstos-full.a's (and the
# shared runtime's): sites-full; librepstos.a's (sites) reads none, and
# says so under REPSTOS_DEBUG.
#
# The size distributions tune measures on are the tables
# patcher/dists/mkdists.sh writes from the published data.
. "$(dirname "$0")/../lib.sh"
d=build/tests/runtime
full=$d/sites-full
need $TOOL $d/sites $full
scratch

for op in memset memcpy; do
	sh patcher/dists/mkdists.sh $op | cmp -s - patcher/dists/${op}_dists.h &&
		ok "patcher/dists/${op}_dists.h is what mkdists.sh writes" ||
		fail "patcher/dists/${op}_dists.h differs from patcher/dists/mkdists.sh $op"
done

$TOOL tune $W/tuning > $W/tune.log 2>&1 || fail "repstos tune exited $?"
grep -q '^cpu ' $W/tuning && grep -q '^variant ' $W/tuning &&
	ok "repstos tune wrote $(grep '^variant' $W/tuning)" ||
	fail "no tuning file written"

# --report: the cells in every shape, set and copy, and both tables
$TOOL tune --report >$W/report 2>&1 || fail "repstos tune --report exited $?"
for s in 'back to back' 'read last' 'read first' 'read all'; do
	[ "$(grep -c "^    $s " $W/report)" -eq 2 ] ||
		fail "tune --report: no '$s' cells for both families"
done
[ "$(grep -c '^  \* [a-z0-9_]* *every shape: worst' $W/report)" -eq 2 ] &&
	[ "$(grep -c '^  r [a-z0-9_]* *read shapes: worst' $W/report)" -eq 2 ] &&
	grep -q '^the same with the last byte read back' $W/report &&
	grep -q '^copy, with the last byte read back' $W/report &&
	ok "tune --report: the cells in four shapes, set and copy, the routines marked" ||
	fail "tune --report lacks a shape, a family or a mark"
grep -q '^read_variant ' $W/tuning && grep -q '^copy_read_variant ' $W/tuning &&
	ok "the tuning file has the read routines" ||
	fail "no read routines in the tuning file"

out=$(REPSTOS_TUNING=$W/tuning REPSTOS_DEBUG=1 $full quick 2>&1) ||
	fail "sites under the tuning file: $out"
echo "$out" | grep -q 'variant [a-z0-9_]* (tuning file)' &&
	ok "the runtime uses the tuning file" || fail "tuning file not used: $out"
out=$(REPSTOS_TUNING=$W/tuning REPSTOS_DEBUG=1 $d/sites quick 2>&1) ||
	fail "librepstos.a's sites under the tuning file: $out"
echo "$out" | grep -q "$W/tuning: tuning file not read: not linked" &&
	! echo "$out" | grep -q '(tuning file)' &&
	ok "librepstos.a's runtime reads no tuning file, and says so" ||
	fail "librepstos.a's runtime and the tuning file: $out"

# A file for another CPU, and a malformed one, are ignored.
sed 's/^cpu .*/cpu 1 6 55 0 1/' $W/tuning > $W/other
out=$(REPSTOS_TUNING=$W/other REPSTOS_DEBUG=1 $full forms 2>&1)
echo "$out" | grep -q 'for another CPU, ignored' && ! echo "$out" | grep -q '(tuning file)' &&
	ok "a tuning file for another CPU is ignored" || fail "other CPU: $out"
echo "cpu nonsense" > $W/bad
out=$(REPSTOS_TUNING=$W/bad $full forms 2>&1)
echo "$out" | grep -q 'malformed tuning file' && ok "a malformed file is reported" ||
	fail "malformed: $out"

# Under REPSTOS_CPU one CPU is measured, printed and written: this one as
# the runtime then sees it.  A runtime under the same REPSTOS_CPU takes
# the file; one without ignores it, for it measured fewer forms than this
# CPU runs (the file was once keyed to the CPU detected, and taken).
REPSTOS_CPU=generic $TOOL tune $W/generic > $W/generic.log 2>&1 ||
	fail "REPSTOS_CPU=generic repstos tune exited $?"
sed -n '/^# repstos tuning/,/^wrote /p' $W/generic.log | sed '$d' |
	cmp -s - $W/generic && ok "REPSTOS_CPU=generic: the tuning printed is the file written" ||
	fail "REPSTOS_CPU=generic: what tune printed is not the file: $(cat $W/generic)"
out=$(REPSTOS_CPU=generic REPSTOS_TUNING=$W/generic REPSTOS_DEBUG=1 $full forms 2>&1)
echo "$out" | grep -q '(tuning file)' &&
	ok "REPSTOS_CPU=generic: a runtime as generic takes the file tune wrote as generic" ||
	fail "REPSTOS_CPU=generic: the runtime as generic does not take the file: $out"
out=$(REPSTOS_TUNING=$W/generic REPSTOS_DEBUG=1 $full forms 2>&1)
echo "$out" | grep -q 'for another CPU, ignored' &&
	ok "REPSTOS_CPU=generic: the runtime as this CPU ignores it" ||
	fail "REPSTOS_CPU=generic: the runtime as this CPU takes a file measured as generic: $out"

# --cpu=native chooses what the runtime chooses, tuning file included.
REPSTOS_TUNING=$W/tuning $TOOL patch --cpu=native $full -o $W/native >/dev/null ||
	fail "patch --cpu=native"
want=$(REPSTOS_TUNING=$W/tuning REPSTOS_DEBUG=1 $full forms 2>&1 |
	sed -n 's/.*; variant \([a-z0-9_]*\) .*/\1/p')
got=$($TOOL dump --stats $W/native | sed -n 's/^variant: //p' | tr ' ' '\n' |
	paste - - | awk '$2 > 0 { print $1 }' | tr '\n' ' ')
[ "$got" = "$want " ] && ok "--cpu=native gives '$got' as the runtime does" ||
	fail "--cpu=native gives '$got', the runtime '$want'"

# Patched for AVX-512, run as on Zen 3: the runtime rescues the sites.
if grep -q avx512bw /proc/cpuinfo; then
	$TOOL patch --cpu=avx512 $d/sites -o $W/avx512 >/dev/null || fail "patch --cpu=avx512"
	out=$(REPSTOS_CPU=zen3 REPSTOS_DEBUG=1 $W/avx512 quick 2>&1); rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q "statically patched for 'avx512'.*3 calling a routine this CPU lacks rewritten" &&
		ok "a static avx512 file, run without AVX-512: sites rewritten, correct" ||
		fail "rescue (exit $rc): $out"
	out=$(REPSTOS_DEBUG=1 $W/avx512 forms 2>&1)
	echo "$out" | grep -q "left as they are" && ! echo "$out" | grep -q "rewritten" &&
		ok "the same file on this CPU is left as it is" || fail "static: $out"
else
	skipped "a static avx512 file: no AVX-512 here to patch for"
fi
finish
