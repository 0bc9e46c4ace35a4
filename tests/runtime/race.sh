#!/bin/sh
# Proves: code running during start-up never meets a page without exec, nor a half-written site.
# Other code runs while start-up patches the text: the
# mprotect route must not leave it a page that is not executable.
#  - a thread started by a library constructor calls into the executable,
#    or forks children that do: the mprotect route is refused (the
#    process is not alone in its address space), sites stay stub calls;
#    in lock-step (RACE_STEP=1: the thread acts while the window is open)
#    and free running;
#  - a SIGALRM handler armed from preinit_array calls the sites every
#    20 us: the route is taken, with signals blocked across the window;
#  - the /proc/self/mem route (by default, or asked for) also writes
#    nothing where another thread is about, and every site when alone;
#    where unshare is refused, the same (the runtime does not ask it);
#  - the same with no environment and no /proc (a private mount
#    namespace with a tmpfs on /proc), where mprotect is the default.
. "$(dirname "$0")/../lib.sh"
d=$top/$BUILT	# absolute: also from the shell in a mount namespace
need $d/race
runs=${RACE_RUNS:-100}

# many N PATTERN ENV...: N runs of race; each must exit 0 and print PATTERN.
many() {
	n=$1 pat=$2; shift 2
	bad=0 i=0 last=""
	while [ $i -lt "$n" ]; do
		out=$(env "$@" $d/race $mode 2>&1); rc=$?
		if [ $rc -ne 0 ] || ! echo "$out" | grep -q -- "$pat"; then
			bad=$((bad + 1)); last="exit $rc: $out"
		fi
		i=$((i + 1))
	done
	if [ $bad -ne 0 ]; then
		fail "$mode $*: $bad of $n runs failed; last: $last"
	else
		ok "$mode $*: $n runs, $(echo "$out" | grep -o -- "$pat" | head -n 1)"
	fi
}

refused="none patched: writing text refused (another thread shares the address space)"
for mode in thread fork; do
	many 5 "$refused" REPSTOS_DEBUG=1 REPSTOS_PATCH=mprotect RACE_MODE=$mode RACE_STEP=1
	many $runs "bytes right" REPSTOS_PATCH=mprotect RACE_MODE=$mode
done
mode=alarm
many $runs "32 of 32 sites patched via 'mprotect'" REPSTOS_PATCH=mprotect

# The /proc/self/mem route writes in place, into pages that stay
# executable: with another thread about, which could fetch a call whose
# rel32 is half written, it writes nothing either (by default as when
# asked for alone); alone, it writes every site, signal handler or not.
for mode in thread fork; do
	many 5 "$refused" REPSTOS_DEBUG=1 RACE_MODE=$mode
	many 5 "$refused" REPSTOS_DEBUG=1 REPSTOS_PATCH=mem RACE_MODE=$mode
	many $runs "bytes right" RACE_MODE=$mode
done
mode=alarm
many $runs "32 of 32 sites patched via '/proc/self/mem'" REPSTOS_PATCH=mem
# Where unshare is refused (Docker's default filter without
# CAP_SYS_ADMIN) nothing changes: the runtime asks glibc and
# /proc/self/task, not unshare, whether it is alone.
out=$($d/seccomp_run nounshare $d/race alarm 2>&1)
echo "$out" | grep -q "32 of 32 sites patched via '/proc/self/mem'" &&
	ok "unshare refused, alone: the mem route writes ($out)" ||
	fail "unshare refused, alone: $out"
out=$(RACE_MODE=thread REPSTOS_DEBUG=1 $d/seccomp_run nounshare $d/race thread 2>&1)
echo "$out" | grep -q -- "$refused" && echo "$out" | grep -q "bytes right" &&
	ok "unshare refused, a thread: the mem route writes nothing" ||
	fail "unshare refused, a thread: $out"

# No /proc, no environment: the default falls back to mprotect.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	finish "no /proc: cannot make a mount namespace (not root?)"
fi
out=$(unshare -m sh -c '
	mount -t tmpfs none /proc || exit 2
	env -i RACE_MODE=thread RACE_STEP=1 '$d'/race thread || exit 3
	env -i '$d'/race alarm || exit 4' 2>&1)
rc=$?
case $rc in
0) if echo "$out" | grep -q "^thread: status 4, 0 of 32" &&
      echo "$out" | grep -q "^alarm: status 1, 32 of 32 sites patched via 'mprotect'"; then
	ok "no /proc, no environment: thread refused, alarm patched via mprotect"
   else
	fail "no /proc, no environment: not as expected: $out"
   fi ;;
2) finish "no /proc: cannot mount over /proc ($out)" ;;
*) fail "no /proc, no environment: exit $rc: $out" ;;
esac
finish
