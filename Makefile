# repstos - top-level, non-recursive build.  Each part adds itself in its
# own fragment; this file holds only what they share.
#
#   make          build everything
#   make test     install what is missing, build, run every test
#   make demo     install what is missing, build, run the demo
#   make bench    run the benchmarks in bench (not part of make test)
#   make deps     install the Debian packages the build needs

CC	?= gcc
CXX	?= g++
ifeq ($(origin CC),default)
CC	:= gcc
endif
ifeq ($(origin CXX),default)
CXX	:= g++
endif
AR	?= ar

# Warnings and standard for the C parts (runtime, patcher, tests).
WARN	:= -Wall -Wextra -Wno-unused-parameter
CSTD	:= -std=gnu11
OPT	?= -O2 -g

B	:= build

# The release: `repstos --version`, `repstos-cc --version`, the .pc files.
VERSION	:= 0.1
# The GCC majors the plugin's tests ran with: make test's (the machine's,
# Debian 12) and make test-compilers' (Debian 13's and testing's, which
# fails unless it tested exactly these).  repstos-cc --version says them.
TESTED_GCC := 12 14 15 16

# Every compile also writes the headers it read to a .d file beside its
# output (-MP: a removed header is no error); the fragments add theirs to
# DEPS, included at the end, so an object is rebuilt exactly when a file
# it includes changes.
DEPFLAGS := -MMD -MP
DEPS	:=
# Every rule is written out: no built-in one may guess how to make a .d
# (`%: %.o` would link build/x.d from build/x.d.o).
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

# Debian packages: what `make` builds with (`make demo` installs only
# these: build-deps), and on top what the tests and benchmarks need
# (`make deps`; each folder's .mk adds its own).
BUILD_PKGS := gcc g++ make binutils gcc-12-plugin-dev libelf-dev libdw-dev \
	libcapstone-dev pkg-config
DEB_PKGS := $(BUILD_PKGS) valgrind gnuplot-nox dpkg-dev

ALL		:=
TESTS		:=
CLEAN_FILES	:=

.PHONY: all test run-tests build-tests demo bench deps build-deps clean install \
	uninstall
all: build-all

include runtime/runtime.mk
include plugin/plugin.mk
include plugin/llvm/llvm.mk
include patcher/patcher.mk
include examples/examples.mk
include bench/bench.mk
include tests/tests.mk
include kernel/kernel.mk
-include $(DEPS)

build-all: $(ALL)

# `make test` may run on a machine with nothing installed: install first,
# then build and run in a second make, so that compiler and pkg-config
# queries see the installed packages.  The build takes every CPU
# (tests/build/deps.sh proves `make -j2 build-tests` from clean), the
# tests then run TEST_JOBS at a time (tests/run-tests).
NPROC	:= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) build-tests
	@$(MAKE) --no-print-directory run-tests

# Everything the tests run, built (tests/build/deps.sh builds this too).
build-tests: $(ALL) $(TESTS)

run-tests: build-tests
	@tests/run-tests $(TESTS)

# $(call apt_install,WHO,PACKAGES): install those not installed yet,
# waiting up to ten minutes for another apt or dpkg to let go of its lock
# (a fresh machine often runs unattended-upgrades at first).
APT_WAIT := -o DPkg::Lock::Timeout=600
define apt_install
	@missing=""; for p in $(2); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
			grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make $(1): installing$$missing"; \
		apt-get $(APT_WAIT) update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get $(APT_WAIT) install -y -qq --no-install-recommends \
			$$missing; \
	fi
endef

deps:
	$(call apt_install,deps,$(sort $(DEB_PKGS)))
build-deps:
	$(call apt_install,build-deps,$(BUILD_PKGS))

clean:
	rm -rf $(B) $(CLEAN_FILES)

# make install PREFIX=/usr/local DESTDIR=...  The LLVM plugin goes beside
# the GCC one where it was built (repstos-cc looks for it there), unless
# INSTALL_LLVM=no (debian/rules: not packaged yet).
PREFIX		?= /usr/local
BINDIR		:= $(PREFIX)/bin
LIBDIR		:= $(PREFIX)/lib
INCDIR		:= $(PREFIX)/include
PLUGINDIR	:= $(LIBDIR)/repstos
PCDIR		:= $(LIBDIR)/pkgconfig
MANDIR		:= $(PREFIX)/share/man
D		:= $(DESTDIR)

INSTALLED := $(BINDIR)/repstos $(BINDIR)/repstos-cc $(BINDIR)/repstos-c++ \
	$(PLUGINDIR)/repstos.so $(LIBDIR)/librepstos.a $(LIBDIR)/librepstos-full.a \
	$(LIBDIR)/librepstos.so.0 $(LIBDIR)/librepstos_nonshared.a \
	$(LIBDIR)/librepstos-shared.so $(PCDIR)/repstos-shared.pc \
	$(INCDIR)/repstos.h $(INCDIR)/repstos_site.h $(PCDIR)/repstos.pc \
	$(MANDIR)/man1/repstos.1 $(MANDIR)/man1/repstos-cc.1 \
	$(MANDIR)/man1/repstos-c++.1 \
	$(MANDIR)/man7/repstos.7 $(PLUGINDIR)/librepstos-llvm.so

# The shared runtime's run path, as repstos-cc adds it: none where the
# loader searches without one.
PC_RPATH = $(if $(filter /lib /usr/lib /lib/%-linux-gnu /usr/lib/%-linux-gnu,$(LIBDIR)),,-Wl$(comma)-rpath$(comma)$${libdir})
comma := ,

SUBST := sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCDIR@|$(INCDIR)|g' -e 's|@PLUGIN@|$(PLUGINDIR)/repstos.so|g' \
	-e 's|@RUNTIME@|$(LIBDIR)/librepstos.a|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@RPATH@|$(PC_RPATH)|g' -e 's|@TESTED_GCC@|$(TESTED_GCC)|g'

install: build-all
	install -d $(D)$(BINDIR) $(D)$(PLUGINDIR) $(D)$(LIBDIR) $(D)$(INCDIR) \
		$(D)$(PCDIR) $(D)$(MANDIR)/man1 $(D)$(MANDIR)/man7
	install -m 755 patcher/repstos $(D)$(BINDIR)/repstos
	$(SUBST) plugin/repstos-cc > $(D)$(BINDIR)/repstos-cc
	chmod 755 $(D)$(BINDIR)/repstos-cc
	ln -sf repstos-cc $(D)$(BINDIR)/repstos-c++
	install -m 644 plugin/repstos.so $(D)$(PLUGINDIR)/repstos.so
	$(if $(filter $(LLVM_PLUGIN),$(ALL)),$(if $(filter no,$(INSTALL_LLVM)),,\
		install -m 644 $(LLVM_PLUGIN) $(D)$(PLUGINDIR)/librepstos-llvm.so))
	install -m 644 runtime/librepstos.a $(D)$(LIBDIR)/librepstos.a
	install -m 644 runtime/librepstos-full.a $(D)$(LIBDIR)/librepstos-full.a
	install -m 644 runtime/librepstos.so.0 $(D)$(LIBDIR)/librepstos.so.0
	install -m 644 runtime/librepstos_nonshared.a runtime/librepstos-shared.so \
		$(D)$(LIBDIR)/
	install -m 644 include/repstos.h include/repstos_site.h $(D)$(INCDIR)/
	$(SUBST) runtime/repstos.pc.in > $(D)$(PCDIR)/repstos.pc
	$(SUBST) runtime/repstos-shared.pc.in > $(D)$(PCDIR)/repstos-shared.pc
	install -m 644 patcher/repstos.1 plugin/repstos-cc.1 $(D)$(MANDIR)/man1/
	ln -sf repstos-cc.1 $(D)$(MANDIR)/man1/repstos-c++.1
	install -m 644 runtime/repstos.7 $(D)$(MANDIR)/man7/

uninstall:
	rm -f $(addprefix $(D),$(INSTALLED))
	-rmdir $(D)$(PLUGINDIR) 2>/dev/null
