#!/bin/sh
# A real code base: zlib from Debian's source package, built with the
# plugin (CC with -fplugin, LDFLAGS/LIBS with runtime/librepstos.a), must
# pass its own `make test` (example + minigzip, static and shared) and
# get sites (counted from the table of libz.so and the test programs).
# The source is cached under build/zlib/; a machine without a deb-src
# entry gets one for Debian's archive.  Skips when apt cannot fetch.
. tests/plugin/lib.sh
Z=$PWD/build/zlib
mkdir -p $Z
top=$PWD

fetch() {
	cd $Z
	if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		echo "adding a deb-src entry for Debian's archive"
		printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			>/etc/apt/sources.list.d/repstos-deb-src.sources || return 1
		apt-get update -qq >/dev/null 2>&1 || return 1
	fi
	apt-get source -qq zlib >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get source -qq zlib >/dev/null 2>&1; }
}
src=$(ls -d $Z/zlib-*/ 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
	(fetch) || skip "cannot fetch the zlib source package (apt-get source zlib)"
	src=$(ls -d $Z/zlib-*/ 2>/dev/null | head -n 1)
	[ -n "$src" ] || skip "zlib source not found after apt-get source"
fi
echo "zlib source: $src"

b=$Z/build
rm -rf $b && cp -r $src $b && cd $b || fail "copy"
CFLAGS="-O2 -g -fplugin=$top/$PLUGIN -fplugin-arg-repstos-verbose" \
	LDSHAREDLIBC="-lc $top/$RTLIB" ./configure >configure.log 2>&1 ||
	{ fail "configure"; tail configure.log; finish; }
# The runtime after the objects: for the static tests and libz.so.
make -j2 TEST_LDFLAGS="-L. libz.a $top/$RTLIB" >build.log 2>&1 || { fail "build"; tail -n 20 build.log; finish; }
make test TEST_LDFLAGS="-L. libz.a $top/$RTLIB" >test.log 2>&1 || { fail "zlib make test"; tail -n 20 test.log; finish; }
grep -c '\*\*\* zlib.* test OK \*\*\*' test.log | {
	read n; [ "$n" -ge 2 ] || echo "FAIL: only $n zlib test runs said OK"; } | grep FAIL && failed=1
for v in original vec REPSTOS_PATCH; do
	env=REPSTOS_VARIANT=$v; [ $v = REPSTOS_PATCH ] && env=REPSTOS_PATCH=0
	env $env make test TEST_LDFLAGS="-L. libz.a $top/$RTLIB" >test-$v.log 2>&1 || fail "zlib make test with $env"
done
cd $top
notes=$(grep -c 'note: repstos: .* rewritten' $b/build.log)
alone=$(grep -c 'note: repstos: .* left alone' $b/build.log)
so=$(ls $b/libz.so.*.* | head -n 1)
n=$(sites $so); e=$(sites $b/example)
[ "$n" -gt 0 ] && [ "$e" -gt 0 ] || fail "no sites in libz.so ($n) or example ($e)"
ok "zlib $(basename $src): make test passes (also REPSTOS_VARIANT=original, vec, REPSTOS_PATCH=0); libz.so has $n sites, example $e ($notes rewritten calls in the build log, $alone left alone)"
finish
