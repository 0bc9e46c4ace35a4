#!/bin/sh
# Proves: a secure execution obeys no REPSTOS_* variable and no user file.
# The environment and the tuning file are the user's, not the program's:
#  - any program: REPSTOS_TUNING naming a FIFO does not hang start-up,
#    and a file owned by someone other than root or the real user is not
#    read;
#  - a secure execution (AT_SECURE: a set-user-ID copy of the probe, to
#    nobody) ignores every REPSTOS_* variable, reads no file the user
#    names and says nothing about one.
# Everything it makes is in a temporary folder of its own.
. "$(dirname "$0")/../lib.sh"
bin=$PWD/$BUILT/harden
need $bin
# Where set-user-ID bits count, and nobody can reach: outside the tree,
# or in it where that is mounted nosuid.
case $(findmnt -n -o OPTIONS -T "${TMPDIR:-/tmp}" 2>/dev/null) in
*nosuid*) scratch ;;
*) scratch -o ;;
esac
chmod 755 "$W"

# run NAME PROGRAM ARGS...: start-up must not hang; out and err kept.
run() {
	name=$1; shift
	timeout 10 "$@" >"$W/out" 2>"$W/err"
	rc=$?
	out=$(cat "$W/out") err=$(cat "$W/err")
	[ $rc -eq 124 ] && { fail "$name: start-up hung (killed after 10 s)"; return 1; }
	[ $rc -eq 0 ] || { fail "$name: exit $rc: $out $err"; return 1; }
	return 0
}

$bin tuning "$W/good" || { fail "cannot write a tuning file"; finish; }
printf 'not a tuning file\n' >"$W/bad"
chmod 644 "$W/good" "$W/bad"
mkfifo "$W/fifo"

# ---- any program -------------------------------------------------------
run "own tuning file" env REPSTOS_TUNING="$W/good" $bin status &&
	case $out in
	*"tuning=tuning file"*) ok "a tuning file of the real user's is read" ;;
	*) fail "own tuning file not read: $out" ;;
	esac
run "FIFO as tuning file" env REPSTOS_TUNING="$W/fifo" $bin status &&
	ok "REPSTOS_TUNING naming a FIFO: start-up goes on ($(field "$out" variant))"
if [ "$(id -u)" = 0 ]; then
	cp "$W/good" "$W/others"
	chown nobody "$W/others"
	run "someone else's tuning file" env REPSTOS_TUNING="$W/others" $bin status &&
		case $out in
		*"tuning=tuning file"*) fail "a tuning file owned by nobody was read" ;;
		*) ok "a tuning file owned by another user is not read" ;;
		esac
fi

# ---- a secure execution ------------------------------------------------
why=""
if [ "$(id -u)" != 0 ]; then
	why="not root: cannot make a set-user-ID copy"
elif ! id nobody >/dev/null 2>&1; then
	why="no user 'nobody'"
else
	# The copy is in $W: where set-user-ID bits count (above).
	cp $bin "$W/suid" && chown nobody "$W/suid" && chmod 4755 "$W/suid"
	out=$(timeout 10 "$W/suid" status 2>&1)
	case $out in
	*"secure=1 "*) ;;
	*) why="the set-user-ID copy does not run as a secure execution ($out)" ;;
	esac
fi
[ -z "$why" ] || finish "secure execution: $why"
suid=$W/suid

# The secure program's own choice, with nothing set.
run "secure, nothing set" $suid status || finish
base=$out
variant=$(field "$base" variant) features=$(field "$base" features)
ok "secure execution: $base"

run "secure, REPSTOS_TUNING=malformed" env REPSTOS_TUNING="$W/bad" $suid status &&
	if [ -n "$err" ]; then
		fail "secure: REPSTOS_TUNING of a malformed file is reported: $err"
	else
		ok "secure: REPSTOS_TUNING of a malformed file: nothing said"
	fi
run "secure, REPSTOS_TUNING=good" env REPSTOS_TUNING="$W/good" $suid status &&
	case $out in
	*"tuning=tuning file"*) fail "secure: REPSTOS_TUNING was read: $out" ;;
	*) ok "secure: REPSTOS_TUNING not read" ;;
	esac
run "secure, REPSTOS_TUNING=FIFO" env REPSTOS_TUNING="$W/fifo" $suid status &&
	ok "secure: REPSTOS_TUNING naming a FIFO: start-up goes on"
run "secure, REPSTOS_PATCH=0" env REPSTOS_PATCH=0 $suid status &&
	case $(field "$out" status) in
	2) fail "secure: REPSTOS_PATCH=0 obeyed: $out" ;;
	*) ok "secure: REPSTOS_PATCH=0 ignored (status $(field "$out" status))" ;;
	esac
other=original
[ "$variant" = original ] && other=erms
run "secure, REPSTOS_VARIANT" env REPSTOS_VARIANT=$other $suid status &&
	if [ "$(field "$out" variant)" != "$variant" ]; then
		fail "secure: REPSTOS_VARIANT=$other obeyed: $out"
	else
		ok "secure: REPSTOS_VARIANT=$other ignored ($variant)"
	fi
run "secure, REPSTOS_CPU" env REPSTOS_CPU=generic $suid status &&
	if [ "$(field "$out" features)" != "$features" ]; then
		fail "secure: REPSTOS_CPU=generic obeyed: $out"
	else
		ok "secure: REPSTOS_CPU=generic ignored (features $features)"
	fi
run "secure, REPSTOS_DEBUG" env REPSTOS_DEBUG=1 $suid status &&
	if [ -n "$err" ]; then
		fail "secure: REPSTOS_DEBUG=1 obeyed: $err"
	else
		ok "secure: REPSTOS_DEBUG=1 ignored"
	fi
finish
