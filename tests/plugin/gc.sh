#!/bin/sh
# Proves: a plugin site links as REPSTOS_MEMSET's does, and gc drops dead ones.
# Linking and the contract:
#  - -ffunction-sections -Wl,--gc-sections -Wl,-z,start-stop-gc: a dead
#    function with a site is dropped with its table entry; the live one
#    stays, with its entry, and runs;
#    (the dead-code check uses a stand-in runtime: it is about the
#    plugin's output, see the note for librepstos.a; the entry's layout
#    is tests/contract's business);
#  - -g: the site's address maps to the memset's source line.
. "$(dirname "$0")/lib.sh"
scratch
cat >$W/gc.c <<'EOC'
#include <string.h>
#include <stdio.h>
__attribute__((noipa)) void dead(char *p, size_t n) { memset(p, 0x11, n); }
__attribute__((noipa)) void live(char *p, size_t n)
{
	memset(p, 0x22, n); /* line 6 */
}
int main(int argc, char **argv)
{
	char buf[64];
	live(buf, argc + 9);
	printf("%d %d\n", buf[0], buf[argc + 8]);
	return buf[0] != 0x22 || buf[argc + 8] != 0x22;
}
EOC
$CC -O2 -g -ffunction-sections $P -c -o $W/gc.o $W/gc.c || fail "compile"
# A stand-in for the runtime with what the plugin's output needs: the
# stub, the (empty, link-order) table section and a reader of its bounds.
cat >$W/standin.S <<'EOS'
#include "repstos_site.h"
	.text
	.globl __repstos_stub
	.hidden __repstos_stub
__repstos_stub:
	rep stosb
	ret
	REPSTOS_SITES_PUSHSECTION(__repstos_stub)
	.popsection
	.section .text.bounds,"ax",@progbits
	.globl table_bytes
table_bytes:
	movq __stop_repstos_sites@GOTPCREL(%rip), %rax
	subq __start_repstos_sites@GOTPCREL(%rip), %rax
	ret
	.weak __start_repstos_sites
	.weak __stop_repstos_sites
	.hidden __start_repstos_sites
	.hidden __stop_repstos_sites
	.section .note.GNU-stack,"",@progbits
EOS
$CC -Iinclude -Iruntime -c -o $W/standin.o $W/standin.S || fail "stand-in"
$CC -Wl,--gc-sections -Wl,-z,start-stop-gc -o $W/gc $W/gc.o $W/standin.o -Wl,-u,table_bytes ||
	fail "link"
out=$($W/gc) || fail "gc run: $out"
nm $W/gc | grep -qw dead && fail "dead function kept by its site entry"
nm $W/gc | grep -qw live || fail "live function dropped"
[ "$(sites $W/gc)" -eq 1 ] && ok "--gc-sections -z start-stop-gc: dead function and its entry dropped, live one runs" ||
	fail "gc: $(sites $W/gc) entries, want 1"
$CC -Wl,--gc-sections -o $W/gc-keep $W/gc.o $W/standin.o && $W/gc-keep >/dev/null &&
	note "without -z start-stop-gc: $(sites $W/gc-keep) entries (__start_ keeps the table)"
# With the real runtime: runs; whether dead code goes is the archive's
# business (reported, not asserted here).
$CC -Wl,--gc-sections -Wl,-z,start-stop-gc -o $W/gc-rt $W/gc.o $RTLIB && $W/gc-rt >/dev/null ||
	fail "gc with $RTLIB"
note "with $RTLIB: $(sites $W/gc-rt) entries, dead() $(nm $W/gc-rt | grep -qw dead && echo kept || echo dropped)"

# -g: the call to the stub in live() is at gc.c:6.
addr=$(objdump -d $W/gc | awk '/<live>:/ { on = 1 } on && /call.*__repstos_stub/ { sub(":", "", $1); print $1; exit }')
line=$(addr2line -e $W/gc 0x$addr 2>/dev/null)
case "$line" in
*gc.c:6) ok "-g: site at 0x$addr maps to $line" ;;
*) fail "-g: site at 0x$addr maps to [$line], want gc.c:6" ;;
esac
finish
