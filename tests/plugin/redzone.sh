#!/bin/sh
# Proves: a site in a leaf function leaves live locals in the red zone alone.
# The red zone: leaf functions keeping live locals in the red zone across
# a rewritten memset (volatile locals, register-pressure spills, a local
# array), at -O0 -O1 -O2 -O3 -Os -Og and with LTO; each function must
# really be a leaf whose only call is the site.  The control build (bare
# asm call, no plugin) must show the corruption, so the check can fail.
. "$(dirname "$0")/lib.sh"
S=tests/plugin/redzone/redzone.c
scratch

for lvl in -O0 -O1 -O2 -O3 -Os -Og "-O2 -flto"; do
	tag=$(echo "$lvl" | tr -d ' ')
	b=$W/rz$tag
	$CC $lvl -g $PV -o $b $S $RTLIB 2>$b.notes ||
		{ fail "$lvl: build"; cat $b.notes; continue; }
	n=$(rewritten_count $b.notes)
	[ "$n" -eq 3 ] || { fail "$lvl: $n memsets rewritten, want 3"; continue; }
	# each leaf's only call is the site
	for f in leaf_volatile leaf_pressure leaf_array; do
		calls=$(objdump -d --no-show-raw-insn $b |
			awk -v f="<$f>:" '$2 == f { on = 1; next } /^$/ { on = 0 }
				on && /call/ { print $NF }')
		[ "$calls" = "<__repstos_stub>" ] ||
			fail "$lvl: $f calls [$calls], want only the site"
	done
	# The stub, a store loop and rep stosb: the red zone is the
	# caller's, whatever runs; every variant runs in corpus.sh.
	for env in REPSTOS_PATCH=0 REPSTOS_VARIANT=vec REPSTOS_VARIANT=erms; do
		out=$(env $env $b) || { fail "$lvl ($env): $out"; continue 2; }
	done
	ok "$lvl: 3 leaf functions, live red-zone locals intact across the site ($out)"
done

# Control: the same leaves with a bare asm call and the red zone in use.
bad=""
for lvl in -O0 -O2; do
	$CC $lvl -DCONTROL -o $W/control$lvl $S $RTLIB || { fail "control build"; continue; }
	REPSTOS_PATCH=0 $W/control$lvl >/dev/null && fail "control $lvl: no corruption seen" ||
		bad="$bad $lvl"
done
[ -n "$bad" ] && ok "control (bare asm call, red zone on) is corrupted at$bad"
finish
