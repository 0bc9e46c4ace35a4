# kernel/kernel.mk - `make test-kernel`: Debian's Linux 7.3 (or 6.1, 6.12) built
# plain and with -fplugin-arg-repstos-kernel, booted under QEMU TCG with
# three CPU models, our KTAP test built in and as a module (tests/kernel/,
# kernel/README.md).  Not part of `make test`: it builds two kernels.
# Included by the top Makefile.

KERNEL_TESTS	:= tests/kernel/boot.sh

# test-kernel builds and boots the newest version, 7.3: what CI runs
# (.ci/run), for a cold kernel build costs 2.5 minutes here on a quiet
# machine, 15-20 beside other builds, and CI has 90.  KERNEL_VERSION=6.1 or 6.12 builds and boots that version instead
# (Debian's linux-source-VERSION, kernel/getdeb.sh); test-kernel-all
# runs all three, one after another.
KERNEL_VERSIONS	:= 6.1 6.12 7.3
KERNEL_VERSION	?= $(lastword $(KERNEL_VERSIONS))

.PHONY: test-kernel test-kernel-all
test-kernel: $(PLUGIN_SO) $(PATCHER_BIN)
	@KERNEL_VERSION=$(KERNEL_VERSION) tests/run-tests $(KERNEL_TESTS)

test-kernel-all: $(PLUGIN_SO) $(PATCHER_BIN)
	@for v in $(KERNEL_VERSIONS); do \
		echo "== Linux $$v"; \
		KERNEL_VERSION=$$v tests/run-tests $(KERNEL_TESTS) || exit 1; \
		cp build/test-logs/kernel-boot.sh.log build/test-logs/kernel-boot-$$v.log; \
	done

# `make test-kernel-clang`: KERNEL_VERSION (6.12 unless given) built by
# clang 16 (make LLVM=-16) plain and with the LLVM plugin's kernel mode,
# booted as test-kernel boots the GCC builds (tests/kernel/clang.sh).
.PHONY: test-kernel-clang
test-kernel-clang: $(PLUGIN_SO) $(PATCHER_BIN) $(filter $(LLVM_PLUGIN),$(ALL))
	@KERNEL_VERSION=$(if $(filter command line environment,$(origin KERNEL_VERSION)),$(KERNEL_VERSION),6.12) \
		tests/run-tests tests/kernel/clang.sh

# `make test-kernel-defconfig`: x86_64 defconfig of KERNEL_VERSION with
# the plugin, objtool-clean and booted to our KTAP test
# (tests/kernel/defconfig.sh).  Not in CI: a defconfig build takes
# longer than CI can spend (kernel/README.md says how long).
# KERNEL_DEFCONFIG_PLAIN=1 builds the plain defconfig too.
KERNEL_DEFCONFIG_PLAIN ?= 0
.PHONY: test-kernel-defconfig
test-kernel-defconfig: $(PLUGIN_SO) $(PATCHER_BIN)
	@KERNEL_VERSION=$(KERNEL_VERSION) KERNEL_DEFCONFIG_PLAIN=$(KERNEL_DEFCONFIG_PLAIN) \
		tests/run-tests tests/kernel/defconfig.sh

# `make bench-kernel`: kernel mode's routines against Linux's own (the
# version's memset_64.S and memcpy_64.S: 6.1's memset_erms, memset_orig
# and REP_GOOD bodies; since 6.4 the FSRS/FSRM rep body and the _orig
# routines, kernel/bench.sh says how they pair), in user space; results
# in build/kernel/bench/VERSION/results/.  kernel/bench-ratios.sh turns
# the results of several runs into Linux's time over ours, class by
# class and cell by cell; `make bench-kernel-results` runs five and
# writes kernel/results/VERSION/routines-vs-linux.txt
# (kernel/bench-results.sh).  Every shape (back to back, last byte read,
# all read, first byte read) and placement (aligned, +3, random) issue
# 43 judges a routine in.
KBENCH_ARGS ?= -r 7 -s b2b,use,read,first -a 0,3,rand -c inline,site-erms,linux-call-jmp-erms,linux-memset_erms,linux-memset_orig,linux-memset_rep_good,k-erms,k-erms-ret,k-rep_good,k-orig
KCOPYBENCH_ARGS ?= -s b2b,use,read,first -a 0,3,rand -n 20000 -c glibc,rep-movsb,linux-call-jmp-erms,linux-memcpy_erms,linux-memcpy_orig,linux-memcpy_rep_good,k-erms,k-rep_good,k-orig
KBENCH_RUNS ?= 5
.PHONY: bench-kernel bench-kernel-results
bench-kernel: $(PLUGIN_SO) $(PB)/bench $(PB)/copybench $(RT_LIB)
	KERNEL_VERSION=$(KERNEL_VERSION) KCOPYBENCH_ARGS='$(KCOPYBENCH_ARGS)' kernel/bench.sh $(KBENCH_ARGS) $(BENCH_ARGS)
	@cat build/kernel/bench/$(KERNEL_VERSION)/results/summary.txt build/kernel/bench/$(KERNEL_VERSION)/results/copybench.txt
bench-kernel-results: $(PLUGIN_SO) $(PB)/bench $(PB)/copybench $(RT_LIB)
	KERNEL_VERSION=$(KERNEL_VERSION) kernel/bench-results.sh $(KBENCH_RUNS)
