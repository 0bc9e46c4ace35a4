#!/bin/sh
# Proves: the installed man pages format without a warning, fit 80 columns, name every routine, CPU profile, plugin option and run-time variable there is, and give each list of routines or CPU profiles whole.
# The man pages `make install` installs: each must exist, format with no
# warning at all under `groff -ww -man -Tutf8` (every warning category:
# bad macros, unbreakable lines, missing fonts...), and render through
# `man -l` at MANWIDTH=80 with a NAME line naming the page, nothing on
# stderr, and no line wider than 80 columns.
. "$(dirname "$0")/lib.sh"

scratch
pages="patcher/repstos.1 plugin/repstos-cc.1 runtime/repstos.7"
formats=yes
command -v groff >/dev/null || { skipped "formatting: no groff (Debian package groff)"; formats=; }
command -v man >/dev/null || { skipped "formatting: no man (Debian package man-db)"; formats=; }

for page in $pages; do
	name=$(basename "$page")
	if [ ! -f "$page" ]; then
		fail "$page does not exist (make install installs it)"
		continue
	fi
	[ -n "$formats" ] || continue
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
cpus=$("$TOOL" --help | sed -n 's/.*or a CPU: *//p')
[ -n "$cpus" ] || fail "repstos --help lists no CPU profile"
documents "CPU profile" "$cpus" patcher/repstos.1 runtime/repstos.7
keys=$(grep -o 'strcmp(key, "[a-z-]*")' plugin/options.c | sed 's/.*"\(.*\)".*/\1/' | sort -u)
[ -n "$keys" ] || fail "no plugin option found in plugin/options.c"
documents "plugin option" "$keys" runtime/repstos.7 plugin/repstos-cc.1
envs=$(grep -oh '"REPSTOS_[A-Z_]*"' runtime/*/*.c | tr -d '"' | sort -u)
[ -n "$envs" ] || fail "no REPSTOS_ variable found in runtime/"
documents "run-time variable" "$envs" runtime/repstos.7 plugin/repstos-cc.1

# A list a page gives as whole (between '.\" list NAME:' and '.\" end
# list') is the registry's, no name more or less: the variants, the CPU
# profiles, the variants that have a copy routine of their name and
# those that have none.  Its words are the names its .B, .BR and .RB
# lines set, one a line, sorted.
listed() {
	awk -v want="$2" '
		$0 ~ "^\\.\\\\\" list " want ":" { on = 1; n++; next }
		on && /^\.\\" end list/ { on = 0; next }
		on && /^\.(B|BR|RB) / {
			gsub(/\\-/, "-")
			for (i = 2; i <= NF; i++)
				if ($i ~ /^[a-z][a-z0-9_-]*$/)
					print $i
		}
		END { if (!n) print "(no list " want ")" }' "$1" | sort
}
sorted() { echo $* | tr ' ' '\n' | sort; }
copies=$(variants copy)
with=$(for v in $(variants); do echo "$copies" | grep -qx "$v" && echo $v; done)
without=$(for v in $(variants); do echo "$copies" | grep -qx "$v" || echo $v; done)
check_list() {
	page=$1 what=$2; shift 2
	got=$(listed "$page" "$what") want=$(sorted "$@")
	[ "$got" = "$want" ] && ok "$page: its $what list is the registry's ($(echo $want | wc -w))" ||
		fail "$page: its $what list is not the registry's: $(
			echo "$got" | grep -vxF -e "$want" | sed 's/^/+/' | tr '\n' ' ')$(
			echo "$want" | grep -vxF -e "$got" | sed 's/^/-/' | tr '\n' ' ')"
}
check_list patcher/repstos.1 VARIANTS $(variants)
check_list patcher/repstos.1 CPUS $cpus
check_list patcher/repstos.1 VARIANTS_WITH_COPY $with
check_list patcher/repstos.1 VARIANTS_WITHOUT_COPY $without
check_list runtime/repstos.7 VARIANTS $(variants)
check_list runtime/repstos.7 CPUS $cpus
finish
