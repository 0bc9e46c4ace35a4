#!/bin/sh
# Proves: the installed man pages format without a warning and fit 80 columns.
# The man pages `make install` installs: each must exist, format with no
# warning at all under `groff -ww -man -Tutf8` (every warning category:
# bad macros, unbreakable lines, missing fonts...), and render through
# `man -l` at MANWIDTH=80 with a NAME line naming the page, nothing on
# stderr, and no line wider than 80 columns.
cd "$(dirname "$0")/../.." || exit 1
. tests/realworld/lib.sh

command -v groff >/dev/null || skip "no groff (Debian package groff)"
command -v man >/dev/null || skip "no man (Debian package man-db)"

W=$top/build/tests/realworld/man
mkdir -p "$W"

for page in patcher/repstos.1 plugin/repstos-cc.1 runtime/repstos.7; do
	name=$(basename "$page")
	if [ ! -f "$page" ]; then
		fail "$page does not exist (make install installs it)"
		continue
	fi
	groff -ww -man -Tutf8 "$page" >"$W/$name.groff" 2>"$W/$name.warn"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$W/$name.warn" ]; then
		fail "$page: groff -ww exit $rc, $(wc -l <"$W/$name.warn") warning lines:"
		head -n 10 "$W/$name.warn" | sed 's/^/    /'
		continue
	fi
	MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$page" >"$W/$name.txt" 2>"$W/$name.man.err"
	rc=$?
	title=${name%.*}
	if [ $rc -ne 0 ] || [ -s "$W/$name.man.err" ]; then
		fail "$page: man -l exit $rc: $(head -n 3 "$W/$name.man.err")"
		continue
	fi
	if ! grep -q '^NAME' "$W/$name.txt" ||
	   ! sed -n '/^NAME/,/^[A-Z]/p' "$W/$name.txt" | grep -q "$title"; then
		fail "$page: man -l shows no NAME section naming $title"
		continue
	fi
	wide=$(awk 'length($0) > 80' "$W/$name.txt" | wc -l)
	[ "$wide" -eq 0 ] || { fail "$page: $wide rendered lines wider than 80 columns"; continue; }
	ok "$page: no groff warning; man -l renders $(wc -l <"$W/$name.txt") lines at 80 columns"
done
finish
