#!/bin/sh
# Proves: linking the runtime keeps a module's IBT and SHSTK marking.
# The runtime keeps a module's IBT and SHSTK property:
# the linker marks a module with it only if every object in it has it,
# so one runtime object without it drops it for the whole program.
#  - every member of librepstos.a states it;
#  - a shared object built with -fcf-protection=full, by gcc with the
#    archive and by repstos-cc, links under -z cet-report=error and is
#    marked "x86 feature: IBT, SHSTK";
#  - for executables, -z cet-report=warning names no runtime object, and
#    where plain gcc's executable is marked, ours is too.
# The shared objects are linked with -nostartfiles: on some systems
# (Debian 12) crti.o and crtn.o lack the property themselves.
. "$(dirname "$0")/../lib.sh"
cc=${CC:-gcc}
src=tests/runtime/cet.c
need $RTLIB $PLUGIN
marked() { readelf -n "$1" | grep -q 'x86 feature: IBT, SHSTK'; }

scratch
cf="-O2 -fcf-protection=full -Iinclude -Iruntime"

missing=$(readelf -n $RTLIB | awk '
	/^File: / { if (f && !m) print f; f = $2; m = 0 }
	/x86 feature: IBT, SHSTK/ { m = 1 }
	END { if (f && !m) print f }')
[ -z "$missing" ] && ok "every member of $RTLIB has IBT and SHSTK" ||
	fail "members without IBT and SHSTK: $missing"

drivers="$cc $RCC"
for drv in $drivers; do
	name=$(basename "${drv%% *}")
	# repstos-cc adds the archive itself.
	lib=$RTLIB; [ $name = repstos-cc ] && lib=
	if ! $drv $cf -fPIC -shared -nostartfiles -o $W/lib.so $src $lib \
		-Wl,-z,cet-report=error 2>$W/err; then
		fail "$name -shared: link under -z cet-report=error: $(cat $W/err)"
	elif ! marked $W/lib.so; then
		fail "$name -shared: not marked IBT, SHSTK"
	else
		ok "$name -fcf-protection=full -shared: marked IBT, SHSTK"
	fi
	if ! $drv $cf -o $W/exe $src $lib -Wl,-z,cet-report=warning \
		2>$W/err || ! $W/exe; then
		fail "$name executable: does not build or run: $(cat $W/err)"
	elif grep -q 'librepstos' $W/err; then
		fail "$name executable: runtime objects lack IBT, SHSTK: $(grep librepstos $W/err)"
	else
		ok "$name executable: no runtime object lacks IBT, SHSTK"
	fi
done
# Where the system's start files have the property, the whole
# executable must keep it.
echo 'int main(void) { return 0; }' >$W/plain.c
if $cc $cf -o $W/plain $W/plain.c && marked $W/plain; then
	$cc $cf -o $W/exe $src $RTLIB && marked $W/exe &&
		ok "executable marked IBT, SHSTK, as plain gcc's is" ||
		fail "plain gcc's executable is marked IBT, SHSTK, ours is not"
else
	skipped "the whole executable: plain gcc's are not marked here (start files)"
fi
finish
