# SPDX-License-Identifier: MIT
# tests/patcher/lib.sh - what the patcher tests alone need, on top of
# tests/lib.sh (which has TOOL, RTLIB, PLUGIN, POKE, assert, expect_rc):
# their compile flags, the test inputs built from tests/patcher/src with
# the runtime archive, and the sites a source marks.  Every patcher test
# works in its scratch folder $W (kept when something failed).
#
# REPSTOS_TOOL overrides the tool (tests/patcher/asan.sh runs every test
# with the sanitizer build).

set -u
. "$(dirname "$0")/../lib.sh"
SRC=$top/tests/patcher/src
CFLAGS="-O2 -g -I$top/include -I$top/runtime"

need "$TOOL" "$RTLIB" "$PLUGIN"
scratch

# Build every input: objects, a non-PIE executable, a PIE, a shared
# object and a PIE that uses it.  GCC's own `rep stosq` expansions (with
# -mstringop-strategy=rep_8byte) are in there too, and are not sites.
build_inputs() {
	local d=$W/in
	mkdir -p "$d"
	gcc $CFLAGS -mstringop-strategy=rep_8byte -c "$SRC/sites.c" -o "$d/sites.o" &&
	gcc $CFLAGS -c "$SRC/main.c" -o "$d/main.o" &&
	gcc $CFLAGS -fPIC -c "$SRC/lib.c" -o "$d/lib.o" &&
	gcc -no-pie -o "$d/exe" "$d/main.o" "$d/sites.o" "$RTLIB" &&
	gcc -pie -o "$d/pie" "$d/main.o" "$d/sites.o" "$RTLIB" &&
	gcc -shared -o "$d/lib.so" "$d/lib.o" "$RTLIB" &&
	gcc -pie -o "$d/pielib" "$d/main.o" "$d/sites.o" "$d/lib.so" "$RTLIB" \
		-Wl,-rpath,"$d" || { fail "cannot build the inputs"; finish; }
	gcc $CFLAGS -fplugin="$PLUGIN" -c "$SRC/plugin.c" -o "$d/plugin.o" &&
	gcc -shared -o "$d/plugin.so" "$d/plugin.o" "$RTLIB" ||
		{ fail "cannot build the plugin inputs"; finish; }
	IN=$d
}

# "line function" for every site marked in a source file.
expected_sites() {
	grep -n 'site: ' "$1" | sed 's/^\([0-9]*\):.*site: \([a-z_0-9]*\).*/\1 \2/'
}
