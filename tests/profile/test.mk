# tests/profile: size profiles recorded by the runtime (an executable and
# a shared object built with the plugin), read back by `repstos patch`
# and `repstos dump`, refused when corrupt or foreign, and the forms they
# choose checked for every size under every variant.  tests/policy's
# sizes program writes the fixed cost table the choices are made from.
PRT := $(B)/tests/profile
PRT_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iruntime -Itests/runtime \
	-fno-tree-loop-distribute-patterns -fplugin=$(PLUGIN_SO) \
	-fplugin-arg-repstos-min-const=1 -fplugin-arg-repstos-copy $(DEPFLAGS)
PRT_DEPS := $(PLUGIN_SO) $(RT_LIB)
DEPS += $(PRT)/libprofdso.d $(PRT)/prog.d $(PRT)/prog-other.d

$(PRT)/libprofdso.so: tests/profile/lib.c $(PRT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -fPIC -shared -o $@ $< $(RT_LIB)

$(PRT)/prog: tests/profile/prog.c $(PRT)/libprofdso.so $(PRT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -pthread -o $@ $< -L$(PRT) -lprofdso \
		-Wl,-rpath,'$$ORIGIN' $(RT_LIB)

$(PRT)/prog-other: tests/profile/prog.c $(PRT)/libprofdso.so $(PRT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(PRT_CFLAGS) -DOTHER_BUILD -pthread -o $@ $< -L$(PRT) \
		-lprofdso -Wl,-rpath,'$$ORIGIN' $(RT_LIB)

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
