#!/bin/sh
# Proves: every producer of sites writes what include/repstos_site.h
# says, and the test helpers read the layout from there.
# SPDX-License-Identifier: MIT
#
# The producers: the plugin, the LLVM plugin (where built),
# REPSTOS_MEMSET and its kin, hand-written assembler with REPSTOS_SITE,
# the runtime's own table and record.
# Model: the kernel's objtool sync-check.sh.
. "$(dirname "$0")/../lib.sh"
B=${B:-build}
CHECK=$B/tests/contract/check
PLUGIN_SITES=8	# the sites in tests/contract/plugin.c, copies on
PC=-fplugin-arg-repstos-copy

# The runtime's objects that carry a table section and the record: the
# stubs' (one per family) and the record's (runtime/module/).
RT="$B/runtime/module/dispatch-set.o $B/runtime/module/dispatch-copy.o $B/runtime/module/record.o"
need $CHECK $PLUGIN $RT $TOOL $RTLIB
scratch

# 1. The producers, each checked against the header by check.c.
gcc -O2 -fplugin="$PLUGIN" $PC -c -o "$W/plugin.o" tests/contract/plugin.c &&
gcc -O2 -Iinclude -Iruntime -c -o "$W/macro.o" tests/contract/macro.c &&
gcc -O2 -mavx512f -Iinclude -Iruntime -c -o "$W/macro512.o" tests/contract/macro.c &&
gcc -O2 -ffunction-sections -fplugin="$PLUGIN" $PC -c -o "$W/plugin-fs.o" \
	tests/contract/plugin.c &&
gcc -Iinclude -Iruntime -c -o "$W/asm.o" tests/contract/asm.S &&
ld -r -o "$W/runtime.o" $RT ||
	fail "compile the producers"
expect_rc 0 "plugin: $PLUGIN_SITES entries as the header says" \
	$CHECK sites "$W/plugin.o" $PLUGIN_SITES
expect_rc 0 "plugin, -ffunction-sections: one table section per function" \
	$CHECK sites "$W/plugin-fs.o" $PLUGIN_SITES
expect_rc 0 "REPSTOS_MEMSET, _BZERO, _CLEAR, _MEMCPY, _MEMMOVE" \
	$CHECK sites "$W/macro.o" 5
expect_rc 0 "the same with -mavx512f (k1 declared)" \
	$CHECK sites "$W/macro512.o" 5
expect_rc 0 "REPSTOS_SITE and REPSTOS_COPY_SITE in assembler" \
	$CHECK sites "$W/asm.o" 3
expect_rc 0 "the runtime's table section and module record" \
	$CHECK runtime "$W/runtime.o"

# 1a. The LLVM plugin, where clang-16 built it: the same sites, with
# and without -ffunction-sections, and with AVX-512's clobbers.
LP=$top/plugin/librepstos-llvm.so
if command -v clang-16 >/dev/null 2>&1 && [ -r "$LP" ]; then
	for fl in "" -ffunction-sections -mavx512f; do
		clang-16 -O2 $fl -fpass-plugin="$LP" -Xclang -load -Xclang "$LP" \
			-mllvm -repstos-copy -c -o "$W/llvm$fl.o" tests/contract/plugin.c ||
			fail "compile plugin.c with clang-16 and the LLVM plugin ${fl:-plain}"
		expect_rc 0 "LLVM plugin ${fl:-plain}: $PLUGIN_SITES entries as the header says" \
			$CHECK sites "$W/llvm$fl.o" $PLUGIN_SITES
	done
else
	skipped "the LLVM plugin: not built here (clang-16, llvm-16-dev)"
fi

# 1b. Hand-written sites share one link, so one table section, per text
# section (gas takes time N^2 in the table sections of a unit): 102 in
# three sections, in turn between two; then one section a function.
tab=$($POKE const REPSTOS_SITES_SECTION)
# tables FILE: "TABLES LINKED": the table sections, and the distinct
# sections they are linked to
tables() {
	readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk -v t="$tab" '$1 == t { n++; if (!seen[$(NF-2)]++) l++ }
			END { print n + 0, l + 0 }'
}
for fs in "" -ffunction-sections; do
	o=$W/handlinks$fs.o
	want=3
	[ -n "$fs" ] && want=41
	gcc -O2 $fs -Iinclude -Iruntime -c -o "$o" tests/contract/handlinks.c ||
		fail "compile handlinks.c ${fs:-plain}"
	expect_rc 0 "handlinks.c ${fs:-plain}: 102 entries as the header says" \
		$CHECK sites "$o" 102
	expect_rc 0 "handlinks.c ${fs:-plain}: repstos check clean" $TOOL check "$o"
	got=$(tables "$o")
	if [ "$got" = "$want $want" ]; then
		ok "handlinks.c ${fs:-plain}: $want table sections, one per text section"
	else
		fail "handlinks.c ${fs:-plain}: table sections and sections linked: $got, not $want $want"
	fi
done
for lto in "" "-flto -flto-partition=max"; do
	gcc -O2 $lto -DMAIN -Iinclude -Iruntime -o "$W/handlinks" \
		tests/contract/handlinks.c "$RTLIB" 2>"$W/lto.err" ||
		fail "link handlinks.c $lto"
	expect_rc 0 "handlinks.c ${lto:-plain}: the sites store what they should" \
		"$W/handlinks"
	expect_rc 0 "handlinks.c ${lto:-plain}: repstos check clean" \
		$TOOL check "$W/handlinks"
done

# 2. The controls: a hand-written entry passes when it is right and fails
# for each kind of drift, so the checks above can fail.
for bad in 0 1 2 3 4 5 6 7 8 9 10; do
	gcc -Iinclude -Iruntime -DBAD=$bad -c -o "$W/bad$bad.o" tests/contract/bad.S ||
		fail "compile control $bad"
done
expect_rc 0 "control: a correct hand-written entry" $CHECK sites "$W/bad0.o" 1
for bad in 1 2 3 4 5 6 7 8 9 10; do
	why=$(sed -n "s|^#.*BAD [!=]= $bad[^/]*/\* \(.*\) \*/|\1|p" tests/contract/bad.S)
	expect_rc 1 "control: refused, $why" \
		$CHECK sites "$W/bad$bad.o" 1
done

# 3. The helpers see the layout C sees.
$CHECK layout >"$W/c.txt" && $POKE layout >"$W/py.txt" ||
	fail "print the layouts"
if cmp -s "$W/c.txt" "$W/py.txt"; then
	ok "elfpoke.py reads the header's layout: $(tr '\n' ' ' <"$W/c.txt")"
else
	fail "elfpoke.py and C disagree:"; diff "$W/c.txt" "$W/py.txt"
fi
# ...and no script writes the table by hand or repeats its name or size.
hits=$(grep -rnE '"repstos_(sites|module)"|section[[:space:]]+repstos_|/ *16\b' \
	tests --include='*.sh' --include='*.py' --include='*.mk' |
	grep -v '^tests/contract/')
if [ -z "$hits" ]; then
	ok "no test script repeats the table's name, layout or size"
else
	fail "scripts repeating the layout instead of reading the header:"
	echo "$hits" | sed 's/^/    | /'
fi

finish
