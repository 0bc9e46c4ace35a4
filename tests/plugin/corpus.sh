#!/bin/sh
# Proves: the plugin rewrites exactly the calls marked, and they stay right.
# The plugin on a corpus of memset-family calls (tests/plugin/corpus):
# for every -O level and for LTO, PIE, no-PIE, -static, -march=native,
# shared objects (linked and dlopen'ed):
#  - the calls that become sites are exactly the lines marked for that
#    level (@site everywhere, @big except -Os, @small only at -O0), from
#    the plugin's remarks, and the site table holds one entry per remark;
#  - the program's results (every byte, guards, return values, over sizes,
#    offsets and fills) match the reference byte loop, and its digest
#    matches the build without the plugin, under every REPSTOS_VARIANT
#    and with REPSTOS_PATCH=0.
. "$(dirname "$0")/lib.sh"
S=tests/plugin/corpus
scratch
UNITS="ops fills helpers"
PH="-fplugin-arg-repstos-clear=my_zero,secure_wipe -fplugin-arg-repstos-memset=my_memset"
CF="-g -I$S -Iinclude -Iruntime -Wall"

# Lines marked for a level.
expected() {
	lvl=$1
	for u in $UNITS; do
		{ grep -n '@site' $S/$u.c
		  [ "$lvl" = -Os ] || grep -n '@big' $S/$u.c
		  [ "$lvl" = -O0 ] && grep -n '@small' $S/$u.c; } |
			sed "s|^\([0-9]*\):.*|$u.c:\1|"
	done | sort -u
}

# build NAME FLAGS [LINKFLAGS]: the corpus with and without the plugin.
build() {
	name=$1 fl=$2 lf=$3 d=$W/$1
	mkdir -p $d
	for u in $UNITS; do
		$CC $fl $CF $PV $PH -c -o $d/$u.o $S/$u.c 2>>$d/notes ||
			{ fail "$name: $u.c does not compile"; cat $d/notes; return 1; }
		$CC $fl $CF -c -o $d/$u.ref.o $S/$u.c || return 1
	done
	$CC $fl $CF -c -o $d/ref.o $S/ref.c &&
	$CC $fl $CF -c -o $d/check.o $S/check.c || return 1
	objs="$d/check.o $d/ops.o $d/fills.o $d/helpers.o $d/ref.o"
	$CC $fl $lf $PV $PH -o $d/prog $objs $RTLIB 2>>$d/notes ||
		{ fail "$name: link"; cat $d/notes; return 1; }
	$CC $fl $lf -o $d/prog.ref $d/check.o $d/ops.ref.o $d/fills.ref.o \
		$d/helpers.ref.o $d/ref.o || return 1
}

# verify NAME LEVEL: remarks, table and runs.
verify() {
	name=$1 lvl=$2 d=$W/$1
	rewritten_as_marked $name $lvl $d || return
	n=$(rewritten_count $d/notes)
	s=$(sites $d/prog)
	[ "$n" -eq "$s" ] && [ "$s" -gt 0 ] ||
		{ fail "$name: $n calls rewritten but $s table entries"; return; }
	want=$($d/prog.ref 2>&1) || { fail "$name: reference build fails: $want"; return; }
	run_variants $d/prog "$want" || return
	ok "$name: $(wc -l <$d/want) marked lines, $s sites; $want ($(($(variants | wc -l) + 2)) runtime settings)"
}

for lvl in -O0 -O1 -O2 -O3 -Os -Og; do
	rm -f $W/$lvl/notes
	build $lvl "$lvl" && verify $lvl $lvl
done
for cfg in "pie:-O2 -fPIE:-pie" "nopie:-O2 -fno-pie:-no-pie" \
	   "native:-O2 -march=native:" "static:-O2:-static" "O3g:-O3 -g3:"; do
	name=${cfg%%:*} rest=${cfg#*:}
	rm -f $W/$name/notes
	build $name "${rest%%:*}" "${rest#*:}" && verify $name -O2
done
# The static build must really be static.
file $W/static/prog | grep -q 'statically linked' || fail "static: not a static executable"

# LTO: the plugin runs in lto1, so the remarks come from the link.
d=$W/lto; mkdir -p $d; rm -f $d/notes
for u in $UNITS; do
	$CC -O2 -flto $CF $PV $PH -c -o $d/$u.o $S/$u.c 2>>$d/notes || fail "lto: compile $u.c"
done
[ "$(rewritten_count $d/notes)" -eq 0 ] || fail "lto: sites made before link time"
$CC -O2 $CF -c -o $d/ref.o $S/ref.c && $CC -O2 $CF -c -o $d/check.o $S/check.c
$CC -O2 -flto $PV $PH -o $d/prog $d/check.o $d/ops.o $d/fills.o $d/helpers.o \
	$d/ref.o $RTLIB 2>>$d/notes || fail "lto: link"
cp $W/-O2/prog.ref $d/prog.ref
verify lto -O2

# Fat LTO objects linked without the plugin: link, run; -fno-lto uses
# the fat code, which has the sites.
d=$W/fat; mkdir -p $d; rm -f $d/notes
for u in $UNITS; do
	$CC -O2 -flto -ffat-lto-objects $CF $PV $PH -c -o $d/$u.o $S/$u.c 2>>$d/notes ||
		fail "fat: compile $u.c"
done
want=$($W/-O2/prog.ref)
objs="$W/lto/check.o $d/ops.o $d/fills.o $d/helpers.o $W/lto/ref.o"
$CC -O2 -flto -o $d/prog-lto $objs $RTLIB && run_variants $d/prog-lto "$want" &&
	[ "$(sites $d/prog-lto)" -eq 0 ] &&
	ok "fat LTO linked with -flto, without the plugin: links, runs, 0 sites" ||
	fail "fat LTO linked without the plugin"
$CC -O2 -fno-lto -o $d/prog-nolto $objs $RTLIB && run_variants $d/prog-nolto "$want" &&
	n=$(sites $d/prog-nolto) && [ "$n" -eq "$(rewritten_count $d/notes)" ] && [ "$n" -gt 0 ] &&
	ok "fat LTO linked with -fno-lto: the fat code's $n sites run" ||
	fail "fat LTO linked with -fno-lto"

# Shared object: the corpus and the runtime in libcorpus.so, used by a
# linked program and by a dlopen'ing one.
d=$W/shared; mkdir -p $d; rm -f $d/notes
for u in $UNITS ref; do
	extra="$PV $PH"; [ $u = ref ] && extra=
	$CC -O2 -fPIC $CF $extra -c -o $d/$u.o $S/$u.c 2>>$d/notes || fail "shared: compile $u.c"
done
$CC -shared -o $d/libcorpus.so $d/ops.o $d/fills.o $d/helpers.o $d/ref.o $RTLIB ||
	fail "shared: link libcorpus.so"
readelf -r -W $d/libcorpus.so | grep -q 'repstos_stub' &&
	fail "shared: dynamic relocation against __repstos_stub (PLT?)"
n=$(sites $d/libcorpus.so)
[ "$n" -eq "$(rewritten_count $d/notes)" ] && [ "$n" -gt 0 ] || fail "shared: $n table entries"
$CC -O2 $CF -o $d/prog $W/-O2/check.o -L$d -lcorpus -Wl,-rpath,"$d" &&
	run_variants $d/prog "$want" && ok "shared object linked: $n sites, $want"
$CC -O2 $CF -DUSE_DLOPEN -o $d/dlprog $S/check.c -ldl &&
	run_variants $d/dlprog "$want" "$d/libcorpus.so" &&
	ok "shared object dlopen'ed: $n sites, $want"
finish
