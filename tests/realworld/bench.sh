#!/bin/sh
# Measures: zlib's and lz4's own benchmarks, built plain, with memset sites, and with memset+copy sites (issue 12, goal 3).
# Not part of `make test` (`make bench-realworld`, or run it directly).
#
# Builds Debian's zlib and lz4 (the sources realworld.sh fetches, cached
# under build/realworld/) three ways, each with the package's own flags:
#   plain   CC=gcc
#   memset  CC=plugin/repstos-cc                         (memset sites)
#   copy    CC=plugin/repstos-cc, + -fplugin-arg-repstos-copy (memset and
#           memcpy/mempcpy/memmove sites)
# then times, on one fixed corpus (build/realworld/bench/corpus: the
# common licenses, libc.so.6 and the first 6 MiB of cc1, concatenated; its
# size and sha256 go in the results):
#   lz4     `lz4 -b1 -i$LZ4_SECS corpus`: its own benchmark, compression and
#           decompression speed (MB/s) at level 1, in memory;
#   zlib    its minigzip (linked with libz.a): `minigzip -6 <corpus` and
#           `minigzip -d` of that, run $ZLIB_N times in a row each; the
#           wall time of the N.
# The builds are interleaved: $ROUNDS rounds, each runs every build once,
# and the best of the rounds counts.  Ratios are speed against plain
# (above 1: faster than plain).  Results: tests/realworld/results/CPU/
# bench.txt (CPU as bench names it: vendor-family-model in hex).
#
# Pinning: builds run where this script runs (pin it: taskset -c 0 nice);
# each timing run is pinned to CPU $BENCH_CPU (default 1) and is short:
# lz4 about 2*LZ4_SECS s, zlib a few s.
#
#   tests/realworld/bench.sh [-n] [-o DIR]
#     -n      no rebuild: time the builds already there
#     -o DIR  write bench.txt to DIR instead
. "$(dirname "$0")/lib.sh"
serialize bench

BENCH_CPU=${BENCH_CPU:-1}
ROUNDS=${ROUNDS:-3}
LZ4_SECS=${LZ4_SECS:-2}
ZLIB_N=${ZLIB_N:-5}
rebuild=1 out=
while getopts no: o; do
	case $o in
	n) rebuild=0 ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-n] [-o DIR]" >&2; exit 2 ;;
	esac
done

for f in plugin/repstos.so runtime/librepstos.a patcher/repstos plugin/repstos-cc; do
	[ -e "$f" ] || { echo "bench: $f is not built (make)" >&2; exit 1; }
done
zsrc=$(fetch_source zlib) && lsrc=$(fetch_source lz4) ||
	{ echo "bench: no zlib/lz4 source (see above)" >&2; exit 1; }

BD=$RW/bench
mkdir -p "$BD" || exit 1
MODES="plain memset copy"
cc_of() { [ $1 = plain ] && echo gcc || echo "$RCC"; }
opt_of() { [ $1 = copy ] && echo " $COPY_OPT"; }

# ---- the corpus -------------------------------------------------------
C=$BD/corpus
cat /usr/share/common-licenses/* /usr/lib/x86_64-linux-gnu/libc.so.6 >"$C" &&
	head -c 6291456 /usr/lib/gcc/x86_64-linux-gnu/12/cc1 >>"$C" || { echo "bench: corpus" >&2; exit 1; }
csize=$(wc -c <"$C")
csum=$(sha256sum "$C" | cut -c1-16)

# ---- the builds -------------------------------------------------------
if [ $rebuild -eq 1 ]; then
	for m in $MODES; do
		t=$(now)
		why=$(zlib_build "$BD/zlib-$m" "$zsrc" "$(cc_of $m)" "$ZLIB_CFLAGS$(opt_of $m)") ||
			{ echo "bench: zlib $m: $why" >&2; tail -n 20 "$BD/zlib-$m/build.log" >&2; exit 1; }
		why=$(lz4_build "$BD/lz4-$m" "$lsrc" "$(cc_of $m)" "$LZ4_CFLAGS$(opt_of $m)") ||
			{ echo "bench: lz4 $m: $why" >&2; tail -n 20 "$BD/lz4-$m/build.log" >&2; exit 1; }
		echo "built $m: $(($(now) - t)) s"
	done
fi
# The builds must be what they say, and work on the corpus.
for m in $MODES; do
	for f in "$BD/zlib-$m/minigzip" "$BD/lz4-$m/lz4"; do
		[ -x "$f" ] || { echo "bench: $f missing (run without -n)" >&2; exit 1; }
		c=$(op_count "$f" copy) s=$(sites "$f")
		case $m in
		plain)	ok=$([ "$s" -eq 0 ] && echo y) ;;
		memset)	ok=$([ "$s" -gt 0 ] && [ "$c" -eq 0 ] && echo y) ;;
		copy)	ok=$([ "$c" -gt 0 ] && echo y) ;;
		esac
		[ -n "$ok" ] && { [ $m = plain ] || "$TOOL" check "$f" >/dev/null; } ||
			{ echo "bench: $f: $s sites, $c copy sites: not a $m build" >&2; exit 1; }
	done
	"$BD/zlib-$m/minigzip" -6 <"$C" | "$BD/zlib-$m/minigzip" -d | cmp -s - "$C" &&
	"$BD/lz4-$m/lz4" -q -1 -c "$C" | "$BD/lz4-$m/lz4" -q -d -c | cmp -s - "$C" ||
		{ echo "bench: $m: round trip of the corpus fails" >&2; exit 1; }
done

# ---- the timing -------------------------------------------------------
ns() { date +%s%N; }
pin() { taskset -c "$BENCH_CPU" "$@"; }
R=$BD/raw
: >"$R"
for r in $(seq 1 "$ROUNDS"); do
	for m in $MODES; do
		# lz4: its last result line, "1#corpus : A -> B (R), C MB/s , D MB/s"
		line=$(pin "$BD/lz4-$m/lz4" -b1 -i"$LZ4_SECS" "$C" 2>&1 | tr '\r' '\n' |
			grep 'MB/s *,' | tail -n 1)
		echo "$line" | sed -n "s/.*, *\([0-9.]*\) MB\/s *, *\([0-9.]*\) MB\/s.*/lz4 $m $r \1 \2/p" >>"$R"
		# zlib: N compressions, then N decompressions, wall time in ms
		z=$BD/zlib-$m/minigzip
		"$z" -6 <"$C" >"$BD/corpus-$m.gz"
		t=$(ns); for i in $(seq 1 "$ZLIB_N"); do pin "$z" -6 <"$C" >/dev/null; done; tc=$(($(ns) - t))
		t=$(ns); for i in $(seq 1 "$ZLIB_N"); do pin "$z" -d <"$BD/corpus-$m.gz" >/dev/null; done; td=$(($(ns) - t))
		echo "zlib $m $r $((tc / 1000000)) $((td / 1000000))" >>"$R"
	done
	echo "round $r done"
done

# ---- the table --------------------------------------------------------
cpu_dir() {
	awk -F': ' '/^vendor_id/ && !v { v = ($2 ~ /AMD/) ? "amd" : ($2 ~ /Intel/) ? "intel" : "other" }
		/^cpu family/ && !f { f = $2 } /^model[\t ]*:/ && !m { m = $2 }
		END { printf "%s-%02x-%02x\n", v, f, m }' /proc/cpuinfo
}
out=${out:-tests/realworld/results/$(cpu_dir)}
mkdir -p "$out" || exit 1
{
	echo "# tests/realworld/bench.sh: $(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $(cpu_dir), $(uname -r)"
	echo "# timing pinned to CPU $BENCH_CPU; $ROUNDS rounds, builds interleaved, best round; speed ratio vs plain (>1 faster)"
	echo "# corpus: $csize bytes (common-licenses + libc.so.6 + 6 MiB of cc1), sha256 $csum..."
	echo "# sources: $(basename "$zsrc") ($ZLIB_CFLAGS), $(basename "$lsrc") ($LZ4_CFLAGS)"
	echo "# sites (memset zero clear copy move move_fwd) in the timed binaries:"
	for m in memset copy; do
		echo "#   $m: minigzip: $(op_counts "$BD/zlib-$m/minigzip"); lz4: $(op_counts "$BD/lz4-$m/lz4")"
	done
	echo
	awk -v zn="$ZLIB_N" '
	$1 == "lz4"  { k = "lz4 -b1 compress (MB/s)";   v = $4; hi = 1; upd(); k = "lz4 -b1 decompress (MB/s)"; v = $5; upd() }
	$1 == "zlib" { k = "minigzip -6 x" zn " (ms)"; v = $4; hi = 0; upd(); k = "minigzip -d x" zn " (ms)"; v = $5; upd() }
	function upd() {
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k; hib[k] = hi }
		key = k SUBSEP $2
		if (!(key in best) || (hi ? v > best[key] : v < best[key])) best[key] = v
	}
	END {
		printf "%-28s %10s %10s %10s %8s %8s\n", "benchmark", "plain", "memset", "copy", "memset", "copy"
		for (i = 1; i <= nk; i++) {
			k = order[i]; p = best[k SUBSEP "plain"]; s = best[k SUBSEP "memset"]; c = best[k SUBSEP "copy"]
			rs = hib[k] ? s / p : p / s; rc = hib[k] ? c / p : p / c
			printf "%-28s %10s %10s %10s %7.3fx %7.3fx\n", k, p, s, c, rs, rc
		}
	}' "$R"
	echo
	echo "# every round: lz4 MODE ROUND COMPRESS_MB/s DECOMPRESS_MB/s; zlib MODE ROUND COMPRESS_ms DECOMPRESS_ms"
	sed 's/^/# /' "$R"
} >"$out/bench.txt"
cat "$out/bench.txt"
echo "written: $out/bench.txt"
