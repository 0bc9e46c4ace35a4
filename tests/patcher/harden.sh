#!/bin/bash
# SPDX-License-Identifier: MIT
# harden.sh - issue 10, the tool's rows: what `repstos` opens, reads and
# replaces.  Inputs that are not regular files (a FIFO, a device) get
# one line and exit 2, never a hang; a corrupt file's one line says what
# was wrong, never libelf's "no error"; a valid file without sites is
# "no sites" and success, unless --require-sites; a routine's address
# is believed only where the code the loader maps agrees.
#
# Device nodes, FIFOs, setuid files and hard links live in a folder of
# this test's own (mktemp -d); no system file is ever named.  What needs
# root or a missing command is skipped, with the reason.
. "$(dirname "$0")/lib.sh"

build_inputs
EXE=$IN/exe
D=$(mktemp -d "$W/t.XXXXXX")

skip() { echo "skip: $*"; }
is_root() { [ "$(id -u)" -eq 0 ]; }

# one_line PATTERN: the last command's stderr is one line matching it.
one_line() {
	if [ "$(wc -l <"$W/err")" -eq 1 ] && grep -Eq -- "$1" "$W/err"; then
		ok "one line: $ERR"
	else
		bad "wanted one stderr line /$1/, got:"
		sed 's/^/    | /' "$W/err"
	fi
}

# D8: a FIFO must not block open(); timeout turns a hang into a failure.
mkfifo "$D/fifo"
for cmd in "check" "dump" "dump --json" "patch --cpu=vec"; do
	expect_rc 2 "$cmd on a FIFO" timeout 5 "$TOOL" $cmd "$D/fifo"
	one_line "^$D/fifo: not a regular file \(a FIFO\)$"
done
if is_root; then
	mknod "$D/null" c 1 3
	expect_rc 2 "check on a character device" timeout 5 "$TOOL" check "$D/null"
	one_line "^$D/null: not a regular file \(a character device\)$"
else
	skip "device input: mknod needs root"
fi

# D10: a libelf failure with no message of its own still says what was
# being read, never "no error".
new() { cp "$2" "$D/$1"; F=$D/$1; }
new no-shnum "$EXE"; $POKE poke "$F" 60 0000
expect_rc 2 "check with e_shnum 0" "$TOOL" check "$F"
one_line "^$F: corrupt section header table: [a-z]"
assert "no \"no error\" for e_shnum 0" sh -c "! grep -q 'no error' '$W/err'"
SYMTAB=$($POKE sections "$EXE" | awk '$1 == ".symtab" { print $2 }')
new symtab-entsize "$EXE"; $POKE shdr "$F" "$SYMTAB" entsize 7
expect_rc 2 "check with a .symtab entry size of 7" "$TOOL" check "$F"
one_line "^$F: corrupt symbol table .*entry size 7"
assert "no \"no error\" for a bad entry size" sh -c "! grep -q 'no error' '$W/err'"

# D10: a valid file with no site table (repstos-cc's output for a program
# with no memset, or for a -fsanitize=thread build, where the plugin
# leaves every call alone) is "no sites" and success; --require-sites
# keeps the old strict exit 2.
CCW=$TOP/plugin/repstos-cc
printf 'int main(void) { return 0; }\n' >"$D/nomemset.c"
printf '#include <string.h>\nint main(int c, char **v)\n{\n\tchar b[256];\n\n\tmemset(b, c, c);\n\treturn b[c - 1] != c;\n}\n' >"$D/tsan.c"
NOSITES=
if ! have_plugin; then
	skip "repstos-cc outputs: plugin/repstos.so is not built"
	gcc -O2 -o "$D/nomemset" "$D/nomemset.c" "$RTLIB" && NOSITES=$D/nomemset
else
	"$CCW" -O2 -o "$D/nomemset" "$D/nomemset.c" && NOSITES=$D/nomemset
	if "$CCW" -O2 -fsanitize=thread -o "$D/tsan" "$D/tsan.c" 2>"$W/tsan.err"; then
		NOSITES="$NOSITES $D/tsan"
	else
		skip "-fsanitize=thread: cannot build ($(head -1 "$W/tsan.err"))"
	fi
fi
json_no_sites() {
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
sys.exit(d["sites"] != [] or d["summary"]["sites"] != 0)' "$1" 2>/dev/null
}
for F in $NOSITES; do
	n=$(basename "$F")
	sum=$(md5sum <"$F")
	expect_rc 0 "check $n (no site table)" "$TOOL" check "$F"
	assert "check $n: one line, no sites" [ "$OUT" = "$F: no sites (no repstos_sites section)" -a -z "$ERR" ]
	expect_rc 0 "dump $n" "$TOOL" dump "$F"
	assert "dump $n: one line, no sites" [ "$OUT" = "$F: no sites (no repstos_sites section)" ]
	expect_rc 0 "dump --stats $n" "$TOOL" dump --stats "$F"
	assert "dump --stats $n: one line" [ "$(echo "$OUT" | wc -l)" -eq 1 ]
	expect_rc 0 "dump --json $n" "$TOOL" dump --json "$F"
	assert "dump --json $n: JSON with no sites" json_no_sites "$OUT"
	expect_rc 0 "patch $n in place" "$TOOL" patch --cpu=vec "$F"
	assert "patch $n: says no sites, file unchanged" \
		[ "$(md5sum <"$F")" = "$sum" -a -n "$(echo "$OUT" | grep 'no sites')" ]
	expect_rc 0 "patch $n -o" "$TOOL" patch --cpu=vec "$F" -o "$F.out"
	assert "patch $n -o: an identical copy" cmp -s "$F" "$F.out"
	for cmd in "check" "dump" "dump --json" "patch --cpu=vec"; do
		expect_rc 2 "$cmd --require-sites $n" "$TOOL" $cmd --require-sites "$F"
		one_line "^$F: no repstos_sites section"
	done
	expect_rc 0 "check $n with a file that has sites" "$TOOL" check "$EXE" "$F"
done
# A file that is not ELF stays unusable input.
printf 'hello\n' >"$D/text"
expect_rc 2 "check of a text file" "$TOOL" check "$D/text"

# D9: where the routines are comes from .symtab, which the loader never
# reads.  A value changed there must not be believed: check reports it,
# patch refuses and writes nothing.
le() {	# FORMAT VALUE: little-endian hex (q: 8 bytes, i: 4 signed)
	python3 -c 'import struct, sys; print(struct.pack("<" + sys.argv[1], int(sys.argv[2], 0)).hex())' "$1" "$2"
}
sym_value() { $POKE sym "$1" "$2" | awk '{ print $2 }'; }
set_sym_value() {	# FILE NAME VALUE
	local at
	at=$($POKE sym "$1" "$2" | awk '{ print $5 }')
	$POKE poke "$1" $((at + 8)) "$(le q "$3")"
}
# calls_to FILE TARGET: every site becomes `call TARGET`, as a patch
# that believed a bad symbol would have written.
calls_to() {
	local at site off
	while read -r at site; do
		off=$($POKE off "$1" "$site")
		$POKE poke "$1" "$off" "e8$(le i $(($2 - site - 5)))"
	done < <($POKE entries "$1")
}
# refused FILE WHAT: patch --cpu=vec, in place and -o, exits non-zero
# and writes nothing.
refused() {
	local sum
	sum=$(md5sum <"$1")
	expect_rc 1 "patch --cpu=vec refuses $2" "$TOOL" patch --cpu=vec "$1"
	assert "$2: left as it was" [ "$(md5sum <"$1")" = "$sum" ]
	expect_rc 1 "patch --cpu=vec -o refuses $2" "$TOOL" patch --cpu=vec "$1" -o "$1.out"
	assert "$2: no output, no temporary file" \
		[ ! -e "$1.out" -a -z "$(ls -A "$D" | grep '^\.repstos')" ]
}
VEC=$(sym_value "$EXE" __repstos_vec)
AVX512=$(sym_value "$EXE" __repstos_avx512)
MODULE=$(sym_value "$EXE" __repstos_module)

new vec-plus-1 "$EXE"; set_sym_value "$F" __repstos_vec $((VEC + 1))
expect_rc 1 "check: __repstos_vec one byte off" "$TOOL" check "$F"
assert "check names __repstos_vec and why" \
	grep -q "^$F: __repstos_vec: symbol value .* is not the routine: the code there does not start as the routine does" "$W/out"
refused "$F" "__repstos_vec one byte off"

new vec-in-data "$EXE"; set_sym_value "$F" __repstos_vec "$MODULE"
expect_rc 1 "check: __repstos_vec in data" "$TOOL" check "$F"
assert "check says it is not in code" grep -q "__repstos_vec: .*not in code" "$W/out"
refused "$F" "__repstos_vec in data"

new swapped "$EXE"
set_sym_value "$F" __repstos_vec "$AVX512"; set_sym_value "$F" __repstos_avx512 "$VEC"
expect_rc 1 "check: __repstos_vec and __repstos_avx512 swapped" "$TOOL" check "$F"
assert "check reports both symbols" \
	[ "$(grep -c '__repstos_\(vec\|avx512\): symbol value' "$W/out")" -eq 2 ]
refused "$F" "swapped routines"

# What the old tool wrote from such a file: every site calling the bad
# address, the symbol agreeing.  check must not call it clean.
new old-output "$EXE"; set_sym_value "$F" __repstos_vec $((VEC + 1))
calls_to "$F" $((VEC + 1))
expect_rc 1 "check: sites calling a bad __repstos_vec" "$TOOL" check "$F"
assert "check reports every site" \
	[ "$(grep -c "entry [0-9]*: call target's symbol does not hold the routine (__repstos_vec)" "$W/out")" -eq 5 ]

# A stripped file: the routines are known by their bytes.  A call of
# another function that starts with endbr64 (__repstos_poke, in the
# runtime too) is no routine; a patched file still checks, by name.
new poke-call "$EXE"; calls_to "$F" "$(sym_value "$EXE" __repstos_poke)"
strip "$F"
expect_rc 1 "check: stripped, sites calling __repstos_poke" "$TOOL" check "$F"
assert "check reports every site" \
	[ "$(grep -c 'does not look like the stub or a routine' "$W/out")" -eq 5 ]
new vec-stripped "$EXE"
expect_rc 0 "patch --cpu=vec" "$TOOL" patch --cpu=vec "$F"
strip "$F"
expect_rc 0 "check: stripped, patched for vec" "$TOOL" check "$F"
"$TOOL" dump "$F" >"$W/dump.txt"
assert "dump: stripped, 5 sites call vec" \
	[ "$(grep -c ' vec __repstos_vec?$' "$W/dump.txt")" -eq 5 ]

finish
