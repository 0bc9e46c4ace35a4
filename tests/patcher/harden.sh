#!/bin/bash
# SPDX-License-Identifier: MIT
# harden.sh - issue 10, the tool's rows: what `repstos` opens, reads and
# replaces.  Inputs that are not regular files (a FIFO, a device) get
# one line and exit 2, never a hang; a corrupt file's one line says what
# was wrong, never libelf's "no error".
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

finish
