#!/bin/sh
# Proves: the mprotect route opens no window on its own code's pages.
# __repstos_poke, the window, is plain code of the start-up (no page of
# its own): a window on a page holding a byte of it would take it from
# under itself.  build/tests/runtime/late (tests/runtime/late.c) has
# 400 sites linked after librepstos.a, right after the start-up, whose
# code ends with the window: under REPSTOS_PATCH=mprotect each site on
# the window's pages stays a call of the stub, the debug line counts
# the sites left so, every site stores the right bytes; the default
# route writes them all.
. "$(dirname "$0")/../lib.sh"
d=$BUILT
run=$d/seccomp_run
bin=$d/late
need $run $bin

# The window's pages, from the symbols (a non-PIE: addresses as linked).
at() { nm "$bin" | awk -v s="$1" '$3 == s { print $1 }'; }
poke=$(at __repstos_poke) end=$(at __repstos_poke_end)
[ -n "$poke" ] && [ -n "$end" ] || { fail "no __repstos_poke in $bin"; finish; }
lo=$(( 0x$poke & ~4095 )) hi=$(( ((0x$end - 1) | 4095) + 1 ))

# forms OUT: "ON-THE-PAGES FORM" a site
forms() {
	echo "$1" | while read -r a f; do
		case $a in [0-9a-f]*) ;; *) continue ;; esac
		[ -n "$f" ] || continue
		p=$(( 0x$a )) q=$(( 0x$a + 4 ))
		[ $q -ge $lo ] && [ $p -lt $hi ] && echo "on $f" || echo "off $f"
	done
}

out=$(env REPSTOS_DEBUG=1 REPSTOS_PATCH=mprotect $run nowx $bin 2>&1); rc=$?
f=$(forms "$out")
on=$(echo "$f" | grep -c '^on ' || true)
on_patched=$(echo "$f" | grep -c '^on call\|^on inline' || true)
stubs=$(echo "$f" | grep -c ' stub$' || true)
said=$(echo "$out" | sed -n 's/.*(mprotect: \([0-9]*\) on the pages of its own window.s code).*/\1/p')
if [ $rc -ne 0 ] || ! echo "$out" | grep -qx ok; then
	fail "mprotect route: exit $rc, the sites' bytes: $(echo "$out" | tail -n 1)"
elif [ "$on" -eq 0 ]; then
	skipped "no site on the window's pages here ($lo..$hi): the layout put them elsewhere"
elif [ "$on_patched" -ne 0 ]; then
	fail "mprotect route: $on_patched of $on sites on the window's pages written"
elif [ "${said:-0}" -ne "$stubs" ]; then
	fail "mprotect route: $stubs sites left calling the stub, the debug line says ${said:-nothing}: $(echo "$out" | grep '^repstos:')"
else
	ok "mprotect route: the $on sites on the window's pages (and $((stubs - on)) beside them in the same runs) call the stub, said, right; $(echo "$f" | grep -c ' call$') written"
fi

out=$(env REPSTOS_DEBUG=1 $run nowx $bin 2>&1); rc=$?
stubs=$(forms "$out" | grep -c ' stub$' || true)
[ $rc -eq 0 ] && echo "$out" | grep -qx ok && [ "$stubs" -eq 0 ] &&
	echo "$out" | grep -q 'via /proc/self/mem' &&
	ok "default route: every site written, right" ||
	fail "default route: exit $rc, $stubs stub calls: $(echo "$out" | grep '^repstos:')"
finish
