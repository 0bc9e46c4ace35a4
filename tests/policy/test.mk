# tests/policy: the per-site choice from a cost table, in the runtime and
# in `repstos patch`, on a program built with the plugin.
PT := $(B)/tests/policy

DEPS += $(PT)/sizes.d

# Its cost tables come from tuning files: librepstos-full.a reads them
# (runtime/runtime.mk).
$(PT)/sizes: tests/policy/sizes.c $(PLUGIN_SO) $(RT_FULL_LIB)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(DEPFLAGS) -O2 -g -Iinclude -Iruntime -Itests/runtime -fplugin=$(PLUGIN_SO) \
		-fplugin-arg-repstos-min-const=1 -fplugin-arg-repstos-copy \
		-o $@ $< $(RT_FULL_LIB)

TESTS += tests/policy/costs.sh
tests/policy/costs.sh: $(PT)/sizes $(PATCHER_BIN)
