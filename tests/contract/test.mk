# tests/contract: every producer of sites against include/repstos_site.h.
# The checker reads objects with libelf and decodes sites with the
# runtime's own sitecode.o, the one decoder.

$(CT)/check.o: tests/contract/check.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime $(DEPFLAGS) -c -o $@ $<

$(CT)/check: $(CT)/check.o $(B)/runtime/policy/sitecode.o
	$(CC) -o $@ $^ -lelf

DEPS += $(CT)/check.d
TESTS += tests/contract/contract.sh
tests/contract/contract.sh: $(CT)/check $(PLUGIN_SO) $(RT_LIB) $(PATCHER_BIN) \
	$(filter $(LLVM_PLUGIN),$(ALL))
