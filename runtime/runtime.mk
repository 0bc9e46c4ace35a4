# runtime/: librepstos.a, linked into every module that has sites.
# -fPIC because the same archive goes into executables and shared
# objects; hidden visibility so each module keeps its own copy;
# -fcf-protection because the linker keeps a module's IBT and SHSTK
# property only if every object in it has it, and distributions build
# everything with it (the assembler files state theirs, in a note: asm.h).
# Its flags are its own: no CFLAGS from outside, so the archive a package
# ships is the one the tests check (the routines keep a site's register
# contract, repstos_site.h, whatever a distribution's flags add).
#
# What a module carries is what its sites use (bench/footprint.sh
# --check holds the archive to it, tests/runtime/shared.sh runs it):
#  - one stub object per family (dispatch.S, assembled once for set
#    and once for copy sites), each naming its family's routines, so
#    that a module without copy sites has no copy routine and one
#    without set sites no set routine;
#  - no dispatch page and no writable pointer: the stub's jump is
#    rewritten like a site, and where text is not written its fallback
#    takes a byte that can only choose among the family's routines;
#  - the start-up (runtime/startup/, with CPU detection, the policy
#    and the site encoder it calls, and the mprotect route's window,
#    poke.S) as one object linked in one go (startup.o below):
#    compiled for size, as it runs once, each function in a section
#    of its own, then linked with --gc-sections from the start-up's
#    entry points, so that what it never calls (the tuning file's
#    writer, the cost tables' listing) is not there, and its symbols
#    but those entry points made local, so that the same functions in
#    the policy's objects and the others (for a module that calls the
#    API, or a test) do not clash.
#    Its code is one section ending with the window, whose pages the
#    mprotect route never opens (the window is not on a page of its
#    own any more: write.c, holds_poke), so that those pages hold the
#    runtime's own code rather than sites;
#  - no size profiles (REPSTOS_PROFILE, REPSTOS_PROFILE_USE, installed
#    ones) and no tuning file (REPSTOS_TUNING, /etc/repstos/tuning):
#    their readers and writers take more code than the rest of the
#    start-up (about 8 KiB and 2 KiB of text), where most modules run
#    with neither.  Both are in librepstos-full.a, the same archive with
#    them (-DREPSTOS_PROFILES -DREPSTOS_TUNING_FILE; link it in place
#    of librepstos.a; repstos-cc: REPSTOS_RUNTIME=full), and in the
#    shared runtime.  A module of librepstos.a looks for no tuning
#    file; asked to record a profile it says so in one line, as where
#    one cannot be recorded, and under REPSTOS_DEBUG it names a tuning
#    file that is there and a REPSTOS_PROFILE_USE it does not read
#    (config.c, patch.c).  In it the process's tuning tables (about
#    4.7 KiB) are on the heap, while a module is attached, not in every
#    module's .bss; librepstos-full.a keeps them static, so that a
#    start-up short of memory can still say why a profile is not
#    recorded.

RT_CFLAGS := $(CSTD) $(OPT) $(WARN) -fPIC -fvisibility=hidden -fcf-protection \
	-fno-stack-protector -Iinclude -Iruntime
# The start-up's, for startup.o: for size, each function and object in a
# section of its own for --gc-sections.
RT_START_CFLAGS := $(RT_CFLAGS) -Oz -ffunction-sections -fdata-sections
# What librepstos-full.a and the shared runtime add to the start-up.
RT_FULL_FLAGS := -DREPSTOS_PROFILES -DREPSTOS_TUNING_FILE
OBJCOPY ?= objcopy

rt_obj = $(patsubst runtime/%,$(B)/runtime/%.o,$(basename $(1)))

# The core: CPU detection, the policy, the site encoder, the profile
# format (policy/) and the routines (routines/).  Nothing in it runs by
# itself.
RT_CORE_SRCS := runtime/policy/cpu.c runtime/policy/cpus.c runtime/policy/family.c \
	runtime/policy/cost.c runtime/policy/rows.c runtime/policy/choose.c \
	runtime/policy/tuning.c runtime/policy/sitecode.c \
	runtime/policy/profile.c runtime/policy/accept.c runtime/routines/routines.c
RT_CORE_ASMS := runtime/routines/set.S runtime/routines/copy.S \
	runtime/routines/libc_set.S runtime/routines/libc_copy.S
RT_CORE_OBJS := $(call rt_obj,$(RT_CORE_SRCS) $(RT_CORE_ASMS))

# dispatch.S, one object per family and build (its comment): the
# archives', the size-profile archive's, the shared runtime's, its
# modules' (lean) and the tool's (core, no constructor named).
rt_dispatch = $(foreach f,set copy,$(B)/runtime/$(1)/dispatch-$(f).o)
RT_DISPATCH_OBJS := $(foreach d,module prof/module shared/module lean core,\
	$(call rt_dispatch,$(d)))
$(B)/runtime/prof/module/dispatch-%.o: RT_DFLAGS := -DREPSTOS_PROFILES
$(B)/runtime/shared/module/dispatch-%.o: RT_DFLAGS := -DREPSTOS_SHARED -DREPSTOS_PROFILES
$(B)/runtime/lean/dispatch-%.o: RT_DFLAGS := -DREPSTOS_LEAN -DREPSTOS_PROFILES
$(B)/runtime/core/dispatch-%.o: RT_DFLAGS := -DREPSTOS_CORE

# The start-up, as startup.o (above): its sources, and the names it is
# entered by (abi.h), the only ones it keeps global.
# The start-up's own files (startup.h); startup.o takes them as one
# unit (startup.c), the shared runtime one by one.
RT_STARTUP_C := $(addprefix runtime/startup/,patch.c config.c write.c \
	decide.c attach.c)
RT_START_SRCS := runtime/startup/startup.c runtime/policy/cpu.c \
	runtime/policy/cpus.c runtime/policy/family.c runtime/policy/cost.c \
	runtime/policy/rows.c runtime/policy/choose.c runtime/policy/tuning.c \
	runtime/policy/sitecode.c
RT_START_PROF_SRCS := $(RT_START_SRCS) runtime/startup/profrun.c \
	runtime/startup/profwrite.c \
	runtime/policy/profile.c runtime/policy/accept.c
RT_START_ENTRIES := runtime/startup/startup.syms
RT_START_LD := runtime/startup/startup.ld
RT_POKE := $(B)/runtime/startup/poke.o
RT_START := $(B)/runtime/startup/startup.o
RT_START_PROF := $(B)/runtime/prof/startup/startup.o
RT_START_OBJS := $(patsubst $(B)/runtime/%,$(B)/runtime/start/%,$(call rt_obj,$(RT_START_SRCS)))
RT_START_PROF_OBJS := $(patsubst $(B)/runtime/%,$(B)/runtime/start-prof/%,\
	$(call rt_obj,$(RT_START_PROF_SRCS)))

# The module side every module with sites carries (module.h).
RT_MODULE_OBJS := $(call rt_obj,runtime/module/module.c runtime/module/api.c)

# The archive every module with sites links.  The start-up first: it is
# taken on the linker's second pass over the archive, after what the
# sites pull in, and its window ends up last of the runtime's code.
RT_LIB := runtime/librepstos.a
RT_LIB_OBJS := $(RT_START) $(call rt_dispatch,module) $(RT_MODULE_OBJS) \
	$(call rt_obj,runtime/module/record.S) $(RT_CORE_OBJS)
# The same with size profiles.
RT_FULL_LIB := runtime/librepstos-full.a
RT_FULL_LIB_OBJS := $(RT_START_PROF) $(call rt_dispatch,prof/module) \
	$(RT_MODULE_OBJS) $(B)/runtime/prof/module/record.o \
	$(call rt_obj,runtime/module/record_copy.S) $(RT_CORE_OBJS)
# The core and stubs that pull in no start-up, for the tool: no
# constructor runs in it (dispatch.S).
RT_CORE_LIB := $(B)/runtime/librepstos-core.a

ALL += $(RT_LIB) $(RT_FULL_LIB)
CLEAN_FILES += $(RT_LIB) $(RT_FULL_LIB)
DEPS += $(RT_CORE_OBJS:.o=.d) $(RT_DISPATCH_OBJS:.o=.d) $(RT_MODULE_OBJS:.o=.d) \
	$(RT_START_OBJS:.o=.d) $(RT_START_PROF_OBJS:.o=.d) $(RT_POKE:.o=.d) \
	$(B)/runtime/module/record.d $(B)/runtime/prof/module/record.d \
	$(B)/runtime/module/record_copy.d

$(B)/runtime/%.o: runtime/%.c runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/%.o: runtime/%.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/prof/%.o: runtime/%.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -DREPSTOS_PROFILES $(DEPFLAGS) -c -o $@ $<

$(RT_DISPATCH_OBJS): runtime/module/dispatch.S runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(RT_DFLAGS) $(if $(filter %-copy.o,$@),-DREPSTOS_COPY_FAMILY) \
		$(DEPFLAGS) -c -o $@ $<

# The lean start-up's policy leaves out the profile's part of the
# decision (repstos_policy_site), which would pull profile.c in.
$(B)/runtime/start/%.o: runtime/%.c runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_START_CFLAGS) -DREPSTOS_NO_PROFILES $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/start-prof/%.o: runtime/%.c runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_START_CFLAGS) $(RT_FULL_FLAGS) $(DEPFLAGS) -c -o $@ $<

# startup.o: linked from the entry points; then the names of what the
# collection left no reference to (routines of the policy's that it does
# not call, their helpers in libgcc) dropped, so that they pull nothing
# into a module; everything but the entry points made local; and the
# routines made weak, as the policy's table of them (for what each
# needs of the CPU) is all that names them here: the module's own
# stubs pull in the routines its sites can call.
rt_sym_sed := s/^[[:space:]]*X([A-Z0-9_]*, "[a-z0-9_]*", \(__repstos_[a-z0-9_]*\),.*/\1/p
RT_ROUTINE_SYMS := $(shell sed -n '$(rt_sym_sed)' include/repstos_site.h)
comma := ,
rt_start_link = $(CC) -r -nostdlib -Wl,--gc-sections -Wl,-T,$(RT_START_LD) \
	$(addprefix -Wl$(comma)-u$(comma),$(shell cat $(RT_START_ENTRIES))) \
	-o $@.all $(1) $(RT_POKE)
define rt_start_finish
	nm -u $@.all | awk '{ print $$NF }' | sort -u >$@.undef
	objdump -r $@.all | awk '$$1 ~ /^[0-9a-f]+$$/ && NF == 3 { sub(/[-+].*/, "", $$3); print $$3 }' | \
		sort -u >$@.used
	comm -23 $@.undef $@.used | sed 's/^/--strip-symbol=/' >$@.opts
	printf -- '--weaken-symbol=%s\n' $(RT_ROUTINE_SYMS) >>$@.opts
	$(OBJCOPY) --keep-global-symbols=$(RT_START_ENTRIES) @$@.opts $@.all $@
endef
$(RT_START): $(RT_START_OBJS) $(RT_POKE) $(RT_START_LD) $(RT_START_ENTRIES) include/repstos_site.h
	@mkdir -p $(@D)
	$(call rt_start_link,$(RT_START_OBJS))
	$(rt_start_finish)
$(RT_START_PROF): $(RT_START_PROF_OBJS) $(RT_POKE) $(RT_START_LD) $(RT_START_ENTRIES) include/repstos_site.h
	@mkdir -p $(@D)
	$(call rt_start_link,$(RT_START_PROF_OBJS))
	$(rt_start_finish)

$(RT_LIB): $(RT_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(RT_FULL_LIB): $(RT_FULL_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(RT_CORE_LIB): $(RT_CORE_OBJS) $(call rt_dispatch,core)
	@rm -f $@
	$(AR) rcs $@ $^

# The shared runtime (module.h): librepstos.so.0 holds one start-up for
# the whole process, size profiles included; each module links
# librepstos_nonshared.a, only what it must carry itself (its stubs,
# which jump to the shared ones through the GOT, its routines, record
# and constructor, and its profiling routines).
# `-lrepstos-shared` names both through a linker script, as libc.so
# names libc_nonshared.a: the .so becomes a dependency only of modules
# with sites.  The .so's objects are built with -DREPSTOS_SHARED (the
# names modules bind to are exported: abi.h, dispatch.S;
# librepstos.map holds the list) and $(RT_FULL_FLAGS).
RT_SO := runtime/librepstos.so.0
RT_NONSHARED := runtime/librepstos_nonshared.a
RT_SHARED_LINK := runtime/librepstos-shared.so
RT_SO_OBJS := $(call rt_dispatch,shared/module) \
	$(patsubst $(B)/runtime/%,$(B)/runtime/shared/%,$(call rt_obj,\
		runtime/module/module.c runtime/module/api.c \
		runtime/module/record.S $(RT_STARTUP_C) \
		runtime/startup/profrun.c runtime/startup/profwrite.c)) \
	$(call rt_obj,runtime/module/record_copy.S) $(RT_POKE) $(RT_CORE_OBJS)
RT_LEAN_OBJS := $(call rt_dispatch,lean) $(B)/runtime/shared/module/module.o \
	$(B)/runtime/shared/module/api.o $(B)/runtime/shared/module/record.o \
	$(call rt_obj,runtime/module/record_copy.S runtime/routines/set.S \
		runtime/routines/copy.S runtime/routines/libc_set.S \
		runtime/routines/libc_copy.S \
		runtime/routines/routines.c)

ALL += $(RT_SO) $(RT_NONSHARED) $(RT_SHARED_LINK)
CLEAN_FILES += $(RT_SO) $(RT_NONSHARED) $(RT_SHARED_LINK)
DEPS += $(patsubst %.o,%.d,$(filter $(B)/runtime/shared/%,$(RT_SO_OBJS)))

$(B)/runtime/shared/%.o: runtime/%.c runtime/runtime.mk
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -DREPSTOS_SHARED $(RT_FULL_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/shared/%.o: runtime/%.S runtime/runtime.mk
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
