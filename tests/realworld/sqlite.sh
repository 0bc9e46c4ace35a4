#!/bin/sh
# Proves: Debian's sqlite3 built with repstos-cc, memset sites alone and with copy sites too, passes sqlite's `make quicktest` (the memset build half of it when both run) with 0 errors.
#
#   tests/realworld/sqlite.sh [memset] [copy] [plain]  (make realworld-sqlite:
#                                                  memset and copy)
#
# Debian's sqlite3 source package (apt-get source, cached under
# build/realworld/), built with its own configure and Makefile,
# CC=plugin/repstos-cc, and tested with its Tcl suite's `make quicktest`
# (test/extraquick.test: 254,413 tests in some 2 to 2.5 minutes here).
# sqlite clears and copies pages, cells and records of every size at
# every offset, so a routine that gets some size or alignment wrong
# shows up here as wrong query results, corrupt databases or a crash:
# the 256-byte memset at a page's last 64 bytes that avx512_split left
# partly unwritten (fixed in 44de022) gave 21 errors or a segfault
# (recover1.test); with this script's flags, a segfault within the first
# 20 s of every run (after diskfull.test, temptable.test or
# e_createtable.test: the heap decides), where the plain build gives 0
# errors.  Two builds, each in its own directory:
#
#   memset  repstos-cc's defaults (build-sqlite): memset sites only, no
#           copy site anywhere;
#   copy    CFLAGS -fplugin-arg-repstos-copy too (build-sqlite-copy):
#           memcpy/mempcpy/memmove sites as well;
#   plain   (only when named) CC=gcc, the same flags (build-sqlite-plain):
#           the bar the other two are held to, without a site check.
#
# SQLITE_CC=clang-16 makes each build clang's (`make realworld-sqlite
# SQLITE_CC=clang-16`): the LLVM plugin's sites through repstos-cc, the
# plain build by clang-16 alone.
#
# When the copy build runs too (make realworld-sqlite), the memset build
# runs the first half of the suite's files (sqlite's TCLTEST_PART=1/2:
# 555 of its 1,110 files, from ext/ to joinE.test, some 35 s alone),
# while the copy build compiles: the copy build has every memset site
# the memset build has (the same 152 in testfixture) and runs the whole
# suite, so a second whole run of those sites bought 4-5 minutes of CI
# and little else.  Named alone, memset runs the whole suite.
#
# Each must end "0 errors out of N tests"; a missing summary (a crash, a
# Tcl error that stopped the suite), a non-zero count, no site in
# testfixture or libsqlite3.so (the wiring failed), a copy site in the
# memset build or none in the copy build fails.  The sites of
# testfixture, the sqlite3 shell and libsqlite3.so are printed by op, and
# `repstos check` runs on each.
#
# Flags: configure's defaults (-g -O2) with -D_FORTIFY_SOURCE=2, and
# --with-tcl for the test harness.  Not Debian's own -DSQLITE_* set from
# debian/rules: its SQLITE_ALLOW_ROWID_IN_VIEW and others change results
# the suite checks (17 errors out of 305,109 in the plain build), and 0
# errors is the bar here.  Two defines undo what Debian's patches change
# under the suite: -DSQLITE_MAX_DEFAULT_PAGE_SIZE=8192, upstream's value
# (31-increase_SQLITE_MAX_DEFAULT_PAGE_SIZE_to_32k makes it 32768, and
# io-5.5 expects 8192 for a 16K-sector device); -DSQLITE_ENABLE_DBPAGE_
# VTAB for the library (32-dynamic_link links the shell against
# libsqlite3.so, and the shell's .recover, which recover.test runs,
# needs the sqlite_dbpage table upstream compiles into the shell only).
#
# The suites run one after the other, never two at once: two at once on
# this 2-core machine gave "database or disk is full" in wal-20, wal2-8
# and wal64k (and a Tcl error that stopped one suite) in plain builds
# that pass alone.  The next build runs while a suite does.
#
# The suite runs as an unprivileged user (nobody): as root, permissions
# do not stop a write, and the tests that count on them fail.  The
# builds run as root, then the build directory is handed to that user;
# a tree it cannot reach (a clone under /root) builds under /var/tmp.
#
# REPSTOS_TOP=DIR takes the plugin, runtime, repstos-cc and tool from
# another built tree, to show the test catching a bug, e.g. the tree
# before the fix above:
#
#   git archive 44de022~1 | tar -x -C /tmp/oldtree
#   make -C /tmp/oldtree plugin/repstos.so runtime/librepstos.a patcher/repstos
#   REPSTOS_TOP=/tmp/oldtree tests/realworld/sqlite.sh memset   # fails
#
# Needs tcl-dev (`make realworld-sqlite` installs it).  Exit 77 when apt
# cannot fetch the source (with the reason).  Logs in each build
# directory: configure.log, build.log, quicktest.log, test-out.txt (in
# the scratch folder, kept when something failed, or with KEEP=1).
. "$(dirname "$0")/lib.sh"
serialize sqlite

T=$(cd "${REPSTOS_TOP:-$top}" && pwd) || exit 1
RCC=$T/plugin/repstos-cc
TOOL=$T/patcher/repstos
need "$T/plugin/repstos.so" "$T/runtime/librepstos.a" "$TOOL" "$RCC"
[ "$T" = "$top" ] || note "REPSTOS_TOP=$T: its plugin, runtime and tool, not this tree's"

# SQLITE_CC=clang-16: every build by that clang, the two repstos ones
# through repstos-cc with the LLVM plugin (REPSTOS_CC), the plain one
# by the clang itself.
PLAIN_CC=gcc
if [ -n "${SQLITE_CC:-}" ]; then
	command -v "$SQLITE_CC" >/dev/null 2>&1 || skip "SQLITE_CC=$SQLITE_CC: not installed"
	need "$T/plugin/librepstos-llvm.so"
	export REPSTOS_CC=$SQLITE_CC
	PLAIN_CC=$SQLITE_CC
	note "SQLITE_CC=$SQLITE_CC: clang with the LLVM plugin"
fi

MODES=${*:-memset copy}
HALF=
for m in $MODES; do
	case $m in memset|copy|plain) ;; *) echo "usage: $0 [memset] [copy] [plain]"; exit 2 ;; esac
	[ $m != copy ] || HALF=1
done
# How long a quicktest may take before it counts as hung (2.5 min here).
QUICKTEST_SECS=1800
TCL=/usr/lib/$(gcc -print-multiarch)/tcl8.6
[ -r "$TCL/tclConfig.sh" ] ||
	{ echo "FAIL: no $TCL/tclConfig.sh: install tcl-dev (make realworld-sqlite does)"; exit 1; }

# The suite runs as $TUSER when this runs as root (user_source).
user_source sqlite3 ./test/extraquick.test

# The sites of each file the suite runs, by op, and `repstos check` on it.
show_sites() {
	for f in testfixture .libs/sqlite3 .libs/libsqlite3.so.0; do
		[ -e "$b/$f" ] || { fail "sqlite ($mode): $f was not built"; continue; }
		out=$("$TOOL" check "$b/$f" 2>&1) ||
			fail "sqlite ($mode): repstos check $f: $(echo "$out" | head -n 3)"
		note "$f: $(sites "$b/$f") sites ($(op_counts "$b/$f"))"
	done
}

# Sites where they must be, for MODE: some in testfixture and in the
# library; copy sites in copy mode only.
check_sites() {
	for f in testfixture .libs/libsqlite3.so.0; do
		[ -e "$b/$f" ] || continue
		n=$(sites "$b/$f")
		c=$(($(op_count "$b/$f" copy) + $(op_count "$b/$f" move) + $(op_count "$b/$f" move_fwd)))
		[ "$n" -gt 0 ] || { fail "sqlite ($mode): no sites in $f: the plugin never ran"; continue; }
		case $mode in
		memset)	[ $c -eq 0 ] || fail "sqlite ($mode): $f has $c copy sites without $COPY_OPT" ;;
		copy)	[ $c -gt 0 ] || fail "sqlite ($mode): no copy sites in $f with $COPY_OPT" ;;
		esac
	done
}

# The runtime patched testfixture's sites at start-up, as the suite's
# user: its REPSTOS_DEBUG line, without the CPU part.  The report line,
# not the first: a machine with /etc/repstos/tuning gets a line on it
# first (the archive reads no tuning file).
patched() {
	dbg=$(cd "$b" && echo exit | as_user env REPSTOS_DEBUG=1 ./testfixture 2>&1 |
		grep '^repstos: .* patched' | head -n 1)
	echo "$dbg" | grep -q ' patched' ||
		fail "sqlite ($mode): no REPSTOS_DEBUG line from testfixture: $dbg"
	echo "$dbg" | sed 's/^repstos: [^ ]*: cpu [^;]*; /testfixture: /'
}

# compile MODE DIR CC CFLAGS: configure and build in a fresh DIR, the
# logs there; DIR/compiled is left when both went well.  It may run in
# the background (suites below), so it says what failed on its output
# and leaves the verdict to suite.
compile() {
	mode=$1 b=$2 cc=$3 cflags=$4 t=$(now)
	rm -rf "$b" && mkdir -p "$b" || { echo "sqlite ($mode): mkdir $b failed"; return; }
	if ! (cd "$b" && CC=$cc CFLAGS=$cflags CPPFLAGS=-D_FORTIFY_SOURCE=2 \
			"$src/configure" --with-tcl="$TCL") >"$b/configure.log" 2>&1; then
		echo "sqlite ($mode): configure failed"; tail_log "$b/configure.log"; return
	fi
	# testfixture for the suite; the shell, which recover.test and the
	# shell*.test scripts run (with it missing they pass untried).
	if ! make -C "$b" -j2 sqlite3 testfixture >"$b/build.log" 2>&1; then
		echo "sqlite ($mode): make sqlite3 testfixture failed"; tail_log "$b/build.log"; return
	fi
	echo "sqlite ($mode): CC=${cc##*/} CFLAGS='$cflags' configure + make: $(($(now) - t)) s"
	touch "$b/compiled"
}

# suite MODE DIR: the sites compile built, then the quicktest.
suite() {
	mode=$1 b=$2
	[ -e "$b/compiled" ] || { fail "sqlite ($mode): configure + make"; return; }
	[ $mode = plain ] || { show_sites; check_sites; }
	chown -R "$TUSER:$(id -g "$TUSER")" "$b" 2>/dev/null || [ "$(id -u)" -ne 0 ] ||
		{ fail "sqlite ($mode): chown $b to $TUSER"; return; }
	[ $mode = plain ] || patched

	t=$(now)
	part=
	[ $mode != memset ] || [ -z "$HALF" ] || part=1/2
	(cd "$b" && as_user env ${part:+TCLTEST_PART=$part} \
		timeout $QUICKTEST_SECS make quicktest) >"$b/quicktest.log" 2>&1
	rc=$?
	echo "sqlite ($mode): make quicktest${part:+ (TCLTEST_PART=$part)}: $(($(now) - t)) s, exit $rc"
	sum=$(grep -a -E '^[0-9]+ errors out of [0-9]+ tests' "$b/quicktest.log" | tail -n 1)
	if [ -z "$sum" ]; then
		# A crash or a Tcl error ends the suite without its count.
		[ $rc -ne 124 ] || echo "    timed out after $QUICKTEST_SECS s"
		# Where it stopped: the file after the last one to finish, at
		# or a little after the last test test-out.txt names (it is
		# buffered: a crash loses its last lines).
		echo "    last test file to finish: $(grep -a '^Time: ' "$b/quicktest.log" |
			tail -n 1 | cut -d' ' -f2); last test: $(grep -a '^[^ ]*\.\.\.' \
			"$b/test-out.txt" 2>/dev/null | tail -n 1)"
		tail -n 3 "$b/quicktest.log" | sed 's/^/    /'
		fail "sqlite ($mode): make quicktest gave no summary (exit $rc)"
		return
	fi
	n=${sum%% *}
	total=$(echo "$sum" | cut -d' ' -f5)
	echo "sqlite ($mode): ${sum% on *}"
	# A part that ran few tests (TCLTEST_PART misread) proves nothing.
	if [ "$total" -lt 20000 ]; then
		fail "sqlite ($mode): make quicktest ran only $total tests"
	elif [ "$n" -ne 0 ]; then
		grep -a -m 1 '^!Failures on these tests:' "$b/quicktest.log" | sed 's/^/    /'
		fail "sqlite ($mode): make quicktest: ${sum% on *}"
	elif [ $rc -ne 0 ]; then
		tail_log "$b/quicktest.log"
		fail "sqlite ($mode): make quicktest said 0 errors but exited $rc"
	else
		ok "sqlite ($mode): make quicktest: ${sum% on *}"
	fi
}

# Configure's own -g -O2, as a user building sqlite would get it, and
# the two defines above.
BASE="-g -O2 -DSQLITE_MAX_DEFAULT_PAGE_SIZE=8192 -DSQLITE_ENABLE_DBPAGE_VTAB"
dir_of() { case $1 in memset) echo "$W/build-sqlite" ;; *) echo "$W/build-sqlite-$1" ;; esac; }
compile_mode() {
	case $1 in
	memset)	compile memset "$(dir_of memset)" "$RCC" "$BASE" ;;
	copy)	compile copy "$(dir_of copy)" "$RCC" "$BASE $COPY_OPT" ;;
	plain)	compile plain "$(dir_of plain)" "$PLAIN_CC" "$BASE" ;;
	esac
}

# The suites run one after the other (never two at once: above), but
# the next mode compiles while a suite runs: a suite keeps one core
# busy, and a build alone some 100 s of two.
set -- $MODES
compile_mode "$1"
while [ $# -gt 0 ]; do
	m=$1
	shift
	[ $# -eq 0 ] || { compile_mode "$1" & next=$!; }
	suite "$m" "$(dir_of "$m")"
	[ $# -eq 0 ] || wait $next
done

echo "total: $(($(now) - t0)) s"
finish
