#!/bin/bash
# Proves: check, dump and tune --run never crash on kernel-mode notes: a notes section without bytes is skipped.
# SPDX-License-Identifier: MIT
# Objects built as tests/plugin/kernel.sh builds them (the plugin's
# kernel mode, -mcmodel=kernel), then linked (ld -r) with a few lines of
# assembler: an SHT_NOBITS .notes or .note.repstos (issue 45 row 1); an
# extra alt_instr on a site, X86_FEATURE_ALWAYS replaced by `call evil`,
# and 999 more notes naming one site (row 9); and dump --json and
# --stats of a clean object (row 10).
. "$(dirname "$0")/lib.sh"

U=$top/tests/plugin/kernel/unit.c
KFLAGS="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx -fcf-protection=branch"
gcc $KFLAGS -fplugin="$PLUGIN" -fplugin-arg-repstos-kernel -DVMLINUX \
	-c -o "$W/vm.o" "$U" 2>"$W/vm.err" || { fail "kernel unit: $(head -3 "$W/vm.err")"; finish; }
# asm NAME: assemble stdin into $W/NAME.o, no executable stack.
asm() {
	{ cat; printf '\t.section .note.GNU-stack,"",@progbits\n'; } >"$W/$1.s"
	gcc -c -o "$W/$1.o" "$W/$1.s" 2>"$W/$1.err" || fail "assembling $1: $(head -2 "$W/$1.err")"
}

# Row 1: a notes section without bytes, alone or next to a kernel
# object's notes, is no crash.  Alone it names no site: "no sites".
for sec in .notes .note.repstos; do
	n=nobits${sec//./-}
	printf '\t.section %s,"aw",@nobits\n\t.zero 4096\n' "$sec" | asm "$n"
	for cmd in check dump "dump --json" "dump --stats"; do
		expect_rc 0 "$cmd, $sec SHT_NOBITS" "$TOOL" $cmd "$W/$n.o"
	done
	expect_rc 2 "tune --run, $sec SHT_NOBITS: an object, refused" \
		"$TOOL" tune --run=true -o "$W/$n.prof" "$W/$n.o"
	assert "tune --run: one line" [ "$(wc -l <"$W/err")" -eq 1 ]
	ld -r -o "$W/$n-vm.o" "$W/$n.o" "$W/vm.o"
	expect_rc 0 "check, $sec SHT_NOBITS and a kernel object's notes" \
		"$TOOL" check "$W/$n-vm.o"
	assert "$OUT" [ "$OUT" = "$W/$n-vm.o: clean, 5 kernel-mode sites" ]
done

finish
