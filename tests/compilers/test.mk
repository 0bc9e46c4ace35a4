# tests/compilers: `make test-compilers`, the plugin tests with the GCC
# of every current Debian, each in a chroot of its own
# (tests/compilers/compilers.sh says which and how).  Not part of `make
# test`: it needs root and the Debian archive, and takes 14 minutes from
# nothing, 11 with the chroots cached (both on a busy machine); .ci/run
# runs it after make test.  The machine's own GCC
# is make test's; TESTED_GCC (the Makefile) lists them all, and the test
# fails when it claims another list.  The LLVM plugin's tests are not
# run there: they are of the machine's clang, which make test runs.
DEB_PKGS += mmdebstrap

.PHONY: test-compilers
test-compilers: $(PLUGIN_SO)
	$(call apt_install,test-compilers,mmdebstrap)
	@COMPILER_TESTS="$(filter-out tests/plugin/llvm%,$(PLUGIN_TESTS))" \
		tests/run-tests tests/compilers/compilers.sh

# `make test-kernel-gcc14`: the 6.12 test kernel built by Debian 13's
# GCC 14 (in test-compilers' chroot), plain and in kernel mode with the
# plugin GCC 14 built, booted as make test-kernel KERNEL_VERSION=6.12
# boots it (tests/compilers/kernel.sh).  Not in CI: two kernel builds.
.PHONY: test-kernel-gcc14
test-kernel-gcc14: $(PLUGIN_SO) $(PATCHER_BIN)
	$(call apt_install,test-kernel-gcc14,mmdebstrap)
	@tests/run-tests tests/compilers/kernel.sh
