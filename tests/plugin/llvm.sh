#!/bin/sh
# Proves: clang-16 with librepstos-llvm.so makes a site of exactly the calls clang itself leaves as calls, and those sites run right under every routine.
# The LLVM pass plugin (plugin/llvm/), with clang-16:
#  - the backend's line: memset (fill and zero, unaligned and aligned),
#    memcpy (unaligned and aligned) and memmove of every constant size
#    0..600, at -O0, -O2, -Os, -Oz, -march=x86-64-v3, -v4 and v4 with
#    512-bit vectors, and -Os -march=haswell (ERMS):
#    a function gets a site exactly where plain clang calls the C
#    library, and keeps no call; the summary gives the largest size
#    clang expands inline, per op (plugin/llvm/README.md's table);
#  - the plugin corpus (tests/plugin/corpus, user helpers named through
#    -mllvm -repstos-clear= and -repstos-memset=) at every -O level and
#    PIE: as many sites as plain clang's calls of the memset family,
#    none of those calls left, one table entry per -Rpass remark, every
#    @site line a site, `repstos check` clean, and the program's digest
#    the plain build's under every REPSTOS_VARIANT and REPSTOS_PATCH=0;
#    the GCC plugin's site count on the same corpus beside it; and the
#    corpus in a shared object (-fPIC) with no dynamic relocation
#    against the stub;
#  - the copy corpus (tests/plugin/copy, -repstos-copy, the copy-fn and
#    move-fn helpers) at -O0, -O2, -Os, native and PIE: as many copy
#    sites as plain clang's calls, each entry the copy version with its
#    function's op, run under every variant; fwd.c's memmoves MOVE_FWD
#    exactly where its rules prove it (or COPY where clang made them
#    memcpy);
#  - the red zone: redzone.c's leaves keep their live locals below rsp
#    across a site (the pass marks such functions noredzone);
#  - FORTIFY: __memset_chk and __memcpy_chk calls clang could not fold
#    become sites after the length check, and an overflow still ends in
#    glibc's report;
#  - options and limits: a bad -mllvm -repstos-min-const value is one
#    error and a failed compile; -repstos-max-size leaves the larger
#    bound alone; a __seg_gs memset and -mcmodel=kernel code get no
#    site;
#  - the corpus compiled with -flto and -flto=thin has no site in its
#    bitcode (the link makes them), and linked through lld 16 loading
#    the plugin it has them, `repstos check` clean, and runs right
#    under every variant (skipped where lld-16 is not installed).
# Skips, in one line, where clang-16 or llvm-16-dev is not installed
# (the plugin is not built there); fails where they are and it is not.
# LLVM_PARTS names the parts to run (default "line corpus copy redzone
# fortify options lto").
. "$(dirname "$0")/lib.sh"
CLANG=${LLVM_CLANG:-clang-16}
command -v $CLANG >/dev/null 2>&1 && command -v llvm-config-16 >/dev/null 2>&1 ||
	skip "$CLANG or llvm-config-16 not installed (Debian: clang-16 llvm-16-dev): the LLVM plugin is not built"
LP=$top/plugin/librepstos-llvm.so
need $LP
scratch
L="-fpass-plugin=$LP -Xclang -load -Xclang $LP"

# calls OBJ PATTERN: the functions of OBJ with a call (or tail jump)
# relocated against a symbol PATTERN matches, one a line.
calls() {
	objdump -dr --no-show-raw-insn "$1" | awk -v pat="R_X86_64_PLT32[ \t]+($2)-" '
		/^[0-9a-f]+ <.*>:$/ { f = substr($2, 2, length($2) - 3) }
		$0 ~ pat { print f }' | sort -u
}
# relocs PATTERN OBJ...: how many calls relocated against PATTERN
relocs() {
	pat=$1 n=0
	shift
	for o; do
		n=$((n + $(objdump -dr "$o" | grep -cE "R_X86_64_PLT32[[:space:]]+($pat)-")))
	done
	echo $n
}

# ---- the backend's line --------------------------------------------------
# One function per op and size; each name is its op and its size.
awk 'BEGIN { print "#include <string.h>"
	for (n = 0; n <= 600; n++) {
		printf "void *s%d(char *p, int c) { return memset(p, c, (%d)); }\n", n, n
		printf "void *z%d(char *p) { return memset(p, 0, (%d)); }\n", n, n
		printf "void *sa%d(long *p, int c) { return memset(p, c, (%d)); }\n", n, n
		printf "void *c%d(char *d, const char *s) { return memcpy(d, s, %d); }\n", n, n
		printf "void *ca%d(long *d, const long *s) { return memcpy(d, s, %d); }\n", n, n
		printf "void *m%d(char *d, const char *s) { return memmove(d, s, %d); }\n", n, n
	} }' >$W/line.c
# line NAME FLAGS: sites exactly where clang calls, and its line
line() {
	$CLANG $2 -c -o $W/line-ref.o $W/line.c 2>$W/line.log &&
	$CLANG $2 $L -mllvm -repstos-copy -c -o $W/line-rs.o $W/line.c 2>>$W/line.log ||
		{ fail "line $1: does not compile: $(tail -n 3 $W/line.log)"; return; }
	calls $W/line-ref.o 'memset|memcpy|memmove' >$W/want
	calls $W/line-rs.o '__repstos_stub|__repstos_copy_stub' >$W/got
	left=$(relocs 'memset|memcpy|memmove' $W/line-rs.o)
	if ! cmp -s $W/want $W/got || [ "$left" != 0 ]; then
		fail "line $1: sites differ from clang's calls (< clang calls, > site), $left calls left:"
		diff $W/want $W/got | head -n 10
		return
	fi
	# the largest size clang expands, per op ("-": none)
	at=$(for k in s z sa c ca m; do
		awk -v k=$k 'BEGIN { for (n = 0; n <= 600; n++) print k n }' |
			grep -vxFf $W/want | sed "s/^$k//" | sort -n |
			awk '{ m = $1 } END { print NR ? m : "-" }'
	done | tr '\n' ' ' | sed 's/ $//')
	ok "line $1: $(wc -l <$W/got) sites, each where clang calls; inline up to (memset, zero, aligned memset, memcpy, aligned memcpy, memmove): $at"
	lines="$lines; $1 $(echo $at | tr ' ' /)"
}
part() { case " ${LLVM_PARTS:-line corpus copy redzone fortify options lto} " in *" $1 "*) return 0 ;; esac; return 1; }

lines=
part line && for cfg in "O0:-O0" "O2:-O2" "Os:-Os" "Oz:-Oz" \
	   "v3:-O2 -march=x86-64-v3" "v4:-O2 -march=x86-64-v4" \
	   "v4-512:-O2 -march=x86-64-v4 -mprefer-vector-width=512" \
	   "Os-haswell:-Os -march=haswell"; do
	line "${cfg%%:*}" "${cfg#*:}"
done
# The comparison can fail: with -repstos-min-const=0 (a site at every
# constant size) the sites are not clang's calls.
part line && {
	$CLANG -O2 $L -mllvm -repstos-copy -mllvm -repstos-min-const=0 -c \
		-o $W/line-all.o $W/line.c 2>/dev/null
	calls $W/line-all.o '__repstos_stub|__repstos_copy_stub' >$W/all
	$CLANG -O2 -c -o $W/line-ref.o $W/line.c 2>/dev/null
	calls $W/line-ref.o 'memset|memcpy|memmove' >$W/want
	extra=$(comm -13 $W/want $W/all | wc -l)
	[ "$extra" -gt 0 ] &&
		ok "line, a made mistake: with -repstos-min-const=0, $extra sites where clang expands inline, which the comparison sees" ||
		fail "line, a made mistake: -repstos-min-const=0 made no site clang would not call"
}
[ -z "$lines" ] ||
	echo "summary: clang-16 expands inline up to (memset/zero/aligned memset/memcpy/aligned memcpy/memmove) ${lines#; }"

# ---- the corpus ------------------------------------------------------------
S=tests/plugin/corpus
UNITS="ops fills helpers"
CF="-g -I$S -Iinclude -Iruntime -Wall -Wno-memset-transposed-args -Wno-unknown-attributes"
LH="-mllvm -repstos-clear=my_zero,secure_wipe -mllvm -repstos-memset=my_memset"
GH="-fplugin-arg-repstos-clear=my_zero,secure_wipe -fplugin-arg-repstos-memset=my_memset"
FAMILY='memset|__memset_chk|bzero|explicit_bzero|my_zero|secure_wipe|my_memset'

# corpus NAME FLAGS [LINKFLAGS]: with and without the pass, and the
# GCC plugin's site count at the same flags.
corpus() {
	name=$1 fl=$2 lf=$3 d=$W/$1
	mkdir -p $d
	for u in $UNITS; do
		$CLANG $fl $CF $L $LH -Rpass=repstos -c -o $d/$u.o $S/$u.c 2>>$d/notes &&
		$CLANG $fl $CF -c -o $d/$u.ref.o $S/$u.c 2>>$d/ref.log ||
			{ fail "$name: $u.c does not compile: $(tail -n 3 $d/notes)"; return; }
		gcc $fl $CF -fplugin=$PLUGIN $GH -c -o $d/$u.gcc.o $S/$u.c 2>>$d/gcc.log ||
			{ fail "$name: $u.c does not compile with GCC"; return; }
	done
	$CLANG $fl $CF -c -o $d/ref.o $S/ref.c && $CLANG $fl $CF -c -o $d/check.o $S/check.c &&
	$CLANG $fl $lf -o $d/prog $d/check.o $d/ops.o $d/fills.o $d/helpers.o $d/ref.o $RTLIB &&
	$CLANG $fl $lf -o $d/prog.ref $d/check.o $d/ops.ref.o $d/fills.ref.o \
		$d/helpers.ref.o $d/ref.o || { fail "$name: link"; return; }

	plain=$(relocs "$FAMILY" $d/ops.ref.o $d/fills.ref.o $d/helpers.ref.o)
	left=$(relocs "$FAMILY" $d/ops.o $d/fills.o $d/helpers.o)
	s=$(sites $d/prog)
	n=$(grep -c 'remark: .* rewritten' $d/notes)
	g=0
	for u in $UNITS; do g=$((g + $(sites $d/$u.gcc.o))); done
	[ "$s" -eq "$plain" ] && [ "$left" -eq 0 ] && [ "$n" -eq "$s" ] && [ "$s" -gt 0 ] ||
		{ fail "$name: $s sites, $n remarks, plain clang calls $plain times, $left calls left"; return; }
	# every @site line (a site with GCC at every level) a site here too
	for u in $UNITS; do
		grep -n '@site' $S/$u.c | sed "s|^\([0-9]*\):.*|$u.c:\1|"
	done | sort -u >$d/marked
	sed -n 's|^[^ ]*/\([^/:]*\.c\):\([0-9]*\):[0-9]*: remark: .* rewritten.*|\1:\2|p' \
		$d/notes | sort -u >$d/rewritten
	miss=$(comm -23 $d/marked $d/rewritten | tr '\n' ' ')
	[ -z "$miss" ] || { fail "$name: @site lines with no site: $miss"; return; }
	"$TOOL" check $d/prog >$d/check.out 2>&1 ||
		{ fail "$name: repstos check: $(cat $d/check.out)"; return; }
	ref=$($d/prog.ref 2>&1) || { fail "$name: reference build fails: $ref"; return; }
	run_variants $d/prog "$ref" || return
	ok "$name: $s sites where plain clang calls $plain times, check clean, $ref under every variant; GCC plugin: $g sites"
	counts="$counts, $name $s/$g"
}
counts=
part corpus && for cfg in "O0:-O0" "O1:-O1" "O2:-O2" "O3:-O3" "Os:-Os" "Oz:-Oz" "Og:-Og" \
	   "pie:-O2 -fPIE:-pie" "v3:-O2 -march=x86-64-v3:"; do
	name=${cfg%%:*} rest=${cfg#*:}
	corpus $name "${rest%%:*}" "$(echo "$rest" | sed -n 's/^[^:]*://p')"
done
[ -z "$counts" ] || echo "summary: corpus sites, clang/GCC: ${counts#, }"
# The corpus and the runtime in a shared object (-fPIC): no dynamic
# relocation against the stub, a program linked with it runs right.
part corpus && {
	d=$W/shared; mkdir -p $d
	for u in $UNITS ref; do
		extra="$L $LH"; [ $u = ref ] && extra=
		$CLANG -O2 -fPIC $CF $extra -c -o $d/$u.o $S/$u.c 2>>$d/notes ||
			fail "shared: compile $u.c"
	done
	$CLANG -shared -o $d/libcorpus.so $d/ops.o $d/fills.o $d/helpers.o $d/ref.o $RTLIB &&
		$CLANG -O2 $CF -o $d/prog $S/check.c -L$d -lcorpus -Wl,-rpath,"$d" ||
		fail "shared: link"
	ref=$($W/O2/prog.ref 2>/dev/null || { $CLANG -O2 $CF -o $d/prog.ref $S/check.c \
		$S/ops.c $S/fills.c $S/helpers.c $S/ref.c && $d/prog.ref; })
	n=$(sites $d/libcorpus.so)
	if readelf -rW $d/libcorpus.so | grep -q repstos_stub; then
		fail "shared: a dynamic relocation against __repstos_stub (PLT?)"
	elif [ "$n" -gt 0 ] && "$TOOL" check $d/libcorpus.so >/dev/null 2>&1 &&
		run_variants $d/prog "$ref"; then
		ok "shared: libcorpus.so's $n sites, no dynamic relocation against the stub, check clean, $ref under every variant"
	else
		fail "shared: $n sites, or repstos check or a run failed"
	fi
}
# ---- the copy corpus --------------------------------------------------------
# tests/plugin/copy with -repstos-copy and the copy-fn/move-fn helpers:
# as many sites as plain clang's calls, none left, each entry the copy
# version with its function's op (ops.c's table; MOVE_FWD for the one
# memmove(p, p + 4, n)), run under every variant; and fwd.c, whose
# functions' names end in the op their site must have (_5: MOVE_FWD, or
# COPY where clang made the memmove a memcpy).  noipa is GCC's: clang
# gets noinline for it.
C=tests/plugin/copy
COPY_VERSION=$($POKE layout | sed -n 's/^REPSTOS_COPY_VERSION=//p')
CC_COPY="-g -I$C -Iinclude -Iruntime -Wall -Wno-unknown-attributes -Dnoipa=noinline"
LC="-mllvm -repstos-copy -mllvm -repstos-copy-fn=my_copy -mllvm -repstos-move-fn=my_move"
COPIES='memcpy|__memcpy_chk|mempcpy|__mempcpy_chk|memmove|__memmove_chk|my_copy|my_move'
copies() {
	name=$1 fl=$2 lf=$3 d=$W/copy-$1
	mkdir -p $d
	$CLANG $fl $CC_COPY $L $LC -Rpass=repstos -c -o $d/ops.o $C/ops.c 2>$d/notes &&
	$CLANG $fl $CC_COPY -c -o $d/ops.ref.o $C/ops.c &&
	$CLANG $fl $CC_COPY -fno-builtin -c -o $d/ref.o $C/ref.c &&
	$CLANG $fl $CC_COPY -c -o $d/check.o $C/check.c &&
	$CLANG $fl $lf -o $d/prog $d/check.o $d/ops.o $d/ref.o $RTLIB &&
	$CLANG $fl $lf -o $d/prog.ref $d/check.o $d/ops.ref.o $d/ref.o ||
		{ fail "copy $name: build: $(tail -n 3 $d/notes)"; return; }
	plain=$(relocs "$COPIES" $d/ops.ref.o)
	left=$(relocs "$COPIES" $d/ops.o)
	python3 $C/entries.py $d/prog >$d/entries || { fail "copy $name: table"; return; }
	s=$(wc -l <$d/entries)
	n=$(grep -c 'remark: .* rewritten' $d/notes)
	[ "$s" -eq "$plain" ] && [ "$left" -eq 0 ] && [ "$n" -eq "$s" ] && [ "$s" -gt 0 ] ||
		{ fail "copy $name: $s entries, $n remarks, plain clang calls $plain times, $left left"; return; }
	bad=$(awk -v v=$COPY_VERSION 'NR == FNR { op[$1] = $2; next }
		$2 != v || !($1 in op) || op[$1] != $3 { print }' $W/ops.want $d/entries)
	[ -z "$bad" ] || { fail "copy $name: entries with the wrong version or op: $bad"; return; }
	"$TOOL" check $d/prog >$d/check.out 2>&1 ||
		{ fail "copy $name: repstos check: $(cat $d/check.out)"; return; }
	ref=$($d/prog.ref 2>&1) || { fail "copy $name: reference build fails: $ref"; return; }
	run_variants $d/prog "$ref" || return
	gcc $fl -g -I$C -Iinclude -Iruntime -fplugin=$PLUGIN -fplugin-arg-repstos-copy \
		-fplugin-arg-repstos-copy-fn=my_copy -fplugin-arg-repstos-move-fn=my_move \
		-c -o $d/ops.gcc.o $C/ops.c 2>/dev/null || { fail "copy $name: GCC build"; return; }
	g=$(sites $d/ops.gcc.o)
	ok "copy $name: $s copy sites where plain clang calls $plain times, each entry its function's op, check clean; $ref; GCC plugin: $g sites"
	ccounts="$ccounts, $name $s/$g"
}
part copy && {
	grep -o '{ "[a-z_0-9]*", [a-z_0-9]*, K_[A-Z0-9]*, [0-9]*, [0-9]*, R_[A-Z]*, [A-Z_]* }' $C/ops.c |
		awk -F', ' '{ op = $7; sub(/ }/, "", op); print $2, op }' |
		sed 's/ COPY$/ 3/; s/ MOVE$/ 4/; s/ MOVE_FWD$/ 5/' >$W/ops.want
	[ "$(grep -c ' 5$' $W/ops.want)" -eq 1 ] || fail "copy/ops.c: the op list did not parse"
	ccounts=
	for cfg in "O0:-O0" "O2:-O2" "Os:-Os" "native:-O2 -march=native" "pie:-O2 -fPIE:-pie"; do
		rest=${cfg#*:}
		copies "${cfg%%:*}" "${rest%%:*}" "$(echo "$rest" | sed -n 's/^[^:]*://p')"
	done
	[ -z "$ccounts" ] || echo "summary: copy corpus sites, clang/GCC: ${ccounts#, }"
	for lvl in -O0 -O2; do
		d=$W/fwd$lvl; mkdir -p $d
		$CLANG $lvl $CC_COPY $L $LC -o $d/fwd $C/fwd.c $RTLIB 2>$d/notes &&
		$CLANG $lvl $CC_COPY -o $d/fwd.ref $C/fwd.c ||
			{ fail "fwd $lvl: build: $(tail -n 3 $d/notes)"; continue; }
		python3 $C/entries.py $d/fwd >$d/entries
		bad=$(awk -v v=$COPY_VERSION '$2 != v || !($1 ~ /_4$/ && $3 == 4 || $1 ~ /_5$/ && ($3 == 5 || $3 == 3))' $d/entries)
		want=$($d/fwd.ref)
		got=$($d/fwd)
		# as many sites as plain clang's calls (at -O2 it drops the
		# memmove onto itself)
		plain=$(objdump -d $d/fwd.ref | grep -cE '(call|jmp) .*<(memmove|memcpy)@plt>')
		[ -z "$bad" ] && [ "$got" = "$want" ] && [ "$(grep -c . $d/entries)" -eq "$plain" ] &&
			ok "fwd $lvl: $(awk '$3 == 5' $d/entries | wc -l) MOVE_FWD, $(awk '$3 == 4' $d/entries | wc -l) MOVE, $(awk '$3 == 3' $d/entries | wc -l) COPY, as each function says; runs as without the plugin ($got)" ||
			fail "fwd $lvl: [$got] want [$want]; $(grep -c . $d/entries) entries for $plain calls; wrong: $bad"
	done
}

# ---- the red zone --------------------------------------------------------------
# tests/plugin/redzone: leaf functions keeping live locals below rsp
# across a site; the pass marks a function with a site noredzone, as the
# GCC plugin compiles the unit -mno-red-zone.  Each leaf's only call is
# the site; the locals survive under the stub, vec and erms.  (The
# control, that the same leaves with a bare call do corrupt them, is
# redzone.sh's.)
part redzone && for lvl in -O0 -O2 -Os; do
	b=$W/rz$lvl
	$CLANG $lvl -g -Wno-unknown-attributes -Dnoipa=noinline $L -Rpass=repstos \
		-o $b tests/plugin/redzone/redzone.c $RTLIB 2>$b.notes ||
		{ fail "redzone $lvl: build: $(tail -n 3 $b.notes)"; continue; }
	n=$(grep -c 'remark: .* rewritten' $b.notes)
	[ "$n" -eq 3 ] || { fail "redzone $lvl: $n memsets rewritten, want 3"; continue; }
	bad=
	for f in leaf_volatile leaf_pressure leaf_array; do
		c=$(objdump -d --no-show-raw-insn $b |
			awk -v f="<$f>:" '$2 == f { on = 1; next } /^$/ { on = 0 }
				on && /call/ { print $NF }')
		[ "$c" = "<__repstos_stub>" ] || bad="$bad $f calls [$c]"
	done
	[ -z "$bad" ] || { fail "redzone $lvl: not leaves whose one call is the site:$bad"; continue; }
	for env in REPSTOS_PATCH=0 REPSTOS_VARIANT=vec REPSTOS_VARIANT=erms; do
		out=$(env $env $b) || { fail "redzone $lvl ($env): $out"; continue 2; }
	done
	ok "redzone $lvl: 3 leaf functions, live red-zone locals intact across the site ($out)"
done

# ---- FORTIFY ----------------------------------------------------------------
# A _chk call clang could not fold: a site after the length check, and
# an overflow still ends in glibc's report.
part fortify && {
	d=$W/fortify; mkdir -p $d
	cat >$d/f.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct s { char buf[16]; char after[16]; } v;
int main(int argc, char **argv)
{
	size_t n = strtoul(argv[1], 0, 0);

	memset(v.buf, 'x', n);
	memcpy(v.after, v.buf, n);
	printf("%c%c %zu\n", v.buf[n - 1], v.after[n - 1], n);
	return 0;
}
EOF
	$CLANG -O2 -D_FORTIFY_SOURCE=2 $L -mllvm -repstos-copy -Rpass=repstos \
		-o $d/f $d/f.c $RTLIB 2>$d/notes || fail "fortify: does not build: $(tail -n 3 $d/notes)"
	n=$(grep -c 'remark: __mem\(set\|cpy\)_chk rewritten' $d/notes)
	out=$($d/f 16 2>&1); rc=$?
	over=$(sh -c '"$0" 17' $d/f 2>&1); orc=$?
	[ "$n" = 2 ] && [ "$(sites $d/f)" = 2 ] && [ $rc = 0 ] && [ "$out" = "xx 16" ] &&
		[ $orc = 134 ] && echo "$over" | grep -q 'buffer overflow detected' &&
		ok "fortify: __memset_chk and __memcpy_chk are sites; 16 bytes: $out; 17: glibc's report, exit $orc" ||
		fail "fortify: $n remarks, $(sites $d/f) sites; 16: exit $rc, $out; 17: exit $orc, $over"
}

# ---- options ------------------------------------------------------------------
# A bad value: one error naming it (and clang's count), a failed
# compile, no object.
part options && {
	d=$W/options; mkdir -p $d
	$CLANG -O2 $CF $L -mllvm -repstos-min-const=12x -c -o $d/bad.o $S/ops.c >$d/bad.out 2>&1
	rc=$?
	[ $rc -ne 0 ] && [ ! -e $d/bad.o ] && [ "$(grep -c 'error:' $d/bad.out)" = 1 ] &&
		grep -q "^error: repstos: bad value '12x' for -repstos-min-const" $d/bad.out &&
		ok "-repstos-min-const=12x: exit $rc, one error: $(head -n 1 $d/bad.out)" ||
		fail "-repstos-min-const=12x: exit $rc: $(cat $d/bad.out)"
	$CLANG -O2 $CF $L -mllvm -repstos-max-size=255 -Rpass=repstos -Rpass-missed=repstos \
		-c -o $d/max.o $S/ops.c 2>$d/max.out
	grep -q 'ops.c:55:.*memset rewritten (size unknown, at most 255)' $d/max.out &&
		grep -q 'ops.c:60:.*memset left alone (size unknown, at most 300; size may reach 300, above max-size=255)' $d/max.out &&
		ok "-repstos-max-size=255: the call of at most 255 bytes a site, that of 300 left, each remark saying so" ||
		fail "-repstos-max-size=255: $(grep 'ops.c:\(55\|60\):' $d/max.out)"
	# __seg_gs: a site's string ops would write through ds, not gs
	printf '#include <stddef.h>\nvoid f(__seg_gs char *p, size_t n) { __builtin_memset(p, 0, n); }\n' >$d/gs.c
	$CLANG -O2 $L -Rpass=repstos -Rpass-missed=repstos -S -emit-llvm -o $d/gs.ll $d/gs.c 2>$d/gs.out
	grep -q 'memset left alone (size unknown; a pointer of another address space' $d/gs.out &&
		! grep -q '__repstos_stub' $d/gs.ll &&
		ok "__seg_gs: left alone, the remark says why" ||
		fail "__seg_gs: $(grep remark $d/gs.out)"
	# -mcmodel=kernel: no user-space site in kernel code, said once
	$CLANG -O2 $CF $L -mcmodel=kernel -mno-red-zone -c -o $d/k.o $S/ops.c 2>$d/k.out &&
		[ "$(sites $d/k.o)" = 0 ] && [ "$(grep -c 'warning: repstos: -mcmodel=kernel' $d/k.out)" = 1 ] &&
		ok "-mcmodel=kernel: no sites, one warning: $(grep 'warning: repstos' $d/k.out)" ||
		fail "-mcmodel=kernel: $(sites $d/k.o) sites: $(grep repstos $d/k.out)"
}

# ---- LTO ----------------------------------------------------------------------
# ltobuild NAME FLAGS: the corpus compiled for LTO (no sites: bitcode
# with no site asm), linked through lld 16 with the plugin (the link
# makes them, with the helpers the compile was told of: lld cannot be
# given the plugin's options), run under every variant; as many sites
# as the -O2 build, whose code the link's pipeline makes again.
ltobuild() {
	name=$1 fl=$2 d=$W/$1
	mkdir -p $d
	for u in $UNITS; do
		$CLANG $fl $CF $L $LH -c -o $d/$u.o $S/$u.c 2>>$d/notes ||
			{ fail "$name: $u.c does not compile"; return; }
	done
	n=$(for u in $UNITS; do llvm-dis-16 -o - $d/$u.o; done | grep -c 'asm sideeffect.*__repstos_stub')
	[ "$n" = 0 ] || { fail "$name: $n sites made before the link"; return; }
	$CLANG -O2 $CF -c -o $d/ref.o $S/ref.c && $CLANG -O2 $CF -c -o $d/check.o $S/check.c &&
	$CLANG $fl -fuse-ld=lld --ld-path=$LLD -Wl,--load-pass-plugin=$LP -o $d/prog $d/check.o $d/ops.o $d/fills.o $d/helpers.o $d/ref.o $RTLIB 2>$d/link.log ||
		{ fail "$name: link: $(tail -n 3 $d/link.log)"; return; }
	s=$(sites $d/prog)
	"$TOOL" check $d/prog >$d/check.out 2>&1 ||
		{ fail "$name: repstos check: $(cat $d/check.out)"; return; }
	o2=
	[ -e $W/O2/prog ] && o2=$(sites $W/O2/prog)
	[ "$s" -gt 0 ] && { [ -z "$o2" ] || [ "$s" -eq "$o2" ]; } ||
		{ fail "$name: $s sites at the link, not the -O2 build's $o2"; return; }
	run_variants $d/prog "$ref" || return
	ok "$name: no site in the compile's bitcode, $s made at the link, check clean, $ref under every variant"
}
part lto && {
	LLD=$(command -v ld.lld-16) || LLD=
	if [ -z "$LLD" ]; then
		skipped "LTO: no ld.lld-16 (Debian: lld-16) to load the plugin at the link"
	else
		$CLANG -O2 $CF -o $W/lto.ref $S/check.c $S/ops.c $S/fills.c \
			$S/helpers.c $S/ref.c 2>/dev/null && ref=$($W/lto.ref 2>&1) ||
			fail "LTO: the plain build fails: $ref"
		ltobuild lto "-O2 -flto"
		ltobuild thinlto "-O2 -flto=thin"
	fi
}
finish
