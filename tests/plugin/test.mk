# tests/plugin: the GCC plugin (issue 3).  The scripts build their own
# programs under build/tests/plugin/ with plugin/repstos.so and link
# runtime/librepstos.a after the objects.
PLUGIN_TESTS := tests/plugin/corpus.sh tests/plugin/redzone.sh \
	tests/plugin/fortify.sh tests/plugin/asan.sh tests/plugin/options.sh \
	tests/plugin/gc.sh tests/plugin/copy.sh \
	tests/plugin/vector.sh tests/plugin/sweep.sh tests/plugin/links.sh \
	tests/plugin/use.sh tests/plugin/kernel.sh \
	tests/plugin/regs.sh tests/plugin/asmname.sh tests/plugin/kroutines.sh \
	tests/plugin/aggregate.sh tests/plugin/llvm.sh tests/plugin/llvm-sweep.sh \
	tests/plugin/llvm-kernel.sh

TESTS += $(PLUGIN_TESTS)
$(PLUGIN_TESTS): $(PLUGIN_SO) $(RT_LIB) $(PATCHER_BIN)

# sweep.sh builds with the shared runtime too.
tests/plugin/sweep.sh: $(RT_SHARED_DEPS)

# `make sweep-sites`: sweep.sh's full mode (every size to 1 KiB at every
# placement, to 16 MiB at a few: 4-9 minutes, as busy as the machine
# is); make test runs its quick mode.
.PHONY: sweep-sites
sweep-sites: tests/plugin/sweep.sh
	@tests/plugin/sweep.sh full

# llvm.sh, llvm-sweep.sh and llvm-kernel.sh: the LLVM plugin, where
# clang-16 built it (they skip where not); llvm-sweep.sh is sweep.sh
# with clang, llvm-kernel.sh kernel.sh.
tests/plugin/llvm.sh tests/plugin/llvm-sweep.sh tests/plugin/llvm-kernel.sh: $(filter $(LLVM_PLUGIN),$(ALL))
tests/plugin/llvm-sweep.sh: $(RT_SHARED_DEPS)
