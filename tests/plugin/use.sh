#!/bin/sh
# Proves: the plugin marks exactly the sites whose bytes their function loads back.
# The corpus tests/plugin/use, -O2, with copy sites: a site is marked
# REPSTOS_USE_READ (entry versions 5 and 6) when its function loads some
# of the written bytes after it before calling out or returning (@read);
# not when the function returns first, calls out first, only stores,
# loads another object, or loads past the window it looks through
# (@left).  The remarks say "read back" on exactly the @read lines, and
# `repstos dump` shows the same sites as OP+read, in text and in JSON;
# `repstos check` finds every entry good; the program prints what the
# build without the plugin prints, under every variant.
. "$(dirname "$0")/lib.sh"
S=tests/plugin/use
scratch
CF="-O2 -I$S -Wall"
PU="$PV -fplugin-arg-repstos-copy"
$CC $CF $PU -c -o $W/use.o $S/use.c 2>$W/notes || { fail "compile"; cat $W/notes; finish; }
grep -n '/\* @read' $S/use.c | sed 's|^\([0-9]*\):.*|use.c:\1|' | sort >$W/want
sed -n 's|^\([^ :]*\):\([0-9]*\):[0-9]*: note: repstos: .* rewritten (.*; read back)$|\1:\2|p' $W/notes |
	sed 's|.*/||' | sort >$W/got
[ "$(rewritten_count $W/notes)" -eq "$(grep -c '/\* @read\|/\* @left' $S/use.c)" ] ||
	fail "$(rewritten_count $W/notes) calls rewritten, want every marked line"
cmp -s $W/got $W/want && ok "read back on exactly the $(wc -l <$W/want) @read lines" ||
	{ fail "read back on other lines (< got, > want)"; diff $W/got $W/want; }

# dump: the functions of the marked sites, text and JSON
awk '/^F / { fn = $3; sub(/\(.*/, "", fn) } /\/\* @read/ { print fn }' $S/use.c | sort -u >$W/fn.want
$TOOL dump $W/use.o >$W/dump || fail "dump"
awk '$5 ~ /\+read$/ { sub(/\+0x.*/, "", $3); print $3 }' $W/dump | sort -u >$W/fn.got
cmp -s $W/fn.got $W/fn.want && ok "dump: $(tr '\n' ' ' <$W/fn.got)marked +read" ||
	{ fail "dump marks other functions (< got, > want)"; diff $W/fn.got $W/fn.want; }
$TOOL dump --json $W/use.o >$W/dump.json || fail "dump --json"
json=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sites = d[0]["sites"] if isinstance(d, list) else d["sites"]
print(" ".join(sorted({s["function"] for s in sites if s["use"] == "read"})))' $W/dump.json)
[ "$json" = "$(tr '\n' ' ' <$W/fn.want | sed 's/ $//')" ] && ok "dump --json: \"use\": \"read\" on the same" ||
	fail "dump --json: read on '$json'"
$TOOL check $W/use.o >$W/check 2>&1 && ok "repstos check: every entry good" ||
	{ fail "repstos check"; head -n 5 $W/check; }

# the program: the same with and without the plugin, under every variant
$CC $CF -o $W/plain $S/use.c $S/main.c || fail "plain build"
want=$($W/plain)
$CC $CF -c -o $W/main.o $S/main.c || fail "compile main"
$CC -o $W/use $W/use.o $W/main.o $RTLIB || fail "link"
run_variants $W/use "$want" && ok "runs as the plain build under every variant: $want"
finish
