#!/bin/sh
# Proves: Debian source packages rebuilt with repstos-cc as their C compiler (dpkg-buildpackage, hardening flags, own tests on) build, pass their tests, have sites and pass `repstos check`.
#
#   tests/realworld/debrebuild.sh PKG...      (or: make debrebuild PKGS="...")
#
# Not part of `make test`: each package is built twice, serially, and a
# run over ten packages takes half an hour on one core.  For each source
# package PKG:
#
#   - the source through fetch_source (cached under build/realworld/),
#     then `apt-get build-dep -y SRCDIR`, from its debian/control (a
#     fresh machine has none of them; as root);
#   - two copies of the source, each in its own directory under
#     build/debrebuild/PKG/ (dpkg-buildpackage writes the .debs beside
#     the source: plain/ and repstos/ never share them), each built with
#     `dpkg-buildpackage -b -uc -us` exactly as a buildd would: the
#     flags are dpkg-buildflags' (dpkg-buildpackage exports them,
#     hardening included), DEB_BUILD_OPTIONS is empty (so the package's
#     own tests run; the jobs are dpkg-buildpackage's default, -J auto),
#     and
#       plain    no CC (the package's default: gcc, cc), the very
#                command a buildd runs;
#       repstos  CC=plugin/repstos-cc (what a distribution would set),
#                and a directory first in PATH in which gcc, cc, gcc-12,
#                x86_64-linux-gnu-gcc and x86_64-linux-gnu-gcc-12 run
#                plugin/repstos-cc with REPSTOS_CC=/usr/bin/gcc: some
#                packages name their compiler themselves and never read
#                CC, so only a compiler found in PATH reaches every C
#                compile and link (and repstos-cc runs /usr/bin/gcc by
#                its absolute name, so it cannot find itself again);
#                each call that came by PATH rather than by CC is
#                counted (the "bypass" column), and every call that
#                reached repstos-cc either way too; with DEBREBUILD_CXX=1
#                CXX=repstos-c++, and g++ and c++ there run it (below);
#                with DEBREBUILD_CC=0 CC is not set, the PATH alone
#                wires repstos-cc (a package that hands an exported CC
#                to a cross build of its own, as gzip's win32 one does,
#                fails with CC set); with DEBREBUILD_COPY=1 every call
#                of repstos-cc, by CC or by PATH (and by CXX), gets
#                -fplugin-arg-repstos-copy: copy sites too;
#   - every .deb the repstos build made (not the -dbgsym ones) is
#     unpacked; over every ELF executable and shared object in them the
#     sites are summed (`repstos dump --stats`) and `repstos check` runs
#     on each one (one without a table passes: "no sites");
#   - one row: package, version, sites (ELF files with a table / all),
#     check result, test result (the build's exit status with the tests
#     on, and the number of tests where the log says it in a known form:
#     automake, autotest, ctest, meson, DejaGnu; "?" otherwise), the compiler
#     calls that bypassed CC, and the CPU-time ratio (user + system of
#     everything the build ran) of the repstos build to the plain one;
#     with DEBREBUILD_COPY=1 a last column, the copy sites among the
#     sites (ops copy, move and move_fwd).
#
# The run cannot pass silently: a row with a failed build, a failed
# check, or no site in any ELF file of the packages and no compiler call
# through repstos-cc (the wiring failed) makes the exit status 1.  A
# package with calls but no site (GCC expanded every memset itself, as
# in jansson) says "0 (N calls)".  A package whose plain build fails too
# (or whose build dependencies cannot be installed) is a SKIP row: it
# says nothing about repstos.  Logs: build/debrebuild/PKG/{plain,repstos}.log;
# the table also in build/debrebuild/table.txt.
. "$(dirname "$0")/lib.sh"
serialize debrebuild

need "$PLUGIN" "$RCC" "$TOOL" "$RTLIB"

[ $# -gt 0 ] || { echo "usage: $0 PKG... (Debian source packages)"; exit 2; }
for t in dpkg-buildpackage:dpkg-dev apt-get:apt dpkg-deb:dpkg; do
	command -v "${t%%:*}" >/dev/null ||
		{ echo "FAIL: no ${t%%:*} (Debian package ${t#*:})"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || echo "note: not root: apt-get build-dep cannot install anything"

# dpkg-buildpackage sets the flags itself; no option of ours (nocheck,
# parallel) and no compiler choice from outside may reach the builds.
unset DEB_BUILD_OPTIONS DEB_CFLAGS_APPEND DEB_CFLAGS_SET DEB_LDFLAGS_APPEND \
	DEB_LDFLAGS_SET DEB_CPPFLAGS_APPEND DEB_CPPFLAGS_SET DEB_BUILD_MAINT_OPTIONS \
	CXX CPP LD

REALGCC=$(readlink -f /usr/bin/gcc)
[ -x "$REALGCC" ] || { echo "FAIL: no /usr/bin/gcc"; exit 1; }
W=$top/build/debrebuild
mkdir -p "$W" || exit 1

# DEBREBUILD_COPY=1: copy sites as well.  repstos-cc takes plugin
# options as arguments only, and CFLAGS would miss the packages that
# ignore it (libffi), so the wrappers below put the option on every call.
COPYARG=
if [ "${DEBREBUILD_COPY:-0}" = 1 ]; then
	COPYARG=" $COPY_OPT"
	echo "note: DEBREBUILD_COPY=1: $COPY_OPT on every repstos-cc call (copy sites too)"
fi

# The shim directory: every name a package may call the C compiler by.
SHIM=$W/shim
rm -rf "$SHIM" && mkdir -p "$SHIM" || exit 1
cat >"$SHIM/gcc" <<EOF
#!/bin/sh
# repstos-cc for a package that names its compiler itself (debrebuild.sh).
[ -z "\${REPSTOS_SHIM_LOG:-}" ] || echo "\${0##*/}" >>"\$REPSTOS_SHIM_LOG"
[ -z "\${REPSTOS_CALL_LOG:-}" ] || echo "\${0##*/}" >>"\$REPSTOS_CALL_LOG"
REPSTOS_CC=/usr/bin/gcc exec "$RCC"$COPYARG "\$@"
EOF
chmod +x "$SHIM/gcc" || exit 1
# CC: repstos-cc itself, each call counted, so that a package whose
# memsets all stay GCC's (constant sizes: jansson) is told apart from
# one the plugin never reached.
mkdir -p "$SHIM/cc-wrap" || exit 1
printf '#!/bin/sh\n[ -z "${REPSTOS_CALL_LOG:-}" ] || echo CC >>"$REPSTOS_CALL_LOG"\nexec "%s"%s "$@"\n' \
	"$RCC" "$COPYARG" >"$SHIM/cc-wrap/repstos-cc" &&
	chmod +x "$SHIM/cc-wrap/repstos-cc" || exit 1
gv=$(gcc -dumpversion | cut -d. -f1)
for n in cc gcc-$gv x86_64-linux-gnu-gcc x86_64-linux-gnu-gcc-$gv; do
	ln -s gcc "$SHIM/$n" || exit 1
done
# DEBREBUILD_CXX=1: the C++ driver too, CXX=repstos-c++ and g++ in PATH
# running it with REPSTOS_CXX=/usr/bin/g++.  A C object with sites needs
# the runtime at whatever links it, and a package linking its C objects
# with g++ (a C++ test, libtool with one C++ source) fails without it;
# this also runs the plugin on C++ units.  Off by default: the rows are
# about C.
REPSTOS_CXX_WRAP=${RCC%-cc}-c++
if [ "${DEBREBUILD_CXX:-0}" = 1 ]; then
	cat >"$SHIM/g++" <<EOF
#!/bin/sh
# repstos-c++ for a package that names its C++ driver itself (debrebuild.sh).
REPSTOS_CXX=/usr/bin/g++ exec "$REPSTOS_CXX_WRAP"$COPYARG "\$@"
EOF
	chmod +x "$SHIM/g++" || exit 1
	for n in c++ g++-$gv x86_64-linux-gnu-g++ x86_64-linux-gnu-g++-$gv; do
		ln -s g++ "$SHIM/$n" || exit 1
	done
	# CXX: repstos-c++ itself, or with the copy option a wrapper whose
	# name still says c++ (repstos-cc picks the driver by its name).
	CXXW=$REPSTOS_CXX_WRAP
	if [ -n "$COPYARG" ]; then
		CXXW=$SHIM/cc-wrap/repstos-c++
		printf '#!/bin/sh\nexec "%s"%s "$@"\n' "$REPSTOS_CXX_WRAP" "$COPYARG" >"$CXXW" &&
			chmod +x "$CXXW" || exit 1
	fi
	echo "note: DEBREBUILD_CXX=1: CXX=repstos-c++, g++ and c++ run it too (plugin on C++ units, runtime at C++ links)"
fi
[ "${DEBREBUILD_CC:-1}" = 1 ] ||
	echo "note: DEBREBUILD_CC=0: CC is not set, repstos-cc comes by PATH alone (bypass: every call)"
# The shim reaches the plugin, and repstos-cc cannot loop back into it;
# with DEBREBUILD_COPY=1 the copy becomes a site too, without none does.
printf '#include <string.h>\nvoid z(char *p, unsigned long n) { memset(p, 0, n); }\nvoid c(char *d, const char *s, unsigned long n) { memcpy(d, s, n); }\n' >"$W/shim.c"
if ! (PATH=$SHIM:$PATH; export PATH; cd "$W" &&
      timeout 60 cc -O2 -c shim.c -o shim.o) >"$W/shim.log" 2>&1 ||
   [ "$(sites "$W/shim.o")" -eq 0 ]; then
	echo "FAIL: the PATH shim ($SHIM/cc) does not compile with the plugin: $(head -n 3 "$W/shim.log")"
	exit 1
fi
if [ -n "$COPYARG" ] && [ "$(op_count "$W/shim.o" copy)" -eq 0 ]; then
	echo "FAIL: DEBREBUILD_COPY=1, but the PATH shim made no copy site"; exit 1
elif [ -z "$COPYARG" ] && [ "$(op_count "$W/shim.o" copy)" -ne 0 ]; then
	echo "FAIL: the PATH shim made a copy site without DEBREBUILD_COPY=1"; exit 1
fi

# The CPU time (user + system, s) of what `times` printed for the
# children of a shell (its second line: "0m1.23s 0m0.45s").
cpu_secs() {
	sed -n 2p "$1" | awk '{
		s = 0
		for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); s += a[1] * 60 + a[2] }
		printf "%.1f", s }'
}

# The tests a build log reports, in the forms known here; empty if none.
test_count() {
	awk '
	/^# TOTAL: *[0-9]+/		{ am += $3; next }		# automake
	/^# PASS: *[0-9]+/		{ ampass += $3; next }
	/tests passed, [0-9]+ tests failed out of [0-9]+/ { ct += $NF; next }	# ctest
	/^[0-9]+ tests? (were successful|was successful)/ { at += $1; next }	# autotest
	/^All [0-9]+ tests? (were successful|was successful)/ { at += $2; next }
	/^All [0-9]+ tests passed/	{ old += $2; next }		# old automake
	/^# of expected passes[ \t]+[0-9]+/ { dj += $NF; next }	# DejaGnu
	/^Ok: +[0-9]+/			{ ms += $2; next }		# meson
	END {
		n = am + ct + at + old + dj + ms
		if (n > 0) printf "%d", n
	}' "$1"
}

# build VARIANT: dpkg-buildpackage in build/debrebuild/$pkg/VARIANT/src.
# Sets rc, secs (CPU) and wall; the log is $pkg/VARIANT.log.
build() {
	d=$W/$pkg/$1
	rm -rf "$d" && mkdir -p "$d" && cp -a "$src" "$d/src" || { rc=1; secs=0; wall=0; return; }
	: >"$W/$pkg/$1.bypass"
	: >"$W/$pkg/$1.calls"
	t=$(now)
	if [ "$1" = plain ]; then
		(cd "$d/src" &&
		 sh -c 'dpkg-buildpackage -b -uc -us; rc=$?; times >../times; exit $rc') \
			>"$W/$pkg/$1.log" 2>&1
	else
		(cd "$d/src" && REPSTOS_CC=/usr/bin/gcc PATH=$SHIM:$PATH \
			REPSTOS_SHIM_LOG=$W/$pkg/$1.bypass \
			REPSTOS_CALL_LOG=$W/$pkg/$1.calls
		 export REPSTOS_CC PATH REPSTOS_SHIM_LOG REPSTOS_CALL_LOG
		 if [ "${DEBREBUILD_CC:-1}" = 1 ]; then CC=$SHIM/cc-wrap/repstos-cc; export CC; fi
		 if [ "${DEBREBUILD_CXX:-0}" = 1 ]; then
			CXX=$CXXW REPSTOS_CXX=/usr/bin/g++; export CXX REPSTOS_CXX
		 fi
		 sh -c 'dpkg-buildpackage -b -uc -us; rc=$?; times >../times; exit $rc') \
			>"$W/$pkg/$1.log" 2>&1
	fi
	rc=$?
	wall=$(($(now) - t))
	secs=$(cpu_secs "$d/times")
}

# What the log says of the tests: "pass (N tests)", "pass (count?)",
# "not run" when dh_auto_test never ran, or "FAIL".
tests_of() {	# LOG RC
	n=$(test_count "$1")
	if grep -q -e 'dh_auto_test' -e 'override_dh_auto_test' "$1"; then
		ran=1
	elif [ -n "$n" ]; then
		ran=1
	else
		ran=0
	fi
	if [ "$2" -ne 0 ]; then
		echo "FAIL"
	elif [ $ran -eq 0 ]; then
		echo "not run"
	else
		echo "pass (${n:-?} tests)"
	fi
}

rows=$W/table.txt
bad=0 built=0 copies=
# The seven columns, and with DEBREBUILD_COPY=1 the copy sites ($copies).
fmt() {
	if [ -n "$COPYARG" ]; then
		printf '%-12s %-22s %-13s %-12s %-20s %-7s %-28s %s\n' "$@" "${copies:--}"
	else
		printf '%-12s %-22s %-13s %-12s %-20s %-7s %s\n' "$@"
	fi
}
row() { fmt "$@" | tee -a "$rows"; }
copies="copy sites"
fmt package version "sites (files)" check tests bypass "cpu s plain/repstos = ratio" >"$rows"

for pkg in "$@"; do
	copies=
	mkdir -p "$W/$pkg" || exit 1
	echo "== $pkg: build dependencies, source ($(date +%H:%M:%S))"
	src=$(fetch_source "$pkg" 2>"$W/$pkg/fetch.why") || {
		echo "SKIP: $pkg: cannot fetch the source: $(tail -n 1 "$W/$pkg/fetch.why")"
		row "$pkg" - - - "SKIP (source)" - -
		continue
	}
	# From the unpacked source's debian/control: the machine needs no
	# deb-src entry of its own (fetch_source's apt is private).
	if ! DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq \
			-o DPkg::Lock::Timeout=900 "$src" \
			>"$W/$pkg/build-dep.log" 2>&1; then
		echo "SKIP: $pkg: apt-get build-dep failed: $(grep -E '^E:' "$W/$pkg/build-dep.log" | head -n 1)"
		row "$pkg" - - - "SKIP (build-dep)" - -
		continue
	fi
	ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version 2>/dev/null)

	echo "== $pkg $ver: plain build ($(date +%H:%M:%S))"
	build plain; prc=$rc psecs=$secs pwall=$wall
	echo "   exit $prc, ${psecs} s CPU, ${pwall} s"
	if [ $prc -ne 0 ]; then
		echo "SKIP: $pkg: the plain build fails too (exit $prc): $W/$pkg/plain.log"
		tail -n 5 "$W/$pkg/plain.log" | sed 's/^/    /'
		row "$pkg" "$ver" - - "SKIP (plain FAIL)" - -
		continue
	fi
	echo "== $pkg $ver: repstos build ($(date +%H:%M:%S))"
	build repstos; rrc=$rc rsecs=$secs rwall=$wall
	echo "   exit $rrc, ${rsecs} s CPU, ${rwall} s"
	ratio=$(awk -v a="$psecs" -v b="$rsecs" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "?" }')
	tcol="$psecs/$rsecs = ${ratio}x"
	bypass=$(wc -l <"$W/$pkg/repstos.bypass")
	tests=$(tests_of "$W/$pkg/repstos.log" $rrc)
	ptests=$(tests_of "$W/$pkg/plain.log" 0)
	[ "$ptests" = "$tests" ] || [ $rrc -ne 0 ] ||
		echo "note: $pkg: tests plain: $ptests, repstos: $tests"
	if [ $rrc -ne 0 ]; then
		echo "FAIL: $pkg: the repstos build fails (exit $rrc), the plain one passes: $W/$pkg/repstos.log"
		tail -n 15 "$W/$pkg/repstos.log" | sed 's/^/    /'
		row "$pkg" "$ver" - - FAIL "$bypass" "$tcol"
		bad=1
		continue
	fi

	built=$((built + 1))
	# Every ELF executable and shared object of the .debs built.
	root=$W/$pkg/repstos/root
	rm -rf "$root" && mkdir -p "$root" || exit 1
	ndeb=0
	for deb in "$W/$pkg/repstos"/*.deb; do
		case $deb in *-dbgsym_*|*'*.deb') continue ;; esac
		dpkg-deb -x "$deb" "$root" || { echo "FAIL: dpkg-deb -x $deb"; bad=1; }
		ndeb=$((ndeb + 1))
	done
	total=0 files=0 tabled=0 failing=0 ncopy=0
	: >"$W/$pkg/sites.txt"
	for f in $(linked_elf_files "$root" | grep -v '/usr/lib/debug/'); do
		files=$((files + 1))
		n=$(sites "$f")
		total=$((total + n))
		echo "$n ${f#"$root"}" >>"$W/$pkg/sites.txt"
		[ -z "$COPYARG" ] || [ "$n" -eq 0 ] ||
			ncopy=$((ncopy + $(op_counts "$f" |
				awk '{ for (i = 1; i < NF; i += 2) if ($i ~ /^(copy|move|move_fwd)$/) s += $(i + 1) } END { print s + 0 }')))
		! has_table "$f" || tabled=$((tabled + 1))
		# Without a table check says "no sites" and passes.
		if ! "$TOOL" check "$f" >"$W/$pkg/check.out" 2>&1; then
			failing=$((failing + 1))
			echo "FAIL: $pkg: repstos check ${f#"$root"}:"
			head -n 5 "$W/$pkg/check.out" | sed 's/^/    /'
		fi
	done
	if [ $failing -eq 0 ]; then check=ok; else check="$failing failing"; bad=1; fi
	calls=$(wc -l <"$W/$pkg/repstos.calls")
	if [ $total -eq 0 ] && [ "$calls" -eq 0 ]; then
		echo "FAIL: $pkg: no site in any of the $files ELF files of its $ndeb .debs, and no compiler call went through repstos-cc: the wiring failed"
		sites_col="0 (NONE!)"
		bad=1
	elif [ $total -eq 0 ]; then
		echo "note: $pkg: $calls compiler calls through repstos-cc, no site: every memset-family call stayed GCC's (-fplugin-arg-repstos-verbose tells)"
		sites_col="0 ($calls calls)"
	else
		sites_col="$total ($tabled/$files)"
	fi
	[ -z "$COPYARG" ] || copies=$ncopy
	row "$pkg" "$ver" "$sites_col" "$check" "$tests" "$bypass" "$tcol"
done

echo
echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/^model name[^:]*: *//')," \
	"family $(grep -m1 '^cpu family' /proc/cpuinfo | sed 's/.*: *//')" \
	"model $(grep -m1 '^model[^ ]*:' /proc/cpuinfo | sed 's/.*: *//'); $(date -u '+%Y-%m-%d %H:%M UTC')"
cat "$rows"
[ $bad -eq 0 ] || exit 1
[ $built -gt 0 ] || skip "no package could be rebuilt here"
exit 0
