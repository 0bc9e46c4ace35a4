# tests/build: the build itself.  deps.sh builds a copy of the sources in
# a folder of its own, so it needs nothing built here and disturbs no
# other test's build/.
TESTS += tests/build/deps.sh
