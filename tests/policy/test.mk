# tests/policy: the per-site choice, runtime/policy's part: from a cost
# table, from a tuning file, and from a size profile the runtime records
# and `repstos patch` and `repstos dump` read back, in the runtime and in
# the tool, on programs built with the plugin or with hand-written sites.

DEPS += $(PT)/sizes.d

# sizes: sites of constant, bounded and unknown size; it also writes the
# fixed cost table the profile tests choose from.  Its cost tables come
# from tuning files: librepstos-full.a reads them (runtime/runtime.mk).
$(PT)/sizes: tests/policy/sizes.c $(PLUGIN_SO) $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(DEPFLAGS) -O2 -g -Iinclude -Iruntime -Itests/runtime -fplugin=$(PLUGIN_SO) \
		-fplugin-arg-repstos-min-const=1 -fplugin-arg-repstos-copy \
		-o $@ $< $(RT_FULL_LIB)

TESTS += tests/policy/costs.sh
tests/policy/costs.sh: $(PT)/sizes $(PATCHER_BIN)

# readback: sites whose bytes their function reads back, beside the same
# sites left alone; built as sizes is.
DEPS += $(PT)/readback.d
$(PT)/readback: tests/policy/readback.c $(PLUGIN_SO) $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(DEPFLAGS) -O2 -g -Iinclude -Iruntime -Itests/runtime -fplugin=$(PLUGIN_SO) \
		-fplugin-arg-repstos-min-const=1 -fplugin-arg-repstos-copy \
		-o $@ $< $(RT_FULL_LIB)

# shapes: a profile judged by both shapes of the table (choose.c,
# by_shapes), on crafted figures.
DEPS += $(PT)/shapes.d
$(PT)/shapes: tests/policy/shapes.c $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(DEPFLAGS) -O2 -g $(WARN) -Iinclude -Iruntime -o $@ $< $(RT_FULL_LIB)
TESTS += $(PT)/shapes

TESTS += tests/policy/readback.sh
tests/policy/readback.sh: $(PT)/readback $(PATCHER_BIN)

# Size profiles recorded by the runtime (an executable and a shared
# object built with the plugin), read back by `repstos patch` and
# `repstos dump`, refused when corrupt or foreign, and the forms they
# choose checked for every size under every variant.
PT_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime -Itests/runtime \
	-fno-tree-loop-distribute-patterns -fplugin=$(PLUGIN_SO) \
	-fplugin-arg-repstos-min-const=1 -fplugin-arg-repstos-copy $(DEPFLAGS)
# Size profiles and the tuning file are in librepstos-full.a, not in
# librepstos.a (runtime/runtime.mk): the programs here link it.
PT_DEPS := $(PLUGIN_SO) $(RT_FULL_LIB)
DEPS += $(PT)/libprofdso.d $(PT)/prog.d $(PT)/prog-other.d

$(PT)/libprofdso.so: tests/policy/lib.c $(PT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) -fPIC -shared -o $@ $< $(RT_FULL_LIB)

$(PT)/prog: tests/policy/prog.c $(PT)/libprofdso.so $(PT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) -pthread -o $@ $< -L$(PT) -lprofdso \
		-Wl,-rpath,'$$ORIGIN' $(RT_FULL_LIB)

$(PT)/prog-other: tests/policy/prog.c $(PT)/libprofdso.so $(PT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) -DOTHER_BUILD -pthread -o $@ $< -L$(PT) \
		-lprofdso -Wl,-rpath,'$$ORIGIN' $(RT_FULL_LIB)

TESTS += tests/policy/profile.sh
tests/policy/profile.sh: $(PT)/prog $(PT)/prog-other $(PT)/sizes \
	$(PATCHER_BIN)

# tests/patcher/asan.sh runs this script with the ASan build of the tool.
tests/patcher/asan.sh: $(PT)/prog $(PT)/prog-other $(PT)/sizes

# The same, every module linked with the shared runtime, for
# tests/runtime/shared.sh (one start-up records every module's sizes).
PTS := $(PT)/shared
PTS_LINK := $(RT_SHARED_LDFLAGS) $(RT_CORE_LIB)
DEPS += $(PTS)/libprofdso.d $(PTS)/prog.d $(PTS)/prog-other.d

$(PTS)/libprofdso.so: tests/policy/lib.c $(PLUGIN_SO) $(RT_SHARED_DEPS) $(RT_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) -fPIC -shared -o $@ $< $(PTS_LINK)

$(PTS)/prog: tests/policy/prog.c $(PTS)/libprofdso.so $(PLUGIN_SO) $(RT_SHARED_DEPS) $(RT_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) -pthread -o $@ $< -L$(PTS) -lprofdso \
		-Wl,-rpath,'$$ORIGIN' $(PTS_LINK)

$(PTS)/prog-other: tests/policy/prog.c $(PTS)/libprofdso.so $(PLUGIN_SO) $(RT_SHARED_DEPS) $(RT_CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(PT_CFLAGS) -DOTHER_BUILD -pthread -o $@ $< -L$(PTS) \
		-lprofdso -Wl,-rpath,'$$ORIGIN' $(PTS_LINK)

tests/runtime/shared.sh: $(PTS)/prog $(PTS)/prog-other $(PT)/sizes

# Issue 25, hardening's second pass: where a profile may be written,
# tuning files that do not fit, one size limit for profiles, a profile
# that cannot be recorded, and many sites.  Built without the plugin:
# their sites are hand-written (repstos.h).  probe is also what
# tests/runtime/rie.sh runs.
PT_HAND_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime -Itests/runtime \
	-fno-tree-loop-distribute-patterns $(DEPFLAGS)

DEPS += $(PT)/probe.d
$(PT)/probe: tests/policy/probe.c $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(PT_HAND_CFLAGS) -o $@ $< $(RT_FULL_LIB) -ldl

DEPS += $(PT)/libfailalloc.d
$(PT)/libfailalloc.so: tests/policy/failalloc.c
	@mkdir -p $(@D)
	$(CC) $(PT_HAND_CFLAGS) -fPIC -shared -o $@ $<

TESTS += tests/policy/writer.sh tests/policy/tuning.sh tests/policy/limit.sh \
	tests/policy/lost.sh
tests/policy/writer.sh: $(PT)/probe
tests/policy/tuning.sh: $(PT)/probe $(PATCHER_BIN)
tests/policy/limit.sh: $(PT)/probe $(PATCHER_BIN)
tests/policy/lost.sh: $(PT)/probe $(PT)/libfailalloc.so $(RTT)/harden

# manysites: 10,000 hand-written sites in two generated units, for the
# start-up with a profile of them all (tests/policy/many.sh).
PT_MANY := $(PT)/many
DEPS += $(PT)/manysites.d
$(PT_MANY)/many_sites%.c: tests/policy/test.mk
	@mkdir -p $(@D)
	awk -v k=$* 'BEGIN { print "#include \"repstos.h\""; \
		printf "void many_%s(unsigned char *p, unsigned long n)\n{\n", k; \
		for (i = 0; i < 5000; i++) \
			printf "\tREPSTOS_MEMSET(p + %d, %d, n);\n", i % 64, i % 251; \
		print "}" }' > $@
$(PT_MANY)/many_sites%.o: $(PT_MANY)/many_sites%.c
	$(CC) $(CSTD) -O1 -Iinclude -Iruntime -c -o $@ $<
$(PT)/manysites: tests/policy/many.c $(PT_MANY)/many_sites0.o \
		$(PT_MANY)/many_sites1.o $(RT_FULL_LIB)
	$(CC) $(PT_HAND_CFLAGS) -o $@ $< $(PT_MANY)/many_sites0.o \
		$(PT_MANY)/many_sites1.o $(RT_FULL_LIB)

TESTS += tests/policy/many.sh
tests/policy/many.sh: $(PT)/manysites
