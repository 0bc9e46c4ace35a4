# tests/realworld: real code bases (Debian's zlib and lz4 built with
# CC=plugin/repstos-cc through their own build systems), `make install`
# acceptance, the man pages, repstos-cc's edge cases, repstos-cc behind
# ccache and distcc; repstos itself built as Debian packages (debian.sh).
#
# Order matters: install.sh reuses the zlib source realworld.sh fetched.

DEB_PKGS += cmake groff man-db ccache distcc debhelper lintian \
	autoconf automake

REALWORLD_TESTS := tests/realworld/realworld.sh tests/realworld/install.sh \
	tests/realworld/manpages.sh tests/realworld/cc.sh \
	tests/realworld/ccache.sh tests/realworld/distcc.sh \
	tests/realworld/debian.sh tests/realworld/readme.sh

TESTS += $(REALWORLD_TESTS)
# apt.sh: fetch_source's private apt configuration, with a made-up
# machine and apt-get; nothing built, nothing fetched.
TESTS += tests/realworld/apt.sh
# demotime.sh: the demo's interleaved timing (examples/rounds.sh), on
# made-up runs and times; nothing built.
TESTS += tests/realworld/demotime.sh
$(REALWORLD_TESTS): $(PLUGIN_SO) $(RT_LIB) $(RT_FULL_LIB) patcher/repstos
# cc.sh runs repstos-cc with clang-16 too, where it is installed.
tests/realworld/cc.sh: $(filter $(LLVM_PLUGIN),$(ALL))

# `make realworld`: only the real code bases (a skip is not an error).
.PHONY: realworld
realworld: tests/realworld/realworld.sh
	@tests/realworld/realworld.sh; rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

# `make realworld-sqlite`, `make realworld-coreutils`: two bigger code
# bases through their own suites, 8 and 16 minutes, not in `make test`:
# Debian's sqlite3 and its `make quicktest` with memset sites (half the
# suite) and with copy sites too, 0 errors (tests/realworld/sqlite.sh); Debian's
# coreutils with -D_FORTIFY_SOURCE=2 and its `make check`, failing no
# test the plain build passes (tests/realworld/coreutils.sh).  Each runs
# on a fresh machine: it installs what is missing first (deps: tcl-dev
# for sqlite's test harness; the libraries Debian's coreutils build
# depends on), then builds and runs in a second make, as `make test`
# does.  A skip (no source to be had) fails here: CI runs them to know.
DEB_PKGS += tcl-dev libacl1-dev libattr1-dev libselinux1-dev libgmp-dev
.PHONY: realworld-sqlite realworld-coreutils run-realworld-sqlite run-realworld-coreutils
realworld-sqlite realworld-coreutils: deps
	@$(MAKE) --no-print-directory run-$@
run-realworld-sqlite: $(PLUGIN_SO) $(RT_LIB) patcher/repstos $(filter $(LLVM_PLUGIN),$(ALL))
	tests/realworld/sqlite.sh
run-realworld-coreutils: $(PLUGIN_SO) $(RT_LIB) patcher/repstos
	tests/realworld/coreutils.sh

# `make debrebuild PKGS="libyaml json-c ..."`: Debian source packages
# rebuilt with dpkg-buildpackage, plain and with repstos-cc, their own
# tests on (tests/realworld/debrebuild.sh; one row per package).  Not
# in `make test`: two full package builds each, serially.
# The default list: C packages whose Debian build runs their tests, a
# few minutes each, that pass (tests/realworld/results/*/debrebuild.txt
# says why bc, expat, lz4, sed, gzip and nettle are not in it: gzip
# wants DEBREBUILD_CC=0, nettle DEBREBUILD_CXX=1).  DEBREBUILD_COPY=1:
# copy sites too (-fplugin-arg-repstos-copy on every repstos-cc call;
# the table of that run: results/*/debrebuild-copy.txt).
DEBREBUILD_PKGS := libyaml json-c popt mawk patch libtasn1-6 libpng1.6 \
	diffutils libffi grep jansson
PKGS ?= $(DEBREBUILD_PKGS)
.PHONY: debrebuild
debrebuild: $(PLUGIN_SO) $(RT_LIB) patcher/repstos
	tests/realworld/debrebuild.sh $(PKGS)

# `make bench-realworld`: zlib's and lz4's own benchmarks, built plain,
# with memset sites and with copy sites too (tests/realworld/bench.sh;
# results in tests/realworld/results/); `make bench` runs it with the
# others.  Timing on CPU $(BENCH_CPU) (default 1).
bench: bench-realworld
bench-realworld: $(PLUGIN_SO) $(RT_LIB) patcher/repstos
	tests/realworld/bench.sh
.PHONY: bench-realworld
