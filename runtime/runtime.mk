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
	-fno-stack-protector -Iinclude -Iruntime
# The start-up's size profiles and tuning-file reader (patch.c), in
# every build that has a start-up.
RT_FULL_FLAGS := -DREPSTOS_PROFILES -DREPSTOS_TUNING_FILE

# The core: CPU detection, the policy, the site encoder, the profile
# format (policy/) and the routines (routines/).  Nothing in it runs by
# itself.
RT_CORE_SRCS := runtime/policy/cpu.c runtime/policy/policy.c runtime/policy/sitecode.c \
	runtime/policy/profile.c runtime/routines/routines.c
RT_CORE_ASMS := runtime/routines/set.S runtime/routines/copy.S
# The start-up: the stubs sites call (dispatch.S, one object per family,
# each naming its family's routines, so that a module carries only the
# routines of the families it has sites of), which pull in the
# constructor that patches a module's sites, and the size-profile
# recorder it starts.
RT_START_SRCS := runtime/module/module.c \
	runtime/module/api.c runtime/module/record.S runtime/module/record_copy.S \
	runtime/startup/patch.c runtime/startup/profrun.c runtime/startup/poke.S

rt_obj = $(patsubst runtime/%,$(B)/runtime/%.o,$(basename $(1)))
rt_dispatch = $(foreach f,set copy,$(B)/runtime/$(1)/dispatch-$(f).o)
RT_CORE_OBJS := $(call rt_obj,$(RT_CORE_SRCS) $(RT_CORE_ASMS))
RT_START_OBJS := $(call rt_dispatch,module) $(call rt_obj,$(RT_START_SRCS))
RT_OBJS := $(RT_CORE_OBJS) $(RT_START_OBJS)

# dispatch.S, one object per family and build (its comment): the
# archive's, the shared runtime's, its modules' (lean) and the tool's
# (core, no constructor named).
RT_DISPATCH_OBJS := $(foreach d,module shared/module lean core,$(call rt_dispatch,$(d)))
$(B)/runtime/module/dispatch-%.o: RT_DFLAGS := -DREPSTOS_PROFILES
$(B)/runtime/shared/module/dispatch-%.o: RT_DFLAGS := -DREPSTOS_SHARED -DREPSTOS_PROFILES
$(B)/runtime/lean/dispatch-%.o: RT_DFLAGS := -DREPSTOS_LEAN -DREPSTOS_PROFILES
$(B)/runtime/core/dispatch-%.o: RT_DFLAGS := -DREPSTOS_CORE

# The archive every module with sites links: core + start-up.
RT_LIB := runtime/librepstos.a
# The core and a stub that pulls in no start-up, for the tool: no
# constructor runs in it (dispatch.S).
RT_CORE_LIB := $(B)/runtime/librepstos-core.a

ALL += $(RT_LIB)
CLEAN_FILES += $(RT_LIB)
DEPS += $(RT_OBJS:.o=.d) $(RT_DISPATCH_OBJS:.o=.d)

$(B)/runtime/%.o: runtime/%.c runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/%.o: runtime/%.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/startup/patch.o $(B)/runtime/module/record.o: RT_CFLAGS += $(RT_FULL_FLAGS)

$(RT_DISPATCH_OBJS): runtime/module/dispatch.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(RT_DFLAGS) $(if $(filter %-copy.o,$@),-DREPSTOS_COPY_FAMILY) \
		$(DEPFLAGS) -c -o $@ $<

$(RT_LIB): $(RT_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(RT_CORE_LIB): $(RT_CORE_OBJS) $(call rt_dispatch,core)
	@rm -f $@
	$(AR) rcs $@ $^

# The shared runtime (module.h): librepstos.so.0 holds one start-up for
# the whole process; each module links librepstos_nonshared.a, only what
# it must carry itself (its stubs, which jump to the shared ones until
# the start-up rewrites their jumps, its routines, record and
# constructor).  `-lrepstos-shared` names both through a linker script,
# as libc.so names libc_nonshared.a: the .so becomes a dependency only
# of modules with sites.  The .so's objects are the archive's; those
# that declare the names modules bind to (module.h, dispatch.S;
# librepstos.map holds the list) are compiled again to export them.
RT_SO := runtime/librepstos.so.0
RT_NONSHARED := runtime/librepstos_nonshared.a
RT_SHARED_LINK := runtime/librepstos-shared.so
RT_SO_EXPORTING := $(call rt_obj,runtime/module/module.c runtime/module/api.c \
	runtime/startup/patch.c) $(call rt_dispatch,module)
RT_SO_OBJS := $(patsubst $(B)/runtime/%,$(B)/runtime/shared/%,$(RT_SO_EXPORTING)) \
	$(filter-out $(RT_SO_EXPORTING),$(RT_OBJS))
RT_LEAN_OBJS := $(call rt_dispatch,lean) $(B)/runtime/shared/module/module.o \
	$(B)/runtime/shared/module/api.o \
	$(call rt_obj,runtime/module/record.S runtime/module/record_copy.S \
		runtime/routines/set.S runtime/routines/copy.S \
		runtime/routines/routines.c)

ALL += $(RT_SO) $(RT_NONSHARED) $(RT_SHARED_LINK)
CLEAN_FILES += $(RT_SO) $(RT_NONSHARED) $(RT_SHARED_LINK)
DEPS += $(patsubst %.o,%.d,$(filter $(B)/runtime/shared/%,$(RT_SO_OBJS)))

$(B)/runtime/shared/%.o: runtime/%.c runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -DREPSTOS_SHARED $(RT_FULL_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(RT_SO): $(RT_SO_OBJS) runtime/librepstos.map
	$(CC) -shared -Wl,-soname,librepstos.so.0 \
		-Wl,--version-script=runtime/librepstos.map \
		-Wl,-z,relro,-z,now,-z,noexecstack -o $@ $(RT_SO_OBJS)

$(RT_NONSHARED): $(RT_LEAN_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(RT_SHARED_LINK): runtime/runtime.mk
	printf '%s\n' '/* GNU ld script: a module of a program that shares one repstos start-up */' \
		'INPUT ( librepstos_nonshared.a AS_NEEDED ( librepstos.so.0 ) )' >$@

# How a module links the shared runtime from this tree: what
# -lrepstos-shared names, spelt out, so that make (and tests/build/
# deps.sh) see the files; tests/runtime/shared.sh links with the script.
RT_SHARED_LDFLAGS := $(RT_NONSHARED) $(RT_SO) -Wl,-rpath,$(CURDIR)/runtime
RT_SHARED_DEPS := $(RT_SO) $(RT_NONSHARED) $(RT_SHARED_LINK)
