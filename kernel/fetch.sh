#!/bin/sh
# fetch.sh - the Linux 6.1 source of Debian 12, unpacked under
# build/kernel/ for kernel/build.sh.  The .deb comes from apt-get
# download once and stays in $REPSTOS_CACHE (~/.cache/repstos): CI runs
# on the same machine reuse it.  Installs what a kernel build and boot
# need when it is missing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${REPSTOS_CACHE:-$HOME/.cache/repstos}
work=$top/build/kernel
src=$work/linux-source-6.1

need=
for p in flex bison bc libelf-dev qemu-system-x86 cpio; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	echo "fetch.sh: installing$need" >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y $need >&2
fi

[ -f "$src/.repstos-unpacked" ] && { echo "$src"; exit 0; }
mkdir -p "$cache" "$work"
deb=$(ls "$cache"/linux-source-6.1_*_all.deb 2>/dev/null | tail -1)
if [ -z "$deb" ]; then
	(cd "$cache" && apt-get download linux-source-6.1 >&2)
	deb=$(ls "$cache"/linux-source-6.1_*_all.deb | tail -1)
fi
echo "fetch.sh: unpacking $(basename "$deb")" >&2
rm -rf "$src" "$work/usr"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" --wildcards '*.tar.xz'
tar -xf "$work"/usr/src/linux-source-6.1.tar.xz -C "$work"
rm -rf "$work/usr"
touch "$src/.repstos-unpacked"
echo "$src"
