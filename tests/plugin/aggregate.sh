#!/bin/sh
# Proves: struct copies and clears that GCC turns into memcpy/memset calls only at RTL expansion become sites exactly where GCC would call (from 8193 bytes at -O0..-O3 and -Og, never at -Os, never below), in user space and kernel mode, the program's bytes the same as without the plugin, and the kinds that cannot be sites stay GCC's calls.
# tests/plugin/aggregate/agg.c has, for sizes 16, 136, 256, 8192
# (GCC's inline expansions) and 8193, 9000, 16384 (GCC's calls), a
# function of each kind: *a = *b, a global assigned, a memcpy GCC folds
# into an assignment, a clear by empty constructor, a partly
# initialised local copied out, a struct returned through the caller's
# slot, a struct result GCC returns into a temporary and copies (eight
# sites a size), and the three that stay GCC's: a volatile
# destination (left alone: a routine may store a byte twice), a
# by-value argument (copied inside the call's RTL sequence) and
# __seg_gs (GCC's loop, never a call).  At each level, user space with
# -fplugin-arg-repstos-copy:
#  - the plugin's remarks rewrite 24 aggregates in agg.c (none at -Os),
#    each of a size GCC calls for, and leave the 3 volatile ones alone;
#  - the plain object calls memcpy/memset in exactly those 24 places
#    among the site_ functions of 8193 bytes and more (the premise: GCC
#    calls there), the plugin's object in none of them, and in main
#    one call fewer for each site made there (its struct results are
#    result copies at -O0); in those of 8192
#    bytes and less it calls as often as the plain object (none with
#    GCC 12 to 15; GCC 16's generic tuning calls from 257 bytes, which
#    min-const, 8193, leaves to the C library as for an explicit call
#    of that size); repstos check counts every remark's site;
#  - the program (every kind, every size, a struct assigned to itself)
#    prints the plain build's digest under every variant; so does an
#    -O2 build under ASan (a struct assigned to itself reports no
#    overlap) and one through LTO (its sites made at link time).
# Kernel mode (-mcmodel=kernel, no SSE, the 7.3 fixture tree), -O2 and
# -Os: the same 24 sites (none at -Os), repstos check clean, no call
# left in a site_ function.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kernel/tree.sh"
S=tests/plugin/aggregate
scratch
PC="-fplugin-arg-repstos-copy"
CF="-g -I$S -Wall -Wno-unused-function"

# calls OBJ: "function" for each memcpy/memset/memmove call in OBJ
calls() {
	objdump -dr "$1" | awk '/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn) }
		/R_X86_64_(PLT|PC)32[ \t]+(memset|memcpy|memmove)/ { print fn }'
}

# remarks NOTES: the checks on the plugin's notes; WANT sites
remarks() {
	notes=$1 want=$2 name=$3
	n=$(grep -c 'agg\.c:.*note: repstos: aggregate .* rewritten' "$notes")
	left=$(grep -c 'note: repstos: aggregate copy left alone.*volatile' "$notes")
	bad=$(grep 'note: repstos: aggregate .* rewritten' "$notes" |
		grep -v 'size \(8193\|9000\|16384\)[;)]')
	[ "$n" = "$want" ] && [ -z "$bad" ] ||
		{ fail "$name: $n aggregates rewritten, wanted $want of sizes 8193, 9000, 16384"; echo "$bad" | head -3; return 1; }
	[ "$left" = $((want / 8)) ] ||
		{ fail "$name: $left volatile copies left alone, wanted $((want / 8))"; return 1; }
}

# site_calls OBJ: the calls in site_ functions of the sizes GCC 12 to
# 16 all call for; small_calls OBJ: in the others
site_calls() { calls "$1" | grep -c '^site_[a-z]*\(8193\|9000\|16384\)$'; }
small_calls() { calls "$1" | grep '^site_' | grep -vc '\(8193\|9000\|16384\)$'; }

for lvl in -O0 -O1 -O2 -O3 -Os -Og; do
	d=$W/u$lvl; mkdir -p $d
	nw=24; [ $lvl = -Os ] && nw=0
	if ! $CC $lvl $CF -c -o $d/ref.o $S/agg.c ||
	   ! $CC $lvl $CF $PV $PC -c -o $d/agg.o $S/agg.c 2>$d/notes ||
	   ! $CC -o $d/prog.ref $d/ref.o || ! $CC -o $d/prog $d/agg.o $RTLIB; then
		fail "user $lvl: build"; head -5 $d/notes; continue
	fi
	remarks $d/notes $nw "user $lvl" || continue
	p=$(site_calls $d/ref.o) k=$(site_calls $d/agg.o)
	[ "$p" = $nw ] && [ "$k" = 0 ] ||
		{ fail "user $lvl: calls in site_ functions: plain $p (want $nw), plugin $k (want 0)"; continue; }
	ps=$(small_calls $d/ref.o) ks=$(small_calls $d/agg.o)
	[ "$ps" = "$ks" ] ||
		{ fail "user $lvl: calls in site_ functions below 8193 bytes: plain $ps, plugin $ks"; continue; }
	# main: one call fewer for each result copy made a site there
	mp=$(calls $d/ref.o | grep -c '^main$') m=$(calls $d/agg.o | grep -c '^main$')
	mr=$(grep -c 'agg\.h:.*note: repstos: aggregate .* rewritten' $d/notes)
	[ "$m" = $((mp - mr)) ] ||
		{ fail "user $lvl: main calls $m times, the plain build $mp, $mr sites made there"; continue; }
	kept=$(calls $d/agg.o | grep -c '^keep_\(vol\|arg\)\(8193\|9000\|16384\)$')
	[ "$kept" = $((nw / 8 * 2)) ] ||
		{ fail "user $lvl: $kept calls kept in keep_vol/keep_arg, wanted $((nw / 8 * 2))"; continue; }
	"$TOOL" check $d/prog >$d/check 2>&1 || { fail "user $lvl: repstos check"; cat $d/check; continue; }
	r=$(rewritten_count $d/notes)
	[ "$(sites $d/prog)" = $r ] ||
		{ fail "user $lvl: repstos counts $(sites $d/prog) sites, the remarks $r"; continue; }
	ref=$($d/prog.ref) || { fail "user $lvl: plain build: $ref"; continue; }
	run_variants $d/prog "$ref" &&
		ok "user $lvl: $nw aggregate sites, GCC's calls in site_ functions $p before and 0 after ($ps below 8193 bytes both), $kept kept; $ref as without the plugin"
done

# Under ASan (its range and overlap checks before each site: a struct
# assigned to itself must not report) and through LTO (sites made in
# lto1): the plain build's digest.
ref=$($W/u-O2/prog.ref)
for v in "asan:-fsanitize=address" "lto:-flto"; do
	name=${v%%:*} fl=${v#*:} d=$W/$name; mkdir -p $d
	if $CC -O2 $fl $CF $PV $PC -o $d/prog $S/agg.c $RTLIB 2>$d/notes; then
		n=$(grep -c 'note: repstos: aggregate .* rewritten' $d/notes)
		got=$($d/prog 2>&1)
		[ "$n" -ge 24 ] && [ "$got" = "$ref" ] &&
			ok "$name: $n aggregate sites; $got as without the plugin" ||
			{ fail "$name: $n aggregate sites (want 24 or more): $got (want $ref)"; echo "$got" | head -5; }
	else
		fail "$name: build"; head -5 $d/notes
	fi
done

# Kernel mode: the 7.3 fixture tree, built as the kernel builds.
fixture_tree "$W/t14" 14
KBASE="-fno-pie -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx -fcf-protection=branch -DKERNEL $(tree_flags "$W/t14")"
for lvl in -O2 -Os; do
	d=$W/k$lvl; mkdir -p $d
	nw=24; [ $lvl = -Os ] && nw=0
	if ! $CC $lvl $KBASE $CF -c -o $d/ref.o $S/agg.c ||
	   ! $CC $lvl $KBASE $CF $PV -fplugin-arg-repstos-kernel -c -o $d/agg.o $S/agg.c 2>$d/notes; then
		fail "kernel $lvl: build"; head -5 $d/notes; continue
	fi
	remarks $d/notes $nw "kernel $lvl" || continue
	p=$(site_calls $d/ref.o) k=$(site_calls $d/agg.o)
	[ "$p" = $nw ] && [ "$k" = 0 ] ||
		{ fail "kernel $lvl: calls in site_ functions: plain $p (want $nw), plugin $k (want 0)"; continue; }
	ps=$(small_calls $d/ref.o) ks=$(small_calls $d/agg.o)
	[ "$ps" = "$ks" ] ||
		{ fail "kernel $lvl: calls in site_ functions below 8193 bytes: plain $ps, plugin $ks"; continue; }
	if [ $nw = 0 ]; then
		ok "kernel $lvl: no aggregate site, as GCC calls for none"
		continue
	fi
	expect_rc 0 "kernel $lvl: repstos check" $TOOL check $d/agg.o
	echo "$OUT" | grep -q "clean, $nw kernel-mode sites" &&
		ok "kernel $lvl: $OUT" || fail "kernel $lvl: check: $OUT"
done
finish
