# SPDX-License-Identifier: MIT
# tests/patcher/lib.sh - the patcher tests' helpers on top of tests/lib.sh:
# paths, expect_rc, and the test inputs built from tests/patcher/src with
# runtime/librepstos.a.
#
# REPSTOS_TOOL overrides the tool (tests/patcher/asan.sh runs every test
# with the sanitizer build).  Each test works in its own directory under
# build/patcher-tests/, kept when something failed.

set -u
. "$(dirname "$0")/../lib.sh"
TOP=$top
TOOL=${REPSTOS_TOOL:-$TOP/patcher/repstos}
RTLIB=$TOP/runtime/librepstos.a
SRC=$TOP/tests/patcher/src
POKE="python3 $TOP/tests/patcher/elfpoke.py"
PLUGIN=$TOP/plugin/repstos.so
# Per run: several checkouts' `make test` may share this tree's build/.
W=$TOP/build/patcher-tests/$NAME${REPSTOS_TOOL:+-$(basename "$(dirname "$REPSTOS_TOOL")")}.$$
CFLAGS="-O2 -g -I$TOP/include -I$TOP/runtime"

need "$TOOL" "$RTLIB" "$PLUGIN"
mkdir -p "$W"

# The work directory stays only when something failed, to look at.
trap '[ "$fails" -ne 0 ] && echo "inputs and outputs kept in $W" || rm -rf "$W"' EXIT

# assert DESCRIPTION COMMAND...: the command must succeed.
assert() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

# expect_rc RC DESCRIPTION COMMAND...: run, keep output in $OUT/$ERR.
expect_rc() {
	local want=$1 what=$2 rc
	shift 2
	"$@" >"$W/out" 2>"$W/err"
	rc=$?
	OUT=$(cat "$W/out")
	ERR=$(cat "$W/err")
	if [ "$rc" -eq "$want" ]; then
		ok "$what (exit $rc)"
	else
		fail "$what: exit $rc, wanted $want"
		sed 's/^/    | /' "$W/out" "$W/err" | head -20
	fi
}

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
