#!/bin/sh
# Proves: Linux's x86_64 defconfig (7.3, or KERNEL_VERSION) built with -fplugin-arg-repstos-kernel is objtool-clean and boots under QEMU with every site patched, our KTAP test passing built in and as a module.
# kernel/build.sh defconfig-plugin builds defconfig as it is (it has
# modules, an initrd and a serial console, which the test needs; it
# has RETHUNK, IBT and ORC, which build.sh checks .config for, and no
# SLS); the plugin build must have no objtool warning at all, so no
# plain build is needed to compare with.  KERNEL_DEFCONFIG_PLAIN=1
# builds defconfig-plain too, for its warnings and its calls: the share
# of them that became sites.  Without it the share is of the plugin
# image's own: sites against sites and the calls left.  Boots under
# -cpu max (the erms routines), and with repstos_fsrm (inline).
. "$(dirname "$0")/lib.sh"
need "$PLUGIN" "$TOOL"
KERNEL_VERSION=${KERNEL_VERSION:-7.3}
export KERNEL_VERSION
K=$(dirname "$("$top/kernel/outdir.sh" plain)") || exit 1
echo "summary: Linux $KERNEL_VERSION defconfig"

plain=${KERNEL_DEFCONFIG_PLAIN:-0}
variants=defconfig-plugin
[ "$plain" = 1 ] && variants="defconfig-plain $variants"
for v in $variants; do
	build_kernel $v || finish
done

w=$(wc -l <"$K/defconfig-plugin/objtool.txt")
[ "$w" = 0 ] && ok "defconfig-plugin: no objtool warning" ||
	{ fail "defconfig-plugin: $w objtool warnings"; head -5 "$K/defconfig-plugin/objtool.txt"; }
[ "$plain" = 1 ] &&
	echo "summary: objtool warnings: plain $(wc -l <"$K/defconfig-plain/objtool.txt"), plugin $w"

boot defconfig-plugin max
check_forms "$log" image erms
check_forms "$log" unit erms
boot defconfig-plugin max repstos_fsrm
check_forms "$log" image inline
check_forms "$log" unit inline

nv=$(sites_of "$K/defconfig-plugin/console-max.log" image | cut -d' ' -f1)
expect_rc 0 "repstos check vmlinux" $TOOL check "$K/defconfig-plugin/vmlinux"
echo "$OUT" | grep -q "clean, $nv kernel-mode sites" && ok "$OUT" ||
	fail "check: $OUT (the kernel counted $nv)"
echo "summary: sites: vmlinux ${nv:-?}"
if [ "$plain" = 1 ]; then
	calls_share defconfig-plugin defconfig-plain
else
	# no plain image: of the plugin image's own calls and sites
	ck=$("$top/kernel/calls.sh" "$K/defconfig-plugin/vmlinux")
	echo "summary: vmlinux calls: $nv sites, left in plugin $ck:" \
		"$(awk -v s="${nv:-0}" -v k="$ck" 'BEGIN { printf "%.1f", s + k ? 100 * s / (s + k) : 0 }')% of sites and calls are sites (no plain build)"
fi
took
finish
