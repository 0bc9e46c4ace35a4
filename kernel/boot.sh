#!/bin/sh
# boot.sh VARIANT CPU [APPEND] - boot kernel/outdir.sh VARIANT under QEMU TCG
# with -cpu CPU and the test initramfs; the console goes to stdout.
# The built-in test runs at device initcalls, the module from /init,
# whose reboot ends QEMU (-no-reboot); a hang ends at the timeout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$("$top/kernel/outdir.sh" "$1")
exec timeout "${KERNEL_BOOT_TIMEOUT:-600}" qemu-system-x86_64 \
	-accel tcg -cpu "$2" -m 512 -smp 1 -nographic -no-reboot \
	-kernel "$out/arch/x86/boot/bzImage" -initrd "$out/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 loglevel=7 ${3:-}" </dev/null
