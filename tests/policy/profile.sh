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
P=${PROFILE_DIR:-$BUILT}	# tests/runtime/shared.sh gives its own
bin=$P/prog
sizes=$BUILT/sizes
need $bin $P/prog-other $P/libprofdso.so $TOOL $sizes
scratch

# "MODULE INDEX FUNCTION" for every site, as repstos dump lists them.
sitemap() {
	for m in prog:prog lib:libprofdso.so; do
		$TOOL dump $P/${m#*:} | awk -v m=${m%:*} \
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
	counts "$1" > $W/got
	awk 'FILENAME == ARGV[1] { fn[$1 " " $2] = $3; next }
	     FILENAME == ARGV[2] { k = $1 " " $2; $1 = $2 = ""; want[k] = $0; next }
	     { k = $1 " " fn[$1 " " $2]; $1 = $2 = ""; got[k] = $0 }
	     END { for (k in want)
			if ((k in got) ? got[k] != want[k] : want[k] !~ /^[ 0]*$/) {
				print "  " k ": counted" got[k] ", want" want[k]; bad++
			}
		   for (k in got)
			if (!(k in want)) { print "  " k ": calls nobody made"; bad++ }
		   exit bad != 0 }' $W/map $W/expect $W/got
}

# "MODULE FUNCTION FORM", sorted, from `prog forms` on stdin.
named() {
	awk 'FILENAME == ARGV[1] { fn[$1 " " $2] = $3; next }
	     { print $1, fn[$1 " " $2], $3 }' $W/map - | sort
}

sitemap > $W/map
$bin expect > $W/expect

# ---- 1. recording ---------------------------------------------------------
REPSTOS_PROFILE=$W/prof $bin calls || fail "prog calls exited $?"
n=$(grep -c '^profile ' $W/prof)
[ "$n" -eq 4 ] && [ "$(grep -c '^end ' $W/prof)" -eq 4 ] &&
	ok "4 sections: prog and libprofdso.so, in the process and its child" ||
	fail "$n sections, want 4"
[ "$(stat -c %a $W/prof)" = 600 ] && ok "profile created 0600" ||
	fail "profile mode $(stat -c %a $W/prof)"
if matches $W/prof; then
	ok "every site counted exactly the calls made to it, by size class"
else
	fail "counts differ from the calls made (above)"
fi
# With the shared runtime the stub is the process's (runtime/module/module.h):
# calls through it are not counted, only those from patched sites.
if [ "${PROFILE_STUB_COUNTS:-1}" = 1 ]; then
	REPSTOS_PATCH=0 REPSTOS_PROFILE=$W/prof-stub $bin calls || fail "calls, stub"
	matches $W/prof-stub && ok "the same counts with every site calling the stub" ||
		fail "counts through the stub differ (above)"
fi

# ---- 2. choosing -------------------------------------------------------------
# The fixed tables of tests/policy/sizes.c, module rep_good, copy module
# original: a site whose calls fall in one size class gets the form
# cheapest there (vec, erms; x_move vec, as a move that may overlap never
# gets rep movsb in place); one whose sizes spread over classes keeps the
# module routine unless rep stosb (rep movsb) in place is cheaper, as it
# is here (inline; x_copy, l_copy).
$sizes tuning $W/tuning rep_good || fail "writing the fixed tuning file"
cat > $W/want <<END
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
	w=${3:-$W/want}
	if cmp -s $w "$2"; then ok "$1: every site in the form its sizes want"
	else fail "$1:"; diff $w "$2" | sed 's/^/  /'; fi
}

REPSTOS_TUNING=$W/tuning $bin forms | named > $W/plain
grep -q '^prog x_small rep_good$' $W/plain &&
	ok "without the profile x_small has the module routine" ||
	fail "without the profile: $(grep x_small $W/plain)"

REPSTOS_TUNING=$W/tuning REPSTOS_PROFILE_USE=$W/prof $bin forms | named > $W/use
same "runtime, REPSTOS_PROFILE_USE" $W/use

mkdir -p $W/etc/profiles $W/patched
cp $W/tuning $W/etc/tuning
for f in prog libprofdso.so; do
	h=$($TOOL dump --profile=$W/prof $P/$f | sed -n '1s/.*, table //p')
	cp $W/prof $W/etc/profiles/$h
done
REPSTOS_TUNING=$W/etc/tuning $bin forms | named > $W/installed
same "runtime, profiles/HASH beside the tuning file" $W/installed

for f in prog libprofdso.so; do
	REPSTOS_TUNING=$W/tuning $TOOL patch --cpu=native --profile=$W/prof \
		$P/$f -o $W/patched/$f >/dev/null || fail "patch --profile $f"
done
$W/patched/prog forms | named > $W/static
same "repstos patch --profile" $W/static

REPSTOS_TUNING=$W/tuning $TOOL dump --profile=$W/prof $bin > $W/dump
grep -q ' x_small+0x[0-9a-f]* .* calls 15  top .*chosen inline  gain [0-9.]* ns/call' $W/dump &&
	grep -q '^predicted: ' $W/dump &&
	ok "dump --profile: calls, sizes, form and gain per site" ||
	{ fail "dump --profile:"; cat $W/dump; }

# The same tables with what a change of size class costs (set: vec 20
# ns, the others nothing; copy: nothing), through the tuning file: every
# form now competes for a site whose sizes spread over classes, its
# changes counted, so those set sites get erms, neither vec (cheaper at
# each fixed size below 64 bytes) nor inline, and x_copy vec, not inline;
# a site of one class (x_thread, x_const, x_move) keeps the form
# cheapest there.
$sizes tuning $W/tuning-change rep_good change ||
	fail "writing the fixed tuning file with change costs"
sed -e 's/^\(prog x_\(bounded\|fork\|hand\|mid\|small\)\) inline$/\1 erms/' \
	-e 's/^prog x_copy inline$/prog x_copy vec/' $W/want > $W/want-change
REPSTOS_TUNING=$W/tuning-change REPSTOS_PROFILE_USE=$W/prof $bin forms |
	named > $W/use-change
same "runtime, change costs" $W/use-change $W/want-change
mkdir -p $W/patched-change
for f in prog libprofdso.so; do
	REPSTOS_TUNING=$W/tuning-change $TOOL patch --cpu=native --profile=$W/prof \
		$P/$f -o $W/patched-change/$f >/dev/null ||
		fail "patch --profile $f, change costs"
done
$W/patched-change/prog forms | named > $W/static-change
same "repstos patch --profile, change costs" $W/static-change $W/want-change

# ---- 3. refusing ---------------------------------------------------------------
# one line, exit 2, nothing written, by patch and dump; ignored at run time
refused() { # WHAT PROFILE
	REPSTOS_TUNING=$W/tuning $TOOL patch --cpu=native --profile=$2 $bin \
		-o $W/refused >$W/out 2>$W/err
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < $W/err)" -eq 1 ] && [ ! -s $W/out ] &&
	   [ ! -e $W/refused ]; then
		ok "$1: patch says: $(cat $W/err)"
	else
		fail "$1: patch exit $rc, wrote $(ls $W/refused 2>/dev/null):"
		cat $W/out $W/err
	fi
	$TOOL dump --profile=$2 $bin >$W/out 2>$W/err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l < $W/err)" -eq 1 ] && [ ! -s $W/out ] ||
		{ fail "$1: dump exit $rc:"; cat $W/out $W/err; }
	REPSTOS_TUNING=$W/tuning REPSTOS_PROFILE_USE=$2 REPSTOS_DEBUG=1 \
		$bin forms 2>$W/err | named > $W/forms
	n=$(grep -c "prog: profile .* ignored: " $W/err)
	[ "$n" -eq 1 ] && [ "$(grep '^prog ' $W/forms)" = "$(grep '^prog ' $W/plain)" ] ||
		{ fail "$1: runtime: $n lines, forms:"; cat $W/err $W/forms; }
}

head -c $(($(wc -c < $W/prof) / 2)) $W/prof > $W/truncated
refused "truncated" $W/truncated
awk '$1 == "site" && !done { $3++; done = 1 } { print }' $W/prof > $W/sum
refused "a call count that is not the sum" $W/sum
{ cat $W/prof; echo "hello"; } > $W/garbage
refused "a line of garbage" $W/garbage
sed 's/^profile [0-9]* /profile 99 /' $W/prof > $W/version
refused "an unknown version" $W/version
cat $bin > $W/binary
refused "a binary file" $W/binary
: > $W/empty
refused "an empty file" $W/empty
i=$(awk '$1 == "prog" && $3 == "x_const" { print $2 }' $W/map)
awk -v i=$i '$1 == "profile" { p = $NF ~ /(^|\/)prog$/ }
	     p && $1 == "site" && $2 == i { x = $13; $13 = $14; $14 = x } { print }' \
	$W/prof > $W/ruled-out
refused "sizes a constant site cannot see" $W/ruled-out
REPSTOS_PROFILE=$W/other $P/prog-other calls || fail "prog-other calls"
refused "a profile of another build" $W/other

# ---- 4. every size, every variant ----------------------------------------------
runs=0
for v in $(variants) auto; do
	for p in 1 0; do
		e="REPSTOS_VARIANT=$v REPSTOS_PATCH=$p"
		env $e $W/patched/prog sem >$W/sem 2>&1 ||
			{ fail "$e, patch --profile output:"; tail -n 3 $W/sem; }
		env $e REPSTOS_TUNING=$W/tuning REPSTOS_PROFILE_USE=$W/prof \
			$bin sem >$W/sem 2>&1 ||
			{ fail "$e, REPSTOS_PROFILE_USE:"; tail -n 3 $W/sem; }
		env $e REPSTOS_PROFILE=$W/semprof $bin sem >$W/sem 2>&1 ||
			{ fail "$e, recording:"; tail -n 3 $W/sem; }
		runs=$((runs + 3))
	done
done
ok "$runs runs of prog sem: $(tail -n 1 $W/sem)"
$TOOL dump --profile=$W/semprof $bin >/dev/null &&
	ok "$(grep -c '^profile ' $W/semprof) sections appended by as many processes read back" ||
	fail "the profile of the sem runs does not read back"
finish
