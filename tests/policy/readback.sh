#!/bin/sh
# Proves: a site read back takes no masked or string-store form below 64 bytes.
# A load of bytes a masked or string store wrote waits for the store to
# commit, so a site the plugin marks REPSTOS_USE_READ, with sizes in one
# class below 64 bytes, gets the cheapest form with plain stores, where
# the same site left alone gets the one the table makes cheapest: with a
# tuning file whose tables make avx512_split (copies: rep movsb in
# place, then avx512) cheapest below 64 bytes and vec next, in the
# runtime and in `repstos patch --cpu=native` alike.  Sites of a range
# over several classes, or of 64 bytes and more, choose as if not
# marked; a marked site of unknown size takes the read routine (vec
# here), an unmarked one the module routine; and a marked site is not
# answered from the choice of an unmarked one of the same sizes (the
# start-up asks each range once).  The same with a size profile, by where the calls fell; and
# there a site with 95% of its calls spread over 16..63 (one copy site
# with a few calls of 5 bytes), marked or not, takes
# avx512_plain, plain stores with no size branch, where the module
# routine is an AVX-512 one (not under avx2), copy sites as set sites;
# patch --profile gives a file linked before avx512_plain was the
# module routine there.
. "$(dirname "$0")/../lib.sh"
bin=$BUILT/readback
need $bin $TOOL
scratch

have=$(REPSTOS_DEBUG=1 $bin forms 2>&1 | sed -n 's/.*\[\(.*\)\].*/\1/p' | head -n 1)
for f in avx512f avx512bw avx512vl bmi2; do
	echo " $have " | grep -q " $f " || skip "this CPU lacks $f: no masked form to leave out"
done

# expect [profile]: the forms, in table order; with the profile `run`
# records, sites of unknown size by their calls' sizes too (777 bytes;
# 40 bytes read back and not), the range 0..63 spread over classes.
# The first line is readback.c's own `*k = none` in slow(): an
# aggregate copy of a struct repstos_costs, which GCC would call memcpy
# for, is a site, of a constant size over 64 bytes, chosen by the table.
expect() {
	if [ "${1:-}" = profile ]; then
		unknown=avx2 var_read=vec spread=avx512_plain
		copy_spread=avx512_plain
	else
		unknown=vec var_read=vec spread=avx512_split
		copy_spread=inline
	fi
	cat <<END
copy 1064 1064 left avx2
set 5 5 read vec
set 5 5 left avx512_split
set 32 63 read vec
set 0 63 read avx512_split
set 16 63 read $spread
set 16 63 left $spread
set 100 100 read avx2
set 0 4294967295 read $unknown
set 0 4294967295 read $var_read
set 0 4294967295 left avx512_split
copy 24 24 read vec
copy 24 24 left inline
copy 16 63 read $copy_spread
copy 16 63 left $copy_spread
copy 0 63 left $copy_spread
END
}

# forms WHAT WANT COMMAND...: the forms COMMAND's sites hold must be
# `expect WANT`'s, and its run must store what it should.
forms() {
	what=$1 want=$2
	shift 2
	got=$("$@" forms)
	[ "$got" = "$(expect $want)" ] && ok "$what: the forms expected" ||
		{ fail "$what:"; echo "$got"; }
	out=$("$@" run)
	[ $? -eq 0 ] && ok "$what: $out" || fail "$what: $out"
}

$bin tuning $W/tuning || fail "writing the tuning file"
export REPSTOS_TUNING=$W/tuning
forms "runtime" "" $bin
$TOOL patch --cpu=native $bin -o $W/native >/dev/null || fail "patch --cpu=native"
forms "patch --cpu=native" "" env REPSTOS_PATCH=0 $W/native

# A profile: the same choice where 95% of a site's calls fall in one
# class below 64 bytes, and not answered for a marked site from an
# unmarked one's row of counts (the start-up weighs each row once).
REPSTOS_PROFILE=$W/prof $bin run >/dev/null || fail "recording the profile"
forms "runtime with the profile" profile env REPSTOS_PROFILE_USE=$W/prof $bin
$TOOL patch --cpu=native --profile=$W/prof $bin -o $W/profiled >/dev/null ||
	fail "patch --cpu=native --profile"
forms "patch --cpu=native --profile" profile env REPSTOS_PATCH=0 $W/profiled
n=$($TOOL dump --cpu=native --profile=$W/prof $bin |
	grep -c 'chosen avx512_plain  gain ? (avx512_plain: sizes over 16..63, which no cost table times)')
[ "$n" = 5 ] && ok "dump --profile: the five sites over 16..63 say why" ||
	fail "dump --profile: $n sites over 16..63 say why, not 5"

# A file linked with a runtime from before avx512_plain (here: its
# symbol taken out, which is all the tool goes by): patch --profile
# gives those sites the module routine, and says so in one note;
# dump --profile shows that routine, and why.
objcopy --strip-symbol=__repstos_avx512_plain $bin $W/older ||
	fail "objcopy --strip-symbol"
if $TOOL patch --cpu=native --profile=$W/prof $W/older -o $W/older-p \
		>/dev/null 2>$W/note; then
	grep -q "note: 2 sites get the module routine: __repstos_avx512_plain is not in this file" $W/note &&
		ok "older file: one note" || { fail "older file: no note"; cat $W/note; }
	got=$(REPSTOS_PATCH=0 $W/older-p forms)
	[ "$got" = "$(expect profile | sed '/^set/s/avx512_plain/avx512_split/')" ] &&
		ok "older file: the module routine for the sites over 16..63" ||
		{ fail "older file:"; echo "$got"; }
	n=$($TOOL dump --cpu=native --profile=$W/prof $W/older |
		grep -c 'chosen avx512_split  (__repstos_avx512_plain is not in this file')
	[ "$n" = 2 ] && ok "older file: dump --profile names the module routine too" ||
		fail "older file: dump --profile: $n sites name the module routine, not 2"
else
	fail "patch --profile of an older file"; cat $W/note
fi

# avx512_plain goes with the AVX-512 routines alone: under a module
# routine of avx2 the same profile gives the sites over 16..63 the
# module routine (their calls spread over two classes, and the table
# has no change costs).
$bin tuning $W/tuning-avx2 avx2 || fail "writing the avx2 tuning file"
got=$(REPSTOS_TUNING=$W/tuning-avx2 REPSTOS_PROFILE_USE=$W/prof $bin forms |
	grep '^set 16 63 ')
want="set 16 63 read avx2
set 16 63 left avx2"
[ "$got" = "$want" ] && ok "avx2 module: no avx512_plain" ||
	{ fail "avx2 module:"; echo "$got"; }

# The copy family's: under a copy module routine of avx2 the copy
# sites over 16..63 take what the table makes cheapest of it and rep
# movsb in place, as before avx512_plain.
$bin tuning $W/tuning-copy-avx2 avx512_split avx2 ||
	fail "writing the copy avx2 tuning file"
got=$(REPSTOS_TUNING=$W/tuning-copy-avx2 REPSTOS_PROFILE_USE=$W/prof $bin forms |
	grep '^copy 16 63 ')
want="copy 16 63 read inline
copy 16 63 left inline"
[ "$got" = "$want" ] && ok "copy avx2 module: no avx512_plain" ||
	{ fail "copy avx2 module:"; echo "$got"; }

finish
