#!/bin/bash
# Proves: check, dump and tune --run read kernel-mode objects whole and never crash on them, in both alt_instr layouts (12 bytes to Linux 6.2, 14 from 6.3): a notes section without bytes is skipped, every alt_instr on a site and every note counts, a layout the notes do not record, or a flag kernel mode never sets, is flagged, and dump --json and --stats list the sites.
# SPDX-License-Identifier: MIT
# Objects built as tests/plugin/kernel.sh builds them (the plugin's
# kernel mode, -mcmodel=kernel), then linked (ld -r) with a few lines of
# assembler: an SHT_NOBITS .notes or .note.repstos (issue 45 row 1); an
# extra alt_instr on a site, X86_FEATURE_ALWAYS replaced by `call evil`,
# 999 more notes naming one site, and a note naming an entry inside a
# site (row 9); and dump --json and --stats of a clean object (row 10).
# vm.o is built for a tree of 6.1's layout, vm14.o for one of 7.3's
# (fixtures, tests/plugin/kernel/tree.sh); issue 44: both read clean, a
# note that records the other layout, notes of both, and an entry with
# ALT_FLAG_DIRECT_CALL are flagged.
. "$(dirname "$0")/lib.sh"
. "$top/tests/plugin/kernel/tree.sh"

U=$top/tests/plugin/kernel/unit.c
fixture_tree "$W/t12" 12
fixture_tree "$W/t14" 14
KFLAGS="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx -fcf-protection=branch"
gcc $KFLAGS $(tree_flags "$W/t12") -fplugin="$PLUGIN" -fplugin-arg-repstos-kernel -DVMLINUX \
	-c -o "$W/vm.o" "$U" 2>"$W/vm.err" || { fail "kernel unit: $(head -3 "$W/vm.err")"; finish; }
gcc $KFLAGS $(tree_flags "$W/t14") -fplugin="$PLUGIN" -fplugin-arg-repstos-kernel -DVMLINUX \
	-DALT14 -c -o "$W/vm14.o" "$U" 2>"$W/vm14.err" ||
	{ fail "kernel unit, 14-byte layout: $(head -3 "$W/vm14.err")"; finish; }
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

# The kernel object as it is: clean, and the offset of its memset site.
expect_rc 0 "check vm.o" "$TOOL" check "$W/vm.o"
assert "$OUT" [ "$OUT" = "$W/vm.o: clean, 5 kernel-mode sites" ]
expect_rc 0 "dump vm.o" "$TOOL" dump "$W/vm.o"
SET=$(echo "$OUT" | awk '$1 ~ /^set\+0x/ { sub("set", "", $1); print $1 }')
[ -n "$SET" ] || { fail "no memset site in: $OUT"; finish; }

# The site's own bytes, read by the contract's decoder: rep stosb with
# anything but its NOP after it is no site the plugin wrote, and check
# says so (issue 46: kernel.c once took any two bytes f3 aa for it).
set -- $($POKE sym "$W/vm.o" set)
text=$($POKE sections "$W/vm.o" | awk -v i="$4" '$2 == i { print $5 }')
cp "$W/vm.o" "$W/pad-vm.o"
$POKE poke "$W/pad-vm.o" $((text + $2 + SET + 2)) cccccc
expect_rc 1 "check: a memset site of rep stosb and three int3" "$TOOL" check "$W/pad-vm.o"
assert "check says its original is not its form: $OUT" \
	grep -q "set$SET: the original is not the site's form" "$W/out"
expect_rc 0 "dump of it" "$TOOL" dump "$W/pad-vm.o"
line=$(grep "^set$SET " "$W/out")
assert "dump: no rep_stosb with FSRM: $line" \
	[ "$(echo "$line" | awk '{ print $4 }')" = "?" ]

# Row 9: an alt_instr no note names, on the memset site: on every CPU
# (X86_FEATURE_ALWAYS) apply_alternatives() writes `call evil` there.
asm evil <<EOF
	.section .altinstructions,"a"
	.long set $SET - .
	.long 1f - .
	.word 3 * 32 + 21
	.byte 5, 5
	.section .altinstr_replacement,"ax"
1:	call evil
EOF
ld -r -o "$W/evil-vm.o" "$W/vm.o" "$W/evil.o"
expect_rc 1 "check: an alt_instr on a site that no note names" "$TOOL" check "$W/evil-vm.o"
assert "check says so: $OUT" grep -q "set$SET: .*alt_instr no note names" "$W/out"
expect_rc 0 "dump of it" "$TOOL" dump "$W/evil-vm.o"
line=$(grep "^set$SET " "$W/out")
assert "dump shows call:evil on every CPU: $line" \
	[ "$(echo "$line" | grep -o 'call:evil' | wc -l)" -eq 5 ]

# 999 more notes naming the first site's alt_instr entries (linked
# first, an empty .altinstructions of its own: the label is vm.o's first
# entry), each a copy of vm.o's first note.
DESC=$(python3 - "$W/vm.o" <<'EOF'
import struct, sys
img = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", img, 0x28)
shnum, shstr = struct.unpack_from("<HH", img, 0x3c)
sh = [struct.unpack_from("<IIQQQQIIQQ", img, shoff + i * 64) for i in range(shnum)]
for s in sh:
    o = sh[shstr][4] + s[0]
    if img[o:img.index(b"\0", o)] == b".note.repstos":
        print(", ".join(str(b) for b in img[s[4] + 24:s[4] + 36]))
EOF
)
asm dup <<EOF
	.section .altinstructions,"a"
first:
	.section .note.repstos,"a",@note
	.balign 4
	.rept 999
	.long 8, 16, 1
	.asciz "repstos"
	.long first - .
	.byte $DESC
	.endr
EOF
ld -r -o "$W/dup-vm.o" "$W/dup.o" "$W/vm.o"
expect_rc 1 "check: 1000 notes naming one site" "$TOOL" check "$W/dup-vm.o"
assert "check says so, once: $OUT" \
	[ "$(grep -c '1000 notes name this site' "$W/out")" -eq 1 ]

# A note naming an entry two bytes into the memset site: overlapping
# sites; on a CPU without FSRM that entry writes over part of the site
# (dump: ?).
asm ovl <<EOF
	.section .altinstructions,"a"
ovl:	.long set $SET + 2 - .
	.long 1f - .
	.word 0x8000 | (18 * 32 + 4)
	.byte 5, 5
	.section .altinstr_replacement,"ax"
1:	call __repstos_k_set_erms
	.section .note.repstos,"a",@note
	.balign 4
	.long 8, 16, 1
	.asciz "repstos"
	.long ovl - .
	.byte 0, 0, 1, 1
	.long 0, 0xffffffff
EOF
ld -r -o "$W/ovl-vm.o" "$W/vm.o" "$W/ovl.o"
expect_rc 1 "check: notes naming overlapping sites" "$TOOL" check "$W/ovl-vm.o"
assert "check says so: $(grep overlapping "$W/out")" \
	grep -q "set$SET: 2 notes name overlapping sites" "$W/out"
expect_rc 0 "dump of it" "$TOOL" dump "$W/ovl-vm.o"
line=$(grep "^set$SET " "$W/out")
assert "dump: torn without FSRM: $line" \
	[ "$(echo "$line" | awk '{ print $4, $5, $6, $7, $8 }')" = "rep_stosb rep_stosb ? ? ?" ]

# Row 10: dump --json and --stats of a kernel object list its sites.
expect_rc 0 "dump --json vm.o" "$TOOL" dump --json "$W/vm.o"
assert "dump --json: 5 sites, each with its forms" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = d["sites"]
sys.exit(not (d["mode"] == "kernel" and len(s) == 5 and
	      d["summary"]["sites"] == 5 and
	      [x["function"] for x in s] == ["set", "zero", "copy", "move", "shift_down"] and
	      d["alt_instr_size"] == 12 and
	      s[0]["forms"] == {"fsrs": "rep_stosb", "fsrm": "rep_stosb", "erms": "set_erms",
				"rep_good": "set_rep_good", "none": "set_orig"}))' "$OUT"
expect_rc 0 "dump --json vm.o vm.o: an array" "$TOOL" dump --json "$W/vm.o" "$W/vm.o"
assert "dump --json of two: an array of two" python3 -c '
import json, sys
sys.exit(len(json.loads(sys.argv[1])) != 2)' "$OUT"
expect_rc 0 "dump --stats vm.o" "$TOOL" dump --stats "$W/vm.o"
assert "dump --stats: counts, no site lines: $(echo $OUT)" [ \
	"$(echo "$OUT" | grep -c '^op: memset 1 zero 1 clear 0 copy 1 move 1 move_fwd 1$')" -eq 1 -a \
	"$(echo "$OUT" | grep -c '^inline: fsrs 4 fsrm 4 erms 0 rep_good 0 none 0$')" -eq 1 -a \
	"$(echo "$OUT" | grep -c '^set+')" -eq 0 ]

# ---- Issue 44: the 14-byte layout of Linux 6.3 onwards -------------------

expect_rc 0 "check vm14.o" "$TOOL" check "$W/vm14.o"
assert "$OUT" [ "$OUT" = "$W/vm14.o: clean, 5 kernel-mode sites" ]
expect_rc 0 "dump --json vm14.o" "$TOOL" dump --json "$W/vm14.o"
assert "dump --json: 14-byte entries, sets inline on FSRS only, copies on FSRM" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = {x["function"]: x["forms"] for x in d["sites"]}
sys.exit(not (d["alt_instr_size"] == 14 and len(s) == 5 and
	      s["set"] == {"fsrs": "rep_stosb", "fsrm": "set_erms", "erms": "set_erms",
			   "rep_good": "set_rep_good", "none": "set_orig"} and
	      s["copy"]["fsrm"] == "rep_movsb" and s["copy"]["erms"] == "copy_erms"))' "$OUT"
expect_rc 0 "dump --stats vm14.o" "$TOOL" dump --stats "$W/vm14.o"
assert "dump --stats: $(echo $OUT)" \
	[ "$(echo "$OUT" | grep -c '^inline: fsrs 4 fsrm 2 erms 0 rep_good 0 none 0$')" -eq 1 ]

# note_layout OBJ BYTE: every site note of OBJ says its entries are BYTE
# bytes long (the descriptor's fourth byte)
note_layout() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
path, byte = sys.argv[1], int(sys.argv[2])
img = bytearray(open(path, "rb").read())
shoff, = struct.unpack_from("<Q", img, 0x28)
shnum, shstr = struct.unpack_from("<HH", img, 0x3c)
sh = [struct.unpack_from("<IIQQQQIIQQ", img, shoff + i * 64) for i in range(shnum)]
for s in sh:
    o = sh[shstr][4] + s[0]
    if img[o:img.index(b"\0", o)] != b".note.repstos":
        continue
    off, end = s[4], s[4] + s[5]
    while off + 12 <= end:
        namesz, descsz, typ = struct.unpack_from("<III", img, off)
        if typ == 1 and descsz == 16:
            img[off + 12 + 8 + 7] = byte
        off += 12 + (namesz + 3 & ~3) + (descsz + 3 & ~3)
open(path, "wb").write(img)
EOF
}

# A 12-byte table whose notes say 14, and a 14-byte one whose notes say
# 12: the table is read in the layout the notes record, so both are wrong.
cp "$W/vm.o" "$W/say14.o"
note_layout "$W/say14.o" 14
expect_rc 1 "check: 12-byte entries, notes saying 14" "$TOOL" check "$W/say14.o"
cp "$W/vm14.o" "$W/say12.o"
note_layout "$W/say12.o" 12
expect_rc 1 "check: 14-byte entries, notes saying 12" "$TOOL" check "$W/say12.o"
assert "check says the section is not whole 12-byte entries: $(head -1 "$W/out")" \
	grep -q 'not a whole number of 12-byte alt_instr entries' "$W/out"
cp "$W/vm.o" "$W/say9.o"
note_layout "$W/say9.o" 9
expect_rc 1 "check: notes of a layout no kernel has" "$TOOL" check "$W/say9.o"
assert "check: unreadable notes: $OUT" grep -q 'site notes unreadable' "$W/out"

# Notes of both layouts in one file.
objcopy --prefix-symbols=x_ "$W/vm14.o" "$W/vm14x.o"
ld -r -o "$W/both.o" "$W/vm.o" "$W/vm14x.o" 2>"$W/ld.err"
expect_rc 1 "check: notes of both layouts" "$TOOL" check "$W/both.o"
assert "check says so: $(grep layouts "$W/out")" grep -q 'record both alt_instr layouts' "$W/out"

# ALT_FLAG_DIRECT_CALL (6.8+: the kernel BUG()s unless the original is
# an ff 15 call) on the memset site's first entry: flags byte 0x03.
set -- $($POKE sections "$W/vm14.o" | awk '$1 == ".altinstructions"')
cp "$W/vm14.o" "$W/direct.o"
$POKE poke "$W/direct.o" $(($5 + 10)) 03
expect_rc 1 "check: an entry with ALT_FLAG_DIRECT_CALL" "$TOOL" check "$W/direct.o"
assert "check says so: $(head -1 "$W/out")" grep -q 'a flag kernel mode never sets' "$W/out"
finish

