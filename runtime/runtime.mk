# runtime/: librepstos.a, linked into every module that has sites.
# -fPIC because the same archive goes into executables and shared
# objects; hidden visibility so each module keeps its own copy;
# -fcf-protection because the linker keeps a module's IBT and SHSTK
# property only if every object in it has it, and distributions build
# everything with it (the assembler files state theirs, in a note: asm.h).

RT_CFLAGS := $(CSTD) $(OPT) $(WARN) -fPIC -fvisibility=hidden -fcf-protection \
	-fno-stack-protector -Iruntime
RT_SRCS := runtime/cpu.c runtime/policy.c runtime/sitecode.c runtime/patch.c \
	runtime/tune.c runtime/profile.c runtime/profrun.c
RT_ASMS := runtime/variants.S runtime/set.S
RT_OBJS := $(patsubst runtime/%.c,$(B)/runtime/%.o,$(RT_SRCS)) \
	$(patsubst runtime/%.S,$(B)/runtime/%.o,$(RT_ASMS))
RT_HDRS := runtime/repstos_site.h runtime/repstos.h runtime/policy.h \
	runtime/sitecode.h runtime/tune.h runtime/memset_dists.h \
	runtime/profile.h runtime/profrun.h runtime/asm.h runtime/set_body.h

# The archive, and the flags a module needs to link it.
RT_LIB := runtime/librepstos.a

ALL += $(RT_LIB)
CLEAN_FILES += $(RT_LIB)

$(B)/runtime/%.o: runtime/%.c $(RT_HDRS) runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

$(B)/runtime/%.o: runtime/%.S $(RT_HDRS) runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

# tune.c's timing loops call the routines as sites do: no red zone.
$(B)/runtime/tune.o: RT_CFLAGS += -mno-red-zone

$(RT_LIB): $(RT_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^
