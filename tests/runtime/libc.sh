#!/bin/sh
# Proves: REPSTOS_VARIANT=libc and `repstos patch --cpu=libc` make every site call the C library's own memset or memmove, and every site stays right.
# The "libc" variant is the A/B a user makes without a second build:
#  - REPSTOS_VARIANT=libc: the probe's sites (every set op, constant,
#    bounded and unknown sizes) pass their checks, and REPSTOS_DEBUG=2
#    gives each the form libc, forced; the copy probe's copy and move
#    sites likewise (copysites.sh runs every copy variant too);
#  - `repstos patch --cpu=libc`: the file's sites call the adaptors, and
#    run right with text patching off (nothing rewrites them);
#  - the policy never picks it: with nothing set, no site is libc;
#  - as Zen 3 (REPSTOS_CPU) on AVX-512 hardware, the adaptors still keep
#    the mask registers, which the C library uses by the hardware:
#    regs_libc, whose memset and memmove change k0-7, passes.
# regs (the registers each routine keeps) and sweep.sh (every size and
# place) run the adaptors as they run every routine.
. "$(dirname "$0")/../lib.sh"
d=$BUILT
need $d/sites $d/copysites $d/regs_libc $TOOL
scratch

n=$(sites $d/sites)
if REPSTOS_VARIANT=libc REPSTOS_DEBUG=2 $d/sites quick >"$W/out" 2>"$W/err"; then
	got=$(grep -c ': libc (REPSTOS_VARIANT)$' "$W/err")
	[ "$got" -eq "$n" ] &&
		ok "REPSTOS_VARIANT=libc: the $n sites are right, each calls libc" ||
		fail "REPSTOS_VARIANT=libc: $got of $n sites say libc: $(grep ': site 0,' "$W/err")"
else
	fail "REPSTOS_VARIANT=libc: the sites are wrong: $(tail -n 3 "$W/out")"
fi
if out=$(REPSTOS_VARIANT=libc $d/copysites 2>&1); then
	bad=$(echo "$out" | grep '^site ' | grep -v ' call libc$')
	[ -z "$bad" ] && ok "REPSTOS_VARIANT=libc: every copy and move site calls memmove, right" ||
		fail "REPSTOS_VARIANT=libc, copies: $bad"
else
	fail "REPSTOS_VARIANT=libc: copies wrong: $(echo "$out" | grep FAIL | head -n 3)"
fi
REPSTOS_DEBUG=2 $d/sites forms >/dev/null 2>"$W/auto"
grep -q ': libc (' "$W/auto" && fail "the policy gave a site libc: $(grep ': libc (' "$W/auto" | head -n 1)" ||
	ok "the policy gives no site libc"

if $TOOL patch --cpu=libc $d/sites -o "$W/patched" >"$W/patch.log" 2>&1; then
	calls=$($TOOL dump "$W/patched" | grep -c '__repstos_libc_memset')
	REPSTOS_PATCH=0 "$W/patched" quick >"$W/pout" 2>&1 &&
	[ "$calls" -eq "$n" ] &&
		ok "patch --cpu=libc: $calls sites call __repstos_libc_memset, and are right unpatched" ||
		fail "patch --cpu=libc: $calls of $n sites call it: $(tail -n 3 "$W/pout")"
else
	fail "patch --cpu=libc: $(cat "$W/patch.log")"
fi

if grep -qw avx512bw /proc/cpuinfo; then
	REPSTOS_CPU=zen3 $d/regs_libc >"$W/regs" 2>&1; rc=$?
	grep -q '^checking zmm0-31 and k0-7$' "$W/regs" && [ $rc -eq 0 ] &&
		ok "as zen3 on AVX-512 hardware, the adaptors keep k0 and k2-7: $(tail -n 1 "$W/regs")" ||
		fail "as zen3, regs_libc (exit $rc): $(grep -m 3 -i 'fail\|changed\|checking' "$W/regs")"
else
	skipped "the adaptors' masks as zen3: this CPU has no AVX-512 mask registers"
fi
finish
