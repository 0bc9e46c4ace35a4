# bench/lib.sh - sourced by the benchmark scripts: what they all print
# of the machine a figure comes from.

# cpu_desc: this CPU as /proc/cpuinfo names it, "NAME, family F model M"
# (decimal, as the kernel prints them).
cpu_desc() {
	awk -F': *' '
		/^model name/ && !n++ { name = $2 }
		/^cpu family/ && !f++ { fam = $2 }
		/^model[ \t]*:/ && !m++ { mod = $2 }
		END { printf "%s, family %s model %s", name, fam, mod }' /proc/cpuinfo
}
