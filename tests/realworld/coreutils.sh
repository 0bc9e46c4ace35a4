#!/bin/sh
# Proves: Debian's coreutils built with repstos-cc and -D_FORTIFY_SOURCE=2 fails no test of its `make check` that the plain build passes.
#
#   tests/realworld/coreutils.sh        (or: make realworld-coreutils)
#
# Debian's coreutils source package (apt-get source, cached under
# build/realworld/), configured with dpkg-buildflags' flags (-g -O2
# -fstack-protector-strong ..., CPPFLAGS -D_FORTIFY_SOURCE=2: a memset
# or memcpy GCC cannot prove in bounds is a __memset_chk, which the
# plugin turns into a checked site), built with make -j2 and tested with
# `make -k -j2 check` (some 630 tests of the programs and 370 of gnulib),
# twice, each in its own directory:
#
#   plain    CC=gcc (build-coreutils-plain);
#   repstos  CC=plugin/repstos-cc, repstos-cc's defaults (build-coreutils):
#            memset sites.
#
# Some tests fail on a given machine whatever the compiler (a kernel or
# file system without some feature), so the bar is the plain build: the
# repstos build fails if it fails any test the plain build passes (by
# name, from each test's .trs result: FAIL, ERROR or XPASS).  Both lists
# are printed, and the sites summed over the programs in src/, which
# must be more than 0; `repstos check` runs on each program.
#
# The tests run the way coreutils' README asks: `make check` as an
# unprivileged user (nobody; as root, 41 tests skip themselves "must be
# run as non-root"), then `make check-root` as root (its 33 root-only
# tests, which skip as nobody).  The builds run as root (configure is
# told FORCE_UNSAFE_CONFIGURE=1), then the build directory is handed to
# that user; a tree it cannot reach (a clone under /root) builds under
# /var/tmp.  Run as another user than root, `make check` alone.
#
# Both builds and their tests take some 10 minutes on 2 cores, so the
# plain one runs each time rather than a cached list of its failures,
# which would go stale with the machine (kernel, file systems) anyway.
#
# Exit 77 when apt cannot fetch the source (with the reason).  Logs in
# each build directory: configure.log, build.log, check.log,
# check-root.log, and each test's own log beside its .trs (in the
# scratch folder, kept when something failed, or with KEEP=1).
. "$(dirname "$0")/lib.sh"
serialize coreutils

need "$PLUGIN" "$RTLIB" "$TOOL" "$RCC"

# The user `make check` runs as, when this runs as root.
TUSER=nobody
id "$TUSER" >/dev/null 2>&1 || { echo "FAIL: no user $TUSER"; exit 1; }
root=0 who=$(id -un)
[ "$(id -u)" -ne 0 ] || root=1 who=$TUSER
as_user() {
	if [ $root -eq 1 ]; then
		setpriv --reuid="$TUSER" --regid="$(id -g "$TUSER")" --clear-groups \
			env HOME="$b" PATH="${UPATH:-$PATH}" "$@"
	else
		"$@"
	fi
}
# The user's PATH: this one's directories it can search (root's may
# start with /root/...: a command looked up there fails with EACCES,
# 126, where a test expects 127).
UPATH=$(echo "$PATH" | tr : '\n' | while read -r d; do
	as_user test -x "$d/." 2>/dev/null && printf '%s:' "$d"; done)
UPATH=${UPATH%:}

t0=$(now)
mkdir -p "$RW" || exit 1
src=$(fetch_source coreutils 2>"$RW/why-coreutils")
rc=$?
cat "$RW/why-coreutils"
[ $rc -eq 0 ] || skip "cannot fetch the coreutils source package: $(tail -n 1 "$RW/why-coreutils")"
ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version 2>/dev/null)
echo "source (cached in $RW): $(basename "$src"), Debian $ver ($(($(now) - t0)) s)"

# The builds go in the scratch folder, which the user must reach: in the
# tree, or outside it, under /var/tmp (the builds are big: /tmp may be
# a small tmpfs), where the user cannot reach the tree (a clone under
# /root).  The tests read their scripts from the source: then a copy of
# it goes there too.
mkdir -p "$top/$BUILT" || exit 1
if as_user test -x "$top/$BUILT" && as_user test -r "$src/tests/init.sh"; then
	scratch
else
	TMPDIR=/var/tmp scratch -o
	note "$TUSER cannot read $src: building under $W"
	cp -r "$src" "$W/coreutils-src" && chmod -R a+rX "$W/coreutils-src" ||
		{ echo "FAIL: cannot copy the source to $W"; exit 1; }
	src=$W/coreutils-src
fi
b=$W

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

# Show the end of a log after a failed step.
tail_log() { tail -n 15 "$1" | sed 's/^/    /'; }

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

# build NAME DIR CC: configure, make -j2, then the tests.  Sets built
# (0 when a step before the tests failed).
build() {
	name=$1 b=$2 cc=$3 built=0 t=$(now)
	rm -rf "$b" && mkdir -p "$b" || { fail "coreutils ($name): mkdir $b"; return; }
	# configure refuses root (its mknod probe could make a device)
	# unless told it is meant.
	if ! (cd "$b" && FORCE_UNSAFE_CONFIGURE=1 "$src/configure" CC="$cc" \
			CFLAGS="$CFLAGS_DEB" CPPFLAGS="$CPPFLAGS_DEB" LDFLAGS="$LDFLAGS_DEB") \
			>"$b/configure.log" 2>&1; then
		fail "coreutils ($name): configure"; tail_log "$b/configure.log"; return
	fi
	echo "coreutils ($name): configure: $(($(now) - t)) s"
	t=$(now)
	# With the tests' own programs (gnulib's), built here and not by
	# the user the tests run as, who may not read the plugin.
	if ! make -C "$b" -j2 >"$b/build.log" 2>&1 ||
	   ! make -C "$b/gnulib-tests" -j2 check TESTS= >>"$b/build.log" 2>&1; then
		fail "coreutils ($name): make"; tail_log "$b/build.log"; return
	fi
	echo "coreutils ($name): make -j2 (and gnulib's test programs): $(($(now) - t)) s"
	built=1
	if [ $root -eq 1 ]; then
		chown -R "$TUSER:$(id -g "$TUSER")" "$b" ||
			{ fail "coreutils ($name): chown $b to $TUSER"; built=0; return; }
	fi
	# -k: the gnulib tests come after the programs' in SUBDIRS, and run
	# even when one of those fails.
	t=$(now)
	(cd "$b" && as_user make -k -j2 check) >"$b/check.log" 2>&1
	rc=$?
	echo "coreutils ($name): make -k -j2 check as $who: $(($(now) - t)) s, exit $rc"
	if [ $root -eq 1 ]; then
		t=$(now)
		make -C "$b" -k -j2 check-root >"$b/check-root.log" 2>&1
		rc=$?
		echo "coreutils ($name): make -k -j2 check-root as root: $(($(now) - t)) s, exit $rc"
	fi
	echo "coreutils ($name): $(counts "$b")"
}

# ---- plain ---------------------------------------------------------------
PB=$W/build-coreutils-plain
build plain "$PB" gcc
[ $built -eq 1 ] || { echo "total: $(($(now) - t0)) s"; finish; }
plain_failing=$(failing "$PB")
show_list "coreutils (plain)" "$plain_failing"

# ---- repstos -------------------------------------------------------------
RB=$W/build-coreutils
build repstos "$RB" "$RCC"
[ $built -eq 1 ] || { echo "total: $(($(now) - t0)) s"; finish; }
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

# Only the tests the plain build passes count.
new=$(echo "$repstos_failing" | while read -r t; do
	[ -n "$t" ] || continue
	echo "$plain_failing" | grep -qxF "$t" || echo "$t"
done)
if [ -n "$new" ]; then
	for t in $new; do
		fail "coreutils: $t fails with repstos-cc, passes plain"
		tail -n 10 "$RB/$t.log" 2>/dev/null | sed 's/^/    /'
	done
else
	ok "coreutils: the repstos build fails no test the plain build passes"
fi

echo "total: $(($(now) - t0)) s"
finish
