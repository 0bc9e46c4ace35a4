// SPDX-License-Identifier: MIT
/*
 * tune.c - measure this machine's cost table and choose its tuning
 * (patcher/tune.h).
 *
 * Every form runs the way a site runs it: a routine by a direct `call`
 * with the contract's registers, rep stosb in place, and glibc's memset,
 * the reference every goal is stated against, through the PLT.
 * Candidates are interleaved and each figure is a median, so drift
 * moves them all alike.
 *
 * Three steps:
 *  1. the rep stosb thresholds of the store loops ("vec", and the wide
 *     routines), kept at the policy's value unless another is 5% better
 *     over the large sizes (near the crossover the two are level, and a
 *     threshold chosen on noise would differ from run to run);
 *  2. the cost of every form in every size class, at both ends of the
 *     class, destination aligned and not, the worst of the four;
 *  3. the module routine, which every site of unknown size and use
 *     gets, and the read routine, which a site of unknown size its
 *     function reads back gets: each routine's cells, its ratio to glibc
 *     in every shape (back to back; the next call depending on the last
 *     byte written, the first, every 8-byte word) on every published
 *     distribution at three placements (aligned, +3, a random offset
 *     in a line: the worst of them), and back to back at fixed sizes;
 *     the module routine is the best worst cell over every shape, then
 *     the best mean, back to back weighing as much as the read shapes
 *     together; the read routine the same over the three read shapes
 *     (pick.h).  As in step 1, the policy's routine stays unless another
 *     beats it by 5% in the measure that decided: on Zen 5, where
 *     avx512_split's worst fixed size is bimodal (0.71x or 0.85-1.00x),
 *     6 of 30 runs chose avx512 without such a margin.  Where the rule
 *     would change a measured row's routine, the two are measured again
 *     (the fixed sizes too, for the module routine) and judged by the
 *     better of their two passes (confirm).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tune.h"
#include "pick.h"
#include "routines/routines.h"
#include "dists/memset_dists.h"
#include "dists/memcpy_dists.h"

/* The family a measuring loop's copy flag names. */
#define FAM(copy) (&repstos_families[(copy) ? REPSTOS_FAMILY_COPY : \
						REPSTOS_FAMILY_SET])

#define RING 65536u
#define REPS 11
/* Step 3's cells are many: 3 s for the whole tune.  Each is the worst
 * of three placements' medians, so its noise pulls it down: with 7
 * repetitions the copy read routine on Emerald Rapids went to
 * avx512_fwd in 5 of 10 runs, its worst read-all cell (0.98-0.99x) and
 * avx512's (1.03x) seen now within the rule's 3%, now not; with 11,
 * 10 of 10 runs agreed, in 2.42 s, until avx512_fwd's cheaper form
 * made the two level (the rule's margin is 5% since: pick.c, NEAR). */
#define CELL_REPS 11
_Static_assert(CELL_REPS <= REPS, "measure_reps' arrays");
#define BATCH_NS 100e3
#define NEVER (~0ull)
#define NSETDIST (sizeof(repstos_dists) / sizeof(repstos_dists[0]))
#define NCOPYDIST (sizeof(repstos_copy_dists) / sizeof(repstos_copy_dists[0]))
#define NDIST (NSETDIST > NCOPYDIST ? NSETDIST : NCOPYDIST)
#define BUF_SIZE ((1u << 20) + 8192)
/* A form number for the reference, glibc's memset or memcpy: past both
 * families' variants (policy.h's table rows). */
#define GLIBC REPSTOS_NFORM
#define NFORM (GLIBC + 1)

static unsigned char *buf;
static unsigned char *src;	/* what copies read */
static uint32_t *ring;
static uint8_t *place;		/* each call's offset past the destination:
				 * 0, or 0..63 for the random placement */
static size_t ring_pos;		/* batches go on where the last one ended:
				 * replaying one stretch of the ring from
				 * batch to batch lets the branch predictor
				 * learn it */

/* ---- running one form ------------------------------------------------- */

/*
 * One loop per routine and shape, each calling its routine directly, as
 * a patched site does (this file is built with -mno-red-zone, as the
 * plugin builds the code it compiles), and one for glibc, a plain `call
 * memset@plt`: each as a real program would run it.  Four shapes
 * (enum repstos_shape):
 *   back to back   nothing reads what a call wrote;
 *   last, first    the last (first) byte each call wrote is loaded and
 *                  folded (times an opaque 0) into the next call's
 *                  destination, as code does that reads back what it
 *                  cleared or copied: a load of bytes a store cannot
 *                  forward (a masked or string store, on some CPUs)
 *                  waits for it to commit, and the next call waits on
 *                  the load;
 *   all            the same with the sum of every 8-byte word written
 *                  (and the last byte), as a parser reads a buffer.
 * Each call's destination is the loop's, plus place[] (0, or a random
 * offset in a line for the random placement), plus that dependency.
 */
static inline size_t read_back(const unsigned char *d, unsigned long n,
				int how)
{
	size_t b = 0, zero = 0, w, i;

	if (how == REPSTOS_SHAPE_LAST)
		b = d[n ? n - 1 : 0];
	else if (how == REPSTOS_SHAPE_FIRST)
		b = d[0];
	else {
		for (i = 0; i + 8 <= n; i += 8) {
			memcpy(&w, d + i, 8);
			b += w;
		}
		b += d[n ? n - 1 : 0];
	}
	__asm__("" : "+r"(zero));
	return b & zero;
}

/* Call i's size and destination in a loop over the ring. */
#define AT(i)	(ring_pos + (i)) & (RING - 1)

#define SET_LOOP(fn, how, insn, ...)					\
static void fn(unsigned char *dst, size_t iters)			\
{									\
	size_t i, dep = 0;						\
									\
	for (i = 0; i < iters; i++) {					\
		unsigned char *at = dst + place[AT(i)] + dep;		\
		void *d = at;						\
		unsigned long n = ring[AT(i)];				\
		unsigned long a = 0x5a;					\
									\
		__asm__ __volatile__(insn : "+D"(d), "+c"(n), "+a"(a)	\
				     : : "memory", "cc", ##__VA_ARGS__);\
		if (how)						\
			dep = read_back(at, ring[AT(i)], how);		\
	}								\
}

/* A form's loop in each shape, by enum repstos_shape. */
#define SHAPED(LOOP, pre, ...)						\
	LOOP(pre##_b2b, REPSTOS_SHAPE_B2B, __VA_ARGS__)			\
	LOOP(pre##_last, REPSTOS_SHAPE_LAST, __VA_ARGS__)		\
	LOOP(pre##_first, REPSTOS_SHAPE_FIRST, __VA_ARGS__)		\
	LOOP(pre##_all, REPSTOS_SHAPE_ALL, __VA_ARGS__)
#define SHAPES_OF(pre) { pre##_b2b, pre##_last, pre##_first, pre##_all }

#define REPSTOS_X_RUN(e, name, sym, needs)				\
	SHAPED(SET_LOOP, run_##e, "call " #sym, "xmm0")
REPSTOS_VARIANTS(REPSTOS_X_RUN)
#undef REPSTOS_X_RUN
SHAPED(SET_LOOP, run_inline, "rep stosb")

typedef void set_loop_fn(unsigned char *, size_t);
static set_loop_fn *const runners[REPSTOS_VARIANT_COUNT][REPSTOS_NSHAPE] = {
#define REPSTOS_X_RUNNER(e, name, sym, needs) \
	[REPSTOS_VARIANT_##e] = SHAPES_OF(run_##e),
	REPSTOS_VARIANTS(REPSTOS_X_RUNNER)
#undef REPSTOS_X_RUNNER
};
static set_loop_fn *const inline_runners[REPSTOS_NSHAPE] = SHAPES_OF(run_inline);

#define LIBC_LOOP(fn, how, unused)					\
static void fn(unsigned char *dst, size_t iters)			\
{									\
	size_t i, dep = 0;						\
									\
	for (i = 0; i < iters; i++) {					\
		unsigned char *at = dst + place[AT(i)] + dep;		\
		unsigned long n = ring[AT(i)];				\
									\
		memset(at, 0x5a, n);					\
		__asm__ __volatile__("" : : : "memory");		\
		if (how)						\
			dep = read_back(at, n, how);			\
	}								\
}
SHAPED(LIBC_LOOP, run_libc, 0)
static set_loop_fn *const libc_runners[REPSTOS_NSHAPE] = SHAPES_OF(run_libc);

/* The same for the copy forms: each copy routine called as a copy site
 * calls it, rep movsb in place, and glibc's memcpy through the PLT. */
#define COPY_LOOP(fn, how, insn, ...)					\
static void fn(unsigned char *dst, const unsigned char *from,		\
	       size_t iters)						\
{									\
	size_t i, dep = 0;						\
									\
	for (i = 0; i < iters; i++) {					\
		unsigned char *at = dst + place[AT(i)] + dep;		\
		void *d = at;						\
		const void *s = from;					\
		unsigned long n = ring[AT(i)];				\
									\
		__asm__ __volatile__(insn : "+D"(d), "+S"(s), "+c"(n)	\
				     : : "memory", "cc", ##__VA_ARGS__);\
		if (how)						\
			dep = read_back(at, ring[AT(i)], how);		\
	}								\
}

#define REPSTOS_X_COPY_RUN(e, name, sym, needs)				\
	SHAPED(COPY_LOOP, copy_run_##e, "call " #sym, REPSTOS_COPY_CLOBBERS)
REPSTOS_COPY_VARIANTS(REPSTOS_X_COPY_RUN)
#undef REPSTOS_X_COPY_RUN
SHAPED(COPY_LOOP, copy_run_inline, "rep movsb")

typedef void copy_loop_fn(unsigned char *, const unsigned char *, size_t);
static copy_loop_fn *const copy_runners[REPSTOS_COPY_VARIANT_COUNT][REPSTOS_NSHAPE] = {
#define REPSTOS_X_RUNNER(e, name, sym, needs) \
	[REPSTOS_COPY_VARIANT_##e] = SHAPES_OF(copy_run_##e),
	REPSTOS_COPY_VARIANTS(REPSTOS_X_RUNNER)
#undef REPSTOS_X_RUNNER
};
static copy_loop_fn *const copy_inline_runners[REPSTOS_NSHAPE] =
	SHAPES_OF(copy_run_inline);

#define COPY_LIBC_LOOP(fn, how, unused)					\
static void fn(unsigned char *dst, const unsigned char *from,		\
	       size_t iters)						\
{									\
	size_t i, dep = 0;						\
									\
	for (i = 0; i < iters; i++) {					\
		unsigned char *at = dst + place[AT(i)] + dep;		\
		unsigned long n = ring[AT(i)];				\
									\
		memcpy(at, from, n);					\
		__asm__ __volatile__("" : : : "memory");		\
		if (how)						\
			dep = read_back(at, n, how);			\
	}								\
}
SHAPED(COPY_LIBC_LOOP, copy_run_libc, 0)
static copy_loop_fn *const copy_libc_runners[REPSTOS_NSHAPE] =
	SHAPES_OF(copy_run_libc);

/* Which shape the loops run (enum repstos_shape). */
static int shape;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per call of form f (a variant, INLINE meaning in place, or GLIBC;
 * copy: of the copy family), destination at buf + off; a copy's source
 * at src + off + 2 when off is not 0, so the two are misaligned apart. */
static double once(int copy, unsigned f, unsigned off, size_t iters)
{
	const unsigned char *from = src + (off ? off + 2 : 0);
	double t0 = now(), t;

	if (copy && f == GLIBC)
		copy_libc_runners[shape](buf + off, from, iters);
	else if (copy && f == REPSTOS_COPY_VARIANT_INLINE)
		copy_inline_runners[shape](buf + off, from, iters);
	else if (copy)
		copy_runners[f][shape](buf + off, from, iters);
	else if (f == GLIBC)
		libc_runners[shape](buf + off, iters);
	else if (f == REPSTOS_VARIANT_INLINE)
		inline_runners[shape](buf + off, iters);
	else
		runners[f][shape](buf + off, iters);
	t = (now() - t0) / (double)iters;
	ring_pos += iters;
	return t;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(double), cmpd);
	return v[n / 2];
}

/*
 * The forms measured side by side, in the order they run: variant
 * numbers, and GLIBC for the reference.  Appending is checked, so no
 * list can outgrow the arrays sized NFORM that its measurements fill.
 */
struct forms {
	int copy;		/* copy variants, and glibc's memcpy */
	unsigned n;
	unsigned f[NFORM];
};

static int add_form(struct forms *s, unsigned f)
{
	if (s->n >= NFORM || f >= NFORM)
		return -1;
	s->f[s->n++] = f;
	return 0;
}

/* s with glibc, the reference measure() takes ratios to, last. */
static int with_glibc(const struct forms *s, struct forms *out)
{
	*out = *s;
	return add_form(out, GLIBC);
}

/*
 * Median ns per call of each form of s, interleaved, on the ring as it
 * is, destination at buf + off; and, when ratio is not NULL, the median
 * over the repetitions of the last form's time over each form's, which
 * cancels the drift between repetitions (bench/bench.c does the
 * same).  The batch length is set by the first form's speed.
 */
static void measure_reps(const struct forms *s, unsigned off, double *med,
			 double *ratio, unsigned reps)
{
	double t[NFORM][REPS], q[REPS];
	unsigned r, c, n = s->n;
	size_t iters;

	if (!n)
		return;
	once(s->copy, s->f[0], off, 16);
	iters = (size_t)(BATCH_NS / (once(s->copy, s->f[0], off, 16) + 0.5)) + 2;
	for (r = 0; r < reps; r++)
		for (c = 0; c < n; c++) {
			unsigned k = (c + r) % n;

			t[k][r] = once(s->copy, s->f[k], off, iters);
		}
	for (c = 0; ratio && c < n; c++) {
		for (r = 0; r < reps; r++)
			q[r] = t[n - 1][r] / t[c][r];
		ratio[c] = median(q, reps);
	}
	for (c = 0; c < n; c++)
		med[c] = median(t[c], reps);
}

static void measure(const struct forms *s, unsigned off, double *med,
		    double *ratio)
{
	measure_reps(s, off, med, ratio, REPS);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static void fill_fixed(uint32_t size)
{
	unsigned i;

	for (i = 0; i < RING; i++)
		ring[i] = size;
}

/* The published distributions of a family: memset's, or memcpy's. */
static const struct repstos_dist *dists(int copy, unsigned *n)
{
	*n = copy ? NCOPYDIST : NSETDIST;
	return copy ? repstos_copy_dists : repstos_dists;
}

/* Sizes drawn from distribution d, as bench/bench does. */
static void fill_dist(const struct repstos_dist *d)
{
	unsigned total = repstos_dist_total(d), i;
	uint64_t s = 0x2545f4914f6cdd1dull;

	for (i = 0; i < RING; i++)
		ring[i] = repstos_dist_size(d, (unsigned)(xorshift(&s) % total));
}

/* ---- step 1: rep stosb thresholds ------------------------------------- */

#define NBIG 19		/* 2 KiB, 3 KiB, 4 KiB, 6 KiB .. 768 KiB, 1 MiB */

static unsigned long long big_size(unsigned i)
{
	return (2048ull << i / 2) * (i & 1 ? 3 : 2) / 2;
}

/* m[i][0]: ns of the store loop at big_size(i), m[i][1]: of rep stosb;
 * each the sum of aligned and +3. */
static void measure_big(FILE *rep, enum repstos_variant loop, double m[][2])
{
	const struct forms s = { 0, 2, { loop, REPSTOS_VARIANT_INLINE } };
	unsigned i;

	for (i = 0; i < NBIG; i++) {
		double mis[2];

		fill_fixed((uint32_t)big_size(i));
		measure(&s, 0, m[i], NULL);
		measure(&s, 3, mis, NULL);
		m[i][0] += mis[0];
		m[i][1] += mis[1];
		if (rep)
			fprintf(rep, "  %-6s %8llu bytes: loop %9.2f ns, rep stosb %9.2f ns "
				"(aligned and +3, added)\n",
				repstos_variant_name(loop), big_size(i),
				m[i][0], m[i][1]);
	}
}

/* With rep stosb from t on: the total over the sizes of the time taken
 * relative to the faster of the two at each size. */
static double threshold_cost(const double m[][2], unsigned long long t)
{
	double cost = 0;
	unsigned i;

	for (i = 0; i < NBIG; i++)
		cost += m[i][big_size(i) >= t] /
			(m[i][0] < m[i][1] ? m[i][0] : m[i][1]);
	return cost;
}

/* The threshold for `loop` among the sizes measured and never: the least
 * total over the sizes, relative to the faster of the two at each; the
 * policy's own value `dflt` unless another is 5% better.  (With 2%,
 * where the loop and rep stosb are within 1-3% of each other at every
 * size from 4 KiB, as avx2's are on Zen 4, the noise of 14 sizes added
 * up chose 4 KiB, 256 KiB or never from run to run: 3 to 5 decisions
 * in 10 runs.  A real difference, as vec's loop at 1.8x rep stosb's
 * time from 2 KiB, is far above 5%.) */
static unsigned long long threshold(FILE *rep, enum repstos_variant loop,
				    unsigned long long dflt)
{
	double m[NBIG][2], cost, best_cost = 0;
	unsigned long long best = NEVER, t;
	unsigned j;

	measure_big(rep, loop, m);
	for (j = 0; j <= NBIG; j++) {
		t = j < NBIG ? big_size(j) : NEVER;
		cost = threshold_cost(m, t);
		if (!j || cost < best_cost)
			best_cost = cost, best = t;
	}
	return best_cost < threshold_cost(m, dflt) * 0.95 ? best : dflt;
}

/* The routines' rep stosb thresholds, which tuning moves while it
 * measures and then puts back. */
struct knobs {
	unsigned long long vec_rep_min, wide_rep_min, short_rep_max;
};

static struct knobs knobs_now(void)
{
	return (struct knobs){ __repstos_vec_rep_min, __repstos_wide_rep_min,
			       __repstos_short_rep_max };
}

static void knobs_set(const struct knobs *k)
{
	__repstos_vec_rep_min = k->vec_rep_min;
	__repstos_wide_rep_min = k->wide_rep_min;
	__repstos_short_rep_max = k->short_rep_max;
}

/* Step 1 into out, whose thresholds the routines then use for the
 * steps after it.  Without ERMS the policy's stay (no rep stosb). */
static void tune_thresholds(FILE *rep, const struct repstos_cpu *cpu,
			    struct repstos_tuning *out)
{
	struct knobs k = { NEVER, NEVER, out->short_rep_max };

	knobs_set(&k);
	if (cpu->features & REPSTOS_CPU_ERMS) {
		out->vec_rep_min = threshold(rep, REPSTOS_VARIANT_VEC,
					     out->vec_rep_min);
		if (repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX2))
			out->wide_rep_min = threshold(rep, REPSTOS_VARIANT_AVX2,
						      out->wide_rep_min);
	}
	k.vec_rep_min = out->vec_rep_min;
	k.wide_rep_min = out->wide_rep_min;
	knobs_set(&k);
	if (rep)
		fprintf(rep, "  rep stosb thresholds: vec from %llu, wide from %llu\n",
			out->vec_rep_min, out->wide_rep_min);
}

/* ---- step 2: the cost table ------------------------------------------- */

/* ns[form][class] for the four configurations of each class, and the
 * median ratio of glibc's time to the form's. */
struct table {
	double ns[NFORM][REPSTOS_NCLASS][4];
	double ratio[NFORM][REPSTOS_NCLASS][4];
};

static void measure_classes(const struct forms *s, struct table *tb,
			    unsigned nclass)
{
	static const unsigned offs[2] = { 0, 3 };
	double m[NFORM], x[NFORM];
	unsigned c, e, a, f;

	/* A first pass over the smallest class, thrown away: measured
	 * straight after step 1's large sizes, the first classes read
	 * 0.3-1.5 ns high for every form (Zen 4). */
	fill_fixed(0);
	measure(s, 0, m, x);
	for (c = 0; c < nclass; c++)
		for (e = 0; e < 2; e++) {
			/* the last class from its low end only: 1 MiB */
			unsigned long long size = e && c < REPSTOS_NCLASS - 1 ?
				repstos_class_hi(c) : repstos_class_lo(c);

			fill_fixed((uint32_t)size);
			for (a = 0; a < 2; a++) {
				measure(s, offs[a], m, x);
				for (f = 0; f < s->n; f++) {
					tb->ns[s->f[f]][c][e * 2 + a] = m[f];
					tb->ratio[s->f[f]][c][e * 2 + a] = x[f];
				}
			}
		}
}

static void measure_costs(const struct forms *s, struct table *tb)
{
	measure_classes(s, tb, REPSTOS_NCLASS);
}

/* A form's cost in class c: the worst of its four, in centi-ns. */
static unsigned class_cost(const struct table *tb, unsigned f, unsigned c)
{
	double w = 0;
	unsigned i;

	for (i = 0; i < 4; i++)
		w = tb->ns[f][c][i] > w ? tb->ns[f][c][i] : w;
	w = w * 100 + 0.5;
	return (unsigned)(w < 1 ? 1 : w > 4e9 ? 4e9 : w);
}

/* s's forms' rows of a cost table k, which has no others (set or copy:
 * the same model). */
static void set_costs(const struct forms *s, const struct table *tb,
		      struct repstos_costs *k)
{
	unsigned c, f;

	memset(k, 0, sizeof(*k));
	for (f = 0; f < s->n; f++)
		for (c = 0; c < REPSTOS_NCLASS; c++)
			k->cns[s->f[f]][c] = class_cost(tb, s->f[f], c);
}

/* The variants of a family this CPU runs, by number, but those of
 * `leave`: "inline" stands for rep stosb (rep movsb) in place, as sites
 * run it (its called form is for the stub only). */
static int forms_but(const struct repstos_cpu *cpu, int copy, unsigned leave,
		     struct forms *s)
{
	const struct repstos_family *fam = FAM(copy);
	int v;

	s->copy = copy;
	s->n = 0;
	for (v = 0; v < fam->nvariants; v++)
		if (repstos_family_runs(fam, cpu, v) && !(leave >> v & 1) &&
		    add_form(s, (unsigned)v))
			return -1;
	return 0;
}

/* The forms the cost table has: none that only a forced choice or the
 * range rule gives (forced_only). */
static int site_forms(const struct repstos_cpu *cpu, int copy, struct forms *s)
{
	return forms_but(cpu, copy, FAM(copy)->forced_only, s);
}

/* The forms measured: every routine shipped but the C library's
 * adaptor (the family's `wide` ones), which times glibc again. */
static int measured_forms(const struct repstos_cpu *cpu, int copy,
			  struct forms *s)
{
	return forms_but(cpu, copy, FAM(copy)->wide, s);
}

/* Step 2: the cost of every form measured, into *tb, and of every site
 * form into out's table. */
static int tune_costs(const struct repstos_cpu *cpu, int copy,
		      struct table *tb, struct repstos_tuning *out)
{
	struct forms sites, all, s;

	if (site_forms(cpu, copy, &sites) || measured_forms(cpu, copy, &all) ||
	    with_glibc(&all, &s))
		return -1;
	measure_costs(&s, tb);
	set_costs(&sites, tb, &out->fam[FAM(copy)->id].costs);
	return 0;
}

/* ---- step 2b: what a change of size class costs ------------------------ */

#define NCHANGE 9	/* the classes below 256 bytes */

/* Sizes below 256 whose class is drawn at random call by call: each of
 * the NCHANGE classes equally often, the size uniform within it. */
static void fill_classes(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned i;

	for (i = 0; i < RING; i++) {
		unsigned c = (unsigned)(xorshift(&s) % NCHANGE);
		unsigned long long lo = repstos_class_lo(c);

		ring[i] = (uint32_t)(lo + xorshift(&s) % (repstos_class_hi(c) - lo + 1));
	}
}

/*
 * Each site form on those sizes, against what its fixed-size costs in
 * *tb predict for them (the mean over the classes of both ends' mean,
 * at the same alignment): the difference is what the changes of class
 * cost it, mispredictions.  Consecutive calls change class with
 * probability 1 - 1/NCHANGE, so the cost of one change is the difference
 * over that; the worse of aligned and +3, and never below 0 (a form
 * faster on varying sizes than at fixed ones is noise).
 */
static int tune_change(FILE *rep, const struct repstos_cpu *cpu, int copy,
		       const struct table *tb, struct repstos_tuning *out)
{
	static const unsigned offs[2] = { 0, 3 };
	struct repstos_costs *k = &out->fam[FAM(copy)->id].costs;
	double m[2][NFORM];
	struct forms s;
	unsigned a, c, f;

	if (site_forms(cpu, copy, &s))
		return -1;
	fill_classes();
	for (a = 0; a < 2; a++)
		measure(&s, offs[a], m[a], NULL);
	for (f = 0; f < s.n; f++) {
		unsigned v = s.f[f];
		double worst = 0, cns;

		for (a = 0; a < 2; a++) {
			double fixed = 0;

			for (c = 0; c < NCHANGE; c++)
				fixed += (tb->ns[v][c][a] + tb->ns[v][c][2 + a]) / 2;
			fixed /= NCHANGE;
			if (m[a][f] - fixed > worst)
				worst = m[a][f] - fixed;
		}
		cns = worst / (1 - 1.0 / NCHANGE) * 100 + 0.5;
		k->change[v] = (unsigned)(cns > 4e9 ? 4e9 : cns);
		k->change_known |= 1u << v;
		if (rep)
			fprintf(rep, "  %s%-13s sizes below 256 changing class: "
				"%.2f ns aligned, %.2f at +3; a change of class "
				"%.2f ns\n", copy ? "copy " : "", repstos_family_name(FAM(copy), (int)v),
				m[0][f], m[1][f], k->change[v] / 100.0);
	}
	return 0;
}

/* ---- step 3: the module and read routines ----------------------------- */

/* pick.h's cells: a slot for each published distribution */
_Static_assert(NDIST <= REPSTOS_PICK_NDIST, "pick.h: REPSTOS_PICK_NDIST");

/* Routine f's fixed-size cell: the least, over the classes, of the
 * median of the class's four ratios (both ends, aligned and not), back
 * to back; a single low point is usually noise (glibc's time at a small
 * fixed size is bimodal from run to run), a real weakness spans a
 * class. */
static double fixed_cell(const struct table *tb, unsigned f)
{
	double r[4], worst = 1e9;
	unsigned c, i;

	for (c = 0; c < REPSTOS_NCLASS; c++) {
		for (i = 0; i < 4; i++)
			r[i] = tb->ratio[f][c][i];
		qsort(r, 4, sizeof(double), cmpd);
		if ((r[1] + r[2]) / 2 < worst)
			worst = (r[1] + r[2]) / 2;
	}
	return worst;
}

/* Each call's offset in its line: 0, or drawn for the random placement. */
static void fill_place(int random)
{
	uint64_t s = 0x853c49e6748fea9bull;
	unsigned i;

	for (i = 0; i < RING; i++)
		place[i] = random ? (uint8_t)(xorshift(&s) & 63) : 0;
}

#define NPLACE 3	/* aligned, +3, random */

/* Every routine of rt against glibc in every shape, on every published
 * distribution, at every placement: c[i]'s cells, each the worst
 * placement's ratio. */
static int measure_cells(const struct forms *rt, struct repstos_cells *c)
{
	double m[NFORM], x[NFORM];
	struct forms s;
	unsigned d, f, sh, p, nd;
	const struct repstos_dist *ds = dists(rt->copy, &nd);

	if (with_glibc(rt, &s))
		return -1;
	for (f = 0; f < rt->n; f++)
		for (sh = 0; sh < REPSTOS_NSHAPE; sh++)
			for (d = 0; d < nd; d++)
				c[f].r[sh][d] = 1e9;
	for (d = 0; d < nd; d++) {
		fill_dist(&ds[d]);
		for (p = 0; p < NPLACE; p++) {
			fill_place(p == 2);
			for (sh = 0; sh < REPSTOS_NSHAPE; sh++) {
				shape = (int)sh;
				measure_reps(&s, p == 1 ? 3 : 0, m, x, CELL_REPS);
				for (f = 0; f < rt->n; f++)
					if (x[f] < c[f].r[sh][d])
						c[f].r[sh][d] = x[f];
			}
		}
	}
	shape = REPSTOS_SHAPE_B2B;
	fill_place(0);
	return 0;
}

static const char *const shape_names[REPSTOS_NSHAPE] = {
	[REPSTOS_SHAPE_B2B] = "back to back",
	[REPSTOS_SHAPE_LAST] = "read last",
	[REPSTOS_SHAPE_FIRST] = "read first",
	[REPSTOS_SHAPE_ALL] = "read all",
};

/* A routine's standing over a mask of shapes, for the report. */
static void report_standing(FILE *rep, const struct repstos_cells *c,
			    unsigned shapes, const struct repstos_dist *ds)
{
	struct repstos_standing st = repstos_pick_standing(c, shapes);

	fprintf(rep, "worst %.2fx (%s, %s), %s %.2fx", st.worst,
		shape_names[st.worst_shape], st.worst_cell == REPSTOS_PICK_FIXED ?
		"fixed sizes" : ds[st.worst_cell].name,
		shapes & 1u << REPSTOS_SHAPE_B2B && shapes & REPSTOS_SHAPES_READ ?
		"mean in halves" : "geomean", st.geo);
}

/* The cells, a table a shape; then each routine's standing over every
 * shape and over the read shapes; * the module routine, r the read
 * routine.  tune-runs.sh reads the `  * NAME` and `  r NAME` lines. */
static void report_cells(FILE *rep, const struct forms *rt,
			 const struct repstos_cells *c, unsigned module,
			 unsigned read)
{
	const struct repstos_family *fam = FAM(rt->copy);
	unsigned i, d, sh, nd;
	const struct repstos_dist *ds = dists(rt->copy, &nd);

	fprintf(rep, "  %s routines' cells, glibc ns / routine ns, the worst "
		"of aligned, +3 and a random offset (fixed: back to back, the "
		"worst size class):\n", fam->name);
	for (sh = 0; sh < REPSTOS_NSHAPE; sh++) {
		fprintf(rep, "    %-12s %-13s", shape_names[sh], "");
		for (d = 0; d < nd; d++)
			fprintf(rep, " %6s", ds[d].name);
		fprintf(rep, "%s\n", sh == REPSTOS_SHAPE_B2B ? "  fixed" : "");
		for (i = 0; i < rt->n; i++) {
			fprintf(rep, "    %-12s %-13s", "",
				repstos_family_name(fam, (int)rt->f[i]));
			for (d = 0; d < nd; d++)
				fprintf(rep, " %5.2fx", c[i].r[sh][d]);
			if (sh == REPSTOS_SHAPE_B2B)
				fprintf(rep, " %5.2fx", c[i].r[sh][REPSTOS_PICK_FIXED]);
			fprintf(rep, "\n");
		}
	}
	for (i = 0; i < rt->n; i++) {
		fprintf(rep, "  %c %-13s every shape: ", i == module ? '*' : ' ',
			repstos_family_name(fam, (int)rt->f[i]));
		report_standing(rep, &c[i], REPSTOS_SHAPES_EVERY, ds);
		fprintf(rep, "\n  %c %-13s read shapes: ", i == read ? 'r' : ' ',
			repstos_family_name(fam, (int)rt->f[i]));
		report_standing(rep, &c[i], REPSTOS_SHAPES_READ, ds);
		fprintf(rep, "\n");
	}
}

/* The routines among the forms measured: all but rep stosb (rep movsb)
 * in place, and the copy stub's "original", which is no routine a module
 * would choose; avx512_plain among them, which no cost table has. */
static int routine_forms(const struct repstos_cpu *cpu, int copy,
			 struct forms *rt)
{
	struct forms sites;
	unsigned i;

	rt->copy = copy;
	rt->n = 0;
	if (measured_forms(cpu, copy, &sites))
		return -1;
	for (i = 0; i < sites.n; i++) {
		unsigned f = sites.f[i];

		/* no module routine in place; nor the copy stub's first
		 * target, "original", whose plain 8-byte loop was never a
		 * candidate for copy sites */
		if ((int)f == FAM(copy)->inline_form ||
		    (copy && f == REPSTOS_COPY_VARIANT_ORIGINAL))
			continue;
		if (add_form(rt, f))
			return -1;
	}
	return rt->n ? 0 : -1;		/* repstos_pick() needs one */
}

/* The index of variant v in rt, or -1. */
static int index_of(const struct forms *rt, int v)
{
	unsigned i;

	for (i = 0; i < rt->n; i++)
		if ((int)rt->f[i] == v)
			return (int)i;
	return -1;
}

/*
 * The fixed-size cells of s's routines measured again, into c: a second
 * pass of step 2 for them.  Their worst class may be one where each runs
 * the family's rep string instruction alike: on Zen 5 copies of 32 KiB
 * to 128 KiB, 0.66-0.83x glibc for every routine from run to run; in one
 * run of ten avx512's fell to 0.60x there and avx2's did not (0.69x),
 * and the copy module routine went to avx2, 2.5x slower on the
 * distributions.  A second pass of the distributions' cells alone left
 * that decision standing.
 */
static int measure_fixed(const struct forms *s, struct repstos_cells *c)
{
	static struct table again;
	struct forms g;
	unsigned i;

	if (with_glibc(s, &g))
		return -1;
	measure_costs(&g, &again);
	for (i = 0; i < s->n; i++)
		c[i].r[REPSTOS_SHAPE_B2B][REPSTOS_PICK_FIXED] = fixed_cell(&again, s->f[i]);
	return 0;
}

/*
 * The rule's pick where it is not the held routine of a measured row,
 * confirmed: the two measured once more and judged again
 * (repstos_pick_confirm), since one low cell can decide and noise only
 * pulls a cell down.  On Emerald Rapids avx512_fwd's worst copy read cell
 * fell to 0.98-0.99x in 2 of 60 runs (0.94-1.03x over them), and the
 * read routine went to avx512 (1.05x), whose mean over the read shapes
 * is 1.17x against 1.65x.  Only such a change costs the second pass:
 * 0.18 s for one family's two routines there (four at once took a run to
 * 3.16 s); on Zen 5, with the module routine's fixed sizes, 0.4 s (four
 * at once: 3.43 s against 2.2).  Without a row the held routine is the
 * conservative rule's, a guess, and is held by the margin alone.
 * c[pick] and c[held] keep the better cells, for the report.
 */
static unsigned confirm(FILE *rep, const struct forms *rt,
			struct repstos_cells *c, unsigned shapes,
			unsigned pick, int held)
{
	static struct repstos_cells again[2];
	struct forms s = { .copy = rt->copy, .n = 2 };
	const char *const *names = FAM(rt->copy)->names;
	int stands;

	if (held < 0 || (unsigned)held == pick)
		return pick;
	s.f[0] = rt->f[pick];
	s.f[1] = rt->f[held];
	memset(again, 0, sizeof(again));
	if (measure_cells(&s, again) ||
	    (shapes >> REPSTOS_SHAPE_B2B & 1 && measure_fixed(&s, again)))
		return pick;
	stands = repstos_pick_confirm(&c[pick], &c[held], &again[0], &again[1],
				      shapes);
	if (rep)
		fprintf(rep, "  %s over the row's %s, measured again: %s\n",
			names[s.f[0]], names[s.f[1]],
			stands ? "it stands" : "the row's stays");
	return stands ? pick : (unsigned)held;
}

/* Step 3, from the fixed sizes in *tb and the cells measured now: out's
 * module and read routines of the family (pick.h), a change of either
 * confirmed. */
static int tune_module(FILE *rep, const struct repstos_cpu *cpu, int copy,
		       const struct table *tb, struct repstos_tuning *out)
{
	static struct repstos_cells c[NFORM];
	struct repstos_family_tuning *ft = &out->fam[FAM(copy)->id];
	struct forms rt;
	unsigned i, module, read;
	int held, row = repstos_policy_has_row(cpu);

	memset(c, 0, sizeof(c));
	if (routine_forms(cpu, copy, &rt) || measure_cells(&rt, c))
		return -1;
	for (i = 0; i < rt.n; i++)
		c[i].r[REPSTOS_SHAPE_B2B][REPSTOS_PICK_FIXED] = fixed_cell(tb, rt.f[i]);
	/* a measured row's routines, held: a change of them confirmed */
	held = index_of(&rt, ft->variant);
	module = repstos_pick_keep(c, rt.n, REPSTOS_SHAPES_EVERY, held);
	module = confirm(rep, &rt, c, REPSTOS_SHAPES_EVERY, module,
			 row ? held : -1);
	held = index_of(&rt, ft->read_variant);
	read = repstos_pick_keep(c, rt.n, REPSTOS_SHAPES_READ, held);
	read = confirm(rep, &rt, c, REPSTOS_SHAPES_READ, read,
		       row ? held : -1);
	ft->variant = (int)rt.f[module];
	ft->read_variant = (int)rt.f[read];
	if (rep)
		report_cells(rep, &rt, c, module, read);
	return 0;
}

/* ---- step 4: the cost table with the last byte read, for the report --- */

/* Each family's cost table with the last byte read back: what the
 * report shows beside the table sites are chosen by (the policy does
 * not weigh it yet: bench/results/README.md says why). */
static struct repstos_costs use_costs[REPSTOS_NFAMILY];

/* Step 2 again, each call's destination depending on the last byte the
 * call before wrote. */
static int tune_use(const struct repstos_cpu *cpu, int copy, struct table *tb)
{
	struct forms sites, s;

	if (site_forms(cpu, copy, &sites) || with_glibc(&sites, &s))
		return -1;
	shape = REPSTOS_SHAPE_LAST;
	measure_costs(&s, tb);
	set_costs(&sites, tb, &use_costs[FAM(copy)->id]);
	shape = REPSTOS_SHAPE_B2B;
	return 0;
}

/* ---- step 5: what a read-back costs each site form below 64 bytes ------ */

#define NSMALL 7	/* the classes below 64 bytes: 0, 1, 2..3, .., 32..63 */
_Static_assert(NSMALL < REPSTOS_NCLASS, "classes");

/*
 * The classes below 64 bytes again, each call's destination depending
 * on the last byte the call before wrote: each site form's use_extra
 * (policy.h), the mean over them of its cost there less its cost back
 * to back (never below 0), which the policy weighs a profile by.  Only
 * below 64 bytes: there a load that waits for a masked or string store
 * to commit costs a call as much as the call itself; above, the stores
 * take longer than the wait.
 */
static int tune_use_extra(FILE *rep, const struct repstos_cpu *cpu, int copy,
			  struct repstos_tuning *out)
{
	static struct table tb;
	struct repstos_costs *k = &out->fam[FAM(copy)->id].costs;
	struct forms sites, s;
	unsigned f, c;

	if (site_forms(cpu, copy, &sites) || with_glibc(&sites, &s))
		return -1;
	shape = REPSTOS_SHAPE_LAST;
	measure_classes(&s, &tb, NSMALL);
	shape = REPSTOS_SHAPE_B2B;
	for (f = 0; f < sites.n; f++) {
		unsigned v = sites.f[f];
		unsigned long long sum = 0;

		for (c = 0; c < NSMALL; c++) {
			unsigned use = class_cost(&tb, v, c);

			sum += use > k->cns[v][c] ? use - k->cns[v][c] : 0;
		}
		k->use_extra[v] = (unsigned)(sum / NSMALL);
		k->use_known |= 1u << v;
		if (rep)
			fprintf(rep, "  %s%-13s below 64 bytes, the last byte "
				"read next: %.2f ns more a call\n",
				copy ? "copy " : "",
				repstos_family_name(FAM(copy), (int)v),
				k->use_extra[v] / 100.0);
	}
	return 0;
}

/* ---- repstos_tune ------------------------------------------------------ */

static int setup(void)
{
	buf = src = NULL;
	ring = malloc(RING * sizeof(*ring));
	place = calloc(RING, 1);
	if (!ring || !place || posix_memalign((void **)&buf, 4096, BUF_SIZE) ||
	    posix_memalign((void **)&src, 4096, BUF_SIZE)) {
		free(buf);
		free(ring);
		free(place);
		return -1;
	}
	memset(buf, 1, BUF_SIZE);
	memset(src, 2, BUF_SIZE);
	return 0;
}

static void teardown(void)
{
	free(buf);
	free(src);
	free(ring);
	free(place);
	buf = src = NULL;
	ring = NULL;
	place = NULL;
}

int repstos_tune(FILE *rep, const struct repstos_cpu *cpu,
		 struct repstos_tuning *out)
{
	static struct table tb;
	const struct knobs saved = knobs_now();
	int r;

	if (setup())
		return -1;
	repstos_policy_tuning(cpu, out);
	tune_thresholds(rep, cpu, out);
	r = tune_costs(cpu, 0, &tb, out);
	if (!r)
		r = tune_change(rep, cpu, 0, &tb, out);
	if (!r)
		r = tune_use_extra(rep, cpu, 0, out);
	if (!r)
		r = tune_module(rep, cpu, 0, &tb, out);
	/* the copy routines with the policy's thresholds, which stay */
	if (!r)
		r = tune_costs(cpu, 1, &tb, out);
	if (!r)
		r = tune_change(rep, cpu, 1, &tb, out);
	if (!r)
		r = tune_use_extra(rep, cpu, 1, out);
	if (!r)
		r = tune_module(rep, cpu, 1, &tb, out);
	out->fam[REPSTOS_FAMILY_SET].inline_min = out->wide_rep_min > ~0u ? ~0u : (unsigned)out->wide_rep_min;
	out->source = "measured by repstos_tune";
	knobs_set(&saved);
	teardown();
	return r;
}

int repstos_tune_use(FILE *rep, const struct repstos_cpu *cpu,
		     const struct repstos_tuning *t)
{
	static struct table tb;
	const struct knobs saved = knobs_now();
	struct knobs k = { t->vec_rep_min, t->wide_rep_min, t->short_rep_max };
	int r;

	if (setup())
		return -1;
	knobs_set(&k);
	memset(use_costs, 0, sizeof(use_costs));
	r = tune_use(cpu, 0, &tb);
	if (!r)
		r = tune_use(cpu, 1, &tb);
	knobs_set(&saved);
	teardown();
	return r;
}

/* A family's table k in ns: a line per form it has, then the change
 * costs where it has them. */
static void print_table(FILE *f, int copy, const struct repstos_costs *k)
{
	unsigned known = repstos_cost_forms(k), c;
	int v;

	for (v = 0; v < REPSTOS_NFORM; v++) {
		if (!(known >> v & 1))
			continue;
		fprintf(f, "%-13s", v == FAM(copy)->inline_form ? "inline (place)" :
			repstos_family_name(FAM(copy), v));
		for (c = 0; c < REPSTOS_NCLASS; c++)
			fprintf(f, " %6.2f", k->cns[v][c] / 100.0);
		fputc('\n', f);
	}
	if (!k->change_known)
		return;
	fprintf(f, "a change of size class below 256 bytes, ns:");
	for (v = 0; v < REPSTOS_NFORM; v++)
		if (k->change_known >> v & 1)
			fprintf(f, " %s %.2f", repstos_family_name(FAM(copy), v),
				k->change[v] / 100.0);
	fputc('\n', f);
}

/* The tables as a measured row's data file takes them: the table lines
 * of the tuning file (runtime/policy/mkrows.sh makes the policy's rows.h
 * of them). */
static void print_row_file(FILE *f, const struct repstos_cpu *cpu,
			   const struct repstos_tuning *t)
{
	char text[REPSTOS_TUNING_MAX];
	const char *p, *nl;

	if (repstos_tuning_format(text, sizeof(text), cpu, t) < 0)
		return;
	/* named as bench/results names the CPU's folder */
	fprintf(f, "for runtime/policy/rows/%s-%02x-%02x.costs, as a measured "
		"row:\n", cpu->vendor == REPSTOS_VENDOR_AMD ? "amd" :
		cpu->vendor == REPSTOS_VENDOR_INTEL ? "intel" : "other",
		cpu->family, cpu->model);
	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		/* all but the comment and the cpu line: mkrows.sh makes the
		 * row's routines, thresholds and tables of the rest */
		if (*p != '#' && strncmp(p, "cpu ", 4))
			fwrite(p, 1, (size_t)(nl - p + 1), f);
	}
}

void repstos_tune_print_costs(FILE *f, const struct repstos_cpu *cpu,
			      const struct repstos_tuning *t)
{
	unsigned c;

	fprintf(f, "cost table, ns per call (worst of both ends of the class, "
		"aligned and +3):\n%-13s", "class from");
	for (c = 0; c < REPSTOS_NCLASS; c++)
		fprintf(f, " %6llu", repstos_class_lo(c));
	fputc('\n', f);
	print_table(f, 0, &t->fam[REPSTOS_FAMILY_SET].costs);
	if (repstos_cost_forms(&t->fam[REPSTOS_FAMILY_COPY].costs)) {
		fprintf(f, "copy cost table, ns per call (worst of both ends, "
			"source and destination aligned and +5/+3):\n");
		print_table(f, 1, &t->fam[REPSTOS_FAMILY_COPY].costs);
	}
	if (repstos_cost_forms(&use_costs[REPSTOS_FAMILY_SET])) {
		fprintf(f, "the same with the last byte read back (each call's "
			"destination depends on the last byte written):\n");
		print_table(f, 0, &use_costs[REPSTOS_FAMILY_SET]);
	}
	if (repstos_cost_forms(&use_costs[REPSTOS_FAMILY_COPY])) {
		fprintf(f, "copy, with the last byte read back:\n");
		print_table(f, 1, &use_costs[REPSTOS_FAMILY_COPY]);
	}
	print_row_file(f, cpu, t);
	fprintf(f, "the policy's rows: %s\n", repstos_policy_has_row(cpu) ?
		"has a measured row for this CPU" :
		"no row for this CPU (the conservative rule applies without "
		"a tuning file)");
}
