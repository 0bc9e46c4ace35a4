#!/bin/sh
# Proves: the installed man pages format without a warning, fit 80 columns, and name every routine, CPU profile, plugin option and run-time variable there is.
# The man pages `make install` installs: each must exist, format with no
# warning at all under `groff -ww -man -Tutf8` (every warning category:
# bad macros, unbreakable lines, missing fonts...), and render through
# `man -l` at MANWIDTH=80 with a NAME line naming the page, nothing on
# stderr, and no line wider than 80 columns.
. "$(dirname "$0")/lib.sh"

command -v groff >/dev/null || skip "no groff (Debian package groff)"
command -v man >/dev/null || skip "no man (Debian package man-db)"

scratch

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

# Every name a registry holds is in the pages that list such names: the
# routines (the contract's X-macro lists) in repstos(1) and repstos(7),
# the CPU profiles (the tool's --help, printed from the policy's table)
# in repstos(1), the plugin's options (the keys plugin/options.c parses)
# in repstos(7) and repstos-cc(1), the run-time variables (what the
# runtime reads) in repstos(7) and repstos-cc(1).  A page's source, its
# escapes taken out, must hold each as a word.
words() { sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\(..//g; s/\\//g' "$1"; }
documents() {
	what=$1 list=$2; shift 2
	for page in "$@"; do
		missing=""
		for w in $list; do
			words "$page" | grep -q -w -- "$w" || missing="$missing $w"
		done
		[ -z "$missing" ] && ok "$page names every $what ($(echo $list | wc -w))" ||
			fail "$page misses $what:$missing"
	done
}
routines="$(variants) $(variants copy)"
documents "routine" "$(echo $routines | tr ' ' '\n' | sort -u)" \
	patcher/repstos.1 runtime/repstos.7
documents "CPU profile" "$("$TOOL" --help | sed -n 's/.*or a CPU: *//p')" \
	patcher/repstos.1
keys=$(grep -o 'strcmp(key, "[a-z-]*")' plugin/options.c | sed 's/.*"\(.*\)".*/\1/' | sort -u)
[ -n "$keys" ] || fail "no plugin option found in plugin/options.c"
documents "plugin option" "$keys" runtime/repstos.7 plugin/repstos-cc.1
envs=$(grep -oh '"REPSTOS_[A-Z_]*"' runtime/*/*.c | tr -d '"' | sort -u)
[ -n "$envs" ] || fail "no REPSTOS_ variable found in runtime/"
documents "run-time variable" "$envs" runtime/repstos.7 plugin/repstos-cc.1
finish
