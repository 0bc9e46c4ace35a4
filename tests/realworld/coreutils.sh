#!/bin/sh
# Proves: Debian's coreutils built with repstos-cc and -D_FORTIFY_SOURCE=2 fails no test of its `make check` that the plain build passes.
#
#   tests/realworld/coreutils.sh        (or: make realworld-coreutils)
#
# Debian's coreutils source package (apt-get source, cached under
# build/realworld/), configured with dpkg-buildflags' flags (-g -O2
# -fstack-protector-strong ..., CPPFLAGS -D_FORTIFY_SOURCE=2: a memset
# or memcpy GCC cannot prove in bounds is a __memset_chk, which the
# plugin turns into a checked site), in two directories:
#
#   repstos  CC=plugin/repstos-cc, repstos-cc's defaults (build-coreutils):
#            memset sites; built with make -j2 and tested with
#            `make -k -j2 check` (some 630 tests of the programs and 370
#            of gnulib);
#   plain    CC=gcc (build-coreutils-plain): configured beside the
#            repstos tree (configure runs on one core), built only when
#            the repstos build failed a test, to run those tests again
#            (gnulib's test programs only when one of them is gnulib's).
#
# Some tests fail on a given machine whatever the compiler (a kernel or
# file system without some feature), so the bar is the plain build: the
# repstos build fails if it fails any test (by name, from each test's
# .trs result: FAIL, ERROR or XPASS) that the plain build, running it
# again alone, passes.  Both lists are printed, and the sites summed
# over the programs in src/, which must be more than 0; `repstos check`
# runs on each program.
#
# The tests run the way coreutils' README asks: `make check` as an
# unprivileged user (nobody; as root, 41 tests skip themselves "must be
# run as non-root"), then `make check-root` as root (its 33 root-only
# tests, which skip as nobody).  The builds run as root (configure is
# told FORCE_UNSAFE_CONFIGURE=1), then the build directory is handed to
# that user; a tree it cannot reach (a clone under /root) builds under
# /var/tmp.  Run as another user than root, `make check` alone.
#
# The plain build runs its tests each time rather than from a cached
# list of its failures, which would go stale with the machine (kernel,
# file systems); but only the tests the repstos build failed, which
# took the suite from 30 minutes to some 18 on 2 cores.
#
# Exit 77 when apt cannot fetch the source (with the reason).  Logs in
# each build directory: configure.log, build.log, check.log,
# check-root.log, and each test's own log beside its .trs (in the
# scratch folder, kept when something failed, or with KEEP=1).
. "$(dirname "$0")/lib.sh"
serialize coreutils

need "$PLUGIN" "$RTLIB" "$TOOL" "$RCC"

# `make check` runs as $TUSER when this runs as root (user_source).
root=0 who=$(id -un)
[ "$(id -u)" -ne 0 ] || root=1 who=$TUSER
user_source coreutils ./tests/init.sh

# Debian's flags, as dpkg-buildflags gives them for this source; the
# two this test is about are added should they ever be missing.
CFLAGS_DEB=$(cd "$src" && dpkg-buildflags --get CFLAGS)
CPPFLAGS_DEB=$(cd "$src" && dpkg-buildflags --get CPPFLAGS)
LDFLAGS_DEB=$(cd "$src" && dpkg-buildflags --get LDFLAGS)
case " $CFLAGS_DEB " in *" -O2 "*) ;; *) CFLAGS_DEB="$CFLAGS_DEB -O2" ;; esac
case " $CPPFLAGS_DEB " in
*" -D_FORTIFY_SOURCE=2 "*) ;;
*) CPPFLAGS_DEB="$CPPFLAGS_DEB -D_FORTIFY_SOURCE=2" ;;
esac
echo "CFLAGS='$CFLAGS_DEB' CPPFLAGS='$CPPFLAGS_DEB' LDFLAGS='$LDFLAGS_DEB'"

# The failed tests under build directory $1, one a line, sorted: every
# .trs whose result is FAIL, ERROR or XPASS, named by its path there
# (tests/misc/foo, gnulib-tests/test-bar).
failing() {
	(cd "$1" && find . -name '*.trs' -exec grep -l -E '^:test-result: (FAIL|ERROR|XPASS)' {} + |
		sed 's|^\./||; s|\.trs$||' | sort)
}
# What the .trs files under $1 say, counted: "N tests: N PASS, ...".
counts() {
	(cd "$1" && find . -name '*.trs' -exec cat {} + | sed -n 's/^:test-result: //p' |
		awk '{ n[$1]++; t++ } END { printf "%d tests: %d PASS, %d FAIL, %d ERROR, %d SKIP, %d XFAIL, %d XPASS",
			t, n["PASS"], n["FAIL"], n["ERROR"], n["SKIP"], n["XFAIL"], n["XPASS"] }')
}
# The list $2 on one line, after its name $1 and count.
show_list() { echo "$1: $(echo $2 | wc -w) failing: $(echo ${2:-none})"; }

# configure NAME DIR CC: DIR made afresh and configured; 1 (the log's
# end shown) when configure failed.  No fail() here: one of these runs
# in the background.
configure() {
	t=$(now)
	rm -rf "$2" && mkdir -p "$2" || { echo "coreutils ($1): cannot mkdir $2"; return 1; }
	# configure refuses root (its mknod probe could make a device)
	# unless told it is meant.
	if ! (cd "$2" && FORCE_UNSAFE_CONFIGURE=1 "$src/configure" CC="$3" \
			CFLAGS="$CFLAGS_DEB" CPPFLAGS="$CPPFLAGS_DEB" LDFLAGS="$LDFLAGS_DEB") \
			>"$2/configure.log" 2>&1; then
		echo "coreutils ($1): configure failed"; tail_log "$2/configure.log"
		return 1
	fi
	echo "coreutils ($1): configure: $(($(now) - t)) s"
}

# make_tree NAME DIR [no-gnulib]: make -j2, with the tests' own programs
# (gnulib's, built here and not by the user the tests run as, who may not
# read the plugin) unless no-gnulib; then DIR is handed to that user.
# Fails the test and returns 1 when a step failed.
make_tree() {
	t=$(now)
	if ! make -C "$2" -j2 >"$2/build.log" 2>&1 ||
	   { [ "${3:-}" != no-gnulib ] &&
	     ! make -C "$2/gnulib-tests" -j2 check TESTS= >>"$2/build.log" 2>&1; }; then
		fail "coreutils ($1): make"; tail_log "$2/build.log"; return 1
	fi
	echo "coreutils ($1): make -j2$([ "${3:-}" = no-gnulib ] || echo " (and gnulib's test programs)"): $(($(now) - t)) s"
	if [ $root -eq 1 ] && ! chown -R "$TUSER:$(id -g "$TUSER")" "$2"; then
		fail "coreutils ($1): chown $2 to $TUSER"; return 1
	fi
}

# check_tree NAME DIR: every test, `make -k -j2 check` as the user (-k:
# the gnulib tests come after the programs' in SUBDIRS, and run even
# when one of those fails), then check-root as root.
check_tree() {
	b=$2 t=$(now)
	(cd "$b" && as_user make -k -j2 check) >"$b/check.log" 2>&1
	rc=$?
	echo "coreutils ($1): make -k -j2 check as $who: $(($(now) - t)) s, exit $rc"
	if [ $root -eq 1 ]; then
		t=$(now)
		make -C "$b" -k -j2 check-root >"$b/check-root.log" 2>&1
		rc=$?
		echo "coreutils ($1): make -k -j2 check-root as root: $(($(now) - t)) s, exit $rc"
	fi
	echo "coreutils ($1): $(counts "$b")"
}

# A test of the programs as the top Makefile's TESTS names it:
# failing()'s name with the script's extension (its TEST_EXTENSIONS,
# which the .trs drops), or bare.  gnulib's keep theirs in the .trs name
# (their TEST_EXTENSIONS are others).
test_name() {
	for x in .sh .pl .xpl; do
		[ -e "$src/$1$x" ] && { echo "$1$x"; return; }
	done
	echo "$1"
}

# recheck DIR TEST...: the named tests (as failing() names them) run
# again in DIR, as check and check-root would run them: gnulib's in
# gnulib-tests, root_tests as root, the rest as the user.
recheck() {
	d=$1 b=$1 t=$(now)
	shift
	roots=" $(printf 'print-root-tests:\n\t@echo $(root_tests)\n' |
		make -s --no-print-directory -C "$d" -f Makefile -f - print-root-tests) "
	gnulib= top_root= top_user=
	for n in "$@"; do
		case $n in
		gnulib-tests/*) gnulib="$gnulib ${n#gnulib-tests/}"; continue ;;
		esac
		n=$(test_name "$n")
		case $roots in
		*" $n "*) top_root="$top_root $n" ;;
		*) top_user="$top_user $n" ;;
		esac
	done
	{
		[ -z "$top_user" ] ||
			(cd "$d" && as_user make -k check SUBDIRS=. TESTS="$top_user")
		[ -z "$gnulib" ] ||
			(cd "$d/gnulib-tests" && as_user make -k check TESTS="$gnulib")
		[ -z "$top_root" ] || [ $root -eq 0 ] ||
			make -C "$d" -k check SUBDIRS=. TESTS="$top_root"
	} >"$d/recheck.log" 2>&1
	echo "coreutils (plain): $# tests again: $(($(now) - t)) s; $(counts "$d")"
}

# ---- configure both; the repstos build and its tests ---------------------
PB=$W/build-coreutils-plain
RB=$W/build-coreutils
configure plain "$PB" gcc >"$W/configure-plain.out" 2>&1 &
plain_pid=$!
configure repstos "$RB" "$RCC" || fail "coreutils (repstos): configure"
wait $plain_pid
plain_configured=$?
cat "$W/configure-plain.out"
[ $fails -eq 0 ] && make_tree repstos "$RB" ||
	{ echo "total: $(($(now) - t0)) s"; finish; }
check_tree repstos "$RB"
repstos_failing=$(failing "$RB")
show_list "coreutils (repstos)" "$repstos_failing"

# The sites of every program in src/, summed; each must pass check.
total=0 files=0 tabled=0
for f in $(linked_elf_files "$RB/src"); do
	files=$((files + 1))
	n=$(sites "$f")
	total=$((total + n))
	[ "$n" -eq 0 ] || tabled=$((tabled + 1))
	out=$("$TOOL" check "$f" 2>&1) ||
		fail "coreutils: repstos check ${f#"$RB"/}: $(echo "$out" | head -n 3)"
done
echo "coreutils (repstos): $total sites in $tabled of $files programs in src/ ($(op_counts "$RB/src/ls") in ls)"
[ $total -gt 0 ] || fail "coreutils: no sites in src/: the plugin never ran"

# ---- plain: the tests the repstos build failed, again --------------------
# (a test that did not run again there proves nothing: it counts as one
# the plain build passes)
plain_failing= plain_ran=0
if [ -z "$repstos_failing" ]; then
	echo "coreutils (plain): not built: the repstos build failed no test"
elif [ $plain_configured -ne 0 ]; then
	fail "coreutils (plain): configure"
elif make_tree plain "$PB" $(echo "$repstos_failing" | grep -q '^gnulib-tests/' ||
		echo no-gnulib); then
	recheck "$PB" $repstos_failing
	plain_ran=1
	plain_failing=$(failing "$PB")
	show_list "coreutils (plain, those tests again)" "$plain_failing"
fi

# Only the tests the plain build passes count.
new=$(echo "$repstos_failing" | while read -r t; do
	[ -n "$t" ] || continue
	echo "$plain_failing" | grep -qxF "$t" || echo "$t"
done)
if [ -n "$new" ] && [ $plain_ran -eq 0 ]; then
	note "the plain build did not run them again (above): none compared"
elif [ -n "$new" ]; then
	for t in $new; do
		fail "coreutils: $t fails with repstos-cc, passes plain"
		tail -n 10 "$RB/$t.log" 2>/dev/null | sed 's/^/    /'
	done
else
	ok "coreutils: the repstos build fails no test the plain build passes"
fi

echo "total: $(($(now) - t0)) s"
finish
