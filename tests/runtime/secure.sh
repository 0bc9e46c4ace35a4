#!/bin/sh
# Proves: a secure execution obeys no REPSTOS_* variable and no user file.
# The environment and the tuning file are the user's, not the program's:
#  - any program: REPSTOS_TUNING naming a FIFO does not hang start-up,
#    and a file owned by someone other than root or the real user is not
#    read;
#  - a secure execution (AT_SECURE: a set-user-ID copy of the probe, to
#    nobody) ignores every REPSTOS_* variable, reads no file the user
#    names and says nothing about one.
# Both for the probe linked with librepstos-full.a, which reads tuning
# files, and with librepstos.a, which reads none (runtime/runtime.mk)
# and says so under REPSTOS_DEBUG of a file that is there, but not in a
# secure execution.
# Everything it makes is in a temporary folder of its own.
. "$(dirname "$0")/../lib.sh"
d=$BUILT
need $d/harden $d/harden-full
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

$PWD/$d/harden-full tuning "$W/good" || { fail "cannot write a tuning file"; finish; }
printf 'not a tuning file\n' >"$W/bad"
chmod 644 "$W/good" "$W/bad"
mkfifo "$W/fifo"

# check BIN READS: every check of one probe; READS 1 where it reads
# tuning files.
check() {
	bin=$1 reads=$2 b=${1##*/}

	# ---- any program -----------------------------------------------
	if [ "$reads" = 1 ]; then
		run "$b: own tuning file" env REPSTOS_TUNING="$W/good" $bin status &&
			case $out in
			*"tuning=tuning file"*) ok "$b: a tuning file of the real user's is read" ;;
			*) fail "$b: own tuning file not read: $out" ;;
			esac
	else
		run "$b: own tuning file" env REPSTOS_TUNING="$W/good" REPSTOS_DEBUG=1 $bin status &&
			case $out$err in
			*"tuning=tuning file"*) fail "$b: librepstos.a read a tuning file: $out" ;;
			*"$W/good: tuning file not read: not linked"*)
				ok "$b: no tuning file read, and REPSTOS_DEBUG says so" ;;
			*) fail "$b: own tuning file: not said: $err" ;;
			esac
	fi
	run "$b: FIFO as tuning file" env REPSTOS_TUNING="$W/fifo" $bin status &&
		ok "$b: REPSTOS_TUNING naming a FIFO: start-up goes on ($(field "$out" variant))"
	if [ "$(id -u)" = 0 ]; then
		cp "$W/good" "$W/others"
		chown nobody "$W/others"
		run "$b: someone else's tuning file" env REPSTOS_TUNING="$W/others" $bin status &&
			case $out in
			*"tuning=tuning file"*) fail "$b: a tuning file owned by nobody was read" ;;
			*) ok "$b: a tuning file owned by another user is not read" ;;
			esac
	fi

	# ---- a secure execution ----------------------------------------
	why=""
	if [ "$(id -u)" != 0 ]; then
		why="not root: cannot make a set-user-ID copy"
	elif ! id nobody >/dev/null 2>&1; then
		why="no user 'nobody'"
	else
		# The copy must be where set-user-ID bits count.
		dir=$W
		case $(findmnt -n -o OPTIONS -T "$dir" 2>/dev/null) in
		*nosuid*) dir=$(mktemp -d -p "$PWD/$d") &&
				chmod 755 "$dir" ;;
		esac
		cp $bin "$dir/suid" && chown nobody "$dir/suid" && chmod 4755 "$dir/suid"
		out=$(timeout 10 "$dir/suid" status 2>&1)
		case $out in
		*"secure=1 "*) ;;
		*) why="the set-user-ID copy does not run as a secure execution ($out)" ;;
		esac
	fi
	if [ -n "$why" ]; then
		[ "$dir" != "$W" ] && [ -n "$dir" ] && rm -rf "$dir"
		secure_skip="secure execution: $why"
		return
	fi
	suid=$dir/suid

	# The secure program's own choice, with nothing set.
	run "$b: secure, nothing set" $suid status || return
	base=$out
	variant=$(field "$base" variant) features=$(field "$base" features)
	ok "$b: secure execution: $base"

	run "$b: secure, REPSTOS_TUNING=malformed" env REPSTOS_TUNING="$W/bad" $suid status &&
		if [ -n "$err" ]; then
			fail "$b: secure: REPSTOS_TUNING of a malformed file is reported: $err"
		else
			ok "$b: secure: REPSTOS_TUNING of a malformed file: nothing said"
		fi
	run "$b: secure, REPSTOS_TUNING=good" env REPSTOS_TUNING="$W/good" $suid status &&
		case $out in
		*"tuning=tuning file"*) fail "$b: secure: REPSTOS_TUNING was read: $out" ;;
		*) ok "$b: secure: REPSTOS_TUNING not read" ;;
		esac
	run "$b: secure, REPSTOS_TUNING=FIFO" env REPSTOS_TUNING="$W/fifo" $suid status &&
		ok "$b: secure: REPSTOS_TUNING naming a FIFO: start-up goes on"
	run "$b: secure, REPSTOS_PATCH=0" env REPSTOS_PATCH=0 $suid status &&
		case $(field "$out" status) in
		2) fail "$b: secure: REPSTOS_PATCH=0 obeyed: $out" ;;
		*) ok "$b: secure: REPSTOS_PATCH=0 ignored (status $(field "$out" status))" ;;
		esac
	other=original
	[ "$variant" = original ] && other=erms
	run "$b: secure, REPSTOS_VARIANT" env REPSTOS_VARIANT=$other $suid status &&
		if [ "$(field "$out" variant)" != "$variant" ]; then
			fail "$b: secure: REPSTOS_VARIANT=$other obeyed: $out"
		else
			ok "$b: secure: REPSTOS_VARIANT=$other ignored ($variant)"
		fi
	run "$b: secure, REPSTOS_CPU" env REPSTOS_CPU=generic $suid status &&
		if [ "$(field "$out" features)" != "$features" ]; then
			fail "$b: secure: REPSTOS_CPU=generic obeyed: $out"
		else
			ok "$b: secure: REPSTOS_CPU=generic ignored (features $features)"
		fi
	run "$b: secure, REPSTOS_DEBUG" env REPSTOS_DEBUG=1 REPSTOS_TUNING="$W/good" \
		$suid status &&
		if [ -n "$err" ]; then
			fail "$b: secure: REPSTOS_DEBUG=1 obeyed: $err"
		else
			ok "$b: secure: REPSTOS_DEBUG=1 ignored"
		fi
	[ "$dir" != "$W" ] && rm -rf "$dir"
}

secure_skip=""
check $PWD/$d/harden-full 1
check $PWD/$d/harden 0
finish "$secure_skip"
