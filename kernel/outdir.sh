#!/bin/sh
# outdir.sh VARIANT - the build folder of VARIANT for $KERNEL_VERSION:
# build/kernel/VARIANT for Linux 6.1 (where it always was, and CI's
# cache has it), build/kernel/VERSION/VARIANT for the others.
top=$(cd "$(dirname "$0")/.." && pwd)
case ${KERNEL_VERSION:-6.1} in
6.1)	echo "$top/build/kernel/$1" ;;
*)	echo "$top/build/kernel/$KERNEL_VERSION/$1" ;;
esac
