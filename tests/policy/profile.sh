#!/bin/sh
# Proves: size profiles are recorded exactly and choose each site's form.
# Size profiles end to end (tests/policy/prog.c says what it calls):
#  1. REPSTOS_PROFILE: per site, in the executable and in the shared
#     object, the counts equal the calls the program made, threads and a
#     forked child included, with text patched and through the stub;
#  2. `repstos patch --profile`, REPSTOS_PROFILE_USE and a profile
#     installed beside the tuning file all give each site the form that
#     tests/policy's fixed cost table makes cheapest for its sizes, with
#     and without what a change of size class costs each form;
#  3. a corrupt or foreign profile is refused with one line and nothing
#     written (the runtime ignores it, one line under REPSTOS_DEBUG);
#  4. every site stores the right bytes at every size it may be given,
#     in the forms a profile chose and while recording, under every
#     REPSTOS_VARIANT, text patched or not.
. "$(dirname "$0")/../lib.sh"
P=${PROFILE_DIR:-build/tests/policy}	# tests/runtime/shared.sh gives its own
bin=$P/prog
tool=${REPSTOS_TOOL:-patcher/repstos}	# tests/patcher/asan.sh gives its own
sizes=build/tests/policy/sizes
need $bin $P/prog-other $P/libprofdso.so $tool $sizes
t=$(mktemp -d $P/run.XXXXXX) || exit 1
# Kept after a failure, to look at.
trap '[ "$fails" -ne 0 ] && echo "kept $t" || rm -rf $t' EXIT

# "MODULE INDEX FUNCTION" for every site, as repstos dump lists them.
sitemap() {
	for m in prog:prog lib:libprofdso.so; do
		$tool dump $P/${m#*:} | awk -v m=${m%:*} \
			'NR > 1 { f = $3; sub(/\+0x[0-9a-f]+$/, "", f); print m, NR - 2, f }'
	done
}

# "MODULE INDEX H0..H21" per site with calls, summed over the sections.
counts() {
	awk '$1 == "profile" { m = $NF; sub(/.*\//, "", m)
			       if (m == "libprofdso.so") m = "lib" }
	     $1 == "site" { k = m " " $2; seen[k] = 1
			    for (c = 4; c <= 25; c++) h[k, c] += $c }
	     END { for (k in seen) { s = k
				     for (c = 4; c <= 25; c++) s = s " " h[k, c]
				     print s } }' "$1"
}

# Does PROFILE count, for every site, exactly what `prog expect` says?
matches() {
	counts "$1" > $t/got
	awk 'FILENAME == ARGV[1] { fn[$1 " " $2] = $3; next }
	     FILENAME == ARGV[2] { k = $1 " " $2; $1 = $2 = ""; want[k] = $0; next }
	     { k = $1 " " fn[$1 " " $2]; $1 = $2 = ""; got[k] = $0 }
	     END { for (k in want)
			if ((k in got) ? got[k] != want[k] : want[k] !~ /^[ 0]*$/) {
				print "  " k ": counted" got[k] ", want" want[k]; bad++
			}
		   for (k in got)
			if (!(k in want)) { print "  " k ": calls nobody made"; bad++ }
		   exit bad != 0 }' $t/map $t/expect $t/got
}

# "MODULE FUNCTION FORM", sorted, from `prog forms` on stdin.
named() {
	awk 'FILENAME == ARGV[1] { fn[$1 " " $2] = $3; next }
	     { print $1, fn[$1 " " $2], $3 }' $t/map - | sort
}

sitemap > $t/map
$bin expect > $t/expect

# ---- 1. recording ---------------------------------------------------------
REPSTOS_PROFILE=$t/prof $bin calls || fail "prog calls exited $?"
n=$(grep -c '^profile ' $t/prof)
[ "$n" -eq 4 ] && [ "$(grep -c '^end ' $t/prof)" -eq 4 ] &&
	ok "4 sections: prog and libprofdso.so, in the process and its child" ||
	fail "$n sections, want 4"
[ "$(stat -c %a $t/prof)" = 600 ] && ok "profile created 0600" ||
	fail "profile mode $(stat -c %a $t/prof)"
if matches $t/prof; then
	ok "every site counted exactly the calls made to it, by size class"
else
	fail "counts differ from the calls made (above)"
fi
# With the shared runtime the stub is the process's (runtime/module/module.h):
# calls through it are not counted, only those from patched sites.
if [ "${PROFILE_STUB_COUNTS:-1}" = 1 ]; then
	REPSTOS_PATCH=0 REPSTOS_PROFILE=$t/prof-stub $bin calls || fail "calls, stub"
	matches $t/prof-stub && ok "the same counts with every site calling the stub" ||
		fail "counts through the stub differ (above)"
fi

# ---- 2. choosing -------------------------------------------------------------
# The fixed tables of tests/policy/sizes.c, module rep_good, copy module
# original: a site whose calls fall in one size class gets the form
# cheapest there (vec, erms; x_move vec, as a move that may overlap never
# gets rep movsb in place); one whose sizes spread over classes keeps the
# module routine unless rep stosb (rep movsb) in place is cheaper, as it
# is here (inline; x_copy, l_copy).
$sizes tuning $t/tuning rep_good || fail "writing the fixed tuning file"
cat > $t/want <<END
lib l_clear vec
lib l_const inline
lib l_copy inline
lib l_memset inline
lib l_never rep_good
prog x_big inline
prog x_bounded inline
prog x_const erms
prog x_copy inline
prog x_fork inline
prog x_hand inline
prog x_mid inline
prog x_move vec
prog x_never rep_good
prog x_small inline
prog x_thread vec
END
same() { # WHAT FORMS-FILE [WANT-FILE]
	w=${3:-$t/want}
	if cmp -s $w "$2"; then ok "$1: every site in the form its sizes want"
	else fail "$1:"; diff $w "$2" | sed 's/^/  /'; fi
}

REPSTOS_TUNING=$t/tuning $bin forms | named > $t/plain
grep -q '^prog x_small rep_good$' $t/plain &&
	ok "without the profile x_small has the module routine" ||
	fail "without the profile: $(grep x_small $t/plain)"

REPSTOS_TUNING=$t/tuning REPSTOS_PROFILE_USE=$t/prof $bin forms | named > $t/use
same "runtime, REPSTOS_PROFILE_USE" $t/use

mkdir -p $t/etc/profiles $t/patched
cp $t/tuning $t/etc/tuning
for f in prog libprofdso.so; do
	h=$($tool dump --profile=$t/prof $P/$f | sed -n '1s/.*, table //p')
	cp $t/prof $t/etc/profiles/$h
done
REPSTOS_TUNING=$t/etc/tuning $bin forms | named > $t/installed
same "runtime, profiles/HASH beside the tuning file" $t/installed

for f in prog libprofdso.so; do
	REPSTOS_TUNING=$t/tuning $tool patch --cpu=native --profile=$t/prof \
		$P/$f -o $t/patched/$f >/dev/null || fail "patch --profile $f"
done
$t/patched/prog forms | named > $t/static
same "repstos patch --profile" $t/static

REPSTOS_TUNING=$t/tuning $tool dump --profile=$t/prof $bin > $t/dump
grep -q ' x_small+0x[0-9a-f]* .* calls 15  top .*chosen inline  gain [0-9.]* ns/call' $t/dump &&
	grep -q '^predicted: ' $t/dump &&
	ok "dump --profile: calls, sizes, form and gain per site" ||
	{ fail "dump --profile:"; cat $t/dump; }

# The same tables with what a change of size class costs (set: vec 20
# ns, the others nothing; copy: nothing), through the tuning file: every
# form now competes for a site whose sizes spread over classes, its
# changes counted, so those set sites get erms, neither vec (cheaper at
# each fixed size below 64 bytes) nor inline, and x_copy vec, not inline;
# a site of one class (x_thread, x_const, x_move) keeps the form
# cheapest there.
$sizes tuning $t/tuning-change rep_good change ||
	fail "writing the fixed tuning file with change costs"
sed -e 's/^\(prog x_\(bounded\|fork\|hand\|mid\|small\)\) inline$/\1 erms/' \
	-e 's/^prog x_copy inline$/prog x_copy vec/' $t/want > $t/want-change
REPSTOS_TUNING=$t/tuning-change REPSTOS_PROFILE_USE=$t/prof $bin forms |
	named > $t/use-change
same "runtime, change costs" $t/use-change $t/want-change
mkdir -p $t/patched-change
for f in prog libprofdso.so; do
	REPSTOS_TUNING=$t/tuning-change $tool patch --cpu=native --profile=$t/prof \
		$P/$f -o $t/patched-change/$f >/dev/null ||
		fail "patch --profile $f, change costs"
done
$t/patched-change/prog forms | named > $t/static-change
same "repstos patch --profile, change costs" $t/static-change $t/want-change

# ---- 3. refusing ---------------------------------------------------------------
# one line, exit 2, nothing written, by patch and dump; ignored at run time
refused() { # WHAT PROFILE
	REPSTOS_TUNING=$t/tuning $tool patch --cpu=native --profile=$2 $bin \
		-o $t/refused >$t/out 2>$t/err
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < $t/err)" -eq 1 ] && [ ! -s $t/out ] &&
	   [ ! -e $t/refused ]; then
		ok "$1: patch says: $(cat $t/err)"
	else
		fail "$1: patch exit $rc, wrote $(ls $t/refused 2>/dev/null):"
		cat $t/out $t/err
	fi
	$tool dump --profile=$2 $bin >$t/out 2>$t/err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l < $t/err)" -eq 1 ] && [ ! -s $t/out ] ||
		{ fail "$1: dump exit $rc:"; cat $t/out $t/err; }
	REPSTOS_TUNING=$t/tuning REPSTOS_PROFILE_USE=$2 REPSTOS_DEBUG=1 \
		$bin forms 2>$t/err | named > $t/forms
	n=$(grep -c "prog: profile .* ignored: " $t/err)
	[ "$n" -eq 1 ] && [ "$(grep '^prog ' $t/forms)" = "$(grep '^prog ' $t/plain)" ] ||
		{ fail "$1: runtime: $n lines, forms:"; cat $t/err $t/forms; }
}

head -c $(($(wc -c < $t/prof) / 2)) $t/prof > $t/truncated
refused "truncated" $t/truncated
awk '$1 == "site" && !done { $3++; done = 1 } { print }' $t/prof > $t/sum
refused "a call count that is not the sum" $t/sum
{ cat $t/prof; echo "hello"; } > $t/garbage
refused "a line of garbage" $t/garbage
sed 's/^profile [0-9]* /profile 99 /' $t/prof > $t/version
refused "an unknown version" $t/version
cat $bin > $t/binary
refused "a binary file" $t/binary
: > $t/empty
refused "an empty file" $t/empty
i=$(awk '$1 == "prog" && $3 == "x_const" { print $2 }' $t/map)
awk -v i=$i '$1 == "profile" { p = $NF ~ /(^|\/)prog$/ }
	     p && $1 == "site" && $2 == i { x = $13; $13 = $14; $14 = x } { print }' \
	$t/prof > $t/ruled-out
refused "sizes a constant site cannot see" $t/ruled-out
REPSTOS_PROFILE=$t/other $P/prog-other calls || fail "prog-other calls"
refused "a profile of another build" $t/other

# ---- 4. every size, every variant ----------------------------------------------
runs=0
for v in $(variants) auto; do
	for p in 1 0; do
		e="REPSTOS_VARIANT=$v REPSTOS_PATCH=$p"
		env $e $t/patched/prog sem >$t/sem 2>&1 ||
			{ fail "$e, patch --profile output:"; tail -n 3 $t/sem; }
		env $e REPSTOS_TUNING=$t/tuning REPSTOS_PROFILE_USE=$t/prof \
			$bin sem >$t/sem 2>&1 ||
			{ fail "$e, REPSTOS_PROFILE_USE:"; tail -n 3 $t/sem; }
		env $e REPSTOS_PROFILE=$t/semprof $bin sem >$t/sem 2>&1 ||
			{ fail "$e, recording:"; tail -n 3 $t/sem; }
		runs=$((runs + 3))
	done
done
ok "$runs runs of prog sem: $(tail -n 1 $t/sem)"
$tool dump --profile=$t/semprof $bin >/dev/null &&
	ok "$(grep -c '^profile ' $t/semprof) sections appended by as many processes read back" ||
	fail "the profile of the sem runs does not read back"
finish
