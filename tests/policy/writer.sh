#!/bin/sh
# Proves: REPSTOS_PROFILE writes only a file of the user's own making.
# Where the recorder (tests/policy/probe.c, one module) may write at
# exit, all in a temporary folder, whatever fs.protected_symlinks and
# fs.protected_regular say (those guard only sticky folders others can
# write, and none of the refusals below is in one):
#  - a new file is created 0600, an existing one of the user's own
#    appended to;
#  - refused, with one line on stderr and nothing written or created: a
#    symbolic link (to a file, or dangling), a file with another hard
#    link, a FIFO, a file in a folder others can write that is not
#    sticky, a path through a symbolic link owned by someone else;
#  - as root, also a file owned by another user, and in a sticky folder
#    others can write, a file that is not the user's own; a new file
#    there is created.
. "$(dirname "$0")/../lib.sh"
bin=$BUILT/probe
need $bin
scratch -o
chmod 755 "$W"

# record NAME PATH: run the probe recording to PATH; out and err kept.
record() {
	REPSTOS_PROFILE=$2 timeout 10 $bin status >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "$1: exit $rc: $(cat "$W/out" "$W/err")"; return 1; }
}

# refused NAME PATH FILE [SUM]: recording to PATH must leave FILE as it
# was (its checksum SUM, or absent) and say why on one line.
refused() {
	record "$1" "$2" || return
	now=$(cksum "$3" 2>/dev/null)
	if [ "$now" != "${4:-}" ]; then
		fail "$1: $3 was written or created"
	elif [ "$(wc -l < "$W/err")" -ne 1 ] || ! grep -q "profile .* not written" "$W/err"; then
		fail "$1: refused, but not in one line: $(cat "$W/err")"
	else
		ok "$1: $(sed 's/^repstos: //' "$W/err")"
	fi
}

# ---- allowed -----------------------------------------------------------
record "a new file" "$W/new" &&
	[ "$(stat -c %a "$W/new")" = 600 ] && grep -q '^end ' "$W/new" &&
	ok "a new file: created 0600 with a section" ||
	fail "a new file: $(ls -l "$W/new" 2>&1) $(cat "$W/err")"
n=$(grep -c '^profile ' "$W/new")
record "the user's own file" "$W/new" &&
	[ "$(grep -c '^site ' "$W/new")" -gt 0 ] && [ ! -s "$W/err" ] &&
	ok "the user's own file: written again ($n section before)" ||
	fail "the user's own file: $(cat "$W/err")"

# ---- refused -----------------------------------------------------------
echo "victim" > "$W/victim"
sum=$(cksum "$W/victim")
ln -s "$W/victim" "$W/link"
refused "a symbolic link to a file" "$W/link" "$W/victim" "$sum"
ln -s "$W/nowhere" "$W/dangling"
refused "a dangling symbolic link" "$W/dangling" "$W/nowhere"
ln "$W/victim" "$W/hard"
refused "a second hard link" "$W/hard" "$W/victim" "$sum"
mkfifo "$W/fifo"
refused "a FIFO" "$W/fifo" "$W/none"
mkdir "$W/open" && chmod 777 "$W/open"
refused "a folder others can write, not sticky" "$W/open/prof" "$W/open/prof"
mkdir "$W/real"
ln -s "$W/real" "$W/mine"
record "through the user's own link" "$W/mine/prof" && [ -s "$W/real/prof" ] &&
	ok "through a symbolic link of the user's own: written" ||
	fail "through the user's own link: $(cat "$W/err")"

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	finish "not root (or no user nobody): another user's files not tried"
fi
ln -s "$W/real" "$W/theirs" && chown -h nobody "$W/theirs"
refused "through a link owned by another user" "$W/theirs/other" "$W/real/other"
cp "$W/victim" "$W/nobodys" && chown nobody "$W/nobodys"
refused "a file owned by another user" "$W/nobodys" "$W/nobodys" "$(cksum "$W/nobodys")"
mkdir "$W/sticky" && chmod 1777 "$W/sticky"
cp "$W/victim" "$W/sticky/nobodys" && chown nobody "$W/sticky/nobodys"
refused "a sticky folder, another user's file" "$W/sticky/nobodys" \
	"$W/sticky/nobodys" "$(cksum "$W/sticky/nobodys")"
record "a sticky folder, a new file" "$W/sticky/new" &&
	[ "$(stat -c %U:%a "$W/sticky/new")" = root:600 ] &&
	ok "a sticky folder others can write: a new file created, 0600" ||
	fail "a sticky folder, a new file: $(ls -l "$W/sticky" 2>&1) $(cat "$W/err")"
finish
