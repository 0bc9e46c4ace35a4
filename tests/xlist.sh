#!/bin/sh
# SPDX-License-Identifier: MIT
# xlist.sh LIST FIELD - one entry a line of the contract's X-macro list
# REPSTOS_<LIST>: VARIANTS or COPY_VARIANTS with FIELD `name` (the name
# REPSTOS_VARIANT takes) or `sym` (the routine's symbol); OPS or
# SIZE_KINDS with FIELD `name` or `num` (the number an entry holds).  Preprocessed
# with include/repstos_site.h, not parsed, so that a new variant or a new
# column of a list changes nothing here.  For tests/lib.sh, the tests and
# bench/bench.mk.
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
case $1:$2 in
VARIANTS:name|VARIANTS:sym|COPY_VARIANTS:name|COPY_VARIANTS:sym) field=$2 ;;
OPS:name|SIZE_KINDS:name) field=name ;;
OPS:num|SIZE_KINDS:num) field=third ;;
*) echo "usage: xlist.sh VARIANTS|COPY_VARIANTS name|sym, or OPS|SIZE_KINDS name|num" >&2
   exit 2 ;;
esac
printf '#include "repstos_site.h"\n#define X(e, name, third, ...) @%s\nREPSTOS_%s(X)\n' \
	"$(echo $field | sed 's/^sym$/third/')" "$1" |
	${CC:-gcc} -E -P -I"$top/include" -x c - | tr ' ' '\n' |
	sed -n 's/^@"\{0,1\}\([a-z_0-9]*\)"\{0,1\}$/\1/p'
