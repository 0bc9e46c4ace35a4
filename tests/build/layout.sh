#!/bin/sh
# Proves: every folder says what it is and includes only what its README allows, no two folders may include each other round a circle, and nothing outside bench/ includes from it.
# Each source folder of the tree opens with a README.md whose "May
# include:" line lists the folders its sources may include from
# (include/ runtime/policy/ ...; "nothing of the tree"; "anything").
# For every #include "..." of every .c, .cc, .h and .S file there, the header
# must be the folder's own or lie in a listed folder; a header not in
# the tree (system, GCC's) is not ours to check, but for one rule: in
# plugin/, GCC's headers are read by plugin/gcc-compat.h alone, so that
# what moves between GCC versions is met in one file (kernel mode's
# plain C, which the LLVM pass shares, reads the C library's alone; and
# in plugin/llvm/, LLVM's by repstos-llvm.h alone).  So the layout the
# READMEs describe is the layout the code has.  Two rules on top:
#  - the folders the READMEs allow may not form a circle (module/ may
#    include startup/ and startup/ module/): a circle is two parts that
#    cannot be read, built or changed one without the other.  The
#    allowed folders bound the included ones, so this rules out a circle
#    of includes too;
#  - no file outside bench/ includes from it, by any path: the tool and
#    the runtime ship, the benchmarks do not.
# First the rules are shown a tree made here that breaks each once, so
# that a check that finds nothing fails too.
. "$(dirname "$0")/../lib.sh"

folders="include runtime runtime/routines runtime/module runtime/startup
	runtime/policy patcher patcher/dists plugin plugin/llvm bench bench/real examples
	kernel kernel/test"

# allowed FOLDER: the folders its README lets it include from, one a
# line ("include/ runtime/policy/": the words that end in a slash), or
# "*".
allowed() {
	line=$(grep -m1 '^May include:' "$1/README.md" 2>/dev/null) || return 1
	case $line in
	*anything*) echo '*' ;;
	*) echo "${line#May include:}" | tr ' ' '\n' |
		sed -n 's|^\([a-z][a-z/]*[a-z]\)/$|\1|p' ;;
	esac
}

# where NAME FILE: the folder of the header FILE's #include NAME reads,
# as the build's -Iinclude -Iruntime (-Ipatcher, -Ibench for the
# benchmarks) find it, "../" read as the folder above (plugin/llvm's
# "../kmode.h" is plugin/'s); nothing when it is not in the tree.
where() {
	d=$(dirname "$2")
	for p in "$d/$1" "include/$1" "runtime/$1" "patcher/$1" "bench/$1"; do
		[ -f "$p" ] && { dirname "$(realpath -m --relative-to=. "$p")"; return; }
	done
}

# includes FILE: the headers FILE includes, "..." or <...>, one a line.
includes() {
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*["<]\([^">]*\)[">].*/\1/p' "$1"
}

# own_includes FOLDER...: each folder's includes against its README.
own_includes() {
	for f in "$@"; do
		[ -f "$f/README.md" ] || { fail "$f has no README.md saying what it is"; continue; }
		ok_list=$(allowed "$f") || { fail "$f/README.md has no 'May include:' line"; continue; }
		[ "$ok_list" = '*' ] && { ok "$f may include anything"; continue; }
		bad=0 n=0
		for src in $(ls "$f"/*.c "$f"/*.cc "$f"/*.h "$f"/*.S 2>/dev/null); do
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
}

# no_circle FOLDER...: the folders' allowances, as tsort's pairs, form
# no circle.
no_circle() {
	pairs=$(for f in "$@"; do
		to=$(allowed "$f") || continue
		[ "$to" = '*' ] && continue
		echo "$f $f"
		for t in $to; do echo "$f $t"; done
	done)
	if loop=$(echo "$pairs" | tsort 2>&1 >/dev/null) && [ -z "$loop" ]; then
		ok "no circle: no folder may include, through others, one that may include it"
	else
		fail "a circle of folders that may include each other: $(echo "$loop" |
			sed -n 's/^tsort: \([^ ]*\)$/\1/p' | tr '\n' ' ' | sed 's/ $//')"
	fi
}

# outside_bench: no file outside bench/ (and build/) includes a header
# that lies in bench/ or under it.
outside_bench() {
	bad=0 n=0
	for src in $(find . \( -path ./bench -o -path ./build -o -path ./.git \) -prune -o \
			\( -name '*.c' -o -name '*.h' -o -name '*.S' -o -name '*.cc' \) \
			-type f -print | sed 's|^\./||' | sort); do
		n=$((n + 1))
		for name in $(includes "$src"); do
			case $(where "$name" "$src") in
			bench|bench/*)
				fail "$src includes $name from $(where "$name" "$src")/: only bench/ may"
				bad=1 ;;
			esac
		done
	done
	[ $bad = 0 ] && ok "none of the $n sources outside bench/ includes from it"
}

# ---- a made tree that breaks each rule once -----------------------------
# $r/one and $r/two may include each other; other/t.c includes bench.h.
scratch
t=$W/t r=runtime
mkdir -p "$t/$r/one" "$t/$r/two" "$t/bench" "$t/other"
echo "May include: include/ $r/two/" > "$t/$r/one/README.md"
echo "May include: $r/one/" > "$t/$r/two/README.md"
echo 'May include: anything in the tree.' > "$t/bench/README.md"
echo '#include "two/b.h"' > "$t/$r/one/a.c"
echo '#include "one/a.h"' > "$t/$r/two/b.h"
: > "$t/$r/one/a.h"
: > "$t/bench/bench.h"
printf '#include <stdio.h>\n#include "bench.h"\n' > "$t/other/t.c"
out=$(cd "$t" || exit 1
	own_includes $r/one $r/two bench
	no_circle $r/one $r/two bench
	outside_bench)
n=$(echo "$out" | grep -c '^FAIL')
echo "$out" | grep -q "^FAIL: a circle of folders .*$r/one" &&
echo "$out" | grep -q '^FAIL: other/t.c includes bench.h from bench/' && [ "$n" = 2 ] &&
	ok "a made tree: its circle and its include from bench/ found, and nothing else" ||
	fail "a made tree: not just its circle and its include from bench/: $out"

# ---- the tree -------------------------------------------------------------
own_includes $folders
no_circle $folders
outside_bench
# plugin/: no file but gcc-compat.h reads a header from outside the tree;
# kernel mode's plain C (kmode.h and the files that include it and not
# plugin.h), which the LLVM pass compiles in too, the C library's alone
libc="stdarg.h stdbool.h stddef.h stdio.h stdlib.h string.h unistd.h"
bad=0
for src in plugin/*.c plugin/*.h; do
	[ "$src" = plugin/gcc-compat.h ] && continue
	plain=0
	{ [ "$src" = plugin/kmode.h ] || { grep -q '^#include "kmode.h"' "$src" &&
		! grep -q '^#include "plugin.h"' "$src"; }; } && plain=1
	for name in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*["<]\([^">]*\)[">].*/\1/p' "$src"); do
		[ -n "$(where "$name" "$src")" ] && continue
		[ $plain = 1 ] && echo " $libc " | grep -q " $name " && continue
		fail "$src includes $name, a header from outside the tree: GCC's go through plugin/gcc-compat.h"
		bad=1
	done
done
[ $bad = 0 ] && ok "plugin/: GCC's headers read by gcc-compat.h alone, kernel mode's plain C the C library's alone"
# plugin/llvm/: LLVM's headers read by repstos-llvm.h alone, likewise
bad=0
for src in plugin/llvm/*.cc plugin/llvm/*.h; do
	[ "$src" = plugin/llvm/repstos-llvm.h ] && continue
	for name in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*["<]\(llvm\/[^">]*\)[">].*/\1/p' "$src"); do
		fail "$src includes $name: LLVM's headers go through plugin/llvm/repstos-llvm.h"
		bad=1
	done
done
[ $bad = 0 ] && ok "plugin/llvm/: LLVM's headers read by repstos-llvm.h alone"
finish
