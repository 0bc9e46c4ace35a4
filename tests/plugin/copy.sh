#!/bin/sh
# Proves: with -fplugin-arg-repstos-copy the copy calls become copy sites
# that copy right, return right, and say what they are in the table.
# The copy corpus (tests/plugin/copy) at -O0 -O1 -O2 -O3 -Os -Og, and
# -O2 with -march=native (AVX-512: the k1 clobber), PIE, -static, LTO
# (the sites made in lto1 at link time), and in a shared object (-fPIC
# -shared, the runtime inside) that a program links or dlopens:
#  - the calls that become sites are exactly the lines marked for that
#    level (@site everywhere, @big except -Os, @small only at -O0), from
#    the plugin's remarks, and the table has one entry per remark;
#  - each entry is a copy entry (version 2) with the op its function
#    must have: COPY for memcpy/mempcpy/helpers, MOVE for memmove,
#    MOVE_FWD for memmove(p, p + 4, n) only;
#  - the program's results (every byte of both windows with their
#    guards, for sizes 0..4096 and large, offsets, overlaps both ways)
#    match the reference byte loop, the return values are dst (dst + n
#    for mempcpy), and its digest matches the build without the plugin.
#  - without the copy option no copy becomes a site.
#  - `repstos check` finds every site good, and counts as many as the
#    remarks (for the shared builds: in the .so, which has no dynamic
#    relocation against the stub).
. "$(dirname "$0")/lib.sh"
S=tests/plugin/copy
# what a copy entry's version is, from the header
COPY_VERSION=$($POKE layout | sed -n 's/^REPSTOS_COPY_VERSION=//p')
scratch
PC="-fplugin-arg-repstos-copy -fplugin-arg-repstos-copy-fn=my_copy -fplugin-arg-repstos-move-fn=my_move"
CF="-g -I$S -Iinclude -Iruntime -Wall"

expected() {
	lvl=$1
	{ grep -n '@site' $S/ops.c
	  [ "$lvl" = -Os ] || grep -n '@big' $S/ops.c
	  [ "$lvl" = -O0 ] && grep -n '@small' $S/ops.c; } |
		sed 's|^\([0-9]*\):.*|ops.c:\1|' | sort -u
}

# The op each function's sites must have, from copy_ops[]: "c_memcpy 3".
grep -o '{ "[a-z_0-9]*", [a-z_0-9]*, K_[A-Z0-9]*, [0-9]*, [0-9]*, R_[A-Z]*, [A-Z_]* }' $S/ops.c |
	awk -F', ' '{ op = $7; sub(/ }/, "", op); print $2, op }' |
	sed 's/ COPY$/ 3/; s/ MOVE$/ 4/; s/ MOVE_FWD$/ 5/' >$W/ops.want
[ "$(grep -c ' 5$' $W/ops.want)" -eq 1 ] || fail "ops.c: the op list did not parse"

build() {
	name=$1 fl=$2 lf=$3 d=$W/$1
	mkdir -p $d; rm -f $d/notes
	$CC $fl $CF $PV $PC -c -o $d/ops.o $S/ops.c 2>>$d/notes ||
		{ fail "$name: ops.c does not compile"; cat $d/notes; return 1; }
	$CC $fl $CF -c -o $d/ops.ref.o $S/ops.c &&
	$CC $fl $CF -fno-builtin -c -o $d/ref.o $S/ref.c &&
	$CC $fl $CF -c -o $d/check.o $S/check.c || return 1
	$CC $fl $lf -o $d/prog $d/check.o $d/ops.o $d/ref.o $RTLIB ||
		{ fail "$name: link"; return 1; }
	$CC $fl $lf -o $d/prog.ref $d/check.o $d/ops.ref.o $d/ref.o || return 1
}

# table_ok NAME LEVEL FILE: the remarks in the notes beside FILE are the
# lines marked for LEVEL; FILE's table has one entry per remark, each
# the copy entry version with its function's op; `repstos check` passes and counts
# as many.  Sets s to the entries.
table_ok() {
	name=$1 lvl=$2 f=$3 d=$(dirname $3)
	rewritten_as_marked $name $lvl $d || return
	n=$(rewritten_count $d/notes)
	python3 $S/entries.py $f >$d/entries || { fail "$name: table"; return 1; }
	s=$(wc -l <$d/entries)
	[ "$n" -eq "$s" ] && [ "$s" -gt 0 ] ||
		{ fail "$name: $n calls rewritten but $s table entries"; return 1; }
	# every entry: the copy version, the op of its function
	bad=$(awk -v v=$COPY_VERSION 'NR == FNR { op[$1] = $2; next }
		   $2 != v || !($1 in op) || op[$1] != $3 { print }' $W/ops.want $d/entries)
	[ -z "$bad" ] || { fail "$name: entries with the wrong version or op:"; echo "$bad"; return 1; }
	"$TOOL" check $f >$d/check 2>&1 ||
		{ fail "$name: repstos check:"; cat $d/check; return 1; }
	[ "$(sites $f)" -eq "$s" ] ||
		{ fail "$name: repstos counts $(sites $f) sites, the table $s"; return 1; }
}

verify() {
	name=$1 lvl=$2 d=$W/$1
	table_ok $name $lvl $d/prog || return
	want=$($d/prog.ref 2>&1) || { fail "$name: reference build fails: $want"; return; }
	run_variants $d/prog "$want" || return
	ok "$name: $(wc -l <$d/want) marked lines, $s copy entries with their ops; $want"
}

for lvl in -O0 -O1 -O2 -O3 -Os -Og; do
	build $lvl "$lvl" && verify $lvl $lvl
done
for cfg in "native:-O2 -march=native:" "pie:-O2 -fPIE:-pie" "static:-O2:-static"; do
	name=${cfg%%:*} rest=${cfg#*:}
	build $name "${rest%%:*}" "${rest#*:}" && verify $name -O2
done
# The static build must really be static.
file $W/static/prog | grep -q 'statically linked' || fail "static: not a static executable"

# LTO: the plugin runs in lto1, so the remarks come from the link.
d=$W/lto; mkdir -p $d; rm -f $d/notes
$CC -O2 -flto $CF $PV $PC -c -o $d/ops.o $S/ops.c 2>>$d/notes || fail "lto: compile ops.c"
[ "$(rewritten_count $d/notes)" -eq 0 ] || fail "lto: sites made before link time"
if $CC -O2 $CF -fno-builtin -c -o $d/ref.o $S/ref.c && $CC -O2 $CF -c -o $d/check.o $S/check.c &&
   $CC -O2 -flto $PV $PC -o $d/prog $d/check.o $d/ops.o $d/ref.o $RTLIB 2>>$d/notes &&
   cp $W/-O2/prog.ref $d/prog.ref; then
	verify lto -O2
else
	fail "lto: link"; cat $d/notes
fi

# Shared object: the copies (and the runtime) in libcopy.so, used by a
# linked program and by a dlopen'ing one; the table is the .so's.
d=$W/shared; mkdir -p $d; rm -f $d/notes
want=$($W/-O2/prog.ref)
if $CC -O2 -fPIC $CF $PV $PC -c -o $d/ops.o $S/ops.c 2>>$d/notes &&
   $CC -O2 -fPIC $CF -fno-builtin -c -o $d/ref.o $S/ref.c &&
   $CC -shared -o $d/libcopy.so $d/ops.o $d/ref.o $RTLIB; then
	! readelf -r -W $d/libcopy.so | grep -q 'repstos_stub' ||
		fail "shared: dynamic relocation against __repstos_stub (PLT?)"
	table_ok shared -O2 $d/libcopy.so &&
		ok "shared: libcopy.so: $(wc -l <$d/want) marked lines, $s copy entries with their ops, repstos check clean"
	if $CC -O2 $CF -o $d/prog $W/-O2/check.o -L$d -lcopy -Wl,-rpath,"$d"; then
		run_variants $d/prog "$want" && ok "shared object linked: $want"
	else
		fail "shared: link a program with libcopy.so"
	fi
	if $CC -O2 $CF -DUSE_DLOPEN -o $d/dlprog $S/check.c -ldl; then
		run_variants $d/dlprog "$want" "$d/libcopy.so" &&
			ok "shared object dlopen'ed: $want"
	else
		fail "shared: build the dlopen'ing program"
	fi
else
	fail "shared: build libcopy.so"; cat $d/notes
fi

# MOVE_FWD: the rules on memmoves between distinct objects, within one
# object both ways, and through pointers (copy/fwd.c: each function's
# name ends in the op its site must have).
for lvl in -O0 -Og -O2; do
	d=$W/fwd$lvl; mkdir -p $d
	$CC $lvl $CF $PV $PC -o $d/fwd $S/fwd.c $RTLIB 2>$d/notes &&
	$CC $lvl $CF -o $d/fwd.ref $S/fwd.c || { fail "fwd $lvl: build"; cat $d/notes; continue; }
	python3 $S/entries.py $d/fwd >$d/entries
	# _5: MOVE_FWD, or COPY where GCC itself made the memmove a memcpy
	bad=$(awk -v v=$COPY_VERSION '$2 != v || !($1 ~ /_4$/ && $3 == 4 || $1 ~ /_5$/ && ($3 == 5 || $3 == 3))' $d/entries)
	want=$($d/fwd.ref)
	got=$($d/fwd)
	[ -z "$bad" ] && [ "$got" = "$want" ] &&
		ok "fwd $lvl: $(awk '$3 == 5' $d/entries | wc -l) MOVE_FWD, $(awk '$3 == 4' $d/entries | wc -l) MOVE, as each function says; runs as without the plugin ($got)" ||
		{ fail "fwd $lvl: [$got] want [$want]; wrong entries:"; echo "$bad"; }
done
# -O0: GCC leaves the global arrays' memmove to the plugin, whose
# distinct-objects rule must take it; at -O2 GCC makes it a memcpy.
grep -qx "distinct_5 $COPY_VERSION 5 .*" $W/fwd-O0/entries &&
	[ "$(awk '$3 == 5' $W/fwd-O0/entries | wc -l)" -eq 4 ] &&
	[ "$(awk '$3 == 4' $W/fwd-O0/entries | wc -l)" -eq 4 ] &&
	ok "fwd -O0: distinct objects, one object downwards or in place: MOVE_FWD; the 4 others MOVE" ||
	fail "fwd -O0: want 4 MOVE_FWD (distinct_5 among them) and 4 MOVE entries"

# Off by default: the same unit without the copy option has no site.
$CC -O2 $CF $PV -c -o $W/off.o $S/ops.c 2>$W/off.notes || fail "off: compile"
[ "$(rewritten_count $W/off.notes)" -eq 0 ] && ! has_table $W/off.o &&
	ok "without -fplugin-arg-repstos-copy: no copy sites, no table" ||
	fail "copies rewritten without the copy option"
finish
