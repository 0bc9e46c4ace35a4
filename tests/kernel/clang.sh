#!/bin/sh
# Proves: a Linux 6.12 kernel built by clang 16 (make LLVM=-16) with the LLVM plugin's kernel mode (-mllvm -repstos-kernel) boots under QEMU with every site patched to the routine its CPU model calls for, and passes our KTAP test built in and as a module, with no more objtool warnings than clang's plain build; repstos check and dump read its sites as they read a GCC kernel's.
# tests/kernel/boot.sh with KERNEL_CLANG=1 (its header says what it
# boots and checks): kernel/build.sh's clang-plain and clang-plugin
# variants, KERNEL_VERSION 6.12 unless given (the newest version
# Debian 12's clang 16 builds: 7.3's scripts/min-tool-version.sh asks
# for LLVM 17.0.1).
# kernel/build.sh installs clang-16, lld-16 and llvm-16 where missing;
# the LLVM plugin must be built (llvm-16-dev: make deps installs it).
. "$(dirname "$0")/lib.sh"
KERNEL_VERSION=${KERNEL_VERSION:-6.12} KERNEL_CLANG=1 exec "$top/tests/kernel/boot.sh" "$@"
