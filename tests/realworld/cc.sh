#!/bin/sh
# Proves: repstos-cc is a drop-in CC for every command shape builds use.
# repstos-cc, the drop-in CC, on the command shapes build systems use:
# compile-only (-c, -S, -E, -M, -MM, -fsyntax-only, a response file
# holding -c) must not get the runtime archive (GCC would warn "linker
# input file unused"); links (plain, one-step, -shared, -static, -flto,
# from stdin with -x c, a response file, -Wl,--gc-sections and
# -Xlinker --gc-sections) must get sites and a correct program; queries
# (-v, --version, -dumpversion, -print-file-name=) pass through unchanged,
# --version naming the GCC versions tested; a plugin built for another
# GCC gets a line saying to rebuild it; REPSTOS_CC=clang-16 gets the
# LLVM plugin (sites, remarks, a program that runs), a clang of another
# LLVM a line saying which it was built for, tcc one line pointing to
# <repstos.h>;
# REPSTOS_CC picks the compiler, also as several words; REPSTOS_RUNTIME=
# shared links the shared runtime (not into -static links), and a value
# it does not know stops the link with one line; repstos-c++ links C
# objects with sites into a C++ program, which g++ alone cannot; a
# shared object exports no table bound.
. "$(dirname "$0")/lib.sh"
serialize cc

scratch
cd "$W" || exit 1

write_project .

# $1: what; $2: program (with a path); must print $want and exit 0.
runs_ok() {
	got=$("$2" 2>&1); rc=$?
	[ $rc -eq 0 ] && [ "$got" = "$want" ] && return 0
	fail "$1: $2 exited $rc, printed: $(echo "$got" | head -n 3)"
	return 1
}
# $1: what; $2: file; it must have sites and pass `repstos check`.
has_sites() {
	n=$(sites "$2")
	[ "$n" -gt 0 ] || { fail "$1: no sites in $2"; return 1; }
	"$TOOL" check "$2" >check.out 2>&1 ||
		{ fail "$1: repstos check $2: $(head -n 3 check.out)"; return 1; }
	return 0
}
# The first lines of an error log.
errs() { head -n 4 "$1"; }
# The archive given to a command that does not link: GCC says so.
no_unused_input() {
	if grep -q 'linker input file unused\|librepstos' "$2"; then
		fail "$1: the runtime archive reached a command that does not link: $(head -n 2 "$2")"
		return 1
	fi
	return 0
}

# ---- compile-only --------------------------------------------------------
"$RCC" -O2 -c clear.c -o clear.o 2>err.c.txt && has_sites "-c" clear.o &&
	no_unused_input "-c" err.c.txt && ok "-c: clear.o has $(sites clear.o) sites, no archive"
"$RCC" -O2 -c main.c -o main.o 2>err.main.txt || fail "-c main.c: $(errs err.main.txt)"

if "$RCC" -O2 -S clear.c -o clear.s 2>err.S.txt && no_unused_input "-S" err.S.txt; then
	grep -q 'repstos_sites' clear.s && grep -q '__repstos' clear.s &&
		ok "-S: clear.s holds the site table and stub calls" ||
		fail "-S: no site table in clear.s"
else
	fail "-S: $(errs err.S.txt)"
fi

if "$RCC" -O2 -E clear.c -o clear.i 2>err.E.txt && no_unused_input "-E" err.E.txt &&
   grep -q 'void fill' clear.i && ! grep -q repstos_sites clear.i; then
	ok "-E: preprocessed output, no archive"
else
	fail "-E: $(errs err.E.txt)"
fi
# -E to stdout, from stdin.
if echo 'int x = __LINE__;' | "$RCC" -E -x c - 2>err.E2.txt | grep -q 'int x = 1;' &&
   no_unused_input "-E -x c -" err.E2.txt; then
	ok "-E -x c - (stdin to stdout)"
else
	fail "-E -x c -: $(errs err.E2.txt)"
fi

for m in -M -MM; do
	if "$RCC" $m main.c >deps$m.txt 2>err$m.txt && no_unused_input "$m" err$m.txt &&
	   grep -q '^main.o: main.c' deps$m.txt; then
		if [ $m = -M ]; then
			grep -q '/stdio.h' deps$m.txt || fail "-M: no system headers listed"
		else
			! grep -q '/stdio.h' deps$m.txt || fail "-MM: system headers listed"
		fi
		ok "$m: dependency line, no archive"
	else
		fail "$m: $(errs err$m.txt)"
	fi
done
# -MD -MF with -c: a compile that also writes dependencies.
"$RCC" -O2 -MD -MF md.d -MT md.o -c clear.c -o md.o 2>err.MD.txt && grep -q '^md.o:' md.d &&
	no_unused_input "-MD -MF -c" err.MD.txt && has_sites "-MD -c" md.o &&
	ok "-MD -MF -MT -c: dependencies and sites" || fail "-MD -MF -c: $(errs err.MD.txt)"

"$RCC" -fsyntax-only clear.c 2>err.syn.txt && no_unused_input "-fsyntax-only" err.syn.txt &&
	ok "-fsyntax-only: no archive" || fail "-fsyntax-only: $(errs err.syn.txt)"

# -x c on a file whose name says nothing of C.
cp clear.c clear.inc
"$RCC" -O2 -x c -c clear.inc -o xc.o 2>err.xc.txt && no_unused_input "-x c -c" err.xc.txt &&
	has_sites "-x c" xc.o && ok "-x c -c clear.inc: sites" || fail "-x c -c: $(errs err.xc.txt)"

# A response file holding -c: still compile-only.
printf '%s\n' -O2 -c clear.c -o rsp.o >args.c
"$RCC" @args.c 2>err.rsp.txt && no_unused_input "@args with -c" err.rsp.txt &&
	has_sites "@args -c" rsp.o && ok "@args holding -c: compiled, no archive" ||
	fail "@args holding -c: $(errs err.rsp.txt)"

# ---- links ---------------------------------------------------------------
"$RCC" main.o clear.o -o prog 2>err.link.txt && has_sites "link" prog &&
	runs_ok "link" ./prog && ok "link of objects: $(sites prog) sites, program correct" ||
	fail "link: $(errs err.link.txt)"

"$RCC" -O2 main.c clear.c -o prog1 2>err.one.txt && has_sites "one-step" prog1 &&
	runs_ok "one-step" ./prog1 && ok "one-step compile and link" ||
	fail "one-step: $(errs err.one.txt)"

# The runtime ran and took every site.
line=$(REPSTOS_DEBUG=1 ./prog 2>&1 >/dev/null | grep '^repstos:')
echo "$line" | grep -q "$(sites prog) sites" &&
	ok "REPSTOS_DEBUG: the runtime saw the sites:${line#*; variant}" ||
	fail "REPSTOS_DEBUG line does not report $(sites prog) sites: $line"

# A response file for a link: the archive is still appended.
printf '%s\n' main.o clear.o -o prog-rsp >args.link
"$RCC" @args.link 2>err.rspl.txt && has_sites "@args link" prog-rsp &&
	runs_ok "@args link" ./prog-rsp && ok "@args holding a link: archive appended" ||
	fail "@args link: $(errs err.rspl.txt)"

# A one-file program from stdin, -x c -.
cat clear.c main.c | "$RCC" -O2 -x c - -o prog-stdin 2>err.stdin.txt &&
	has_sites "-x c - link" prog-stdin && runs_ok "-x c -" ./prog-stdin &&
	ok "-x c - (from stdin) compile and link" || fail "-x c -: $(errs err.stdin.txt)"

# -shared: the library gets its own sites and runtime; the program links it.
"$RCC" -O2 -fPIC -shared clear.c -o libclear.so 2>err.so.txt && has_sites "-shared" libclear.so &&
	"$RCC" -O2 main.c -L. -lclear -o prog-so 2>>err.so.txt &&
	LD_LIBRARY_PATH=. runs_ok "-shared" ./prog-so &&
	[ "$(LD_LIBRARY_PATH=. REPSTOS_DEBUG=1 ./prog-so 2>&1 >/dev/null | grep -c 'libclear.so')" -eq 1 ] &&
	ok "-shared: libclear.so has $(sites libclear.so) sites, patched when loaded" ||
	fail "-shared: $(errs err.so.txt)"

# -static: no dynamic loader at all.
if "$RCC" -O2 -static main.c clear.c -o prog-static 2>err.static.txt; then
	readelf -l prog-static | grep -q INTERP && fail "-static: prog-static has an interpreter"
	has_sites "-static" prog-static && runs_ok "-static" ./prog-static &&
		ok "-static: $(sites prog-static) sites, program correct"
else
	fail "-static: $(errs err.static.txt)"
fi

# -flto: sites come from lto1 at link time.
"$RCC" -O2 -flto -c clear.c -o lto-clear.o 2>err.lto.txt &&
	"$RCC" -O2 -flto -c main.c -o lto-main.o 2>>err.lto.txt &&
	no_unused_input "-flto -c" err.lto.txt &&
	"$RCC" -O2 -flto lto-main.o lto-clear.o -o prog-lto 2>>err.lto.txt &&
	has_sites "-flto" prog-lto && runs_ok "-flto" ./prog-lto &&
	ok "-flto: $(sites prog-lto) sites, program correct" || fail "-flto: $(errs err.lto.txt)"

# --gc-sections: a dead function's site goes with it, the table stays exact.
cat >gc.c <<'EOF'
#include <string.h>
#include <stddef.h>
void dead_fill(char *p, size_t n) { memset(p, 1, n); }
void dead_zero(char *p, size_t n) { memset(p, 0, n); }
EOF
"$RCC" -O2 -ffunction-sections -c gc.c -o gc.o 2>err.gc.txt
"$RCC" -O2 -ffunction-sections -c clear.c -o gc-clear.o 2>>err.gc.txt
"$RCC" main.o gc-clear.o gc.o -o prog-nogc 2>>err.gc.txt
all=$(sites prog-nogc)
for how in -Wl,--gc-sections "-Xlinker --gc-sections"; do
	if "$RCC" main.o gc-clear.o gc.o $how -o prog-gc 2>>err.gc.txt; then
		n=$(sites prog-gc)
		has_sites "$how" prog-gc && runs_ok "$how" ./prog-gc &&
			[ "$n" -eq $((all - 2)) ] &&
			ok "$how: $n sites (without: $all; the 2 dead ones removed)" ||
			fail "$how: $n sites, want $((all - 2)) (of $all)"
	else
		fail "$how: $(errs err.gc.txt)"
	fi
done

# A dead function in an object whose other function lives: its site and
# its code go too (ld keeps the table's first input section, so the
# runtime's empty one must come first: repstos-cc sees to it).
cat >gcmix.c <<'EOF'
#include <string.h>
#include <stddef.h>
void dead_in_live(char *p, size_t n) { memset(p, 2, n); }
int main(int argc, char **argv) { char b[64]; memset(b, 0, (size_t)argc); return b[0]; }
EOF
if "$RCC" -O2 -ffunction-sections gcmix.c -Wl,--gc-sections -o prog-gcmix 2>err.gcmix.txt; then
	n=$(sites prog-gcmix)
	[ "$n" -eq 1 ] && ! nm prog-gcmix | grep -q dead_in_live && ./prog-gcmix &&
		ok "--gc-sections: a dead function beside a live one goes, with its site ($n left)" ||
		fail "--gc-sections: dead_in_live kept ($n sites)"
else
	fail "--gc-sections mixed: $(errs err.gcmix.txt)"
fi

# ---- queries pass through --------------------------------------------------
for q in -dumpversion -dumpmachine -print-file-name=plugin -print-prog-name=ld; do
	a=$("$RCC" $q 2>&1); b=$(gcc $q 2>&1)
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "$q: repstos-cc printed '$a', gcc '$b'"
done
ok "-dumpversion, -dumpmachine, -print-file-name=, -print-prog-name= as gcc"
# --version: gcc's lines first (build systems read the first), then one
# naming repstos, its version and the plugin it adds, and one naming the
# GCC the plugin was built for and those the tests ran with (the
# Makefile's TESTED_GCC).
a=$("$RCC" --version 2>&1); b=$(gcc --version 2>&1)
tested=$(sed -n 's/^TESTED_GCC[ 	]*:=[ 	]*//p' "$top/Makefile" | sed 's/ /, /g')
[ "$(echo "$a" | head -n "$(echo "$b" | wc -l)")" = "$b" ] &&
	echo "$a" | tail -n 2 | head -n 1 | grep -q "^repstos-cc: repstos [0-9][0-9.]*, plugin .*repstos.so" &&
	[ -n "$tested" ] && [ "$(echo "$a" | tail -n 1)" = \
	  "repstos-cc: plugin built for GCC $(gcc -dumpfullversion); tested with GCC $tested" ] &&
	ok "--version: gcc's, then $(echo "$a" | tail -n 1)" ||
	fail "--version printed: $a"
# A plugin built for another GCC, which GCC cannot load: GCC's own line,
# then repstos-cc's naming both versions and the make that rebuilds it
# (make test-compilers loads a GCC 12 plugin into GCC 14; here a file
# that says GCC 99.1.0).
mkdir -p other/plugin && cp "$top/plugin/repstos-cc" other/plugin/ &&
	printf '\177ELF\0repstos plugin built for GCC 99.1.0\0' >other/plugin/repstos.so
other/plugin/repstos-cc -O2 -c clear.c -o other.o >other.out 2>&1
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <other.out)" -eq 2 ] && grep -q 'cannot load plugin' other.out &&
	grep -qx "repstos-cc: .*/other/plugin/repstos.so was built for GCC 99.1.0, and gcc is GCC $(gcc -dumpfullversion): rebuild it with this GCC (in the repstos tree: make clean && make)" other.out &&
	ok "a plugin built for GCC 99.1.0: exit $rc, GCC's line, then: $(tail -n 1 other.out)" ||
	fail "a plugin built for GCC 99.1.0: exit $rc: $(cat other.out)"
"$RCC" --help >help.out 2>&1 && grep -q "^usage: repstos-cc " help.out &&
	grep -q "REPSTOS_RUNTIME" help.out && grep -q "^Usage: gcc" help.out &&
	ok "--help: repstos-cc's own usage, then gcc's" || fail "--help: $(head -n 3 help.out)"
# A compiler that is neither GCC nor clang: one line saying what works
# with it, exit 1 (it is not run: none need be installed).
REPSTOS_CC=tcc "$RCC" -O2 -c clear.c -o tcc.o >tcc.out 2>&1
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <tcc.out)" -eq 1 ] && grep -q "repstos.h" tcc.out &&
	[ ! -e tcc.o ] && ok "REPSTOS_CC=tcc: exit 1, one line pointing to <repstos.h>" ||
	fail "REPSTOS_CC=tcc: exit $rc: $(cat tcc.out)"
# clang-16 gets the LLVM plugin: sites, and the program runs; a clang
# of another LLVM cannot load it, and a line says which LLVM it wants.
if ! command -v clang-16 >/dev/null 2>&1; then
	skipped "REPSTOS_CC=clang-16: clang-16 not installed"
else
	REPSTOS_CC=clang-16 "$RCC" -O2 -fplugin-arg-repstos-verbose -c clear.c \
		-o clang.o 2>clang.out && has_sites "REPSTOS_CC=clang-16 -c" clang.o &&
		grep -q 'remark: .* rewritten' clang.out &&
		REPSTOS_CC=clang-16 "$RCC" main.o clang.o -o prog-clang 2>>clang.out &&
		has_sites "REPSTOS_CC=clang-16 link" prog-clang &&
		runs_ok "REPSTOS_CC=clang-16" ./prog-clang &&
		ok "REPSTOS_CC=clang-16: the LLVM plugin's $(sites prog-clang) sites, its remarks, and the program runs" ||
		fail "REPSTOS_CC=clang-16: $(errs clang.out)"
	v=$(REPSTOS_CC=clang-16 "$RCC" --version 2>&1 | tail -n 2)
	echo "$v" | head -n 1 | grep -q 'plugin .*/librepstos-llvm\.so, runtime ' &&
		echo "$v" | tail -n 1 | grep -q '^repstos-cc: plugin built for LLVM 16\.[0-9.]*; tested with clang 16$' &&
		ok "REPSTOS_CC=clang-16 --version: $(echo "$v" | tail -n 1)" ||
		fail "REPSTOS_CC=clang-16 --version: $v"
	other=$(for c in clang-14 clang-15 clang-17 clang-18 clang-19; do
		command -v $c >/dev/null 2>&1 && { echo $c; break; }; done)
	if [ -z "$other" ]; then
		skipped "a clang of another LLVM: none installed"
	else
		REPSTOS_CC=$other "$RCC" -O2 -c clear.c -o other.o >other.out 2>&1
		rc=$?
		[ $rc -ne 0 ] && [ ! -e other.o ] &&
			tail -n 1 other.out | grep -q "^repstos-cc: .*librepstos-llvm.so was built for LLVM 16\.[0-9.]*, and $other is clang [0-9]" &&
			ok "REPSTOS_CC=$other: exit $rc, and: $(tail -n 1 other.out)" ||
			fail "REPSTOS_CC=$other: exit $rc: $(tail -n 3 other.out)"
	fi
fi
"$RCC" -v >v.out 2>&1 && grep -q '^gcc version' v.out && ! grep -q repstos v.out &&
	ok "-v alone: gcc's version, untouched" || fail "-v: $(tail -n 2 v.out)"
# -v on a real compile shows the plugin reaching cc1.
"$RCC" -v -O2 -c clear.c -o v.o >vc.out 2>&1 && grep -q 'cc1 .*-fplugin=.*repstos.so' vc.out &&
	ok "-v -c: cc1 runs with the plugin" || fail "-v -c: no -fplugin on the cc1 line"

# ---- REPSTOS_CC ------------------------------------------------------------
cat >logcc <<'EOF'
#!/bin/sh
echo "$*" >>"$LOGCC_FILE"
exec gcc "$@"
EOF
chmod +x logcc
export LOGCC_FILE=$W/logcc.log
: >"$LOGCC_FILE"
REPSTOS_CC=$W/logcc "$RCC" -O2 -c clear.c -o lc.o &&
	REPSTOS_CC=$W/logcc "$RCC" main.o lc.o -o prog-lc && runs_ok "REPSTOS_CC" ./prog-lc
c=$(sed -n 1p "$LOGCC_FILE"); l=$(sed -n 2p "$LOGCC_FILE")
case $c in *-fplugin=*repstos.so*) ;; *) fail "REPSTOS_CC compile: no plugin: $c" ;; esac
case $c in *librepstos.a*) fail "REPSTOS_CC compile got the archive: $c" ;; esac
case $l in *-fplugin=*repstos.so*librepstos.a) ;; *) fail "REPSTOS_CC link: not plugin ... archive last: $l" ;; esac
[ "$(wc -l <"$LOGCC_FILE")" -eq 2 ] && ok "REPSTOS_CC=logcc: ran it, compile without the archive, link with it last" ||
	fail "REPSTOS_CC: $(wc -l <"$LOGCC_FILE") logged commands, want 2"
# A compiler given as several words, as CC often is.
REPSTOS_CC="gcc -DWANT_RUNS=2456" "$RCC" -O2 -x c - -o prog-words 2>err.words.txt <<'EOF'
#include <stdio.h>
int main(void) { printf("ok %d\n", WANT_RUNS); return 0; }
EOF
[ "$(./prog-words 2>/dev/null)" = "$want" ] && ok "REPSTOS_CC with arguments (\"gcc -D...\")" ||
	fail "REPSTOS_CC=\"gcc -D...\": $(errs err.words.txt)"

# ---- REPSTOS_RUNTIME -------------------------------------------------------
# shared: the module needs librepstos.so.0 and has no start-up of its own;
# -static keeps the archive; --gc-sections still works; full links
# librepstos-full.a; a bad value stops.
for shape in plain -shared gc; do
	case $shape in
	plain)	args="main.o clear.o -o prog-sh" prog=./prog-sh f=prog-sh ;;
	-shared) args="-shared -fPIC clear.c -o libclear-sh.so" f=libclear-sh.so prog= ;;
	gc)	args="-Wl,--gc-sections main.o clear.o -o prog-shgc" prog=./prog-shgc f=prog-shgc ;;
	esac
	if REPSTOS_RUNTIME=shared "$RCC" -O2 $args 2>err.sh.txt &&
	   readelf -d $f | grep -q 'NEEDED.*librepstos\.so\.0' &&
	   ! objdump -d $f | grep -qw cpuid && has_sites "shared $shape" $f &&
	   { [ -z "$prog" ] || runs_ok "shared $shape" $prog; }; then
		ok "REPSTOS_RUNTIME=shared, $shape link: needs librepstos.so.0, no CPUID of its own, $(sites $f) sites"
	else
		fail "REPSTOS_RUNTIME=shared, $shape link: $(errs err.sh.txt)"
	fi
done
if REPSTOS_RUNTIME=shared "$RCC" -O2 -static main.o clear.o -o prog-shst 2>err.shst.txt &&
   ! readelf -l prog-shst | grep -q INTERP && runs_ok "shared -static" ./prog-shst; then
	ok "REPSTOS_RUNTIME=shared -static: the archive, a static program"
else
	fail "REPSTOS_RUNTIME=shared -static: $(errs err.shst.txt)"
fi
# full: librepstos-full.a, whose start-up records size profiles, which
# the default archive's does not.
if REPSTOS_RUNTIME=full "$RCC" -O2 main.o clear.o -o prog-full 2>err.full.txt &&
   has_sites "full" prog-full && runs_ok "full" ./prog-full &&
   REPSTOS_PROFILE=$W/prof-full ./prog-full >/dev/null 2>&1 &&
   grep -q '^profile ' "$W/prof-full"; then
	ok "REPSTOS_RUNTIME=full: librepstos-full.a, $(sites prog-full) sites, a size profile recorded"
else
	fail "REPSTOS_RUNTIME=full: $(errs err.full.txt)"
fi
"$RCC" -O2 main.o clear.o -o prog-static 2>err.static.txt &&
	REPSTOS_PROFILE=$W/prof-static ./prog-static >/dev/null 2>err.prof.txt &&
	[ ! -e "$W/prof-static" ] && grep -q 'size profiles not linked' err.prof.txt &&
	ok "REPSTOS_RUNTIME unset: librepstos.a, no profile, and one line says why" ||
	fail "REPSTOS_RUNTIME unset and REPSTOS_PROFILE: $(errs err.prof.txt)"
if REPSTOS_RUNTIME=bogus "$RCC" -O2 main.o clear.o -o prog-bogus 2>err.bogus.txt; then
	fail "REPSTOS_RUNTIME=bogus linked"
elif [ "$(wc -l <err.bogus.txt)" -eq 1 ] && grep -q "REPSTOS_RUNTIME" err.bogus.txt &&
     [ ! -e prog-bogus ]; then
	ok "REPSTOS_RUNTIME=bogus: one line, no output: $(cat err.bogus.txt)"
else
	fail "REPSTOS_RUNTIME=bogus: $(errs err.bogus.txt)"
fi

# ---- repstos-c++ -----------------------------------------------------------
# C objects with sites linked into a C++ program: g++ alone lacks the
# runtime (the link must fail, not silently drop sites); repstos-c++
# links them, and C++ sources get sites as well.
CXXW=${RCC%-cc}-c++
cat >cxxmain.cc <<'EOF'
#include <cstdio>
#include <cstring>
extern "C" void fill(char *p, int c, unsigned long n);
static char b[300];
__attribute__((noinline)) void wipe(char *p, unsigned long n) { std::memset(p, 0x11, n); }
int main(int argc, char **)
{
	unsigned long n = 100 + (unsigned long)argc, i;

	wipe(b, sizeof b - (unsigned long)argc);
	fill(b + 7, 0x5a, n);
	for (i = 0; i < sizeof b - 1; i++)
		if (b[i] != ((i >= 7 && i < 7 + n) ? 0x5a : 0x11))
			return 1;
	std::puts("ok");
	return 0;
}
EOF
if g++ -O2 cxxmain.cc clear.o -o prog-gxx >err.gxx.txt 2>&1; then
	fail "g++ linked repstos-cc objects without the runtime"
else
	grep -q '__repstos_stub' err.gxx.txt && ok "g++ alone: the link fails on __repstos_stub, as repstos-cc(1) says" ||
		fail "g++ alone: failed otherwise: $(errs err.gxx.txt)"
fi
if "$CXXW" -O2 cxxmain.cc clear.o -o prog-cxx 2>err.cxx.txt &&
   [ "$(./prog-cxx)" = ok ] && has_sites "repstos-c++" prog-cxx &&
   "$TOOL" dump prog-cxx | grep -q 'wipe'; then
	ok "repstos-c++: C objects and a C++ source, $(sites prog-cxx) sites, correct"
else
	fail "repstos-c++: $(errs err.cxx.txt) $(./prog-cxx 2>&1 | head -2)"
fi

# ---- the table's bounds stay inside the module -----------------------------
# ld 2.40 put __start_/__stop_repstos_sites in .dynsym as global symbols
# of every shared object (dispatch.S says how they are kept local); a
# Debian symbols file listed them.  Also with a copy site only.
printf '#include <repstos.h>\nvoid cp(char *d, const char *s, unsigned long n) { REPSTOS_MEMCPY(d, s, n); }\n' >copyonly.c
for shape in archive shared copy-only; do
	rm -f libexp.so
	case $shape in
	archive) "$RCC" -O2 -shared -fPIC clear.c -o libexp.so 2>err.exp.txt ;;
	shared)	REPSTOS_RUNTIME=shared "$RCC" -O2 -shared -fPIC clear.c -o libexp.so 2>err.exp.txt ;;
	*)	REPSTOS_RUNTIME=shared "$RCC" -O2 -I"$top/include" -shared -fPIC copyonly.c -o libexp.so 2>err.exp.txt ;;
	esac
	if [ ! -f libexp.so ]; then
		fail "-shared ($shape): $(errs err.exp.txt)"
	elif nm -D --defined-only libexp.so | grep -q ' [A-Z] .*repstos_sites'; then
		fail "-shared ($shape): the table's bounds are exported: $(nm -D libexp.so | grep repstos_sites | tr '\n' ' ')"
	else
		ok "-shared ($shape): __start_/__stop_repstos_sites not exported, $(sites libexp.so) sites"
	fi
done

finish
