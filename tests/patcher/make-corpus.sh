#!/bin/bash
# SPDX-License-Identifier: MIT
# make-corpus.sh - regenerate the fuzz seed corpus in tests/patcher/corpus:
# small real files (objects with and without DWARF, a PIE, a shared
# object, a stripped executable, a patched object, a kernel-mode object)
# and broken ones.
# Run by hand after a contract change; the files are committed, named
# without .o/.so (which .gitignore ignores).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
C=$TOP/tests/patcher/corpus
SRC=$TOP/tests/patcher/src
POKE="python3 $TOP/tests/patcher/elfpoke.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LD="-Wl,-z,noseparate-code -Wl,--build-id=none"
rm -f "$C"/*
gcc -O2 -I"$TOP/include" -c "$SRC/sites.c" -o "$C/sites-o"
gcc -O2 -g1 -I"$TOP/include" -fPIC -c "$SRC/lib.c" -o "$C/lib-g1-o"
gcc -O2 -I"$TOP/include" -c "$SRC/main.c" -o "$T/main.o"
gcc -O2 -I"$TOP/include" -fPIC -c "$SRC/lib.c" -o "$T/lib.o"
gcc -pie $LD -o "$C/pie" "$T/main.o" "$C/sites-o" "$TOP/runtime/librepstos.a"
gcc -shared $LD -o "$C/lib-so" "$T/lib.o" "$TOP/runtime/librepstos.a"
# The runtime archive carries DWARF: keep the corpus small.
strip --strip-debug "$C/pie" "$C/lib-so"
gcc -no-pie -s $LD -o "$C/exe-stripped" "$T/main.o" "$C/sites-o" "$TOP/runtime/librepstos.a"
cp "$C/sites-o" "$C/sites-inline-o"
"$TOP/patcher/repstos" patch --cpu=inline "$C/sites-inline-o" >/dev/null
cp "$C/sites-o" "$C/sites-erms-o"
"$TOP/patcher/repstos" patch --cpu=erms "$C/sites-erms-o" >/dev/null
# Broken: a bad entry version, a site field that is no PC32, a truncated file.
cp "$C/sites-o" "$C/bad-version-o"
$POKE field "$C/bad-version-o" 0 version 07
cp "$C/sites-o" "$C/bad-reloc-o"
$POKE poke "$C/bad-reloc-o" $(($($POKE rela "$C/bad-reloc-o" \
	"$($POKE const REPSTOS_SITES_SECTION)" 0) + 8)) 01
head -c 3000 "$C/lib-so" >"$C/truncated-so"
# A .debug section some relocations apply to, made SHT_NOBITS with an
# offset that wraps a pointer (the fuzzer's find: lines.c's relocate_one
# made its target pointer before the type check).
cp "$C/lib-g1-o" "$C/debug-nobits-o"
i=$($POKE sections "$C/debug-nobits-o" | awk '$1 == ".debug_line" { print $2 }')
$POKE shdr "$C/debug-nobits-o" "$i" type 8
$POKE shdr "$C/debug-nobits-o" "$i" offset 0xfffffffe00000000
# Kernel-mode objects (tests/plugin/kernel.sh's unit): notes and
# .altinstructions instead of a site table, in a tree of Linux 6.1's
# alt_instr layout (kernel-o) and of 7.3's (kernel14-o).
. "$TOP/tests/plugin/kernel/tree.sh"
for size in 12 14; do
	fixture_tree "$T/tree$size" $size
	gcc -O2 -fno-pie -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx \
		-fcf-protection=branch $(tree_flags "$T/tree$size") \
		-fplugin="$TOP/plugin/repstos.so" -fplugin-arg-repstos-kernel \
		-DVMLINUX $([ $size = 12 ] || echo -DALT14) \
		-c "$TOP/tests/plugin/kernel/unit.c" \
		-o "$C/kernel$([ $size = 12 ] || echo 14)-o"
done
printf 'not an ELF file\n' >"$C/text"
# a size profile (runtime/policy/profile.h): the target reads every input as one too
printf 'profile 1 table 0000000000000000 sites 4 name x\nsite 1 1 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\nend 0000000000000000\n' >"$C/profile"
ls -l "$C"
du -sh "$C"
