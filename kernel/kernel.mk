# kernel/kernel.mk - `make test-kernel`: Debian 12's Linux 6.1 built
# plain and with -fplugin-arg-repstos-kernel, booted under QEMU TCG with
# three CPU models, our KTAP test built in and as a module (tests/kernel/,
# kernel/README.md).  Not part of `make test`: it builds two kernels.
# Included by the top Makefile.

KERNEL_TESTS	:= tests/kernel/boot.sh

.PHONY: test-kernel
test-kernel: $(PLUGIN_SO) $(PATCHER_BIN)
	@tests/run-tests $(KERNEL_TESTS)

# `make bench-kernel`: kernel mode's routines against Linux 6.1's own
# memset_erms, memset_orig, memcpy_erms and memcpy_orig in user space
# (kernel/bench.sh); results in build/kernel/bench/results/.
KBENCH_ARGS ?= -r 7 -s b2b,use -a 0 -c inline,site-erms,linux-call-jmp-erms,linux-memset_erms,linux-memset_orig,k-erms,k-erms-ret,k-rep_good,k-orig
KCOPYBENCH_ARGS ?= -s b2b,use -a 0,rand -c glibc,rep-movsb,linux-call-jmp-erms,linux-memcpy_erms,linux-memcpy_orig,k-erms,k-rep_good,k-orig
.PHONY: bench-kernel
bench-kernel: $(PLUGIN_SO) $(PB)/bench $(PB)/copybench $(RT_LIB)
	KCOPYBENCH_ARGS='$(KCOPYBENCH_ARGS)' kernel/bench.sh $(KBENCH_ARGS) $(BENCH_ARGS)
	@cat build/kernel/bench/results/summary.txt build/kernel/bench/results/copybench.txt
