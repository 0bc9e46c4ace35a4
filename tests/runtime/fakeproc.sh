#!/bin/sh
# Proves: a tmpfs on /proc with regular files at self/mem and self/task is not taken for the proc file system: no text written into it, nothing claimed.
# In a user and mount namespace (unshare -rm), a tmpfs on /proc with a
# folder self holding an empty regular file mem and a folder task:
#  - sites (librepstos.a) by default runs right, its sites read back in
#    the form chosen, patched through mprotect as where /proc is absent,
#    and REPSTOS_DEBUG does not name /proc/self/mem;
#  - with REPSTOS_PATCH=mem it writes nothing and says why;
#  - sandbox thread (glibc no longer says single-threaded, so the
#    start-up asks /proc/self/task) cannot tell, and writes nothing;
#  - the file self/mem is still empty.
. "$(dirname "$0")/../lib.sh"
d=$top/$BUILT	# absolute: also from the shell in a mount namespace
need $d/sites $d/sandbox
unshare -rm true 2>/dev/null || skip "cannot make a user and mount namespace here"
scratch

out=$(unshare -rm sh -c '
	mount -t tmpfs none /proc && mkdir /proc/self /proc/self/task &&
		: >/proc/self/mem || exit 2
	REPSTOS_DEBUG=1 '$d'/sites quick >'$W'/default 2>&1; echo "default $?"
	REPSTOS_DEBUG=1 REPSTOS_PATCH=mem '$d'/sites quick >'$W'/mem 2>&1
	echo "mem $?"
	REPSTOS_DEBUG=1 '$d'/sandbox thread >'$W'/thread 2>&1; echo "thread $?"
	echo "size $(stat -c %s /proc/self/mem)"' 2>&1)
case $out in
2) skip "cannot mount a tmpfs on /proc here" ;;
esac
# line FILE: its start-up's line, without the CPU
line() { grep '^repstos: .*: cpu ' "$W/$1" | sed 's/.*copy [a-z0-9_]*; //'; }

if echo "$out" | grep -qx "default 0" &&
   grep -q '^3 sites read back, 0 in the wrong form' "$W/default" &&
   line default | grep -q 'sites: 3 patched.* via mprotect' &&
   ! grep -q '/proc/self/mem' "$W/default"; then
	ok "default: patched via mprotect, read back right: $(line default)"
else
	fail "default: $out: $(cat "$W/default")"
fi
if echo "$out" | grep -qx "mem 0" &&
   grep -q '^3 sites read back, 0 in the wrong form' "$W/mem" &&
   line mem | grep -q 'none patched: writing text refused (/proc/self/mem: Wrong medium type)'; then
	ok "REPSTOS_PATCH=mem: $(line mem)"
else
	fail "REPSTOS_PATCH=mem: $out: $(cat "$W/mem")"
fi
if echo "$out" | grep -qx "thread 0" &&
   line thread | grep -q 'none patched: writing text refused (cannot tell if single-threaded: Wrong medium type)'; then
	ok "a thread was created: $(line thread)"
else
	fail "a thread was created: $out: $(cat "$W/thread")"
fi
echo "$out" | grep -qx "size 0" && ok "self/mem is still empty" ||
	fail "self/mem written: $out"
finish
