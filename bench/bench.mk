# bench: benchmarks, run by `make bench`; `make test` runs only smoke.sh.
#
#   make bench-memset               full run; results into bench/results
#                                   (`make bench` runs it with the others)
#   make bench BENCH_ARGS='-r 5 -z 16,mix -c site-vec,site-avx2 -s b2b,use -a 0'
#                                   a quick look (results still written);
#                                   -s shapes b2b,use,read, -a offsets
#                                   0,3,rand (bench.h), all by default
#   make tune                       time the routines here, print the tuning
#                                   (repstos tune --report)
PB := $(B)/bench
PERF_CFLAGS := $(CSTD) -O2 -g $(WARN) -Iinclude -Iruntime -Ipatcher -Ibench
BENCH_ARGS ?=
# One folder of results per CPU: bench/results/VENDOR-FAMILY-MODEL,
# which `bench -p` names (BENCH_OUT=DIR overrides it).  For a recipe's
# shell: $(PB)/bench is built by then.
BENCH_OUT ?=
bench_out = $(if $(BENCH_OUT),$(BENCH_OUT),$$($(PB)/bench -p))

# Every variant routine gets a site candidate: their symbols, from the
# one list in the contract header (tests/xlist.sh).
PERF_VARIANT_SYMS := $(shell CC='$(CC)' tests/xlist.sh VARIANTS sym)
PERF_GCC := libcall rep_byte rep_4byte rep_8byte loop unrolled_loop vector_loop
PERF_OBJS := $(PB)/bench.o $(PB)/gpr.o $(PB)/plain.o $(PB)/cand-glibc.o $(PB)/cand-inline.o \
	$(PB)/cand-empty.o $(PB)/cand-site-__repstos_stub.o \
	$(PB)/cand-site-__bench_gpr.o \
	$(patsubst %,$(PB)/cand-site-__bench_plain_%.o,ladder four mask16 over redir) $(PB)/cand-site-__bench_wide.o $(PB)/cand-site-__bench_wide_y.o $(PB)/cand-site-__bench_rz.o $(PB)/cand-site-__bench_rza.o $(PB)/cand-site-__bench_split_c.o $(PB)/cand-site-__bench_split_wy.o $(PB)/cand-site-__bench_split_e8.o $(patsubst %,$(PB)/cand-site-__bench_s0_%.o,b 8b e c f w) \
	$(PB)/cand-site-__bench_tail_plain.o $(PB)/cand-site-__bench_tail_branch.o $(PB)/cand-site-__bench_mis16.o $(PB)/cand-site-__bench_mis64.o $(PB)/cand-site-__bench_mis64_m.o $(PB)/cand-site-__bench_mis64_y.o $(PB)/cand-site-__bench_tail_y.o $(PB)/cand-site-__bench_tail_m.o $(PB)/cand-site-__bench_tail_yc.o $(PB)/cand-site-__bench_big_m.o $(PB)/cand-site-__bench_a512_m.o \
	$(patsubst %,$(PB)/cand-site-%.o,$(PERF_VARIANT_SYMS)) \
	$(patsubst %,$(PB)/cand-gcc-%.o,$(PERF_GCC))

DEPS += $(PERF_OBJS:.o=.d)

$(PB)/bench.o: bench/bench.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(PB)/gpr.o: bench/gpr.S
	@mkdir -p $(@D)
	$(CC) -Iinclude -Iruntime $(DEPFLAGS) -c -o $@ $<
$(PB)/plaincopy.o: bench/plaincopy.S
	@mkdir -p $(@D)
	$(CC) -Iinclude -Iruntime $(DEPFLAGS) -c -o $@ $<
$(PB)/plain.o: bench/plain.S
	@mkdir -p $(@D)
	$(CC) -Iinclude -Iruntime $(DEPFLAGS) -c -o $@ $<
# plain.S's and plaincopy.S's routines checked byte by byte (smoke.sh runs it)
# (assembled again with -DREPSTOS_PATHS: every path counted, as
# tests/runtime/sweep counts the routines')
$(PB)/plain-paths.o: bench/plain.S
	@mkdir -p $(@D)
	$(CC) -Iinclude -Iruntime -DREPSTOS_PATHS $(DEPFLAGS) -c -o $@ $<
$(PB)/plaincopy-paths.o: bench/plaincopy.S
	@mkdir -p $(@D)
	$(CC) -Iinclude -Iruntime -DREPSTOS_PATHS $(DEPFLAGS) -c -o $@ $<
$(PB)/plaincheck: bench/plaincheck.c $(PB)/plain-paths.o $(PB)/plaincopy-paths.o $(RT_LIB)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -o $@ bench/plaincheck.c $(PB)/plain-paths.o \
		$(PB)/plaincopy-paths.o $(RT_LIB)
DEPS += $(PB)/plain-paths.d $(PB)/plaincopy-paths.d $(PB)/plaincheck.d
$(PB)/cand-glibc.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -fno-builtin -DCAND=glibc -DKIND_LIBC -c -o $@ $<
$(PB)/cand-inline.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -mno-red-zone -DCAND=inline -DKIND_INLINE -c -o $@ $<
$(PB)/cand-empty.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -DCAND=empty -DKIND_EMPTY -c -o $@ $<
$(PB)/cand-site-%.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -mno-red-zone -DCAND=$* -DKIND_SITE=$* -c -o $@ $<
$(PB)/cand-gcc-%.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -minline-all-stringops -mstringop-strategy=$* \
		-DCAND=gcc_$* -DKIND_GCC -c -o $@ $<

$(PB)/bench: $(PERF_OBJS) $(RT_LIB)
	$(CC) -o $@ $(PERF_OBJS) $(RT_LIB) -lm

# make test runs the benchmarks once, tiny, as poorer CPUs: they must run
# to the end (no timing is asserted).
TESTS += bench/smoke.sh
bench/smoke.sh: $(PB)/bench $(PB)/copybench $(PB)/plaincheck $(PLUGIN_SO) $(RT_LIB) $(RT_FULL_LIB) $(PATCHER_BIN)

# `make bench` runs every part's benchmark; this one alone is
# `make bench-memset`.
bench: bench-memset
bench-memset: $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	$(PB)/bench -o $$out $(BENCH_ARGS) && \
	gnuplot -e "dir='$$out'; n=$$(awk '/^size/ { print (NF - 1) / 2; exit }' $$out/plot.dat)" bench/plot.gp && \
	cat $$out/summary.txt && \
	bench/startup.sh 10000 21 | tee $$out/startup.txt

.PHONY: bench-memset

# repstos tune --report: it writes no tuning file.
tune: $(PATCHER_BIN)
	$(PATCHER_BIN) tune --report
.PHONY: tune

# Many sites, each with its own narrow size distribution, plain and with
# repstos, interleaved; `make bench` runs it with the others.
bench: bench-manysite
bench-manysite: $(PLUGIN_SO) $(RT_FULL_LIB) $(PATCHER_BIN) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	bench/manysite.sh | tee $$out/manysite.txt

# The same with memcpy sites (manysite.sh -c): glibc's memcpy against
# the copy sites, auto and each copy routine.
bench: bench-manysite-copy
bench-manysite-copy: $(PLUGIN_SO) $(RT_FULL_LIB) $(PATCHER_BIN) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	bench/manysite.sh -c | tee $$out/manysite-copy.txt

# The memset program whose sites read back what they set (manysite.sh
# -r): what the plugin's read mark and avx512_plain do in a program.
bench: bench-manysite-read
bench-manysite-read: $(PLUGIN_SO) $(RT_FULL_LIB) $(PATCHER_BIN) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	bench/manysite.sh -r | tee $$out/manysite-read.txt

# The many-site programs built by GCC and by clang-16, side by side in
# one run (manysite.sh, MANYSITE_CCS): each compiler's sites, auto and
# profiled, against that compiler's own plain build (glibc through the
# PLT), sets and copies, back to back and with use after write.  Where
# the LLVM plugin is built (plugin/llvm/llvm.mk).
ifeq ($(LLVM_HAVE),yes)
bench: bench-manysite-clang
bench-manysite-clang: $(PLUGIN_SO) $(LLVM_PLUGIN) $(RT_FULL_LIB) $(PATCHER_BIN) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	MANYSITE_CCS="gcc clang-16" bench/manysite.sh | tee $$out/manysite-clang.txt && \
	MANYSITE_CCS="gcc clang-16" bench/manysite.sh -c | tee $$out/manysite-copy-clang.txt
.PHONY: bench-manysite-clang
endif

# What the runtime adds to each module, and to a process mapping 50 of
# them (issue 13's lean-module goals), against plain builds.
bench: bench-footprint
bench-footprint: $(RT_LIB) $(RT_SHARED_DEPS) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	taskset -c 1 bench/footprint.sh | tee $$out/footprint.txt
.PHONY: bench-footprint

# This CPU's cost table and module choice, ten times: the decision should
# not change from run to run.
bench: bench-tune
bench-tune: $(PATCHER_BIN) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	bench/tune-runs.sh 10 | tee $$out/tune.txt

.PHONY: bench-manysite bench-manysite-copy bench-manysite-read bench-tune

# A real program plain and with repstos, side by side (zstd -b, small
# blocks); `make bench` runs it with the others.
bench: bench-macro
bench-macro: $(PLUGIN_SO) $(RT_LIB) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	bench/macro.sh | tee $$out/macro.txt

.PHONY: bench-macro

# The copy routines against glibc's memcpy/memmove: `make bench-copy`
# (bench/copybench.sh) writes copybench.txt beside the memset
# results.  Every candidate is cand.c with -DOP_COPY, one object each,
# as for memset: glibc's memcpy and memmove (-fno-builtin: through the
# PLT), a site per copy routine, rep movsb in place, GCC's strategies.
PERF_COPY_VARIANT_SYMS := $(shell CC='$(CC)' tests/xlist.sh COPY_VARIANTS sym)
PERF_COPY_OBJS := $(PB)/copycand-glibc.o $(PB)/copycand-glibc_move.o \
	$(PB)/copycand-inline.o $(PB)/plaincopy.o $(PB)/copycand-site-__bench_copy_mask16.o \
	$(patsubst %,$(PB)/copycand-site-__bench_copy_%.o,fwd8 fwd8b fwd16b) \
	$(patsubst %,$(PB)/copycand-site-%.o,$(PERF_COPY_VARIANT_SYMS)) \
	$(patsubst %,$(PB)/copycand-gcc-%.o,$(PERF_GCC))
$(PB)/copycand-glibc.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -fno-builtin -DCAND=glibc -DKIND_LIBC -DOP_COPY -c -o $@ $<
$(PB)/copycand-glibc_move.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -fno-builtin -DCAND=glibc_move -DKIND_LIBC \
		-DOP_COPY -DOP_MOVE -c -o $@ $<
$(PB)/copycand-inline.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -mno-red-zone -DCAND=inline -DKIND_INLINE -DOP_COPY -c -o $@ $<
$(PB)/copycand-site-%.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -mno-red-zone -DCAND=$* -DKIND_SITE=$* -DOP_COPY -c -o $@ $<
$(PB)/copycand-gcc-%.o: bench/cand.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -minline-all-stringops -mstringop-strategy=$* \
		-DCAND=gcc_$* -DKIND_GCC -DOP_COPY -c -o $@ $<
$(PB)/copybench.o: bench/copybench.c
	@mkdir -p $(@D)
	$(CC) $(PERF_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(PB)/copybench: $(PB)/copybench.o $(PERF_COPY_OBJS) $(RT_LIB)
	$(CC) -o $@ $(PB)/copybench.o $(PERF_COPY_OBJS) $(RT_LIB) -lm
DEPS += $(PB)/copybench.d $(PERF_COPY_OBJS:.o=.d)

bench: bench-copy
bench-copy: $(PB)/copybench $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	bench/copybench.sh | tee $$out/copybench.txt
.PHONY: bench-copy

# The plugin's sites at scale: 100,000 in one unit, assembled and
# started with and without a profile (issue 25, F7).
bench: bench-scale
bench-scale: $(PLUGIN_SO) $(RT_FULL_LIB) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	{ bench/scale.sh 20000 11 && bench/scale.sh 100000 11; } | tee $$out/scale.txt
.PHONY: bench-scale

# Hand-written sites at scale: 5,000 and 20,000 REPSTOS_MEMSET in one
# unit, assembled with this tree's repstos.h and with the one whose
# entries each had a link of their own (issue 45).
bench: bench-handscale
bench-handscale: $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	bench/handscale.sh 5000 20000 | tee $$out/handscale.txt
.PHONY: bench-handscale

# Real programs from Debian source (sqlite's speedtest1, zstd -b, jq,
# Lua), plain against repstos-cc with set sites and with copy sites too,
# under auto, every routine and libc, interleaved ROUNDS times (15) with
# a Friedman ranking (issue 22, item 5).  Not part of `make bench`: it
# builds four packages three ways and runs for some 25 minutes
# (23 on the Zen 4 guest, 16 of them the rounds).
bench-real: $(PLUGIN_SO) $(RT_LIB) $(RT_FULL_LIB) $(PATCHER_BIN) $(PB)/bench
	out=$(bench_out) && mkdir -p $$out && \
	ROUNDS=$(or $(ROUNDS),15) bench/real/real.sh | tee $$out/real.txt && \
	cp $(B)/bench/real/raw.txt $$out/real-raw.txt
.PHONY: bench-real

# The plugin's compile-time overhead on sqlite3.c and the corpus sites
# with each GCC the tests run with: the machine's and those of make
# test-compilers' chroots (bench/compilers.sh; root).  Not part of
# `make bench`; bench/compilers.txt is a run's output.
bench-compilers: $(PLUGIN_SO) $(RT_LIB) $(PATCHER_BIN)
	$(call apt_install,bench-compilers,mmdebstrap tcl)
	bench/compilers.sh
.PHONY: bench-compilers
