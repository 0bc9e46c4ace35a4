#!/bin/sh
# compilers.sh - `make bench-compilers`: for each GCC the tests run with
# (the machine's, 12; 14 in Debian 13's chroot, 16 and 15 in testing's:
# tests/compilers/lib.sh's chroots, made and cached as make
# test-compilers makes them), the plugin that GCC built:
#  - its compile-time overhead on sqlite3.c: plugin-compile-time.sh
#    CODE=sqlite (ROUNDS rounds of plain and plugin, alternating, -O2;
#    the median and the best CPU time of each);
#  - the sites of the plugin corpus (tests/plugin/corpus.sh) and of the
#    copy corpus (tests/plugin/copy.sh) at each level and build, as
#    their ok lines count them.
# The amalgamation is generated once on the machine (it needs tclsh)
# and copied into each chroot.  Everything runs on CPU 0, one compile at
# a time; root, for chroot and mount.  Prints the results (bench/
# compilers.txt is one run's) and keeps each run's logs in the scratch
# folder with KEEP=1.  Variables: ROUNDS (7), COMPILERS_SUITES
# (default "trixie forky"), COMPILERS_CACHE, GCCS (the GCC majors to
# measure, default all: the machine's and every suite's; a run without
# the machine's uses the sqlite3.c an earlier run generated).
. "$(dirname "$0")/../tests/lib.sh"
. tests/compilers/lib.sh
need "$PLUGIN" "$RTLIB" "$TOOL"
ROUNDS=${ROUNDS:-7}
mkdir -p "$cache" || { fail "cannot make $cache"; finish; }
scratch
uri=$(archive_uri)
[ -n "$uri" ] || { fail "no Debian archive in the machine's apt sources"; finish; }

# corpus_sites LOG: "NAME N, ..." from corpus.sh's or copy.sh's ok lines
corpus_sites() {
	sed -n 's/^ok: \([^:]*\): [0-9]* marked lines, \([0-9]*\) \(sites\|copy entries\).*/\1 \2/p' "$1" |
		tr '\n' ',' | sed 's/,$//; s/,/, /g'
}

# report V FULL DIR LOGS: the lines of GCC FULL, the tree at DIR (its
# build/test-logs in LOGS), the compile-time run's output in $W/time-V
report() {
	echo "GCC $2:"
	grep -E '^  (plain gcc|with plugin|overhead):' "$W/time-$1"
	echo "  corpus sites: $(corpus_sites "$4/plugin-corpus.sh.log")"
	echo "  copy corpus sites: $(corpus_sites "$4/plugin-copy.sh.log")"
}

# wanted V: GCC V is to be measured (GCCS)
wanted() {
	[ -z "${GCCS:-}" ] || echo " $GCCS " | grep -q " $1 "
}

# measure V FULL ROOT: in ROOT (empty: the machine) with gcc-V (the
# machine's gcc), the corpus tests and the compile time
measure() {
	v=$1 full=$2 r=$3
	wanted $v || return 0
	if [ -z "$r" ]; then
		run() { taskset -c 0 env CC=gcc TEST_JOBS=1 "$@"; }
		d=$top
	else
		# a tree a GCC: another's build would be up to date in it
		run() { in_chroot $r env CC=gcc-$v CXX=g++-$v REPSTOS_CC=gcc-$v \
			REPSTOS_CXX=g++-$v sh -c 'cd /src-'$v' && "$@"' sh "$@"; }
		d=$r/src-$v
		copy_tree $d && mkdir -p $d/build/perf-compile &&
			cp "$sqlite_c" $d/build/perf-compile/sqlite3.c ||
			{ fail "gcc-$v: cannot copy the tree"; return 1; }
		run make -j1 CC=gcc-$v CXX=g++-$v all >"$W/build-$v.log" 2>&1 ||
			{ fail "gcc-$v: the build fails"; tail -n 20 "$W/build-$v.log"; return 1; }
	fi
	run tests/run-tests tests/plugin/corpus.sh tests/plugin/copy.sh \
		>"$W/corpus-$v.log" 2>&1 &&
		ok "GCC $full: $(tail -n 1 "$W/corpus-$v.log")" ||
		{ fail "GCC $full: the corpus tests fail"; tail -n 20 "$W/corpus-$v.log"; }
	if run env CODE=sqlite ROUNDS=$ROUNDS ${r:+SQLITE_C=build/perf-compile/sqlite3.c} \
			bench/plugin-compile-time.sh >"$W/time-$v" 2>&1; then
		ok "GCC $full: $(grep overhead "$W/time-$v")"
	else
		fail "GCC $full: plugin-compile-time.sh fails:"
		cat "$W/time-$v"
		return 1
	fi
	report $v "$full" $d $d/build/test-logs >>"$W/results"
}

: >"$W/results"
# The machine's GCC first: it generates sqlite3.c (fetch_source, tclsh).
full=$(gcc -dumpfullversion)
measure $(gcc -dumpversion) $full "" || finish
sqlite_c=$top/build/perf-compile/sqlite-gen/sqlite3.c
[ -s "$sqlite_c" ] || { fail "no $sqlite_c: run with the machine's GCC first"; finish; }
for suite in ${COMPILERS_SUITES:-trixie forky}; do
	r=$W/$suite
	enter_suite $suite $r || continue
	for v in $(suite_gccs $suite); do
		measure $v "$(in_chroot $r gcc-$v -dumpfullversion)" $r
	done
	leave_suite $r
done

echo "plugin compile time on sqlite3.c ($(wc -l <"$sqlite_c") lines, -O2) and corpus sites, each GCC with the plugin it built"
echo "cpu: $(sed -n 's/^model name[ 	]*: //p' /proc/cpuinfo | head -n 1) (family $(sed -n 's/^cpu family[ 	]*: //p' /proc/cpuinfo | head -n 1), model $(printf '0x%x' "$(sed -n 's/^model[ 	]*: //p' /proc/cpuinfo | head -n 1)")), $(nproc) cpus; CPU 0 only, shared with other jobs"
cat "$W/results"
finish
