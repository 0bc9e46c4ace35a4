# tests/plugin: the GCC plugin (issue 3).  The scripts build their own
# programs under build/tests/plugin/ with plugin/repstos.so and link
# runtime/librepstos.a after the objects.
PLUGIN_TESTS := tests/plugin/corpus.sh tests/plugin/redzone.sh \
	tests/plugin/fortify.sh tests/plugin/asan.sh tests/plugin/options.sh \
	tests/plugin/gc.sh tests/plugin/copy.sh \
	tests/plugin/vector.sh

TESTS += $(PLUGIN_TESTS)
$(PLUGIN_TESTS): $(PLUGIN_SO) $(RT_LIB) $(PATCHER_BIN)
