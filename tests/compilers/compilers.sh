#!/bin/sh
# Proves: the plugin, runtime and tool build with GCC 14 (Debian 13) and with GCC 16 and 15 (Debian testing), with each of them the plugin tests pass (a quick sweep of sites under every routine and kernel mode's unit test among them), and a plugin built by another GCC is refused with a line that says to rebuild it with make.
# `make test-compilers`; root, for chroot and mount.  Each suite's
# chroot is made by mmdebstrap from the Debian archive this machine's own
# apt sources name (read here, never written in the tree) and kept as a
# tarball in $COMPILERS_CACHE (default ~/.cache/repstos/compilers), named
# by the suite and a digest of what went into it: a second run unpacks it
# in seconds, and a changed package list makes a new one (rm the folder
# to take a newer testing suite).  In each chroot, for each GCC there, a
# copy of the tree's tracked files (as they are in the work tree) is
# built with CC=gcc-N CXX=g++-N and runs tests/plugin's tests, the ones
# make test runs (COMPILER_TESTS, from tests/plugin/test.mk): corpus,
# copy corpus, red zone, FORTIFY, ASan, options, --gc-sections, vectors,
# links, the use mark, registers, asm labels, sweep.sh in its quick mode
# (every site op under every routine, variant and patch profile,
# byte-exact by a guard page: the reduced sweep) and kernel.sh (kernel
# mode's unit test).  Every one of them runs in the chroot: /proc is
# mounted for vector.sh (cpuinfo) and ASan, and unmounted at exit.
# Then, in the Debian 13 chroot, this tree's plugin (built by the
# machine's GCC 12) is loaded by GCC 14 through repstos-cc: GCC's
# one-line error, then repstos-cc's saying which GCC built it and to
# rebuild with make.  Last, the GCC versions tested here and by make
# test are those the Makefile's TESTED_GCC claims (repstos-cc --version
# says them), and the README's "What it needs" names each as tested.  Everything runs on CPU 0 (taskset), one
# test at a time.  Variables: COMPILERS_SUITES (default "trixie forky"),
# COMPILERS_CACHE, KEEP=1 (keep the unpacked chroots).
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: chroot and mount"
command -v mmdebstrap >/dev/null || skip "no mmdebstrap (make deps installs it)"
need "$PLUGIN"
cache=${COMPILERS_CACHE:-$HOME/.cache/repstos/compilers}
tests=${COMPILER_TESTS:-$(ls tests/plugin/*.sh | grep -v '/lib\.sh$')}
mkdir -p "$cache" || { fail "cannot make $cache"; finish; }
scratch

# The Debian archive this machine installs from: the first "deb" entry
# not of the security archive, in sources.list or a deb822 .sources file.
archive_uri() {
	{ [ -r /etc/apt/sources.list ] &&
		awk '$1 == "deb" { for (i = 2; i <= NF; i++)
			if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }' \
			/etc/apt/sources.list
	  for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'function end() { if (deb && on && uri != "") print uri
				deb = 0; on = 1; uri = "" }
			BEGIN { on = 1 }
			/^#/ { next }
			/^[ \t]*$/ { end(); next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "enabled:" && tolower($2) == "no" { on = 0 }
			END { end() }' "$f"
	  done; } | grep -v -- '-security' | head -n 1
}
uri=$(archive_uri)
[ -n "$uri" ] || { fail "no Debian archive in /etc/apt/sources.list or sources.list.d/*.sources"; finish; }
note "archive: $uri"

# The chroots: each SUITE's GCC majors (the first the newest, its
# default gcc), the packages mmdebstrap adds, and an apt option.
common="make,libelf-dev,libdw-dev,libcapstone-dev,pkg-config,python3,binutils,file"
suite_gccs() {
	case $1 in
	trixie)	echo 14 ;;
	forky)	echo 16 15 ;;
	esac
}
suite_pkgs() {
	case $1 in
	trixie)	echo "gcc,g++,gcc-14-plugin-dev,$common" ;;
	forky)	echo "gcc,g++,gcc-16-plugin-dev,gcc-15,g++-15,gcc-15-plugin-dev,$common" ;;
	esac
}
suite_aptopt() {
	# testing's Release file in this archive is past its Valid-Until
	case $1 in
	forky)	echo 'Acquire::Check-Valid-Until "false"' ;;
	esac
}

# chroot_tar SUITE: the cached tarball of SUITE's chroot, made first if
# missing; its path on stdout.
chroot_tar() {
	pkgs=$(suite_pkgs $1) opt=$(suite_aptopt $1)
	tar=$cache/$1-$(echo "$1 $pkgs $opt" | sha256sum | cut -c1-12).tar
	if [ ! -s "$tar" ]; then
		rm -f "$cache/$1"-*.tar
		t0=$(date +%s)
		if taskset -c 0 mmdebstrap --variant=apt --format=tar ${opt:+"--aptopt=$opt"} \
			--include="$pkgs" $1 "$tar.tmp" "$uri" \
			>"$W/mmdebstrap-$1.log" 2>&1; then
			mv "$tar.tmp" "$tar"
		else
			rm -f "$tar.tmp"
			echo "mmdebstrap $1: $(tail -n 3 "$W/mmdebstrap-$1.log")" >&2
			return 1
		fi
		echo "made the $1 chroot in $(( $(date +%s) - t0 )) s: $tar" >&2
	fi
	echo "$tar"
}

# The tree as it is: tracked and new files, not build output.
copy_tree() {
	mkdir -p "$1" &&
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf - | tar -xf - -C "$1"
}

mounted=""
unmount_all() {
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		if grep -q " $m " /proc/mounts; then
			# never let the scratch folder's removal walk into it
			echo "FAIL: $m is still mounted"
			fails=$((fails + 1))
		fi
	done
}
at_exit unmount_all

# in_chroot ROOT CMD...: CMD in ROOT, on CPU 0, with a clean environment
in_chroot() {
	r=$1; shift
	taskset -c 0 chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 TEST_JOBS=1 "$@"
}

# run_gcc ROOT N: the tree built with gcc-N and tests/plugin's tests run
run_gcc() {
	r=$1 v=$2 src=/src-$2
	copy_tree "$r$src" || { fail "gcc-$v: cannot copy the tree"; return 1; }
	full=$(in_chroot $r gcc-$v -dumpfullversion)
	t0=$(date +%s)
	if in_chroot $r sh -c "cd $src && make -j1 CC=gcc-$v CXX=g++-$v all" \
			>"$W/build-$v.log" 2>&1; then
		warns=$(grep -c 'warning:' "$W/build-$v.log")
		ok "gcc-$v ($full): plugin, runtime and tool built in $(( $(date +%s) - t0 )) s, $warns warnings"
	else
		fail "gcc-$v: the build fails:"
		tail -n 20 "$W/build-$v.log"
		return 1
	fi
	built=$(grep -a -o 'repstos plugin built for GCC [0-9.]*' "$r$src/plugin/repstos.so")
	[ "$built" = "repstos plugin built for GCC $full" ] &&
		ok "gcc-$v: the plugin says it was built for GCC $full" ||
		fail "gcc-$v: the plugin's mark is '$built'"
	t0=$(date +%s)
	in_chroot $r sh -c "cd $src && CC=gcc-$v REPSTOS_CC=gcc-$v REPSTOS_CXX=g++-$v tests/run-tests $tests" \
		>"$W/tests-$v.log" 2>&1
	rc=$?
	line=$(tail -n 1 "$W/tests-$v.log")
	if [ $rc -eq 0 ] && echo "$line" | grep -q ' passed, 0 failed, 0 skipped$'; then
		ok "gcc-$v: tests/plugin: $line in $(( $(date +%s) - t0 )) s"
	else
		fail "gcc-$v: tests/plugin: $line (exit $rc):"
		grep -v '^PASS' "$W/tests-$v.log" | tail -n 40
		cp -r "$r$src/build/test-logs" "$W/test-logs-$v" 2>/dev/null
	fi
	# the corpus' sites at each build (corpus.sh's lines)
	sites=$(sed -n 's/^ok: \([^:]*\): [0-9]* marked lines, \([0-9]*\) sites.*/\1 \2/p' \
		"$r$src/build/test-logs/plugin-corpus.sh.log" | tr '\n' ',' | sed 's/,$//; s/,/, /g')
	echo "summary: gcc-$v ($full) corpus sites: $sites"
	tested="$tested $v"
}

# mismatch ROOT N: this tree's plugin (the machine's GCC) loaded by gcc-N
mismatch() {
	r=$1 v=$2 d=$1/mismatch
	mkdir -p $d/plugin && cp "$PLUGIN" plugin/repstos-cc $d/plugin/ &&
		printf 'void f(char *p, unsigned long n) { __builtin_memset(p, 0, n); }\n' >$d/t.c
	host=$(gcc -dumpfullversion)
	in_chroot $r env REPSTOS_CC=gcc-$v /mismatch/plugin/repstos-cc -O2 -c \
		-o /mismatch/t.o /mismatch/t.c >$d/out 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'cannot load plugin' $d/out &&
	   grep -q "^repstos-cc: .* was built for GCC $host, and gcc-$v is GCC .*: rebuild it with this GCC .*make" $d/out; then
		ok "GCC $host's plugin under gcc-$v: exit $rc, $(cat $d/out | tr '\n' '|' | sed 's/|$//; s/|/ | /g')"
	else
		fail "GCC $host's plugin under gcc-$v: exit $rc:"
		cat $d/out
	fi
}

tested=""
for suite in ${COMPILERS_SUITES:-trixie forky}; do
	[ -n "$(suite_gccs $suite)" ] || { fail "$suite: not a suite this test knows"; continue; }
	tar=$(chroot_tar $suite) || { fail "$suite: no chroot"; continue; }
	r=$W/$suite
	mkdir -p $r && tar -xf "$tar" -C $r || { fail "$suite: cannot unpack $tar"; continue; }
	mount -t proc proc $r/proc || { fail "$suite: cannot mount /proc"; continue; }
	mounted="$mounted $r/proc"
	gccs=$(suite_gccs $suite)
	newest=$(in_chroot $r gcc -dumpversion)
	[ "$newest" = "${gccs%% *}" ] && ok "$suite: gcc is gcc-$newest" ||
		fail "$suite: gcc is gcc-$newest, not gcc-${gccs%% *}: the suite moved on"
	for v in $gccs; do
		run_gcc $r $v
	done
	[ $suite = trixie ] && mismatch $r 14
	umount $r/proc && mounted=$(echo "$mounted" | sed "s| $r/proc||")
	[ "${KEEP:-0}" = 1 ] || rm -rf "$r"
done

# What repstos-cc --version and the README claim: these and make test's GCC.
claim=$(sed -n 's/^TESTED_GCC[ 	]*:=[ 	]*//p' Makefile)
ran=$(echo "$(gcc -dumpversion) $tested" | tr ' ' '\n' | grep . | sort -n -u | tr '\n' ' ' | sed 's/ $//')
[ "$ran" = "$claim" ] && ok "tested GCC $ran: the Makefile's TESTED_GCC" ||
	fail "tested GCC '$ran', but the Makefile's TESTED_GCC says '$claim'"
# the README's "What it needs": "tested with GCC 12 (...), 14 (...) ...",
# its numbers outside parentheses, to the sentence's end
said=$(sed -n '/^## What it needs/,/^## /p' README.md | tr '\n' ' ' |
	sed -n 's/.*tested with \([^.]*\)\..*/\1/p' | sed 's/([^)]*)//g' |
	grep -o '[0-9][0-9]*' | sort -n -u | tr '\n' ' ' | sed 's/ $//')
[ "$said" = "$ran" ] && ok "the README's first screen says GCC $said are tested" ||
	fail "the README's 'What it needs' says GCC '$said' are tested, not '$ran'"
finish
