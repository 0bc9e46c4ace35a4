#!/bin/sh
# headers.sh VERSION - the few files of Linux VERSION's source that say
# how its alternatives are laid out, unpacked from Debian's
# linux-source-VERSION (kernel/getdeb.sh) into $REPSTOS_CACHE/headers/
# and printed as a folder: arch/x86/include/asm/alternative.h and
# cpufeatures.h (struct alt_instr, ALT_NOT, the feature bits),
# linux/objtool.h, annotate.h and objtool_types.h under its include/ (objtool's
# annotation section and its types), and objtool's own alt_instr size (special.h).  The plugin
# finds the first two through -I DIR/arch/x86/include as the kernel
# passes it; the unit tests build against them.  Exit 3, with the
# reason on stderr, when the package cannot be had.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
v=$1
cache=${REPSTOS_CACHE:-$HOME/.cache/repstos}
dir=$cache/headers/linux-$v
[ -f "$dir/.repstos-headers-2" ] && { echo "$dir"; exit 0; }
# One unpacking at a time: make test runs two tests at once, and on an
# empty cache both came here for the same version; the second's rm -rf
# took the first's folder away while it unpacked into it.
mkdir -p "$cache/headers"
exec 9>"$cache/headers/.linux-$v.lock"
flock 9
[ -f "$dir/.repstos-headers-2" ] && { echo "$dir"; exit 0; }
deb=$("$top/kernel/getdeb.sh" "$v") || exit 3
rm -rf "$dir" "$dir.tmp"
mkdir -p "$dir.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -O --wildcards '*/linux-source-*.tar.xz' |
	tar -xJ -C "$dir.tmp" --strip-components=1 --wildcards \
		"linux-source-$v/arch/x86/include/asm/alternative.h" \
		"linux-source-$v/arch/x86/include/asm/cpufeatures.h" \
		"linux-source-$v/include/linux/objtool.h" \
		"linux-source-$v/include/linux/annotate.h" \
		"linux-source-$v/include/linux/objtool_types.h" \
		"linux-source-$v/tools/objtool/arch/x86/include/arch/special.h" \
		2>/dev/null || true
[ -f "$dir.tmp/arch/x86/include/asm/alternative.h" ] || {
	echo "headers.sh: no arch/x86/include/asm/alternative.h in $(basename "$deb")" >&2
	exit 3
}
touch "$dir.tmp/.repstos-headers-2"
mv "$dir.tmp" "$dir"
echo "$dir"
