#!/bin/sh
# Proves: what make install installs is all a user outside the tree needs.
# `make install PREFIX=<tmp>/x` (no DESTDIR), then what a user outside the
# tree does with the installed files only:
#   (a) a C project built with $(pkg-config --cflags --libs repstos)
#       (PKG_CONFIG_PATH=<tmp>/x/lib/pkgconfig), with a hand-written site
#       from the installed <repstos.h> too;
#   (b) the same project with CMake, -DCMAKE_C_COMPILER=<tmp>/x/bin/repstos-cc
#       (a shared library and a program using it);
#   (c) a plain Makefile project, make CC=<tmp>/x/bin/repstos-cc;
#   (d) zlib's own configure: CC=<tmp>/x/bin/repstos-cc ./configure && make
#       && make test (the source realworld.sh cached; (d) is skipped when
#       it is absent);
#   (e) plain gcc with repstos.pc's words where build systems put them:
#       CMake's pkg_check_modules(IMPORTED_TARGET) with PkgConfig::R,
#       autotools' PKG_CHECK_MODULES, a Makefile's LDLIBS; and a program
#       linked from repstos-shared.pc that runs with nothing added.
# Each gets sites (counted with the installed `repstos dump`), passes the
# installed `repstos check`, and runs correctly.  Then `make uninstall`
# must leave no file behind.  Last, DESTDIR staging: the files land under
# DESTDIR but name only PREFIX, and uninstall with DESTDIR empties it.
. "$(dirname "$0")/lib.sh"
serialize install

# The installation, the projects and the logs, outside the tree: nothing
# installed may name it.
scratch -o
X=$W/x

FILES="bin/repstos bin/repstos-cc bin/repstos-c++ lib/repstos/repstos.so lib/librepstos.a
lib/librepstos-full.a lib/librepstos.so.0 lib/librepstos_nonshared.a lib/librepstos-shared.so
lib/pkgconfig/repstos-shared.pc include/repstos.h include/repstos_site.h lib/pkgconfig/repstos.pc
share/man/man1/repstos.1 share/man/man1/repstos-cc.1 share/man/man1/repstos-c++.1
share/man/man7/repstos.7"

# The files (and symbolic links) left under a directory.
leftovers() { find "$1" \( -type f -o -type l \) 2>/dev/null; }

t=$(now)
if ! make -C "$top" --no-print-directory install PREFIX="$X" >"$W/install.log" 2>&1; then
	fail "make install PREFIX=$X:"; tail -n 8 "$W/install.log" | sed 's/^/    /'
	[ -f patcher/repstos.1 ] || echo "    (patcher/repstos.1 does not exist yet)"
	finish
fi
missing=""
for f in $FILES; do [ -f "$X/$f" ] || missing="$missing $f"; done
[ -z "$missing" ] && ok "make install PREFIX=$X: all $(echo $FILES | wc -w) files" ||
	fail "make install: missing:$missing"
[ -x "$X/bin/repstos-cc" ] && [ -x "$X/bin/repstos" ] || fail "installed programs not executable"
# Nothing installed may point back into the source tree.
grep -l "$top/" "$X/bin/repstos-cc" "$X/lib/pkgconfig/repstos.pc" &&
	fail "installed repstos-cc or repstos.pc names the source tree"
grep -q "$X/lib/repstos/repstos.so" "$X/bin/repstos-cc" &&
	grep -q "$X/lib/librepstos.a" "$X/bin/repstos-cc" ||
	fail "installed repstos-cc does not name the installed plugin and archive"

# The LLVM plugin, where the tree built it, beside the GCC one: the
# installed repstos-cc finds it for clang-16.
if [ -r "$top/plugin/librepstos-llvm.so" ] && command -v clang-16 >/dev/null 2>&1; then
	printf '#include <string.h>\nvoid *f(void *p, size_t n) { return memset(p, 0, n); }\n' >"$W/llvm.c"
	[ -r "$X/lib/repstos/librepstos-llvm.so" ] &&
		REPSTOS_CC=clang-16 "$X/bin/repstos-cc" -O2 -c -o "$W/llvm.o" "$W/llvm.c" &&
		[ "$("$X/bin/repstos" dump "$W/llvm.o" 2>/dev/null | grep -c 'stub __repstos_stub')" = 1 ] &&
		ok "the LLVM plugin installed beside repstos.so: REPSTOS_CC=clang-16 gets its site" ||
		fail "the LLVM plugin: not installed as $X/lib/repstos/librepstos-llvm.so, or the installed repstos-cc does not use it"
else
	skipped "the LLVM plugin: not built here"
fi

# From here on, the installed tool counts and checks.
RB=$X/bin/repstos
TOOL=$RB
# $1: what; $2: a linked file; it must have sites and pass the installed
# check.  Sets n to its site count.
has_sites() {
	n=$(sites "$2")
	[ "$n" -gt 0 ] || { fail "$1: no sites in $2"; return 1; }
	"$RB" check "$2" >"$W/check.out" 2>&1 ||
		{ fail "$1: repstos check $2: $(head -n 3 "$W/check.out")"; return 1; }
	return 0
}
# $1: what; $2: program; it must print $want and exit 0.
runs_ok() {
	got=$("$2" 2>&1) ||
		{ fail "$1: $2 exited $?: $(echo "$got" | head -n 3)"; return 1; }
	[ "$got" = "$want" ] || { fail "$1: $2 printed $got"; return 1; }
	return 0
}

# ---- (a) pkg-config ---------------------------------------------------------
P=$W/proj-pc
mkdir -p "$P" && write_project "$P"
export PKG_CONFIG_PATH=$X/lib/pkgconfig
if cflags=$(pkg-config --cflags repstos) && libs=$(pkg-config --libs repstos); then
	case "$cflags $libs" in
	*"$X/lib/repstos/repstos.so"*"-L$X/lib -lrepstos"*) ;;
	*) fail "(a) pkg-config names other files: $cflags $libs" ;;
	esac
	if (cd "$P" && gcc -O2 -DHAND $cflags -c main.c && gcc -O2 $cflags -c clear.c &&
	    gcc main.o clear.o -o prog $libs) >"$W/a.log" 2>&1; then
		has_sites "(a) pkg-config" "$P/prog" && runs_ok "(a) pkg-config" "$P/prog" &&
			ok "(a) gcc \$(pkg-config --cflags --libs repstos), hand site via <repstos.h>: $n sites, correct"
	else
		fail "(a) build with pkg-config: $(head -n 5 "$W/a.log")"
	fi
else
	fail "(a) pkg-config does not find repstos in $PKG_CONFIG_PATH"
fi
unset PKG_CONFIG_PATH

# ---- (b) CMake --------------------------------------------------------------
P=$W/proj-cmake
mkdir -p "$P" && write_project "$P"
cat >"$P/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(repstos_demo C)
add_library(clear SHARED clear.c)
add_executable(demo main.c)
target_link_libraries(demo clear)
EOF
if ! command -v cmake >/dev/null; then
	fail "(b) no cmake (Debian package cmake)"
elif (cmake -S "$P" -B "$P/build" -DCMAKE_C_COMPILER="$X/bin/repstos-cc" &&
      cmake --build "$P/build" -- -j2) >"$W/b.log" 2>&1; then
	# The sites are in the library; demo itself has none (no memset
	# in main.c, so no runtime either) and finds libclear.so by RPATH.
	grep -q 'CMAKE_C_COMPILER.*repstos-cc' "$P/build/CMakeCache.txt" ||
		fail "(b) CMake did not keep repstos-cc"
	so=$(ls "$P"/build/libclear.so* 2>/dev/null | head -n 1)
	has_sites "(b) cmake, libclear.so" "$so" && runs_ok "(b) cmake" "$P/build/demo" &&
		ok "(b) cmake -DCMAKE_C_COMPILER=repstos-cc: libclear.so $n sites, demo correct"
else
	fail "(b) cmake: $(grep -i -m 5 'error' "$W/b.log")"
fi
# The same with the shared runtime: libclear.so carries no start-up and
# finds the installed librepstos.so.0 by the run path repstos-cc adds.
if command -v cmake >/dev/null &&
   (export REPSTOS_RUNTIME=shared
    cmake -S "$P" -B "$P/build-shared" -DCMAKE_C_COMPILER="$X/bin/repstos-cc" &&
    cmake --build "$P/build-shared" -- -j2) >"$W/b-shared.log" 2>&1; then
	so=$(ls "$P"/build-shared/libclear.so* 2>/dev/null | head -n 1)
	if ! readelf -d "$so" | grep -q "NEEDED.*librepstos\.so\.0"; then
		fail "(b) cmake, REPSTOS_RUNTIME=shared: $so does not need librepstos.so.0"
	else
		has_sites "(b) cmake shared, libclear.so" "$so" &&
			runs_ok "(b) cmake shared" "$P/build-shared/demo" &&
			ok "(b) REPSTOS_RUNTIME=shared cmake: libclear.so $n sites, needs the installed librepstos.so.0, demo correct"
	fi
elif command -v cmake >/dev/null; then
	fail "(b) cmake, REPSTOS_RUNTIME=shared: $(grep -i -m 5 'error' "$W/b-shared.log")"
fi

# ---- (c) plain Makefile -------------------------------------------------------
P=$W/proj-make
mkdir -p "$P" && write_project "$P"
printf 'CFLAGS = -O2\nprog: main.o clear.o\n\t$(CC) $(LDFLAGS) -o $@ main.o clear.o\n' >"$P/Makefile"
if make -C "$P" CC="$X/bin/repstos-cc" >"$W/c.log" 2>&1; then
	has_sites "(c) make" "$P/prog" && runs_ok "(c) make" "$P/prog" && ok "(c) make CC=repstos-cc: $n sites, correct"
else
	fail "(c) make CC=repstos-cc: $(tail -n 5 "$W/c.log")"
fi

# ---- (d) zlib's configure -------------------------------------------------------
zsrc=$(ls -d "$RW"/zlib-[0-9]*/ 2>/dev/null | head -n 1)
if [ -z "$zsrc" ]; then
	skipped "(d): no zlib source cached in $RW (realworld.sh fetches it)"
else
	Z=$W/zlib
	cp -r "$zsrc" "$Z"
	if (cd "$Z" && CC="$X/bin/repstos-cc" ./configure && make -j2 && make test) >"$W/d.log" 2>&1; then
		so=$(ls "$Z"/libz.so.*.* | head -n 1)
		n=$(sites "$so"); e=$(sites "$Z/example")
		k=$(grep -c 'zlib.* test OK' "$W/d.log")
		if [ "$n" -gt 0 ] && [ "$e" -gt 0 ] && [ "$k" -ge 3 ] &&
		   "$RB" check "$so" "$Z/example" "$Z/minigzip" >/dev/null 2>&1; then
			ok "(d) zlib: CC=repstos-cc ./configure && make && make test ($k OK): libz.so $n sites, example $e"
		else
			fail "(d) zlib: libz.so $n sites, example $e, $k test OKs, or repstos check failed"
		fi
	else
		fail "(d) zlib with the installed repstos-cc: $(tail -n 5 "$W/d.log")"
	fi
fi

# ---- (e) repstos.pc from build systems that sort its words ------------------
# pkg-config's words as CMake's imported target, autotools' PKG_CHECK_MODULES
# and a Makefile take them, with plain gcc: the plugin from Cflags, the
# archive from Libs, wherever each build system puts those.
export PKG_CONFIG_PATH=$X/lib/pkgconfig
P=$W/proj-cmake-pc
mkdir -p "$P" && write_project "$P"
cat >"$P/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(repstos_pc C)
find_package(PkgConfig REQUIRED)
pkg_check_modules(R REQUIRED IMPORTED_TARGET repstos)
add_executable(demo main.c clear.c)
target_link_libraries(demo PkgConfig::R)
EOF
if (cmake -S "$P" -B "$P/build" -DCMAKE_C_COMPILER=gcc &&
    cmake --build "$P/build") >"$W/e-cmake.log" 2>&1; then
	has_sites "(e) cmake PkgConfig::R" "$P/build/demo" &&
		runs_ok "(e) cmake PkgConfig::R" "$P/build/demo" &&
		ok "(e) cmake pkg_check_modules(IMPORTED_TARGET) + PkgConfig::R: $n sites, correct"
else
	fail "(e) cmake PkgConfig::R: $(grep -i -m 3 -e error -e undefined "$W/e-cmake.log")"
fi
P=$W/proj-autotools
mkdir -p "$P" && write_project "$P"
cat >"$P/configure.ac" <<'EOF'
AC_INIT([repstos_pc], [1])
AM_INIT_AUTOMAKE([foreign])
AC_PROG_CC
PKG_CHECK_MODULES([R], [repstos])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOF
cat >"$P/Makefile.am" <<'EOF'
bin_PROGRAMS = demo
demo_SOURCES = main.c clear.c
demo_CFLAGS = $(R_CFLAGS)
demo_LDADD = $(R_LIBS)
EOF
if ! command -v autoreconf >/dev/null; then
	fail "(e) no autoreconf (Debian packages autoconf, automake)"
elif (cd "$P" && autoreconf -i && ./configure CC=gcc && make) >"$W/e-autotools.log" 2>&1; then
	has_sites "(e) autotools PKG_CHECK_MODULES" "$P/demo" &&
		runs_ok "(e) autotools PKG_CHECK_MODULES" "$P/demo" &&
		ok "(e) autotools PKG_CHECK_MODULES([R], [repstos]): $n sites, correct"
else
	fail "(e) autotools: $(grep -i -m 3 -e error -e undefined "$W/e-autotools.log")"
fi
P=$W/proj-make-pc
mkdir -p "$P" && write_project "$P"
printf 'CFLAGS = -O2 $(shell pkg-config --cflags repstos)\nLDLIBS = $(shell pkg-config --libs repstos)\ndemo: main.o clear.o\n\t$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)\n' >"$P/Makefile"
if make -C "$P" CC=gcc >"$W/e-make.log" 2>&1; then
	has_sites "(e) make, LDLIBS from pkg-config" "$P/demo" &&
		runs_ok "(e) make, LDLIBS from pkg-config" "$P/demo" &&
		ok "(e) make with LDLIBS from pkg-config --libs repstos: $n sites, correct"
else
	fail "(e) make with pkg-config: $(grep -i -m 3 -e error -e undefined "$W/e-make.log")"
fi
# repstos-shared.pc carries the run path to a libdir the loader does not
# search: the program runs with nothing added.
P=$W/proj-shared-pc
mkdir -p "$P" && write_project "$P"
if (cd "$P" && gcc -O2 $(pkg-config --cflags repstos-shared) main.c clear.c -o prog \
	$(pkg-config --libs repstos-shared)) >"$W/e-shared.log" 2>&1; then
	has_sites "(e) repstos-shared.pc" "$P/prog" &&
		runs_ok "(e) repstos-shared.pc, nothing added to run" "$P/prog" &&
		ok "(e) gcc with pkg-config --cflags --libs repstos-shared: $n sites, runs as built"
else
	fail "(e) repstos-shared.pc: $(head -n 3 "$W/e-shared.log")"
fi
unset PKG_CONFIG_PATH

# ---- uninstall --------------------------------------------------------------------
if make -C "$top" --no-print-directory uninstall PREFIX="$X" >"$W/uninstall.log" 2>&1; then
	left=$(leftovers "$X")
	[ -z "$left" ] && ok "make uninstall PREFIX=$X: no file left ($(find "$X" -type d | wc -l) empty directories stay)" ||
		fail "make uninstall left: $(echo $left)"
else
	fail "make uninstall: $(tail -n 3 "$W/uninstall.log")"
fi

# ---- DESTDIR staging ----------------------------------------------------------------
S=$W/stage
before=$fails
SP=/opt/repstos-staging-test-$$	# a PREFIX that must not be written
if make -C "$top" --no-print-directory install PREFIX="$SP" DESTDIR="$S" >"$W/stage.log" 2>&1; then
	missing=""
	for f in $FILES; do [ -f "$S$SP/$f" ] || missing="$missing $f"; done
	[ -z "$missing" ] || fail "DESTDIR install: missing:$missing"
	[ ! -e "$SP" ] || fail "DESTDIR install wrote to $SP itself"
	grep -rl "$S" "$S" && fail "DESTDIR install: files name the staging directory"
	grep -q "$SP/lib/repstos/repstos.so" "$S$SP/bin/repstos-cc" &&
		grep -q "libdir=$SP/lib" "$S$SP/lib/pkgconfig/repstos.pc" ||
		fail "DESTDIR install: repstos-cc or repstos.pc do not name PREFIX $SP"
	make -C "$top" --no-print-directory uninstall PREFIX="$SP" DESTDIR="$S" >>"$W/stage.log" 2>&1 ||
		fail "make uninstall DESTDIR=$S"
	left=$(leftovers "$S")
	[ -z "$left" ] || fail "make uninstall DESTDIR=$S left: $(echo $left)"
	[ $fails -ne $before ] || ok "DESTDIR=$S PREFIX=$SP: staged files name only PREFIX; uninstall empties the stage"
else
	fail "make install DESTDIR=$S: $(tail -n 3 "$W/stage.log")"
fi
rm -rf "$SP"	# there only if the DESTDIR install wrote it
echo "install test: $(($(now) - t)) s"
finish
