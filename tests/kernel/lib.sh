# tests/kernel/lib.sh - what the kernel tests (boot.sh, defconfig.sh)
# share: tests/lib.sh, and the reading of the console of a test kernel
# booted under QEMU (kernel/boot.sh), the KTAP test's lines in it.
#   form CPU                 the routine a site holds under -cpu CPU
#   sites_of LOG WHERE       "N inline A erms B rep_good C orig D other E"
#   check_forms LOG WHERE WANT   every site of WHERE holds WANT
#   check_ktap LOG           two KTAP runs (built in, module), all passed
#   check_paths LOG          every counted routine path taken, both runs
#   boot VARIANT CPU [PARAM] boots into $K/VARIANT/console-*.log ($log)
#   calls_share VARIANT PLAIN the share of $K/PLAIN/vmlinux's calls
#                            left in $K/VARIANT/vmlinux (kernel/calls.sh),
#                            a summary line and a note per call left
#   build_kernel VARIANT     kernel/build.sh VARIANT, timed: ok or fail
#   took                     the test's time so far, as a summary line
# $K is the version's build folder (kernel/outdir.sh), set by the test.
. "$(dirname "$0")/../lib.sh"
t0=$(date +%s)

# build_kernel VARIANT: builds it (kernel/build.sh, its output in
# $K/build-VARIANT.out), an ok line with its time and objtool count, or
# a fail line with the build's last lines; the build's status
build_kernel() {
	start=$(date +%s)
	mkdir -p "$K"
	out=$K/build-$1.out
	if "$top/kernel/build.sh" "$1" >"$out" 2>&1; then
		ok "$1 kernel built ($(( $(date +%s) - start )) s): $(tail -n 1 "$out")"
	else
		fail "$1 kernel build: $(tail -n 5 "$out")"
		return 1
	fi
}

took() { echo "summary: the test took $(( $(date +%s) - t0 )) s"; }

# form CPU: what a site holds under -cpu CPU
form() {
	case $1 in
	max) echo erms ;;
	max,-erms) echo rep_good ;;
	kvm64,family=5) echo orig ;;
	esac
}

# sites LOG WHERE: "N inline A erms B rep_good C orig D other E"
sites_of() {
	sed -n "s/.*# repstos_ktest: $2 sites \([0-9]*\): inline \([0-9]*\), erms \([0-9]*\), rep_good \([0-9]*\), orig \([0-9]*\), other \([0-9]*\).*/\1 \2 \3 \4 \5 \6/p" "$1" | head -1
}

# check_forms LOG WHERE WANT: every site holds WANT (moves: erms when
# WANT is inline)
check_forms() {
	set -- "$1" "$2" "$3" $(sites_of "$1" "$2")
	[ $# -eq 9 ] || { fail "$1: no $2 sites line"; return; }
	total=$4 inl=$5 erms=$6 rg=$7 orig=$8 other=$9
	case $3 in
	none)	[ "$total" = 0 ] ;;
	inline)	[ "$inl" -gt 0 ] && [ $((inl + erms)) = "$total" ] ;;
	erms)	[ "$erms" = "$total" ] && [ "$total" -gt 0 ] ;;
	rep_good) [ "$rg" = "$total" ] && [ "$total" -gt 0 ] ;;
	orig)	[ "$orig" = "$total" ] && [ "$total" -gt 0 ] ;;
	esac && ok "$(basename "$1" .log): $2 sites $total: inline $inl, erms $erms, rep_good $rg, orig $orig, other $other (want $3)" ||
		fail "$(basename "$1" .log): $2 sites $total: inline $inl, erms $erms, rep_good $rg, orig $orig, other $other (want $3)"
}

# console LOG: its lines without carriage returns or printk's time
# (defconfig has CONFIG_PRINTK_TIME)
console() { tr -d '\r' <"$1" | sed 's/^\[ *[0-9]*\.[0-9]*\] //'; }

check_ktap() {
	n=$(console "$1" | grep -c '^KTAP version 1')
	[ "$n" = 2 ] || { fail "$1: $n KTAP runs, wanted 2 (built-in, module)"; return; }
	if grep -q 'not ok\|Oops\|BUG:\|WARNING:\|Kernel panic - not syncing: [^V]' "$1"; then
		fail "$(basename "$1" .log): failures on the console"
		grep 'not ok\|Oops\|BUG:\|WARNING:\|# .*wrong byte' "$1" | head -10
		return
	fi
	res=$(grep -c '# repstos_ktest: 9 passed, 0 failed' "$1")
	[ "$res" = 2 ] && ok "$(basename "$1" .log): KTAP 9 of 9 passed, built in and as a module" ||
		fail "$(basename "$1" .log): $res of 2 KTAP runs passed"
}

# check_paths LOG: the plugin build counts its routines' paths (build.sh
# passes -fplugin-arg-repstos-kernel-paths); the KTAP test calls every
# routine and prints each counter, built in and as a module: all taken.
check_paths() {
	res=$(tr -d '\r' <"$1" | grep -c '# repstos_ktest: paths taken \([0-9]*\) of \1$')
	[ "$res" = 2 ] && ok "$(basename "$1" .log): every routine path taken, built in and as a module ($(tr -d '\r' <"$1" | grep -m1 'paths taken' | sed 's/.*: //'))" ||
		fail "$(basename "$1" .log): paths: $(tr -d '\r' <"$1" | grep 'paths taken\|: path .* 0$' | head -5)"
}

# boot VARIANT CPU [PARAM]: PARAM is added to the kernel command line
boot() {
	log=$K/$1/console-$(echo "$2${3:+-$3}" | tr ',' '_').log
	start=$(date +%s)
	"$top/kernel/boot.sh" "$1" "$2" "${3:-}" >"$log" 2>&1
	note "$1 -cpu $2${3:+ $3}: booted in $(( $(date +%s) - start )) s"
	echo "summary: $1 -cpu $2${3:+ $3}: $(grep -m1 '# repstos_ktest: image sites' "$log" | sed 's/.*image //')"
	check_ktap "$log"
}

# calls_share VARIANT PLAIN: what share of PLAIN's calls became sites
# in VARIANT, and each call left (kernel/calls.sh)
calls_share() {
	calls=$("$top/kernel/calls.sh" "$K/$2/vmlinux" "$K/$1/vmlinux")
	echo "summary: vmlinux $(echo "$calls" | head -n 1)"
	echo "$calls" | tail -n +2 | sort | uniq -c | while read -r n l f t; do
		note "call left: $f -> $t ($n)"
	done
}
