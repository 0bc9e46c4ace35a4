# bench/real/build.sh - sourced, not run: build the real programs of
# bench/real/real.sh from Debian source packages, each three ways, into
# $BIN/PROG-KIND:
#
#   plain    gcc -O2 (no plugin, no runtime): the bar
#   repstos  plugin/repstos-cc -O2: repstos-cc's defaults, set sites only
#   copy     plugin/repstos-cc -O2 -fplugin-arg-repstos-copy: set and
#            copy sites
#
# and copy relinked with the full runtime (REPSTOS_RUNTIME=full: it
# records REPSTOS_PROFILE and reads REPSTOS_PROFILE_USE) as PROG-count,
# for the site-call counts and the profiled configuration.  The same
# objects as copy, so the counts are those of the binary timed.
# A binary already there is kept: delete $BIN to rebuild.
#
# Sh has no local variables: these functions set k, d, cc, fl, src,
# gen and zt, which the caller must not rely on.
# Needs: $top (the tree), $WORK, $BIN; fetch_source from
# tests/realworld/lib.sh (the one place that knows apt-get source).
# bench/macro.sh uses zstd_build too.

# kind_cc KIND, kind_flags KIND: the compiler and extra flags of a kind;
# REAL_CC (gcc unless given) is plain's compiler and repstos-cc's
# (REPSTOS_CC), clang-16 for the LLVM pass's builds.
kind_cc() { case $1 in plain) echo "${REAL_CC:-gcc}" ;; *) echo "$top/plugin/repstos-cc" ;; esac; }
kind_flags() { case $1 in copy) echo "-fplugin-arg-repstos-copy" ;; esac; }

# relink_full FILE: remove FILE, run the rest of the arguments (the
# command that links it) with REPSTOS_RUNTIME=full.
relink_full() {
	f=$1; shift
	rm -f "$f" && REPSTOS_RUNTIME=full "$@"
}

# zstd_build SRC DIR KIND [CFLAGS]: zstd's CLI (programs/, which
# compiles lib/ into it) in DIR, a fresh copy of SRC.  CFLAGS goes
# through the environment, so that the Makefiles' own `CFLAGS +=` still
# apply (none: zstd's default, -O3); the plugin option as MOREFLAGS,
# which they append.  Prints nothing on success, the failing step and
# the log's end otherwise.
zstd_build() {
	if [ -n "$4" ]; then set -- "$1" "$2" "$3" "CFLAGS=$4"
	else set -- "$1" "$2" "$3" "ZSTD_CFLAGS_DEFAULT=1"
	fi
	rm -rf "$2" && cp -r "$1" "$2" || return 1
	for zt in zstd-release zstd; do
		env "$4" make -C "$2/programs" -j2 CC="$(kind_cc $3)" \
			MOREFLAGS="$(kind_flags $3)" $zt >>"$2/build.log" 2>&1 && return 0
	done
	echo "zstd ($3): make failed"; tail -n 5 "$2/build.log"; return 1
}

# sqlite's speedtest1: the amalgamation is generated once (configure,
# make sqlite3.c: tclsh), then speedtest1.c and sqlite3.c are compiled as
# sqlite's Makefile does it (ST_OPT), once per kind.
build_sqlite() {
	src=$(fetch_source sqlite3) || return 1
	gen=$WORK/sqlite-gen
	if [ ! -f "$gen/sqlite3.c" ]; then
		rm -rf "$gen" && mkdir -p "$gen" &&
		(cd "$gen" && "$src/configure" && make sqlite3.c) >"$WORK/sqlite-gen.log" 2>&1 ||
			{ echo "sqlite: configure; make sqlite3.c failed (tclsh?)"; return 1; }
	fi
	for k in plain repstos copy; do
		[ -x "$BIN/speedtest1-$k" ] && continue
		d=$WORK/sqlite-$k && mkdir -p "$d" || return 1
		cc=$(kind_cc $k) fl="-O2 $(kind_flags $k) -DSQLITE_OS_KV_OPTIONAL -I$gen"
		$cc $fl -c -o "$d/speedtest1.o" "$src/test/speedtest1.c" &&
		$cc $fl -c -o "$d/sqlite3.o" "$gen/sqlite3.c" &&
		$cc -o "$d/speedtest1" "$d/speedtest1.o" "$d/sqlite3.o" -lm -lpthread -ldl ||
			{ echo "sqlite ($k): build failed"; return 1; }
		cp "$d/speedtest1" "$BIN/speedtest1-$k"
	done
	[ -x "$BIN/speedtest1-count" ] || {
		d=$WORK/sqlite-copy
		REPSTOS_RUNTIME=full "$(kind_cc copy)" -o "$BIN/speedtest1-count" \
			"$d/speedtest1.o" "$d/sqlite3.o" -lm -lpthread -ldl; }
}

build_zstd() {
	src=$(fetch_source libzstd) || return 1
	for k in plain repstos copy; do
		[ -x "$BIN/zstd-$k" ] && continue
		zstd_build "$src" "$WORK/zstd-$k" $k -O2 || return 1
		cp "$WORK/zstd-$k/programs/zstd" "$BIN/zstd-$k"
	done
	[ -x "$BIN/zstd-count" ] || {
		# the CLI is linked in obj/conf_HASH/ and copied up
		rm -f "$WORK"/zstd-copy/programs/obj/*/zstd &&
		relink_full "$WORK/zstd-copy/programs/zstd" env CFLAGS=-O2 \
			make -C "$WORK/zstd-copy/programs" CC="$(kind_cc copy)" \
			MOREFLAGS="$(kind_flags copy)" zstd-release \
			>>"$WORK/zstd-copy/build.log" 2>&1 &&
		cp "$WORK/zstd-copy/programs/zstd" "$BIN/zstd-count"; }
}

# jq 1.6: no configure in the package (autoreconf), libjq linked in
# statically (its sites are then the jq binary's), no oniguruma (the
# regex functions, which the filter does not use: one package less).
build_jq() {
	src=$(fetch_source jq) || return 1
	for k in plain repstos copy; do
		[ -x "$BIN/jq-$k" ] && continue
		d=$WORK/jq-$k
		rm -rf "$d" && cp -r "$src" "$d" || return 1
		(cd "$d" && autoreconf -fi && CC=$(kind_cc $k) CFLAGS="-O2 $(kind_flags $k)" \
			./configure --disable-shared --enable-static --with-oniguruma=no \
			--disable-docs --disable-maintainer-mode --disable-valgrind &&
			make -j2 src/builtin.inc src/version.h && make -j2 jq) >"$d/build.log" 2>&1 ||
			{ echo "jq ($k): build failed"; tail -n 5 "$d/build.log"; return 1; }
		cp "$d/jq" "$BIN/jq-$k"
	done
	[ -x "$BIN/jq-count" ] || {
		relink_full "$WORK/jq-copy/jq" make -C "$WORK/jq-copy" jq \
			>>"$WORK/jq-copy/build.log" 2>&1 &&
		cp "$WORK/jq-copy/jq" "$BIN/jq-count"; }
}

# Lua 5.4, the allocator-heavy one: every table, closure and string is
# a heap object the collector frees (through realloc), and strings are
# built by memcpy (luaS_newlstr, concatenation, luaL_Buffer).  Compiled
# as src/Makefile's `linux` target does (-DLUA_COMPAT_5_3
# -DLUA_USE_LINUX, and the header Debian's
# rules generate), every core and library file but luac.c in one link.
build_lua() {
	src=$(fetch_source lua5.4) || return 1
	for k in plain repstos copy; do
		[ -x "$BIN/lua-$k" ] && continue
		d=$WORK/lua-$k && rm -rf "$d" && mkdir -p "$d" || return 1
		# the header Debian's rules write (its luaconf.h patch includes it)
		echo "#define DEB_HOST_MULTIARCH \"$(gcc -print-multiarch)\"" \
			>"$d/lua5.4-deb-multiarch.h" || return 1
		cc=$(kind_cc $k) fl="-O2 $(kind_flags $k) -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$d"
		for c in "$src"/src/*.c; do
			case ${c##*/} in luac.c) continue ;; esac
			$cc $fl -c -o "$d/$(basename "$c" .c).o" "$c" ||
				{ echo "lua ($k): $c failed"; return 1; }
		done
		$cc -o "$d/lua" "$d"/*.o -lm -ldl || { echo "lua ($k): link failed"; return 1; }
		cp "$d/lua" "$BIN/lua-$k"
	done
	[ -x "$BIN/lua-count" ] || {
		d=$WORK/lua-copy
		REPSTOS_RUNTIME=full "$(kind_cc copy)" -o "$BIN/lua-count" "$d"/*.o -lm -ldl; }
}
