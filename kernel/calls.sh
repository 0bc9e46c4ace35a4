#!/bin/sh
# calls.sh IMAGE - how many calls IMAGE (a vmlinux) makes to memset,
# memcpy and memmove (and their __ names, which the kernel's own
# routines carry): every call and tail-call jmp to the routine's
# entry, in every code section, as objdump disassembles them.  The
# plain image's count is what kernel mode could convert; the plugin
# image's is what it left as calls.
set -eu
[ -f "$1" ] || { echo "calls.sh: no image $1" >&2; exit 2; }
objdump -d --no-show-raw-insn "$1" |
	awk '($2 == "call" || $2 == "jmp") &&
	     $4 ~ /^<(__)?(memset|memcpy|memmove)>$/ { n++ }
	     END { print n + 0 }'
