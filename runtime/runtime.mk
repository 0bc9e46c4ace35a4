# runtime/: librepstos.a, linked into every module that has sites.
# -fPIC because the same archive goes into executables and shared
# objects; hidden visibility so each module keeps its own copy;
# -fcf-protection because the linker keeps a module's IBT and SHSTK
# property only if every object in it has it, and distributions build
# everything with it (the assembler files state theirs, in a note: asm.h).
# Its flags are its own: no CFLAGS from outside, so the archive a package
# ships is the one the tests check (the routines keep a site's register
# contract, repstos_site.h, whatever a distribution's flags add).

RT_CFLAGS := $(CSTD) $(OPT) $(WARN) -fPIC -fvisibility=hidden -fcf-protection \
	-fno-stack-protector -Iruntime

# The core: CPU detection, the policy, the site encoder, the profile
# format, tune and the routines.  Nothing in it runs by itself.
RT_CORE_SRCS := runtime/cpu.c runtime/policy.c runtime/sitecode.c \
	runtime/tune.c runtime/profile.c runtime/routines.c
RT_CORE_ASMS := runtime/set.S runtime/copy.S
# The start-up: the stub every site calls, which pulls in the constructor
# that patches a module's sites, and the size-profile recorder it starts.
RT_START_SRCS := runtime/dispatch.S runtime/module.c runtime/record.S \
	runtime/patch.c runtime/profrun.c runtime/variants.S

rt_obj = $(patsubst runtime/%,$(B)/runtime/%.o,$(basename $(1)))
RT_CORE_OBJS := $(call rt_obj,$(RT_CORE_SRCS) $(RT_CORE_ASMS))
RT_START_OBJS := $(call rt_obj,$(RT_START_SRCS))
RT_OBJS := $(RT_CORE_OBJS) $(RT_START_OBJS)

# The archive every module with sites links: core + start-up.
RT_LIB := runtime/librepstos.a
# The core and a stub that pulls in no start-up, for the tool: no
# constructor runs in it (dispatch.S).
RT_CORE_LIB := $(B)/runtime/librepstos-core.a
RT_CORE_STUB := $(B)/runtime/dispatch-core.o

ALL += $(RT_LIB)
CLEAN_FILES += $(RT_LIB)
DEPS += $(RT_OBJS:.o=.d) $(RT_CORE_STUB:.o=.d)

$(B)/runtime/%.o: runtime/%.c runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/%.o: runtime/%.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# tune.c's timing loops call the routines as sites do: no red zone.
$(B)/runtime/tune.o: RT_CFLAGS += -mno-red-zone

$(RT_LIB): $(RT_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(RT_CORE_STUB): runtime/dispatch.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -DREPSTOS_CORE $(DEPFLAGS) -c -o $@ $<

$(RT_CORE_LIB): $(RT_CORE_OBJS) $(RT_CORE_STUB)
	@rm -f $@
	$(AR) rcs $@ $^
