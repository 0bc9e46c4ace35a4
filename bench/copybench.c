// SPDX-License-Identifier: MIT
/*
 * copybench.c - the copy routines (copy.S) against glibc's memcpy and
 * memmove called through the PLT, interleaved in one run.
 *
 *   copybench [-r REPS] [-c NAME,..] [-z SIZE|LO..HI|dist-X,..] [-s SHAPE,..]
 *             [-a OFFSET,..] [-n MAXCALLS] [-l]
 *
 * Each candidate runs one timed batch of calls per configuration, shape
 * and repetition, in an order rotated each repetition; figures are
 * medians over the repetitions (ns a call), the ratio is glibc's median
 * over the candidate's.  Shapes (bench.h; -s b2b,use,read): calls back
 * to back, each call's last byte or all its words read and folded into
 * the next call's destination; one table each, measured side by side.
 * Configurations: fixed sizes with source and destination 64-byte
 * aligned ("al"), at offsets 5 and 3 ("mis") or each at 0..63 drawn per
 * call ("rnd"; -a 0,3,rand), and moves with the destination 64 bytes
 * above the source ("ov+64", through memmove, aligned); sizes uniform
 * in LO..HI at the same offsets, as a site that varies inside one range
 * sees them (-z 16..63); the published
 * memcpy distributions (patcher/dists/memcpy_dists.h, made from
 * patcher/dists/data/memcpy-sizes by patcher/dists/mkdists.sh) at the same
 * offsets, sizes drawn at random into a ring of bench.h's size, so
 * branches on size are not predicted, and each table's geometric mean
 * of them per offset.  Hot cache below 1 MiB (the same buffers every
 * call); larger sizes stream.  -n caps the calls a batch (for smoke
 * runs).
 *
 * Candidates besides glibc: each copy routine through a call (a patched
 * site), and "rep-movsb" in place; "X-loop" / "X-rep" / "X-nt" run X with
 * its thresholds set so the loop, rep movsb or non-temporal stores copy
 * every large size (for choosing the thresholds); "gcc-S", memcpy as GCC
 * expands it with -minline-all-stringops -mstringop-strategy=S.  All are
 * cand.c's loops (one object per candidate, bench.mk).  rep movsb forwards
 * and GCC's expansions are memcpy, not memmove: no figure ("-") for moves.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "repstos.h"
#include "policy/policy.h"
#include "routines/routines.h"
#include "dists/memcpy_dists.h"
#include "bench.h"

/* Every candidate's loop is cand.c's, built once per candidate with
 * -DOP_COPY (bench.mk): glibc's memcpy and memmove through the PLT, each
 * copy routine through a site (call rel32, the copy contract's
 * constraints), rep movsb in place and GCC's strategies, so the loops
 * differ only in the op. */
#define X(e, name, sym, needs) extern BENCH_LOOPS(bench_copy_##sym);
REPSTOS_COPY_VARIANTS(X)
#undef X
extern BENCH_LOOPS(bench_copy_glibc);
extern BENCH_LOOPS(bench_copy_glibc_move);
extern BENCH_LOOPS(bench_copy_inline);
#ifdef BENCH_KERNEL
/* kernel/bench.sh: Linux 6.1's memcpy_erms and memcpy_orig, assembled
 * from the fetched source, beside kernel mode's routines. */
extern BENCH_LOOPS(bench_copy_linux_memcpy_erms);
extern BENCH_LOOPS(bench_copy_linux_memcpy_orig);
extern BENCH_LOOPS(bench_copy_linux_memcpy_rep_good);
extern BENCH_LOOPS(bench_copy_linux_memcpy_via_jmp);
extern BENCH_LOOPS(bench_copy___repstos_k_copy_erms);
extern BENCH_LOOPS(bench_copy___repstos_k_copy_rep_good);
extern BENCH_LOOPS(bench_copy___repstos_k_copy_orig);
extern BENCH_LOOPS(bench_copy___repstos_k_move_erms);
extern BENCH_LOOPS(bench_copy___repstos_k_move_rep_good);
extern BENCH_LOOPS(bench_copy___repstos_k_move_orig);
#endif

/* bench/plaincopy.S: "avx512" with plain stores for 16..64 bytes */
extern BENCH_LOOPS(bench_copy___bench_copy_mask16);
extern BENCH_LOOPS(bench_copy___bench_copy_fwd8);
extern BENCH_LOOPS(bench_copy___bench_copy_fwd8b);
extern BENCH_LOOPS(bench_copy___bench_copy_fwd16b);

static bench_loop_fn *const *const site_loops[REPSTOS_COPY_VARIANT_COUNT] = {
#define X(e, name, sym, needs) [REPSTOS_COPY_VARIANT_##e] = bench_copy_##sym,
	REPSTOS_COPY_VARIANTS(X)
#undef X
};

/* bench.h's ring: a 4096-entry one is learnt by the branch predictor. */
#define RING BENCH_RING
#define BUFSZ ((64u << 20) + 4096)

struct cand {
	const char *name;
	bench_loop_fn *const *run;	/* the loops for copies */
	bench_loop_fn *const *move;	/* for moves; NULL: forwards only */
	unsigned long long rep_min, nt_min;	/* 0: the policy's */
};

#define GCC_STRATEGIES(X) X(libcall) X(rep_byte) X(rep_4byte) X(rep_8byte) \
	X(loop) X(unrolled_loop) X(vector_loop)
#define GCC_DECL(s) extern BENCH_LOOPS(bench_copy_gcc_##s);
GCC_STRATEGIES(GCC_DECL)

#define MAXCANDS 32
#define MAXREPS 64
#define MAXROWS 512
static struct cand cands[MAXCANDS];
static unsigned ncands;
static uint8_t *src, *dst;
static uint32_t ring[RING];
/* Each offset kind's rings (bench.h): the destination's and the source's,
 * drawn apart for "rnd". */
static uint8_t doff[BENCH_NOFF][RING], soff[BENCH_NOFF][RING];
static unsigned shapes, offsets, maxcalls = 1000000;

/* A line of the report: one configuration, every shape's medians. */
struct row {
	char label[24];
	int dist;		/* a distribution: in the geometric means */
	unsigned off;		/* enum bench_off */
	double med[BENCH_NSHAPE][MAXCANDS];	/* 0: not run (a move) */
};
static struct row rows[MAXROWS];
static unsigned nrows;

static uint64_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

static void add(const char *name, bench_loop_fn *const *run,
		bench_loop_fn *const *move, unsigned long long rep,
		unsigned long long nt)
{
	cands[ncands++] = (struct cand){ name, run, move, rep, nt };
}

/* One batch of c in placement phase (bench.h). */
static double batch(const struct cand *c, unsigned shape, uint8_t *d,
		    unsigned off, unsigned calls, int move, unsigned phase)
{
	unsigned long long rep = __repstos_copy_rep_min, nt = __repstos_copy_nt_min;
	struct bench_batch b = { .dst = d, .src = src, .sizes = ring,
				 .doff = doff[off], .soff = soff[off],
				 .iters = calls };
	uint64_t t0, t1;

	if (c->rep_min)
		__repstos_copy_rep_min = c->rep_min;
	if (c->nt_min)
		__repstos_copy_nt_min = c->nt_min;
	t0 = now();
	bench_loop(move ? c->move : c->run, phase, shape)(&b);
	t1 = now();
	__repstos_copy_rep_min = rep;
	__repstos_copy_nt_min = nt;
	return (double)(t1 - t0) / calls;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A column: its name's width, at least 8. */
static int width(const struct cand *c)
{
	int w = (int)strlen(c->name);

	return w < 8 ? 8 : w;
}

/*
 * One configuration: every shape and candidate, reps times, the order
 * rotated each repetition and the shapes interleaved, so that what the
 * machine does meanwhile falls on all of them alike; medians kept for
 * the report.  A move's destination is 64 bytes above its source.
 */
static void config(const char *label, unsigned calls, unsigned off,
		   int move, int isdist, unsigned reps)
{
	static double t[BENCH_NSHAPE][MAXCANDS][MAXREPS];
	struct row *w = &rows[nrows];
	unsigned r, k, sh;

	if (nrows == MAXROWS)
		return;
	nrows++;
	snprintf(w->label, sizeof(w->label), "%s", label);
	w->dist = isdist;
	w->off = off;
	if (calls > maxcalls)
		calls = maxcalls;
	for (r = 0; r < reps; r++)
		for (sh = 0; sh < BENCH_NSHAPE; sh++)
			for (k = 0; k < ncands && shapes >> sh & 1; k++) {
				unsigned j = (k + r) % ncands;

				t[sh][j][r] = move && !cands[j].move ? 0 :
					batch(&cands[j], sh, move ? src + 64 : dst,
					      off, calls, move, r);
			}
	for (sh = 0; sh < BENCH_NSHAPE; sh++)
		for (k = 0; k < ncands && shapes >> sh & 1; k++) {
			qsort(t[sh][k], reps, sizeof(double), cmpd);
			w->med[sh][k] = t[sh][k][reps / 2];
		}
	if (isatty(2))		/* a full run takes minutes */
		fprintf(stderr, "\rcopybench: %-20s", label);
}

static unsigned calls_for(unsigned long long mean)
{
	unsigned long long c = (128ull << 20) / (mean + 64);

	return c < 64 ? 64 : c > 1000000 ? 1000000 : (unsigned)c;
}

/* The rows' name for an offset kind: both aligned ("al"), the source at
 * +5 and the destination at +3 ("mis"), each drawn per call ("rnd"). */
static const char *off_label(unsigned o)
{
	return o == BENCH_OFF_3 ? "mis" : o == BENCH_OFF_RAND ? "rnd" : "al";
}

static void fixed(unsigned long long n, unsigned reps)
{
	char label[32];
	unsigned i, o;

	for (i = 0; i < RING; i++)
		ring[i] = (uint32_t)n;
	for (o = 0; o < BENCH_NOFF; o++) {
		if (!(offsets >> o & 1))
			continue;
		snprintf(label, sizeof(label), "%llu %s", n, off_label(o));
		config(label, calls_for(n), o, 0, 0, reps);
	}
	if (n <= (1u << 20) && offsets & 1u << BENCH_OFF_0) {
		snprintf(label, sizeof(label), "%llu ov+64", n);
		config(label, calls_for(n), BENCH_OFF_0, 1, 0, reps);
	}
}

/* Published distribution k (patcher/dists/memcpy_dists.h): sizes drawn into
 * the ring with a fixed seed, the same in every run. */
static void dist(unsigned k, unsigned reps)
{
	unsigned total = repstos_dist_total(&repstos_copy_dists[k]), i, o;
	double sum = 0;
	char label[32];

	srand((unsigned)repstos_copy_dists[k].name[0]);
	for (i = 0; i < RING; i++) {
		ring[i] = repstos_dist_size(&repstos_copy_dists[k], (unsigned)rand() % total);
		sum += ring[i];
	}
	for (o = 0; o < BENCH_NOFF; o++) {
		if (!(offsets >> o & 1))
			continue;
		snprintf(label, sizeof(label), "dist-%s %s",
			 repstos_copy_dists[k].name, off_label(o));
		config(label, calls_for((unsigned long long)(sum / RING)), o,
		       0, 1, reps);
	}
}

/* Sizes drawn uniformly from lo..hi into the ring, as a site whose
 * sizes vary inside one range sees them (the fixed seed of dist's). */
static void range(unsigned long lo, unsigned long hi, unsigned reps)
{
	char label[32];
	unsigned i, o;

	srand(1);
	for (i = 0; i < RING; i++)
		ring[i] = (uint32_t)(lo + (unsigned long)rand() % (hi - lo + 1));
	for (o = 0; o < BENCH_NOFF; o++) {
		if (!(offsets >> o & 1))
			continue;
		snprintf(label, sizeof(label), "%lu..%lu %s", lo, hi,
			 off_label(o));
		config(label, calls_for((lo + hi) / 2), o, 0, 0, reps);
	}
}

/* One -z entry that is neither dist-X nor a plain size: LO..HI. */
#define NDISTS (sizeof(repstos_copy_dists) / sizeof(repstos_copy_dists[0]))

/* One -z entry dist-X: its index, or one line and exit 2 for a name
 * patcher/dists/memcpy_dists.h does not have (bench.c's "dists" is not
 * copybench's: a word taken for a size would time size 0 unasked). */
static unsigned dist_arg(const char *t)
{
	unsigned k;

	for (k = 0; k < NDISTS; k++)
		if (!strcmp(t + 5, repstos_copy_dists[k].name))
			return k;
	fprintf(stderr, "copybench: -z %s: no such distribution\n", t);
	exit(2);
}

/* One -z entry that is a plain size, or one line and exit 2. */
static unsigned long long size_arg(const char *t)
{
	char *end;
	unsigned long long n = strtoull(t, &end, 0);

	if (end == t || *end) {
		fprintf(stderr, "copybench: -z %s: not a size, LO..HI or "
			"dist-X\n", t);
		exit(2);
	}
	return n;
}

/* One -z entry LO..HI: 1 with its bounds, 0 when it is no range, one
 * line and exit 2 when it is a bad one. */
static int range_bounds(const char *t, unsigned long *lo, unsigned long *hi)
{
	char *end;

	*lo = strtoul(t, &end, 0);
	if (strncmp(end, "..", 2))
		return 0;
	*hi = strtoul(end + 2, &end, 0);
	if (*end || *hi < *lo || *hi > (1ul << 20)) {
		fprintf(stderr, "copybench: %s: not a size range LO..HI "
			"(HI at most 1 MiB)\n", t);
		exit(2);
	}
	return 1;
}


static const char *cand_name(unsigned k)
{
	return cands[k].name;
}

static void pick(const char *list)
{
	struct cand keep[MAXCANDS];
	unsigned k, n = 1;

	memcpy(keep, cands, sizeof(keep));
	for (k = 1; k < ncands; k++) {
		const char *p = strstr(list, keep[k].name);
		size_t l = strlen(keep[k].name);

		if (p && (p == list || p[-1] == ',') && (p[l] == ',' || !p[l]))
			cands[n++] = keep[k];
	}
	ncands = n;
}

static void heads(void)
{
	unsigned k;

	printf("%-14s", "config");
	for (k = 0; k < ncands; k++)
		printf(" %*s", width(&cands[k]), cands[k].name);
	printf("\n");
}

/* glibc's ns, then glibc's over each candidate's, "-" where it did not
 * run (a move it cannot do). */
static void print_row(const char *label, const double *m)
{
	unsigned k;

	printf("%-14s", label);
	for (k = 0; k < ncands; k++)
		if (k == 0)
			printf(" %*.2f", width(&cands[k]), m[0]);
		else if (m[k] == 0)
			printf(" %*s", width(&cands[k]), "-");
		else
			printf(" %*.2f", width(&cands[k]), m[0] / m[k]);
	printf("\n");
}

/* A shape's geometric means over the distributions' rows at one offset:
 * as a row of medians whose ratios print as the means of the ratios. */
static void geomean(unsigned sh, unsigned off)
{
	double l[MAXCANDS] = { 0 }, m[MAXCANDS];
	unsigned i, k, n = 0;
	char label[24];

	for (i = 0; i < nrows; i++) {
		if (!rows[i].dist || rows[i].off != off)
			continue;
		n++;
		for (k = 0; k < ncands; k++)
			l[k] += log(rows[i].med[sh][k]);
	}
	if (!n)
		return;
	for (k = 0; k < ncands; k++)
		m[k] = exp(l[k] / n);
	snprintf(label, sizeof(label), "geomean %s", off_label(off));
	print_row(label, m);
}

/* One table per shape, then a line per offset: the geometric mean over
 * the distributions. */
static void report(void)
{
	unsigned sh, i, o;

	for (sh = 0; sh < BENCH_NSHAPE; sh++) {
		if (!(shapes >> sh & 1))
			continue;
		printf("\n## %s (%s): %s\n", bench_shape_what(sh),
		       bench_shape_name(sh), bench_shape_how(sh));
		heads();
		for (i = 0; i < nrows; i++)
			print_row(rows[i].label, rows[i].med[sh]);
		for (o = 0; o < BENCH_NOFF; o++)
			if (offsets >> o & 1)
				geomean(sh, o);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: copybench [-r REPS] [-c NAME,..] "
		"[-z SIZE|LO..HI|dist-X,..] [-s b2b,use,read,first] [-a 0,3,rand] "
		"[-n MAXCALLS] [-l]\n");
	return 2;
}

static void add_all(void)
{
	int v;

	add("glibc", bench_copy_glibc, bench_copy_glibc_move, 0, 0);
#ifdef BENCH_KERNEL
	add("linux-call-jmp-erms", bench_copy_linux_memcpy_via_jmp, NULL, 0, 0);
	add("linux-memcpy_erms", bench_copy_linux_memcpy_erms, NULL, 0, 0);
	add("linux-memcpy_orig", bench_copy_linux_memcpy_orig, NULL, 0, 0);
	add("linux-memcpy_rep_good", bench_copy_linux_memcpy_rep_good, NULL, 0, 0);
	add("k-erms", bench_copy___repstos_k_copy_erms,
	    bench_copy___repstos_k_move_erms, 0, 0);
	add("k-rep_good", bench_copy___repstos_k_copy_rep_good,
	    bench_copy___repstos_k_move_rep_good, 0, 0);
	add("k-orig", bench_copy___repstos_k_copy_orig,
	    bench_copy___repstos_k_move_orig, 0, 0);
#endif
	for (v = 1; v < REPSTOS_COPY_VARIANT_COUNT; v++)
		if (repstos_policy_copy_supported(repstos_cpu(), v))
			add(repstos_copy_variant_name(v), site_loops[v],
			    site_loops[v], 0, 0);
	add("rep-movsb", bench_copy_inline, NULL, 0, 0);
	if (repstos_policy_copy_supported(repstos_cpu(), REPSTOS_COPY_VARIANT_AVX2)) {
		bench_loop_fn *const *l = site_loops[REPSTOS_COPY_VARIANT_AVX2];

		add("avx2-loop", l, l, ~0ull, ~0ull);
		add("avx2-rep", l, l, 1, ~0ull);
		add("avx2-nt", l, l, ~0ull, 1);
	}
	if (repstos_policy_copy_supported(repstos_cpu(), REPSTOS_COPY_VARIANT_AVX512)) {
		bench_loop_fn *const *l = site_loops[REPSTOS_COPY_VARIANT_AVX512];

		add("avx512-loop", l, l, ~0ull, ~0ull);
		add("avx512-rep", l, l, 1, ~0ull);
		add("mask16", bench_copy___bench_copy_mask16,
		    bench_copy___bench_copy_mask16, 0, 0);
		add("fwd8", bench_copy___bench_copy_fwd8,
		    bench_copy___bench_copy_fwd8, 0, 0);
		add("fwd8b", bench_copy___bench_copy_fwd8b,
		    bench_copy___bench_copy_fwd8b, 0, 0);
		add("fwd16b", bench_copy___bench_copy_fwd16b,
		    bench_copy___bench_copy_fwd16b, 0, 0);
	}
#define GCC_ADD(s) add("gcc-" #s, bench_copy_gcc_##s, NULL, 0, 0);
	GCC_STRATEGIES(GCC_ADD)
}

/* Each -z entry, timed or (reps 0) only read: main reads them all
 * before it prints anything, so that a bad one is one line. */
static void run_sizes(const char *zs, unsigned reps)
{
	static const unsigned long long sizes[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 24, 32, 48, 64, 96, 128, 192, 256,
		384, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192, 16384, 32768,
		65536, 131072, 262144, 524288, 1048576,
	};
	char *z, *t;
	unsigned k;

	if (!zs) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			fixed(sizes[k], reps);
		for (k = 0; k < NDISTS; k++)
			dist(k, reps);
		return;
	}
	z = strdup(zs);
	for (t = strtok(z, ","); t; t = strtok(NULL, ",")) {
		unsigned long lo, hi;
		unsigned long long n;

		if (!strncmp(t, "dist-", 5)) {
			k = dist_arg(t);
			if (reps)
				dist(k, reps);
		} else if (range_bounds(t, &lo, &hi)) {
			if (reps)
				range(lo, hi, reps);
		} else {
			n = size_arg(t);
			if (reps)
				fixed(n, reps);
		}
	}
	free(z);
}

/*
 * What a module's constructor does for its routines before any site
 * runs: detect the CPU (as REPSTOS_CPU presents it), let the routines
 * run what it has, and take the policy's rep movsb and non-temporal
 * thresholds.  copybench has no site of its own, so no constructor runs
 * for it: without this every copy routine that needs AVX2 or AVX-512
 * measured "vec", its fallback (as every copybench figure from 3559332
 * to this did), and no routine used rep movsb.
 */
static void enable_routines(void)
{
	struct repstos_cpu cpu;
	struct repstos_tuning t;
	unsigned hw;

	repstos_cpu_detect(&cpu);
	hw = cpu.features;
	if (repstos_cpu_as(&cpu, getenv("REPSTOS_CPU")) < 0)
		fprintf(stderr, "copybench: REPSTOS_CPU: unknown profile; this CPU as it is\n");
	repstos_routines_enable(&cpu, hw, &__repstos_can_avx2, &__repstos_can_avx512);
	repstos_policy_tuning(&cpu, &t);
	__repstos_copy_rep_min = t.copy_rep_min;
	__repstos_copy_nt_min = t.copy_nt_min;
}

int main(int argc, char **argv)
{
	const char *only = NULL, *zs = NULL, *sl = NULL, *al = NULL;
	unsigned reps = 12, o;	/* a multiple of BENCH_NPHASE */
	int opt, list = 0;
	char bad[64];

	while ((opt = getopt(argc, argv, "r:c:z:s:a:n:l")) != -1)
		switch (opt) {
		case 'r': reps = (unsigned)atoi(optarg); break;
		case 'c': only = optarg; break;
		case 'z': zs = optarg; break;
		case 's': sl = optarg; break;
		case 'a': al = optarg; break;
		case 'n': maxcalls = (unsigned)atoi(optarg); break;
		case 'l': list = 1; break;
		default: return usage();
		}
	shapes = sl ? bench_mask(sl, bench_shape_name, BENCH_NSHAPE) :
		     BENCH_SHAPES_DEFAULT;
	offsets = bench_mask(al, bench_off_name, BENCH_NOFF);
	if (!shapes || !offsets)
		return usage();
	if (reps < 1 || reps > MAXREPS) {
		fprintf(stderr, "copybench: -r takes 1 to %u repetitions\n",
			MAXREPS);
		return 2;
	}
	if (maxcalls < 1)
		maxcalls = 1;
	/* the largest copy and its offsets fit in the 4 KiB past 64 MiB */
	src = aligned_alloc(4096, BUFSZ);
	dst = aligned_alloc(4096, BUFSZ);
	if (!src || !dst)
		return 1;
	memset(src, 1, BUFSZ);
	memset(dst, 2, BUFSZ);
	for (o = 0; o < BENCH_NOFF; o++) {
		bench_offsets(doff[o], o, 3, 0x9e3779b97f4a7c15ull);
		bench_offsets(soff[o], o, 5, 0x2545f4914f6cdd1dull);
	}
	enable_routines();
	add_all();
	if (list) {
		for (o = 0; o < ncands; o++)
			puts(cands[o].name);
		return 0;
	}
	if (bench_unknown(only, cand_name, ncands, bad, sizeof(bad))) {
		fprintf(stderr, "copybench: no candidate %s on this CPU "
			"(copybench -l lists them)\n", bad);
		return 2;
	}
	if (only)
		pick(only);
	if (zs)
		run_sizes(zs, 0);
	printf("# copybench: ns a call for glibc, then glibc's time / each's (>1: faster)\n");
	printf("# rep_min %llu nt_min %llu; %u reps, rep r with the loops in "
	       "placement r mod %u (bench.h), medians\n",
	       __repstos_copy_rep_min, __repstos_copy_nt_min, reps,
	       BENCH_NPHASE);
	printf("# routines enabled: avx2 %s, avx512 %s\n",
	       repstos_can_run(__repstos_can_avx2) ? "yes" : "no",
	       repstos_can_run(__repstos_can_avx512) ? "yes" : "no");
	printf("# rows: SIZE al (source and destination 4 KiB aligned), mis "
	       "(source + 5, destination + 3), rnd (each + 0..63, drawn per "
	       "call), ov+64 (a move, destination 64 bytes above the source); "
	       "geomean: over the distributions' rows\n");
	fflush(stdout);
	run_sizes(zs, reps);
	if (isatty(2))
		fputc('\n', stderr);
	report();
	return 0;
}
