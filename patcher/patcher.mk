# patcher/: the `repstos` ELF tool (check, patch, dump).
#
# It compiles the runtime's CPU detection, selection policy and site
# encoder in (runtime/cpu.c, policy.c, sitecode.c), so `--cpu=native`
# chooses and writes exactly what the runtime would.  Besides the tool:
# an ASan+UBSan build the tests run too, and a libFuzzer target (clang).

DEB_PKGS += clang libclang-rt-14-dev

PATCHER_BIN	:= patcher/repstos
PATCHER_SRCS	:= $(addprefix patcher/,main.c elf.c sites.c routines.c decode.c \
	check.c patch.c output.c dump.c lines.c choice.c)
PATCHER_RT_SRCS	:= runtime/cpu.c runtime/policy.c runtime/sitecode.c \
	runtime/profile.c
PATCHER_HDRS	:= patcher/patcher.h runtime/repstos_site.h runtime/repstos.h \
	runtime/policy.h runtime/sitecode.h runtime/profile.h
PATCHER_PKGS	:= $(shell pkg-config --cflags capstone 2>/dev/null || \
	echo -I/usr/include/capstone)
PATCHER_CFLAGS	:= $(CSTD) $(OPT) $(WARN) -Iruntime $(PATCHER_PKGS)
PATCHER_LIBS	:= -ldw -lelf -lcapstone

PATCHER_OBJS	:= $(patsubst patcher/%.c,$(B)/patcher/%.o,$(PATCHER_SRCS)) \
	$(patsubst runtime/%.c,$(B)/patcher/rt-%.o,$(PATCHER_RT_SRCS))

ALL += $(PATCHER_BIN)
CLEAN_FILES += $(PATCHER_BIN)

$(B)/patcher/%.o: patcher/%.c $(PATCHER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PATCHER_CFLAGS) -c -o $@ $<

$(B)/patcher/rt-%.o: runtime/%.c $(PATCHER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PATCHER_CFLAGS) -c -o $@ $<

# `repstos tune` times the runtime's own routines: the archive comes last,
# and gives only what the objects above still need (tune.o, the routines).
$(PATCHER_BIN): $(PATCHER_OBJS) $(RT_LIB)
	$(CC) $(PATCHER_CFLAGS) -o $@ $(PATCHER_OBJS) $(RT_LIB) $(PATCHER_LIBS)

# The same tool under AddressSanitizer and UBSan: tests/patcher/asan.sh
# runs every patcher test with it.
PATCHER_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
PATCHER_ASAN_BIN := $(B)/patcher/asan/repstos
PATCHER_ASAN_OBJS := $(patsubst $(B)/patcher/%,$(B)/patcher/asan/%,$(PATCHER_OBJS))

$(B)/patcher/asan/%.o: patcher/%.c $(PATCHER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PATCHER_CFLAGS) $(PATCHER_SAN) -c -o $@ $<

$(B)/patcher/asan/rt-%.o: runtime/%.c $(PATCHER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PATCHER_CFLAGS) $(PATCHER_SAN) -c -o $@ $<

$(PATCHER_ASAN_BIN): $(PATCHER_ASAN_OBJS) $(RT_LIB)
	$(CC) $(PATCHER_CFLAGS) $(PATCHER_SAN) -o $@ $(PATCHER_ASAN_OBJS) \
		$(RT_LIB) $(PATCHER_LIBS)

# libFuzzer target over check, dump and patch --dry-run (clang only).
PATCHER_CLANG	:= $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null)
PATCHER_FUZZ_BIN := $(B)/patcher/repstos-fuzz
PATCHER_FUZZ_SRCS := $(filter-out patcher/main.c,$(PATCHER_SRCS)) \
	patcher/fuzz.c $(PATCHER_RT_SRCS)
PATCHER_FUZZ_FLAGS := $(CSTD) -O1 -g -Iruntime $(PATCHER_PKGS) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

# The archive, as for the tool: routines.c compares files' routines with
# the tool's own.
$(PATCHER_FUZZ_BIN): $(PATCHER_FUZZ_SRCS) $(PATCHER_HDRS) $(RT_LIB)
	@mkdir -p $(@D)
	$(PATCHER_CLANG) $(PATCHER_FUZZ_FLAGS) -o $@ $(PATCHER_FUZZ_SRCS) \
		$(RT_LIB) $(PATCHER_LIBS)

.PHONY: patcher-fuzz patcher-bench
patcher-fuzz: $(PATCHER_FUZZ_BIN)

# `make bench` runs the patcher's benchmark with the others.
bench: patcher-bench
patcher-bench: $(PATCHER_BIN) $(RT_LIB)
	tests/perf/patcher-vs-objcopy.sh
