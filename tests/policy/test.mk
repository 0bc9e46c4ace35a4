# tests/policy: the per-site choice from a cost table, in the runtime and
# in `repstos patch`, on a program built with the plugin.

DEPS += $(PT)/sizes.d

$(PT)/sizes: tests/policy/sizes.c $(PLUGIN_SO) $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(DEPFLAGS) -O2 -g -Iinclude -Iruntime -Itests/runtime -fplugin=$(PLUGIN_SO) \
		-fplugin-arg-repstos-min-const=1 -fplugin-arg-repstos-copy \
		-o $@ $< $(RT_LIB)

TESTS += tests/policy/costs.sh
tests/policy/costs.sh: $(PT)/sizes $(PATCHER_BIN)
