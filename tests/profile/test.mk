# tests/profile: size profiles recorded by the runtime (an executable and
# a shared object built with the plugin), read back by `repstos patch`
# and `repstos dump`, refused when corrupt or foreign, and the forms they
# choose checked for every size under every variant.  tests/policy's
# sizes program writes the fixed cost table the choices are made from.
PRT := $(B)/tests/profile
PRT_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime -Itests/runtime \
	-fno-tree-loop-distribute-patterns -fplugin=$(PLUGIN_SO) \
	-fplugin-arg-repstos-min-const=1 -fplugin-arg-repstos-copy $(DEPFLAGS)
# Size profiles and the tuning file are in librepstos-full.a, not in
# librepstos.a (runtime/runtime.mk): the programs here link it.
PRT_DEPS := $(PLUGIN_SO) $(RT_FULL_LIB)
DEPS += $(PRT)/libprofdso.d $(PRT)/prog.d $(PRT)/prog-other.d

$(PRT)/libprofdso.so: tests/profile/lib.c $(PRT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -fPIC -shared -o $@ $< $(RT_FULL_LIB)

$(PRT)/prog: tests/profile/prog.c $(PRT)/libprofdso.so $(PRT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -pthread -o $@ $< -L$(PRT) -lprofdso \
		-Wl,-rpath,'$$ORIGIN' $(RT_FULL_LIB)

$(PRT)/prog-other: tests/profile/prog.c $(PRT)/libprofdso.so $(PRT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -DOTHER_BUILD -pthread -o $@ $< -L$(PRT) \
		-lprofdso -Wl,-rpath,'$$ORIGIN' $(RT_FULL_LIB)

TESTS += tests/profile/profile.sh
tests/profile/profile.sh: $(PRT)/prog $(PRT)/prog-other $(PT)/sizes \
	$(PATCHER_BIN)

# tests/patcher/asan.sh runs this script with the ASan build of the tool.
tests/patcher/asan.sh: $(PRT)/prog $(PRT)/prog-other $(PT)/sizes

# The same, every module linked with the shared runtime, for
# tests/runtime/shared.sh (one start-up records every module's sizes).
PRS := $(PRT)/shared
PRS_LINK := $(RT_SHARED_LDFLAGS) $(RT_CORE_LIB)
DEPS += $(PRS)/libprofdso.d $(PRS)/prog.d $(PRS)/prog-other.d

$(PRS)/libprofdso.so: tests/profile/lib.c $(PLUGIN_SO) $(RT_SHARED_DEPS) $(RT_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -fPIC -shared -o $@ $< $(PRS_LINK)

$(PRS)/prog: tests/profile/prog.c $(PRS)/libprofdso.so $(PLUGIN_SO) $(RT_SHARED_DEPS) $(RT_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -pthread -o $@ $< -L$(PRS) -lprofdso \
		-Wl,-rpath,'$$ORIGIN' $(PRS_LINK)

$(PRS)/prog-other: tests/profile/prog.c $(PRS)/libprofdso.so $(PLUGIN_SO) $(RT_SHARED_DEPS) $(RT_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -DOTHER_BUILD -pthread -o $@ $< -L$(PRS) \
		-lprofdso -Wl,-rpath,'$$ORIGIN' $(PRS_LINK)

tests/runtime/shared.sh: $(PRS)/prog $(PRS)/prog-other $(PT)/sizes

# Issue 25, hardening's second pass: where a profile may be written, what
# a dlopen()/dlclose() cycle leaves behind, tuning files that do not fit,
# one size limit for profiles, a profile that cannot be recorded,
# READ_IMPLIES_EXEC, and many sites.  Built without the plugin: their
# sites are hand-written (repstos.h).
PRT_HAND_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime -Itests/runtime \
	-fno-tree-loop-distribute-patterns $(DEPFLAGS)
DEPS += $(PRT)/cycle.d $(PRT)/libcycle.d $(PRT)/libcycle-full.d $(PRT)/libplain.d \
	$(PRS)/libcycle.d

$(PRT)/cycle: tests/profile/cycle.c
	@mkdir -p $(@D)
	$(CC) $(PRT_HAND_CFLAGS) -o $@ $< -ldl

# librepstos.a's (rie.sh, and cycles.sh without profiles), and
# librepstos-full.a's (cycles.sh, profiling too).
$(PRT)/libcycle.so: tests/profile/cyclelib.c $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(PRT_HAND_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(RT_LIB)

$(PRT)/libcycle-full.so: tests/profile/cyclelib.c $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(PRT_HAND_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(RT_FULL_LIB)

$(PRT)/libplain.so: tests/profile/cyclelib.c
	@mkdir -p $(@D)
	$(CC) $(PRT_HAND_CFLAGS) -DPLAIN -fPIC -shared -fvisibility=hidden -o $@ $<

$(PRS)/libcycle.so: tests/profile/cyclelib.c $(RT_SHARED_DEPS) $(RT_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(PRT_HAND_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< $(PRS_LINK)

TESTS += tests/profile/cycles.sh
tests/profile/cycles.sh: $(PRT)/cycle $(PRT)/libcycle.so $(PRT)/libcycle-full.so \
	$(PRT)/libplain.so $(PRS)/libcycle.so

DEPS += $(PRT)/probe.d
$(PRT)/probe: tests/profile/probe.c $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(PRT_HAND_CFLAGS) -o $@ $< $(RT_FULL_LIB) -ldl

DEPS += $(PRT)/libfailalloc.d
$(PRT)/libfailalloc.so: tests/profile/failalloc.c
	@mkdir -p $(@D)
	$(CC) $(PRT_HAND_CFLAGS) -fPIC -shared -o $@ $<

TESTS += tests/profile/writer.sh tests/profile/tuning.sh tests/profile/limit.sh \
	tests/profile/lost.sh tests/profile/rie.sh
tests/profile/writer.sh: $(PRT)/probe
tests/profile/tuning.sh: $(PRT)/probe $(PATCHER_BIN)
tests/profile/limit.sh: $(PRT)/probe $(PATCHER_BIN)
tests/profile/lost.sh: $(PRT)/probe $(PRT)/libfailalloc.so $(B)/tests/runtime/harden
tests/profile/rie.sh: $(PRT)/probe $(PRT)/libcycle.so

# manysites: 10,000 hand-written sites in two generated units, for the
# start-up with a profile of them all (tests/profile/many.sh).
PRT_MANY := $(PRT)/many
DEPS += $(PRT)/manysites.d
$(PRT_MANY)/many_sites%.c: tests/profile/test.mk
	@mkdir -p $(@D)
	awk -v k=$* 'BEGIN { print "#include \"repstos.h\""; \
		printf "void many_%s(unsigned char *p, unsigned long n)\n{\n", k; \
		for (i = 0; i < 5000; i++) \
			printf "\tREPSTOS_MEMSET(p + %d, %d, n);\n", i % 64, i % 251; \
		print "}" }' > $@
$(PRT_MANY)/many_sites%.o: $(PRT_MANY)/many_sites%.c
	$(CC) $(CSTD) -O1 -Iinclude -Iruntime -c -o $@ $<
$(PRT)/manysites: tests/profile/many.c $(PRT_MANY)/many_sites0.o \
		$(PRT_MANY)/many_sites1.o $(RT_FULL_LIB)
	$(CC) $(PRT_HAND_CFLAGS) -o $@ $< $(PRT_MANY)/many_sites0.o \
		$(PRT_MANY)/many_sites1.o $(RT_FULL_LIB)

TESTS += tests/profile/many.sh
tests/profile/many.sh: $(PRT)/manysites
