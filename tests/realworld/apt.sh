#!/bin/sh
# Proves: fetch_source fetches through an apt configuration of its own, built from the machine's Debian entry, and never writes the machine's.
# tests/realworld/lib.sh's fetch_source, given a machine's apt sources
# made here ($apt_etc: one deb822 entry of an archive of a made-up name)
# and an apt-get that only notes how it was called: every call must name
# the private sources, lists and cache under $RW/apt, with no source
# part of the machine's; the private sources must be deb-src of that
# entry's URI and key for this release; the made apt folder must be as
# it was.  No network: nothing is fetched.
. "$(dirname "$0")/lib.sh"
scratch

rel=$(. /etc/os-release 2>/dev/null; echo "$VERSION_CODENAME")
[ -n "$rel" ] || skip "no VERSION_CODENAME in /etc/os-release"
command -v dpkg-source >/dev/null || skip "no dpkg-source (package dpkg-dev)"

apt_etc=$W/etc/apt
mkdir -p "$apt_etc/sources.list.d" "$W/bin"
cat >"$apt_etc/sources.list.d/debian.sources" <<EOF2
Types: deb
URIs: http://archive.invalid/debian
Suites: $rel $rel-updates
Components: main
Signed-By: /usr/share/keyrings/made-up.gpg

Types: deb
URIs: http://security.invalid/debian-security
Suites: $rel-security
Components: main
EOF2
echo 'deb http://other.invalid/x other main' >"$apt_etc/sources.list.d/other.list"
before=$(cd "$W/etc" && find . -exec ls -ld --time-style=full-iso {} + | md5sum)

# apt-get: notes its arguments; "source P" unpacks an empty P-1.0.
cat >"$W/bin/apt-get" <<EOF2
#!/bin/sh
echo "\$*" >>"$W/calls"
for a; do last=\$a; done
case " \$* " in
*" source "*) mkdir "\$last-1.0" ;;
esac
exit 0
EOF2
chmod +x "$W/bin/apt-get"
PATH=$W/bin:$PATH
RW=$W/rw

dir=$(fetch_source madeup 2>"$W/why")
[ "$dir" = "$RW/madeup-1.0" ] && ok "fetch_source: $dir" ||
	fail "fetch_source: '$dir': $(cat "$W/why")"
want="deb-src [signed-by=/usr/share/keyrings/made-up.gpg] http://archive.invalid/debian $rel main
deb-src [signed-by=/usr/share/keyrings/made-up.gpg] http://archive.invalid/debian $rel-updates main"
[ "$(cat "$RW/apt/sources.list" 2>/dev/null)" = "$want" ] &&
	ok "the private sources: deb-src of the machine's entry for $rel" ||
	fail "the private sources: $(cat "$RW/apt/sources.list" 2>&1)"
n=$(wc -l <"$W/calls" 2>/dev/null || echo 0)
private=$(grep -c -e "-o Dir::Etc::SourceList=$RW/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$RW/apt/lists -o Dir::Cache=$RW/apt/cache " "$W/calls" 2>/dev/null)
[ "$n" -ge 2 ] && [ "$private" = "$n" ] &&
	ok "each of the $n apt-get calls (update, source) with the private configuration" ||
	fail "$private of $n apt-get calls with the private configuration: $(cat "$W/calls" 2>&1)"
[ "$(cd "$W/etc" && find . -exec ls -ld --time-style=full-iso {} + | md5sum)" = "$before" ] &&
	ok "the machine's apt folder as it was" || fail "the machine's apt folder changed"
finish
