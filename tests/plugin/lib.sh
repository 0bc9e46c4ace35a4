# tests/plugin/lib.sh - shared by the plugin tests (sourced, run from the
# top of the tree).  Each test prints what it checks; `fail` records a
# failure and the test exits 1 at the end through `finish`.

PLUGIN=plugin/repstos.so
RTLIB=runtime/librepstos.a
CC=${CC:-gcc}
P="-fplugin=$PLUGIN"
PV="$P -fplugin-arg-repstos-verbose"
T=build/tests/plugin
failed=0

fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }
finish() { [ $failed -eq 0 ] && { echo "PASS"; exit 0; }; echo "FAILED"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

[ -f $PLUGIN ] || { echo "FAIL: $PLUGIN not built"; exit 1; }
[ -f $RTLIB ] || { echo "FAIL: $RTLIB not built"; exit 1; }

# Entries in the site tables of an object or linked file.
sites() { python3 tests/patcher/elfpoke.py count "$1"; }

# "file:line" of every call the plugin's remarks say it rewrote.
rewritten() {
	sed -n 's|^\([^ :]*\):\([0-9]*\):[0-9]*: note: repstos: .* rewritten.*|\1:\2|p' "$@" |
		sed 's|.*/||' | sort -u
}
rewritten_count() {
	grep -c 'note: repstos: .* rewritten' "$@" | awk -F: '{ s += $NF } END { print s + 0 }'
}

# Run a program under every REPSTOS_VARIANT the contract header lists and
# with patching off; each run must exit 0 and print exactly the line in
# $want.
run_variants() {
	bin=$1 want=$2; shift 2
	for env in $(sed -n 's/.*X([A-Z_0-9]*, *"\([a-z_0-9]*\)", *__repstos_.*/REPSTOS_VARIANT=\1/p' \
			runtime/repstos_site.h) REPSTOS_VARIANT=auto REPSTOS_PATCH=0; do
		got=$(env $env "$bin" "$@" 2>&1)
		rc=$?
		# a variant this CPU lacks runs as auto, and says so
		got=$(echo "$got" | grep -v "^repstos: REPSTOS_VARIANT '.*' needs instructions this CPU lacks")
		if [ $rc -ne 0 ] || [ "$got" != "$want" ]; then
			fail "$bin ($env): exit $rc"
			echo "$got" | head -n 5
			return 1
		fi
	done
	return 0
}
