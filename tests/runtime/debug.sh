#!/bin/sh
# Proves: REPSTOS_DEBUG=2 says, for each site, where it is, what it does, the form it got and why, and stays bounded in a program with many sites.
# REPSTOS_DEBUG=1 prints one line a module; =2 one more line a site:
# module+offset (and the dynamic symbol, where one covers it), the site's
# index, op and size knowledge, the form and the reason (the cost table,
# the rule for a size not known, REPSTOS_VARIANT, a profile, repstos
# patch).  A module with more than 200 sites shows the first 200 and one
# line saying how many more there are.  Counts agree with their nouns:
# "1 site", "1 page", "1 site calls the stub" (librelro.so has one).
. "$(dirname "$0")/../lib.sh"
need $BUILT/sites build/tests/policy/manysites $BUILT/dlopen_main $BUILT/librelro.so
scratch

n=$(sites $BUILT/sites)
REPSTOS_DEBUG=2 $BUILT/sites forms >/dev/null 2>"$W/err"
lines=$(grep -c '^repstos: .*+0x[0-9a-f]*\( (.*+0x[0-9a-f]*)\)\{0,1\}: site [0-9]*, [a-z_]*, size [^:]*: .* (.*)$' "$W/err")
[ "$n" -gt 0 ] && [ "$lines" -eq "$n" ] &&
	ok "REPSTOS_DEBUG=2: one line for each of the $n sites, e.g. $(grep ': site 0,' "$W/err" | head -n 1 | sed 's/^repstos: [^ ]*//')" ||
	fail "REPSTOS_DEBUG=2: $lines site lines for $n sites: $(head -n 3 "$W/err")"
REPSTOS_DEBUG=2 REPSTOS_VARIANT=vec $BUILT/sites forms >/dev/null 2>"$W/vec"
[ "$(grep -c ': vec (REPSTOS_VARIANT)$' "$W/vec")" -eq "$n" ] &&
	ok "REPSTOS_VARIANT=vec: every site says vec, and why" ||
	fail "REPSTOS_VARIANT=vec: $(grep ': site 0,' "$W/vec")"
REPSTOS_DEBUG=1 $BUILT/sites forms >/dev/null 2>"$W/one"
[ "$(grep -c ': site [0-9]*, ' "$W/one")" -eq 0 ] && [ "$(wc -l <"$W/one")" -ge 1 ] &&
	ok "REPSTOS_DEBUG=1: the module's line only" ||
	fail "REPSTOS_DEBUG=1 printed site lines"

# counted WHAT FILE: no "1 sites", no "2 site" in FILE's module lines.
counted() {
	bad=$(grep '^repstos: ' "$2" | grep -oE '(^|[^0-9.])[0-9]+ (site|page)s?\b' |
		awk '($1 == 1) != ($2 == "site" || $2 == "page")')
	[ -z "$bad" ] && ok "$1: every count agrees with its noun" ||
		fail "$1: $(echo $bad)"
}
REPSTOS_DEBUG=1 $BUILT/dlopen_main $BUILT/librelro.so >/dev/null 2>"$W/dso"
counted "REPSTOS_DEBUG=1, two modules" "$W/dso"
assert "librelro.so: '1 site: 1 patched': $(grep librelro "$W/dso" | sed 's/.*copy [a-z0-9_]*; //')" \
	grep -q 'librelro.so: .*; 1 site: 1 patched, .* [0-9]* pages\{0,1\} via' "$W/dso"
REPSTOS_DEBUG=1 REPSTOS_PATCH=0 $BUILT/dlopen_main $BUILT/librelro.so >/dev/null 2>"$W/off"
counted "REPSTOS_PATCH=0" "$W/off"
assert "librelro.so: '1 site calls the stub'" \
	grep -q 'librelro.so: .*(REPSTOS_PATCH=0): 1 site calls the stub$' "$W/off"

big=build/tests/policy/manysites
REPSTOS_DEBUG=2 $big >/dev/null 2>"$W/big"
shown=$(grep -c ': site [0-9]*, ' "$W/big")
[ "$shown" -eq 200 ] && grep -q ': [0-9]* more sites not shown (the first 200 of a module are)$' "$W/big" &&
	ok "$(sites $big) sites: 200 lines and $(grep -o '[0-9]* more sites not shown' "$W/big")" ||
	fail "many sites: $shown site lines, $(grep -c 'not shown' "$W/big") notes"
finish
