#!/bin/sh
# Proves: a unit plain gcc compiles still compiles with the plugin, and runs as the plain build does, where a function cannot give a site the registers it needs (no SSE, a fixed register): those calls are left alone with a verbose note, the others still become sites.
# regs/fns.c has a memset and a memcpy (copy sites on) in a function
# built as each case says and in a plain one; regs/main.c, built plain,
# calls them.  A site needs rdi, rcx and
# rax (rsi for a copy) and clobbers xmm0 (rax and xmm0-7 for a copy):
# without SSE GCC refuses the clobber ("cannot be clobbered in asm"), a
# fixed operand register is "inconsistent operand constraints", and a
# fixed register the routine clobbers would be silently destroyed.  Each
# case is built with the plugin and plain, and both run: same line.
# A user-space interrupt function (it must be built without SSE) keeps
# its memset as a call, so the cld GCC puts before it stays.
. "$(dirname "$0")/lib.sh"
S=tests/plugin/regs/fns.c
scratch
$CC -O2 -c -o $W/main.o tests/plugin/regs/main.c || fail "main.c: build"

# case NAME SITES FLAGS...: SITES is how many calls must become sites
# (all four, some: the plain functions' only, or none).
case_() {
	name=$1 want=$2; shift 2
	b=$W/$name
	if ! $CC -O2 "$@" -c -o $b.plain.o $S 2>$b.plain.err ||
	   ! $CC -o $b.plain $W/main.o $b.plain.o 2>>$b.plain.err; then
		fail "$name: plain gcc does not build it: $(head -2 $b.plain.err)"
		return
	fi
	if ! $CC -O2 $PV -fplugin-arg-repstos-copy "$@" -c -o $b.o $S 2>$b.notes ||
	   ! $CC -o $b $W/main.o $b.o $RTLIB 2>>$b.notes; then
		fail "$name: plain gcc builds it, the plugin fails: $(grep -m1 'error' $b.notes)"
		return
	fi
	n=$(rewritten_count $b.notes)
	left=$(grep -c 'left alone (' $b.notes)
	case $want in
	all) [ "$n" = 4 ] && [ "$left" = 0 ] ;;
	some) [ "$n" -ge 2 ] && [ "$n" -lt 4 ] &&
		grep -q 'left alone.*\(SSE\|fixed\)' $b.notes ;;
	none) [ "$n" = 0 ] && grep -q 'left alone.*\(SSE\|fixed\)' $b.notes ;;
	esac || { fail "$name: $n sites, $left left alone, wanted $want"; cat $b.notes; return; }
	for size in 300 0 1 17 511; do
		want_out=$($b.plain $size) || { fail "$name: plain run $size"; return; }
		got=$($b $size 2>&1) && [ "$got" = "$want_out" ] ||
			{ fail "$name: size $size printed '$got', plain '$want_out'"; return; }
	done
	ok "$name: builds, $n sites ($want), runs as plain"
}

case_ sse all
case_ general-regs-only none -mgeneral-regs-only
case_ no-sse none -mno-sse
case_ attr-general-regs-only some '-DATTR=target("general-regs-only")'
case_ attr-no-sse some '-DATTR=target("no-sse")'
case_ no-caller-saved none -DATTR=no_caller_saved_registers -mgeneral-regs-only
case_ attr-no-caller-saved some '-DATTR=no_caller_saved_registers,target("general-regs-only")'
case_ fixed-rdi none -ffixed-rdi
case_ fixed-rcx none -ffixed-rcx
case_ fixed-rax none -ffixed-rax
case_ fixed-rsi some -ffixed-rsi
case_ fixed-xmm0 none -ffixed-xmm0
case_ fixed-xmm7 some -ffixed-xmm7

# A user-space interrupt function: GCC wants it built without SSE, so
# its memset stays a call, with the cld GCC puts before it.
cat >$W/isr.c <<'X'
typedef unsigned long size_t;
void *memset(void *, int, size_t);
struct frame;
char buf[4096];
volatile size_t n;
__attribute__((interrupt)) void isr(struct frame *f) { memset(buf, 0, n); }
X
if ! $CC -O2 -mgeneral-regs-only $PV -S -o $W/isr.s $W/isr.c 2>$W/isr.notes; then
	fail "interrupt function: $(grep -m1 error $W/isr.notes)"
elif grep -q 'left alone' $W/isr.notes &&
	grep -B1 'call.*memset' $W/isr.s | grep -q cld; then
	ok "user-space interrupt function: memset left a call, cld before it"
else
	fail "interrupt function: $(grep repstos $W/isr.notes)"
fi
finish
