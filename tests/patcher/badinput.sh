#!/bin/bash
# Proves: unusable input gets exit 2 and one line naming the file from
# every command, and patch writes nothing.
# SPDX-License-Identifier: MIT
# Truncated, corrupt, non-ELF, 32-bit, big-endian, non-x86, no or
# malformed table, sections out of bounds: every subcommand exits 2 with
# one line on stderr naming the file, no crash, and patch writes nothing.
# Usage errors exit 2 too.
. "$(dirname "$0")/lib.sh"

build_inputs
EXE=$IN/exe

new() { cp "$2" "$W/$1"; F=$W/$1; }

# refuse WHY-PATTERN: check, dump, dump --json and patch (each with
# $REQUIRE, if set) all exit 2 with one stderr line "FILE: ...WHY..."
# and leave the file alone.
refuse() {
	local pattern=$1 sum cmd
	sum=$(md5sum <"$F")
	for cmd in "check" "dump" "dump --json" "patch --cpu=erms" "patch --cpu=native --dry-run"; do
		expect_rc 2 "$cmd ${REQUIRE:-}$(basename "$F")" \
			"$TOOL" $cmd ${REQUIRE:-} "$F"
		if [ "$(wc -l <"$W/err")" -eq 1 ] && grep -Eq -- "^$F: .*$pattern" "$W/err"; then
			ok "$cmd $(basename "$F"): one line: $ERR"
		else
			fail "$cmd $(basename "$F"): wanted one line /$pattern/, got:"
			sed 's/^/    | /' "$W/err"
		fi
	done
	assert "$(basename "$F") unchanged, no temporary file" \
		[ "$(md5sum <"$F")" = "$sum" -a -z "$(ls -A "$W" | grep '^\.repstos')" ]
}

printf 'hello, world\n' >"$W/text"; F=$W/text
refuse "not an ELF file"
: >"$W/empty"; F=$W/empty
refuse "empty file"
head -c 40 "$EXE" >"$W/trunc-header"; F=$W/trunc-header
refuse "truncated ELF header"
SIZE=$(stat -c %s "$EXE")
head -c $((SIZE - 100)) "$EXE" >"$W/trunc-shdrs"; F=$W/trunc-shdrs
refuse "(section header table|truncated|out of bounds|corrupt)"
head -c $((SIZE / 2)) "$EXE" >"$W/trunc-half"; F=$W/trunc-half
refuse "(section header table|truncated|out of bounds|corrupt)"

new elf32 "$EXE"; $POKE poke "$F" 4 01
refuse "32-bit ELF"
new bigendian "$EXE"; $POKE poke "$F" 5 02
refuse "big-endian ELF"
new aarch64 "$EXE"; $POKE poke "$F" 18 b700
refuse "not x86-64"
new core "$EXE"; $POKE poke "$F" 16 0400
refuse "unsupported ELF type"

# No table at all, an object built without sites: unusable only with
# --require-sites (without, "no sites" is success: harden.sh).
echo 'int f(int x) { return x + 1; }' >"$W/plain.c"
gcc -O2 -c "$W/plain.c" -o "$W/plain.o"; F=$W/plain.o
REQUIRE="--require-sites " refuse "no repstos_sites section"

SITES=$($POKE const REPSTOS_SITES_SECTION)
TAB=$($POKE sections "$EXE" | awk -v s="$SITES" '$1 == s { print $2 }')
TSIZE=$($POKE sections "$EXE" | awk -v s="$SITES" '$1 == s { print $6 }')
new table-size "$EXE"; $POKE shdr "$F" "$TAB" size $((TSIZE + 3))
refuse "malformed repstos_sites section: size"

TEXT=$($POKE sections "$EXE" | awk '$1 == ".text" { print $2 }')
new text-oob "$EXE"; $POKE shdr "$F" "$TEXT" offset 0x7fffffff0000
refuse "section $TEXT \(.text\) out of bounds"
new table-oob "$EXE"; $POKE shdr "$F" "$TAB" size 0x100000000000
refuse "out of bounds"
new shoff "$EXE"; $POKE poke "$F" 40 ffffffffffff0000
refuse "(section header|corrupt)"

# Usage.
expect_rc 2 "no command" "$TOOL"
expect_rc 2 "unknown command" "$TOOL" frobnicate "$EXE"
expect_rc 2 "patch without --cpu" "$TOOL" patch "$EXE"
expect_rc 2 "dump of a file and a missing one" "$TOOL" dump "$EXE" "$W/missing"
expect_rc 2 "check of a missing file" "$TOOL" check "$W/missing"
assert "missing file: one line naming it" grep -q "^$W/missing: cannot open" "$W/err"
expect_rc 2 "check of a directory" "$TOOL" check "$W"
expect_rc 0 "--help" "$TOOL" --help
assert "--help lists the CPU profiles" grep -q 'zen3' "$W/out"
# check goes on past a bad file, and the worst exit wins.
expect_rc 2 "check good and bad files" "$TOOL" check "$EXE" "$W/text" "$IN/sites.o"
finish
