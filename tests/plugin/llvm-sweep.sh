#!/bin/sh
# Proves: the six sweep sites built by clang-16 with the LLVM plugin write what a byte loop does at every size and placement by a guard page, under every variant, patch profile and runtime.
# tests/plugin/sweep.sh with SWEEP_CC=clang-16 (its header says what it
# builds and checks): -O2, -O3, -flto=thin through lld 16, the shared
# runtime.  Skips, in one line, where clang-16 or llvm-16-dev is not
# installed.
. "$(dirname "$0")/lib.sh"
command -v clang-16 >/dev/null 2>&1 && command -v llvm-config-16 >/dev/null 2>&1 ||
	skip "clang-16 or llvm-config-16 not installed (Debian: clang-16 llvm-16-dev): the LLVM plugin is not built"
SWEEP_CC=clang-16 exec "$top/tests/plugin/sweep.sh" "$@"
