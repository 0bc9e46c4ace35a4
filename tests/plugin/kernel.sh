#!/bin/sh
# Proves: kernel mode writes each call as the kernel's own alternatives, in the layout, feature keys, section flags and objtool annotations of the tree being built (6.1, 6.12 and 7.3 checked against their own headers), with padded routines that end as the build spells RET, only under -mcmodel=kernel and where a site is safe, and refuses a tree it does not know; two tests asking at once for a tree's headers on an empty cache both get them whole.
# kernel/unit.c, built as the kernel builds (-mcmodel=kernel, no SSE,
# no red zone, RETHUNK or SLS, IBT), must give: five sites in
# .altinstructions (three entries each, a move two) that `repstos check`
# calls clean; none inside a stac/clac window (kernel/window.c: before
# and after one, sites) or in .head.text; routines in
# .noinstr.text only in the unit defining start_kernel (global) or in a
# module unit (local); nothing at all under -mcmodel=small or -m32 (the vDSOs)
# nor under KASAN or KCSAN; the inline form keyed on another bit on
# request; cld before each site of an interrupt function (GCC's before
# a call there).
# The tree is a fixture of 6.1's layout for those (tree.sh); then 7.3's
# (14-byte entries, FSRS for sets, "aM" sections, .discard.annotate_insn),
# trees kernel mode does not know (one error naming the range), and the
# real headers of 6.1, 6.12 and 7.3 (skipped when they cannot be had).
# KERNEL_CC=clang-16 (tests/plugin/llvm-kernel.sh): all of it with clang
# and the LLVM pass's kernel mode (options -mllvm -repstos-KEY, notes
# -Rpass remarks), and on top, for each tree, repstos dump's line of
# every site the GCC plugin's line for the same unit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kernel/tree.sh"
scratch
U=$(dirname "$0")/kernel/unit.c
fixture_tree "$W/t12" 12
fixture_tree "$W/t14" 14
KBASE="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx -fcf-protection=branch"
KFLAGS="$KBASE $(tree_flags "$W/t12")"
TREE=$W/t12
if [ -n "${KERNEL_CC:-}" ]; then
	CC=$KERNEL_CC
	LP=$top/plugin/librepstos-llvm.so
	need $LP
	kopt() { echo "-mllvm -repstos-$1"; }
	KP="-fpass-plugin=$LP -Xclang -load -Xclang $LP $(kopt kernel)"
	KV="-Rpass=repstos -Rpass-missed=repstos"
	NOTE=remark
else
	kopt() { echo "-fplugin-arg-repstos-$1"; }
	KP="$P $(kopt kernel)"
	KV=$(kopt verbose)
	NOTE="note: repstos"
fi

# build OUT FLAGS...: unit.c into $W/OUT.o, in the tree $TREE
build() {
	out=$1; shift
	$CC $KBASE $(tree_flags "$TREE") "$@" -c -o "$W/$out.o" "$U" 2>"$W/$out.err"
}

# The vmlinux unit, RETHUNK.
if build vm $KP $KV -mfunction-return=thunk-extern -DVMLINUX; then
	ok "a kernel unit builds in kernel mode"
else
	fail "kernel unit: $(head -3 "$W/vm.err")"
fi
n=$(grep -c 'rewritten' "$W/vm.err")
[ "$n" = 5 ] && ok "5 calls rewritten" || fail "$n calls rewritten, wanted 5"
grep -q 'left alone.*user-access window' "$W/vm.err" &&
	ok "no site in a function with stac/clac" || fail "the stac/clac function got a site"

# The window's extent (kernel/window.c): a site where every path to the
# call has it closed, none where one may have it open.
win=$(dirname "$0")/kernel/window.c
lines() { grep -n "/\* $1" "$win" | cut -d: -f1 | tr '\n' ' '; }
noted() { sed -n "s|^.*window\.c:\([0-9]*\):[0-9]*: $NOTE: memset $1.*|\1|p" "$W/win.err" | sort -n | tr '\n' ' '; }
if $CC $KFLAGS $KP $KV -c -o "$W/win.o" "$win" 2>"$W/win.err"; then
	[ "$(noted rewritten)" = "$(lines @site)" ] &&
		[ "$(noted 'left alone.*user-access window')" = "$(lines @left)" ] &&
		ok "user-access window: sites on lines $(lines @site)outside it, none on $(lines @left)" ||
		fail "user-access window: sites on lines $(noted rewritten)(want $(lines @site)), left on $(noted 'left alone.*user-access window')(want $(lines @left))"
else
	fail "window.c: $(head -3 "$W/win.err")"
fi
grep -q 'left alone.*head.text' "$W/vm.err" &&
	ok "no site in .head.text" || fail "the .head.text function got a site"
expect_rc 0 "repstos check: the kernel's table is consistent" $TOOL check "$W/vm.o"
echo "$OUT" | grep -q 'clean, 5 kernel-mode sites' && ok "$OUT" || fail "check: $OUT"
expect_rc 0 "repstos dump lists the sites" $TOOL dump "$W/vm.o"
echo "$OUT" | grep '^move+' | grep -q 'move_erms  *move_erms  *move_erms  *move_rep_good  *move_orig' &&
	ok "a memmove is never inline: erms routine on FSRM too" || fail "move: $(echo "$OUT" | grep '^move+')"
echo "$OUT" | grep '^shift_down+' | grep -q 'move_fwd.*rep_movsb  *copy_erms' &&
	ok "a forwards-safe memmove is inline on FSRM" || fail "shift_down: $(echo "$OUT" | grep '^shift_down+')"

bytes=$(size -A "$W/vm.o" | awk '$1 == ".altinstructions" { print $2 }')
[ "$bytes" = $((4 * 3 * 12 + 2 * 12)) ] &&
	ok ".altinstructions: 14 entries of 12 bytes" || fail ".altinstructions is $bytes bytes"
objdump -dr -j .noinstr.text "$W/vm.o" >"$W/vm.dis"
grep -q '<__repstos_k_set_erms>:' "$W/vm.dis" &&
	[ "$(nm "$W/vm.o" | grep -c ' T __repstos_k_')" = 11 ] &&
	ok "the start_kernel unit defines the 11 routines, global, in .noinstr.text" ||
	fail "routines: $(nm "$W/vm.o" | grep __repstos_k_ | head -3)"
# set_erms: one routine's disassembly, to the blank line after it
set_erms() {
	sed -n '/<__repstos_k_set_erms>:/,/^$/p' "$@"
}
set_erms "$W/vm.dis" | grep -q "R_X86_64_PLT32.*__x86_return_thunk" &&
	! grep -q 'ret *$' "$W/vm.dis" &&
	ok "RETHUNK: the routines return through jmp __x86_return_thunk" ||
	fail "RETHUNK: $(set_erms "$W/vm.dis" | tail -5)"
grep -q 'xmm\|ymm' "$W/vm.dis" && fail "a routine uses a vector register" ||
	ok "the routines are GPR-only"

# Another vmlinux unit: calls the routines, defines none.
build other $KP -mharden-sls=all
[ "$(nm "$W/other.o" | grep -c ' U __repstos_k_')" -ge 1 ] &&
	! nm "$W/other.o" | grep -q ' [Tt] __repstos_k_' &&
	ok "a unit without start_kernel only calls the routines" ||
	fail "other unit: $(nm "$W/other.o" | grep __repstos_k_ | head -3)"

# -fplugin-arg-repstos-kernel-inline-bit=N keys the inline form on
# another feature bit: ERMS (9 * 32 + 9) puts it in dump's erms column.
# The kernel test boots the default (FSRM) build only, so this is the
# option's one test.
build bit $KP $(kopt kernel-inline-bit=297) -DVMLINUX
$TOOL dump "$W/bit.o" >"$W/bit.dump" 2>&1
n=$(awk '$6 ~ /^rep_(stos|movs)b$/' "$W/bit.dump" | wc -l)
[ "$n" = 4 ] && grep -q '^move+.*move_erms  *move_erms  *move_erms' "$W/bit.dump" &&
	ok "inline-bit=297: 4 sites inline under ERMS, the move calls" ||
	fail "inline-bit=297: $n inline under ERMS: $(head -4 "$W/bit.dump")"
for v in 32768 x ''; do
	if build badbit $KP $(kopt kernel-inline-bit=$v); then
		fail "inline-bit='$v' compiled"
	else
		grep -q "bad value.*kernel-inline-bit" "$W/badbit.err" &&
			ok "inline-bit='$v': an error" || fail "inline-bit='$v': $(head -2 "$W/badbit.err")"
	fi
done

# repstos-cc with clang: -fplugin-arg-repstos-kernel becomes the pass's
# kernel mode, and in -mcmodel=kernel code the macro the GCC plugin
# defines there (a pass cannot).
if [ -n "${KERNEL_CC:-}" ]; then
	RCC="env REPSTOS_CC=$CC $top/plugin/repstos-cc"
	$RCC $KBASE $(tree_flags "$W/t12") -fplugin-arg-repstos-kernel -DVMLINUX \
		-c -o "$W/rcc.o" "$U" 2>"$W/rcc.err" &&
		$TOOL check "$W/rcc.o" | grep -q 'clean, 5 kernel-mode sites' &&
		ok "repstos-cc -fplugin-arg-repstos-kernel with clang: 5 kernel-mode sites" ||
		fail "repstos-cc with clang: $(head -2 "$W/rcc.err") $($TOOL check "$W/rcc.o" 2>&1)"
	: >"$W/empty.c"
	d=$($RCC $KBASE -fplugin-arg-repstos-kernel -dM -E "$W/empty.c" | grep -c '__REPSTOS_KERNEL__ 1')
	s=$($RCC -O2 -fplugin-arg-repstos-kernel -dM -E "$W/empty.c" | grep -c '__REPSTOS_KERNEL__')
	[ "$d" = 1 ] && [ "$s" = 0 ] &&
		ok "repstos-cc defines __REPSTOS_KERNEL__ in -mcmodel=kernel code only" ||
		fail "repstos-cc: __REPSTOS_KERNEL__ $d times with -mcmodel=kernel, $s without"
fi

# A module unit, SLS: local routines ending ret; int3.
build mod $KP -mharden-sls=all -DMODULE
[ "$(nm "$W/mod.o" | grep -c ' t __repstos_k_')" = 11 ] &&
	ok "a module unit has its own local routines" ||
	fail "module unit: $(nm "$W/mod.o" | grep __repstos_k_ | head -3)"
objdump -d -j .noinstr.text "$W/mod.o" >"$W/mod.dis"
# every ret of it followed by int3, and one at least
set_erms "$W/mod.dis" | awk '/ret *$/ { r++; getline; if ($NF == "int3") i++ }
	END { exit !(r && r == i) }' &&
	ok "SLS: the routines end in ret; int3" ||
	fail "SLS: $(set_erms "$W/mod.dis" | tail -5)"

# The vDSO's code model: left exactly as without the plugin.
$CC -O2 -mcmodel=small -fPIC -c -o "$W/small-plain.o" "$U"
$CC -O2 -mcmodel=small -fPIC $KP -c -o "$W/small.o" "$U"
objdump -d "$W/small-plain.o" | tail -n +4 >"$W/a"
objdump -d "$W/small.o" | tail -n +4 >"$W/b"
cmp -s "$W/a" "$W/b" && ok "-mcmodel=small (the vDSO): code unchanged" ||
	fail "-mcmodel=small code changed"

# The 32-bit vDSO (a kernel with IA32 emulation, as defconfig has) is
# built with -m32 and KCFLAGS under CONFIG_WERROR: as the 64-bit one,
# left as it is without a word.  (unit.c's rsp is no 32-bit register)
printf 'void *memset(void *, int, __SIZE_TYPE__);\nvoid set(char *p, __SIZE_TYPE__ n) { memset(p, 0, n); }\n' >"$W/m32.c"
$CC -O2 -m32 -fno-pie -Werror -c -o "$W/m32-plain.o" "$W/m32.c"
if $CC -O2 -m32 -fno-pie -Werror $KP -c -o "$W/m32.o" "$W/m32.c" 2>"$W/m32.err"; then
	objdump -d "$W/m32-plain.o" | tail -n +4 >"$W/a"
	objdump -d "$W/m32.o" | tail -n +4 >"$W/b"
	cmp -s "$W/a" "$W/b" && ok "-m32 (the 32-bit vDSO): no warning, code unchanged" ||
		fail "-m32 code changed"
else
	fail "-m32 -Werror in kernel mode: $(grep -m1 error "$W/m32.err")"
fi

# Not a kernel unit: the alternatives patcher by its path.
mkdir -p "$W/arch/x86/kernel"
cp "$U" "$W/arch/x86/kernel/alternative.c"
$CC $KFLAGS $KP $KV -c -o "$W/alt.o" "$W/arch/x86/kernel/alternative.c" 2>"$W/alt.err"
! grep -q rewritten "$W/alt.err" && grep -q 'alternatives patcher' "$W/alt.err" &&
	ok "no site in arch/x86/kernel/alternative.c" || fail "alternative.c got sites"

# KASAN and KCSAN units keep their calls: the sanitizers intercept them.
for san in kernel-address thread; do
	build san $KP $KV -fsanitize=$san
	n=$(grep -c 'rewritten' "$W/san.err")
	[ "$n" = 0 ] && ok "-fsanitize=$san: no sites" || fail "-fsanitize=$san: $n sites"
done

# An interrupt function: GCC puts cld before each call it makes there
# (the direction flag is whatever the interrupted code left), so the
# site, an asm that looks like no string instruction, must have its own.
cat >"$W/isr.c" <<'X'
typedef unsigned long size_t;
void *memset(void *, int, size_t);
struct frame;
char buf[4096];
volatile size_t n;
__attribute__((interrupt)) void isr(struct frame *f) { memset(buf, 0, n); }
void plain(void) { memset(buf, 0, n); }
X
if $CC $KFLAGS -mno-80387 $KP $KV -S -o "$W/isr.s" "$W/isr.c" 2>"$W/isr.err"; then
	# the instruction before each site's label, by function
	awk '/^[a-z]+:/ { fn = $1 } /^[ \t]*[.]Lrk[0-9_]+:$/ { print fn, prev }
	     /^\t[a-z]/ { prev = $1 }' "$W/isr.s" >"$W/isr.before"
	grep -q '^isr: cld$' "$W/isr.before" && ! grep -q '^plain: cld$' "$W/isr.before" &&
		ok "interrupt function: cld right before the site, none elsewhere" ||
		fail "interrupt function: before the sites: $(cat "$W/isr.before")"
else
	fail "interrupt function: $(grep -m1 error "$W/isr.err")"
fi

# ---- The trees --------------------------------------------------------

# alt SECTION OBJ: the bytes of SECTION, in hex
sec_hex() {
	objcopy -O binary --only-section="$1" "$2" "$W/sec.bin" 2>/dev/null &&
		od -An -v -tx1 "$W/sec.bin" | tr -d ' \n'
}

# check_tree NAME SIZE FSRS ANNOTATE MERGE: $W/NAME.o, built for a tree of
# SIZE-byte entries, as kernel mode must write for it
check_tree() {
	o=$W/$1.o
	expect_rc 0 "$1: repstos check" $TOOL check "$o"
	echo "$OUT" | grep -q 'clean, 5 kernel-mode sites' && ok "$1: $OUT" || fail "$1: check: $OUT"
	bytes=$(size -A "$o" | awk '$1 == ".altinstructions" { print $2 }')
	[ "$bytes" = $((14 * $2)) ] && ok "$1: .altinstructions: 14 entries of $2 bytes" ||
		fail "$1: .altinstructions is $bytes bytes, not 14 entries of $2"
	# the first entry: ALT_NOT(FAST) with FAST the set site's key
	hex=$(sec_hex .altinstructions "$o")
	if [ "$2" = 12 ]; then v=$((0x8000 | $3)); got=$(echo "$hex" | cut -c17-20)
		want=$(printf '%02x%02x' $((v & 255)) $((v >> 8)))
	else v=$((0x10000 | $3)); got=$(echo "$hex" | cut -c17-24)
		want=$(printf '%02x%02x%02x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24)))
	fi
	[ "$got" = "$want" ] && ok "$1: the memset site's first entry is ALT_NOT($(( $3 / 32 ))*32+$(( $3 % 32 ))): $got" ||
		fail "$1: the memset site's first entry's feature word is $got, wanted $want"
	# every entry's flags: ALT_NOT only (never DIRECT_CALL)
	if [ "$2" = 14 ]; then
		bad=$(echo "$hex" | fold -w 28 | awk '{ print substr($0, 21, 4) }' | grep -vc '^0100$')
		[ "$bad" = 0 ] && ok "$1: every entry's flags are ALT_FLAG_NOT alone" ||
			fail "$1: $bad entries with other flags"
	fi
	if [ "$5" = aM ]; then
		readelf -SW "$o" | grep ' \.altinstructions ' | grep -q " 0e  *WAM\| 0e  *AM " &&
			ok "$1: .altinstructions is \"aM\", entry size 14, as the tree declares it" ||
			fail "$1: .altinstructions: $(readelf -SW "$o" | grep ' \.altinstructions ')"
	else
		readelf -SW "$o" | grep ' \.altinstructions ' | grep -q ' 00  *A ' &&
			ok "$1: .altinstructions is \"a\", as the tree declares it" ||
			fail "$1: .altinstructions: $(readelf -SW "$o" | grep ' \.altinstructions ')"
	fi
	an=$(readelf -SW "$o" | grep -o ' \.discard\.[a-z_]*' | sort -u | tr -d ' ')
	[ "$an" = "$4" ] && ok "$1: NOENDBR annotations in $4 alone" ||
		fail "$1: annotation sections: $an, wanted $4"
	# 16 NOPs before each routine, which starts 16-byte aligned
	python3 - "$o" <<'PY' && ok "$1: 16 bytes of NOPs before each of the 11 routines" || fail "$1: routine padding"
import subprocess, sys
o = sys.argv[1]
syms = [l.split() for l in subprocess.run(["nm", o], capture_output=True, text=True).stdout.splitlines()]
fns = [int(s[0], 16) for s in syms if len(s) == 3 and s[2].startswith("__repstos_k_")]
subprocess.run(["objcopy", "-O", "binary", "--only-section=.noinstr.text", o, o + ".ni"], check=True)
text = open(o + ".ni", "rb").read()
sys.exit(not (len(fns) == 11 and all(a % 16 == 0 and a >= 16 and text[a - 16:a] == b"\x90" * 16 for a in fns)))
PY
}

# same_as_gcc NAME FLAGS...: with KERNEL_CC, repstos dump's lines of
# $W/NAME.o, offsets aside, those of the same unit built by the GCC
# plugin in kernel mode for the same tree: one contract, one table
same_as_gcc() {
	[ -n "${KERNEL_CC:-}" ] || return 0
	name=$1; shift
	if ! gcc $KBASE $(tree_flags "$TREE") -fplugin=$PLUGIN -fplugin-arg-repstos-kernel \
			"$@" -c -o "$W/$name-gcc.o" "$U" 2>"$W/$name-gcc.err"; then
		fail "$name: GCC's build: $(head -2 "$W/$name-gcc.err")"
		return
	fi
	$TOOL dump "$W/$name-gcc.o" | tail -n +2 | sed 's/+0x[0-9a-f]*//' >"$W/$name-gcc.dump"
	$TOOL dump "$W/$name.o" | tail -n +2 | sed 's/+0x[0-9a-f]*//' >"$W/$name.dump"
	cmp -s "$W/$name-gcc.dump" "$W/$name.dump" &&
		ok "$name: repstos dump reads the sites GCC's kernel mode writes, line for line ($(grep -c . "$W/$name.dump") lines)" ||
		fail "$name: not GCC's sites: $(diff "$W/$name-gcc.dump" "$W/$name.dump" | head -4)"
}

# dump_line NAME FUNC: dump's line of FUNC's site in $W/NAME.o
dump_line() {
	$TOOL dump "$W/$1.o" | grep "^$2+"
}

# 6.1's layout (the fixture above): what the first builds made.
build t12 $KP -DVMLINUX
check_tree t12 12 $((18 * 32 + 4)) .discard.noendbr a
same_as_gcc t12 -DVMLINUX

# 7.3's: 14-byte entries, sets on FSRS, copies on FSRM.
TREE=$W/t14
build t14 $KP -DVMLINUX -DALT14 &&
	ok "a unit of a 6.3+ tree builds" || fail "6.3+ unit: $(head -3 "$W/t14.err")"
check_tree t14 14 $((12 * 32 + 11)) .discard.annotate_insn aM
same_as_gcc t14 -DVMLINUX -DALT14
line=$(dump_line t14 set)
[ "$(echo "$line" | awk '{ print $4, $5, $6 }')" = "rep_stosb set_erms set_erms" ] &&
	ok "7.x: a memset is inline on FSRS only: $line" || fail "7.x memset: $line"
line=$(dump_line t14 copy)
[ "$(echo "$line" | awk '{ print $4, $5, $6 }')" = "rep_movsb rep_movsb copy_erms" ] &&
	ok "7.x: a memcpy is inline on FSRM: $line" || fail "7.x memcpy: $line"
expect_rc 0 "dump --json of a 14-byte object" $TOOL dump --json "$W/t14.o"
echo "$OUT" | grep -q '"alt_instr_size": 14' && ok "dump --json records the layout: 14" ||
	fail "dump --json: $(echo "$OUT" | head -c 200)"

# 6.3 spelt ALT_FLAG_NOT BIT(0), later kernels (1 << 0).
fixture_tree "$W/t63" 14
sed -i 's/^#define ALT_FLAG_NOT.*/#define ALT_FLAG_NOT\t\tBIT(0)/' "$W/t63/arch/x86/include/asm/alternative.h"
TREE=$W/t63
build t63 $KP -DVMLINUX -DALT14 && $TOOL check "$W/t63.o" >/dev/null &&
	ok "6.3's ALT_FLAG_NOT BIT(0): the 14-byte layout" || fail "6.3's BIT(0): $(head -3 "$W/t63.err")"
TREE=$W/t14

# A unit whose struct alt_instr is not the tree's: 6.1's in a 7.3 tree.
if build mix $KP; then
	fail "a 12-byte struct alt_instr in a 14-byte tree compiled"
else
	grep -q "struct alt_instr.* is not the 14-byte one of .*Linux 5.13 to 7.x" "$W/mix.err" &&
		ok "a unit's struct alt_instr against its tree's: an error naming the range" ||
		fail "mixed layout: $(head -3 "$W/mix.err")"
fi

# Trees kernel mode does not know: one error naming the range, whether
# or not the unit declares struct alt_instr.
fixture_tree "$W/t16" 14
sed -i 's/u8  instrlen;/u16 instrlen;/' "$W/t16/arch/x86/include/asm/alternative.h"
for t in none t16; do
	flags=$([ $t = none ] || tree_flags "$W/$t")
	if $CC $KBASE $flags $KP -DALT14 -c -o "$W/u-$t.o" -x c - 2>"$W/u-$t.err" <<'X'
void *memset(void *, int, unsigned long);
void set(char *p, unsigned long n) { memset(p, 0, n); }
X
	then
		fail "a unit of tree $t compiled"
	else
		n=$(grep -c 'error:' "$W/u-$t.err")
		grep -q "kernel mode cannot build for this kernel: .*Linux 5.13 to 7.x" "$W/u-$t.err" && [ "$n" = 1 ] &&
			ok "tree $t: one error naming the range: $(grep -o 'this kernel: [^(]*' "$W/u-$t.err")" ||
			fail "tree $t: $n errors: $(head -3 "$W/u-$t.err")"
	fi
done

# IBT and a tree whose objtool annotation section cannot be told: the
# routines' unit gets one error that says so.
fixture_tree "$W/tnoann" 12
rm "$W/tnoann/include/linux/objtool.h"
TREE=$W/tnoann
if build noann $KP -DVMLINUX; then
	fail "a tree without linux/objtool.h compiled the routines"
else
	n=$(grep -c 'error:' "$W/noann.err")
	grep -q 'which section the objtool of this kernel reads' "$W/noann.err" && [ "$n" = 1 ] &&
		ok "no linux/objtool.h under IBT: one error naming the sections" ||
		fail "no linux/objtool.h: $n errors: $(head -2 "$W/noann.err")"
fi

# ---- The real trees -----------------------------------------------------

# Linux VERSION's own headers, and what its objtool and alternatives
# expect of every object: the entry size objtool reads (ALT_ENTRY_SIZE),
# the section flags ALTINSTR_ENTRY uses, the annotation section, FSRS.
for v in 6.1 6.12 7.3; do
	t=$(real_tree $v)
	[ -n "$t" ] || { skipped "Linux $v's headers: $(tail -1 "$W/why")"; continue; }
	size=$(awk '$2 == "ALT_ENTRY_SIZE" { print $3 }' "$t/tools/objtool/arch/x86/include/arch/special.h")
	alt=$t/arch/x86/include/asm/alternative.h
	grep -q 'altinstructions, *\\\?"aM\\\?"' "$alt" && fl=aM || fl=a
	grep -qs 'discard.annotate_insn' "$t/include/linux/annotate.h" "$t/include/linux/objtool.h" &&
		an=.discard.annotate_insn || an=.discard.noendbr
	fsrs=$(sed -n 's/^#define X86_FEATURE_FSRS[^(]*( *\([0-9]*\)\*32+ *\([0-9]*\)).*/\1 \2/p' \
		"$t/arch/x86/include/asm/cpufeatures.h")
	key=$([ -n "$fsrs" ] && set -- $fsrs && echo $(($1 * 32 + $2)) || echo $((18 * 32 + 4)))
	note "Linux $v: objtool's ALT_ENTRY_SIZE $size, .altinstructions \"$fl\", $an, FSRS ${fsrs:-none}"
	d=$([ "$size" = 14 ] && echo -DALT14)
	name=linux-$v
	TREE=$t
	if build $name $KP -DVMLINUX $d; then
		ok "Linux $v: a unit builds against its own headers"
		check_tree $name "$size" "$key" $an $fl
		same_as_gcc $name -DVMLINUX $d
	else
		fail "Linux $v: $(head -3 "$W/$name.err")"
	fi
done

# Two tests at once on an empty cache (make test runs two at a time)
# each unpack headers: both must get the whole folder, neither take the
# other's away (kernel/headers.sh unpacks one at a time).
if deb=$("$top/kernel/getdeb.sh" 6.1 2>/dev/null); then
	mkdir -p "$W/cache2" && ln -s "$deb" "$W/cache2/"
	REPSTOS_CACHE=$W/cache2 "$top/kernel/headers.sh" 6.1 >"$W/h1" 2>&1 &
	REPSTOS_CACHE=$W/cache2 "$top/kernel/headers.sh" 6.1 >"$W/h2" 2>&1 &
	wait
	h=$W/cache2/headers/linux-6.1
	[ "$(cat "$W/h1")" = "$h" ] && [ "$(cat "$W/h2")" = "$h" ] &&
		[ -f "$h/arch/x86/include/asm/alternative.h" ] && [ -f "$h/.repstos-headers-2" ] &&
		ok "two headers.sh at once on an empty cache: both print the whole folder" ||
		fail "two headers.sh at once: '$(cat "$W/h1")', '$(cat "$W/h2")'"
else
	skipped "two headers.sh at once: no linux-source-6.1 to unpack"
fi
finish
