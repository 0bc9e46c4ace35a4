#!/bin/bash
# SPDX-License-Identifier: MIT
# harden.sh - issue 10, the tool's rows: what `repstos` opens, reads and
# replaces.  Inputs that are not regular files (a FIFO, a device) get
# one line and exit 2, never a hang; a corrupt file's one line says what
# was wrong, never libelf's "no error"; a valid file without sites is
# "no sites" and success, unless --require-sites.
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

finish
