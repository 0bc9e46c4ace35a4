# patcher/: the `repstos` ELF tool (check, patch, dump, tune).
#
# It links the runtime's core (build/runtime/librepstos-core.a): CPU
# detection, selection policy, site encoder, profile format and the
# routines, so `--cpu=native` chooses and writes exactly what the runtime
# would and `tune` times the routines sites call; not the start-up, so no
# constructor of the runtime's runs in the tool.  Besides the tool: an
# ASan+UBSan build the tests run too, and a libFuzzer target (clang).

DEB_PKGS += clang libclang-rt-14-dev

PATCHER_BIN	:= patcher/repstos
PATCHER_SRCS	:= $(addprefix patcher/,main.c elf.c sites.c routines.c decode.c \
	check.c patch.c output.c dump.c lines.c choice.c tune.c pick.c tunerun.c \
	kernel.c kcheck.c kdump.c)
PATCHER_PKGS	:= $(shell pkg-config --cflags capstone 2>/dev/null || \
	echo -I/usr/include/capstone)
PATCHER_CFLAGS	:= $(CSTD) $(OPT) $(WARN) -Iinclude -Iruntime $(PATCHER_PKGS) \
	-DREPSTOS_VERSION='"$(VERSION)"'
PATCHER_LIBS	:= -ldw -lelf -lcapstone

PATCHER_OBJS	:= $(patsubst patcher/%.c,$(B)/patcher/%.o,$(PATCHER_SRCS))

ALL += $(PATCHER_BIN)
CLEAN_FILES += $(PATCHER_BIN)
DEPS += $(PATCHER_OBJS:.o=.d)

# tune.c's timing loops call the routines as sites do: no red zone.
$(B)/patcher/tune.o $(B)/patcher/asan/tune.o: PATCHER_CFLAGS += -mno-red-zone

# The installed tool also takes the usual CPPFLAGS, CFLAGS and LDFLAGS
# (empty unless given; a distribution's hardening flags: debian/rules).
$(B)/patcher/%.o: patcher/%.c
	@mkdir -p $(@D)
	$(CC) $(PATCHER_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The core archive last: it gives only what the objects above still need.
$(PATCHER_BIN): $(PATCHER_OBJS) $(RT_CORE_LIB)
	$(CC) $(PATCHER_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(PATCHER_OBJS) $(RT_CORE_LIB) $(PATCHER_LIBS)

# The sanitizer builds compile the runtime sources the tool's input
# reaches (CPU profiles, policy, encoder, profile parser) themselves, so
# that those are checked too; the core archive gives the rest.
PATCHER_RT_SRCS	:= runtime/policy/cpu.c runtime/policy/cpus.c runtime/policy/family.c \
	runtime/policy/cost.c runtime/policy/rows.c runtime/policy/choose.c \
	runtime/policy/tuning.c runtime/policy/sitecode.c \
	runtime/policy/profile.c runtime/policy/accept.c

# The same tool under AddressSanitizer and UBSan: tests/patcher/asan.sh
# runs every patcher test with it.
PATCHER_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
PATCHER_ASAN_BIN := $(B)/patcher/asan/repstos
PATCHER_ASAN_OBJS := $(patsubst patcher/%.c,$(B)/patcher/asan/%.o,$(PATCHER_SRCS)) \
	$(patsubst runtime/%.c,$(B)/patcher/asan/rt-%.o,$(PATCHER_RT_SRCS))
DEPS += $(PATCHER_ASAN_OBJS:.o=.d)

$(B)/patcher/asan/%.o: patcher/%.c
	@mkdir -p $(@D)
	$(CC) $(PATCHER_CFLAGS) $(PATCHER_SAN) $(DEPFLAGS) -c -o $@ $<

$(B)/patcher/asan/rt-%.o: runtime/%.c
	@mkdir -p $(@D)
	$(CC) $(PATCHER_CFLAGS) $(PATCHER_SAN) $(DEPFLAGS) -c -o $@ $<

$(PATCHER_ASAN_BIN): $(PATCHER_ASAN_OBJS) $(RT_CORE_LIB)
	$(CC) $(PATCHER_CFLAGS) $(PATCHER_SAN) -o $@ $(PATCHER_ASAN_OBJS) \
		$(RT_CORE_LIB) $(PATCHER_LIBS)

# libFuzzer target over check, dump and patch --dry-run (clang only).
PATCHER_CLANG	:= $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null)
PATCHER_FUZZ_BIN := $(B)/patcher/repstos-fuzz
PATCHER_FUZZ_OBJS := $(patsubst patcher/%.c,$(B)/patcher/fuzz/%.o, \
	$(filter-out patcher/main.c patcher/tune.c,$(PATCHER_SRCS)) patcher/fuzz.c) \
	$(patsubst runtime/%.c,$(B)/patcher/fuzz/rt-%.o,$(PATCHER_RT_SRCS))
PATCHER_FUZZ_FLAGS := $(CSTD) -O1 -g -Iinclude -Iruntime $(PATCHER_PKGS) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
DEPS += $(PATCHER_FUZZ_OBJS:.o=.d)

$(B)/patcher/fuzz/%.o: patcher/%.c
	@mkdir -p $(@D)
	$(PATCHER_CLANG) $(PATCHER_FUZZ_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/patcher/fuzz/rt-%.o: runtime/%.c
	@mkdir -p $(@D)
	$(PATCHER_CLANG) $(PATCHER_FUZZ_FLAGS) $(DEPFLAGS) -c -o $@ $<

# The core archive, as for the tool: routines.c compares files' routines
# with the tool's own.
$(PATCHER_FUZZ_BIN): $(PATCHER_FUZZ_OBJS) $(RT_CORE_LIB)
	$(PATCHER_CLANG) $(PATCHER_FUZZ_FLAGS) -o $@ $(PATCHER_FUZZ_OBJS) \
		$(RT_CORE_LIB) $(PATCHER_LIBS)

.PHONY: patcher-fuzz patcher-bench
patcher-fuzz: $(PATCHER_FUZZ_BIN)

# `make bench` runs the patcher's benchmark with the others.
bench: patcher-bench
patcher-bench: $(PATCHER_BIN) $(RT_LIB)
	bench/patcher-vs-objcopy.sh
