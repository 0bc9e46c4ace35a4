#!/bin/sh
# Proves: zlib and lz4 built with repstos-cc pass their own tests and checks.
# Real code bases, built the way a user would: Debian's zlib and lz4
# source packages (apt-get source, cached under build/realworld/), each
# through its own build system with CC=plugin/repstos-cc and nothing
# else, must pass their own tests; `repstos check` must accept every
# executable and shared object they link; the sites per file are printed.
#
#   zlib: ./configure && make; `make test` (example + minigzip: static,
#         shared, 64-bit offsets), again under REPSTOS_VARIANT=original,
#         REPSTOS_VARIANT=vec and REPSTOS_PATCH=0.
#   lz4:  its Makefile (liblz4.a, liblz4.so, the lz4 CLI); from its tests/
#         Makefile a bounded subset: test-lz4-essentials (the CLI round
#         trips: basic, multiple files, legacy frames, concatenated frames,
#         test mode, content size, dictionaries), test-decompress-partial
#         (the block API), the block and frame fuzzers (fuzzer, frametest)
#         for 15 s each instead of 90, and abiTest linked against the
#         plugin-built liblz4.so; then a CLI round trip under the forced
#         variants.  Left out: the multi-GB hugefile/sparse/lz4c runs,
#         fullbench (a benchmark), the Python list/version tests.
#
# Exit 77 when apt cannot fetch the sources (with the reason).
cd "$(dirname "$0")/../.." || exit 1
. tests/realworld/lib.sh
serialize realworld

need plugin/repstos.so runtime/librepstos.a patcher/repstos plugin/repstos-cc

t0=$(now)
mkdir -p "$RW" || exit 1
# Sets src to the unpacked source of package $1, or skips with apt's reason.
get_source() {
	src=$(fetch_source "$1" 2>"$RW/why-$1")
	rc=$?
	cat "$RW/why-$1"
	[ $rc -eq 0 ] || skip "cannot fetch the $1 source package: $(tail -n 1 "$RW/why-$1")"
}
get_source zlib; zsrc=$src
get_source lz4; lsrc=$src
echo "sources (cached in $RW): $(basename "$zsrc") $(basename "$lsrc") ($(($(now) - t0)) s)"

# Show the end of a log after a failed step.
tail_log() { tail -n 25 "$1" | sed 's/^/    /'; }

# `repstos check` on every executable and shared object under $1; the
# package name is $2, the files that must have sites follow.  Prints the
# sites per file and a total.
check_all() {
	dir=$1 pkg=$2; shift 2
	total=0 nfiles=0 nocheck=""
	for f in $(linked_elf_files "$dir"); do
		rel=${f#"$dir"/}
		nfiles=$((nfiles + 1))
		if ! has_table "$f"; then
			# Nothing it links needed the runtime (no memset became a
			# site), so no table was pulled in: nothing to check.
			nocheck="$nocheck $rel"
			continue
		fi
		out=$("$REPSTOS" check "$f" 2>&1)
		rc=$?
		[ $rc -eq 0 ] || { fail "$pkg: repstos check $rel: exit $rc"; echo "$out" | head -n 10; }
		n=$(sites "$f")
		total=$((total + n))
		note "$rel: $n sites, check exit $rc"
	done
	[ -z "$nocheck" ] || note "no site table (no site in what they link):$nocheck"
	for want in "$@"; do
		f=$(ls "$dir"/$want 2>/dev/null | head -n 1)
		[ -n "$f" ] || { fail "$pkg: $want was not built"; continue; }
		[ "$(sites "$f")" -gt 0 ] || fail "$pkg: no sites in $want"
	done
	[ $nfiles -gt 0 ] || fail "$pkg: no executable or shared object found"
	echo "$pkg: $total sites in $nfiles linked files"
}

# The runtime must have taken the forced choice: one REPSTOS_DEBUG line.
check_debug() {
	what=$1 env=$2; shift 2
	# In the program's directory: zlib's example writes foo.gz where it runs.
	line=$(cd "$(dirname "$1")" && env REPSTOS_DEBUG=1 $env "$@" 2>&1 >/dev/null |
		grep '^repstos:' | head -n 1)
	case $env in
	REPSTOS_VARIANT=*) pat="variant ${env#*=}" ;;
	*)		   pat="PATCH=0" ;;
	esac
	echo "$line" | grep -q "$pat" ||
		fail "$what with $env: no '$pat' in the REPSTOS_DEBUG line: $line"
}

# ---- zlib ----------------------------------------------------------------
zb=$RW/build-zlib
rm -rf "$zb" && cp -r "$zsrc" "$zb" || { fail "copy $zsrc"; finish; }
t=$(now)
if ! (cd "$zb" && CC=$REPSTOS_CC_WRAP ./configure) >"$zb/configure.log" 2>&1; then
	fail "zlib: CC=repstos-cc ./configure"; tail_log "$zb/configure.log"; finish
fi
if ! make -C "$zb" -j2 >"$zb/build.log" 2>&1; then
	fail "zlib: make"; tail_log "$zb/build.log"; finish
fi
echo "zlib: configure + make: $(($(now) - t)) s"
t=$(now)
# A subset: each zlib `make test` takes seconds, and tests/runtime and
# tests/plugin run every variant; these are a plain loop, a vector loop
# and the stub.
for env in "" REPSTOS_VARIANT=original REPSTOS_VARIANT=vec REPSTOS_PATCH=0; do
	log=$zb/test${env:+-${env#REPSTOS_}}.log
	if ! (cd "$zb" && env $env make test) >"$log" 2>&1; then
		fail "zlib: make test ${env:-(default policy)}"; tail_log "$log"; continue
	fi
	n=$(grep -c '\*\*\* zlib.* test OK \*\*\*' "$log")
	# Static, shared (examplesh through libz.so) and 64-bit offsets.
	[ "$n" -ge 3 ] || fail "zlib: make test ${env:-}: $n of 3 runs said OK"
	grep -q 'zlib shared test OK' "$log" || fail "zlib: the shared-library test did not pass ${env:-}"
	[ -z "$env" ] || check_debug zlib "$env" "$zb/example"
	ok "zlib: make test ${env:-(default policy)}: $n runs OK"
done
echo "zlib: make test x4: $(($(now) - t)) s"
check_all "$zb" zlib 'libz.so.*' example minigzip

# ---- lz4 -----------------------------------------------------------------
lb=$RW/build-lz4
rm -rf "$lb" && cp -r "$lsrc" "$lb" || { fail "copy $lsrc"; finish; }
t=$(now)
if ! make -C "$lb" -j2 CC="$REPSTOS_CC_WRAP" >"$lb/build.log" 2>&1; then
	fail "lz4: make"; tail_log "$lb/build.log"; finish
fi
echo "lz4: make: $(($(now) - t)) s"
t=$(now)
if make -C "$lb/tests" -j2 CC="$REPSTOS_CC_WRAP" test-lz4-essentials \
		test-decompress-partial >"$lb/test-cli.log" 2>&1; then
	ok "lz4: test-lz4-essentials, test-decompress-partial"
else
	fail "lz4: make -C tests test-lz4-essentials test-decompress-partial"; tail_log "$lb/test-cli.log"
fi
echo "lz4: CLI tests: $(($(now) - t)) s"
t=$(now)
if make -C "$lb/tests" -j2 CC="$REPSTOS_CC_WRAP" FUZZER_TIME=-T15s \
		test-fuzzer test-frametest >"$lb/test-fuzz.log" 2>&1; then
	ok "lz4: fuzzer and frametest (15 s each)"
else
	fail "lz4: make -C tests test-fuzzer test-frametest"; tail_log "$lb/test-fuzz.log"
fi
echo "lz4: fuzzers: $(($(now) - t)) s"
# abiTest links -llz4: the plugin-built liblz4.so and its own sites.
if make -C "$lb/tests" CC="$REPSTOS_CC_WRAP" LDFLAGS=-L../lib abiTest >"$lb/test-abi.log" 2>&1 &&
   (cd "$lb/tests" && LD_LIBRARY_PATH=../lib ./abiTest COPYING) >>"$lb/test-abi.log" 2>&1 &&
   grep -q 'no pb detected' "$lb/test-abi.log"; then
	LD_LIBRARY_PATH=$lb/lib ldd "$lb/tests/abiTest" | grep -q "$lb/lib/liblz4.so" ||
		fail "lz4: abiTest does not load the built liblz4.so"
	ok "lz4: abiTest against the built liblz4.so"
else
	fail "lz4: abiTest"; tail_log "$lb/test-abi.log"
fi
# The CLI round trip under the forced routines and with patching off
# (a subset, as for zlib above, with rep stosb in place too).
"$lb/tests/datagen" -g8MB -P50 >"$lb/rt.in" 2>/dev/null || fail "lz4: datagen"
for env in "" REPSTOS_VARIANT=original REPSTOS_VARIANT=vec REPSTOS_VARIANT=inline REPSTOS_PATCH=0; do
	rm -f "$lb/rt.lz4" "$lb/rt.out"
	if env $env "$lb/lz4" -q -9 "$lb/rt.in" "$lb/rt.lz4" &&
	   env $env "$lb/lz4" -q -d "$lb/rt.lz4" "$lb/rt.out" &&
	   cmp -s "$lb/rt.in" "$lb/rt.out"; then
		[ -z "$env" ] || check_debug lz4 "$env" "$lb/lz4" -q -t "$lb/rt.lz4"
		ok "lz4: 8 MB round trip through the CLI ${env:-(default policy)}"
	else
		fail "lz4: 8 MB round trip ${env:-(default policy)}"
	fi
done
check_all "$lb" lz4 'lib/liblz4.so.*' lz4 tests/fuzzer tests/frametest

echo "total: $(($(now) - t0)) s"
finish
