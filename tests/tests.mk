# Each part keeps its tests in tests/<part>/ with a test.mk that appends
# executables to TESTS (exit 0 pass, 77 skip, anything else fail).
#
# Where each folder's test.mk builds its programs.  One fragment may name
# another's programs as prerequisites (tests/policy's profile programs
# are what tests/runtime/shared.sh and tests/patcher/asan.sh run, its
# probe what tests/runtime/rie.sh runs), and make expands a
# rule's prerequisites as it reads the rule: so every name a fragment
# shares is set here, before any fragment is read, and the order the
# fragments are read in changes nothing.
CT	:= $(B)/tests/contract
PT	:= $(B)/tests/policy
RTT	:= $(B)/tests/runtime

include $(sort $(wildcard tests/*/test.mk))
