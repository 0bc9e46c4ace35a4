# tests/build: the build itself.  deps.sh builds a copy of the sources in
# a folder of its own, so it needs nothing built here and disturbs no
# other test's build/.
TESTS += tests/build/deps.sh
# layout.sh reads the sources and the folders' READMEs: nothing built.
TESTS += tests/build/layout.sh
# refs.sh reads the tracked files for stale paths and function homes.
TESTS += tests/build/refs.sh
# runtests.sh runs tests/run-tests on two tests of its own: nothing built.
TESTS += tests/build/runtests.sh
# apt.sh reads make -n of deps, build-deps and demo: nothing built.
TESTS += tests/build/apt.sh
