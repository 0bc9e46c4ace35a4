# Each part keeps its tests in tests/<part>/ with a test.mk that appends
# executables to TESTS (exit 0 pass, 77 skip, anything else fail).
#
# Where each folder's test.mk builds its programs.  One fragment may name
# another's programs as prerequisites (tests/profile's programs are what
# tests/runtime/shared.sh and tests/patcher/asan.sh run, tests/policy's
# sizes writes the table tests/profile chooses from), and make expands a
# rule's prerequisites as it reads the rule: so every name a fragment
# shares is set here, before any fragment is read, and the order the
# fragments are read in changes nothing.
CT	:= $(B)/tests/contract
PT	:= $(B)/tests/policy
PRT	:= $(B)/tests/profile
RTT	:= $(B)/tests/runtime

include $(sort $(wildcard tests/*/test.mk))
