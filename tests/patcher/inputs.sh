#!/bin/bash
# Proves: check and dump see exactly the sites of good files.
# SPDX-License-Identifier: MIT
# On objects, executables, PIE and shared objects (hand-written sites and
# plugin-built ones) `repstos check` exits 0 and `repstos dump --json` lists exactly
# the entries the table holds, each in the right function at the right
# source line; GCC's own `rep stos` expansions are not reported; a
# stripped file still checks.
. "$(dirname "$0")/lib.sh"

build_inputs

# compare FILE SOURCE: the dump's (line, function) pairs equal the
# source's "site:" marks, and the site count equals the table's.
compare() {
	local file=$1 src=$2 n
	expect_rc 0 "check $(basename "$file")" "$TOOL" check "$file"
	[ "$OUT" = "$file: clean, $($POKE count "$file") sites" ] && [ -z "$ERR" ] ||
		fail "check $(basename "$file") printed: $OUT$ERR"
	expect_rc 0 "check -q $(basename "$file")" "$TOOL" check -q "$file"
	[ -z "$OUT$ERR" ] || fail "check -q $(basename "$file") printed: $OUT$ERR"
	"$TOOL" dump --json "$file" >"$W/dump.json" || { fail "dump --json $file"; return; }
	n=$($POKE count "$file")
	expected_sites "$src" >"$W/expected"
	if python3 - "$W/dump.json" "$W/expected" "$n" "$(basename "$src")" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
want = sorted(l.split()[0] + " " + l.split()[1] for l in open(sys.argv[2]))
got = sorted("%s %s" % (s["line"], s["function"]) for s in d["sites"]
             if s.get("file") and os.path.basename(s["file"]) == sys.argv[4])
n = int(sys.argv[3])
ok = len(d["sites"]) == n == d["summary"]["sites"] and got == want
ok = ok and all(s["form"] == "stub" and s["target"] == "__repstos_stub" for s in d["sites"])
if not ok:
    print("table", n, "dumped", len(d["sites"]), "\n want", want, "\n got ", got)
sys.exit(0 if ok else 1)
EOF
	then
		ok "dump --json $(basename "$file"): $n sites, functions and lines of $(basename "$src")"
	else
		fail "dump --json $(basename "$file") does not match the table and $(basename "$src")"
	fi
}

compare "$IN/sites.o" "$SRC/sites.c"
compare "$IN/exe" "$SRC/sites.c"
compare "$IN/pie" "$SRC/sites.c"
compare "$IN/lib.so" "$SRC/lib.c"
compare "$IN/pielib" "$SRC/sites.c"
compare "$IN/plugin.o" "$SRC/plugin.c"
compare "$IN/plugin.so" "$SRC/plugin.c"

# The text dump: one line per site after the header, with file:line.
"$TOOL" dump "$IN/exe" >"$W/dump.txt"
assert "dump exe: header + 5 site lines" [ "$(wc -l <"$W/dump.txt")" -eq 6 ]
assert "dump exe: site lines name sites.c:LINE" \
	[ "$(grep -c 'sites\.c:[0-9]' "$W/dump.txt")" -eq 5 ]
assert "dump exe: every site calls the stub" \
	[ "$(grep -c 'callq.*stub __repstos_stub' "$W/dump.txt")" -eq 5 ]
"$TOOL" dump --stats "$IN/exe" >"$W/stats.txt"
assert "dump --stats exe: ops counted" grep -q '^op: memset 2 zero 2 clear 1' "$W/stats.txt"
assert "dump --stats exe: forms counted" grep -q '^form: stub 5 call 0 inline 0 bad 0' "$W/stats.txt"

# GCC's own rep stos (t_gcc_inline and main's memsets) is no site.
objdump -d --no-show-raw-insn "$IN/exe" | awk '/rep stos/ { sub(":", "", $1); print "0x" $1 }' >"$W/gcc-rep"
assert "exe has rep stos GCC inlined itself" [ -s "$W/gcc-rep" ]
"$TOOL" dump --json "$IN/exe" >"$W/exe.json"
assert "no GCC rep stos is reported as a site" python3 -c '
import json, sys
sites = {int(s["address"], 16) for s in json.load(open(sys.argv[1]))["sites"]}
sys.exit(any(int(a, 16) in sites for a in open(sys.argv[2]).read().split()))' \
	"$W/exe.json" "$W/gcc-rep"

# Stripped: no .symtab; the stub is known by its shape.
strip -o "$W/pie-stripped" "$IN/pie"
expect_rc 0 "check a stripped PIE" "$TOOL" check "$W/pie-stripped"
"$TOOL" dump "$W/pie-stripped" >"$W/stripped.txt"
assert "dump stripped PIE: 5 stub sites" \
	[ "$(grep -c ' stub __repstos_stub?' "$W/stripped.txt")" -eq 5 ]

# Several files in one check.
expect_rc 0 "check with several files" "$TOOL" check "$IN/sites.o" "$IN/exe" "$IN/lib.so"
finish
