#!/bin/bash
# SPDX-License-Identifier: MIT
# patcher-vs-objcopy.sh - how long `repstos check` and `repstos patch`
# take on a large ELF file, side by side with `objcopy` copying the same
# file (the goal: no slower than a plain copy through binutils).
#
# The input is generated: NSITES functions (default 100000), each a
# site and its table entry as REPSTOS_SITE_ASM emits them, padded with
# PAD bytes of code (default 300) to make a file of tens of MB; as an
# object and as an executable linked with runtime/librepstos.a.
# Times are the best of RUNS (default 3) wall-clock runs.  Results go
# to stdout and to bench/patcher-vs-objcopy.txt.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
TOOL=$TOP/patcher/repstos
NSITES=${NSITES:-100000}
PAD=${PAD:-300}
RUNS=${RUNS:-3}
OUTTXT=$TOP/bench/patcher-vs-objcopy.txt
W=$TOP/build/perf/patcher
mkdir -p "$W"

gen() {
	awk -v n="$NSITES" -v pad="$PAD" 'BEGIN {
		print "#include \"repstos_site.h\""
		print "\t.text"
		for (i = 0; i < n; i++) {
			printf "\t.globl f%d\n\t.type f%d, @function\nf%d:\n", i, i, i
			printf "\tlea -128(%%rsp), %%rsp\n"
			printf "\tREPSTOS_SITE(.Ls%d, %d, 0, 0, 0xffffffff)\n", i, i % 3
			printf "\tlea 128(%%rsp), %%rsp\n\t.fill %d, 1, 0x90\n\tret\n", pad
			printf "\t.size f%d, . - f%d\n", i, i
		}
		print "\t.section .note.GNU-stack, \"\", @progbits"
	}' >"$W/big.S"
	printf 'int main(void) { return 0; }\n' >"$W/main.c"
	gcc -I"$TOP/include" -c "$W/big.S" -o "$W/big.o"
	gcc -O2 -c "$W/main.c" -o "$W/main.o"
	gcc -no-pie -o "$W/big" "$W/main.o" "$W/big.o" "$TOP/runtime/librepstos.a"
}

# best SECONDS of RUNS runs of a command, output discarded.
best() {
	local i t0 t1 b=
	for i in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
		t1=$(date +%s%N)
		t=$(( (t1 - t0) / 1000000 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b ? a / b : 0) }'; }

gen
{
	echo "# bench/patcher-vs-objcopy.sh: $(date -u +%Y-%m-%d), $(nproc) cores,"
	echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(objcopy --version | head -1)"
	echo "# $NSITES sites; best of $RUNS runs, wall-clock milliseconds;"
	echo "# ratio = repstos / objcopy (below 1: faster than the copy)"
	printf '%-12s %10s  %-34s %8s %8s %6s\n' file bytes command repstos objcopy ratio
	for f in big big.o; do
		size=$(stat -c %s "$W/$f")
		cp=$(best objcopy "$W/$f" "$W/$f.objcopy")
		c=$(best "$TOOL" check "$W/$f")
		printf '%-12s %10s  %-34s %8s %8s %6s\n' "$f" "$size" "check" "$c" "$cp" "$(ratio "$c" "$cp")"
		p=$(best "$TOOL" patch --cpu=erms "$W/$f" -o "$W/$f.erms")
		printf '%-12s %10s  %-34s %8s %8s %6s\n' "$f" "$size" "patch --cpu=erms -o" "$p" "$cp" "$(ratio "$p" "$cp")"
		p=$(best "$TOOL" patch --cpu=inline "$W/$f" -o "$W/$f.inline")
		printf '%-12s %10s  %-34s %8s %8s %6s\n' "$f" "$size" "patch --cpu=inline -o" "$p" "$cp" "$(ratio "$p" "$cp")"
		d=$(best "$TOOL" dump --stats "$W/$f")
		printf '%-12s %10s  %-34s %8s %8s %6s\n' "$f" "$size" "dump --stats" "$d" "$cp" "$(ratio "$d" "$cp")"
	done
	# The patched files are real: they check clean.
	"$TOOL" check "$W/big.erms" "$W/big.o.inline" && echo "# patched outputs check clean"
} | tee "$OUTTXT"
