# tests/lib.sh - sourced by every test script (POSIX sh): the tree, how a
# check is counted, how a test ends, and the facts several folders ask.
# A folder's own lib.sh sources this one and adds only its helpers.
#
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
#
# tests/run-tests reads only the exit status (0 pass, 77 skip, else
# fail) and shows a skip's last line, so skip and finish end with it.

# The top of the tree, the nearest folder above the script that holds
# this file (tests sit two levels down, benchmarks one); every test runs
# from there.
top=$(cd "$(dirname "$0")" && pwd) || exit 1
while [ ! -f "$top/tests/lib.sh" ]; do
	[ "$top" != / ] || { echo "FAIL: $0 is not in the repstos tree"; exit 1; }
	top=$(dirname "$top")
done
cd "$top" || exit 1

checks=0 fails=0
NAME=${0##*/}
NAME=${NAME%.sh}

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

# The variant names REPSTOS_VARIANT takes, one a line, as the contract
# header's REPSTOS_VARIANTS(X) lists them (`variants copy`: the copy
# routines', REPSTOS_COPY_VARIANTS), through tests/xlist.sh.
variants() {
	"$top/tests/xlist.sh" "$(echo "${1:+${1}_}" | tr a-z A-Z)VARIANTS" name
}

# True when FILE has a site-table section (the tool reads no 32-bit file).
has_table() {
	readelf -S -W "$1" 2>/dev/null |
		grep -q " $(python3 "$top/tests/patcher/elfpoke.py" const REPSTOS_SITES_SECTION) "
}

# The sites in an object or linked file, as `repstos dump --stats` counts
# its table (first line "FILE: KIND, N sites, ..."); 0 when the file has
# no site table (nothing in it was linked with the runtime, or no call
# became a site).  The tool reads the layout from the contract, so no
# test repeats it.  $REPSTOS names another tool (an installed one).
sites() {
	n=$("${REPSTOS:-$top/patcher/repstos}" dump --stats "$1" 2>/dev/null | head -n 1 |
		sed 's/^.*: //' | grep -o '[0-9][0-9]* sites\{0,1\}' | head -n 1)
	echo "${n%% *}" | grep . || echo 0
}
