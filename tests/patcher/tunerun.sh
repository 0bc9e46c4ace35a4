#!/bin/bash
# Proves: `repstos tune --run` pins a form on a group of sites only where the program's own wall clock shows it faster, and pins reach the runtime and the tool alike.
# SPDX-License-Identifier: MIT
# A program with set and copy sites (tests/patcher/src/plugin.c and
# copies.c, linked with librepstos-full.a) is given a hand-written
# profile of pins: the runtime (librepstos-full.a's and the shared
# runtime's, through REPSTOS_PROFILE_USE, seen in REPSTOS_DEBUG=2's
# lines), `repstos dump --profile` and `repstos patch
# --profile` all give the pinned sites their forms, REPSTOS_VARIANT
# still wins, inline is never given to a move site, a version 2
# profile still reads, and a pin of an unknown form, of the wrong
# family or in a version 2 section is refused as malformed.  Then tune
# --run times a command that is slow unless one site runs rep_good:
# exactly that site's group is pinned to rep_good, nothing else, the
# profile is written 0600, and the program says the same under it.
# Bad input (options, a module of librepstos.a, one patched ahead of
# time, an object, a file with no sites, not an ELF, a command that
# fails, a symbolic link as the output, an output that is a file read,
# by any name or link, which keeps its bytes and mode) is one clear
# message, exit 2 and nothing written; so is a command under which no
# pin takes effect.  REPSTOS_PATCH is removed from the command's
# environment, and the profile's path is absolute.  Interrupted by
# SIGINT (to its group), SIGTERM or SIGHUP, it leaves nothing in TMPDIR
# and the output as it was, and dies by that signal.  No check depends
# on how long anything took: the command's sleep is ten times any
# noise, and the gain asked 50%.
. "$(dirname "$0")/lib.sh"

FULL=$top/runtime/librepstos-full.a
need "$FULL"
d=$W/in
mkdir -p "$d" "$W/tmp"
gcc $CFLAGS -fPIC -fplugin="$PLUGIN" -fplugin-arg-repstos-copy \
	-c "$SRC/copies.c" -o "$d/copies.o" &&
gcc $CFLAGS -fPIC -fplugin="$PLUGIN" -c "$SRC/plugin.c" -o "$d/plugin.o" &&
gcc $CFLAGS -c "$SRC/copies_main.c" -o "$d/main.o" &&
gcc -pie -o "$d/prog" "$d/main.o" "$d/copies.o" "$d/plugin.o" "$FULL" &&
gcc -pie -o "$d/lean" "$d/main.o" "$d/copies.o" "$d/plugin.o" "$RTLIB" &&
gcc -pie -o "$d/shared" "$d/main.o" "$d/copies.o" "$d/plugin.o" \
	"$top/runtime/librepstos_nonshared.a" "$top/runtime/librepstos.so.0" \
	-Wl,-rpath,"$top/runtime" &&
printf 'int main(void) { return 0; }\n' >"$d/plain.c" &&
gcc -o "$d/plain" "$d/plain.c" ||
	{ fail "cannot build the inputs"; finish; }
P=$d/prog
want_out=$("$P") || fail "the program fails unpinned: $want_out"

# The entry of the site in function $1, as dump --profile numbers them.
REPSTOS_PROFILE=$W/rec.prof "$P" >/dev/null ||
	fail "recording a profile"
entry() {
	"$TOOL" dump --profile="$W/rec.prof" "$P" |
		awk -v f="$1" '$2 ~ "^" f "\\+" { print $1 }'
}
MEMSET=$(entry p_memset) MOVE=$(entry c_memmove) COPY=$(entry c_memcpy)
assert "the sites found ($MEMSET $MOVE $COPY)" \
	[ -n "$MEMSET" -a -n "$MOVE" -a -n "$COPY" ]
assert "the runtime still records version 2" grep -q "^profile 2 " "$W/rec.prof"

# pinned IN OUT VERSION PIN...: IN with its version set and the pins
# added to its first section (in the order of their sites, as a reader
# wants them).
pinned() {
	local in=$1 out=$2 v=$3
	shift 3
	awk -v v="$v" -v pins="$(printf '%s\n' "$@" | sort -k2,2n)" '
		/^profile / { sub(/^profile [0-9]+ /, "profile " v " ") }
		/^end / && !done { printf "%s\n", pins; done = 1 }
		{ print }' "$in" >"$out"
}

# form_of PROFILE ENTRY [ENV...]: the runtime's line for that site.
form_of() {
	env REPSTOS_PROFILE_USE="$1" REPSTOS_DEBUG=2 "${@:3}" "$P" 2>&1 >/dev/null |
		grep ": site $2, "
}

# ---- pins, by hand ---------------------------------------------------------
pinned "$W/rec.prof" "$W/pin.prof" 3 "pin $MEMSET set rep_good" \
	"pin $COPY copy original" "pin $MOVE copy inline"
line=$(form_of "$W/pin.prof" "$MEMSET")
assert "runtime: the memset site runs its pin: $line" \
	grep -q "memset, size unknown: rep_good (pinned by the size profile)" <<<"$line"
line=$(form_of "$W/pin.prof" "$COPY")
assert "runtime: the memcpy site runs its pin: $line" \
	grep -q "copy, size unknown: original (pinned by the size profile)" <<<"$line"
line=$(form_of "$W/pin.prof" "$MOVE")
assert "runtime: a move site pinned inline is not given rep movsb: $line" \
	eval '! grep -q -e "in place" -e pinned <<<"$line"'
line=$(form_of "$W/pin.prof" "$MEMSET" REPSTOS_VARIANT=erms)
assert "runtime: REPSTOS_VARIANT wins over a pin: $line" \
	grep -q "memset, size unknown: erms (REPSTOS_VARIANT)" <<<"$line"
out=$(REPSTOS_PROFILE_USE=$W/pin.prof "$P")
assert "the program says the same pinned" [ "$out" = "$want_out" ]

expect_rc 0 "dump --profile with pins" "$TOOL" dump --profile="$W/pin.prof" "$P"
assert "dump: the memset site chosen rep_good (pinned)" \
	grep -q "^ *$MEMSET  p_memset+.* chosen rep_good (pinned)$" "$W/out"
assert "dump: the move site not pinned inline" \
	eval "! grep -q -e '^ *$MOVE  .*chosen inline' -e '^ *$MOVE  .*(pinned)' '$W/out'"
assert "dump: how many sites the profile pins" grep -q "3 sites pinned" "$W/out"

expect_rc 0 "patch --profile with pins" "$TOOL" patch --cpu=native \
	--profile="$W/pin.prof" "$P" -o "$W/prog.pinned"
"$TOOL" dump "$W/prog.pinned" >"$W/pinned.dump"
assert "patch: the memset site calls rep_good" \
	grep -q " p_memset+.* rep_good __repstos_rep_good$" "$W/pinned.dump"
assert "patch: the memcpy site calls original" \
	grep -q " c_memcpy+.* original __repstos_copy_original$" "$W/pinned.dump"
assert "patch: the move site is no rep movsb" \
	eval "! grep ' c_memmove+' '$W/pinned.dump' | grep -q 'rep movsb'"
out=$("$W/prog.pinned")
assert "the patched program says the same" [ "$out" = "$want_out" ]

# The shared runtime's start-up honours pins too, and tune --run takes
# its modules (the command then fails at once: no search).
REPSTOS_PROFILE=$W/shared.prof "$d/shared" >/dev/null || fail "recording the shared one"
pinned "$W/shared.prof" "$W/shared-pin.prof" 3 "pin $MEMSET set rep_good"
line=$(REPSTOS_PROFILE_USE=$W/shared-pin.prof REPSTOS_DEBUG=2 "$d/shared" 2>&1 |
	grep ": site $MEMSET, ")
assert "shared runtime: the memset site runs its pin: $line" \
	grep -q "memset, size unknown: rep_good (pinned by the size profile)" <<<"$line"
TMPDIR=$W/tmp expect_rc 2 "tune --run takes a module of the shared runtime" \
	"$TOOL" tune --run="exit 5" -o "$W/x.prof" "$d/shared"
assert "... and runs the command" grep -q "the command exited 5" "$W/err"

expect_rc 0 "a version 2 profile still reads" "$TOOL" dump --profile="$W/rec.prof" "$P"
line=$(REPSTOS_PROFILE_USE=$W/rec.prof REPSTOS_DEBUG=1 "$P" 2>&1 >/dev/null)
assert "the runtime reads version 2" grep -q "sites chosen with the profile" <<<"$line"

# refused NAME PROFILE WHY: malformed for the tool and the runtime alike.
refused() {
	expect_rc 2 "dump refuses $1" "$TOOL" dump --profile="$2" "$P"
	assert "dump says why: $1" grep -q "$3" "$W/err"
	line=$(REPSTOS_PROFILE_USE=$2 REPSTOS_DEBUG=1 "$P" 2>&1 >/dev/null)
	assert "the runtime ignores $1" grep -q "ignored: .*$3" <<<"$line"
	line=$(form_of "$2" "$MEMSET")
	assert "the runtime then chooses without it: $line" \
		eval '! grep -q pinned <<<"$line"'
}
pinned "$W/rec.prof" "$W/bad1.prof" 3 "pin $MEMSET set bogus"
refused "a pin of an unknown form" "$W/bad1.prof" "a pin of a form its family does not have"
pinned "$W/rec.prof" "$W/bad2.prof" 2 "pin $MEMSET set rep_good"
refused "a pin in a version 2 section" "$W/bad2.prof" "a pin in a section of version 1 or 2"
pinned "$W/rec.prof" "$W/bad3.prof" 3 "pin $MEMSET copy avx2"
refused "a pin of the other family" "$W/bad3.prof" "pinned to a form of another family"

# ---- tune --run ------------------------------------------------------------
# The command: the program, checked, under REPSTOS_DEBUG=2; 0.1 s slower
# unless the memset site runs rep_good.  It fails where tune --run left
# it REPSTOS_VARIANT, REPSTOS_PROFILE, REPSTOS_CPU or REPSTOS_PATCH,
# which tune --run is given below.  The runtime's lines go on where
# REPSTOS_DEBUG was asked for, as tune --run does to see pins reach it.
cat >"$W/bench.sh" <<EOF
#!/bin/sh
[ -z "\${REPSTOS_VARIANT:-}\${REPSTOS_PROFILE:-}\${REPSTOS_CPU:-}\${REPSTOS_PATCH:-}" ] ||
	exit 4
out=\$(REPSTOS_DEBUG=2 "$P" 2>"$W/bench.err") || exit 1
[ -z "\${REPSTOS_DEBUG:-}" ] || cat "$W/bench.err" >&2
[ "\$out" = "$want_out" ] || exit 1
grep -q ": site $MEMSET, memset, size unknown: rep_good " "$W/bench.err" ||
	sleep 0.1
EOF
chmod +x "$W/bench.sh"
TMPDIR=$W/tmp REPSTOS_VARIANT=vec REPSTOS_PROFILE=$W/junk.prof REPSTOS_CPU=zen3 \
	REPSTOS_PATCH=0 \
	expect_rc 0 "tune --run" "$TOOL" tune --run="$W/bench.sh" \
	--rounds=5 --min-gain=50 -o "$W/tuned.prof" "$P"
cp "$W/out" "$W/report"
sed 's/^/    | /' "$W/report" | head -14
# five groups: set sites of unknown and of known size, copy and move
# sites of unknown size, and copy sites of known size (copies.c's whole
# arrays, aggregate copies)
assert "one group pinned" grep -q "^1 of 5 groups pinned$" "$W/report"
assert "the set sites of unknown size pinned to rep_good" \
	[ "$(grep -c 'decision: rep_good' "$W/report")" -eq 1 ]
assert "the decision is that group's" eval "awk '/^group/ { g = \$0 }
	/decision: rep_good/ { print g }' '$W/report' | grep -q 'set sites of unknown size'"
assert "no inline tried on the move sites" eval "awk '/^group/ { m = /move/ }
	m && /^  inline / { bad = 1 } END { exit bad }' '$W/report'"
assert "every form reported with its spread and ratio" \
	grep -q "^  baseline  *[0-9.]*  *[0-9.]*\.\.[0-9.]*  *1\.000$" "$W/report"
pins=$(grep "^pin " "$W/tuned.prof")
assert "the profile pins the group's sites alone, to rep_good" \
	eval '[ "$(grep -c "set rep_good$" <<<"$pins")" -eq 3 ] &&
	      [ "$(wc -l <<<"$pins")" -eq 3 ] && grep -q "^pin $MEMSET " <<<"$pins"'
assert "the profile is version 3, 0600" eval \
	'grep -q "^profile 3 " "$W/tuned.prof" && [ "$(stat -c %a "$W/tuned.prof")" = 600 ]'
assert "no temporary left behind" eval '[ -z "$(ls -A "$W/tmp")" ]'
line=$(form_of "$W/tuned.prof" "$MEMSET")
assert "runtime: the tuned profile's pin runs: $line" \
	grep -q "rep_good (pinned by the size profile)" <<<"$line"
expect_rc 0 "dump --profile of the tuned profile" "$TOOL" dump --profile="$W/tuned.prof" "$P"
assert "dump shows the pin" grep -q "^ *$MEMSET  p_memset+.* chosen rep_good (pinned)$" "$W/out"
expect_rc 0 "patch --profile of the tuned profile" "$TOOL" patch --cpu=native \
	--profile="$W/tuned.prof" "$P" -o "$W/prog.tuned"
assert "patch applies the pin" eval \
	"\"$TOOL\" dump '$W/prog.tuned' | grep -q ' p_memset+.* rep_good __repstos_rep_good$'"
out=$(REPSTOS_PROFILE_USE=$W/tuned.prof "$P") && out2=$("$W/prog.tuned")
assert "the program says the same under the tuned profile and patched" \
	[ "$out" = "$want_out" -a "$out2" = "$want_out" ]

# ---- bad input: one message, exit 2, nothing written -------------------
# nothing NAME WHY ARGS...: tune --run ARGS fails saying WHY, writes nothing.
nothing() {
	local what=$1 why=$2
	shift 2
	rm -f "$W/x.prof"
	TMPDIR=$W/tmp expect_rc 2 "$what" "$TOOL" tune "$@"
	if ! grep -q -- "$why" "$W/err"; then
		fail "$what: does not say '$why': $(cat "$W/err")"
	elif [ -e "$W/x.prof" ] || [ -n "$(ls -A "$W/tmp")" ]; then
		fail "$what: something was written"
	else
		ok "$what: $(head -n 1 "$W/err")"
	fi
}
nothing "a module of librepstos.a" "linked with librepstos.a, which reads no profile" \
	--run=true -o "$W/x.prof" "$d/lean"
assert "... said in one line" [ "$(wc -l <"$W/err")" -eq 1 ]
# A start-up from before pins: the same program with the words today's
# says of a pinned site overwritten, as one linked before them has none.
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); m = b"pinned by the size profile"
assert m in b; open(sys.argv[2], "wb").write(b.replace(m, b"x" * len(m)))' "$P" "$d/old" &&
	chmod +x "$d/old"
nothing "a module of an older librepstos-full.a" "from before pinned forms" \
	--run=true -o "$W/x.prof" "$d/old"
"$TOOL" patch --cpu=native "$P" -o "$d/static" >/dev/null
nothing "a module patched ahead of time" "patched ahead of time" \
	--run=true -o "$W/x.prof" "$d/static"
nothing "an object file" "an object file" --run=true -o "$W/x.prof" "$d/copies.o"
nothing "a file with no sites" "no sites" --run=true -o "$W/x.prof" "$d/plain"
echo "not an ELF" >"$W/text"
nothing "not an ELF file" "$W/text" --run=true -o "$W/x.prof" "$W/text"
nothing "a command that fails" "the command exited 3" --run="exit 3" \
	-o "$W/x.prof" "$P"
nothing "an empty COMMAND" "--run needs a COMMAND" --run= -o "$W/x.prof" "$P"
nothing "no -o" "--run needs -o OUT" --run=true "$P"
nothing "no FILE" "--run needs the FILEs" --run=true -o "$W/x.prof"
ln -s "$P" "$W/same"
nothing "one FILE twice" "given twice" --run=true -o "$W/x.prof" "$P" "$W/same"
nothing "too few rounds" "--rounds: 5 to 99" --run=true --rounds=3 -o "$W/x.prof" "$P"
nothing "an unknown option" "unknown option '--bogus'" --run=true --bogus -o "$W/x.prof" "$P"
nothing "-o without --run" "go with --run" -o "$W/x.prof"

# ---- an output that is a file tune --run reads -------------------------
# -o naming a FILE (by its own name, another path, a hard or a symbolic
# link) or the --profile read is refused before the command runs, and
# the file keeps every byte and its mode.
# fresh: the FILE and the profile as they were, before each case.
fresh() {
	rm -f "$W/victim" "$W/victim.hard" &&
	cp "$P" "$W/victim" && chmod 0751 "$W/victim" &&
	cp "$W/rec.prof" "$W/sizes.prof" || fail "cannot copy the inputs"
}
fresh
sums() { sha256sum "$W/victim" "$W/sizes.prof"; stat -c %a "$W/victim"; }
want_sums=$(sums)
# kept WHAT OUT ARGS...: tune --run -o OUT ARGS refused so, nothing run.
kept() {
	local what=$1 out=$2
	shift 2
	rm -f "$W/ran"
	TMPDIR=$W/tmp expect_rc 2 "$what" "$TOOL" tune \
		--run="touch '$W/ran'" -o "$out" "$@"
	if ! grep -q "profile not written: .*, which tune --run reads" "$W/err" ||
	   [ "$(wc -l <"$W/err")" -ne 1 ]; then
		fail "$what: not said in one line: $(cat "$W/err")"
	elif [ -e "$W/ran" ] || [ -n "$(ls -A "$W/tmp")" ]; then
		fail "$what: the command ran"
	elif [ "$(sums)" != "$want_sums" ]; then
		fail "$what: a file read was changed"
	else
		ok "$what: $(cat "$W/err")"
	fi
}
ln -s victim "$W/victim.sym"
fresh; kept "-o the FILE tuned" "$W/victim" "$W/victim"
fresh; kept "-o the FILE by another path" "$W/in/../victim" "$W/victim"
fresh; kept "-o a symbolic link to the FILE" "$W/victim.sym" "$W/victim"
fresh; kept "-o the FILE, given through a symbolic link" "$W/victim" "$W/victim.sym"
fresh; kept "-o the FILE, among others" "$W/victim" "$d/shared" "$W/victim"
fresh; kept "-o the --profile read" "$W/sizes.prof" --profile="$W/sizes.prof" \
	"$W/victim"
fresh; ln "$W/victim" "$W/victim.hard"
kept "-o a hard link to the FILE" "$W/victim.hard" "$W/victim"

# ---- pins that do not reach the command ----------------------------------
# A relative TMPDIR and a command that changes directory: the profile's
# path it is given is still absolute, and the pins reach the program.
mkdir -p "$W/away" "$W/rel"
(cd "$W" && TMPDIR=rel expect_rc 0 "a relative TMPDIR, a command that changes directory" \
	"$TOOL" tune --run="cd '$W/away' && test -r \"\$REPSTOS_PROFILE_USE\" && '$P'" \
	--rounds=5 --min-gain=50 -o "$W/rel.prof" "$P")
assert "... leaves nothing in it" eval '[ -z "$(ls -A "$W/rel")" ]'
# A command under which no pin takes effect: it drops the profile, sets
# REPSTOS_PATCH=0 or REPSTOS_VARIANT, discards the program's standard
# error, or runs another program.  Every candidate would time the
# baseline.
why="no .*site took its pin"
nothing "a command that drops the profile" "$why" \
	--run="env -u REPSTOS_PROFILE_USE '$P'" -o "$W/x.prof" "$P"
nothing "a command that sets REPSTOS_PATCH=0" "$why" \
	--run="REPSTOS_PATCH=0 '$P'" -o "$W/x.prof" "$P"
nothing "a command that sets REPSTOS_VARIANT" "no set site took its pin" \
	--run="REPSTOS_VARIANT=erms '$P'" -o "$W/x.prof" "$P"
nothing "a command that discards standard error" "$why" \
	--run="'$P' 2>/dev/null" -o "$W/x.prof" "$P"
nothing "a command that runs another program" "$why" \
	--run="'$d/plain'" -o "$W/x.prof" "$P"
assert "... said in one line" [ "$(wc -l <"$W/err")" -eq 1 ]

# A command that fails under one form only, mid-search: the existing
# output stays as it was.
cat >"$W/flaky.sh" <<EOF
#!/bin/sh
err=\$(REPSTOS_DEBUG=2 "$P" 2>&1 >/dev/null)
[ -z "\${REPSTOS_DEBUG:-}" ] || printf '%s\n' "\$err" >&2
printf '%s\n' "\$err" | grep -q ": site $MEMSET, memset, size unknown: erms " && exit 4
exit 0
EOF
chmod +x "$W/flaky.sh"
echo "keep me" >"$W/x.prof"
TMPDIR=$W/tmp expect_rc 2 "a command failing under one form" "$TOOL" tune \
	--run="$W/flaky.sh" --rounds=5 -o "$W/x.prof" "$P"
assert "... says under which" grep -q "exited 4 under erms pinned on $P" "$W/err"
assert "... leaves the output as it was" [ "$(cat "$W/x.prof")" = "keep me" ]
assert "... and no temporary" eval '[ -z "$(ls -A "$W/tmp")" ]'

echo "target" >"$W/target"
ln -s "$W/target" "$W/link.prof"
TMPDIR=$W/tmp expect_rc 2 "a symbolic link as the output" "$TOOL" tune \
	--run=true -o "$W/link.prof" "$P"
assert "... is not followed" eval '[ "$(cat "$W/target")" = target ] &&
	grep -q "symbolic link" "$W/err"'

# ---- interrupted -------------------------------------------------------
# Ctrl-C to the process group, SIGTERM or SIGHUP to the tool while the
# command runs: the tool dies by that signal, its private folder and
# profile are gone from TMPDIR, and the output is as it was.  The tool
# runs in a session of its own with SIGINT not ignored (as from a
# terminal; a background job of a script ignores it), and the command
# says it started, then waits for the go the test gives once the signal
# is sent (so that a tool that went on would end, not hang); the test
# waits for the command to end too, leaving no process behind.
cat >"$W/hold.sh" <<EOF
#!/bin/sh
echo \$\$ >"$W/started.tmp" && mv "$W/started.tmp" "$W/started"
while [ ! -e "$W/go" ]; do sleep 0.05; done
EOF
chmod +x "$W/hold.sh"
# interrupted SIG TARGET: SIG sent to the tool's "group" or "process".
interrupted() {
	local sig=$1 to=$2 tmp=$W/tmp-$1 pid rc hold
	rm -f "$W/started" "$W/go"
	mkdir -p "$tmp"
	echo "keep me" >"$W/x.prof"
	# exec: $! is the tool's own process (the EXIT trap of lib.sh
	# would keep a subshell in between); python leaves no signal
	# ignored that a terminal's shell would not (SIGHUP too: under
	# nohup the tool keeps an ignored SIGHUP ignored, as it should)
	(TMPDIR=$tmp exec python3 -c 'import os, signal, sys
for s in signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE, signal.SIGXFSZ:
	signal.signal(s, signal.SIG_DFL)
os.setsid()
os.execv(sys.argv[1], sys.argv[1:])' "$TOOL" tune --run="$W/hold.sh" \
		--rounds=5 -o "$W/x.prof" "$P" >"$W/out" 2>"$W/err") &
	pid=$!
	while [ ! -e "$W/started" ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.05
	done
	hold=$(cat "$W/started" 2>/dev/null)
	assert "SIG$sig: the tool, leading its own group, runs the command" \
		[ -n "$hold" -a "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
	assert "SIG$sig: the private folder is there while the command runs" \
		[ -n "$(ls -A "$tmp")" ]
	if [ "$to" = group ]; then
		kill -s "$sig" -- "-$pid"
	else
		kill -s "$sig" "$pid"
	fi
	touch "$W/go"
	wait "$pid"
	rc=$?
	while [ -n "$hold" ] && kill -0 "$hold" 2>/dev/null; do
		sleep 0.05
	done
	assert "SIG$sig to the $to: the tool dies by it (exit $rc)" \
		[ "$rc" -eq $((128 + $(kill -l "$sig"))) ]
	assert "SIG$sig: nothing left in TMPDIR: $(ls -AR "$tmp" | tr '\n' ' ')" \
		[ -z "$(ls -A "$tmp")" ]
	assert "SIG$sig: the output untouched" eval \
		'[ "$(cat "$W/x.prof")" = "keep me" ] && [ "$(ls "$W" | grep -c "^x\.prof")" -eq 1 ]'
}
interrupted INT group
interrupted TERM process
interrupted HUP process
finish
