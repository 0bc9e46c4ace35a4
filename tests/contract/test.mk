# tests/contract: every producer of sites against runtime/repstos_site.h.
CT := $(B)/tests/contract

$(CT)/check: tests/contract/check.c runtime/sitecode.c $(RT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CSTD) -O2 -g $(WARN) -Iruntime -o $@ tests/contract/check.c \
		runtime/sitecode.c -lelf

TESTS += tests/contract/contract.sh
tests/contract/contract.sh: $(CT)/check $(PLUGIN_SO) $(RT_LIB)
