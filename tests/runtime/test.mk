# tests/runtime: the runtime on its own, through hand-written sites.
RTT := $(B)/tests/runtime
RTT_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iruntime -Itests/runtime \
	-fno-tree-loop-distribute-patterns $(DEPFLAGS)
# Each program is built from one source in one step: its .d is beside it.
RTT_PROGS := sites sites-static copy copysites copysites-static seccomp_run libdso.so dlopen_main harden \
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
$(RTT)/regs: $(RTT)/regs.o $(RTT)/regs_harness.o $(RT_LIB)
	$(CC) -o $@ $(RTT)/regs.o $(RTT)/regs_harness.o $(RT_LIB)

TESTS += $(RTT)/regs

$(RTT)/sites-static: tests/runtime/sites.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -static -o $@ $< $(RT_LIB)

$(RTT)/seccomp_run: tests/runtime/seccomp_run.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -o $@ $<

TESTS += tests/runtime/mprotect.sh
tests/runtime/mprotect.sh: $(RTT)/seccomp_run $(RTT)/sites $(RTT)/sites-static

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

TESTS += tests/runtime/secure.sh
tests/runtime/secure.sh: $(RTT)/harden

# race: code that runs on pages while the mprotect route patches them.
$(RTT)/librace.so: tests/runtime/race_lib.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -fPIC -shared -o $@ $< -lpthread

$(RTT)/race: tests/runtime/race.c $(RTT)/librace.so $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -rdynamic -o $@ $< $(RT_LIB) -L$(RTT) -lrace \
		-Wl,-rpath,$(abspath $(RTT)) -lpthread

TESTS += tests/runtime/race.sh
tests/runtime/race.sh: $(RTT)/race

TESTS += tests/runtime/fallback.sh
tests/runtime/fallback.sh: $(RTT)/harden $(RTT)/seccomp_run $(PATCHER_BIN)

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

# The shared runtime (runtime/module.h): the same programs with every
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

# sweep: every routine at every place it branches on, its paths counted.
# set.S and copy.S are assembled again with -DREPSTOS_PATHS (path_mark,
# asm.h) and linked before the core archive, whose own set.o and copy.o
# then define nothing still missing and stay out of the link.
RTT_COV := $(RTT)/cov
DEPS += $(RTT_COV)/set.d $(RTT_COV)/copy.d $(RTT)/sweep.d $(RTT)/sweep_call.d
$(RTT_COV)/%.o: runtime/%.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -DREPSTOS_PATHS $(DEPFLAGS) -c -o $@ $<
$(RTT)/sweep.o: tests/runtime/sweep.c
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
$(RTT)/sweep_call.o: tests/runtime/sweep_call.S
	@mkdir -p $(@D)
	$(CC) $(RTT_CFLAGS) -c -o $@ $<
$(RTT)/sweep: $(RTT)/sweep.o $(RTT)/sweep_call.o $(RTT_COV)/set.o \
		$(RTT_COV)/copy.o $(RT_CORE_LIB)
	$(CC) -o $@ $^

TESTS += tests/runtime/sweep.sh
tests/runtime/sweep.sh: $(RTT)/sweep

# `make sweep-routines`: the full sweep (every end distance 0..4159,
# every move distance -300..300, sizes to 16 MiB); CI runs it after
# `make test`.  Each path's count lands in build/tests/runtime/paths.txt.
.PHONY: sweep-routines
sweep-routines: $(RTT)/sweep
	$(RTT)/sweep -f -p $(RTT)/paths.txt
