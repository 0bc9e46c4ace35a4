#!/bin/sh
# Proves: each site's form follows from the cost table, in runtime and tool.
# The form each site gets is a function of the cost tables alone: with a
# tuning file whose tables are fixed, every set and copy site of
# tests/policy/sizes.c (constant, bounded and unknown sizes) gets the
# form its table makes cheapest, a move that may overlap never rep movsb
# in place, and `repstos patch --cpu=native` chooses exactly what the
# runtime does, for those tables and for the policy's measured rows.
. "$(dirname "$0")/../lib.sh"
bin=$BUILT/sizes
need $bin $TOOL
scratch

# expect MODULE: the forms, in table order, for the fixed table.  The
# first two are sizes.c's own struct repstos_costs assignments in its
# tuning writer: aggregate copies GCC would call memcpy for, now sites.
expect() {
	cat <<END
copy const 1064 1064 inline
copy const 1064 1064 inline
set const 16 16 vec
set const 300 300 erms
set const 3000 3000 inline
set const 100000 100000 inline
set bounded 0 100 vec
set bounded 4000 4999 inline
set unknown 0 4294967295 $1
copy const 300 300 inline
copy const 3000 3000 inline
copy bounded 0 100 vec
copy bounded 4000 4999 inline
move bounded 4000 4999 vec
copy unknown 0 4294967295 original
END
}

for module in vec erms; do
	$bin tuning $W/tuning-$module $module || fail "writing the tuning file"
	got=$(REPSTOS_TUNING=$W/tuning-$module $bin forms)
	[ "$got" = "$(expect $module)" ] &&
		ok "runtime, module $module: every site in its cheapest form" ||
		{ fail "runtime, module $module:"; echo "$got"; }
	REPSTOS_TUNING=$W/tuning-$module $bin run >/dev/null ||
		fail "runtime, module $module: wrong bytes"

	REPSTOS_TUNING=$W/tuning-$module $TOOL patch --cpu=native $bin \
		-o $W/native-$module >/dev/null || fail "patch --cpu=native"
	got=$($W/native-$module forms)
	[ "$got" = "$(expect $module)" ] &&
		ok "patch --cpu=native, module $module: the runtime's forms" ||
		{ fail "patch --cpu=native, module $module:"; echo "$got"; }
	$W/native-$module run >/dev/null || fail "patched, module $module: wrong bytes"
done

# A measured row of the policy: patch --cpu=PROFILE and the runtime under
# REPSTOS_CPU=PROFILE agree, where this CPU has what the profile has (the
# runtime keeps only the features both have; the tool takes the profile's).
for cpu in zen3 zen4-noavx512 zen4 zen5; do
	out=$(REPSTOS_CPU=$cpu REPSTOS_TUNING= REPSTOS_DEBUG=1 $bin forms 2>&1)
	want=$(echo "$out" | grep -v '^repstos:')
	have=$(echo "$out" | sed -n 's/.*\[\(.*\)\].*/\1/p')
	$TOOL patch --cpu=$cpu $bin -o $W/$cpu >/dev/null 2>&1 ||
		{ fail "patch --cpu=$cpu"; continue; }
	got=$(REPSTOS_PATCH=0 $W/$cpu forms)
	case $cpu in
	zen3|zen4-noavx512) need="avx2 bmi2" ;;
	*) need="avx512f avx512bw bmi2" ;;
	esac
	missing=""
	for f in $need; do
		echo " $have " | grep -q " $f " || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		skipped "$cpu: this CPU lacks$missing"
	elif [ "$got" = "$want" ]; then
		ok "patch --cpu=$cpu and REPSTOS_CPU=$cpu agree on every site"
	else
		fail "patch --cpu=$cpu and REPSTOS_CPU=$cpu differ:"
		echo "$want" | paste - /dev/null; echo "$got"
	fi
done

# The conservative rule, for CPUs no row describes: the routine a site of
# unknown size gets (conservative()): avx2 with AVX2 on AMD
# from Zen and on Intel, vec elsewhere.
for pair in generic:vec zen2:avx2 skylake:avx2 icelake:avx2; do
	cpu=${pair%%:*} want=${pair#*:}
	$TOOL patch --cpu=$cpu $bin -o $W/rule-$cpu >/dev/null 2>&1 ||
		{ fail "patch --cpu=$cpu"; continue; }
	got=$(REPSTOS_PATCH=0 $W/rule-$cpu forms |
		awk '$1 == "set" && $2 == "unknown" { print $NF }')
	[ "$got" = "$want" ] &&
		ok "conservative rule, $cpu: a site of unknown size gets $want" ||
		fail "conservative rule, $cpu: $got, not $want"
done

# Zen 3's row (rows/amd-19-01.costs): avx2 for a site of unknown size,
# and its table, not the module routine, for sizes it knows: vec at 16
# bytes (3.0 ns against avx2's 3.7), avx2 at 300, never inline (the
# conservative rule sent 100000 inline).
$TOOL patch --cpu=zen3 $bin -o $W/row-zen3 >/dev/null 2>&1 || fail "patch --cpu=zen3"
got=$(REPSTOS_PATCH=0 $W/row-zen3 forms | awk '$1 == "set" { print $2 ":" $3 "=" $NF }' | paste -sd' ')
want="const:16=vec const:300=avx2 const:3000=avx2 const:100000=avx2 bounded:0=avx2 bounded:4000=avx2 unknown:0=avx2"
[ "$got" = "$want" ] && ok "zen3's row: unknown avx2, known sizes by its table ($got)" ||
	fail "zen3's row: $got, not $want"

# Zen 5's row (rows/amd-1a-02.costs): avx512_split for a set site of
# unknown size and avx512 for a copy site, and its tables for sizes they
# know: avx512 for a set of 300 bytes (2.4 ns against avx512_split's
# 2.8), avx2 for a copy of 300 (6.2 against avx512's 8.3).  Before the
# table every site took the module routines, and copies avx2.
$TOOL patch --cpu=zen5 $bin -o $W/row-zen5 >/dev/null 2>&1 || fail "patch --cpu=zen5"
got=$(REPSTOS_PATCH=0 $W/row-zen5 forms | awk '{ print $1 ":" $2 ":" $3 "=" $NF }' |
	grep -E '^(set:unknown:0|set:const:300|copy:unknown:0|copy:const:300)=' | paste -sd' ')
want="set:const:300=avx512 set:unknown:0=avx512_split copy:const:300=avx2 copy:unknown:0=avx512"
[ "$got" = "$want" ] && ok "zen5's row: unknown by its routines, known sizes by its tables ($got)" ||
	fail "zen5's row: $got, not $want"

# The measured rows' tables are generated from what tune wrote: rows.h
# must be what mkrows.sh makes of runtime/policy/rows/*.costs today.
runtime/policy/mkrows.sh | cmp -s - runtime/policy/rows.h &&
	ok "runtime/policy/rows.h is what mkrows.sh writes from rows/*.costs" ||
	fail "runtime/policy/rows.h differs from runtime/policy/mkrows.sh: run it"
finish
