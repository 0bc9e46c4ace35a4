#!/bin/sh
# Proves: kernel mode writes each call as the kernel's own alternatives with routines that end as the build spells RET, only under -mcmodel=kernel and where a site is safe, and refuses an alt_instr layout it does not know.
# kernel/unit.c, built as the kernel builds (-mcmodel=kernel, no SSE,
# no red zone, RETHUNK or SLS, IBT), must give: five sites in
# .altinstructions (three entries each, a move two) that `repstos check`
# calls clean; none in the stac/clac function or .head.text; routines in
# .noinstr.text only in the unit defining start_kernel (global) or in a
# module unit (local); nothing at all under -mcmodel=small (the vDSO)
# nor under KASAN or KCSAN; the inline form keyed on another bit on
# request; cld before each site of an interrupt function (GCC's before
# a call there);
# and a GCC error naming the supported versions for 6.3's alt_instr.
. "$(dirname "$0")/lib.sh"
scratch
U=$(dirname "$0")/kernel/unit.c
KFLAGS="-O2 -fno-pie -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx -fcf-protection=branch"
KP="$P -fplugin-arg-repstos-kernel"

build() {
	out=$1; shift
	$CC $KFLAGS "$@" -c -o "$W/$out.o" "$U" 2>"$W/$out.err"
}

# The vmlinux unit, RETHUNK.
if build vm $KP -fplugin-arg-repstos-verbose -mfunction-return=thunk-extern -DVMLINUX; then
	ok "a kernel unit builds in kernel mode"
else
	fail "kernel unit: $(head -3 "$W/vm.err")"
fi
n=$(grep -c 'rewritten' "$W/vm.err")
[ "$n" = 5 ] && ok "5 calls rewritten" || fail "$n calls rewritten, wanted 5"
grep -q 'left alone.*user-access window' "$W/vm.err" &&
	ok "no site in a function with stac/clac" || fail "the stac/clac function got a site"
grep -q 'left alone.*head.text' "$W/vm.err" &&
	ok "no site in .head.text" || fail "the .head.text function got a site"
expect_rc 0 "repstos check: the kernel's table is consistent" $TOOL check "$W/vm.o"
echo "$OUT" | grep -q 'clean, 5 kernel-mode sites' && ok "$OUT" || fail "check: $OUT"
expect_rc 0 "repstos dump lists the sites" $TOOL dump "$W/vm.o"
echo "$OUT" | grep '^move+' | grep -q 'move_erms  *move_erms  *move_rep_good  *move_orig' &&
	ok "a memmove is never inline: erms routine on FSRM too" || fail "move: $(echo "$OUT" | grep '^move+')"
echo "$OUT" | grep '^shift_down+' | grep -q 'move_fwd.*rep_movsb  *copy_erms' &&
	ok "a forwards-safe memmove is inline on FSRM" || fail "shift_down: $(echo "$OUT" | grep '^shift_down+')"

bytes=$(size -A "$W/vm.o" | awk '$1 == ".altinstructions" { print $2 }')
[ "$bytes" = $((4 * 3 * 12 + 2 * 12)) ] &&
	ok ".altinstructions: 14 entries of 12 bytes" || fail ".altinstructions is $bytes bytes"
objdump -dr -j .noinstr.text "$W/vm.o" >"$W/vm.dis"
grep -q '<__repstos_k_set_erms>:' "$W/vm.dis" &&
	[ "$(nm "$W/vm.o" | grep -c ' T __repstos_k_')" = 10 ] &&
	ok "the start_kernel unit defines the 10 routines, global, in .noinstr.text" ||
	fail "routines: $(nm "$W/vm.o" | grep __repstos_k_ | head -3)"
grep -A3 "<__repstos_k_set_erms>:" "$W/vm.dis" | grep -q "R_X86_64_PLT32.*__x86_return_thunk" &&
	! grep -q 'ret *$' "$W/vm.dis" &&
	ok "RETHUNK: the routines return through jmp __x86_return_thunk" ||
	fail "RETHUNK: $(grep -A3 '<__repstos_k_set_erms>:' "$W/vm.dis")"
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
build bit $KP -fplugin-arg-repstos-kernel-inline-bit=297 -DVMLINUX
$TOOL dump "$W/bit.o" >"$W/bit.dump" 2>&1
n=$(awk '$5 ~ /^rep_(stos|movs)b$/' "$W/bit.dump" | wc -l)
[ "$n" = 4 ] && grep -q '^move+.*move_erms  *move_erms' "$W/bit.dump" &&
	ok "inline-bit=297: 4 sites inline under ERMS, the move calls" ||
	fail "inline-bit=297: $n inline under ERMS: $(head -4 "$W/bit.dump")"
for v in 32768 x ''; do
	if build badbit $KP -fplugin-arg-repstos-kernel-inline-bit=$v; then
		fail "inline-bit='$v' compiled"
	else
		grep -q "bad value.*kernel-inline-bit" "$W/badbit.err" &&
			ok "inline-bit='$v': an error" || fail "inline-bit='$v': $(head -2 "$W/badbit.err")"
	fi
done

# A module unit, SLS: local routines ending ret; int3.
build mod $KP -mharden-sls=all -DMODULE
[ "$(nm "$W/mod.o" | grep -c ' t __repstos_k_')" = 10 ] &&
	ok "a module unit has its own local routines" ||
	fail "module unit: $(nm "$W/mod.o" | grep __repstos_k_ | head -3)"
objdump -d -j .noinstr.text "$W/mod.o" | grep -A2 '<__repstos_k_set_erms>:' | tail -1 |
	grep -q 'ret' && objdump -d -j .noinstr.text "$W/mod.o" | grep -A3 '<__repstos_k_set_erms>:' |
	grep -q int3 && ok "SLS: the routines end in ret; int3" ||
	fail "SLS: $(objdump -d -j .noinstr.text "$W/mod.o" | grep -A3 '<__repstos_k_set_erms>:')"

# The vDSO's code model: left exactly as without the plugin.
$CC -O2 -mcmodel=small -fPIC -c -o "$W/small-plain.o" "$U"
$CC -O2 -mcmodel=small -fPIC $KP -c -o "$W/small.o" "$U"
objdump -d "$W/small-plain.o" | tail -n +4 >"$W/a"
objdump -d "$W/small.o" | tail -n +4 >"$W/b"
cmp -s "$W/a" "$W/b" && ok "-mcmodel=small (the vDSO): code unchanged" ||
	fail "-mcmodel=small code changed"

# Not a kernel unit: the alternatives patcher by its path.
mkdir -p "$W/arch/x86/kernel"
cp "$U" "$W/arch/x86/kernel/alternative.c"
$CC $KFLAGS $KP -fplugin-arg-repstos-verbose -c -o "$W/alt.o" "$W/arch/x86/kernel/alternative.c" 2>"$W/alt.err"
! grep -q rewritten "$W/alt.err" && grep -q 'alternatives patcher' "$W/alt.err" &&
	ok "no site in arch/x86/kernel/alternative.c" || fail "alternative.c got sites"

# KASAN and KCSAN units keep their calls: the sanitizers intercept them.
for san in kernel-address thread; do
	build san $KP -fplugin-arg-repstos-verbose -fsanitize=$san
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
if $CC $KFLAGS -mno-80387 $KP -fplugin-arg-repstos-verbose -S -o "$W/isr.s" "$W/isr.c" 2>"$W/isr.err"; then
	# the instruction before each site's label, by function
	awk '/^[a-z]+:$/ { fn = $1 } /^[ \t]*[.]Lrk[0-9]+:$/ { print fn, prev }
	     /^\t[a-z]/ { prev = $1 }' "$W/isr.s" >"$W/isr.before"
	grep -q '^isr: cld$' "$W/isr.before" && ! grep -q '^plain: cld$' "$W/isr.before" &&
		ok "interrupt function: cld right before the site, none elsewhere" ||
		fail "interrupt function: before the sites: $(cat "$W/isr.before")"
else
	fail "interrupt function: $(grep -m1 error "$W/isr.err")"
fi

# 6.3's alt_instr: an error naming what is supported.
if build bad $KP -DBAD_LAYOUT; then
	fail "an unknown alt_instr layout compiled"
else
	grep -q 'alt_instr.*Linux 5.13 to 6.2.*tested on 6.1' "$W/bad.err" &&
		ok "an unknown alt_instr layout is an error naming the versions" ||
		fail "bad layout: $(head -3 "$W/bad.err")"
fi
finish
