#!/bin/sh
# Proves: repstos-cc through distcc compiles in distccd with the server's
# own plugin, and the objects have their sites and match a local build.
# SPDX-License-Identifier: MIT
# The distccd is started here, on localhost; its plugin is the one the
# server's own repstos-cc names.
#
# What distcc 3.4 does with -fplugin= (read in its src/serve.c, seen in
# distccd's log below): distccd refuses any command that holds -fplugin=
# or -specs= ("insecure and not supported"), whatever its options.  So
# REPSTOS_CC="distcc gcc" repstos-cc, which puts -fplugin= on distcc's
# command line, never compiles remotely: distcc compiles locally instead
# (silently, by default).  What works is distcc running repstos-cc itself
# as the compiler, CC="distcc repstos-cc": the client preprocesses with
# its repstos-cc, the server runs its own repstos-cc, which adds
# -fplugin= with the server's plugin path after distccd's check.  distccd
# runs only the compilers it is told of: a masquerade link
# /usr/lib/distcc/repstos-cc, or a DISTCC_CMDLIST file naming the
# server's repstos-cc by its full path (this test: it writes nothing
# outside its own folders).
#
#  1. make CC="distcc repstos-cc" with DISTCC_FALLBACK=0 and
#     DISTCC_SKIP_LOCAL_RETRY=1, so that a compile that does not run in
#     distccd fails the build: distccd's log has one COMPILE_OK per
#     source file, and the server-side compiler log (distccd's
#     REPSTOS_CC is a logging gcc) shows each compile loading the
#     server's copy of the plugin, never the client's; the objects are
#     byte-identical to a local repstos-cc build, have their sites, pass
#     `repstos check`; the program, linked locally, is correct.
#  2. REPSTOS_CC="distcc gcc": distccd, which compiles `distcc gcc`
#     without the plugin, refuses the command (its log says so); with
#     fallbacks off the compile fails, with distcc's defaults it
#     succeeds, compiled locally.
. "$(dirname "$0")/lib.sh"
serialize distcc

# `make deps` installs distcc (tests/realworld/test.mk): missing is a failure.
for t in distcc distccd; do
	command -v $t >/dev/null || { fail "no $t (Debian package distcc; make deps installs it)"; finish; }
done

# One folder for the client's project and logs and the server's files,
# outside the tree: distccd runs as another user, who must reach it.
scratch -o
mkdir -p "$W/src" || exit 1

# Only this test's settings reach distcc.
for v in $(env | sed -n 's/^\(DISTCC_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset CCACHE_PREFIX

# ---- the "server" -------------------------------------------------------------
# Its own repstos-cc and plugin (a copy: another path than the client's),
# its compiler log, its temporary files and state.  As root, distccd must
# be told whom to run as (--user) and opens its log as that user: the
# folders it writes belong to that user, and $W must be searchable.
S=$W/server
mkdir -p "$S/plugin" "$S/tmp" "$S/state" || exit 1
cp "$top/plugin/repstos-cc" "$top/plugin/repstos.so" "$S/plugin/" || exit 1
SPLUGIN=$S/plugin/repstos.so
cat >"$S/logcc" <<'EOF'
#!/bin/sh
# The server's compiler, as its repstos-cc runs it: logs the command.
echo "$*" >>"$SERVER_CC_LOG"
exec gcc "$@"
EOF
# The server runs its repstos-cc and, for check 2, gcc (the client asks
# for x86_64-linux-gnu-gcc: distcc rewrites gcc to the full target name).
{
	echo "$S/plugin/repstos-cc"
	for c in gcc "$(gcc -dumpmachine)-gcc"; do command -v "$c"; done
} >"$S/cmdlist"
chmod 755 "$W" "$S/logcc" && chmod -R a+rX "$S" || exit 1
user_opt=
if [ "$(id -u)" -eq 0 ]; then
	id nobody >/dev/null 2>&1 || { fail "running as root and there is no user nobody for distccd --user"; finish; }
	user_opt="--user nobody"
	chown nobody "$S" "$S/tmp" "$S/state" || exit 1
fi

DPID=
cleanup() {
	if [ -n "$DPID" ]; then
		kids=$(pgrep -P "$DPID" 2>/dev/null)
		kill "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
		# Its preforked children end when it does: wait for them, then
		# make sure (by their ids).
		for k in $kids; do
			n=0
			while [ $n -lt 50 ] && ps -o stat= -p "$k" 2>/dev/null | grep -qv Z; do
				sleep 0.1; n=$((n + 1))
			done
			kill "$k" 2>/dev/null
		done
	fi
	return 0
}
# At exit, or on a signal (a closed pipe too: `distcc.sh | head`):
# distccd stops as well, before the scratch folder goes.
at_exit cleanup

# An unprivileged port that is free: a few tries from one derived from
# our process id; distccd says "listening on" once it has bound it.
start_distccd() {
	for try in 1 2 3 4 5; do
		PORT=$((20000 + ($$ * 7 + try * 4099) % 40000))
		rm -f "$S/distccd.log"
		env SERVER_CC_LOG="$S/cc.log" REPSTOS_CC="$S/logcc" DISTCC_CMDLIST="$S/cmdlist" \
			TMPDIR="$S/tmp" DISTCC_DIR="$S/state" \
			distccd --daemon --no-detach $user_opt --port $PORT --listen 127.0.0.1 \
			--allow 127.0.0.1 --jobs 2 --log-file "$S/distccd.log" --log-level info \
			</dev/null >"$W/distccd.out" 2>&1 &
		DPID=$!
		n=0
		while [ $n -lt 50 ]; do
			grep -q "listening on 127.0.0.1:$PORT" "$S/distccd.log" 2>/dev/null && return 0
			kill -0 "$DPID" 2>/dev/null || break
			sleep 0.1; n=$((n + 1))
		done
		kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; DPID=
	done
	return 1
}
if ! start_distccd; then
	fail "distccd did not start: $(cat "$W/distccd.out" "$S/distccd.log" 2>/dev/null | tail -n 3)"
	finish
fi
ok "distccd on 127.0.0.1:$PORT (${user_opt:+$user_opt, }pid $DPID), DISTCC_CMDLIST naming $S/plugin/repstos-cc"

# ---- the client ---------------------------------------------------------------
# `repstos-cc` on the client's PATH is the tree's (the server's is the copy).
mkdir -p "$W/bin" "$W/tmp" && ln -s "$top/plugin/repstos-cc" "$W/bin/repstos-cc" || exit 1
PATH=$W/bin:$PATH
# Each step gets its own DISTCC_DIR (a refused host is remembered there
# and skipped for a while); none is ~/.distcc.
export TMPDIR="$W/tmp" DISTCC_HOSTS="127.0.0.1:$PORT" DISTCC_VERBOSE=1 DISTCC_DIR="$W/state0"
mkdir -p "$DISTCC_DIR"

write_small_project "$W/src" || { fail "cannot write the project"; finish; }
cd "$W/src" || exit 1
# No -g: the debug information would name each side's plugin path
# (DW_AT_producer records -fplugin=) and the preprocessed source's
# columns; code, data and site table must match byte for byte.
CF="-O2"

# compiles_ok: lines of distccd's log for compiles it did.
compiles_ok() { grep -c 'COMPILE_OK' "$S/distccd.log"; }
# settled N: distccd writes a job's COMPILE_OK after sending the result,
# so the client may be done first: wait (up to 5 s) for N of them.
settled() {
	n=0
	while [ "$(compiles_ok)" -lt "$1" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
}

# ---- 1. CC="distcc repstos-cc" --------------------------------------------------
make -s CC="$RCC" CFLAGS="$CF" >"$W/make-local.log" 2>&1 ||
	{ fail "local build: $(head -n 4 "$W/make-local.log")"; finish; }
mkdir -p "$W/local" && cp $SMALL_OBJS "$W/local/"
rm -f $SMALL_OBJS prog

mkdir -p "$W/state1"
before=$(compiles_ok)
if DISTCC_DIR="$W/state1" DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1 DISTCC_LOG="$W/client1.log" \
	make -s CC="distcc repstos-cc" CFLAGS="$CF" >"$W/make-distcc.log" 2>&1; then
	ok "make CC=\"distcc repstos-cc\" with DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1"
else
	fail "make CC=\"distcc repstos-cc\": $(grep -i 'error' "$W/client1.log" "$W/make-distcc.log" | head -n 4)"
	finish
fi

settled $((before + SMALL_NOBJ))
n=$(($(compiles_ok) - before))
[ "$n" -eq "$SMALL_NOBJ" ] && ok "distccd's log: $n COMPILE_OK, one per source file" ||
	fail "distccd's log: $n COMPILE_OK, want $SMALL_NOBJ"

# The server's compiles: one a file, each with the server's plugin.
n=$(grep -c -- " -c " "$S/cc.log" 2>/dev/null || echo 0)
m=$(grep -- " -c " "$S/cc.log" 2>/dev/null | grep -c -- "-fplugin=$SPLUGIN ")
if [ "$n" -eq "$SMALL_NOBJ" ] && [ "$m" -eq "$n" ] && ! grep -q -- "-fplugin=$top/" "$S/cc.log"; then
	ok "server's compiler ran $n compiles, each with -fplugin=$SPLUGIN (the server's copy)"
else
	fail "server's compiler log: $n compiles, $m with the server's plugin, want $SMALL_NOBJ:"
	sed 's/^/    /' "$S/cc.log" 2>/dev/null | head -n 5
fi

for o in $SMALL_OBJS; do
	cmp -s "$o" "$W/local/$o" || fail "$o built through distcc differs from the local build's"
	"$TOOL" check "$o" >"$W/check.out" 2>&1 || fail "repstos check $o: $(head -n 3 "$W/check.out")"
done
for o in fill.o wipe.o; do
	[ "$(sites $o)" -gt 0 ] || fail "no sites in $o built through distcc"
done
"$TOOL" check prog >"$W/check.out" 2>&1 || fail "repstos check prog: $(head -n 3 "$W/check.out")"
got=$(./prog 2>&1)
[ "$got" = "$SMALL_WANT" ] || fail "./prog printed '$got', want '$SMALL_WANT'"
[ $failed -eq 0 ] && ok "objects byte-identical to a local build; sites main.o:$(sites main.o) fill.o:$(sites fill.o) wipe.o:$(sites wipe.o); prog $(sites prog) sites, prints '$got'"

# ---- 2. REPSTOS_CC="distcc gcc": -fplugin= on distcc's command line ------------
# First the control: the server does compile for `distcc gcc` without
# the plugin, so a refusal below is the plugin's doing.
refused() { grep -c 'fplugin=.*not supported' "$S/distccd.log"; }
mkdir -p "$W/state2" "$W/state3" "$W/state4"
c0=$(compiles_ok)
if DISTCC_DIR="$W/state2" DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1 DISTCC_LOG="$W/client2.log" \
	distcc gcc $CF -c fill.c -o plain.o 2>"$W/plain.err" && settled $((c0 + 1)) &&
	[ "$(compiles_ok)" -eq $((c0 + 1)) ]; then
	ok "distcc gcc without the plugin: compiled in distccd"
else
	fail "distcc gcc without the plugin did not compile in distccd: $(tail -n 2 "$W/plain.err")"
fi
r0=$(refused) c0=$(compiles_ok)
if REPSTOS_CC="distcc gcc" DISTCC_DIR="$W/state3" DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1 \
	DISTCC_LOG="$W/client3.log" "$RCC" $CF -c fill.c -o refused.o 2>"$W/refused.err"; then
	fail "REPSTOS_CC=\"distcc gcc\" with fallbacks off compiled: distccd took -fplugin= after all"
elif [ "$(refused)" -gt "$r0" ]; then
	ok "REPSTOS_CC=\"distcc gcc\", fallbacks off: fails; distccd: \"$(grep 'fplugin=.*not supported' "$S/distccd.log" | tail -n 1 | sed 's/^.*) //')\""
else
	fail "REPSTOS_CC=\"distcc gcc\" failed, but not for -fplugin=: $(tail -n 2 "$W/refused.err")"
fi
r1=$(refused)
if REPSTOS_CC="distcc gcc" DISTCC_DIR="$W/state4" DISTCC_LOG="$W/client4.log" \
	"$RCC" $CF -c fill.c -o fallback.o 2>"$W/fallback.err"; then
	if [ "$(refused)" -gt "$r1" ] && [ "$(compiles_ok)" -eq "$c0" ] && [ "$(sites fallback.o)" -gt 0 ] &&
	   cmp -s fallback.o "$W/local/fill.o"; then
		ok "REPSTOS_CC=\"distcc gcc\", distcc's defaults: refused remotely, compiled locally (same object, nothing distributed)"
	else
		fail "REPSTOS_CC=\"distcc gcc\" with fallbacks: refused $(( $(refused) - r1 )), COMPILE_OK $(( $(compiles_ok) - c0 )), $(sites fallback.o) sites"
	fi
else
	fail "REPSTOS_CC=\"distcc gcc\" with distcc's defaults failed: $(tail -n 2 "$W/fallback.err")"
fi

finish
