#!/bin/sh
# Proves: make demo installs only what the build needs, and every apt-get install or update make runs waits for another apt's lock.
# Read from `make -n` (nothing is installed): demo's package list must
# hold the build's own packages and none that only tests or benchmarks
# use (clang, cmake, lintian, distcc, tcl-dev); in the recipes of deps,
# build-deps and demo, each apt-get must carry -o DPkg::Lock::Timeout=
# (a fresh machine's unattended upgrade held the lock, and make demo
# failed at once).
. "$(dirname "$0")/../lib.sh"
scratch

MAKEFLAGS= make -n --no-print-directory demo >"$W/demo" 2>&1 ||
	fail "make -n demo: $(tail -n 3 "$W/demo")"
pkgs=$(sed -n 's/.*for p in \([^;]*\); do.*/\1/p' "$W/demo" | head -n 1)
[ -n "$pkgs" ] || fail "make -n demo installs nothing: $(head -n 3 "$W/demo")"
extra=
for p in clang cmake lintian distcc tcl-dev valgrind; do
	echo " $pkgs " | grep -q " $p " && extra="$extra $p"
done
[ -n "$pkgs" ] && [ -z "$extra" ] && echo " $pkgs " | grep -q ' gcc-12-plugin-dev ' &&
	ok "make demo installs the build's packages only: $pkgs" ||
	fail "make demo installs$extra too: $pkgs"
for t in deps build-deps demo; do
	MAKEFLAGS= make -n --no-print-directory $t 2>&1 | grep -o 'apt-get [^;&|]*' >"$W/$t.apt"
	n=$(wc -l <"$W/$t.apt")
	waits=$(grep -c 'apt-get -o DPkg::Lock::Timeout=[1-9]' "$W/$t.apt")
	[ "$n" -gt 0 ] && [ "$waits" = "$n" ] &&
		ok "make $t: its $n apt-get calls wait for the lock" ||
		fail "make $t: $waits of $n apt-get calls wait for the lock: $(cat "$W/$t.apt")"
done
finish
