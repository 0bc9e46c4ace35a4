#!/bin/bash
# Proves: the tool's command line follows GNU conventions and says what
# it did.
# SPDX-License-Identifier: MIT
# --version and --help on the tool and every command (and `help CMD`);
# a usage error is one line plus "Try 'repstos CMD --help'", exit 2; an
# option given twice or two that conflict are errors, not "the last
# wins"; dump takes several files (JSON: one array); check says "clean"
# unless -q; tune refuses a file it could not write before it measures,
# and tune --run's options without --run or in conflict;
# dump's JSON has a schema number and null for a size not known; a
# static PIE is called one.  (Issue 24's rows for the tool.)
. "$(dirname "$0")/lib.sh"

build_inputs
EXE=$IN/exe

# one_line_usage WHAT COMMAND...: exit 2, exactly two stderr lines, the
# second pointing at the command's --help, nothing on stdout.
one_line_usage() {
	local what=$1
	shift
	expect_rc 2 "$what" "$@"
	if [ "$(wc -l <"$W/err")" -eq 2 ] && [ -z "$OUT" ] &&
	   sed -n 2p "$W/err" | grep -q "^Try 'repstos.* --help' for more information.$"; then
		ok "$what: one line and where to read more: $(head -n 1 "$W/err")"
	else
		fail "$what: wanted an error line and a Try line, got:"
		sed 's/^/    | /' "$W/out" "$W/err"
	fi
}

expect_rc 0 "repstos --version" "$TOOL" --version
assert "--version names repstos and its version" [ "$OUT" = "repstos 0.1" ]
for cmd in check patch dump tune; do
	expect_rc 0 "$cmd --help" "$TOOL" $cmd --help
	assert "$cmd --help prints its own usage" grep -q "^usage: repstos $cmd " "$W/out"
	expect_rc 0 "help $cmd" "$TOOL" help $cmd
	assert "help $cmd prints the same" grep -q "^usage: repstos $cmd " "$W/out"
	expect_rc 0 "$cmd --version" "$TOOL" $cmd --version
	assert "$cmd --version" [ "$OUT" = "repstos 0.1" ]
	one_line_usage "$cmd --bogus" "$TOOL" $cmd --bogus "$EXE"
done
one_line_usage "no command" "$TOOL"
one_line_usage "an unknown command" "$TOOL" frobnicate "$EXE"
assert "an unknown command is named: $(head -n 1 "$W/err")" grep -q "'frobnicate'" "$W/err"
one_line_usage "an unknown option before any command" "$TOOL" --bogus
assert "an unknown option is named: $(head -n 1 "$W/err")" grep -q "'--bogus'" "$W/err"
one_line_usage "help of an unknown command" "$TOOL" help frobnicate
one_line_usage "patch --cpu without its value" "$TOOL" patch "$EXE" --cpu
# --cpu FILE: getopt takes FILE for the profile, and then there is none.
one_line_usage "patch --cpu kv: kv taken for the profile" "$TOOL" patch --cpu kv
assert "it says --cpu took kv, which is no profile: $(head -n 1 "$W/err")" \
	grep -q "no FILE: --cpu took 'kv' for its PROFILE, which is none" "$W/err"
one_line_usage "patch -o twice" "$TOOL" patch --cpu=vec -o "$W/a" -o "$W/b" "$EXE"
assert "patch -o twice wrote nothing" [ ! -e "$W/a" -a ! -e "$W/b" ]
one_line_usage "patch --cpu twice" "$TOOL" patch --cpu=vec --cpu=erms "$EXE" -o "$W/a"
one_line_usage "patch --dry-run with -o" "$TOOL" patch --cpu=vec --dry-run "$EXE" -o "$W/a"
one_line_usage "dump --json --stats" "$TOOL" dump --json --stats "$EXE"
one_line_usage "dump --json twice" "$TOOL" dump --json --json "$EXE"
one_line_usage "check with no FILE" "$TOOL" check
one_line_usage "tune --run twice" "$TOOL" tune --run=true --run=false -o "$W/a" "$EXE"
one_line_usage "tune --run with --report" "$TOOL" tune --run=true --report -o "$W/a" "$EXE"
one_line_usage "tune --run --rounds not a number" "$TOOL" tune --run=true --rounds=7x -o "$W/a" "$EXE"
one_line_usage "tune --run --min-gain past 99" "$TOOL" tune --run=true --min-gain=100 -o "$W/a" "$EXE"
one_line_usage "tune --rounds without --run" "$TOOL" tune --rounds=7
assert "tune --run's usage errors wrote nothing" [ ! -e "$W/a" ]

# Several files in one dump, as in one check.
expect_rc 0 "dump of two files" "$TOOL" dump "$EXE" "$IN/lib.so"
assert "dump of two files shows both" \
	[ "$(grep -c -e "^$EXE: " -e "^$IN/lib.so: " "$W/out")" -eq 2 ]
expect_rc 2 "dump of a good and a missing file" "$TOOL" dump "$EXE" "$W/missing"
assert "the good one is still shown" grep -q "^$EXE: " "$W/out"
"$TOOL" dump --json "$EXE" "$W/missing" "$IN/lib.so" >"$W/many.json" 2>/dev/null
"$TOOL" dump --json "$IN/sites.o" >"$W/one.json"
if python3 - "$W/many.json" "$W/one.json" <<'PY'
import json, sys
many = json.load(open(sys.argv[1]))
one = json.load(open(sys.argv[2]))
assert isinstance(many, list) and len(many) == 2, "two objects"
assert all(o["schema"] == 2 for o in many + [one]), "schema 2"
unknown = [s for s in one["sites"] if s["size_kind"] == "unknown"]
assert unknown and all(s["size_min"] is None and s["size_max"] is None
                       for s in unknown), "unknown sizes are null"
PY
then ok "dump --json: an array for several files (a missing one left out), schema 2, unknown sizes null"
else fail "dump --json of several files or its sizes"
fi

# check says clean, or nothing with -q.
expect_rc 0 "check of a clean file" "$TOOL" check "$EXE"
assert "check says clean" [ "$OUT" = "$EXE: clean, $($POKE count "$EXE") sites" ]
expect_rc 0 "check -q" "$TOOL" check -q "$EXE"
assert "check -q says nothing" [ -z "$OUT$ERR" ]

# tune fails at once where it could not write, before measuring.
mkdir "$W/adir"
start=$(date +%s%N)
expect_rc 2 "tune into a directory" "$TOOL" tune "$W/adir"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
assert "tune into a directory: refused in ${ms} ms, before measuring" \
	[ "$ms" -lt 500 -a -z "$OUT" ]
assert "tune into a directory: says why" grep -q "adir: not a regular file" "$W/err"
# ... nor through a symbolic link, or into a file with another name (a
# root-run tool writes where it was told), the link and file untouched.
echo keep >"$W/target"
ln -s "$W/target" "$W/alink"
ln "$W/target" "$W/ahard"
expect_rc 2 "tune into a symbolic link" "$TOOL" tune "$W/alink"
assert "... says why" grep -q "alink: a symbolic link: not followed" "$W/err"
expect_rc 2 "tune into a file of two links" "$TOOL" tune "$W/ahard"
assert "... says why" grep -q "ahard: the file has other hard links" "$W/err"
assert "... both left as they were" eval \
	'[ -L "$W/alink" ] && [ "$(cat "$W/target")" = keep ]'

# Counts agree with their nouns: a file of one site says "1 site".
echo 'void f(char *p, unsigned long n) { __builtin_memset(p, 0, n); }' |
	gcc -O2 -fPIC -fplugin="$PLUGIN" -c -x c -o "$W/one.o" - &&
	gcc -shared -o "$W/one.so" "$W/one.o" "$RTLIB" || fail "cannot build one.so"
expect_rc 0 "dump of a file of one site" "$TOOL" dump "$W/one.so"
assert "dump: '1 site,': $(head -n 1 "$W/out")" grep -q "^$W/one.so: shared, 1 site, " "$W/out"
expect_rc 0 "patch --dry-run of it" "$TOOL" patch --cpu=vec --dry-run "$W/one.so"
assert "patch --dry-run: 'of 1 site': $OUT" grep -q "would change [01] of 1 site and" "$W/out"
expect_rc 0 "patch of it" "$TOOL" patch --cpu=vec "$W/one.so" -o "$W/one-vec.so"
assert "patch: 'of 1 site': $OUT" grep -q "patched [01] of 1 site, marked" "$W/out"

# A stripped file's targets are known by their bytes: the ? says so.
strip -o "$W/stripped" "$EXE"
expect_rc 0 "dump of a stripped file" "$TOOL" dump "$W/stripped"
assert "a guessed target is marked and the mark explained" \
	[ "$(grep -c 'stub __repstos_stub?$' "$W/out")" -gt 0 -a \
	  "$(tail -n 1 "$W/out" | grep -c '^(?: no symbol names the call target')" -eq 1 ]
expect_rc 0 "dump of the unstripped file" "$TOOL" dump "$EXE"
assert "no mark and no note where symbols name the targets" \
	[ "$(grep -c -e 'stub?$' -e '^(?:' "$W/out")" -eq 0 ]

# A static PIE is not a shared object.
if gcc -O2 -static-pie -o "$W/spie" "$IN/main.o" "$IN/sites.o" "$RTLIB" 2>/dev/null; then
	expect_rc 0 "dump of a static PIE" "$TOOL" dump "$W/spie"
	assert "a static PIE is called one" grep -q "^$W/spie: static-pie, " "$W/out"
	"$TOOL" dump "$IN/lib.so" | head -n 1 | grep -q ": shared, " &&
		ok "a shared object is still shared" || fail "lib.so is not called shared"
else
	skipped "no static-pie link here (glibc's static PIE support missing)"
fi
finish
