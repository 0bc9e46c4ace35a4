#!/bin/sh
# bench-ratios.sh DIR... - kernel mode's routines against Linux's own,
# class by class, from make bench-kernel's results of several processes
# (each DIR holds one process's bench.csv and copybench.txt).  A cell is
# one (size, shape, placement); its figure is Linux's time over ours
# (>1: ours faster), from the two speedups over glibc of one process,
# then the median over the processes.  Prints every cell, then per class,
# shape and placement the geomean over the distributions and the worst
# cell, and last the cells where ours is slower than 0.97 of Linux's.
set -eu
[ $# -ge 1 ] || { echo "usage: bench-ratios.sh DIR..." >&2; exit 2; }

# One line per process and cell: op class size shape offset ratio (a
# memset's offset as OFFSET/fFILL: bench.c times two fill bytes).
cells() {
	for d in "$@"; do
		awk -F, -v run="$d" '
			/^#/ || $1 == "candidate" { next }
			{ s[$1 "|" $2 "|" $3 "|" $4 "/f" $5] = $8 }
			END {
				n = split("erms rep_good orig", cl, " ")
				for (k in s) {
					split(k, f, "|")
					if (f[1] !~ /^k-/) continue
					c = substr(f[1], 3)
					l = "linux-memset_" c "|" f[2] "|" f[3] "|" f[4]
					if (l in s && s[l] > 0)
						print "memset", c, f[2], f[3], f[4], s[k] / s[l]
				}
			}' "$d/bench.csv"
		awk -v run="$d" '
			/^## / { sh = $0; sub(/.*\(/, "", sh); sub(/\).*/, "", sh); next }
			$1 == "config" { for (i = 2; i <= NF; i++) col[i + 1] = $i; next }
			NF > 3 && $2 ~ /^(al|mis|rnd)$/ {
				off = $2 == "al" ? "0" : $2 == "mis" ? "3" : "rand"
				for (i = 4; i <= NF; i++) r[col[i]] = $i
				split("erms rep_good orig", cl, " ")
				for (j = 1; j <= 3; j++) {
					k = r["k-" cl[j]]; l = r["linux-memcpy_" cl[j]]
					if (k != "" && l != "" && k != "-" && l > 0)
						print "memcpy", cl[j], $1, sh, off, k / l
				}
			}' "$d/copybench.txt"
	done
}

cells "$@" | sort -k1,1 -k2,2 -k4,4 -k5,5 -k3,3 -k6,6g | awk '
	function flush() {
		if (cur == "") return
		med = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
		printf "%-6s %-8s %-8s %-5s %-5s %5.2f  (%d)\n", o, c, z, sh, of, med, m
		key = o " " c " " sh " " of
		if (!(key in worst)) { order[++nk] = key; worst[key] = med; wz[key] = z }
		if (z ~ /^dist-/) { lg[key] += log(med); ng[key]++ }
		if (med < worst[key]) { worst[key] = med; wz[key] = z }
		if (med < 0.97) slow[++ns] = sprintf("%s %s %s %s %s: %.2f", o, c, z, sh, of, med)
		m = 0
	}
	{
		k = $1 " " $2 " " $3 " " $4 " " $5
		if (k != cur) { flush(); cur = k; o = $1; c = $2; z = $3; sh = $4; of = $5 }
		v[++m] = $6
	}
	END {
		flush()
		print ""
		print "# per op, class, shape, placement: geomean over the distributions, worst cell"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%-32s dists %5.2f   worst %5.2f at %s\n", k,
				ng[k] ? exp(lg[k] / ng[k]) : 0, worst[k], wz[k]
		}
		print ""
		print "# cells below 0.97 (Linux faster by more than 3%)"
		for (i = 1; i <= ns; i++) print slow[i]
	}'
