#!/bin/sh
# copybench.sh - the copy routines against glibc, pinned to one CPU
# (COPYBENCH_CPU, default 1), with the machine named first.
#   bench/copybench.sh [copybench options]
set -e
cd "$(dirname "$0")/.."
cpu=${COPYBENCH_CPU:-1}
grep -m1 "model name" /proc/cpuinfo
echo "glibc $(ldd --version | head -1 | sed 's/.* //'); $(uname -r); pinned to CPU $cpu"
/lib64/ld-linux-x86-64.so.2 --list-diagnostics 2>/dev/null |
	grep -E "rep_movsb_threshold|non_temporal_threshold|shared_cache_size" || true
exec taskset -c "$cpu" build/bench/copybench "$@"
