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
bin=build/tests/policy/probe
need $bin
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
chmod 755 "$t"

# record NAME PATH: run the probe recording to PATH; out and err kept.
record() {
	REPSTOS_PROFILE=$2 timeout 10 $bin status >"$t/out" 2>"$t/err"
	rc=$?
	[ $rc -eq 0 ] || { fail "$1: exit $rc: $(cat "$t/out" "$t/err")"; return 1; }
}

# refused NAME PATH FILE [SUM]: recording to PATH must leave FILE as it
# was (its checksum SUM, or absent) and say why on one line.
refused() {
	record "$1" "$2" || return
	now=$(cksum "$3" 2>/dev/null)
	if [ "$now" != "${4:-}" ]; then
		fail "$1: $3 was written or created"
	elif [ "$(wc -l < "$t/err")" -ne 1 ] || ! grep -q "profile .* not written" "$t/err"; then
		fail "$1: refused, but not in one line: $(cat "$t/err")"
	else
		ok "$1: $(sed 's/^repstos: //' "$t/err")"
	fi
}

# ---- allowed -----------------------------------------------------------
record "a new file" "$t/new" &&
	[ "$(stat -c %a "$t/new")" = 600 ] && grep -q '^end ' "$t/new" &&
	ok "a new file: created 0600 with a section" ||
	fail "a new file: $(ls -l "$t/new" 2>&1) $(cat "$t/err")"
n=$(grep -c '^profile ' "$t/new")
record "the user's own file" "$t/new" &&
	[ "$(grep -c '^site ' "$t/new")" -gt 0 ] && [ ! -s "$t/err" ] &&
	ok "the user's own file: written again ($n section before)" ||
	fail "the user's own file: $(cat "$t/err")"

# ---- refused -----------------------------------------------------------
echo "victim" > "$t/victim"
sum=$(cksum "$t/victim")
ln -s "$t/victim" "$t/link"
refused "a symbolic link to a file" "$t/link" "$t/victim" "$sum"
ln -s "$t/nowhere" "$t/dangling"
refused "a dangling symbolic link" "$t/dangling" "$t/nowhere"
ln "$t/victim" "$t/hard"
refused "a second hard link" "$t/hard" "$t/victim" "$sum"
mkfifo "$t/fifo"
refused "a FIFO" "$t/fifo" "$t/none"
mkdir "$t/open" && chmod 777 "$t/open"
refused "a folder others can write, not sticky" "$t/open/prof" "$t/open/prof"
mkdir "$t/real"
ln -s "$t/real" "$t/mine"
record "through the user's own link" "$t/mine/prof" && [ -s "$t/real/prof" ] &&
	ok "through a symbolic link of the user's own: written" ||
	fail "through the user's own link: $(cat "$t/err")"

if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	finish "not root (or no user nobody): another user's files not tried"
fi
ln -s "$t/real" "$t/theirs" && chown -h nobody "$t/theirs"
refused "through a link owned by another user" "$t/theirs/other" "$t/real/other"
cp "$t/victim" "$t/nobodys" && chown nobody "$t/nobodys"
refused "a file owned by another user" "$t/nobodys" "$t/nobodys" "$(cksum "$t/nobodys")"
mkdir "$t/sticky" && chmod 1777 "$t/sticky"
cp "$t/victim" "$t/sticky/nobodys" && chown nobody "$t/sticky/nobodys"
refused "a sticky folder, another user's file" "$t/sticky/nobodys" \
	"$t/sticky/nobodys" "$(cksum "$t/sticky/nobodys")"
record "a sticky folder, a new file" "$t/sticky/new" &&
	[ "$(stat -c %U:%a "$t/sticky/new")" = root:600 ] &&
	ok "a sticky folder others can write: a new file created, 0600" ||
	fail "a sticky folder, a new file: $(ls -l "$t/sticky" 2>&1) $(cat "$t/err")"
finish
