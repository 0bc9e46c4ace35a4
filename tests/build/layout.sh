#!/bin/sh
# Proves: every folder says what it is and includes only what its README allows.
# Each source folder of the tree opens with a README.md whose "May
# include:" line lists the folders its sources may include from
# (include/ runtime/policy/ ...; "nothing of the tree"; "anything").
# For every #include "..." of every .c, .h and .S file there, the header
# must be the folder's own or lie in a listed folder; a header not in
# the tree (system, GCC's) is not ours to check, but for one rule: in
# plugin/, GCC's headers are read by plugin/gcc-compat.h alone, so that
# what moves between GCC versions is met in one file.  So the layout the
# READMEs describe is the layout the code has.
. "$(dirname "$0")/../lib.sh"

folders="include runtime/routines runtime/module runtime/startup
	runtime/policy patcher plugin bench bench/real examples kernel
	kernel/test"

# allowed FOLDER: the folders its README lets it include from, or "*".
allowed() {
	line=$(grep -m1 '^May include:' "$1/README.md" 2>/dev/null) || return 1
	case $line in
	*anything*) echo '*' ;;
	*) echo "$line" | tr ' ' '\n' | sed -n 's|^\([a-z/]*[a-z]\)/\{0,1\}$|\1|p' |
		grep -v '^May$' | grep '/\|^include$' || true ;;
	esac
}

# where NAME FILE: the folder of the header FILE's #include "NAME" reads,
# as the build's -Iinclude -Iruntime -Ibench find it; nothing when it is
# not in the tree.
where() {
	d=$(dirname "$2")
	for p in "$d/$1" "include/$1" "runtime/$1" "bench/$1"; do
		[ -f "$p" ] && { dirname "$p"; return; }
	done
}

for f in $folders; do
	[ -f "$f/README.md" ] || { fail "$f has no README.md saying what it is"; continue; }
	ok_list=$(allowed "$f") || { fail "$f/README.md has no 'May include:' line"; continue; }
	[ "$ok_list" = '*' ] && { ok "$f may include anything"; continue; }
	bad=0 n=0
	for src in $(ls "$f"/*.c "$f"/*.h "$f"/*.S 2>/dev/null); do
		for name in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$src"); do
			at=$(where "$name" "$src")
			[ -n "$at" ] || continue
			n=$((n + 1))
			[ "$at" = "$f" ] && continue
			echo "$ok_list" | grep -qx "$at" && continue
			fail "$src includes $name from $at/, which $f/README.md does not allow"
			bad=1
		done
	done
	from=$(echo $ok_list)
	[ $bad = 0 ] && ok "$f: $n includes, each its own or from: ${from:-nothing else}"
done
# plugin/: no file but gcc-compat.h reads a header from outside the tree
bad=0
for src in plugin/*.c plugin/*.h; do
	[ "$src" = plugin/gcc-compat.h ] && continue
	for name in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*["<]\([^">]*\)[">].*/\1/p' "$src"); do
		[ -n "$(where "$name" "$src")" ] && continue
		fail "$src includes $name, a header from outside the tree: GCC's go through plugin/gcc-compat.h"
		bad=1
	done
done
[ $bad = 0 ] && ok "plugin/: GCC's headers read by gcc-compat.h alone"
finish
