# tests/runtime: the runtime on its own, through hand-written sites.
RTT_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime -Itests/runtime \
	-fno-tree-loop-distribute-patterns $(DEPFLAGS)
# Each program is built from one source in one step: its .d is beside it.
RTT_PROGS := sites sites-static sites-nosep sites-full late.o late_sites.o copy copysites \
	copysites-static seccomp_run \
	libdso.so dlopen_main harden harden-full \
	librace.so race relro-pie relro-nopie relro-static relro-static-pie \
	librelro.so regs.o regs_harness.o
DEPS += $(patsubst %,$(RTT)/%.d,$(basename $(RTT_PROGS)))

$(RTT)/sites: tests/runtime/sites.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RT_LIB)

TESTS += tests/runtime/sites.sh
tests/runtime/sites.sh: $(RTT)/sites

# Two sources: compiled apart, so that each has its own .d.
$(RTT)/regs.o: tests/runtime/regs.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
$(RTT)/regs_harness.o: tests/runtime/regs_harness.S
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
# librepstos-full.a: the profiling routines are checked too.
$(RTT)/regs: $(RTT)/regs.o $(RTT)/regs_harness.o $(RT_FULL_LIB)
	$(CC) -o $@ $(RTT)/regs.o $(RTT)/regs_harness.o $(RT_FULL_LIB)

TESTS += $(RTT)/regs

# regs.c's checks with regs_libc.c's memset and memmove in the C
# library's place: the "libc" adaptors keep every register a site keeps.
$(RTT)/regs_libc: tests/runtime/regs_libc.c $(RTT)/regs.o $(RTT)/regs_harness.o $(RT_FULL_LIB)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RTT)/regs.o $(RTT)/regs_harness.o \
		$(RT_FULL_LIB)

TESTS += $(RTT)/regs_libc

$(RTT)/sites-static: tests/runtime/sites.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -static -o $@ $< $(RT_LIB)

$(RTT)/seccomp_run: tests/runtime/seccomp_run.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $<

# The same with librepstos-full.a, which reads tuning files
# (tests/patcher/tune.sh).
$(RTT)/sites-full: tests/runtime/sites.c $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RT_FULL_LIB)

# Linked with the headers and the code in one segment: no page of the
# file that nothing executes, for the mprotect route's probe.
$(RTT)/sites-nosep: tests/runtime/sites.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -Wl,-z,noseparate-code -o $@ $< $(RT_LIB)

TESTS += tests/runtime/mprotect.sh
tests/runtime/mprotect.sh: $(RTT)/seccomp_run $(RTT)/sites $(RTT)/sites-static \
	$(RTT)/sites-nosep

# late: sites linked after librepstos.a, on the pages of the mprotect
# route's own window (late.c): 400 of them, generated.
$(RTT)/late_sites.c: tests/runtime/test.mk
	@mkdir -p $(@D)
	awk 'BEGIN { print "#include \"repstos.h\""; \
		print "void late_sites(unsigned char *p, unsigned long n)\n{"; \
		for (i = 0; i < 400; i++) print "\tREPSTOS_MEMSET(p, 0x5a, n);"; \
		print "}" }' >$@
$(RTT)/late_sites.o: $(RTT)/late_sites.c
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
$(RTT)/late.o: tests/runtime/late.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
$(RTT)/late: $(RTT)/late.o $(RTT)/late_sites.o $(RT_LIB)
	$(CC) -no-pie -o $@ $(RTT)/late.o $(RT_LIB) $(RTT)/late_sites.o

TESTS += tests/runtime/beside.sh
tests/runtime/beside.sh: $(RTT)/seccomp_run $(RTT)/late

$(RTT)/libdso.so: tests/runtime/dso.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(RT_LIB)

$(RTT)/dlopen_main: tests/runtime/dlopen_main.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RT_LIB) -ldl

TESTS += tests/runtime/dlopen.sh
tests/runtime/dlopen.sh: $(RTT)/dlopen_main $(RTT)/libdso.so

TESTS += tests/runtime/valgrind.sh
tests/runtime/valgrind.sh: $(RTT)/sites $(RTT)/regs $(RTT)/dlopen_main $(RTT)/libdso.so

# Issue 10: hardening.  harden is a probe of what the runtime decided.
$(RTT)/harden: tests/runtime/harden.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RT_LIB)

# The same with librepstos-full.a, which reads tuning files: secure.sh
# runs both.
$(RTT)/harden-full: tests/runtime/harden.c $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RT_FULL_LIB)

TESTS += tests/runtime/secure.sh
tests/runtime/secure.sh: $(RTT)/harden $(RTT)/harden-full

# race: code that runs on pages while the mprotect route patches them.
$(RTT)/librace.so: tests/runtime/race_lib.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -o $@ $< -lpthread

$(RTT)/race: tests/runtime/race.c $(RTT)/librace.so $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -rdynamic -o $@ $< $(RT_LIB) -L$(RTT) -lrace \
		-Wl,-rpath,$(abspath $(RTT)) -lpthread

TESTS += tests/runtime/race.sh
tests/runtime/race.sh: $(RTT)/race $(RTT)/seccomp_run

TESTS += tests/runtime/fallback.sh
tests/runtime/fallback.sh: $(RTT)/harden $(RTT)/seccomp_run $(PATCHER_BIN)

# The libc variant: every site calls the C library's function.
TESTS += tests/runtime/libc.sh
tests/runtime/libc.sh: $(RTT)/sites $(RTT)/copysites $(RTT)/regs_libc $(PATCHER_BIN)

# REPSTOS_DEBUG=2's line per site, and its bound in a program of many.
TESTS += tests/runtime/debug.sh
tests/runtime/debug.sh: $(RTT)/sites $(PT)/manysites $(RTT)/dlopen_main \
	$(RTT)/librelro.so

TESTS += tests/runtime/cet.sh
tests/runtime/cet.sh: $(RT_LIB) $(PLUGIN_SO)

# relro: the dispatch pointer is read-only after start-up, however linked.
RELRO := -Wl,-z,relro,-z,now
RELRO_SRC := tests/runtime/harden.c $(RT_LIB)
$(RTT)/relro-pie: $(RELRO_SRC)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIE -pie $(RELRO) -o $@ $< $(RT_LIB)
$(RTT)/relro-nopie: $(RELRO_SRC)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fno-pie -no-pie $(RELRO) -o $@ $< $(RT_LIB)
$(RTT)/relro-static: $(RELRO_SRC)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -static $(RELRO) -o $@ $< $(RT_LIB)
$(RTT)/relro-static-pie: $(RELRO_SRC)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIE -static-pie $(RELRO) -o $@ $< $(RT_LIB)
$(RTT)/librelro.so: tests/runtime/relro_dso.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -fvisibility=hidden $(RELRO) -o $@ $< $(RT_LIB)

TESTS += tests/runtime/relro.sh
tests/runtime/relro.sh: $(RTT)/relro-pie $(RTT)/relro-nopie $(RTT)/relro-static \
	$(RTT)/relro-static-pie $(RTT)/librelro.so $(RTT)/dlopen_main

# Copy routines (copy.S) against a byte loop, as copies and as moves.
# -mno-red-zone: the test calls the routines from inline asm.
$(RTT)/copy: tests/runtime/copy.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -mno-red-zone -o $@ $< $(RT_LIB)

TESTS += $(RTT)/copy

# Hand-written copy sites: patched as each choice says, never a move
# site inline.
$(RTT)/copysites: tests/runtime/copysites.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RT_LIB)
$(RTT)/copysites-static: tests/runtime/copysites.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -static -o $@ $< $(RT_LIB)

TESTS += tests/runtime/copysites.sh
tests/runtime/copysites.sh: $(RTT)/copysites $(RTT)/copysites-static

# The shared runtime (runtime/module/module.h): the same programs with every
# module linked with -lrepstos-shared, and the core after it for the test
# programs' own look-ups of routines and names (not the start-up's).
RTS := $(RTT)/shared
RTS_LINK := $(RT_SHARED_LDFLAGS) $(RT_CORE_LIB)
RTS_DEPS := $(RT_SHARED_DEPS) $(RT_CORE_LIB)
DEPS += $(patsubst %,$(RTS)/%.d,sites copysites libdso dlopen_main)

$(RTS)/sites $(RTS)/copysites: $(RTS)/%: tests/runtime/%.c $(RTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RTS_LINK)

$(RTS)/libdso.so: tests/runtime/dso.c $(RTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(RTS_LINK)

$(RTS)/dlopen_main: tests/runtime/dlopen_main.c $(RTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RTS_LINK) -ldl

TESTS += tests/runtime/shared.sh
tests/runtime/shared.sh: $(RTS)/sites $(RTS)/copysites $(RTS)/libdso.so \
	$(RTS)/dlopen_main $(RTT)/dlopen_main $(RTT)/libdso.so $(PATCHER_BIN)

# Issue 25, hardening's second pass: what a dlopen()/dlclose() cycle
# leaves behind (cycles.sh: libcycle.so with librepstos.a and with the
# shared runtime, libplain.so the same object built plain), and
# READ_IMPLIES_EXEC (rie.sh: tests/policy's probe dlopen()s libcycle.so).
DEPS += $(RTT)/cycle.d $(RTT)/libcycle.d $(RTT)/libcycle-full.d \
	$(RTT)/libplain.d $(RTS)/libcycle.d

$(RTT)/cycle: tests/runtime/cycle.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< -ldl

$(RTT)/libcycle.so: tests/runtime/cyclelib.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(RT_LIB)

# librepstos-full.a's too: cycles.sh profiles its dlopen cycles
$(RTT)/libcycle-full.so: tests/runtime/cyclelib.c $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(RT_FULL_LIB)

$(RTT)/libplain.so: tests/runtime/cyclelib.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -DPLAIN -fPIC -shared -fvisibility=hidden -o $@ $<

$(RTS)/libcycle.so: tests/runtime/cyclelib.c $(RTS_DEPS)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(RTS_LINK)

TESTS += tests/runtime/cycles.sh tests/runtime/rie.sh
tests/runtime/cycles.sh: $(RTT)/cycle $(RTT)/libcycle.so $(RTT)/libcycle-full.so \
	$(RTT)/libplain.so $(RTS)/libcycle.so
tests/runtime/rie.sh: $(PT)/probe $(RTT)/libcycle.so

# sweep: every routine at every place it branches on, its paths counted.
# set.S and copy.S are assembled again with -DREPSTOS_PATHS (path_mark,
# asm.h) and linked before the core archive, whose own set.o and copy.o
# then define nothing still missing and stay out of the link.
RTT_COV := $(RTT)/cov
DEPS += $(RTT_COV)/set.d $(RTT_COV)/copy.d $(RTT_COV)/libc_set.d $(RTT_COV)/libc_copy.d $(RTT)/sweep.d \
	$(RTT)/sweep_call.d
$(RTT_COV)/%.o: runtime/routines/%.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -DREPSTOS_PATHS $(DEPFLAGS) -c -o $@ $<
$(RTT)/sweep.o: tests/runtime/sweep.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
$(RTT)/sweep_call.o: tests/runtime/sweep_call.S
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
$(RTT)/sweep: $(RTT)/sweep.o $(RTT)/sweep_call.o $(RTT_COV)/set.o \
		$(RTT_COV)/copy.o $(RTT_COV)/libc_set.o $(RTT_COV)/libc_copy.o \
		$(RT_CORE_LIB)
	$(CC) -o $@ $^

TESTS += tests/runtime/sweep.sh
tests/runtime/sweep.sh: $(RTT)/sweep

# `make sweep-routines`: the full sweep (every end distance 0..4159,
# every move distance -300..300, sizes to 16 MiB); CI runs it after
# `make test`.  Each path's count lands in build/tests/runtime/paths.txt.
# One process per CPU, the routines dealt among them (sweep.c, -j).
.PHONY: sweep-routines
sweep-routines: $(RTT)/sweep
	$(RTT)/sweep -f -j $(NPROC) -p $(RTT)/paths.txt

# Differential fuzzing of every routine against a byte loop
# (fuzz_routines.c), through regs_harness.S's call.  The standalone
# driver replays the seed corpus and runs random cases in make test.
RTT_FUZZ := $(RTT)/fuzz
RTT_FUZZ_CORPUS := tests/runtime/fuzz-corpus
DEPS += $(RTT)/fuzz_routines.d $(RTT_FUZZ)/fuzz_routines.d

$(RTT)/fuzz_routines: tests/runtime/fuzz_routines.c $(RTT)/regs_harness.o $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $< $(RTT)/regs_harness.o $(RT_LIB)

TESTS += tests/runtime/fuzz.sh
tests/runtime/fuzz.sh: $(RTT)/fuzz_routines

# make fuzz-routines [FUZZ_SECONDS=300]: libFuzzer over the same cases,
# the seed corpus and a working corpus kept between runs; fails on a
# crash (the input is left in $(RTT_FUZZ)/crash-*).  After a clean run
# the working corpus is merged down to the inputs that reach some class
# of case (libFuzzer keeps every smaller copy it finds).  clang and
# libFuzzer are installed first where missing, as `make deps` does;
# where they cannot be, the standalone driver runs for the time instead.
# A second make, so that the look-up of clang sees what was installed;
# lazy (=), so that only this target runs clang to find libFuzzer.
FUZZ_SECONDS ?= 300
RTT_FUZZ_PKGS := clang libclang-rt-14-dev
RTT_CLANG = $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null)
RTT_LIBFUZZER = $(if $(RTT_CLANG),$(wildcard $(shell $(RTT_CLANG) \
	-print-file-name=libclang_rt.fuzzer-x86_64.a)))
# -fno-builtin: the byte loops stay byte loops (clang's own
# -fno-tree-loop-distribute-patterns).
RTT_FUZZ_CFLAGS = $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime -fno-builtin \
	-fsanitize=fuzzer -DFUZZ_LIBFUZZER $(DEPFLAGS)

$(RTT_FUZZ)/fuzz_routines: tests/runtime/fuzz_routines.c $(RTT)/regs_harness.o $(RT_LIB)
	@mkdir -p $(@D)
	$(RTT_CLANG) $(RTT_FUZZ_CFLAGS) -o $@ $< $(RTT)/regs_harness.o $(RT_LIB)

.PHONY: fuzz-routines fuzz-routines-run
fuzz-routines:
	@missing=""; for p in $(RTT_FUZZ_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
			grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make fuzz-routines: installing$$missing"; \
		{ apt-get $(APT_WAIT) update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get $(APT_WAIT) install -y -qq --no-install-recommends \
			$$missing; } || \
			echo "make fuzz-routines: could not install$$missing"; \
	fi
	@$(MAKE) --no-print-directory fuzz-routines-run

fuzz-routines-run: $(RTT)/fuzz_routines
	@mkdir -p $(RTT_FUZZ)/corpus
	@if [ -n "$(RTT_LIBFUZZER)" ] && \
		$(MAKE) --no-print-directory $(RTT_FUZZ)/fuzz_routines; then \
		echo "libFuzzer for $(FUZZ_SECONDS) s: $(RTT_FUZZ)/fuzz_routines"; \
		$(RTT_FUZZ)/fuzz_routines -max_total_time=$(FUZZ_SECONDS) \
			-max_len=64 -timeout=10 -print_final_stats=1 \
			-artifact_prefix=$(RTT_FUZZ)/ \
			$(RTT_FUZZ)/corpus $(RTT_FUZZ_CORPUS) || exit 1; \
		rm -rf $(RTT_FUZZ)/corpus.new && mkdir $(RTT_FUZZ)/corpus.new && \
		$(RTT_FUZZ)/fuzz_routines -merge=1 $(RTT_FUZZ)/corpus.new \
			$(RTT_FUZZ)/corpus >$(RTT_FUZZ)/merge.log 2>&1 && \
		rm -rf $(RTT_FUZZ)/corpus && mv $(RTT_FUZZ)/corpus.new $(RTT_FUZZ)/corpus && \
		echo "working corpus merged: $$(ls $(RTT_FUZZ)/corpus | wc -l) inputs"; \
	else \
		echo "no clang with libFuzzer: the standalone driver for $(FUZZ_SECONDS) s"; \
		$(RTT)/fuzz_routines -t $(FUZZ_SECONDS) $(RTT_FUZZ_CORPUS) \
			$(RTT_FUZZ)/corpus || exit 1; \
	fi

# Issue 45: the start-up under a default-kill seccomp allow-list
# (sandbox.sh): one source, built plain and through the plugin, each
# dynamic and static.
RTT_SANDBOX := sandbox sandbox-plain sandbox-static sandbox-plain-static
DEPS += $(patsubst %,$(RTT)/%.d,$(RTT_SANDBOX))
$(RTT)/sandbox-plain $(RTT)/sandbox-plain-static: tests/runtime/sandbox.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) $(if $(filter %-static,$@),-static) -o $@ $< -lpthread
$(RTT)/sandbox $(RTT)/sandbox-static: tests/runtime/sandbox.c $(RT_LIB) $(PLUGIN_SO)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) $(if $(filter %-static,$@),-static) \
		-fplugin=$(PLUGIN_SO) -o $@ $< $(RT_LIB) -lpthread

TESTS += tests/runtime/sandbox.sh
tests/runtime/sandbox.sh: $(patsubst %,$(RTT)/%,$(RTT_SANDBOX)) \
	$(RTT)/seccomp_run runtime/repstos.7

# Issue 45: a tmpfs on /proc is not the proc file system (fakeproc.sh).
TESTS += tests/runtime/fakeproc.sh
tests/runtime/fakeproc.sh: $(RTT)/sites $(RTT)/sandbox
