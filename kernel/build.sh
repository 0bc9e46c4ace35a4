#!/bin/sh
# build.sh VARIANT - build a test kernel, its test module and
# initramfs, in build/kernel/VERSION/VARIANT (kernel/outdir.sh;
# KERNEL_VERSION: 6.1 unless given, 6.12, 7.3):
#   plain    kernel/config.frag, no plugin: the baseline (objtool
#            warnings, .text size, the calls the plugin should convert)
#   plugin   the same with -fplugin-arg-repstos-kernel, with the
#            routines' path counters (-fplugin-arg-repstos-kernel-paths:
#            a test build's only, see plugin/kernel.c) (its inline form
#            runs under QEMU when booted with repstos_fsrm: the test's
#            early parameter forces FSRM, which TCG refuses)
#   defconfig-plain, defconfig-plugin
#            the same two on x86_64 defconfig, the config most kernel
#            developers start from: nothing added, as it already has
#            modules, an initrd and a serial console
#   clang-plain, clang-plugin
#            plain and plugin built by clang 16 (make LLVM=-16: clang-16,
#            ld.lld-16 and the llvm-*-16 tools), the plugin build with the
#            LLVM pass plugin's kernel mode (-mllvm -repstos-kernel)
# The test (kernel/test/repstos_ktest.c) is added to the source's lib/
# as a built-in object; the same file is built as a module.  Fails when
# .config lacks an option the fragment meant to turn on (RETHUNK, SLS,
# IBT, ORC: an old name in the fragment is silently ignored, and 6.12
# renamed the first two CONFIG_MITIGATION_*; defconfig has no SLS).
# Prints the build's objtool warning count on its last line.
# KERNEL_VERBOSE=1 adds the plugin's verbose notes (a line a call, and
# each unit's sites and calls left alone) to the plugin builds' logs:
# tests/compilers/kernel.sh counts the calls converted from them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
variant=$1
plugin=$top/plugin/repstos.so
llvm= tools=
case $variant in
clang-*)	plugin=$top/plugin/librepstos-llvm.so llvm=LLVM=-16
	# LLVM=-16's tools, which fetch.sh installs where missing
	tools="clang-16 lld-16 llvm-16" ;;
esac
src=$(KERNEL_TOOLS=$tools "$top/kernel/fetch.sh")
out=$("$top/kernel/outdir.sh" "$variant")
# The build's own copy: a plugin rebuilt meanwhile cannot break it.
own=$out/$(basename "$plugin")
jobs=${KERNEL_JOBS:-2}

case $variant in
plain | defconfig-plain | clang-plain)	kcflags= ;;
plugin | defconfig-plugin)
	kcflags="-fplugin=$own -fplugin-arg-repstos-kernel -fplugin-arg-repstos-kernel-paths"
	[ "${KERNEL_VERBOSE:-0}" = 1 ] &&
		kcflags="$kcflags -fplugin-arg-repstos-verbose" ;;
clang-plugin)
	# Loaded early too, so that clang knows its -mllvm options.  A pass
	# cannot define a macro: the test's __REPSTOS_KERNEL__, which the
	# GCC plugin defines, is the build's to give here.
	kcflags="-fpass-plugin=$own -Xclang -load -Xclang $own -mllvm -repstos-kernel -mllvm -repstos-kernel-paths -D__REPSTOS_KERNEL__=1"
	[ "${KERNEL_VERBOSE:-0}" = 1 ] &&
		kcflags="$kcflags -Rpass=repstos -Rpass-missed=repstos" ;;
*)	echo "build.sh: unknown variant $variant" >&2; exit 2 ;;
esac
case $variant in
defconfig-*)	wants="RETHUNK X86_KERNEL_IBT UNWINDER_ORC" ;;
*)		wants="RETHUNK SLS X86_KERNEL_IBT UNWINDER_ORC" ;;
esac

# The built-in test: our file in the unpacked tree, one obj-y line.
cmp -s "$top/kernel/test/repstos_ktest.c" "$src/lib/repstos_ktest.c" ||
	cp "$top/kernel/test/repstos_ktest.c" "$src/lib/repstos_ktest.c"
grep -q repstos_ktest "$src/lib/Makefile" ||
	echo 'obj-y += repstos_ktest.o' >>"$src/lib/Makefile"

# configure: the variant's .config in $out
configure() {
	case $variant in
	defconfig-*)
		make -s -C "$src" O="$out" defconfig >/dev/null ;;
	*)
		KCONFIG_ALLCONFIG=$top/kernel/config.frag \
			make -s -C "$src" O="$out" $llvm allnoconfig >/dev/null ;;
	esac
}

mkdir -p "$out"
# A rebuilt plugin rebuilds the kernel: Kbuild tracks flags, not the .so.
if [ -n "$kcflags" ] && ! cmp -s "$plugin" "$own" 2>/dev/null; then
	rm -rf "$out"
	mkdir -p "$out"
	cp "$plugin" "$own"
fi
configure
# what the config meant, under either name
for want in $wants; do
	grep -Eq "^CONFIG_(MITIGATION_)?$want=y" "$out/.config" || {
		echo "build.sh: $variant: .config has no CONFIG_$want (nor CONFIG_MITIGATION_$want)" >&2
		exit 1
	}
done
make -C "$out" -j"$jobs" $llvm KCFLAGS="$kcflags" bzImage modules \
	>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

# The module, out of tree, from the same file.
mod=$out/ktest-module
mkdir -p "$mod"
cp "$top/kernel/test/repstos_ktest.c" "$mod/"
echo 'obj-m := repstos_ktest.o' >"$mod/Kbuild"
make -C "$out" M="$mod" $llvm KCFLAGS="$kcflags" modules \
	>"$out/module.log" 2>&1 || { tail -30 "$out/module.log"; exit 1; }

# The initramfs: /init loads the module.
gcc -static -O2 -o "$out/repstos-init" "$top/kernel/init.c"
cat >"$out/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /init $out/repstos-init 0755 0 0
file /repstos_ktest.ko $mod/repstos_ktest.ko 0644 0 0
LIST
"$out/usr/gen_init_cpio" "$out/initramfs.list" >"$out/initramfs.cpio"

grep -h 'warning: objtool' "$out/build.log" "$out/module.log" \
	>"$out/objtool.txt" || true
echo "$variant: objtool warnings $(wc -l <"$out/objtool.txt")"
