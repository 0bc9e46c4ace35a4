#!/bin/sh
# Proves: modules linked with the shared runtime are lean, share one start-up, and are correct.
# Modules linked with -lrepstos-shared (runtime/module/module.h) carry their
# stubs, routines, record and constructor, and no start-up: no CPUID, no
# policy, no text writer; they depend on librepstos.so.0, whose one
# start-up patches every module of the process.  Checked here:
#  1. what such a module holds, and what it does not;
#  2. every variant in every form (sites.sh, quick), copy sites
#     (copysites.sh), size profiles across an executable and a shared
#     object (profile.sh), all on programs linked this way; calls
#     through the stub (text patching off) are not counted: the stub is
#     the process's;
#  3. an executable and a dlopen()ed object, both lean or mixed with
#     librepstos.a, under each route: one CPU detection per start-up;
#  4. `repstos check` and `repstos patch` on lean files;
#  5. the footprint goals (bench/footprint.sh --check): of the shared
#     runtime's modules, and of librepstos.a's, in .text, .data + .bss
#     and every allocated section; modules with 8 KiB more .rodata must
#     miss the last.
. "$(dirname "$0")/../lib.sh"
s=$BUILT/shared
need $s/sites $s/copysites $s/libdso.so $s/dlopen_main $BUILT/dlopen_main \
	runtime/librepstos.so.0 $TOOL
scratch

# ---- 1. what a lean module holds -------------------------------------------
for f in $s/sites $s/libdso.so; do
	why=""
	readelf -d "$f" | grep -q 'NEEDED.*\[librepstos\.so\.0\]' ||
		why="$why; no NEEDED librepstos.so.0"
	objdump -d "$f" | grep -qw cpuid && why="$why; has a cpuid instruction"
	nm "$f" | grep -qw 'T __repstos_attach' && why="$why; defines the start-up"
	nm "$f" | grep -qw '__repstos_poke' && why="$why; has the text writer"
	nm -D "$f" | grep -qw 'U __repstos_attach' ||
		why="$why; does not bind __repstos_attach"
	objdump -d --no-show-raw-insn "$f" | grep -A3 '<__repstos_stub>:' |
		grep -q 'jmp.*\*.*(%rip).*__repstos_shared_stub' ||
		why="$why; its stub does not jump to the shared one"
	[ -z "$why" ] && ok "$f: lean: stubs, routines, constructor; start-up shared" ||
		fail "$f${why}"
done
# a module without copy sites carries no copy routine; one with, all
printf '#include "repstos.h"\nvoid z(char *p, unsigned long n) { REPSTOS_BZERO(p, n); }\n' \
	>"$W/set.c"
printf '#include "repstos.h"\nvoid c(char *d, const char *s, unsigned long n) { REPSTOS_MEMCPY(d, s, n); }\n' \
	>"$W/copy.c"
for m in set copy; do
	gcc -O2 -Iinclude -Iruntime -fPIC -shared -o "$W/$m.so" "$W/$m.c" \
		-Lruntime -lrepstos-shared || fail "build $m.so"
done
n_set=$(nm "$W/set.so" | grep -c ' [tT] __repstos_copy_' || true)
n_copy=$(nm "$W/copy.so" | grep -c ' [tT] __repstos_copy_' || true)
[ "$n_set" -eq 0 ] && [ "$n_copy" -gt 5 ] &&
	ok "copy routines only where there are copy sites ($n_copy symbols)" ||
	fail "copy routines: $n_set without copy sites, $n_copy with"

# ---- 2. the semantic tests, on lean programs --------------------------------
# sub NAME VAR=VALUE... SCRIPT: another test's script, on lean programs
sub() {
	what=$1; shift
	if env "$@" >"$W/sub" 2>&1; then
		ok "$what: $(grep -c '^ *ok' "$W/sub") checks passed"
	else
		fail "$what:"
		grep -i 'fail' "$W/sub" | head -n 10
	fi
}
sub "every variant and form (sites.sh quick)" SITES_BIN=$s/sites \
	SITES_MODE=quick sh tests/runtime/sites.sh
sub "copy sites (copysites.sh)" COPYSITES_PROGS=$s/copysites \
	sh tests/runtime/copysites.sh
sub "size profiles of an executable and a shared object (profile.sh)" \
	PROFILE_DIR=build/tests/policy/shared PROFILE_STUB_COUNTS=0 \
	sh tests/policy/profile.sh

# ---- 3. executable and dlopen()ed object ------------------------------------
# run EXE DSO WANT_DETECTING ENV...
run() {
	exe=$1 dso=$2 want=$3; shift 3
	out=$(env "$@" REPSTOS_DEBUG=1 "$exe" "$PWD/$dso" 2>&1); rc=$?
	starts=$(echo "$out" | grep -c '^repstos: .*: cpu ')
	detecting=$(echo "$out" | grep '^repstos: .*: cpu ' |
		grep -vc 'start-up shared$')
	if [ $rc -eq 0 ] && [ "$starts" -eq 3 ] && [ "$detecting" -eq "$want" ]; then
		ok "$exe + $dso ${*:-default}: $detecting CPU detection(s); $(echo "$out" | grep '^exe:')"
	else
		fail "$exe + $dso ${*:-default}: exit $rc, $starts start-up lines (want 3), $detecting detecting (want $want)"
		echo "$out" | tail -n 8
	fi
}
for env in "" REPSTOS_VARIANT=inline REPSTOS_VARIANT=erms REPSTOS_PATCH=0 \
	   REPSTOS_PATCH=mprotect; do
	# both lean: librepstos.so.0 detects, once
	run $s/dlopen_main $s/libdso.so 1 $env
	# a librepstos.a executable has its own start-up
	run $BUILT/dlopen_main $s/libdso.so 2 $env
done

# ---- 4. the tool on lean files ----------------------------------------------
for f in $s/sites $s/libdso.so $s/copysites; do
	out=$($TOOL check "$f" 2>&1) && ok "repstos check $f" ||
		fail "repstos check $f: $out"
done
cp $s/sites "$W/sites-erms"
if $TOOL patch --cpu=erms "$W/sites-erms" >"$W/patch" 2>&1 &&
   out=$(REPSTOS_DEBUG=1 "$W/sites-erms" quick 2>&1) &&
   echo "$out" | grep -q 'statically patched'; then
	ok "repstos patch --cpu=erms on a lean executable: runs right, left as patched"
else
	fail "repstos patch --cpu=erms on a lean executable:"
	tail -n 5 "$W/patch"; echo "$out" | tail -n 5
fi

# ---- 5. footprint -------------------------------------------------------------
if FOOTPRINT_DIR=$W/footprint sh bench/footprint.sh --check 3 \
	>"$W/fp" 2>&1; then
	ok "footprint goals met: $(grep 'shared object, \(shared\|full\)' "$W/fp" |
		awk '{ printf "%s%s: +%s B text, +%s B data+bss, +%s B allocated", (NR == 1 ? "" : "; "), $3, $6, $9, $12 }')"
else
	fail "footprint goals missed:"
	grep -e MISSED -e shared -e full "$W/fp"
fi
# the figures the goals are of, section by section
sed -n '/^module /,/^# librepstos.so.0/p; /^# shared object, allocated/,/^# librepstos.a/p' "$W/fp" |
	while IFS= read -r line; do note "footprint: $line"; done
# control: 8 KiB of .rodata more in each module, and nothing else, is
# within the .text and .data + .bss goals but not the allocated one
printf 'const char footprint_extra[8192] = { 1 };\n' >"$W/extra.c"
if FOOTPRINT_EXTRA=$W/extra.c FOOTPRINT_DIR=$W/footprint-extra \
	sh bench/footprint.sh --check 1 >"$W/fpx" 2>&1; then
	fail "control: modules with 8 KiB more .rodata met the footprint goals"
elif [ "$(grep -c '^MISSED: .*: [0-9]* bytes of allocated sections added' "$W/fpx")" = 4 ] &&
   [ "$(grep -c '^MISSED' "$W/fpx")" = 4 ]; then
	ok "control: 8 KiB more .rodata misses the allocated goal of all four builds, and no other goal"
else
	fail "control: 8 KiB more .rodata did not miss the allocated goal alone:"
	grep -e MISSED -e shared -e full "$W/fpx"
fi
finish
