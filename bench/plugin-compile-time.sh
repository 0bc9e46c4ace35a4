#!/bin/sh
# Compile-time overhead of the plugin on a real code base (Debian source
# packages, fetched by tests/realworld/lib.sh's fetch_source into
# build/realworld/), CODE one of:
#   zlib    every C file of zlib (the default)
#   sqlite  sqlite3.c, sqlite's amalgamation: SQLITE_C, or generated
#           once from Debian's sqlite3 source (configure; make
#           sqlite3.c: it needs tclsh) into build/perf-compile/
# compiled at -O2 with plain $CC (gcc) and with -fplugin=plugin/repstos.so
# (made with CC and CXX), alternating, ROUNDS times each (9; 5 for
# sqlite); reports the best and the median CPU time (user+sys) of each
# and the ratio.  Goal: at most 3% overhead.  Results:
# bench/plugin-compile-time.txt; bench/compilers.sh runs CODE=sqlite
# with each tested GCC (bench/compilers.txt).
cd "$(dirname "$0")/.."
CODE=${CODE:-zlib}
cc=${CC:-gcc}
. tests/realworld/lib.sh	# fetch_source; it unsets CC
CC=$cc
out=build/perf-compile
mkdir -p $out

# sqlite_amalgamation: the path of sqlite3.c, generated first if missing.
sqlite_amalgamation() {
	local src gen=$top/$out/sqlite-gen
	if [ ! -s "$gen/sqlite3.c" ]; then
		src=$(fetch_source sqlite3) || return 1
		rm -rf "$gen" && mkdir -p "$gen" &&
		(cd "$gen" && "$src/configure" && make sqlite3.c) \
			>"$top/$out/sqlite-gen.log" 2>&1 ||
			{ echo "sqlite: configure; make sqlite3.c failed (tclsh?)" >&2; return 1; }
	fi
	echo "$gen/sqlite3.c"
}

case $CODE in
zlib)
	ROUNDS=${ROUNDS:-9}
	src=$(fetch_source zlib) || { echo "no zlib source"; exit 77; }
	files=$(ls "$src"/*.c)
	# what zlib's configure defines on Linux
	FLAGS="-D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN -DHAVE_UNISTD_H -DHAVE_STDARG_H" ;;
sqlite)
	ROUNDS=${ROUNDS:-5}
	files=${SQLITE_C:-$(sqlite_amalgamation)} || { echo "no sqlite3.c"; exit 77; }
	FLAGS= ;;
*)	echo "plugin-compile-time.sh: CODE is zlib or sqlite, not $CODE" >&2; exit 2 ;;
esac
make -s CC="$CC" ${CXX:+CXX="$CXX"} plugin/repstos.so || exit 1

# One compile's CPU seconds (user + sys: the rusage of the children
# python3 waited for, as GNU time reads it; the chroots of
# bench/compilers.sh have python3 and no time); fails loudly if gcc
# fails.
one() {
	python3 -c 'import resource, subprocess, sys
if subprocess.call(sys.argv[1:]):
	sys.exit(1)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f" % (r.ru_utime + r.ru_stime))' $CC -O2 $FLAGS -c -o $out/x.o $1 $2 ||
		{ echo "compile failed: $1 $2" >&2; exit 1; }
}

# Interleaved per file (plain, plugin, plain, ...) so that load from
# other jobs hits both alike; each file's minimum over the rounds is its
# cost, the sum over files the total; medians are reported beside.
: >$out/plain; : >$out/plugin
# A compile that fails ends the run: one's exit leaves only the command
# substitution, and a time missing from the sums would pass unseen.
for f in $files; do
	for i in $(seq $ROUNDS); do
		t=$(one $f "") || exit 1
		echo "$f $t" >>$out/plain
		t=$(one $f -fplugin=plugin/repstos.so) || exit 1
		echo "$f $t" >>$out/plugin
	done
done
total() {
	sort -k1,1 -k2,2n $1 | awk -v want=$2 '
		$1 != f { flush(); f = $1; n = 0 } { v[++n] = $2 }
		function flush() { if (n) s += want == "min" ? v[1] : v[int((n + 1) / 2)] }
		END { flush(); printf "%.2f", s }'
}
set -- $(total $out/plain min) $(total $out/plain median) \
	$(total $out/plugin min) $(total $out/plugin median)
n=$(echo $files | wc -w)
echo "plugin compile time on $CODE ($n file$([ $n = 1 ] || echo s), -O2, $ROUNDS rounds each, gcc $($CC -dumpfullversion), $(nproc) cpus)"
echo "  plain gcc:   sum of per-file best $1 s, of medians $2 s (CPU)"
echo "  with plugin: sum of per-file best $3 s, of medians $4 s (CPU)"
awk -v a=$1 -v b=$3 -v c=$2 -v d=$4 'BEGIN {
	printf "  overhead: best %+.1f%%, median %+.1f%% (goal <= 3%%)\n",
		(b / a - 1) * 100, (d / c - 1) * 100 }'
