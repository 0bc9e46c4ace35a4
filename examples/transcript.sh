#!/bin/sh
# transcript.sh - the demo transcript of examples/README.md, from a real run.
#
#   examples/transcript.sh          run examples/demo.sh and write its
#                                   output, and the CPU it ran on, into
#                                   examples/README.md between the two
#                                   markers
#   examples/transcript.sh --check  run it and compare its shape with the
#                                   transcript's: exit 1, with the
#                                   difference, when the tools print
#                                   something the transcript does not show
#
# The shape is the output with what varies from run to run and CPU to
# CPU made alike: numbers, addresses, the CPU's vendor and feature list,
# the routine the policy chose and how text was written, the timing's
# verdict (faster, slower, level: rounds.sh), and a count's noun made
# singular ("1 site", "5 sites": "N site").  A change of what
# the tools print (a new line, a renamed word) shows; a faster run does
# not.
cd "$(dirname "$0")/.." || exit 1
# TRANSCRIPT_README: another copy to read or write (the test's).
readme=${TRANSCRIPT_README:-examples/README.md}
BEGIN='<!-- demo transcript: examples/transcript.sh writes it -->'
END='<!-- end of demo transcript -->'

shape() {
	sed -E -e 's/variant [^;]*;/variant V;/g' -e 's/variant [a-z0-9_]+$/variant V/' \
		-e 's/cpu [a-z]+ family/cpu C family/g' \
		-e 's/\[[^]]*\]/[F]/g' -e 's/ via [^ ]+/ via R/g' \
		-e 's/: (faster in every round|slower in every round|level within the noise)$/: VERDICT/' \
		-e 's/0x[0-9a-f]+/H/g' -e 's/\b[0-9a-f]*[0-9][0-9a-f]*\b/N/g' \
		-e 's/[0-9]+/N/g' -e 's/N(\.N)+/N/g' -e 's/\b(N [a-z-]+)s\b/\1/g' \
		-e 's/ +/ /g'
}

# The CPU, as the transcript's heading names it.
cpu_line() {
	awk -F': ' '/^vendor_id/ && !v { v = $2 } /^cpu family/ && !f { f = $2 }
		/^model\t/ && !m { m = $2 } /^model name/ && !n { n = $2 }
		END { printf "%s (%s, family 0x%x model 0x%x)", n, v, f, m }' /proc/cpuinfo
}

# The markers' lines, and what lies between them.
b=$(grep -n -x -F -e "$BEGIN" "$readme" | head -n 1 | cut -d: -f1)
e=$(grep -n -x -F -e "$END" "$readme" | head -n 1 | cut -d: -f1)
between() { [ -n "$b" ] && [ -n "$e" ] && sed -n "${b},${e}p" "$readme"; }

out=$(mktemp) || exit 1
trap 'rm -f "$out" "$out.md" "$out.a" "$out.b"' EXIT
examples/demo.sh >"$out" 2>&1 || { cat "$out"; echo "transcript.sh: the demo failed" >&2; exit 1; }

if [ "${1:-}" = --check ]; then
	between | sed '1,/^```$/d; /^```$/,$d' | shape >"$out.a"
	[ -s "$out.a" ] || { echo "transcript.sh: no transcript between the markers in $readme" >&2; exit 1; }
	shape <"$out" | sed '/^$/d' >"$out.b"
	sed -i '/^$/d' "$out.a"
	if ! diff -u "$out.a" "$out.b"; then
		echo "transcript.sh: the demo prints what $readme does not show: run examples/transcript.sh" >&2
		exit 1
	fi
	echo "$readme's demo transcript has the shape of this run ($(wc -l <"$out.b") lines)"
	exit 0
fi

[ -n "$b" ] && [ -n "$e" ] && [ "$b" -lt "$e" ] ||
	{ echo "transcript.sh: $readme lacks the markers, in order" >&2; exit 1; }
{
	head -n "$b" "$readme"
	echo "On $(cpu_line), $(date +%Y-%m-%d) (times and the CPU line vary):"
	echo
	echo '```'
	sed "s|$(pwd)/||g" "$out"
	echo '```'
	tail -n "+$e" "$readme"
} >"$out.md" || exit 1
# all of the file but the transcript is as it was, or nothing is written
[ "$(head -n "$b" "$out.md")" = "$(head -n "$b" "$readme")" ] &&
	[ "$(wc -l <"$out.md")" -gt "$(wc -l <"$readme")" -o "$e" -gt $((b + 1)) ] ||
	{ echo "transcript.sh: the new $readme came out wrong; left as it was" >&2; exit 1; }
cat "$out.md" >"$readme" && echo "$readme: transcript of $(wc -l <"$out") lines written"
