#!/bin/sh
# Proves: dlopen()/dlclose() cycles leave nothing behind, profiling or not.
# A shared object with sites, loaded, called and unloaded 3,000 times
# (tests/runtime/cycle.c), with librepstos.a, with librepstos-full.a
# (which has size profiles) and with the shared runtime (which it then
# loads and unloads as well), against the same object built plain:
#  - the heap in use grows by less than 8 bytes a cycle, and the
#    resident set by at most 256 KiB more than the plain object's;
#  - the same under REPSTOS_PROFILE, and the profile holds one section
#    for the object, not one a cycle, whose counts are every cycle's.
. "$(dirname "$0")/../lib.sh"
P=$BUILT
n=3000
warm=50		# cycle.c's WARM
need $P/cycle $P/libcycle.so $P/libcycle-full.so $P/libplain.so $P/shared/libcycle.so
scratch

# grown OUT LIB: LIB's line of cycle's output OUT, "RSS HEAP".
grown() { echo "$1" | awk -v l="$2" '$1 == l { print $3, $5 }'; }

# check WHAT OUT LIB: LIB's growth against the plain object's.
check() {
	set -- "$1" "$(grown "$2" "$3")" "$(grown "$2" $P/libplain.so)"
	rss=${2% *} heap=${2#* } prss=${3% *}
	if [ -z "$2" ] || [ -z "$3" ]; then
		fail "$1: no figures: $out"
	elif [ "$heap" -lt $((8 * n)) ] && [ "$rss" -le $((prss + 256)) ]; then
		ok "$1: $n cycles: heap +$heap B, RSS +$rss KiB (plain +$prss KiB)"
	else
		fail "$1: $n cycles: heap +$heap B ($((heap / n)) B a cycle), RSS +$rss KiB (plain +$prss KiB)"
	fi
}

out=$($P/cycle $n $P/libplain.so $P/libcycle.so $P/libcycle-full.so \
	$P/shared/libcycle.so 2>&1) || fail "cycle exited $?: $out"
check "librepstos.a" "$out" $P/libcycle.so
check "librepstos-full.a" "$out" $P/libcycle-full.so
check "shared runtime" "$out" $P/shared/libcycle.so

# sections PROFILE: "SECTIONS CALLS-OF-EACH-SITE..." for the object.
sections() {
	awk '$1 == "profile" { s++ } $1 == "site" { c[$2] += $3 }
	     END { printf "%d", s; for (i in c) printf " %d", c[i]; print "" }' "$1"
}
want="1 $((2 * (n + warm))) $((2 * (n + warm))) $((2 * (n + warm)))"
for lib in libcycle-full.so shared/libcycle.so; do
	prof=$W/$(echo $lib | tr / -).prof
	out=$(REPSTOS_PROFILE=$prof $P/cycle $n $P/libplain.so $P/$lib 2>&1) ||
		fail "$lib, profiling: cycle exited $?: $out"
	check "$lib, profiling" "$out" $P/$lib
	got=$(sections $prof)
	[ "$got" = "$want" ] &&
		ok "$lib, profiling: one section, $((2 * (n + warm))) calls a site" ||
		fail "$lib, profiling: sections and calls a site: $got, want $want"
done
finish
