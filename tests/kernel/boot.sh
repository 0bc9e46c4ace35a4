#!/bin/sh
# Proves: a Linux kernel (6.1, or KERNEL_VERSION: 6.12, 7.3) built with -fplugin-arg-repstos-kernel boots under QEMU with every site patched to the routine its CPU model calls for, and passes our KTAP test built in and as a module (every routine of every class called directly, each of its counted paths taken), with no more objtool warnings than the plain build.
# kernel/build.sh builds the plain and plugin variants of
# kernel/config.frag (the source is Debian's linux-source-VERSION,
# fetched and cached by kernel/fetch.sh; build.sh checks that .config has
# RETHUNK, SLS, IBT and ORC under the tree's names); kernel/boot.sh boots
# each under TCG:
#   -cpu max        erms and rep_good: the erms routines
#   -cpu max,-erms  rep_good only: the rep_good routines
#   -cpu kvm64,family=5  neither: the original routines (7.x sets
#                   REP_GOOD on every Intel CPU from Pentium M Dothan
#                   on, 6.1 and 6.12 on every family 6: a family 5 one
#                   gets it from no version)
# and the plugin build under -cpu max with repstos_fsrm, the test's
# early parameter that forces FSRM (TCG refuses +fsrm): inline rep
# stosb/movsb, moves the erms routine (and FSRS, which a 6.4+ tree keys
# set sites on).  So the inline form tested is
# the one users get, keyed on FSRM, and no third build is needed.
# The test's console lines say how many sites the image has and what
# each holds after apply_alternatives(); they must all hold one form.
# KERNEL_CLANG=1 (tests/kernel/clang.sh): the same of the clang-plain
# and clang-plugin builds, clang 16 and the LLVM plugin's kernel mode.
. "$(dirname "$0")/lib.sh"
need "$PLUGIN" "$TOOL"
scratch
pre=
[ "${KERNEL_CLANG:-0}" = 1 ] && pre=clang- && need "$top/plugin/librepstos-llvm.so"
plain=${pre}plain plugin=${pre}plugin
K=$(dirname "$("$top/kernel/outdir.sh" $plain)") || exit 1
echo "summary: Linux ${KERNEL_VERSION:-6.1}${pre:+ clang}"

# KERNEL_PREBUILT=1: the two builds are made already, by another
# compiler (tests/compilers/kernel.sh builds them in a Debian 13 chroot
# with its GCC 14, KERNEL_TAG=gcc14): here they are only booted.
for v in $plain $plugin; do
	if [ "${KERNEL_PREBUILT:-0}" = 1 ]; then
		[ -s "$K/$v/arch/x86/boot/bzImage" ] && [ -f "$K/$v/objtool.txt" ] &&
			ok "$v kernel built before: $K/$v" ||
			fail "$v kernel: no build in $K/$v"
		continue
	fi
	build_kernel $v
done

for cpu in max max,-erms kvm64,family=5; do
	boot $plain $cpu
	check_forms "$log" image none
	boot $plugin $cpu
	check_paths "$log"
	check_forms "$log" image "$(form $cpu)"
	check_forms "$log" unit "$(form $cpu)"
done
boot $plugin max repstos_fsrm
check_forms "$log" image inline
check_forms "$log" unit inline
grep -q 'repstos_fsrm' "$log" && ok "the inline boot had repstos_fsrm on its command line" ||
	fail "$log: no repstos_fsrm on the command line"

# objtool: no warning the plain build does not have
p=$(wc -l <"$K/$plain/objtool.txt")
w=$(wc -l <"$K/$plugin/objtool.txt")
[ "$w" -le "$p" ] && ok "$plugin: $w objtool warnings, $plain $p" ||
	{ fail "$plugin: $w objtool warnings, $plain $p"; head -5 "$K/$plugin/objtool.txt"; }

# repstos dump and check read the same sites from the files
nv=$(sites_of "$K/$plugin/console-max.log" image | cut -d' ' -f1)
nm=$(sites_of "$K/$plugin/console-max.log" unit | cut -d' ' -f1)
ko=$K/$plugin/ktest-module/repstos_ktest.ko
for f in "$K/$plugin/vmlinux:$nv" "$ko:$nm"; do
	file=${f%:*} n=${f##*:}
	expect_rc 0 "repstos check $(basename "$file")" $TOOL check "$file"
	echo "$OUT" | grep -q "clean, $n kernel-mode sites" && ok "$OUT" ||
		fail "check: $OUT (the kernel counted $n)"
	got=$($TOOL dump "$file" | tail -n +3 | wc -l)
	[ "$got" = "$n" ] && ok "repstos dump $(basename "$file"): $got sites" ||
		fail "repstos dump $(basename "$file"): $got sites, the kernel counted $n"
done

# .text says nothing (its end is aligned): the functions' bytes do
fbytes() {
	nm -S --defined-only "$1" | awk '$3 ~ /^[tT]$/ { print $2 }' |
		python3 -c 'import sys; print(sum(int(l, 16) for l in sys.stdin))'
}
tp=$(fbytes "$K/$plain/vmlinux") tk=$(fbytes "$K/$plugin/vmlinux")
echo "summary: vmlinux function bytes $tp plain, $tk plugin ($((tk - tp)))"
echo "summary: sites: vmlinux $nv, repstos_ktest.ko $nm"
calls_share $plugin $plain
took
finish
