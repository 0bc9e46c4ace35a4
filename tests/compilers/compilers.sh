#!/bin/sh
# Proves: the plugin, runtime and tool build with GCC 14 (Debian 13) and with GCC 16 and 15 (Debian testing), with each of them the plugin tests pass (a quick sweep of sites under every routine and kernel mode's unit test among them), and a plugin built by another GCC is refused with a line that says to rebuild it with make.
# `make test-compilers`; root, for chroot and mount.  Each suite's
# chroot is tests/compilers/lib.sh's: made by mmdebstrap from the Debian
# archive this machine's own apt sources name and kept as a tarball in
# $COMPILERS_CACHE (default ~/.cache/repstos/compilers), named by the
# suite and a digest of its packages.  In each chroot, for each GCC there, a
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
. "$(dirname "$0")/lib.sh"
need "$PLUGIN"
tests=${COMPILER_TESTS:-$(ls tests/plugin/*.sh | grep -v '/lib\.sh$')}
mkdir -p "$cache" || { fail "cannot make $cache"; finish; }
scratch

uri=$(archive_uri)
[ -n "$uri" ] || { fail "no Debian archive in /etc/apt/sources.list or sources.list.d/*.sources"; finish; }
note "archive: $uri"

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
	r=$W/$suite
	enter_suite $suite $r || continue
	gccs=$(suite_gccs $suite)
	newest=$(in_chroot $r gcc -dumpversion)
	[ "$newest" = "${gccs%% *}" ] && ok "$suite: gcc is gcc-$newest" ||
		fail "$suite: gcc is gcc-$newest, not gcc-${gccs%% *}: the suite moved on"
	for v in $gccs; do
		run_gcc $r $v
	done
	[ $suite = trixie ] && mismatch $r 14
	leave_suite $r
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
