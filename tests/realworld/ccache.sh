#!/bin/sh
# Proves: repstos-cc behind ccache rebuilds with hits and identical
# objects that keep their sites, and misses when a plugin option or the
# plugin file changes as ccache's compiler_check sees it.
# SPDX-License-Identifier: MIT
#
# repstos-cc with REPSTOS_CC="ccache gcc" (and, in 8, ccache in front).
# A three-file project with a Makefile, built again and again with its
# own cache (CCACHE_DIR in a temporary folder, no system configuration),
# the hits and misses of each build read from `ccache --print-stats`:
#   1. first build: 3 misses;
#   2. same build again: 3 hits, objects byte-identical to the first and
#      to a build without ccache, sites in them, the program correct;
#   3. with -fplugin-arg-repstos-min-const=64: 3 misses (and the 256-byte
#      constant memset becomes a site, so the option did change output);
#   4. repstos-cc and the plugin copied elsewhere with `cp -p` (same
#      bytes, size and mtime): 3 hits (ccache hashes the file that
#      -fplugin= names, not its path), though with -g GCC writes that
#      path into DW_AT_producer: the hits carry the first path;
#   5. that plugin copy with a byte appended: 3 misses, objects as built
#      through the copy without ccache;
#   6. one byte of it changed but size and mtime kept: 3 hits: under the
#      default compiler_check=mtime ccache does not read the plugin, so a
#      rebuilt plugin of the same size with a restored mtime is not seen;
#   7. CCACHE_COMPILERCHECK=content: the same change misses;
#   8. ccache in front of repstos-cc (CC="ccache repstos-cc") instead:
#      a plugin with a byte appended hits, stale: ccache never sees it.
# repstos-cc(1) documents what 6 and 7 mean for users.
. "$(dirname "$0")/lib.sh"
serialize ccache

# `make deps` installs ccache (tests/realworld/test.mk): missing is a failure.
command -v ccache >/dev/null || { fail "no ccache (Debian package ccache; make deps installs it)"; finish; }
ccache --print-stats >/dev/null 2>&1 ||
	{ fail "ccache $(ccache --version | head -n 1) has no --print-stats (4.7 or newer needed)"; finish; }

# The project in $W/src, the cache and the plugin's copies in $T.
scratch
T=$W/t
mkdir -p "$W/src" "$T" || exit 1

# Only this test's settings: no CCACHE_* from the caller (CCACHE_PREFIX,
# CCACHE_DISABLE, CCACHE_RECACHE... would change what is measured), no
# system or user configuration file, temporary files in our folder.
for v in $(env | sed -n 's/^\(CCACHE_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export CCACHE_DIR="$T/cache" CCACHE_CONFIGPATH="$T/ccache.conf" \
	CCACHE_TEMPDIR="$T/cache/tmp" CCACHE_LOGFILE="$W/ccache.log"
: >"$CCACHE_CONFIGPATH"
export REPSTOS_CC="ccache gcc"

# ---- the project -----------------------------------------------------------
write_small_project "$W/src" || { fail "cannot write the project"; finish; }
cd "$W/src" || exit 1
OBJS=$SMALL_OBJS
NOBJ=$SMALL_NOBJ
WANT=$SMALL_WANT

# ---- helpers ----------------------------------------------------------------
# One counter of `ccache --print-stats` (tab-separated "name value").
stat_of() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2; n++ } END { if (!n) print 0 }'; }

# build LABEL CC [make arguments]: zero the counters, remove the outputs,
# build with make CC=CC, then read hits and misses.  Returns 1 on failure.
build() {
	label=$1 ccw=$2; shift 2
	ccache -z >/dev/null
	rm -f $OBJS prog
	if ! make -s CC="$ccw" "$@" >"$W/make-$label.log" 2>&1; then
		fail "$label: make failed: $(head -n 4 "$W/make-$label.log")"
		return 1
	fi
	hits=$(( $(stat_of direct_cache_hit) + $(stat_of preprocessed_cache_hit) ))
	misses=$(stat_of cache_miss)
	return 0
}

# expect LABEL HITS MISSES WHY: the last build's counts.
expect() {
	if [ "$hits" -eq "$2" ] && [ "$misses" -eq "$3" ]; then
		ok "$1: $hits hits, $misses misses ($4)"
		return 0
	fi
	fail "$1: $hits hits, $misses misses; want $2 hits, $3 misses ($4)"
	ccache --print-stats | awk '$2 != 0 && $1 !~ /timestamp|size|files_in/' | sed 's/^/    /'
	return 1
}

# same_as DIR LABEL: the objects just built are byte-identical to DIR's.
same_as() {
	for o in $OBJS; do
		cmp -s "$o" "$1/$o" || { fail "$2: $o differs from $1/$o"; return 1; }
	done
	return 0
}

# Sites per object, "main.o:N fill.o:N wipe.o:N"; every object and the
# program pass `repstos check`, fill.o and wipe.o have sites (variable
# sizes always become sites), and the program prints $WANT.
checked() {
	for f in $OBJS prog; do
		"$TOOL" check "$f" >"$W/check.out" 2>&1 ||
			{ fail "$1: repstos check $f: $(head -n 3 "$W/check.out")"; return 1; }
	done
	for o in fill.o wipe.o; do
		[ "$(sites $o)" -gt 0 ] || { fail "$1: no sites in $o"; return 1; }
	done
	got=$(./prog 2>&1)
	[ "$got" = "$WANT" ] || { fail "$1: ./prog printed '$got', want '$WANT'"; return 1; }
	site_counts="main.o:$(sites main.o) fill.o:$(sites fill.o) wipe.o:$(sites wipe.o)"
	return 0
}

save() { rm -rf "$1" && mkdir -p "$1" && cp $OBJS "$1/"; }


# ---- 1, 2: a rebuild is all hits, with the same objects ------------------------
# The reference: the same build without ccache.
rm -f $OBJS prog
REPSTOS_CC=gcc make -s CC="$RCC" >"$W/make-plain.log" 2>&1 ||
	{ fail "build without ccache: $(head -n 4 "$W/make-plain.log")"; finish; }
save "$W/plain"

build first "$RCC" && expect "first build" 0 $NOBJ "empty cache" &&
	same_as "$W/plain" "first build" && checked "first build" &&
	ok "first build: objects as without ccache; sites $site_counts; ./prog correct"
save "$W/first"
first_counts=$site_counts

build second "$RCC" && expect "second build" $NOBJ 0 "nothing changed" &&
	same_as "$W/first" "second build" && checked "second build" &&
	ok "second build: objects byte-identical to the first; sites $site_counts; ./prog correct"

# ---- 3: a plugin option is part of the key ----------------------------------
build option "$RCC" CFLAGS="-O2 -g -fplugin-arg-repstos-min-const=64" &&
	expect "min-const=64" 0 $NOBJ "a plugin option changed" && checked "min-const=64" &&
	if [ "$(sites wipe.o)" -eq $(( $(sites "$W/first/wipe.o") + 1 )) ]; then
		ok "min-const=64: the 256-byte memset became a site ($site_counts; before: $first_counts)"
	else
		fail "min-const=64: wipe.o has $(sites wipe.o) sites, want $(( $(sites "$W/first/wipe.o") + 1 ))"
	fi

# ---- 4-7: the plugin file ------------------------------------------------------
# repstos-cc always names its own neighbour, plugin/repstos.so: a copy of
# the script with its plugin (and the runtime, for the link) is how a
# different plugin file is used, as an installation elsewhere would.
I=$T/inst
mkdir -p "$I/plugin" "$I/runtime"
cp -p "$RCC" "$top/plugin/repstos.so" "$I/plugin/" &&
	cp -p "$top/runtime/librepstos.a" "$I/runtime/" || { fail "cannot copy the plugin"; finish; }
ICCW=$I/plugin/repstos-cc
IPLUGIN=$I/plugin/repstos.so

# With -g, GCC records its options, -fplugin=PATH included, in each
# object's DW_AT_producer: a build through the copy differs from the
# first in that string only.
rm -f $OBJS prog
REPSTOS_CC=gcc make -s CC="$ICCW" >"$W/make-plain-copy.log" 2>&1 ||
	{ fail "build through the copy without ccache: $(head -n 4 "$W/make-plain-copy.log")"; finish; }
save "$W/plain-copy"
producer() { readelf --debug-dump=info "$1" 2>/dev/null | grep -m 1 DW_AT_producer; }
for o in $OBJS; do
	objcopy --strip-debug "$o" "$T/a.o" && objcopy --strip-debug "$W/plain/$o" "$T/b.o" &&
		cmp -s "$T/a.o" "$T/b.o" || fail "copy without ccache: $o differs from the first build beyond its debug info"
done
case $(producer main.o) in
*"-fplugin=$IPLUGIN "*) ok "plugin copy, no ccache: same code; DW_AT_producer names the copy's path" ;;
*) fail "plugin copy, no ccache: DW_AT_producer does not name $IPLUGIN: $(producer main.o)" ;;
esac

# Through ccache the copy hits the first build's results, debug info and
# all: their DW_AT_producer names the tree's plugin, not the copy.
build copy "$ICCW" && expect "plugin copied with cp -p" $NOBJ 0 \
	"same size and mtime at another path: the path is not hashed" &&
	same_as "$W/first" "plugin copy" &&
	case $(producer main.o) in
	*"-fplugin=$top/plugin/repstos.so "*)
		ok "plugin copy: the objects are the first build's; DW_AT_producer names $top/plugin/repstos.so" ;;
	*)	fail "plugin copy: DW_AT_producer: $(producer main.o)" ;;
	esac

printf 'A' >>"$IPLUGIN"
build appended "$ICCW" && expect "plugin with a byte appended" 0 $NOBJ "the plugin file changed" &&
	same_as "$W/plain-copy" "plugin with a byte appended" && checked "plugin with a byte appended" &&
	ok "plugin with a byte appended: recompiled, objects as without ccache, sites $site_counts"

# Same size, same mtime, other bytes: what a rebuilt plugin restored with
# `cp -p`/`touch -r` (or a package whose files keep the build's mtime) can
# look like.  The last byte is the one appended above: GCC loads it the same.
touch -r "$IPLUGIN" "$T/stamp"
same_size() {
	sz=$(stat -c %s "$IPLUGIN")
	head -c $((sz - 1)) "$IPLUGIN" >"$T/p" && printf '%s' "$1" >>"$T/p" &&
		cat "$T/p" >"$IPLUGIN" && touch -r "$T/stamp" "$IPLUGIN" &&
		[ "$(stat -c %s "$IPLUGIN")" -eq "$sz" ]
}
same_size B || { fail "cannot rewrite the plugin copy"; finish; }
# A hit here is ccache's documented behaviour, which repstos-cc(1) warns
# about: should a later ccache read the plugin's bytes in this mode too,
# this fails and the man page needs updating.
build mtime "$ICCW" && expect "compiler_check=mtime, plugin changed, same size and mtime" $NOBJ 0 \
	"ccache hashes only the plugin's size and mtime: the change is not seen"

export CCACHE_COMPILERCHECK=content
build content1 "$ICCW" && expect "compiler_check=content, first" 0 $NOBJ "another hashing mode: new keys"
build content2 "$ICCW" && expect "compiler_check=content, again" $NOBJ 0 "nothing changed"
same_size C || { fail "cannot rewrite the plugin copy"; finish; }
build content3 "$ICCW" && expect "compiler_check=content, plugin changed, same size and mtime" 0 $NOBJ \
	"the plugin's bytes are hashed"
unset CCACHE_COMPILERCHECK

# ---- 8: ccache in front of repstos-cc does not see the plugin -----------------
# CC="ccache repstos-cc": the compiler ccache hashes is the script, and
# -fplugin= is not on ccache's command line: a new plugin is not seen.
REPSTOS_CC=gcc
build wrapped1 "ccache $ICCW" && expect "ccache repstos-cc, first" 0 $NOBJ "new keys"
printf 'D' >>"$IPLUGIN"
build wrapped2 "ccache $ICCW" && expect "ccache repstos-cc, plugin changed" $NOBJ 0 \
	"ccache hashed the script, not the plugin: stale results; hence REPSTOS_CC=\"ccache gcc\""
REPSTOS_CC="ccache gcc"

finish
