#!/bin/sh
# macro.sh - a real program plain and with repstos, side by side: zstd
# from Debian's source package, its library and CLI built twice (plain
# gcc; CC=plugin/repstos-cc, the plugin plus librepstos.a), then
# `zstd -b` with small blocks (many short memsets per block), the two
# builds interleaved R times; medians of compression and decompression
# speed, ratio repstos / plain (above 1 = faster).
#   bench/macro.sh [R]        needs plugin/repstos.so, deb-src, network to Debian
reps=${1:-7}
top=$(pwd)
dir=$top/build/bench/macro
[ -x plugin/repstos-cc ] && [ -f plugin/repstos.so ] || {
	echo "macro: needs plugin/repstos.so and plugin/repstos-cc (make)"; exit 77; }
# The source comes the way tests/realworld fetches its packages (one
# place that knows how to add Debian's deb-src entry).
. tests/realworld/lib.sh
. bench/lib.sh
src=$(fetch_source libzstd) || exit 1	# the source package of zstd
mkdir -p $dir && cd $dir || exit 1
# The build is bench/real's (zstd_build), zstd's own flags (-O3).
. $top/bench/real/build.sh
for kind in plain repstos; do
	[ -x $dir/zstd-$kind ] && continue
	zstd_build $src $dir/build-$kind $kind || exit 1
	cp build-$kind/programs/zstd $dir/zstd-$kind
done
# input: the zstd sources themselves (up to 8 MiB of C)
[ -f input ] || { cat $(find $src -name '*.[ch]') | head -c 8388608 > input; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); cpu: $(cpu_desc); $(nproc) cpus"
echo "zstd $(basename $src): $($top/patcher/repstos dump zstd-repstos | head -n 1 | sed 's/^[^:]*: //')"
echo "zstd -b1 -B4096 (4 KiB blocks), $reps interleaved runs; MB/s medians:"
for kind in plain repstos; do : > $kind.txt; done
i=0
while [ $i -lt $reps ]; do
	for kind in plain repstos; do
		./zstd-$kind -q -b1 -i1 -B4096 input 2>&1 | tr '\r' '\n' |
			sed -n 's/.* \([0-9.]*\) MB\/s *\([0-9.]*\) MB\/s.*/\1 \2/p' |
			tail -n 1 >> $kind.txt
	done
	i=$((i + 1))
done
m=$(( (reps + 1) / 2 ))
for kind in plain repstos; do
	c=$(cut -d' ' -f1 $kind.txt | sort -n | sed -n ${m}p)
	d=$(cut -d' ' -f2 $kind.txt | sort -n | sed -n ${m}p)
	echo "  $kind: compress $c MB/s, decompress $d MB/s"
	eval ${kind}_c=$c ${kind}_d=$d
done
awk -v a=$plain_c -v b=$repstos_c -v c=$plain_d -v d=$repstos_d \
	'BEGIN { printf "  repstos / plain: compress %.3fx, decompress %.3fx\n", b / a, d / c }'
