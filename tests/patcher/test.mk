# tests/patcher: the `repstos` ELF tool (issue 4).  Shell scripts that
# build their inputs from tests/patcher/src with runtime/librepstos.a
# (and plugin/repstos.so when it is built), each in its scratch folder.

# libcap2-bin: setcap and getcap, for harden.sh's file capabilities.
DEB_PKGS += python3 binutils libcap2-bin

PATCHER_TESTS := tests/patcher/inputs.sh tests/patcher/broken.sh tests/patcher/usage.sh \
	tests/patcher/kernel.sh \
	tests/patcher/patch.sh tests/patcher/badinput.sh \
	tests/patcher/harden.sh tests/patcher/asan.sh tests/patcher/fuzz.sh \
	tests/patcher/copies.sh

TESTS += $(PATCHER_TESTS)

# Scripts need no building; these only make sure what they run is built.
$(PATCHER_TESTS): $(PATCHER_BIN) $(RT_LIB) $(RT_FULL_LIB) $(PLUGIN_SO)
tests/patcher/asan.sh: $(PATCHER_ASAN_BIN)
ifneq ($(PATCHER_CLANG),)
tests/patcher/fuzz.sh: $(PATCHER_FUZZ_BIN)
endif

# The tuning file, --cpu=native with it, and the runtime rescuing a file
# patched for a CPU with more than this one.
TESTS += tests/patcher/tune.sh
tests/patcher/tune.sh: $(PATCHER_BIN) $(RTT)/sites $(RTT)/sites-full

# tune --run: pins in profiles, in the runtime and the tool, and the
# search that writes them (a program of librepstos-full.a, one of
# librepstos.a refused, one of the shared runtime taken).
TESTS += tests/patcher/tunerun.sh
tests/patcher/tunerun.sh: $(PATCHER_BIN) $(RT_LIB) $(RT_FULL_LIB) $(RT_SHARED_DEPS) \
	$(PLUGIN_SO)

# tune's rule for the module routine, on crafted figures (patcher/pick.c).
TESTS += $(B)/tests/patcher/pick
DEPS += $(B)/tests/patcher/pick.d
$(B)/tests/patcher/pick: tests/patcher/pick.c $(B)/patcher/pick.o
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O2 -g $(WARN) -Ipatcher $(DEPFLAGS) -o $@ tests/patcher/pick.c $(B)/patcher/pick.o
