#!/bin/sh
# calls.sh PLAIN PLUGIN - the share of PLAIN's memset/memcpy/memmove
# calls that PLUGIN (the same kernel built with kernel mode) no longer
# makes: every direct call or jump to memset, memcpy, memmove or their
# __ names in each file's disassembly (the kernel's own string
# functions' bodies excluded, and the routines kernel mode emits call
# none).  Prints one summary line, then "left FUNCTION TARGET" for each
# call PLUGIN still makes, a line per call, for the reasons to be read
# from the source.  calls.sh IMAGE: how many such calls IMAGE makes.
set -eu

# calls FILE: "FUNCTION TARGET" a call, sorted
calls() {
	objdump -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn) }
		/\t(call|jmp) +[0-9a-f]+ <(__)?(memset|memcpy|memmove)>$/ {
			t = $NF; gsub(/[<>]/, "", t)
			if (fn !~ /^(__)?(memset|memcpy|memmove)(_.*)?$/) print fn, t
		}' | sort
}

if [ $# -eq 1 ]; then
	calls "$1" | wc -l
	exit 0
fi
plain=$1 plugin=$2
p=$(calls "$plain" | wc -l)
calls "$plugin" >"${TMPDIR:-/tmp}/calls.$$"
l=$(wc -l <"${TMPDIR:-/tmp}/calls.$$")
echo "calls: plain $p, left $l, converted $(awk -v p="$p" -v l="$l" 'BEGIN { printf "%.1f%%", p ? 100 * (p - l) / p : 0 }')"
sed 's/^/left /' "${TMPDIR:-/tmp}/calls.$$"
rm -f "${TMPDIR:-/tmp}/calls.$$"
