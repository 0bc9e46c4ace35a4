#!/bin/sh
# Proves: a site read back takes no masked or string-store form below 64 bytes.
# A load of bytes a masked or string store wrote waits for the store to
# commit, so a site the plugin marks REPSTOS_USE_READ, with sizes in one
# class below 64 bytes, gets the cheapest form with plain stores, where
# the same site left alone gets the one the table makes cheapest: with a
# tuning file whose tables make avx512_split (copies: rep movsb in
# place, then avx512) cheapest below 64 bytes and vec next, in the
# runtime and in `repstos patch --cpu=native` alike.  Sites of a range
# over several classes, of 64 bytes and more, or of unknown size choose
# as if not marked; and a marked site is not answered from the choice
# of an unmarked one of the same sizes (the start-up asks each range
# once).  The same with a size profile, by where the calls fell.
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
expect() {
	if [ "${1:-}" = profile ]; then
		unknown=avx2 var_read=vec
	else
		unknown=avx512_split var_read=avx512_split
	fi
	cat <<END
set 5 5 read vec
set 5 5 left avx512_split
set 32 63 read vec
set 0 63 read avx512_split
set 100 100 read avx2
set 0 4294967295 read $unknown
set 0 4294967295 read $var_read
set 0 4294967295 left avx512_split
copy 24 24 read vec
copy 24 24 left inline
END
}

$bin tuning $W/tuning || fail "writing the tuning file"
got=$(REPSTOS_TUNING=$W/tuning $bin forms)
[ "$got" = "$(expect)" ] &&
	ok "runtime: read-back sites below 64 bytes in plain forms, the others as the table says" ||
	{ fail "runtime:"; echo "$got" | diff - "$(expect >$W/want; echo $W/want)"; }
out=$(REPSTOS_TUNING=$W/tuning $bin run)
[ $? -eq 0 ] && ok "runtime: $out" || fail "runtime: $out"

REPSTOS_TUNING=$W/tuning $TOOL patch --cpu=native $bin -o $W/native >/dev/null ||
	fail "patch --cpu=native"
got=$(REPSTOS_PATCH=0 $W/native forms)
[ "$got" = "$(expect)" ] &&
	ok "patch --cpu=native: the runtime's forms" ||
	{ fail "patch --cpu=native:"; echo "$got"; }
out=$($W/native run)
[ $? -eq 0 ] && ok "patched: $out" || fail "patched: $out"

# A profile: the same choice where 95% of a site's calls fall in one
# class below 64 bytes, and not answered for a marked site from an
# unmarked one's row of counts (the start-up weighs each row once).
REPSTOS_PROFILE=$W/prof $bin run >/dev/null || fail "recording the profile"
got=$(REPSTOS_TUNING=$W/tuning REPSTOS_PROFILE_USE=$W/prof $bin forms)
[ "$got" = "$(expect profile)" ] &&
	ok "runtime with the profile: read-back sites of one class below 64 bytes in plain forms" ||
	{ fail "runtime with the profile:"; echo "$got" | diff - "$(expect profile >$W/want; echo $W/want)"; }
REPSTOS_TUNING=$W/tuning $TOOL patch --cpu=native --profile=$W/prof $bin \
	-o $W/profiled >/dev/null || fail "patch --cpu=native --profile"
got=$(REPSTOS_PATCH=0 $W/profiled forms)
[ "$got" = "$(expect profile)" ] &&
	ok "patch --cpu=native --profile: the runtime's forms" ||
	{ fail "patch --cpu=native --profile:"; echo "$got"; }
out=$($W/profiled run)
[ $? -eq 0 ] && ok "profiled: $out" || fail "profiled: $out"

finish
