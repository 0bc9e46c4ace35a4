#!/bin/sh
# make demo: build the record parser with repstos and without, show what
# the runtime chose on this CPU, run it under every variant (same output),
# time it against the plain build in interleaved rounds (examples/rounds.sh),
# and show the sites of one function.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/examples
mkdir -p $out
cc=plugin/repstos-cc
repstos=patcher/repstos
n=${DEMO_RECORDS:-2000000}

say() { printf '\n== %s\n' "$*"; }

say "build examples/records.c with repstos-cc and with plain gcc (-O2)"
echo "\$ plugin/repstos-cc -O2 -g -fplugin-arg-repstos-verbose -o $out/records examples/records.c"
$cc -O2 -g -fplugin-arg-repstos-verbose -o $out/records examples/records.c 2>&1 |
	grep 'note: repstos' | sed "s|^$top/||"
gcc -O2 -o $out/records-plain examples/records.c

say "what the runtime saw and chose (REPSTOS_DEBUG=1)"
REPSTOS_DEBUG=1 $out/records 1 2>&1 >/dev/null | sed "s|$top/||"

say "the same output under every variant, and with text patching off"
plain=$($out/records-plain $n)
printf '%-24s %s\n' "plain gcc:" "$plain"
for v in auto vec erms rep_good original inline; do
	got=$(REPSTOS_VARIANT=$v $out/records $n)
	printf '%-24s %s\n' "REPSTOS_VARIANT=$v:" "$got"
	[ "$got" = "$plain" ] || { echo "MISMATCH"; exit 1; }
done
got=$(REPSTOS_PATCH=0 $out/records $n)
printf '%-24s %s\n' "REPSTOS_PATCH=0:" "$got"
[ "$got" = "$plain" ] || { echo "MISMATCH"; exit 1; }

rounds=${DEMO_ROUNDS:-7}
say "time, $rounds rounds of $n records, each running plain, auto and inline once (medians; ratio = plain time / repstos time, min..max of the rounds)"
. examples/rounds.sh
run_config() {
	case $1 in
	plain) $out/records-plain $n ;;
	*) REPSTOS_VARIANT=$1 $out/records $n ;;
	esac
}
time_rounds "$rounds" plain auto inline >$out/rounds
rounds_report plain auto inline <$out/rounds | sed 's/^/repstos /'

say "every site, as repstos dump shows it (built with -g: source lines)"
echo "\$ patcher/repstos dump $out/records"
$repstos dump $out/records | sed "s|$top/||"
echo
echo "\$ patcher/repstos check $out/records"
$repstos check $out/records

say "deployment without run-time patching: fix every site for this CPU ahead of time"
echo "\$ patcher/repstos patch --cpu=native $out/records -o $out/records.native"
$repstos patch --cpu=native $out/records -o $out/records.native | sed "s|$top/||"
$repstos dump --stats $out/records.native | sed -n 's/^form: /form: /p; s/^variant: /variant: /p'
REPSTOS_DEBUG=1 $out/records.native 1 2>&1 >/dev/null

say "many modules, one start-up: the shared runtime (REPSTOS_RUNTIME=shared)"
echo "\$ REPSTOS_RUNTIME=shared plugin/repstos-cc -O2 -o $out/records-shared examples/records.c"
REPSTOS_RUNTIME=shared $cc -O2 -o $out/records-shared examples/records.c
strip -o $out/records.s $out/records && strip -o $out/records-shared.s $out/records-shared &&
	strip -o $out/records-plain.s $out/records-plain
for f in records-plain records records-shared; do
	printf '%-16s %s\n' "$f:" "$(size $out/$f.s | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 " bytes (stripped)" }')"
done
got=$($out/records-shared $n)
[ "$got" = "$plain" ] || { echo "MISMATCH"; exit 1; }
REPSTOS_DEBUG=1 $out/records-shared 1 2>&1 >/dev/null | sed "s|$top/||"

say "sites written by hand, for code built without the plugin (examples/handsite.c)"
gcc -O2 -Iinclude -Iruntime -o $out/handsite examples/handsite.c runtime/librepstos.a
$out/handsite 9
