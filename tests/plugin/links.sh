#!/bin/sh
# Proves: the plugin's sites share one table section per text section, so gas takes linear time.
# gas opens a table section for every distinct link symbol and finds it
# along a list of that name: one link per site made 20,000 sites
# assemble in 6 s and 100,000 in minutes.  A generated unit of 2,000
# sites in 40 functions, each with a site in a block GCC moves to
# .text.unlikely (it calls a cold function), compiled:
#  - at -O2: two table sections, one linked to .text and one to
#    .text.unlikely, and `repstos check` finds every entry's section
#    linked to its site's;
#  - with -ffunction-sections: one per function and partition (80);
#  - each linked with the runtime, with --gc-sections, and under LTO:
#    every site, hot and cold, writes its bytes under every variant.
. "$(dirname "$0")/lib.sh"
scratch
nfn=40 per=49
{
	echo '#include <string.h>'
		echo '__attribute__((cold, noinline)) void seen(char *p) { __asm__ volatile("" : : "r"(p) : "memory"); }'
	f=0
	while [ $f -lt $nfn ]; do
		echo "__attribute__((noinline)) void f$f(char *p, unsigned long n, int e) {"
		i=0
		while [ $i -lt $per ]; do
			echo "	memset(p + $i, $((f + i + 1)), n);"
			i=$((i + 1))
		done
		echo "	if (e) { memset(p, $((f + 100)), n); seen(p); }"
		echo "}"
		f=$((f + 1))
	done
} >$W/links.c
cat >$W/main.c <<EOF2
#include <stdio.h>
#include <string.h>
$(f=0; while [ $f -lt $nfn ]; do echo "void f$f(char *, unsigned long, int);"; f=$((f + 1)); done)
int main(int argc, char **argv)
{
	static unsigned char b[256];
	unsigned long n = argc + 7;	/* 8 */
	int bad = 0;
$(f=0; while [ $f -lt $nfn ]; do
	echo "	f$f((char *)b, n, 0);"
	echo "	bad |= b[0] != $((f + 1)) || b[$per - 1 + 7] != $((f + $per)) || b[$per + 7] != 0;"
	echo "	f$f((char *)b, n, 1);"
	echo "	bad |= b[0] != $((f + 100)) || b[7] != $((f + 100)) || b[8] != $((f + 9));"
	f=$((f + 1)); done)
	printf("%s\n", bad ? "wrong" : "right");
	return bad;
}
EOF2

# tables OBJ: "COUNT LINKS", the table sections and their distinct links
tab=$($POKE const REPSTOS_SITES_SECTION)
tables() {
	readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk -v t="$tab" '$1 == t' >$W/t.lines
	echo "$(wc -l <$W/t.lines) $(awk '{ print $(NF - 2) }' $W/t.lines | sort -u | wc -l)"
}
section_index() {
	readelf -SW "$1" | sed -n "s/^ *\[ *\([0-9]*\)\] $2 .*/\1/p"
}

$CC -O2 $P -c -o $W/links.o $W/links.c || fail "compile -O2"
set -- $(tables $W/links.o)
[ "$1" = 2 ] && [ "$2" = 2 ] &&
	ok "-O2: $((nfn * (per + 1))) sites in 2 table sections, one per text section" ||
	fail "-O2: $1 table sections with $2 distinct links, want 2 and 2"
cold=$(section_index $W/links.o .text.unlikely)
[ -n "$cold" ] && awk '{ print $(NF - 2) }' $W/t.lines | grep -qx "$cold" &&
	ok "-O2: one table section links to .text.unlikely, where the cold sites are" ||
	fail "-O2: no table section links to .text.unlikely ($cold)"
$TOOL check $W/links.o >$W/check 2>&1 &&
	ok "-O2: repstos check: every entry's section links to its site's" ||
	{ fail "-O2: repstos check"; head -n 5 $W/check; }
[ "$(sites $W/links.o)" -eq $((nfn * (per + 1))) ] ||
	fail "-O2: $(sites $W/links.o) sites, want $((nfn * (per + 1)))"

$CC -O2 -ffunction-sections $P -c -o $W/links-fs.o $W/links.c ||
	fail "compile -ffunction-sections"
set -- $(tables $W/links-fs.o)
[ "$1" = $((2 * nfn)) ] && [ "$2" = $((2 * nfn)) ] &&
	ok "-ffunction-sections: $1 table sections, one per function and partition" ||
	fail "-ffunction-sections: $1 table sections with $2 links, want $((2 * nfn))"
$TOOL check $W/links-fs.o >$W/check 2>&1 ||
	{ fail "-ffunction-sections: repstos check"; head -n 5 $W/check; }

$CC -O2 -c -o $W/main.o $W/main.c || fail "compile main"
$CC -o $W/links $W/links.o $W/main.o $RTLIB || fail "link -O2"
run_variants $W/links right && ok "-O2: every site right under every variant"
$CC -Wl,--gc-sections -o $W/links-fs $W/links-fs.o $W/main.o $RTLIB ||
	fail "link -ffunction-sections --gc-sections"
run_variants $W/links-fs right &&
	ok "-ffunction-sections --gc-sections: every site right under every variant"
$CC -O2 -flto $P -o $W/links-lto $W/links.c $W/main.c $RTLIB || fail "link -flto"
[ "$(sites $W/links-lto)" -eq $((nfn * (per + 1))) ] ||
	fail "-flto: $(sites $W/links-lto) sites, want $((nfn * (per + 1)))"
run_variants $W/links-lto right && ok "-flto: every site right under every variant"
finish
