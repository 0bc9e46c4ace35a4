#!/bin/sh
# getdeb.sh VERSION - the path of Debian's linux-source-VERSION .deb,
# fetched with apt-get download once and kept in $REPSTOS_CACHE
# (~/.cache/repstos).  A version the machine's own apt sources do not
# have (7.3 is in Debian 13's backports) is fetched through a private
# apt configuration under the cache: one source that reuses the URI of
# the machine's Debian entry with the suites trixie and
# trixie-backports, so the machine's sources and lists stay as they are.
# Exit 3, with the reason on stderr, when it cannot be had.
set -eu
v=$1
cache=${REPSTOS_CACHE:-$HOME/.cache/repstos}
mkdir -p "$cache"

found() {
	deb=$(ls "$cache"/linux-source-"$v"_*_all.deb 2>/dev/null | tail -1)
	[ -n "$deb" ] && echo "$deb"
}

# The URI of the machine's main Debian archive: the first deb entry,
# deb822 or one-line, that is not the security archive.
debian_uri() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^Types:/ { deb = / deb( |$)/ } /^URIs:/ { u = $2 }
		     /^Suites:/ { s = $0 }
		     /^$/ { if (deb && u ~ /debian$/ && s !~ /security/) { print u; exit }
			    deb = 0; u = ""; s = "" }
		     END { if (deb && u ~ /debian$/ && s !~ /security/) print u }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $2 !~ /^\[/ && $2 ~ /debian$/ && $3 !~ /security/ { print $2 }'
}

# apt-get download through the private configuration, into the
# current folder.
private_download() {
	uri=$(debian_uri | head -1)
	[ -n "$uri" ] || { echo "getdeb.sh: no Debian archive in the apt sources" >&2; return 1; }
	apt=$cache/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	cat >"$apt/debian.sources" <<SRC
Types: deb
URIs: $uri
Suites: trixie trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	set -- -o Dir::Etc::SourceList="$apt/debian.sources" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
	apt-get "$@" update >&2 &&
		apt-get "$@" download linux-source-"$v" >&2
}

found && exit 0
# One download at a time, of any version (the private configuration's
# lists are shared), into a folder of its own, moved beside the others
# only when whole: two callers at once (make test runs two tests at a
# time) saw each other's half-written .deb and unpacked nothing.
exec 9>"$cache/.getdeb.lock"
flock 9
found && exit 0
dl=$(mktemp -d "$cache/download.XXXXXX")
chmod 755 "$dl"	# for apt's _apt user, which downloads
trap 'rm -rf "$dl"' EXIT
(cd "$dl" && { apt-get download linux-source-"$v" >&2 2>/dev/null ||
	private_download; }) || true
for f in "$dl"/linux-source-"$v"_*_all.deb; do
	[ -f "$f" ] && mv "$f" "$cache/"
done
found && exit 0
echo "getdeb.sh: cannot fetch linux-source-$v with apt-get download" >&2
exit 3
