#!/bin/sh
# Proves: clang-16 with librepstos-llvm.so makes a site of exactly the calls clang itself leaves as calls, and those sites run right under every routine.
# The LLVM pass plugin (plugin/llvm/), with clang-16:
#  - the backend's line: memset (fill and zero, unaligned and aligned),
#    memcpy (unaligned and aligned) and memmove of every constant size
#    0..600, at -O0, -O1, -O2, -Os, -Oz, -march=x86-64-v3, -v4 and v4
#    with 512-bit vectors, -Os -march=haswell (ERMS) and -march=native:
#    a function gets a site exactly where plain clang calls the C
#    library, and keeps no call; the summary gives the largest size
#    clang expands inline, per op (plugin/llvm/README.md's table);
#  - the plugin corpus (tests/plugin/corpus, user helpers named through
#    -mllvm -repstos-clear= and -repstos-memset=) at every -O level and
#    PIE: as many sites as plain clang's calls of the memset family,
#    none of those calls left, one table entry per -Rpass remark, every
#    @site line a site, `repstos check` clean, and the program's digest
#    the plain build's under every REPSTOS_VARIANT and REPSTOS_PATCH=0;
#    the GCC plugin's site count on the same corpus beside it;
#  - the -flto and -flto=thin compiles make no sites (the link does),
#    and the links through lld 16 make them, and run right.
# Skips, in one line, where clang-16 is not installed.  LLVM_PARTS
# names the parts to run (default "line corpus lto").
. "$(dirname "$0")/lib.sh"
CLANG=${LLVM_CLANG:-clang-16}
command -v $CLANG >/dev/null 2>&1 ||
	skip "$CLANG not installed (Debian: clang-16 llvm-16-dev): the LLVM plugin is not built"
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
	echo "summary: line $1: $at"
}
part() { case " ${LLVM_PARTS:-line corpus lto} " in *" $1 "*) return 0 ;; esac; return 1; }

part line && for cfg in "O0:-O0" "O1:-O1" "O2:-O2" "Os:-Os" "Oz:-Oz" \
	   "v3:-O2 -march=x86-64-v3" "v4:-O2 -march=x86-64-v4" \
	   "v4-512:-O2 -march=x86-64-v4 -mprefer-vector-width=512" \
	   "Os-haswell:-Os -march=haswell" "native:-O2 -march=native"; do
	line "${cfg%%:*}" "${cfg#*:}"
done

# ---- the corpus ------------------------------------------------------------
S=tests/plugin/corpus
UNITS="ops fills helpers"
CF="-g -I$S -Iinclude -Iruntime -Wall -Wno-memset-transposed-args"
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
	echo "summary: corpus $name: clang $s sites, GCC $g"
}
part corpus && for cfg in "O0:-O0" "O1:-O1" "O2:-O2" "O3:-O3" "Os:-Os" "Oz:-Oz" "Og:-Og" \
	   "pie:-O2 -fPIE:-pie" "v3:-O2 -march=x86-64-v3:"; do
	name=${cfg%%:*} rest=${cfg#*:}
	corpus $name "${rest%%:*}" "$(echo "$rest" | sed -n 's/^[^:]*://p')"
done
finish
