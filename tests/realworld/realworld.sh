#!/bin/sh
# Proves: zlib and lz4 built with repstos-cc, memset sites alone and with copy sites too, pass their own tests and checks.
# Real code bases, built the way a user would: Debian's zlib and lz4
# source packages (apt-get source, cached under build/realworld/), each
# through its own build system with CC=plugin/repstos-cc, twice:
#
#   memset  the package's own flags and nothing else (build-zlib,
#           build-lz4, in the scratch folder): memset sites only, no copy site anywhere (copies
#           are off by default);
#   copy    the same plus CFLAGS -fplugin-arg-repstos-copy (build-zlib-copy,
#           build-lz4-copy): memcpy/mempcpy/memmove sites as well; the
#           files below must have copy sites.
#
# Each build must pass the package's own tests; `repstos check` must
# accept every executable and shared object it links; the sites per file
# and per package are printed, split by op (`repstos dump --stats`).
#
#   zlib: ./configure && make; `make test` (example + minigzip: static,
#         shared, 64-bit offsets), again under forced routines and with
#         patching off (original, inline, vec; REPSTOS_PATCH=0).
#   lz4:  its Makefile (liblz4.a, liblz4.so, the lz4 CLI); from its tests/
#         Makefile a bounded subset: test-lz4-essentials (the CLI round
#         trips: basic, multiple files, legacy frames, concatenated frames,
#         test mode, content size, dictionaries), test-decompress-partial
#         (the block API), the block and frame fuzzers (fuzzer, frametest)
#         for $FUZZ_SECS s each instead of 90, and abiTest linked against
#         the plugin-built liblz4.so; then a CLI round trip under the
#         forced routines.  Left out: the multi-GB hugefile/sparse/lz4c
#         runs, fullbench (a benchmark: tests/realworld/bench.sh runs lz4
#         -b), the Python list/version tests.
#
# Exit 77 when apt cannot fetch the sources (with the reason).
. "$(dirname "$0")/lib.sh"
serialize realworld

need "$PLUGIN" "$RTLIB" "$TOOL" "$RCC"

# The fuzzers' time per build (lz4's own default is 90 s).
FUZZ_SECS=10

t0=$(now)
mkdir -p "$RW" || exit 1
# The sources are cached in $RW; the builds are this run's, in $W.
scratch
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
# name is $2, the mode (memset or copy) $3, the files that must have
# sites (and in copy mode copy sites) follow.  Prints the sites per file
# and the package's total, split by op.  In memset mode no file may
# have a copy site.
check_all() {
	dir=$1 pkg=$2 mode=$3; shift 3
	nfiles=0 nocheck="" sum=""
	for f in $(linked_elf_files "$dir"); do
		rel=${f#"$dir"/}
		nfiles=$((nfiles + 1))
		if ! has_table "$f"; then
			# Nothing it links needed the runtime (no call became a
			# site), so no table was pulled in: nothing to check.
			nocheck="$nocheck $rel"
			continue
		fi
		out=$("$TOOL" check "$f" 2>&1)
		rc=$?
		[ $rc -eq 0 ] || { fail "$pkg: repstos check $rel: exit $rc"; echo "$out" | head -n 10; }
		ops=$(op_counts "$f")
		note "$rel: $(sites "$f") sites ($ops), check exit $rc"
		sum="$sum
$ops"
		if [ $mode = memset ]; then
			c=$(($(op_count "$f" copy) + $(op_count "$f" move) + $(op_count "$f" move_fwd)))
			[ $c -eq 0 ] || fail "$pkg: $rel has $c copy sites without $COPY_OPT"
		fi
	done
	[ -z "$nocheck" ] || note "no site table (no site in what they link):$nocheck"
	for want in "$@"; do
		f=$(ls "$dir"/$want 2>/dev/null | head -n 1)
		[ -n "$f" ] || { fail "$pkg: $want was not built"; continue; }
		[ "$(sites "$f")" -gt 0 ] || fail "$pkg: no sites in $want"
		[ $mode = memset ] || [ "$(op_count "$f" copy)" -gt 0 ] ||
			fail "$pkg: no copy sites in $want"
	done
	[ $nfiles -gt 0 ] || fail "$pkg: no executable or shared object found"
	# The total per op over every linked file.
	tot=$(echo "$sum" | awk 'NF { for (i = 1; i < NF; i += 2) { n[i] = $i; s[i] += $(i + 1) } k = NF }
		END { for (i = 1; i < k; i += 2) { printf "%s%s %d", sep, n[i], s[i]; sep = " " } }')
	all=$(echo "$tot" | awk '{ for (i = 2; i <= NF; i += 2) s += $i; print s + 0 }')
	echo "$pkg: $all sites in $nfiles linked files: ${tot:-none}"
}

# The forced routines, as REPSTOS_VARIANT names them (the copy routines
# take the set variants' names where they are the same idea): a plain
# loop, `rep stosb`/`rep movsb` called, 16-byte vectors; and patching off.
FORCED="REPSTOS_VARIANT=original REPSTOS_VARIANT=inline REPSTOS_VARIANT=vec REPSTOS_PATCH=0"

# The runtime must have taken the forced choice: one REPSTOS_DEBUG line
# that names it, for copies too in copy mode.
check_debug() {
	what=$1 mode=$2 env=$3; shift 3
	# In the program's directory: zlib's example writes foo.gz where it runs.
	line=$(cd "$(dirname "$1")" && env REPSTOS_DEBUG=1 $env "$@" 2>&1 >/dev/null |
		grep '^repstos:' | head -n 1)
	case $env in
	REPSTOS_VARIANT=*) pats="variant ${env#*=}"
			   [ $mode = memset ] || pats="$pats:copy ${env#*=} (forced)" ;;
	*)		   pats="PATCH=0" ;;
	esac
	echo "$pats" | tr ':' '\n' | while read -r pat; do
		echo "$line" | grep -qF "$pat" || echo "$pat"
	done | grep . >/dev/null &&
		fail "$what with $env: no '$pats' in the REPSTOS_DEBUG line: $line"
}

# ---- zlib ----------------------------------------------------------------
# run_zlib MODE DIR CFLAGS
run_zlib() {
	mode=$1 zb=$2 cflags=$3 t=$(now)
	if ! why=$(zlib_build "$zb" "$zsrc" "$RCC" "$cflags"); then
		fail "zlib ($mode): $why"; tail_log "$zb/build.log"; tail_log "$zb/configure.log"; return
	fi
	echo "zlib ($mode): CFLAGS='$cflags' configure + make: $(($(now) - t)) s"
	t=$(now)
	# A subset of the routines: each zlib `make test` takes seconds, and
	# tests/runtime and tests/plugin run every variant.
	for env in "" $FORCED; do
		log=$zb/test${env:+-${env#REPSTOS_}}.log
		if ! (cd "$zb" && env $env make test) >"$log" 2>&1; then
			fail "zlib ($mode): make test ${env:-(default policy)}"; tail_log "$log"; continue
		fi
		n=$(grep -c '\*\*\* zlib.* test OK \*\*\*' "$log")
		# Static, shared (examplesh through libz.so) and 64-bit offsets.
		[ "$n" -ge 3 ] || fail "zlib ($mode): make test ${env:-}: $n of 3 runs said OK"
		grep -q 'zlib shared test OK' "$log" ||
			fail "zlib ($mode): the shared-library test did not pass ${env:-}"
		[ -z "$env" ] || check_debug "zlib ($mode)" $mode "$env" "$zb/example"
		ok "zlib ($mode): make test ${env:-(default policy)}: $n runs OK"
	done
	echo "zlib ($mode): make test x$(($(echo $FORCED | wc -w) + 1)): $(($(now) - t)) s"
	check_all "$zb" "zlib ($mode)" $mode 'libz.so.*' example minigzip
}

# ---- lz4 -----------------------------------------------------------------
# run_lz4 MODE DIR CFLAGS
run_lz4() {
	mode=$1 lb=$2 cflags=$3 t=$(now)
	if ! why=$(lz4_build "$lb" "$lsrc" "$RCC" "$cflags"); then
		fail "lz4 ($mode): $why"; tail_log "$lb/build.log"; return
	fi
	echo "lz4 ($mode): CFLAGS='$cflags' make: $(($(now) - t)) s"
	# The tests/ Makefile builds the fuzzers from lib/ with its CFLAGS.
	lmake() { env CFLAGS="$cflags" make -C "$lb/tests" CC="$RCC" "$@"; }
	t=$(now)
	if lmake -j2 test-lz4-essentials test-decompress-partial >"$lb/test-cli.log" 2>&1; then
		ok "lz4 ($mode): test-lz4-essentials, test-decompress-partial"
	else
		fail "lz4 ($mode): make -C tests test-lz4-essentials test-decompress-partial"
		tail_log "$lb/test-cli.log"
	fi
	echo "lz4 ($mode): CLI tests: $(($(now) - t)) s"
	t=$(now)
	if lmake -j2 FUZZER_TIME=-T${FUZZ_SECS}s test-fuzzer test-frametest >"$lb/test-fuzz.log" 2>&1; then
		ok "lz4 ($mode): fuzzer and frametest ($FUZZ_SECS s each)"
	else
		fail "lz4 ($mode): make -C tests test-fuzzer test-frametest"; tail_log "$lb/test-fuzz.log"
	fi
	echo "lz4 ($mode): fuzzers: $(($(now) - t)) s"
	# abiTest links -llz4: the plugin-built liblz4.so and its own sites.
	if lmake LDFLAGS=-L../lib abiTest >"$lb/test-abi.log" 2>&1 &&
	   (cd "$lb/tests" && LD_LIBRARY_PATH=../lib ./abiTest COPYING) >>"$lb/test-abi.log" 2>&1 &&
	   grep -q 'no pb detected' "$lb/test-abi.log"; then
		LD_LIBRARY_PATH=$lb/lib ldd "$lb/tests/abiTest" | grep -q "$lb/lib/liblz4.so" ||
			fail "lz4 ($mode): abiTest does not load the built liblz4.so"
		ok "lz4 ($mode): abiTest against the built liblz4.so"
	else
		fail "lz4 ($mode): abiTest"; tail_log "$lb/test-abi.log"
	fi
	# The CLI round trip under the forced routines and with patching off
	# (a subset, as for zlib above).
	"$lb/tests/datagen" -g8MB -P50 >"$lb/rt.in" 2>/dev/null || fail "lz4 ($mode): datagen"
	for env in "" $FORCED; do
		rm -f "$lb/rt.lz4" "$lb/rt.out"
		if env $env "$lb/lz4" -q -9 "$lb/rt.in" "$lb/rt.lz4" &&
		   env $env "$lb/lz4" -q -d "$lb/rt.lz4" "$lb/rt.out" &&
		   cmp -s "$lb/rt.in" "$lb/rt.out"; then
			[ -z "$env" ] || check_debug "lz4 ($mode)" $mode "$env" "$lb/lz4" -q -t "$lb/rt.lz4"
			ok "lz4 ($mode): 8 MB round trip through the CLI ${env:-(default policy)}"
		else
			fail "lz4 ($mode): 8 MB round trip ${env:-(default policy)}"
		fi
	done
	check_all "$lb" "lz4 ($mode)" $mode 'lib/liblz4.so.*' lz4 tests/fuzzer tests/frametest
}

run_zlib memset "$W/build-zlib" "$ZLIB_CFLAGS"
run_zlib copy "$W/build-zlib-copy" "$ZLIB_CFLAGS $COPY_OPT"
run_lz4 memset "$W/build-lz4" "$LZ4_CFLAGS"
run_lz4 copy "$W/build-lz4-copy" "$LZ4_CFLAGS $COPY_OPT"

echo "total: $(($(now) - t0)) s"
finish
