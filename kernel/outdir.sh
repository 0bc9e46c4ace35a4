#!/bin/sh
# outdir.sh VARIANT - the build folder of VARIANT for $KERNEL_VERSION:
# build/kernel/VARIANT for Linux 6.1 (where it always was, and CI's
# cache has it), build/kernel/VERSION/VARIANT for the others, and
# build/kernel/VERSION-TAG/VARIANT with KERNEL_TAG (tests/compilers/
# kernel.sh's gcc14: another compiler's builds beside the machine's).
top=$(cd "$(dirname "$0")/.." && pwd)
v=${KERNEL_VERSION:-6.1}
if [ -n "${KERNEL_TAG:-}" ]; then
	echo "$top/build/kernel/$v-$KERNEL_TAG/$1"
else
	case $v in
	6.1)	echo "$top/build/kernel/$1" ;;
	*)	echo "$top/build/kernel/$v/$1" ;;
	esac
fi
