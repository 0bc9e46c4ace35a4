#!/bin/sh
# results.sh LOG [WARM_LOG] - kernel/results/VERSION/test-kernel.txt
# (or defconfig.txt, or test-kernel-clang.txt) from the log of a passing
# tests/kernel/boot.sh (or defconfig.sh, or clang.sh) run,
# build/test-logs/kernel-boot.sh.log after make test-kernel: its build times, sites per image, the share of the plain
# image's memset/memcpy/memmove calls that became sites, objtool's
# warnings plain against plugin, and the boots.  WARM_LOG, the log of a
# second run with the builds cached, adds its times.  The version and
# the config come from the log's own "summary: Linux ..." line, so a
# log can only land in its own version's folder.  RESULTS_NOTE, where
# given, is printed under the head: what the first log's builds were
# (cold, or cached and only relinked) and what else the machine ran.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
log=$1
warm=${2:-}

die() { echo "results.sh: $*" >&2; exit 1; }
[ -f "$log" ] || die "no log $log"
grep -q '^FAIL' "$log" && die "$log is of a failed run"
head=$(sed -n 's/^summary: Linux //p' "$log" | head -1)
[ -n "$head" ] || die "$log says no Linux version (not a tests/kernel log?)"
v=${head%% *}
case $head in
*" defconfig") name=defconfig.txt ;;
*" clang")	name=test-kernel-clang.txt ;;
*)		name=test-kernel.txt ;;
esac
case $v in
*[!0-9.]* | "") die "$log: '$v' is no version" ;;
esac
if [ -n "$warm" ]; then
	[ -f "$warm" ] || die "no log $warm"
	grep -q '^FAIL' "$warm" && die "$warm is of a failed run"
	[ "$(sed -n 's/^summary: Linux //p' "$warm" | head -1)" = "$head" ] ||
		die "$warm is not a run of Linux $head"
fi

# summary WHAT LOG: the log's summary lines that start with WHAT
summary() { sed -n "s|^summary: $1|$1|p" "$2"; }
# built LOG: "VARIANT N s" for each build the log timed
built() {
	sed -n 's/^ok: \([a-z-]*\) kernel built (\([0-9]*\) s).*/\1 \2 s/p' "$1" |
		tr '\n' ',' | sed 's/,$//; s/,/, /g'
}
warnings() {
	sed -n 's/^ok: \([a-z-]*\): \(.*objtool warnings.*\)/\1: \2/p; s/^ok: \(defconfig-plugin: no objtool warning\)/\1/p' "$1"
	summary 'objtool warnings' "$1"
}

out=$top/kernel/results/$v
mkdir -p "$out"
{
	echo "# Linux $head: written by kernel/results.sh from the log of a passing run"
	echo "# ($(basename "$log") of $(date -u -r "$log" '+%Y-%m-%d %H:%M UTC'); written at repstos $(git -C "$top" describe --always --dirty 2>/dev/null || echo '?'))"
	echo "# on $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"
	[ -z "${RESULTS_NOTE:-}" ] || echo "# $RESULTS_NOTE"
	echo
	echo "build times (first log): $(built "$log")"
	[ -z "$warm" ] || echo "build times (warm, builds cached): $(built "$warm")"
	summary 'the test took' "$log" | sed 's/^the test took /whole test (first log): /'
	[ -z "$warm" ] || summary 'the test took' "$warm" | sed 's/^the test took /whole test (warm): /'
	summary 'sites:' "$log"
	summary 'vmlinux calls' "$log"
	sed -n 's/^note: call left: /call left: /p' "$log"
	warnings "$log"
	summary 'vmlinux function bytes' "$log"
	echo
	echo "boots (sites each CPU model got, image and unit):"
	sed -n 's/^summary: \(.* -cpu .*\)/  \1/p' "$log"
} >"$out/$name.tmp"
mv "$out/$name.tmp" "$out/$name"

# The slot for make bench-kernel's figures, until they are there.
[ -f "$out/routines-vs-linux.txt" ] || cat >"$out/routines-vs-linux.txt" <<SLOT
# Linux $v: kernel mode's routines against Linux's own: NOT MEASURED YET.
# The place for what make bench-kernel (kernel/bench.sh) prints for this
# version's memset_64.S and memcpy_64.S: its summary.txt and
# copybench.txt, with the machine they ran on.
SLOT
echo "$out/$name"
