#!/bin/sh
# fetch.sh - the Linux source of Debian's linux-source-$KERNEL_VERSION
# (6.1 unless given; 6.12 and 7.3 too), unpacked under build/kernel/ for
# kernel/build.sh.  The .deb comes from kernel/getdeb.sh once and stays
# in $REPSTOS_CACHE (~/.cache/repstos): CI runs on the same machine
# reuse it.  Installs what a kernel build and boot need when it is
# missing; with KERNEL_BUILD_ONLY=1 what a build needs (a build in a
# chroot, tests/compilers/kernel.sh's, boots on the machine: no QEMU).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
v=${KERNEL_VERSION:-6.1}
work=$top/build/kernel
src=$work/linux-source-$v

qemu=qemu-system-x86
[ "${KERNEL_BUILD_ONLY:-0}" = 1 ] && qemu=
need=
# KERNEL_TOOLS: a build's own compiler packages besides (build.sh's
# clang variants: clang-16 lld-16 llvm-16)
for p in flex bison bc libelf-dev $qemu cpio ${KERNEL_TOOLS:-}; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	echo "fetch.sh: installing$need" >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y $need >&2
fi

[ -f "$src/.repstos-unpacked" ] && { echo "$src"; exit 0; }
mkdir -p "$work"
# One unpacking of a version at a time, as kernel/headers.sh's: a
# second caller's rm -rf would take the first's tree away.
exec 9>"$work/.unpack-$v.lock"
flock 9
[ -f "$src/.repstos-unpacked" ] && { echo "$src"; exit 0; }
deb=$("$top/kernel/getdeb.sh" "$v")
echo "fetch.sh: unpacking $(basename "$deb")" >&2
# The .deb's tarball goes to a folder of this version's own: two
# versions unpacked at once cannot remove each other's.
tmp=$work/.unpack-$v
rm -rf "$src" "$tmp"
mkdir -p "$tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards '*.tar.xz'
tar -xf "$tmp/usr/src/linux-source-$v.tar.xz" -C "$work"
rm -rf "$tmp"
touch "$src/.repstos-unpacked"
echo "$src"
