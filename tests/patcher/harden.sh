#!/bin/bash
# Proves: the tool opens, believes and replaces files safely.
# SPDX-License-Identifier: MIT
# What `repstos` opens, reads and replaces.  Inputs that are not regular
# files (a FIFO, a device) get one line and exit 2, never a hang; a
# corrupt file's one line says what was wrong, never libelf's "no
# error"; a valid file without sites is
# "no sites" and success, unless --require-sites; a routine's address
# is believed only where the code the loader maps agrees.  patch in place
# keeps owner, group, mode, setuid bits, extended attributes and file
# capabilities, follows symbolic links, wants --force for hard links and
# read-only files; -o never replaces a device, FIFO, socket or directory.
#
# Device nodes, FIFOs, setuid files and hard links live in a folder of
# this test's own ($W/t, mode 0700 until the last check opens it); no
# system file is ever named.  What needs root or a missing command is
# skipped, with the reason.
. "$(dirname "$0")/lib.sh"

build_inputs
EXE=$IN/exe
D=$W/t
mkdir -m 700 "$D" || exit 1

is_root() { [ "$(id -u)" -eq 0 ]; }

# one_line PATTERN: the last command's stderr is one line matching it.
one_line() {
	if [ "$(wc -l <"$W/err")" -eq 1 ] && grep -Eq -- "$1" "$W/err"; then
		ok "one line: $ERR"
	else
		fail "wanted one stderr line /$1/, got:"
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
	skipped "device input: mknod needs root"
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
printf 'int main(void) { return 0; }\n' >"$D/nomemset.c"
printf '#include <string.h>\nint main(int c, char **v)\n{\n\tchar b[256];\n\n\tmemset(b, c, c);\n\treturn b[c - 1] != c;\n}\n' >"$D/tsan.c"
NOSITES=
"$RCC" -O2 -o "$D/nomemset" "$D/nomemset.c" && NOSITES=$D/nomemset
if "$RCC" -O2 -fsanitize=thread -o "$D/tsan" "$D/tsan.c" 2>"$W/tsan.err"; then
	NOSITES="$NOSITES $D/tsan"
else
	skipped "-fsanitize=thread: cannot build ($(head -1 "$W/tsan.err"))"
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
	local at site
	while read -r at site; do
		$POKE call "$1" "$site" "$2"
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
value_at() { $POKE sym "$1" "$2" | awk '{ print $5 + 8 }'; }
swap_at() {	# FILE OFFSET OFFSET: exchange the 8 bytes at each
	python3 -c '
import sys
f, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
img = bytearray(open(f, "rb").read())
img[a:a + 8], img[b:b + 8] = img[b:b + 8], img[a:a + 8]
open(f, "wb").write(img)' "$@"
}
# swap_syms FILE NAME NAME: exchange the two symbols' values.
swap_syms() { swap_at "$1" "$(value_at "$1" "$2")" "$(value_at "$1" "$3")"; }
VEC=$(sym_value "$EXE" __repstos_vec)
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

new swapped "$EXE"; swap_syms "$F" __repstos_vec __repstos_avx512
expect_rc 1 "check: __repstos_vec and __repstos_avx512 swapped" "$TOOL" check "$F"
assert "check reports both symbols" \
	[ "$(grep -c '__repstos_\(vec\|avx512\): symbol value' "$W/out")" -eq 2 ]
refused "$F" "swapped routines"

# Any two routines (and the stub) swapped: each must be told from every
# other by its code, or a swap would pass and run the wrong routine.
# Set and copy routines and both stubs, from the contract's two lists,
# in a program with sites of both families (a module carries the
# routines of the families it has sites of: runtime/runtime.mk).
BOTH=$IN/both
gcc $CFLAGS -fplugin="$PLUGIN" -fplugin-arg-repstos-copy -c "$SRC/copies.c" \
	-o "$IN/copies.o" &&
gcc -no-pie -o "$BOTH" "$IN/main.o" "$IN/sites.o" "$IN/copies.o" "$RTLIB" ||
	fail "cannot build a program with set and copy sites"
ROUTINES="$("$top/tests/xlist.sh" VARIANTS sym) $("$top/tests/xlist.sh" COPY_VARIANTS sym)
	$($POKE const REPSTOS_STUB_SYMBOL) $($POKE const REPSTOS_COPY_STUB_SYMBOL)"
# One file per pair, pair.X.Y, written by one python3.
python3 - "$BOTH" "$D" $(for x in $ROUTINES; do echo "$x" "$(value_at "$BOTH" "$x")"; done) <<'EOF2'
import itertools, sys
exe, d, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
at = dict(zip(rest[0::2], map(int, rest[1::2])))
img = open(exe, "rb").read()
for x, y in itertools.combinations(sorted(at), 2):
    b = bytearray(img)
    b[at[x]:at[x] + 8], b[at[y]:at[y] + 8] = img[at[y]:at[y] + 8], img[at[x]:at[x] + 8]
    open("%s/pair.%s.%s" % (d, x, y), "wb").write(b)
EOF2
told=0 pairs=0
for F in "$D"/pair.*; do
	pairs=$((pairs + 1))
	"$TOOL" check "$F" >"$W/out" 2>&1
	[ $? -eq 1 ] && [ "$(grep -c "^$F: __repstos_[a-z0-9_]*: symbol value" "$W/out")" -eq 2 ] &&
		told=$((told + 1)) || echo "    not told apart: ${F#$D/pair.}"
done
assert "check tells every pair of $(echo $ROUTINES | wc -w) routines apart when swapped ($told of $pairs)" \
	[ "$pairs" -gt 0 -a "$told" -eq "$pairs" ]

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

# D1: in place, the new file is the old one patched: owner, group, mode,
# setuid and setgid bits, extended attributes and file capabilities
# kept; a symbolic link stays a link and its target is patched; other
# hard links and a read-only file want --force.
attrs() { stat -c '%A %u %g %h' "$1"; }
is_vec() { "$TOOL" dump "$1" | head -1 | grep -q 'static (vec)'; }
# patched_keeping FILE WHAT: patch in place; FILE must keep its attrs
# and every site must call vec.
patched_keeping() {
	local was
	was=$(attrs "$1")
	expect_rc 0 "patch $2" "$TOOL" patch --cpu=vec "$1"
	assert "$2: still $was" [ "$(attrs "$1")" = "$was" ]
	assert "$2: patched" is_vec "$1"
}
if is_root; then
	new setuid "$EXE"; chown nobody:nogroup "$F"; chmod 4755 "$F"
	patched_keeping "$F" "a setuid file of nobody"
	assert "setuid file: runs" sh -c "'$F' | grep -q '^OK\$'"
	new setgid "$EXE"; chgrp nogroup "$F"; chmod 2755 "$F"
	patched_keeping "$F" "a setgid file of group nogroup"
	new numeric "$EXE"; chown 4242:4343 "$F"; chmod 6750 "$F"
	patched_keeping "$F" "a setuid and setgid file of uid 4242, gid 4343"
else
	skipped "owner, group and setuid kept: chown needs root"
fi

xattr() {	# FILE NAME: the value, hex; empty when none
	python3 -c '
import os, sys
try:
    print(os.getxattr(sys.argv[1], sys.argv[2]).hex())
except OSError:
    pass' "$1" "$2"
}
new xattr "$EXE"
if python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.repstos", b"kept")' "$F" 2>/dev/null; then
	patched_keeping "$F" "a file with an extended attribute"
	assert "user.repstos kept" [ "$(xattr "$F" user.repstos)" = "$(printf kept | od -An -tx1 | tr -d ' \n')" ]
else
	skipped "extended attributes: this file system has no user.* attributes"
fi
if ! is_root || ! command -v setcap >/dev/null; then
	skipped "file capabilities: need root and setcap (Debian package libcap2-bin)"
else
	new caps "$EXE"; chmod 4755 "$F"; setcap cap_net_raw+ep "$F"
	CAP=$(xattr "$F" security.capability)
	patched_keeping "$F" "a setuid file with a capability"
	assert "capability kept ($(getcap "$F"))" \
		[ -n "$CAP" -a "$(xattr "$F" security.capability)" = "$CAP" ]
fi

# A symbolic link: the target is patched, the link stays.
new target "$EXE"; ln -s target "$D/link"
expect_rc 0 "patch through a symbolic link" "$TOOL" patch --cpu=vec "$D/link"
assert "the link is still a link to target" [ -L "$D/link" -a "$(readlink "$D/link")" = target ]
assert "its target is patched" is_vec "$D/target"
ln -s nowhere "$D/dangling"
expect_rc 2 "-o to a symbolic link to nothing" "$TOOL" patch --cpu=vec "$EXE" -o "$D/dangling"
one_line "^$D/dangling: symbolic link to nothing"
assert "the dangling link stays" [ -L "$D/dangling" -a ! -e "$D/dangling" ]

# Hard links: refused without --force; with it, every name patched.
new linked "$EXE"; ln "$F" "$D/linked2"
sum=$(md5sum <"$F")
expect_rc 2 "patch a file with two hard links" "$TOOL" patch --cpu=vec "$F"
one_line "^$F: 2 hard links: .*--force"
assert "both names unchanged" \
	[ "$(md5sum <"$F")" = "$sum" -a "$(md5sum <"$D/linked2")" = "$sum" ]
if is_root && command -v setcap >/dev/null; then
	setcap cap_net_raw+ep "$F"
	CAP=$(xattr "$F" security.capability)
fi
expect_rc 0 "patch --force a file with two hard links" "$TOOL" patch --cpu=vec --force "$F"
assert "--force: still one inode, two links" \
	[ "$(stat -c '%i %h' "$F")" = "$(stat -c '%i %h' "$D/linked2")" -a "$(stat -c %h "$F")" -eq 2 ]
assert "--force: the other name is patched" is_vec "$D/linked2"
[ -n "${CAP:-}" ] && assert "--force: capability kept" [ "$(xattr "$F" security.capability)" = "$CAP" ]
expect_rc 0 "check the other name" "$TOOL" check "$D/linked2"
new linked.o "$IN/sites.o"; ln "$F" "$D/linked2.o"
expect_rc 0 "patch --force --cpu=erms an object with two links (it grows)" \
	"$TOOL" patch --cpu=erms --force "$F"
assert "both names: the same patched object" cmp -s "$F" "$D/linked2.o"
expect_rc 0 "check it" "$TOOL" check "$D/linked2.o"
gcc -no-pie -o "$D/linked-o" "$IN/main.o" "$D/linked2.o" "$RTLIB" &&
	"$D/linked-o" | grep -q '^OK$' && ok "it links and runs OK" ||
	fail "the object patched through its links does not link or run"

# Read-only: refused without --force, which keeps the mode.
new readonly "$EXE"; chmod 0555 "$F"
sum=$(md5sum <"$F")
expect_rc 2 "patch a read-only file" "$TOOL" patch --cpu=vec "$F"
one_line "^$F: read-only \(mode 0555\): not patched without --force"
assert "read-only file unchanged" [ "$(md5sum <"$F")" = "$sum" ]
expect_rc 0 "patch --force a read-only file" "$TOOL" patch --cpu=vec --force "$F"
assert "--force: mode 0555 kept, patched" [ "$(stat -c %a "$F")" = 555 ] && is_vec "$F"

# D2: -o never replaces a device, FIFO or socket (nor a link to one, as
# /dev/stdout is), nor a directory.  Each is made here, never a system
# file.
refuse_o() {	# OUT KIND
	local was
	was=$(stat -c %F "$1")
	expect_rc 2 "-o $(basename "$1") ($was)" timeout 5 "$TOOL" patch --cpu=vec "$EXE" -o "$1"
	one_line "^$1: not a regular file \($2\): not replacing it"
	assert "$(basename "$1") is still a $was, no temporary file" \
		[ "$(stat -c %F "$1")" = "$was" -a -z "$(ls -A "$D" | grep '^\.repstos')" ]
}
if is_root; then
	refuse_o "$D/null" "a character device"
else
	skipped "-o to a device: mknod needs root"
fi
refuse_o "$D/fifo" "a FIFO"
ln -s fifo "$D/stdout"
refuse_o "$D/stdout" "a FIFO"
assert "the link to the FIFO stays a link" [ -L "$D/stdout" ]
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$D/sock"
refuse_o "$D/sock" "a socket"
mkdir "$D/dir"
refuse_o "$D/dir" "a directory"
# -o to a link to a regular file: the target gets the output.
cp "$EXE" "$D/out-target"; ln -s out-target "$D/out-link"
expect_rc 0 "-o to a symbolic link" "$TOOL" patch --cpu=vec "$EXE" -o "$D/out-link"
assert "-o: the link stays, its target is the output" \
	[ -L "$D/out-link" ] && is_vec "$D/out-target"
# -o makes a new file: the setuid bit only with the input's owner.
if is_root; then
	new setuid-in "$EXE"; chown nobody:nogroup "$F"; chmod 4755 "$F"
	expect_rc 0 "-o from a setuid file of nobody" "$TOOL" patch --cpu=vec "$F" -o "$D/setuid-out"
	assert "-o output: root's, not setuid ($(attrs "$D/setuid-out"))" \
		[ "$(attrs "$D/setuid-out")" = "-rwxr-xr-x 0 0 1" ]
fi

# Errors on the way: the target stays as it was, no temporary file.
# A file size limit makes the writes fail.
new limited "$EXE"
sum=$(md5sum <"$F")
expect_rc 2 "patch under a file size limit" \
	bash -c "trap '' XFSZ; ulimit -f 4; exec '$TOOL' patch --cpu=vec '$F'"
assert "limited: unchanged, no temporary file" \
	[ "$(md5sum <"$F")" = "$sum" -a -z "$(ls -A "$D" | grep '^\.repstos')" ]
new limited.o "$IN/sites.o"; ln "$F" "$D/limited2.o"
sum=$(md5sum <"$F")
expect_rc 2 "patch --force an object that must grow past the limit" \
	bash -c "trap '' XFSZ; ulimit -f $(( $(stat -c %s "$F") / 1024 )); exec '$TOOL' patch --cpu=erms --force '$F'"
one_line "^$F: cannot write: .*: left as it was$"
assert "limited.o: unchanged" [ "$(md5sum <"$F")" = "$sum" ]
# An owner that cannot be kept stops the patch.
if is_root && command -v setpriv >/dev/null; then
	mkdir -m 0777 "$D/shared"; chmod 0755 "$D"
	cp "$EXE" "$D/shared/roots"
	sum=$(md5sum <"$D/shared/roots")
	expect_rc 2 "nobody patches root's file in a directory it may write" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$TOOL" patch --cpu=vec "$D/shared/roots"
	one_line "^$D/shared/roots: cannot keep owner 0 and group 0"
	assert "root's file unchanged, still root's, no temporary file" \
		[ "$(md5sum <"$D/shared/roots")" = "$sum" -a "$(stat -c %U "$D/shared/roots")" = root \
		  -a "$(ls -A "$D/shared")" = roots ]
else
	skipped "an owner that cannot be kept: needs root and setpriv"
fi

finish
