# tests/plugin/lib.sh - what the plugin tests alone need, on top of
# tests/lib.sh (PLUGIN, RTLIB, TOOL, scratch...): the compiler and the
# plugin's options, the calls its remarks say it rewrote, and a run under
# every variant.  Each test builds its programs in its scratch folder.

. "$(dirname "$0")/../lib.sh"
CC=${CC:-gcc}
P="-fplugin=$PLUGIN"
PV="$P -fplugin-arg-repstos-verbose"

# sites() counts with the tool.
need $PLUGIN $RTLIB $TOOL

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
	for env in $(variants | sed 's/^/REPSTOS_VARIANT=/') \
			REPSTOS_VARIANT=auto REPSTOS_PATCH=0; do
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

# rewritten_as_marked NAME LEVEL DIR: the calls DIR/notes' remarks say
# were rewritten are the lines the caller's `expected LEVEL` marks.
rewritten_as_marked() {
	rewritten $3/notes >$3/got
	expected $2 >$3/want
	cmp -s $3/got $3/want && return 0
	fail "$1: rewritten calls differ from the marked lines (< got, > want)"
	diff $3/got $3/want | head -n 20
	return 1
}
