#!/bin/sh
# Proves: a repstos-built program starts and patches under a default-kill seccomp allow-list of a plain build's system calls and those repstos(7) lists.
# Sandboxed services run under seccomp allow-lists that kill the
# process on any other system call, and such lists often leave out
# unshare(2).  sandbox.c, built plain and through the plugin (dynamic
# and static), with no argument and with "thread" (a thread started and
# joined before any constructor, so that glibc no longer says the
# process is single-threaded):
#  - seccomp_run learns which system calls the plain build makes
#    (ptrace), and the plain build runs under exactly those; a call
#    beyond them (sandbox unshare) is killed: the filter bites;
#  - the plugin's build with REPSTOS_PATCH=0 runs under exactly those;
#  - by default and with REPSTOS_PATCH=mprotect, it runs under those and
#    the ones repstos(7)'s SYSTEM CALLS section names (as \fBname\fR),
#    prints what the plain build prints, and says its sites were patched
#    through that route.
. "$(dirname "$0")/../lib.sh"
d=$BUILT
run=$d/seccomp_run
need $run $d/sandbox $d/sandbox-plain $d/sandbox-static $d/sandbox-plain-static \
	runtime/repstos.7
scratch

# The system calls repstos(7) names, by number.
names=$(awk '/^\.SH/ { on = /^\.SH SYSTEM CALLS/ } on && !/^\.\\"/' \
	runtime/repstos.7 | grep -o '\\fB[a-z_0-9]*\\fR' |
	sed 's/^\\fB//; s/\\fR$//' | sort -u)
{ echo '#include <sys/syscall.h>'; for n in $names; do echo "$n SYS_$n"; done; } \
	>"$W/nr.c"
gcc -E -P "$W/nr.c" | awk 'NF == 2' >"$W/nr"
bad=$(awk '$2 !~ /^[0-9]+$/ { print $1 }' "$W/nr")
if [ -z "$names" ] || [ -n "$bad" ]; then
	fail "repstos(7)'s SYSTEM CALLS: no system call named, or unknown ones: $bad"
	finish
fi
awk '{ print $2 }' "$W/nr" >"$W/man.nr"
ok "repstos(7) names $(echo $names | wc -w) system calls: $(echo $names)"

# under LIST WANT-EXIT "VAR=VALUE..." PROGRAM ARGS...: run it with those
# variables under the allow-list (set outside it: env's own calls are
# not the program's); its stdout in $W/out, its stderr in $W/err.  1
# where the exit was not WANT-EXIT.
under() {
	list=$1 want=$2 vars=$3; shift 3
	env $vars $run allow "$list" "$@" >"$W/out" 2>"$W/err"
	got=$?
	[ $got -eq "$want" ] || { got="exit $got, want $want"; return 1; }
}

for link in "" -static; do
	plain=$d/sandbox-plain$link prog=$d/sandbox$link
	for arg in "" thread; do
		what="sandbox$link${arg:+ $arg}"
		$run learn "$W/plain.nr" $plain $arg >"$W/want" 2>"$W/err"
		rc=$?
		[ $rc -eq 125 ] && skip "cannot trace here: $(cat "$W/err")"
		if [ $rc -ne 0 ]; then
			fail "$what: the plain build, traced: exit $rc"
			continue
		fi
		sort -n -u "$W/plain.nr" "$W/man.nr" >"$W/both.nr"
		if under "$W/plain.nr" 0 "" $plain $arg && cmp -s "$W/out" "$W/want"; then
			ok "$what: the plain build runs under its $(wc -l <"$W/plain.nr") system calls"
		else
			fail "$what: the plain build under its own calls: $got: $(cat "$W/err")"
		fi
		if [ -z "$arg" ]; then
			under "$W/plain.nr" 159 "" $plain unshare &&
				ok "$what: a call beyond them is killed" ||
				fail "$what: unshare under the plain build's calls: $got"
		fi
		if under "$W/plain.nr" 0 REPSTOS_PATCH=0 $prog $arg &&
		   cmp -s "$W/out" "$W/want"; then
			ok "$what: REPSTOS_PATCH=0 makes no call beyond them"
		else
			fail "$what: REPSTOS_PATCH=0 under the plain build's calls: $got: $(cat "$W/err")"
		fi
		for route in "" mprotect; do
			pat="sites: [1-9][0-9]* patched.* via ${route:-/proc/self/mem}"
			if under "$W/both.nr" 0 \
				"REPSTOS_DEBUG=1 ${route:+REPSTOS_PATCH=$route}" $prog $arg &&
			   cmp -s "$W/out" "$W/want" && grep -q "$pat" "$W/err"; then
				ok "$what: ${route:-default} route: $(grep -o "$pat" "$W/err")"
			else
				fail "$what: ${route:-default} route under the plain build's calls and repstos(7)'s: $got: $(cat "$W/out" "$W/err")"
			fi
		done
	done
done
finish
