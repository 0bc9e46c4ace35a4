#!/bin/sh
# bench.sh [BENCH ARGS] - kernel mode's routines against Linux's own
# (KERNEL_VERSION: 6.1 unless given, 6.12, 7.3) memset_erms, memset_orig
# and REP_GOOD memset (bench/bench.c) and memcpy_erms, memcpy_orig and
# REP_GOOD memcpy (bench/copybench.c, into results/copybench.txt;
# KCOPYBENCH_ARGS; COPYBENCH_CPU, 1 unless set, the CPU it runs on), in
# user space: TCG timings mean nothing.  Results in
# build/kernel/bench/VERSION/results.
# Since 6.4 Linux has neither memset_erms nor a REP_GOOD body: __memset
# is `jmp memset_orig` patched away on FSRS (FSRM for __memcpy) before
# rep stosb.  There linux_OP_erms names that rep body, and
# linux_OP_rep_good names OP_orig, which is what such a kernel runs on a
# REP_GOOD CPU without the fast-string bit: each pair compares our
# routine with what Linux runs on the CPUs that get it.
# Linux's memset_64.S is assembled here from the fetched source with the
# plain test kernel's generated headers (kernel/build.sh plain first),
# its routines renamed so they link beside glibc; kernel mode's come
# from the plugin, with RET through the return thunk (RETHUNK) and plain.
# bench/bench.c runs them all interleaved, glibc as the reference, with
# the published size distributions and the usage shapes of bench.h.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/kernel/fetch.sh")
gen=$("$top/kernel/outdir.sh" plain)
v=${KERNEL_VERSION:-6.1}
out=$top/build/kernel/bench/$v
pb=$top/build/bench
[ -f "$gen/include/generated/autoconf.h" ] ||
	"$top/kernel/build.sh" plain >&2
mkdir -p "$out"

kinc="-nostdinc -D__KERNEL__ -D__ASSEMBLY__ -I$src/arch/x86/include
	-I$gen/arch/x86/include/generated -I$src/include -I$gen/include
	-I$src/arch/x86/include/uapi -I$gen/arch/x86/include/generated/uapi
	-I$src/include/uapi -I$gen/include/generated/uapi
	-include $src/include/linux/compiler-version.h
	-include $src/include/linux/kconfig.h"
# linux_lib OP: arch/x86/lib/OP_64.S assembled as Linux builds it, its
# OP_erms and OP_orig made global and every name prefixed linux_, so
# that it links beside glibc's: $out/linux_OP.o.
linux_lib() {
	gcc $kinc -c -o "$out/$1_64.o" "$src/arch/x86/lib/$1_64.S" &&
	objcopy --globalize-symbol=$1_erms --globalize-symbol=$1_orig \
		"$out/$1_64.o" "$out/$1_64.g.o" &&
	objcopy --redefine-sym $1_erms=linux_$1_erms \
		--redefine-sym $1_orig=linux_$1_orig \
		--redefine-sym $1=linux_$1 --redefine-sym __$1=linux___$1 \
		"$out/$1_64.g.o" "$out/linux_$1.o"
}
# body_of OP: __OP's body as apply_alternatives() leaves it, past its
# first instructions (ENDBR, "jmp OP_orig", the NOPs it pads; objdump
# may call it by an alias, 7.3's __pi_OP), as
# SECTION:0xOFFSET: 6.1's REP_GOOD body (rep stosq/movsq, then the
# bytes), since 6.4 the FSRS (FSRM) one (rep stosb/movsb).
body_of() {
	objdump -d "$out/linux_$1.o" | awk -v op="$1" '
		/^Disassembly of section/ { sec = $4; sub(":", "", sec) }
		$2 ~ "^<(linux___|linux_|__pi_)" op ">:$" { on = 1; next }
		on && /^$/ { exit }
		on && !/endbr64|jmp|nop/ { sub(":", "", $1); print sec ":0x" $1; exit }'
}
# orig_at OP: OP_orig as SECTION:0xOFFSET (__OP's section: both are in
# memOP_64.S's one text section).
orig_at() {
	sec=$(objdump -t "$out/linux_$1.o" | awk -v f="linux___$1" '$NF == f { print $4; exit }')
	val=$(nm "$out/linux_$1.o" | awk -v f="linux_$1_orig" '$3 == f { print $1 }')
	[ -n "$sec" ] && [ -n "$val" ] && echo "$sec:0x$val"
}
# named OP: linux_OP_erms and linux_OP_rep_good as the header says.
named() {
	body=$(body_of "$1")
	[ -n "$body" ] || { echo "bench.sh: no body in __$1" >&2; return 1; }
	if nm "$out/linux_$1.o" | grep -q " linux_$1_erms\$"; then
		objcopy --add-symbol linux_$1_rep_good=$body,function,global \
			"$out/linux_$1.o"
		return
	fi
	orig=$(orig_at "$1")
	[ -n "$orig" ] || { echo "bench.sh: no $1_orig" >&2; return 1; }
	objcopy --add-symbol linux_$1_erms=$body,function,global \
		--add-symbol linux_$1_rep_good=$orig,function,global \
		"$out/linux_$1.o"
}
for op in memset memcpy; do
	linux_lib $op && named $op || exit 1
done

# the tree's headers tell kernel mode its alt_instr layout (plugin/ktree.c)
kflags="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -I$src/arch/x86/include -I$src/include -fplugin=$top/plugin/repstos.so -fplugin-arg-repstos-kernel"
gcc $kflags -mfunction-return=thunk-extern -c -o "$out/k-thunk.o" "$top/kernel/bench-routines.c"
objcopy --localize-symbol=start_kernel "$out/k-thunk.o"
gcc $kflags -c -o "$out/k-ret.o" "$top/kernel/bench-routines.c"
objcopy --localize-symbol=start_kernel \
	--redefine-sym __repstos_k_set_erms=__repstos_kr_set_erms \
	$(nm "$out/k-ret.o" | sed -n 's/.* T \(__repstos_k_.*\)/\1/p' |
	  grep -v set_erms | sed 's/.*/--localize-symbol=&/') "$out/k-ret.o"
gcc -c -o "$out/bench-asm.o" "$top/kernel/bench.S"

cflags="-std=gnu11 -O2 -g -Iinclude -Iruntime -Ipatcher -Ibench"
cd "$top"
gcc $cflags -DBENCH_KERNEL -c -o "$out/bench.o" bench/bench.c
cands=
for c in linux_memset_erms linux_memset_orig linux_memset_rep_good linux_memset_via_jmp; do
	gcc $cflags -DCAND=$c -DKIND_CALL=$c -c -o "$out/cand-$c.o" bench/cand.c
	cands="$cands $out/cand-$c.o"
done
for c in __repstos_k_set_erms __repstos_k_set_rep_good __repstos_k_set_orig \
		__repstos_kr_set_erms; do
	gcc $cflags -mno-red-zone -DCAND=$c -DKIND_SITE=$c -c -o "$out/cand-$c.o" bench/cand.c
	cands="$cands $out/cand-$c.o"
done
std=$(ls "$pb"/cand-*.o | grep -v '/cand-\(linux\|__repstos_k\)' | tr '\n' ' ')
gcc -no-pie -Wl,-z,noexecstack -o "$out/kbench" "$out/bench.o" "$pb/gpr.o" "$pb/plain.o" \
	$std $cands \
	"$out/k-thunk.o" "$out/k-ret.o" "$out/linux_memset.o" "$out/linux_memcpy.o" \
	"$out/bench-asm.o" \
	runtime/librepstos.a -lm
"$out/kbench" -o "$out/results" "$@"

# The copies: bench/copybench.c, the same way.
gcc $cflags -DBENCH_KERNEL -c -o "$out/copybench.o" bench/copybench.c
ccands=
for c in linux_memcpy_erms linux_memcpy_orig linux_memcpy_rep_good linux_memcpy_via_jmp; do
	gcc $cflags -DCAND=$c -DKIND_CALL=$c -DOP_COPY -c -o "$out/copycand-$c.o" bench/cand.c
	ccands="$ccands $out/copycand-$c.o"
done
for c in __repstos_k_copy_erms __repstos_k_copy_rep_good __repstos_k_copy_orig \
		__repstos_k_move_erms __repstos_k_move_rep_good __repstos_k_move_orig; do
	gcc $cflags -mno-red-zone -DCAND=$c -DKIND_SITE=$c -DOP_COPY -c -o "$out/copycand-$c.o" bench/cand.c
	ccands="$ccands $out/copycand-$c.o"
done
gcc -no-pie -Wl,-z,noexecstack -o "$out/kcopybench" "$out/copybench.o" \
	$(ls "$pb"/copycand-*.o) "$pb/plaincopy.o" $ccands "$out/k-thunk.o" "$out/linux_memcpy.o" \
	"$out/linux_memset.o" "$out/bench-asm.o" runtime/librepstos.a -lm
taskset -c "${COPYBENCH_CPU:-1}" "$out/kcopybench" ${KCOPYBENCH_ARGS:-} \
	>"$out/results/copybench.txt"
