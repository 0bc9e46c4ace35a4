#!/bin/sh
# Proves: a memset or memcpy that the program sends to another symbol through an asm label stays a call of that symbol, with a verbose note, so the program runs as its plain build does under every routine.
# asmname/main.c declares memset and memcpy with asm labels naming
# lib.c's my_memset and my_memcpy (as GCC's builtins/memops-asm test
# does), which count their calls; a site would call neither.  Built
# with the plugin (copy sites on) and plain, both must print the same
# counts and bytes, under every REPSTOS_VARIANT (libc too: there a site
# would call libc's memset, which the program sent its calls away from).
. "$(dirname "$0")/lib.sh"
D=tests/plugin/asmname
scratch
$CC -O2 -c -o $W/lib.o $D/lib.c &&
	$CC -O2 -o $W/plain $D/main.c $W/lib.o ||
	{ fail "plain build"; finish; }
$CC -O2 $PV -fplugin-arg-repstos-copy -c -o $W/main.o $D/main.c 2>$W/notes &&
	$CC -o $W/prog $W/main.o $W/lib.o $RTLIB ||
	{ fail "plugin build: $(grep -m1 error $W/notes)"; finish; }
n=$(rewritten_count $W/notes)
left=$(grep -c 'left alone (.*my_mem' $W/notes)
[ "$n" = 0 ] && [ "$left" = 4 ] &&
	ok "4 calls left alone, the note naming the asm label" ||
	{ fail "$n sites, $left calls left alone naming the label"; cat $W/notes; }
same=yes
for size in 64 0 1 100; do
	want=$($W/plain $size)
	run_variants $W/prog "$want" $size || { same=no; break; }
done
[ $same = yes ] && ok "runs as plain under every variant: $want"
finish
