#!/bin/bash
# Proves: check reports each broken site on a line of its own, and patch
# refuses the file and leaves it as it was.
# SPDX-License-Identifier: MIT
# Each problem written by hand into a copy of a good file: `repstos
# check` names it on one line "file: function+0xoff: what" and exits 1;
# `repstos patch` refuses the file and leaves it as it was.
. "$(dirname "$0")/lib.sh"

build_inputs
EXE=$IN/exe
read -r _ S0 < <($POKE entries "$EXE" | sed -n 1p)
SITE0=$($POKE off "$EXE" "$S0")


# new NAME BASE: F = a copy of BASE for the caller to break.
# expect_problem PATTERN: check exits 1 with a line matching PATTERN.
new() { cp "$2" "$W/$1"; F=$W/$1; }
expect_problem() {
	local pattern=$1 sum
	expect_rc 1 "check $(basename "$F")" "$TOOL" check "$F"
	if grep -Eq -- "^$F: [^ ]+: $pattern" "$W/out"; then
		ok "$(basename "$F"): reported /$pattern/"
	else
		fail "$(basename "$F"): no line matching /$pattern/ in:"
		sed 's/^/    | /' "$W/out"
	fi
	if grep -vEq -- "^$F: [^ ]+: .+" "$W/out"; then
		fail "$(basename "$F"): a line not in the file: where: what form"
	fi
	sum=$(md5sum <"$F")
	expect_rc 1 "patch refuses $(basename "$F")" "$TOOL" patch --cpu=erms "$F"
	assert "patch left $(basename "$F") unchanged" [ "$(md5sum <"$F")" = "$sum" ]
}

# 1. The site's bytes are no contract form.
new wrong-bytes "$EXE"
$POKE poke "$F" "$SITE0" 0f1f440000
expect_problem "entry 0: not a call or rep stosb"

# 2. The entry points one byte into its site.
new wrong-target "$EXE"
$POKE nudge "$F" 0 1
expect_problem "entry 0: (bytes do not decode|not a call or rep stosb|call is not|bytes after)"

# 3. Entry 1 points two bytes into entry 0's site: they overlap.
new overlap "$EXE"
$POKE site "$F" 1 $((S0 + 2))
expect_problem "entry 1: overlaps the site of entry 0"

new same-site "$EXE"
$POKE site "$F" 1 $((S0))
expect_problem "entry 1: same site as entry 0"

# 4. The function symbol around site 0 loses its size: outside any function.
new no-function "$EXE"
read -r _ _ _ _ SYMAT < <($POKE sym "$F" t_memset)
$POKE poke "$F" $((SYMAT + 16)) 0000000000000000
expect_problem "entry 0: site is outside any function"

# 5. An entry of an unknown version.
new bad-version "$EXE"
$POKE field "$F" 0 version 07
expect_problem "entry 0: unknown entry version 7"

# 6. A site in a section that is not code.
new not-code "$EXE"
RODATA=$($POKE sections "$F" | awk '$1 == ".rodata" { print $4 }')
$POKE site "$F" 1 "$RODATA"
expect_problem "entry 1: site is in non-executable section .rodata"

# 7. A fill the runtime would not recognize (90 90 90 for 0f 1f 00).
new odd-nops "$EXE"
$POKE poke "$F" "$SITE0" f3aa909090
expect_problem "entry 0: NOP fill differs from the runtime's"

# 8. A module record with a bad magic.
new bad-module "$EXE"
MOD=$($POKE sections "$F" | awk -v m="$($POKE const REPSTOS_MODULE_SECTION)" '$1 == m { print $5 }')
$POKE poke "$F" "$MOD" 58
expect_problem "malformed repstos_module record: bad magic"

# 9. In a .o: the call relocation names another function.
O=$IN/sites.o
new wrong-call.o "$O"
OFF0=$("$TOOL" dump --json "$O" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sites"][0]["offset"])')
RELA=$($POKE rela "$F" .text $((OFF0 + $($POKE const REPSTOS_CALL_REL32))))
read -r TB _ < <($POKE sym "$F" t_bzero)
$POKE poke "$F" $((RELA + 8)) "$(python3 -c 'import struct,sys; print(struct.pack("<Q", (int(sys.argv[1]) << 32) | 4).hex())' "$TB")"
expect_problem "entry 0: call target is not the stub or a variant routine \(t_bzero\)"

# 10. In a .o: the entry's relocation is not PC32.
new wrong-entry-rel.o "$O"
TREL=$($POKE rela "$F" "$($POKE const REPSTOS_SITES_SECTION)" 0)
$POKE poke "$F" $((TREL + 8)) 01000000
expect_problem "entry 0: site field relocation is not R_X86_64_PC32"

# Several problems at once: one line each.
new many "$EXE"
$POKE field "$F" 0 version 09
$POKE site "$F" 1 "$RODATA"
expect_rc 1 "check a file with two problems" "$TOOL" check "$F"
assert "two problems, two lines" [ "$(wc -l <"$W/out")" -eq 2 ]
finish
