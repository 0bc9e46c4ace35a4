#!/bin/sh
# Proves: every variant, in every site form, stores what a byte loop does.
# Every variant through real sites in each form: the call to the stub
# (REPSTOS_PATCH=0), the call to the routine and the inline form (patched),
# each against the byte-loop reference, each site's bytes read back.
# Two runs at a time: the machine has two cores.
. "$(dirname "$0")/../lib.sh"
bin=${SITES_BIN:-$BUILT/sites}
mode=${SITES_MODE:-full}
need $bin
scratch
# the variants as the contract header lists them, and the policy's choice
for v in $(variants) auto; do
	echo "$v:1"
	echo "$v:0"
done | xargs -P 2 -I{} sh -c '
	v=${1%:*}; p=${1#*:}
	out=$(REPSTOS_VARIANT=$v REPSTOS_PATCH=$p '"$bin $mode"' 2>&1); rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok REPSTOS_VARIANT=$v REPSTOS_PATCH=$p: $(echo "$out" | tail -n 1)"
	else
		echo "FAIL REPSTOS_VARIANT=$v REPSTOS_PATCH=$p: exit $rc"
		echo "$out" | head -n 30 | sed "s/^/    /"
	fi
' _ {} >"$W/runs"
# The runs' verdicts, counted here: xargs ran them in other shells.
while IFS= read -r line; do
	case $line in
	"ok "*) ok "${line#ok }" ;;
	"FAIL "*) fail "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done <"$W/runs"
[ "$checks" -eq $((2 * ($(variants | wc -l) + 1))) ] ||
	fail "$checks runs reported, not one per variant and form"
finish
