#!/bin/sh
# real.sh - real programs from Debian source packages, each built plain
# (gcc -O2), with repstos-cc (set sites) and with repstos-cc
# -fplugin-arg-repstos-copy (set and copy sites), timed under every
# routine: the repstos builds under REPSTOS_VARIANT=auto, each set
# routine, libc (the set build) and auto, each copy routine, libc (the
# set+copy build; a copy routine's name forces the set sites too where
# the set family has a routine of that name); and the set+copy build
# linked with the full runtime, as it is and from a size profile of its
# own run.  `make bench-real`.
#
#   bench/real/real.sh            ROUNDS=15 PROGS='sqlite zstd jq lua' CPU=1
#
# REAL_CC=clang-16 builds with clang (plain) and with repstos-cc on
# clang (the LLVM pass), in build/bench/real-clang-16; REAL_CONFIGS
# names the configurations to time (all unless given: plain:-,
# repstos:VARIANT, copy:VARIANT, count:auto, count:profiled).  A
# configuration's VARIANT may end in @FILE: run under REPSTOS_TUNING=FILE,
# which the count build's full runtime reads (count:profiled@/tmp/t: the
# profiled run with that tuning file's choices instead of the CPU's
# row), so that two policies are timed side by side in one run.
#
# The configurations run round by round, in a new random order each
# round, pinned to CPU $CPU with taskset; each round's /proc/loadavg goes
# into the raw data ($WORK/raw.txt, then copied beside the results as
# real-raw.txt by the make target).  bench/real/stats.py then gives, per
# program, the median time with min..max, the ratio plain/config, a
# Friedman test over the configurations and a Wilcoxon signed-rank test
# of each against plain.  bench/real/README.md says what each program
# runs and why.  Needs the built tree (plugin, runtime, tool), deb-src,
# tclsh (the sqlite amalgamation), autoreconf and libtool (jq), python3.
ROUNDS=${ROUNDS:-15}
PROGS=${PROGS:-sqlite zstd jq lua}
CPU=${CPU:-1}
. tests/realworld/lib.sh
. bench/lib.sh
WORK=$top/build/bench/real${REAL_CC:+-$REAL_CC}
BIN=$WORK/bin
[ -z "${REAL_CC:-}" ] || export REPSTOS_CC=$REAL_CC
. "$top/bench/real/build.sh"
TOOL=$top/patcher/repstos
for f in plugin/repstos.so plugin/repstos-cc runtime/librepstos.a \
		runtime/librepstos-full.a patcher/repstos; do
	[ -e "$top/$f" ] || { echo "real: needs $f (make)"; exit 77; }
done
mkdir -p "$BIN" || exit 1

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); cpu: $(cpu_desc); $(nproc) cpus"
echo "compiler: $(${REAL_CC:-gcc} --version | head -n 1)"
echo "load at start: $(cat /proc/loadavg)"
t0=$(date +%s)

# ---- builds and inputs ------------------------------------------------
for p in $PROGS; do
	tb=$(date +%s)
	build_$p || { echo "real: building $p failed"; exit 1; }
	echo "built $p (plain, repstos, repstos+copy): $(($(date +%s) - tb)) s"
done
# zstd's input: the zstd sources themselves (5.6 MB of C), as macro.sh
# takes them, repeated and cut at 64 MiB: 4 KiB blocks are
# compressed independently, so the repeats find no match further back.
case " $PROGS " in *" zstd "*)
	[ -f "$WORK/zstd.in" ] || {
		cat $(find "$(fetch_source libzstd)" -name '*.[ch]' | sort) >"$WORK/zstd.src" &&
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat "$WORK/zstd.src"; done |
			head -c 67108864 >"$WORK/zstd.in"; } ;;
esac
# jq's input: 60,000 generated records, one JSON object a line (about
# 18 MB): strings, numbers, an array and a nested object each.
case " $PROGS " in *" jq "*)
	[ -f "$WORK/jq.in" ] || awk 'BEGIN { srand(22)
		for (i = 0; i < 60000; i++) {
			printf "{\"id\":%d,\"name\":\"user %d %s\",\"email\":\"u%d@example.org\",", \
				i, i, substr("abcdefghijklmnopqrstuvwxyz", 1 + i % 20, 1 + i % 7), i
			printf "\"score\":%.3f,\"active\":%s,\"tags\":[", rand() * 100, i % 3 ? "true" : "false"
			n = 1 + int(rand() * 8)
			for (j = 0; j < n; j++) printf "%s\"t%d\"", j ? "," : "", int(rand() * 50)
			printf "],\"address\":{\"street\":\"%d Main St\",\"city\":\"city%d\",\"zip\":\"%05d\"},", \
				i % 997, i % 113, i % 99999
			printf "\"history\":["
			for (j = 0; j < 4; j++) printf "%s{\"t\":%d,\"v\":%.2f}", j ? "," : "", i * 4 + j, rand()
			printf "]}\n"
		} }' >"$WORK/jq.in" ;;
esac

# run_PROG KIND: one timed run of the program, printing "METRIC SECONDS"
# lines (the wall time of the run, or zstd's own measured speed turned
# into seconds per pass over its input).  Output goes nowhere: the
# checksums are compared once, below.
now_ns() { date +%s%N; }
wall() {
	w_a=$(now_ns)
	if taskset -c "$CPU" "$@" >/dev/null 2>>"$WORK/stderr.txt"; then
		w_b=$(now_ns)
		awk -v us=$(( (w_b - w_a) / 1000 )) 'BEGIN { printf "wall %.6f\n", us / 1e6 }'
	else	# no line: the round is incomplete, stats.py leaves it out
		echo "real: exit $?: $*" >>"$WORK/stderr.txt"
	fi
}
SQLITE_ARGS="--memdb --size 25"
run_sqlite() { wall "$BIN/speedtest1-$1" $SQLITE_ARGS; }
ZSTD_ARGS="-q -b1 -i0 -B4096"
run_zstd() {
	taskset -c "$CPU" "$BIN/zstd-$1" $ZSTD_ARGS "$WORK/zstd.in" 2>&1 | tr '\r' '\n' |
		sed -n 's/.* \([0-9.]*\) MB\/s *\([0-9.]*\) MB\/s.*/\1 \2/p' | tail -n 1 |
		awk -v n=$(wc -c <"$WORK/zstd.in") \
			'NF == 2 { printf "compress %.6f\ndecompress %.6f\n", n / ($1 * 1e6), n / ($2 * 1e6) }'
}
JQ_FILTER='select(.score > 30) | {id, name, tags: (.tags | sort), city: .address.city, sum: ([.history[].v] | add)}'
run_jq() { wall "$BIN/jq-$1" -c "$JQ_FILTER" "$WORK/jq.in"; }
LUA_ARGS="13 200000"
run_lua() { wall "$BIN/lua-$1" "$top/bench/real/alloc.lua" $LUA_ARGS; }
# The command line each program runs, for the results.
cmd_sqlite() { echo "speedtest1 $SQLITE_ARGS"; }
cmd_zstd() { echo "zstd $ZSTD_ARGS zstd.in (64 MiB: zstd's C sources repeated; one pass each way, timed by zstd)"; }
cmd_jq() { echo "jq -c '$JQ_FILTER' jq.in ($(wc -c <"$WORK/jq.in") bytes, $(wc -l <"$WORK/jq.in") objects)"; }
cmd_lua() { echo "lua bench/real/alloc.lua $LUA_ARGS"; }
out_sqlite() { "$BIN/speedtest1-$1" $SQLITE_ARGS 2>&1 | grep -v '\.\.\.\.' | md5sum; }
out_zstd() { echo same; }	# -b checks its own round trip
out_jq() { "$BIN/jq-$1" -c "$JQ_FILTER" "$WORK/jq.in" | md5sum; }
out_lua() { "$BIN/lua-$1" "$top/bench/real/alloc.lua" $LUA_ARGS | md5sum; }
bin_of() { case $1 in sqlite) echo speedtest1 ;; zstd) echo zstd ;; jq) echo jq ;; lua) echo lua ;; esac; }

# The configurations: "KIND VARIANT" (plain has no variant).  The
# count build (set+copy with the full runtime, which reads size
# profiles) runs as it is and from the profile of its counting run
# below: the profile of the very run it is timed on, which is the best
# a profile can know.
CONFIGS="plain:-"
for v in auto $(variants); do CONFIGS="$CONFIGS repstos:$v"; done
for v in auto $(variants copy); do CONFIGS="$CONFIGS copy:$v"; done
CONFIGS="$CONFIGS count:auto count:profiled"
CONFIGS=${REAL_CONFIGS:-$CONFIGS}
label() {
	case $1 in
	*@*) echo "$(label "${1%@*}")@$(basename "${1##*@}")" ;;
	plain:-) echo plain ;;
	repstos:*) echo "set/${1#*:}" ;;
	copy:*) echo "set+copy/${1#*:}" ;;
	count:auto) echo "set+copy/full" ;;
	count:profiled) echo "set+copy/profiled" ;;
	esac
}
run_config() {	# PROG CONFIG
	k=${2%%:*} v=${2#*:}
	case $v in *@*)
		(export REPSTOS_TUNING="${v##*@}"; run_config "$1" "${2%@*}")
		return ;;
	esac
	if [ "$k" = plain ]; then run_$1 plain
	elif [ "$v" = profiled ]; then REPSTOS_PROFILE_USE=$WORK/$1.prof run_$1 $k
	else REPSTOS_VARIANT=$v run_$1 $k
	fi
}

# ---- what each program is --------------------------------------------
echo
for p in $PROGS; do
	bn=$(bin_of $p)
	echo "$p: $(cmd_$p)"
	for k in repstos copy; do
		echo "  $(label $k:x | sed 's|/x||') build: $("$TOOL" dump --stats "$BIN/$bn-$k" | head -n 1 | sed 's/^[^:]*: //');" \
			"$("$TOOL" dump --stats "$BIN/$bn-$k" | sed -n 's/^op: //p')"
	done
	# Site calls, one run of the set+copy build relinked with the full
	# runtime, which records them (REPSTOS_PROFILE).
	rm -f "$WORK/$p.prof"
	REPSTOS_PROFILE=$WORK/$p.prof run_$p count >/dev/null
	"$TOOL" dump --profile="$WORK/$p.prof" "$BIN/$bn-count" >"$WORK/$p.dump" 2>&1
	# dump names each site's op (index, where, -, op); the profile has
	# per site its calls and their sizes by class: 0, 1, 2..3, 4..7, ...
	awk 'FNR == NR { if ($1 ~ /^[0-9]+$/) op[$1] = $4; next }
		$1 == "site" { f = (op[$2] ~ /^(copy|move|move_fwd)$/) ? "copy" : "set"
			calls[f] += $3; sites[f]++
			for (c = 0; c < 22; c++) h[f, c] += $(4 + c) }
		END { for (f in calls) {
				small = 0; for (c = 0; c <= 6; c++) small += h[f, c]
				run = 0; for (c = 0; run * 2 < calls[f]; c++) run += h[f, c]
				c--; cls = c == 0 ? "0" : c == 1 ? "1" : (2 ^ (c - 1)) ".." (2 ^ c - 1)
				printf "  site calls a run, %s sites: %d at %d sites; %.0f%% below 64 B, median size class %s B\n",
					f, calls[f], sites[f], 100 * small / calls[f], cls } }' \
		"$WORK/$p.dump" "$WORK/$p.prof" | sort
	# Every build gives the same output.
	want=$(out_$p plain)
	for k in repstos copy; do
		[ "$(out_$p $k)" = "$want" ] || echo "  WARNING: $p $k prints something else than plain"
	done
done
echo "builds, inputs, counts: $(($(date +%s) - t0)) s"

# ---- the rounds -------------------------------------------------------
raw=$WORK/raw.txt
: >"$raw"
echo "# configs $(for c in $CONFIGS; do label $c; done | tr '\n' ' ')" >>"$raw"
: >"$WORK/stderr.txt"
n=$(echo $CONFIGS | wc -w)
echo "$ROUNDS rounds of $n configurations x $(echo $PROGS | wc -w) programs, pinned to cpu $CPU, random order each round"
t1=$(date +%s)
r=1
while [ $r -le "$ROUNDS" ]; do
	echo "# round $r loadavg $(cat /proc/loadavg) $(date -u +%H:%M:%S)" >>"$raw"
	pi=0
	for p in $PROGS; do
		pi=$((pi + 1))
		# a new order for each round and program, the same on a rerun
		for c in $(echo $CONFIGS | tr ' ' '\n' | awk -v s=$((r * 100 + pi)) \
				'BEGIN { srand(s) } { print rand() "\t" $0 }' | sort -n | cut -f2); do
			load=$(cut -d' ' -f1 /proc/loadavg)
			run_config $p $c | while read -r m s; do
				printf '%s\t%s\t%s\t%s\t%s\t%s\n' $r "$load" $p $m "$(label $c)" "$s"
			done >>"$raw"
		done
	done
	echo "  round $r: $(($(date +%s) - t1)) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
	r=$((r + 1))
done
if [ -s "$WORK/stderr.txt" ]; then
	echo "stderr of the timed runs (first lines):"
	sort "$WORK/stderr.txt" | uniq -c | sort -rn | head -n 5 | sed 's/^/    /'
fi
echo "rounds: $(($(date +%s) - t1)) s; total $(($(date +%s) - t0)) s"
echo
python3 "$top/bench/real/stats.py" "$raw"
# The libc configurations time the adaptor a site needs to call the C
# library (runtime/routines/libc.h: the GPRs, xmm1-15, the mask
# registers, every call), not the C library: plain is the C library's figure.
# Without them, do the rest differ at all?
echo
echo "The same rounds without the libc adaptor (stats.py -x libc):"
echo
python3 "$top/bench/real/stats.py" -x libc "$raw" | grep -v '^load'
