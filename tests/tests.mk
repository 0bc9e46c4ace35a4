# Each part keeps its tests in tests/<part>/ with a test.mk that appends
# executables to TESTS (exit 0 pass, 77 skip, anything else fail).
include $(sort $(wildcard tests/*/test.mk))
