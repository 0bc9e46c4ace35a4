#!/bin/sh
# manysite.sh - bench/manysite.c built plain and with repstos-cc,
# run interleaved on one CPU: glibc's memset through the PLT against the
# sites as the runtime patches them (auto), as it patches them from a size
# profile the program recorded (profiled: REPSTOS_PROFILE, then
# REPSTOS_PROFILE_USE), and under each variant this CPU runs.  Prints ns
# per call (median of R runs, each the best of its rounds) and the speedup
# over the plain build, back to back and with use after write (each
# call's destination depends on a byte the previous call wrote;
# manysite.c), side by side.  -c: the copy program (manysite.c -DOP_COPY, built
# with -fplugin-arg-repstos-copy): glibc's memcpy against the copy sites,
# auto, profiled and each copy routine this CPU runs (REPSTOS_VARIANT=name).
# -r: the memset program whose sites' functions read back what they set
# (manysite.c -DSITE_READ), which the plugin marks.
# MANYSITE_CCS: the compilers, side by side in the same run (gcc unless
# given; "gcc clang-16" adds the clang build: clang's own output, glibc
# through the PLT, as its plain, and the LLVM pass's sites, auto and
# profiled, each speedup over its own compiler's plain build).
#   bench/manysite.sh [-c|-r] [R]
. "$(dirname "$0")/../tests/lib.sh"	# for variants
op=set name=manysite cflags="-O2 -Iinclude -Iruntime -Ipatcher" plugin=""
if [ "${1:-}" = -c ]; then
	op=copy name=manysite-copy cflags="$cflags -DOP_COPY"
	plugin=-fplugin-arg-repstos-copy
	shift
elif [ "${1:-}" = -r ]; then
	name=manysite-read cflags="$cflags -DSITE_READ"
	shift
fi
reps=${1:-11}
ccs=${MANYSITE_CCS:-gcc}
dir=build/bench
mkdir -p $dir
t=$(mktemp -d)
# build CC PREFIX: the plain, harness-only and repstos builds by CC, as
# $dir/PREFIX-plain, -none, -repstos, and a size profile of the repstos
# build's own sites in $t/PREFIX.profile
build() {
	$1 $cflags -o $dir/$2-plain bench/manysite.c &&
	$1 $cflags -DOP_NONE -o $dir/$2-none bench/manysite.c &&
	# librepstos-full.a: the runtime that records and reads size profiles
	REPSTOS_CC=$1 REPSTOS_RUNTIME=full plugin/repstos-cc $cflags $plugin \
		-o $dir/$2-repstos bench/manysite.c &&
	REPSTOS_PROFILE=$t/$2.profile $dir/$2-repstos 1 >/dev/null
}
# The first compiler's builds are $name-*, as they always were; each
# other's $name-CC-*, its configs CC-plain, CC-auto and CC-profiled.
first=${ccs%% *}
build $first $name || exit 1
more=
for cc in ${ccs#$first}; do
	build $cc $name-$cc || exit 1
	more="$more $cc-plain $cc-auto $cc-profiled"
	harnesses="${harnesses:-} $cc-harness"
done
cpu=$(($(nproc) - 1))
# sites_of BUILD: the sites repstos dump counts in BUILD
sites_of() {
	patcher/repstos dump --stats "$1" | sed -n 's/.*pie, \([0-9]*\) sites.*/\1/p'
}
sites=$(sites_of $dir/$name-repstos)
if [ $op = set ]; then
	configs="plain auto profiled"
	for v in $(variants); do
		out=$(REPSTOS_VARIANT=$v $dir/$name-repstos 1 2>&1 >/dev/null)
		echo "$out" | grep -q "lacks" || configs="$configs $v"
	done
else
	# the copy routines the runtime takes here: it says "(forced)"
	configs="plain auto profiled"
	for v in $(variants copy); do
		REPSTOS_DEBUG=1 REPSTOS_VARIANT=$v $dir/$name-repstos 1 2>&1 >/dev/null |
			grep -q "copy $v (forced)" && configs="$configs $v"
	done
fi

configs="$configs$more"
run() {
	p=$name
	case $1 in
	*-plain | *-auto | *-profiled | *-harness) p=$name-${1%-*} ;;
	esac
	case $1 in
	plain | *-plain) taskset -c $cpu $dir/$p-plain 20 ;;
	harness | *-harness) taskset -c $cpu $dir/$p-none 20 ;;
	auto | *-auto) taskset -c $cpu $dir/$p-repstos 20 ;;
	profiled | *-profiled) REPSTOS_PROFILE_USE=$t/$p.profile taskset -c $cpu \
		$dir/$p-repstos 20 ;;
	*) REPSTOS_VARIANT=$1 taskset -c $cpu $dir/$name-repstos 20 ;;
	esac
}

i=0
while [ $i -lt $reps ]; do
	for c in harness ${harnesses:-} $configs; do
		run $c >> $t/$c
	done
	i=$((i + 1))
done
# median FILE [COLUMN]: the runs' ns back to back (1) or with use (3)
median() {
	cut -d' ' -f${2:-1} "$1" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
plain=$(median $t/plain) plain_use=$(median $t/plain 3)
mean=$($dir/$name-plain 1 | cut -d' ' -f2)
if [ $op = set ]; then
	what=memset chose='; variant \([a-z0-9_]*\) '
else
	what=memcpy chose=', copy \([a-z0-9_]*\)'
fi
auto=$(REPSTOS_DEBUG=1 $dir/$name-repstos 1 2>&1 >/dev/null | sed -n "s/.*$chose.*/\1/p")
echo "many-site program: $sites $what sites, each with 3 sizes drawn from one published"
echo "$what distribution, interleaved; mean size $mean bytes; $reps runs, medians"
echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); auto chose: $auto"
echo "compilers: $(for cc in $ccs; do $cc --version | head -1; done | paste -sd';' | sed 's/;/; /g')"
for cc in ${ccs#$first}; do
	echo "the $cc build: $(sites_of $dir/$name-$cc-repstos) sites (a $cc-* config: its speedup over $cc-plain, its harness's own)"
done
h=$(median $t/harness) hu=$(median $t/harness 3)
echo "the harness alone (sites that do nothing): $h ns a call back to back,"
echo "$hu with use after write, in every figure;"
echo "op only: the speedup with it taken out of both sides"
printf '%-18s %26s   %26s\n' "" "back to back" "use after write"
printf '%-18s %8s %8s %8s   %8s %8s %8s\n' config ns/call speedup "op only" \
	ns/call speedup "op only"
for c in $configs; do
	m=$(median $t/$c) mu=$(median $t/$c 3)
	p=$plain pu=$plain_use hc=$h huc=$hu
	case $c in
	*-plain | *-auto | *-profiled)
		p=$(median $t/${c%-*}-plain) pu=$(median $t/${c%-*}-plain 3)
		hc=$(median $t/${c%-*}-harness) huc=$(median $t/${c%-*}-harness 3) ;;
	esac
	awk -v c=$c -v m=$m -v p=$p -v h=$hc \
		-v mu=$mu -v pu=$pu -v hu=$huc 'BEGIN {
		printf "%-18s %8.3f %7.2fx %7.2fx   %8.3f %7.2fx %7.2fx\n", c,
			m, p / m, (p - h) / (m - h), mu, pu / mu, (pu - hu) / (mu - hu) }'
done
rm -rf $t
