#!/bin/sh
# Proves: clang-16 with the LLVM plugin's kernel mode writes each call as the GCC plugin's kernel mode does (the same alternatives, routines and notes, repstos dump's lines the same for the same unit and tree), in the tree's layout, only under -mcmodel=kernel and where a site is safe, and refuses a tree it does not know.
# tests/plugin/kernel.sh with KERNEL_CC=clang-16 (its header says what
# it builds and checks).  Skips, in one line, where clang-16 or
# llvm-16-dev is not installed.
. "$(dirname "$0")/lib.sh"
command -v clang-16 >/dev/null 2>&1 && command -v llvm-config-16 >/dev/null 2>&1 ||
	skip "clang-16 or llvm-config-16 not installed (Debian: clang-16 llvm-16-dev): the LLVM plugin is not built"
KERNEL_CC=clang-16 exec "$top/tests/plugin/kernel.sh" "$@"
