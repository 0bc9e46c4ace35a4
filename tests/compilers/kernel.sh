#!/bin/sh
# Proves: the Linux 6.12 test kernel built by Debian 13's GCC 14, plain and in kernel mode with the plugin GCC 14 built, boots under QEMU with every site patched to the routine each CPU model calls for and passes the KTAP test built in and as a module, with no more objtool warnings than GCC 14's plain build.
# `make test-kernel-gcc14`; root, for chroot and mount.  Debian 13
# builds its own 6.12 kernels with GCC 14: this is kernel mode with that
# compiler.  In the Debian 13 chroot of tests/compilers/lib.sh (the one
# make test-compilers uses: it has the kernel's build dependencies too),
# a copy of the tree builds the plugin with GCC 14, and kernel/build.sh
# builds the plain and plugin kernels of make test-kernel
# KERNEL_VERSION=6.12 there, into build/kernel/6.12-gcc14/ of this tree
# (bound into the chroot, with the source fetch.sh unpacked beside it);
# the plugin build with the plugin's verbose notes, from which the calls
# converted are counted.  Then tests/kernel/boot.sh boots both under the
# machine's QEMU and checks them as make test-kernel does
# (KERNEL_PREBUILT=1: it builds nothing).  The kernel builds run at the
# lowest priority on both CPUs (nice 19, two jobs); the rest on CPU 0.
# Results: tests/compilers/results/kernel-gcc14.txt (KEEP=1 keeps the
# chroot).
. "$(dirname "$0")/lib.sh"
need "$PLUGIN" "$TOOL"
export KERNEL_VERSION=6.12 KERNEL_TAG=gcc14
mkdir -p "$cache" || { fail "cannot make $cache"; finish; }
scratch

uri=$(archive_uri)
[ -n "$uri" ] || { fail "no Debian archive in the machine's apt sources"; finish; }
# the source, and QEMU for the boots, on the machine
ksrc=$(kernel/fetch.sh) || { fail "kernel/fetch.sh: no 6.12 source"; finish; }
K=$(dirname "$(kernel/outdir.sh plain)")
mkdir -p "$K"

r=$W/trixie
enter_suite trixie $r || finish
copy_tree $r/src || { fail "cannot copy the tree"; finish; }
bind_into $r "$top/build/kernel" /src/build/kernel || finish
full=$(in_chroot $r gcc -dumpfullversion)
case $full in
14.*)	ok "Debian 13's gcc is GCC $full" ;;
*)	fail "Debian 13's gcc is GCC $full, not 14"; finish ;;
esac
if in_chroot $r sh -c 'cd /src && make -j1 plugin/repstos.so' >"$W/plugin.log" 2>&1; then
	built=$(grep -a -o 'repstos plugin built for GCC [0-9.]*' "$r/src/plugin/repstos.so")
	[ "$built" = "repstos plugin built for GCC $full" ] &&
		ok "the plugin built with GCC $full: '$built'" ||
		fail "the plugin's mark is '$built'"
else
	fail "the plugin does not build with GCC $full:"
	tail -n 20 "$W/plugin.log"
	finish
fi

# kbuild VARIANT: kernel/build.sh VARIANT in the chroot, at the lowest
# priority on both CPUs; its last line (the objtool warning count) kept
kbuild() {
	nice -n 19 taskset -c 0,1 chroot $r env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		KERNEL_VERSION=$KERNEL_VERSION KERNEL_TAG=$KERNEL_TAG \
		KERNEL_BUILD_ONLY=1 KERNEL_VERBOSE=1 KERNEL_JOBS=2 \
		/src/kernel/build.sh $1 >"$W/build-$1.log" 2>&1
}
# The plugin build first: on a busy machine its figures come soonest.
for v in plugin plain; do
	t0=$(date +%s)
	if kbuild $v; then
		ok "GCC $full: $v kernel built in $(( $(date +%s) - t0 )) s: $(tail -n 1 "$W/build-$v.log")"
	else
		fail "GCC $full: the $v kernel does not build:"
		tail -n 20 "$W/build-$v.log"
	fi
done
leave_suite $r

# The calls converted: each unit's "N sites, M calls left alone" note,
# summed over the kernel's build and the module's.
cat "$K/plugin/build.log" "$K/plugin/module.log" 2>/dev/null |
	sed -n 's/.*repstos: .*: \([0-9]*\) sites*, \([0-9]*\) calls* left alone.*/\1 \2/p' |
	awk '{ s += $1; l += $2; u++ }
		END { printf "%d %d %d\n", u, s, l }' >"$W/calls"
read units sites left <"$W/calls"
if [ "$units" -gt 0 ] && [ "$sites" -gt 0 ]; then
	ok "GCC $full: $units units: $sites calls converted, $left left alone"
	# "left alone" counts the constant sizes GCC expands inline too, so
	# this is not the image's share: boot.sh's "vmlinux calls" line is
	echo "summary: GCC $full kernel mode: $units units made $sites sites and left $left candidates to GCC (inline expansions included)"
else
	fail "no unit summaries in $K/plugin/build.log (verbose notes)"
fi

# the boots and their checks, make test-kernel's
KERNEL_PREBUILT=1 tests/kernel/boot.sh >"$W/boot.log" 2>&1
rc=$?
cat "$W/boot.log"
[ $rc -eq 0 ] && ok "tests/kernel/boot.sh on GCC $full's builds: $(tail -n 1 "$W/boot.log")" ||
	fail "tests/kernel/boot.sh on GCC $full's builds: exit $rc"
finish
