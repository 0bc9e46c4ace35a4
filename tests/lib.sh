# tests/lib.sh - the test library: sourced first by every test script
# (POSIX sh; the bash ones too), as `. "$(dirname "$0")/../lib.sh"`, or
# through its folder's lib.sh, which sources this one and adds only what
# that folder alone needs.  It goes to the top of the tree (every test
# runs from there) and gives:
#
# Counting and ending (tests/run-tests reads only the exit status: 0
# pass, 77 skip, anything else fail, and shows a skip's last line)
#   ok WHAT          a check passed
#   fail WHAT        a check failed; the test goes on, finish exits 1
#   note WHAT        something worth saying that is no check
#   skipped WHY      one part cannot run here (a missing CPU feature,
#                    not root); the rest still counts
#   skip WHY         the whole test cannot run here: exit 77 at once
#   need FILE...     what `make` builds for this test: missing is a FAIL
#                    (exit 1), never a skip, since make should have made it
#   finish [WHY]     the count; exit 1 after any failure, else 77 with WHY
#                    on the last line when given (a part that mattered
#                    could not run), else 0
#   assert WHAT CMD...       ok WHAT if CMD succeeds, else fail WHAT
#   expect_rc RC WHAT CMD... CMD must exit RC; its output is kept in
#                    $W/out and $W/err and in $OUT and $ERR (after scratch)
#
# The scratch folder: the one way a test gets a folder to work in
#   scratch          makes a fresh folder, $W, for this test alone:
#                    build/tests/FOLDER/NAME.XXXXXX in the tree (FOLDER
#                    the test's folder, NAME its name);
#   scratch -o       the same outside the tree, ${TMPDIR:-/tmp}/
#                    repstos-NAME.XXXXXX, for a test that needs a folder
#                    no path of the tree's leads to (an installation that
#                    must not name the tree, a package build whose parent
#                    folder is written, a server that must not reach it).
#                    Either is mode 0755: another user a test runs
#                    things as (nobody) can reach what the test makes
#                    readable.  At exit $W is removed, unless a check
#                    failed, the test exited with a status other than 0
#                    or 77, or KEEP=1 is set: then it stays, and its path
#                    is the last line the test prints.  One scratch folder
#                    a test; it makes what it needs inside.
#   at_exit CMD      CMD runs when the test exits (or is stopped by a
#                    signal): the last registered first, the scratch
#                    folder's removal last.  CMD prints nothing (a skip's
#                    reason stays the last line).  A test never sets an
#                    EXIT trap of its own, which would replace these.
#
# Facts several folders ask
#   variants [copy]  the variant names REPSTOS_VARIANT takes
#   has_table FILE   FILE has a site-table section
#   sites FILE       the sites in FILE's table, 0 when it has none
#   field LINE KEY   VALUE of the KEY=VALUE words of a probe's LINE
#
# Where things are (absolute paths)
#   top              the top of the tree
#   PLUGIN           the GCC plugin, plugin/repstos.so
#   RCC              repstos-cc in the tree, plugin/repstos-cc
#   RTLIB            the runtime archive, runtime/librepstos.a
#   TOOL             the ELF tool, patcher/repstos; REPSTOS_TOOL names
#                    another (tests/patcher/asan.sh: the sanitizer build)
#   POKE             tests/patcher/elfpoke.py, run with python3
#   NAME, FOLDER     the test's name (tests/F/N.sh: N) and folder (F)
#   BUILT            build/tests/FOLDER, where FOLDER's test.mk builds
#                    the folder's programs (relative to top)

# The top of the tree, the nearest folder above the script that holds
# this file (tests sit two levels down, benchmarks one); every test runs
# from there.
top=$(cd "$(dirname "$0")" && pwd) || exit 1
here=$top
while [ ! -f "$top/tests/lib.sh" ]; do
	[ "$top" != / ] || { echo "FAIL: $0 is not in the repstos tree"; exit 1; }
	top=$(dirname "$top")
done
cd "$top" || exit 1
FOLDER=${here#"$top"/}
FOLDER=${FOLDER#tests/}
unset here

checks=0 fails=0
NAME=${0##*/}
NAME=${NAME%.sh}
BUILT=build/tests/$FOLDER

PLUGIN=$top/plugin/repstos.so
RCC=$top/plugin/repstos-cc
RTLIB=$top/runtime/librepstos.a
TOOL=${REPSTOS_TOOL:-$top/patcher/repstos}
POKE="python3 $top/tests/patcher/elfpoke.py"

# python3 is Debian's, the one make deps installs (tests/patcher/test.mk),
# by its path when it is there: a python3 earlier in PATH may be a
# version manager's shim (pyenv's costs 0.3 s a start against Debian's
# 0.04 s), and make test starts python some hundreds of times.  POKE and
# every "python3" in a test's shell (its subshells too) find this first.
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
fi

ok() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*"; }
note() { echo "note: $*"; }
skipped() { echo "skipped: $*"; }
skip() { echo "SKIP: $*"; exit 77; }

need() {
	for f in "$@"; do
		[ -e "$f" ] || { echo "FAIL: $f is not built (make builds it for this test)"; exit 1; }
	done
}

finish() {
	echo "$NAME: $checks checks, $fails failed"
	[ "$fails" -eq 0 ] || exit 1
	[ -z "${1:-}" ] || skip "$1"
	exit 0
}

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

# ---- at exit, and the scratch folder ------------------------------------
_exits=
at_exit() {
	_exits="$*${_exits:+
$_exits}"
	trap '_at_exit' EXIT
	# A signal (a closed pipe too: `test.sh | head`) ends the test
	# through the same commands.
	trap 'exit 1' HUP INT PIPE TERM
}
_at_exit() {
	_rc=$?
	eval "$_exits"
}

scratch() {
	[ -z "${_scratch:-}" ] || { echo "FAIL: $NAME: a second scratch folder"; exit 1; }
	if [ "${1:-}" = -o ]; then
		_scratch=$(mktemp -d "${TMPDIR:-/tmp}/repstos-$NAME.XXXXXX")
	else
		mkdir -p "$top/build/tests/$FOLDER" &&
			_scratch=$(mktemp -d "$top/build/tests/$FOLDER/$NAME.XXXXXX")
	fi || { echo "FAIL: $NAME: cannot make a scratch folder"; exit 1; }
	chmod 755 "$_scratch" || exit 1
	W=$_scratch
	at_exit _scratch_end
}
_scratch_end() {
	[ -d "$_scratch" ] || return 0
	if [ "${KEEP:-0}" = 1 ] || [ "$fails" -ne 0 ] ||
	   { [ "$_rc" -ne 0 ] && [ "$_rc" -ne 77 ]; }; then
		echo "scratch folder kept: $_scratch"
	else
		rm -rf "$_scratch"
	fi
}

# ---- facts ----------------------------------------------------------------
# The variant names REPSTOS_VARIANT takes, one a line, as the contract
# header's REPSTOS_VARIANTS(X) lists them (`variants copy`: the copy
# routines', REPSTOS_COPY_VARIANTS), through tests/xlist.sh.
variants() {
	"$top/tests/xlist.sh" "$(echo "${1:+${1}_}" | tr a-z A-Z)VARIANTS" name
}

# True when FILE has a site-table section (the tool reads no 32-bit file).
has_table() {
	readelf -S -W "$1" 2>/dev/null |
		grep -q " $($POKE const REPSTOS_SITES_SECTION) "
}

# The sites in an object or linked file, as `repstos dump --stats` counts
# its table (first line "FILE: KIND, N sites, ..."); 0 when the file has
# no site table (nothing in it was linked with the runtime, or no call
# became a site).  The tool reads the layout from the contract, so no
# test repeats it.  Counted with $TOOL (a test of an installed tree sets
# TOOL to the installed one).
sites() {
	n=$("$TOOL" dump --stats "$1" 2>/dev/null | head -n 1 |
		sed 's/^.*: //' | grep -o '[0-9][0-9]* sites\{0,1\}' | head -n 1)
	echo "${n%% *}" | grep . || echo 0
}

# field LINE KEY: VALUE of the KEY=VALUE words in LINE (a probe's status
# line, tests/runtime/harden.c, tests/policy/probe.c), one a line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
