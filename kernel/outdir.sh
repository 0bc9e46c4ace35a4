#!/bin/sh
# outdir.sh VARIANT - the build folder of VARIANT (plain, plugin,
# defconfig-plain, defconfig-plugin, clang-plain, clang-plugin) for
# $KERNEL_VERSION (6.1 unless given): build/kernel/VERSION/VARIANT.  Every version has a folder of
# its own, so that CI's cache (build/kernel is ~/.cache/repstos/kernel
# there) holds 6.1's and 7.3's builds side by side; a version must look
# like one (digits, a dot, digits) so that it can never name another
# folder of build/kernel (bench, linux-source-*).  KERNEL_TAG (letters
# and digits) makes it build/kernel/VERSION-TAG/VARIANT: another
# compiler's builds beside the machine's (tests/compilers/kernel.sh's
# gcc14).
top=$(cd "$(dirname "$0")/.." && pwd)
v=${KERNEL_VERSION:-6.1}
case $v in
*[!0-9.]* | .* | *. | *..* | "" | *.*.*)
	echo "outdir.sh: KERNEL_VERSION=$v is not a version like 7.3" >&2
	exit 2 ;;
*.*)	;;
*)	echo "outdir.sh: KERNEL_VERSION=$v is not a version like 7.3" >&2
	exit 2 ;;
esac
case $1 in
plain | plugin | defconfig-plain | defconfig-plugin | clang-plain | clang-plugin) ;;
*)	echo "outdir.sh: unknown variant $1" >&2; exit 2 ;;
esac
tag=${KERNEL_TAG:-}
case $tag in
*[!a-z0-9]*)	echo "outdir.sh: KERNEL_TAG=$tag is not letters and digits" >&2
	exit 2 ;;
esac
echo "$top/build/kernel/$v${tag:+-$tag}/$1"
