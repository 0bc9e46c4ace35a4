#!/bin/sh
# Every variant through real sites in each form: the call to the stub
# (REPSTOS_PATCH=0), the call to the routine and the inline form (patched),
# each against the byte-loop reference, each site's bytes read back.
# Two runs at a time: the machine has two cores.
bin=build/tests/runtime/sites
mode=${SITES_MODE:-full}
list=""
# the variants as the contract header lists them, and the policy's choice
for v in $(sed -n 's/.*X([A-Z_0-9]*, *"\([a-z_0-9]*\)", *__repstos_.*/\1/p' \
	   runtime/repstos_site.h) auto; do
	list="$list $v:1 $v:0"
done
echo $list | tr ' ' '\n' | xargs -P 2 -I{} sh -c '
	v=${1%:*}; p=${1#*:}
	out=$(REPSTOS_VARIANT=$v REPSTOS_PATCH=$p '"$bin $mode"' 2>&1); rc=$?
	echo "REPSTOS_VARIANT=$v REPSTOS_PATCH=$p: $(echo "$out" | tail -n 1)"
	[ $rc -eq 0 ] || { echo "$out" | head -n 30; exit 255; }
' _ {}
rc=$?
[ $rc -eq 0 ] && echo "all variants and forms match the reference" || echo "FAILED"
exit $([ $rc -eq 0 ] && echo 0 || echo 1)
