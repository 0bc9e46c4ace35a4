# tests/realworld/lib.sh - what the real-world tests alone need, on top
# of tests/lib.sh (TOOL, RCC, scratch...): a clean environment, one run
# at a time, Debian source packages (cached in $RW, which outlives every
# test: no scratch folder), two small C projects, zlib's and lz4's
# builds, and the sites of a file by op.  bench/macro.sh sources it too,
# from the top of the tree, for fetch_source.

# tests/lib.sh: beside this folder for the tests; from the top of the
# tree for a benchmark, whose own ../lib.sh may be another file.
if [ -f "$(dirname "$0")/../realworld/lib.sh" ]; then
	. "$(dirname "$0")/../lib.sh"
else
	. ./tests/lib.sh
fi
RW=$top/build/realworld
apt_etc=/etc/apt

# These tests run make and configure scripts of their own: none of the
# outer make's flags or command-line variables (CC=..., -s, -j) may leak
# into them through the environment.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL GNUMAKEFLAGS \
	CFLAGS CPPFLAGS LDFLAGS LIBS CC REPSTOS_CC REPSTOS_VARIANT \
	REPSTOS_PATCH REPSTOS_DEBUG

# Two runs of one test in one tree (two `make test` at once) would build
# in the same directories: the second waits for the first.
serialize() {
	mkdir -p "$top/build/tests/realworld" &&
		exec 9>"$top/build/tests/realworld/$1.lock" &&
		flock 9
}

# Seconds since the epoch, for the step timings.
now() { date +%s; }

# The ELF executables and shared objects (not objects, not scripts)
# under a directory, one a line.
linked_elf_files() {
	find "$1" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) |
	sort | while read -r f; do
		case $(readelf -h "$f" 2>/dev/null | awk '$1 == "Type:" { print $2 }') in
		EXEC|DYN) echo "$f" ;;
		esac
	done
}

# The machine's own Debian archive, from its apt sources ($apt_etc: a
# test gives another folder): "URI KEY" of
# the first entry of type deb for this release (KEY: its signed-by file,
# or - when it names none), one-line or deb822.  Nothing when there is
# none.
debian_archive() {
	awk -v rel="$1" '
		function entry(types, uris, suites, key) {
			if (found || (" " types " ") !~ / deb / ||
			    (" " suites " ") !~ (" " rel " "))
				return
			split(uris, u, " ")
			print u[1], (key ~ /^\// ? key : "-")
			found = 1
		}
		FNR == 1 { entry(pt, pu, ps, pk); pt = pu = ps = pk = "" }
		FILENAME ~ /\.list$/ && $1 == "deb" {
			opt = ""; i = 2
			if ($2 ~ /^\[/) {
				while (i <= NF && $i !~ /\]$/) { opt = opt " " $i; i++ }
				opt = opt " " $i; i++
			}
			key = opt ~ /signed-by=/ ? opt : ""
			sub(/.*signed-by=/, "", key); sub(/[] ].*/, "", key)
			entry("deb", $i, $(i + 1), key)
			next
		}
		FILENAME ~ /\.sources$/ {
			if (/^[ \t]*$/) {
				entry(pt, pu, ps, pk); pt = pu = ps = pk = ""
			}
			if (/^[^ \t#]/) {
				f = tolower($1); v = $0; sub(/^[^:]*:[ \t]*/, "", v)
				if (f == "types:") pt = v
				else if (f == "uris:") pu = v
				else if (f == "suites:") ps = v
				else if (f == "signed-by:") pk = v
			}
		}
		END { entry(pt, pu, ps, pk) }' \
		$(ls "$apt_etc/sources.list" "$apt_etc"/sources.list.d/*.list \
			"$apt_etc"/sources.list.d/*.sources 2>/dev/null)
}

# apt-get with a configuration of our own under $RW/apt: its sources
# (deb-src of the machine's Debian archive), package lists and cache.
# The machine's apt configuration is read, never written.
private_apt() {
	apt-get -o Dir::Etc::SourceList="$RW/apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$RW/apt/lists" \
		-o Dir::Cache="$RW/apt/cache" "$@"
}

# The private configuration's sources, and its lists on first use: 0,
# or 1 with the reason on stderr.
private_apt_setup() {
	local rel archive uri key opt
	[ -s "$RW/apt/sources.list" ] && [ -n "$(ls "$RW/apt/lists" 2>/dev/null)" ] &&
		return 0
	rel=$(. /etc/os-release 2>/dev/null; echo "$VERSION_CODENAME")
	[ -n "$rel" ] || { echo "no VERSION_CODENAME in /etc/os-release" >&2; return 1; }
	archive=$(debian_archive "$rel")
	[ -n "$archive" ] ||
		{ echo "no Debian archive for $rel in this machine's apt sources" >&2; return 1; }
	uri=${archive% *} key=${archive#* }
	mkdir -p "$RW/apt/lists/partial" "$RW/apt/cache/archives/partial" || return 1
	opt=
	[ "$key" = - ] || opt="[signed-by=$key] "
	printf 'deb-src %s%s %s main\ndeb-src %s%s %s-updates main\n' \
		"$opt" "$uri" "$rel" "$opt" "$uri" "$rel" >"$RW/apt/sources.list" &&
		echo "deb-src of this machine's Debian archive ($rel), in $RW/apt" >&2 &&
		private_apt update -qq >"$RW/apt/update.log" 2>&1 ||
		{ echo "apt-get update failed (no network?): $(grep -E '^(E|W):' "$RW/apt/update.log" | head -n 1)" >&2; return 1; }
}

# Unpack the source package $1 under $RW (cached there: a second run
# fetches nothing), through the private apt configuration above.
# Prints the source directory; returns 1 with the reason on stderr when
# apt cannot fetch it.
fetch_source() {
	pkg=$1
	dir=$(ls -d "$RW/$pkg"-[0-9]*/ 2>/dev/null | head -n 1)
	if [ -n "$dir" ]; then echo "${dir%/}"; return 0; fi
	command -v apt-get >/dev/null || { echo "no apt-get on this machine" >&2; return 1; }
	command -v dpkg-source >/dev/null ||
		{ echo "no dpkg-source (package dpkg-dev) to unpack $pkg" >&2; return 1; }
	mkdir -p "$RW" && private_apt_setup || return 1
	log=$RW/fetch-$pkg.log
	if ! (cd "$RW" && private_apt source -qq "$pkg") >"$log" 2>&1; then
		# The package lists may be stale: refresh once and retry.
		private_apt update -qq >/dev/null 2>&1
		(cd "$RW" && private_apt source -qq "$pkg") >"$log" 2>&1 ||
			{ echo "apt-get source $pkg failed: $(grep -E '^(E|W):' "$log" | head -n 1)" >&2; return 1; }
	fi
	dir=$(ls -d "$RW/$pkg"-[0-9]*/ 2>/dev/null | head -n 1)
	[ -n "$dir" ] || { echo "apt-get source $pkg unpacked nothing under $RW" >&2; return 1; }
	echo "${dir%/}"
}

# A small C project outside the tree, in directory $1: clear.c holds
# variable-size memsets (they become sites), main.c checks every byte
# they write and the guard bytes around, over many sizes and alignments,
# and prints $want.  Built with -DHAND, main.c also clears a buffer
# with REPSTOS_CLEAR from <repstos.h>.
write_project() {
	(cd "$1" || exit 1
	cat >clear.c <<'EOF'
#include <string.h>
#include <stddef.h>
void fill(unsigned char *p, int c, size_t n) { memset(p, c, n); }
void zero(void *p, size_t n) { memset(p, 0, n); }
EOF
	cat >main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
void fill(unsigned char *p, int c, size_t n);
void zero(void *p, size_t n);
#ifdef HAND
/* A hand-written clearing site from the installed header. */
#include <repstos.h>
static int hand(void)
{
	static unsigned char key[333];
	volatile size_t n = sizeof key;
	size_t i;
	for (i = 0; i < sizeof key; i++) key[i] = 0x5a;
	REPSTOS_CLEAR(key, n);
	for (i = 0; i < sizeof key; i++) if (key[i]) return 1;
	return 0;
}
#else
static int hand(void) { return 0; }
#endif
/* Every size up to 300 and a few large ones, at 8 alignments: the bytes
   written hold the value and the guards either side are untouched. */
int main(void)
{
	static const size_t big[] = { 511, 1024, 2049, 4096, 65537, 1 << 20 };
	size_t max = (1 << 20) + 64, n, i, k;
	unsigned char *buf = malloc(max);
	int off, bad = 0, runs = 0;
	if (!buf) return 2;
	for (k = 0; k < 301 + sizeof big / sizeof big[0]; k++) {
		n = k < 301 ? k : big[k - 301];
		for (off = 0; off < 8; off++) {
			for (i = 0; i < n + 32; i++) buf[i] = 0xee;
			fill(buf + 16 + off, (int)(k & 0xff) | 0x100, n);
			for (i = 0; i < n + 32; i++) {
				int in = i >= 16 + (size_t)off && i < 16 + off + n;
				if (buf[i] != (in ? (unsigned char)k : 0xee)) bad++;
			}
			zero(buf + 16 + off, n);
			for (i = 16 + off; i < 16 + off + n; i++) if (buf[i]) bad++;
			runs++;
		}
	}
	free(buf);
	bad += hand();
	if (bad) { printf("bad %d\n", bad); return 1; }
	printf("ok %d\n", runs);
	return 0;
}
EOF
	)
	want="ok 2456"
}

# The flags each package builds with by default (zlib's configure: -O3;
# Debian's lz4 Makefiles: -O2 -g), so a build given them plus plugin
# options differs from the package's own build by those options only.
ZLIB_CFLAGS="-O3"
LZ4_CFLAGS="-O2 -g"
# What turns copy sites on, as a user passes it (repstos-cc(1)).
COPY_OPT=-fplugin-arg-repstos-copy

# zlib_build DIR SRC CC CFLAGS: a fresh copy of zlib's source SRC in DIR,
# ./configure'd with CC and CFLAGS and made (libz.a, libz.so, example,
# minigzip and their shared and 64-bit twins).  Logs in DIR; on failure
# prints the step that failed and returns 1.
zlib_build() {
	rm -rf "$1" && cp -r "$2" "$1" || { echo "copy $2"; return 1; }
	(cd "$1" && CC=$3 CFLAGS=$4 ./configure) >"$1/configure.log" 2>&1 ||
		{ echo "CC=$3 CFLAGS='$4' ./configure"; return 1; }
	make -C "$1" -j2 >"$1/build.log" 2>&1 || { echo "make"; return 1; }
}

# lz4_build DIR SRC CC CFLAGS: the same for lz4 (liblz4.a, liblz4.so,
# the lz4 CLI); CFLAGS through the environment, so that the Makefiles'
# own `CFLAGS +=` still apply, and so to the tests/ Makefile later.
lz4_build() {
	rm -rf "$1" && cp -r "$2" "$1" || { echo "copy $2"; return 1; }
	env CFLAGS="$4" make -C "$1" -j2 CC="$3" >"$1/build.log" 2>&1 ||
		{ echo "make CC=$3 CFLAGS='$4'"; return 1; }
}

# op_counts FILE: the sites of FILE's table by op, as `repstos dump
# --stats` counts them: "memset N zero N clear N copy N move N move_fwd N"
# (all 0 when it has no table).
op_counts() {
	c=$("$TOOL" dump --stats "$1" 2>/dev/null |
		sed -n 's/^op: //p' | head -n 1)
	echo "${c:-memset 0 zero 0 clear 0 copy 0 move 0 move_fwd 0}"
}
# op_count FILE OP: one of those numbers.
op_count() { op_counts "$1" | awk -v op="$2" '{ for (i = 1; i < NF; i += 2) if ($i == op) print $(i + 1) }'; }

# The small project the build-farm tests (ccache.sh, distcc.sh) build.
# write_small_project DIR: three C files and a Makefile in DIR.  fill.c
# and wipe.c hold a variable-size memset and a bzero (sites at any
# setting) and a 256-byte constant memset (a site only with
# -fplugin-arg-repstos-min-const=N, N <= 256: GCC 12 expands it inline);
# main.c checks every byte they write and prints $SMALL_WANT.  The
# Makefile takes CC and CFLAGS (default -O2 -g) and links ./prog.

SMALL_OBJS="main.o fill.o wipe.o"
SMALL_NOBJ=3
SMALL_WANT="ok 316"

write_small_project() {
	(cd "$1" || exit 1
cat >fill.c <<'EOF'
#include <string.h>
#include <stddef.h>
void fill(unsigned char *p, int c, size_t n) { memset(p, c, n); }
EOF
cat >wipe.c <<'EOF'
#include <string.h>
#include <strings.h>
#include <stddef.h>
struct rec { unsigned char b[256]; };
void wipe(void *p, size_t n) { bzero(p, n); }
/* A constant size: GCC 12 expands it inline, so it is a site only with
   -fplugin-arg-repstos-min-const=N for N <= 256. */
void reset(struct rec *r) { memset(r, 0, sizeof *r); }
EOF
cat >main.c <<'EOF'
#include <stdio.h>
#include <stddef.h>
struct rec { unsigned char b[256]; };
void fill(unsigned char *p, int c, size_t n);
void wipe(void *p, size_t n);
void reset(struct rec *r);
int main(void)
{
	static unsigned char buf[4096 + 32];
	struct rec r;
	size_t n, i;
	int bad = 0, runs = 0;
	for (n = 0; n <= 4096; n += 13, runs++) {
		for (i = 0; i < sizeof buf; i++) buf[i] = 0xee;
		fill(buf + 16, (int)(n & 0x7f) + 1, n);
		for (i = 0; i < sizeof buf; i++)
			if (buf[i] != (i >= 16 && i < 16 + n ? (n & 0x7f) + 1 : 0xee)) bad++;
		wipe(buf + 16, n);
		for (i = 16; i < 16 + n; i++) if (buf[i]) bad++;
	}
	for (i = 0; i < sizeof r.b; i++) r.b[i] = 1;
	reset(&r);
	for (i = 0; i < sizeof r.b; i++) if (r.b[i]) bad++;
	if (bad) { printf("bad %d\n", bad); return 1; }
	printf("ok %d\n", runs);
	return 0;
}
EOF
cat >Makefile <<'EOF'
CFLAGS = -O2 -g
OBJS = main.o fill.o wipe.o
prog: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS)
%.o: %.c
	$(CC) $(CFLAGS) -c -o $@ $<
EOF
	)
}

# ---- a source package built here and tested as another user --------------
# The user a suite runs as when this runs as root: as root, permissions
# stop no write, and the tests that count on them fail or skip.
TUSER=nobody

# as_user CMD...: CMD as $TUSER when this runs as root, with HOME the
# build folder $b and PATH the directories $TUSER can search (UPATH,
# set by user_source); as it is otherwise.
as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$TUSER" --regid="$(id -g "$TUSER")" --clear-groups \
			env HOME="$b" PATH="${UPATH:-$PATH}" "$@"
	else
		"$@"
	fi
}

# user_source PACKAGE FILE: PACKAGE's source fetched (cached in $RW;
# skip, with apt's reason, when it cannot be) into $src, and the
# scratch folder $W (also $b) made where $TUSER can reach it.  That is
# in the tree, or else under /var/tmp (the builds are big: /tmp may be a
# small tmpfs) where the user cannot reach the tree (a clone under
# /root); the suite reads its scripts from the source, so then a copy
# of the source goes there too.  FILE, a file of the source, is what
# $TUSER must read.  Sets t0, the time the test started.
user_source() {
	id "$TUSER" >/dev/null 2>&1 || { echo "FAIL: no user $TUSER"; exit 1; }
	# root's PATH may start with /root/...: a command looked up there
	# fails with EACCES, 126, where a test expects 127.
	UPATH=$(echo "$PATH" | tr : '\n' | while read -r d; do
		as_user test -x "$d/." 2>/dev/null && printf '%s:' "$d"; done)
	UPATH=${UPATH%:}

	t0=$(now)
	mkdir -p "$RW" || exit 1
	src=$(fetch_source "$1" 2>"$RW/why-$1")
	rc=$?
	cat "$RW/why-$1"
	[ $rc -eq 0 ] || skip "cannot fetch the $1 source package: $(tail -n 1 "$RW/why-$1")"
	ver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version 2>/dev/null)
	echo "source (cached in $RW): $(basename "$src"), Debian $ver ($(($(now) - t0)) s)"

	mkdir -p "$top/$BUILT" || exit 1
	if as_user test -x "$top/$BUILT" && as_user test -r "$src/$2"; then
		scratch
	else
		TMPDIR=/var/tmp scratch -o
		note "$TUSER cannot read $src: building under $W"
		cp -r "$src" "$W/$1-src" && chmod -R a+rX "$W/$1-src" ||
			{ echo "FAIL: cannot copy the source to $W"; exit 1; }
		src=$W/$1-src
	fi
	b=$W
}

# Show the end of a log after a failed step.
tail_log() { tail -n 15 "$1" | sed 's/^/    /'; }
