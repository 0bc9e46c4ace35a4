# tests/compilers/lib.sh - the Debian chroots of tests/compilers, on top
# of tests/lib.sh: compilers.sh (make test-compilers), kernel.sh (make
# test-kernel-gcc14) and bench/compilers.sh (make bench-compilers) build
# in them.  Each suite's chroot is made by mmdebstrap from the Debian
# archive this machine's own apt sources name (read here, never written
# in the tree) and kept as a tarball in $cache, named by the suite and a
# digest of what went into it: a second run unpacks it in seconds, and a
# changed package list makes a new one (rm the folder to take a newer
# testing suite).  The sourcing script sets cache and uri (archive_uri)
# and has a scratch folder, $W, for mmdebstrap's log.  A benchmark
# sources tests/lib.sh itself first (from bench/, ../lib.sh is not it).
[ -n "${top:-}" ] || . "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: chroot and mount"
command -v mmdebstrap >/dev/null || skip "no mmdebstrap (make deps installs it)"
cache=${COMPILERS_CACHE:-$HOME/.cache/repstos/compilers}

# The Debian archive this machine installs from: the first "deb" entry
# not of the security archive, in sources.list or a deb822 .sources file.
archive_uri() {
	{ [ -r /etc/apt/sources.list ] &&
		awk '$1 == "deb" { for (i = 2; i <= NF; i++)
			if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }' \
			/etc/apt/sources.list
	  for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'function end() { if (deb && on && uri != "") print uri
				deb = 0; on = 1; uri = "" }
			BEGIN { on = 1 }
			/^#/ { next }
			/^[ \t]*$/ { end(); next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "enabled:" && tolower($2) == "no" { on = 0 }
			END { end() }' "$f"
	  done; } | grep -v -- '-security' | head -n 1
}

# The chroots: each SUITE's GCC majors (the first the newest, its
# default gcc), the packages mmdebstrap adds, and an apt option.
# Debian 13's also has what a kernel build needs beside those (flex,
# bison, bc, cpio, perl; libelf-dev is common): kernel.sh builds the
# 6.12 test kernel with its GCC 14.
common="make,libelf-dev,libdw-dev,libcapstone-dev,pkg-config,python3,binutils,file"
kbuild="flex,bison,bc,cpio,perl"
suite_gccs() {
	case $1 in
	trixie)	echo 14 ;;
	forky)	echo 16 15 ;;
	esac
}
suite_pkgs() {
	case $1 in
	trixie)	echo "gcc,g++,gcc-14-plugin-dev,$common,$kbuild" ;;
	forky)	echo "gcc,g++,gcc-16-plugin-dev,gcc-15,g++-15,gcc-15-plugin-dev,$common" ;;
	esac
}
suite_aptopt() {
	# testing's Release file in this archive is past its Valid-Until
	case $1 in
	forky)	echo 'Acquire::Check-Valid-Until "false"' ;;
	esac
}

# chroot_tar SUITE: the cached tarball of SUITE's chroot, made first if
# missing; its path on stdout.
chroot_tar() {
	pkgs=$(suite_pkgs $1) opt=$(suite_aptopt $1)
	tar=$cache/$1-$(echo "$1 $pkgs $opt" | sha256sum | cut -c1-12).tar
	if [ ! -s "$tar" ]; then
		rm -f "$cache/$1"-*.tar
		t0=$(date +%s)
		if taskset -c 0 mmdebstrap --variant=apt --format=tar ${opt:+"--aptopt=$opt"} \
			--include="$pkgs" $1 "$tar.tmp" "$uri" \
			>"$W/mmdebstrap-$1.log" 2>&1; then
			mv "$tar.tmp" "$tar"
		else
			rm -f "$tar.tmp"
			echo "mmdebstrap $1: $(tail -n 3 "$W/mmdebstrap-$1.log")" >&2
			return 1
		fi
		echo "made the $1 chroot in $(( $(date +%s) - t0 )) s: $tar" >&2
	fi
	echo "$tar"
}

# The tree as it is: tracked and new files, not build output.
copy_tree() {
	mkdir -p "$1" &&
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf - | tar -xf - -C "$1"
}

mounted=""
unmount_all() {
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		if grep -q " $m " /proc/mounts; then
			# never let the scratch folder's removal walk into it
			echo "FAIL: $m is still mounted"
			fails=$((fails + 1))
		fi
	done
}
at_exit unmount_all

# in_chroot ROOT CMD...: CMD in ROOT, on CPU 0, with a clean environment
in_chroot() {
	r=$1; shift
	taskset -c 0 chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 TEST_JOBS=1 "$@"
}


# enter_suite SUITE ROOT: SUITE's chroot unpacked at ROOT with /proc
# mounted (vector.sh reads cpuinfo; ASan needs it); fails saying why.
enter_suite() {
	local tar
	tar=$(chroot_tar $1) || { fail "$1: no chroot"; return 1; }
	mkdir -p $2 && tar -xf "$tar" -C $2 || { fail "$1: cannot unpack $tar"; return 1; }
	mount -t proc proc $2/proc || { fail "$1: cannot mount /proc"; return 1; }
	mounted="$mounted $2/proc"
}

# bind_into ROOT DIR PATH: DIR of the machine seen at ROOT/PATH
# (unmounted at exit, or by leave_suite).
bind_into() {
	mkdir -p "$1$3" && mount --bind "$2" "$1$3" ||
		{ fail "cannot bind $2 into $1$3"; return 1; }
	mounted="$1$3 $mounted"
}

# leave_suite ROOT: what was mounted under ROOT unmounted, and ROOT
# removed (kept with KEEP=1).
leave_suite() {
	local m left=""
	for m in $mounted; do
		case $m in
		"$1"/*)	umount "$m" || umount -l "$m" ;;
		*)	left="$left $m" ;;
		esac
	done
	mounted=$left
	grep -q " $1/" /proc/mounts && { fail "$1: something is still mounted"; return 1; }
	[ "${KEEP:-0}" = 1 ] || rm -rf "$1"
}
