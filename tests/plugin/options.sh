#!/bin/sh
# Proves: the plugin's options and remarks do what repstos-cc(1) says.
# The plugin's options and remarks: bad use is a GCC error naming the
# option (unknown key, bad value, missing value, value where none goes);
# verbose remarks have the documented form and a per-unit summary;
# min-const and max-size move the line between sites and calls left
# alone; user clear/memset helpers; a non-x86-64 target (-m32) gets one
# warning and no sites.
. "$(dirname "$0")/lib.sh"
scratch
src=$W/u.c
cat >$src <<'EOC'
typedef unsigned long size_t;
void *memset(void *, int, size_t);
void my_zero(void *, size_t);
void f(char *p, size_t n) { memset(p, 1, n); }
void g(char *p, size_t n) { memset(p, 2, n & 200); }
void h(char *p) { memset(p, 3, 9000); }
void k(char *p) { memset(p, 4, 100); }
void z(char *p, size_t n) { my_zero(p, n); }
EOC

# error CASE-ARGS EXPECTED-TEXT
error() {
	args=$1 want=$2
	out=$($CC -O2 -c -o $W/x.o $P $args $src 2>&1) &&
		{ fail "[$args] accepted"; return; }
	echo "$out" | grep -q -- "$want" &&
		ok "[$args] rejected: $(echo "$out" | grep error | head -n 1)" ||
		{ fail "[$args] error does not say [$want]"; echo "$out"; }
}
error "-fplugin-arg-repstos-bogus=1" "-fplugin-arg-repstos-bogus"
error "-fplugin-arg-repstos-min-const=abc" "bad value .abc. for .-fplugin-arg-repstos-min-const.: expected a non-negative integer or .auto."
error "-fplugin-arg-repstos-max-size=-5" "bad value .-5. for .-fplugin-arg-repstos-max-size.: expected a non-negative integer$"
error "-fplugin-arg-repstos-max-size" "missing value for .-fplugin-arg-repstos-max-size"
error "-fplugin-arg-repstos-clear" "missing value for .-fplugin-arg-repstos-clear"
error "-fplugin-arg-repstos-clear=a,,b" "bad value .a,,b. for .-fplugin-arg-repstos-clear"
error "-fplugin-arg-repstos-memset=1x" "bad value .1x. for .-fplugin-arg-repstos-memset"
error "-fplugin-arg-repstos-verbose=yes" "-fplugin-arg-repstos-verbose. takes no value"
error "-fplugin-arg-repstos-copy=on" "-fplugin-arg-repstos-copy. takes no value"
error "-fplugin-arg-repstos-copy-fn" "missing value for .-fplugin-arg-repstos-copy-fn"
error "-fplugin-arg-repstos-move-fn=a-b" "bad value .a-b. for .-fplugin-arg-repstos-move-fn"

# notes ARGS: the remark lines, "LINE: TEXT"
notes() {
	$CC -O2 -c -o $W/x.o $PV "$@" $src 2>&1 |
		sed -n 's|^[^:]*:\([0-9]*\):[0-9]*: note: repstos: |\1: |p'
}
expect() {
	echo "$1" | grep -qx -- "$2" && ok "remark [$2]" ||
		{ fail "no remark [$2] in:"; echo "$1"; }
}
out=$(notes)
expect "$out" "4: memset rewritten (size unknown)"
expect "$out" "5: memset rewritten (size unknown, at most 200)"
expect "$out" "6: memset rewritten (size 9000)"
expect "$out" "7: memset left alone (size 100; constant size below min-const=8193: GCC inlines it)"
$CC -O2 -c -o $W/x.o $PV $src 2>&1 | grep -q 'note: repstos: .*u.c: 3 sites, 1 call left alone$' &&
	ok "per-unit summary, its counts agreeing with their nouns" ||
	fail "no per-unit summary '3 sites, 1 call left alone': $($CC -O2 -c -o $W/x.o $PV $src 2>&1 | grep 'left alone')"

# A size proven only from below: "at least", not "to 4294967295".
cat >$W/b.c <<'EOC'
typedef unsigned long size_t;
void *memset(void *, int, size_t);
void b(char *p, size_t n) { if (n > 21160) memset(p, 5, n); }
EOC
out=$($CC -O2 -c -o $W/b.o $PV $W/b.c 2>&1 |
	sed -n 's|^[^:]*:\([0-9]*\):[0-9]*: note: repstos: |\1: |p')
expect "$out" "3: memset rewritten (size unknown, at least 21161)"
[ "$(sites $W/x.o)" -eq 3 ] || fail "default: $(sites $W/x.o) sites, want 3"

out=$(notes -fplugin-arg-repstos-max-size=100 -fplugin-arg-repstos-min-const=50)
expect "$out" "5: memset left alone (size unknown, at most 200; size may reach 200, above max-size=100)"
expect "$out" "6: memset left alone (size 9000; size may reach 9000, above max-size=100)"
expect "$out" "7: memset rewritten (size 100)"
expect "$out" "4: memset rewritten (size unknown)"
[ "$(sites $W/x.o)" -eq 2 ] || fail "max-size=100: $(sites $W/x.o) sites, want 2"

out=$(notes -fplugin-arg-repstos-clear=other,my_zero)
expect "$out" "8: my_zero rewritten (size unknown)"
out=$(notes -fplugin-arg-repstos-memset=my_zero)
echo "$out" | grep -q '^8:' && fail "my_zero (ptr, len) taken as a (ptr, c, len) memset"

# Copies: remarks, off by default, user helpers by shape.
cat >$W/c.c <<'EOC'
typedef unsigned long size_t;
void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *my_cpy(void *, const void *, size_t);
void f(char *d, const char *s, size_t n) { memcpy(d, s, n); }
void g(char *p, size_t n) { memmove(p, p + 1, n); }
void h(char *d, const char *s, size_t n) { my_cpy(d, s, n); }
void k(char *d, const char *s) { memcpy(d, s, 100); }
EOC
cnotes() {
	$CC -O2 -c -o $W/c.o $PV "$@" $W/c.c 2>&1 |
		sed -n 's|^[^:]*:\([0-9]*\):[0-9]*: note: repstos: |\1: |p'
}
out=$(cnotes)
[ -z "$out" ] && ok "copies off by default: no remark" || fail "copies without the option: $out"
out=$(cnotes -fplugin-arg-repstos-copy)
expect "$out" "5: memcpy rewritten (size unknown)"
expect "$out" "6: memmove rewritten (size unknown; copies forwards: destination at or before the source in one object)"
expect "$out" "8: memcpy left alone (size 100; constant size below min-const=8193: GCC inlines it)"
echo "$out" | grep -q '^7:' && fail "my_cpy rewritten without copy-fn"
out=$(cnotes -fplugin-arg-repstos-copy-fn=my_cpy)
expect "$out" "7: my_cpy rewritten (size unknown)"
echo "$out" | grep -q '^5:' && fail "memcpy rewritten with copy-fn alone"
out=$(cnotes -fplugin-arg-repstos-memset=my_cpy)
echo "$out" | grep -q '^7:' && fail "my_cpy (dst, src, len) taken as a (ptr, c, len) memset"

# Without the verbose option the plugin says nothing.
out=$($CC -O2 -c -o $W/x.o $P $src 2>&1)
[ -z "$out" ] && ok "quiet without verbose" || fail "output without verbose: $out"

# -m32: one warning, no sites (needs only cc1 and as, no 32-bit libc).
if $CC -m32 -c -o $W/m32.o -x c /dev/null 2>/dev/null; then
	out=$($CC -m32 -O2 -c -o $W/m32.o $P $src 2>&1)
	[ "$(echo "$out" | grep -c 'warning: repstos: the target is not x86-64')" -eq 1 ] &&
		! has_table $W/m32.o && ok "-m32: one warning, no site table" ||
		{ fail "-m32: [$out], a site table"; }
else
	skipped "-m32: no support for it in this GCC"
fi
finish
