#!/bin/sh
# Compile-time overhead of the plugin on a real code base: every C file
# of zlib (Debian source package, fetched by tests/realworld/lib.sh's
# fetch_source into build/realworld/) compiled at -O2 with plain gcc
# and with -fplugin=plugin/repstos.so, alternating, ROUNDS times each;
# reports the best and the median CPU time (user+sys) of each and the
# ratio.  Goal: at most 3% overhead.  Results: bench/plugin-compile-time.txt.
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-9}
cc=${CC:-gcc}
. tests/realworld/lib.sh	# fetch_source; it unsets CC
CC=$cc
src=$(fetch_source zlib) || { echo "no zlib source"; exit 77; }
make -s plugin/repstos.so || exit 1
files=$(ls "$src"/*.c)
out=build/perf-compile
# what zlib's configure defines on Linux
ZFLAGS="-D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN -DHAVE_UNISTD_H -DHAVE_STDARG_H"
mkdir -p $out

# One compile's CPU seconds (user + sys); fails loudly if gcc fails.
one() {
	/usr/bin/time -f "%U %S" -o $out/t $CC -O2 $ZFLAGS -c -o $out/x.o $1 $2 ||
		{ echo "compile failed: $1 $2" >&2; exit 1; }
	awk '{ printf "%.2f\n", $1 + $2 }' $out/t
}

# Interleaved per file (plain, plugin, plain, ...) so that load from
# other jobs hits both alike; each file's minimum over the rounds is its
# cost, the sum over files the total; medians are reported beside.
: >$out/plain; : >$out/plugin
for f in $files; do
	for i in $(seq $ROUNDS); do
		echo "$f $(one $f "")" >>$out/plain
		echo "$f $(one $f -fplugin=plugin/repstos.so)" >>$out/plugin
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
echo "plugin compile time on zlib ($(echo $files | wc -w) files, -O2, $ROUNDS rounds each, gcc $($CC -dumpfullversion), $(nproc) cpus)"
echo "  plain gcc:   sum of per-file best $1 s, of medians $2 s (CPU)"
echo "  with plugin: sum of per-file best $3 s, of medians $4 s (CPU)"
awk -v a=$1 -v b=$3 -v c=$2 -v d=$4 'BEGIN {
	printf "  overhead: best %+.1f%%, median %+.1f%% (goal <= 3%%)\n",
		(b / a - 1) * 100, (d / c - 1) * 100 }'
