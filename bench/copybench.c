// SPDX-License-Identifier: MIT
/*
 * copybench.c - the copy routines (copy.S) against glibc's memcpy and
 * memmove called through the PLT, interleaved in one run.
 *
 *   copybench [-r REPS] [-c NAME,..] [-z SIZE|dist-X,..]
 *
 * Each candidate runs one timed batch of calls per configuration and
 * repetition, in an order rotated each repetition; figures are medians
 * over the repetitions (ns a call), the ratio is glibc's median over the
 * candidate's.  Configurations: fixed sizes, source and destination
 * 64-byte aligned ("al") or at offsets 5 and 3 ("mis"), and moves with
 * the destination 64 bytes above the source ("ov+64", through memmove);
 * the published memcpy distributions (bench/dists/memcpy_dists.h, made from
 * bench/dists/data/memcpy-sizes by bench/dists/mkdists.sh), sizes drawn at
 * random into a ring of bench.h's size, so branches on size are not
 * predicted.  Hot cache below 1 MiB (the same buffers every call); larger
 * sizes stream.
 *
 * Candidates besides glibc: each copy routine through a call (a patched
 * site), and "inline" rep movsb; "X-loop" / "X-rep" / "X-nt" run X with
 * its thresholds set so the loop, rep movsb or non-temporal stores copy
 * every large size (for choosing the thresholds); "gcc-S", memcpy as GCC
 * expands it with -minline-all-stringops -mstringop-strategy=S (cand.c
 * built with -DOP_COPY, one object per strategy).  rep movsb forwards and
 * GCC's expansions are memcpy, not memmove: no figure ("-") for moves.
 */
#define _GNU_SOURCE
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
static struct cand cands[MAXCANDS];
static unsigned ncands;
static uint8_t *src, *dst;
static uint32_t ring[RING];
static const uint8_t zeros[RING];	/* offsets for cand.c's loops */

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

static double batch(const struct cand *c, uint8_t *d, const uint8_t *s,
		    unsigned calls, int move)
{
	unsigned long long rep = __repstos_copy_rep_min, nt = __repstos_copy_nt_min;
	struct bench_batch b = { .dst = d, .src = s, .sizes = ring,
				 .doff = zeros, .soff = zeros, .iters = calls };
	uint64_t t0, t1;

	if (c->rep_min)
		__repstos_copy_rep_min = c->rep_min;
	if (c->nt_min)
		__repstos_copy_nt_min = c->nt_min;
	t0 = now();
	(move ? c->move : c->run)[BENCH_B2B](&b);
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

/* One configuration: every candidate, reps times, medians printed. */
static void config(const char *label, unsigned calls, int sa, int da,
		   int move, unsigned reps)
{
	static double t[MAXCANDS][64];
	unsigned r, k;
	double g;

	for (r = 0; r < reps; r++)
		for (k = 0; k < ncands; k++) {
			unsigned j = (k + r) % ncands;
			uint8_t *d = move ? src + sa + 64 : dst + da;

			if (move && !cands[j].move) {
				t[j][r] = 0;	/* memcpy only: wrong */
				continue;
			}
			t[j][r] = batch(&cands[j], d, src + sa, calls, move);
		}
	for (k = 0; k < ncands; k++)
		qsort(t[k], reps, sizeof(double), cmpd);
	g = t[0][reps / 2];
	printf("%-14s", label);
	for (k = 0; k < ncands; k++) {
		double m = t[k][reps / 2];
		int w = width(&cands[k]);

		if (k == 0)
			printf(" %*.2f", w, m);
		else if (m == 0)
			printf(" %*s", w, "-");
		else
			printf(" %*.2f", w, g / m);
	}
	printf("\n");
	fflush(stdout);
}

static unsigned calls_for(unsigned long long mean)
{
	unsigned long long c = (128ull << 20) / (mean + 64);

	return c < 64 ? 64 : c > 1000000 ? 1000000 : (unsigned)c;
}

static void fixed(unsigned long long n, unsigned reps)
{
	char label[32];
	unsigned i;

	for (i = 0; i < RING; i++)
		ring[i] = (uint32_t)n;
	snprintf(label, sizeof(label), "%llu al", n);
	config(label, calls_for(n), 0, 0, 0, reps);
	snprintf(label, sizeof(label), "%llu mis", n);
	config(label, calls_for(n), 5, 3, 0, reps);
	if (n <= (1u << 20)) {
		snprintf(label, sizeof(label), "%llu ov+64", n);
		config(label, calls_for(n), 0, 0, 1, reps);
	}
}

/* Published distribution k (bench/dists/memcpy_dists.h): sizes drawn into
 * the ring with a fixed seed, the same in every run. */
static void dist(unsigned k, unsigned reps)
{
	unsigned total = repstos_dist_total(&repstos_copy_dists[k]), i;
	double sum = 0;
	char label[32];

	srand((unsigned)repstos_copy_dists[k].name[0]);
	for (i = 0; i < RING; i++) {
		ring[i] = repstos_dist_size(&repstos_copy_dists[k], (unsigned)rand() % total);
		sum += ring[i];
	}
	snprintf(label, sizeof(label), "dist-%s", repstos_copy_dists[k].name);
	config(label, calls_for((unsigned long long)(sum / RING)), 0, 0, 0, reps);
}

#define NDISTS (sizeof(repstos_copy_dists) / sizeof(repstos_copy_dists[0]))

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

int main(int argc, char **argv)
{
	static const unsigned long long sizes[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 24, 32, 48, 64, 96, 128, 192, 256,
		384, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192, 16384, 32768,
		65536, 131072, 262144, 524288, 1048576,
	};
	const char *only = NULL, *zs = NULL;
	unsigned reps = 9, k;
	int o, v;

	while ((o = getopt(argc, argv, "r:c:z:")) != -1)
		switch (o) {
		case 'r': reps = (unsigned)atoi(optarg); break;
		case 'c': only = optarg; break;
		case 'z': zs = optarg; break;
		default: return 2;
		}
	if (reps < 1 || reps > 64)
		reps = 9;
	src = aligned_alloc(4096, BUFSZ);
	dst = aligned_alloc(4096, BUFSZ);
	if (!src || !dst)
		return 1;
	memset(src, 1, BUFSZ);
	memset(dst, 2, BUFSZ);
	add("glibc", bench_copy_glibc, bench_copy_glibc_move, 0, 0);
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
	}
#define GCC_ADD(s) add("gcc-" #s, bench_copy_gcc_##s, NULL, 0, 0);
	GCC_STRATEGIES(GCC_ADD)
	if (only)
		pick(only);
	printf("# copybench: ns a call for glibc, then glibc's time / each's (>1: faster)\n");
	printf("# rep_min %llu nt_min %llu; %u reps, medians\n",
	       __repstos_copy_rep_min, __repstos_copy_nt_min, reps);
	printf("%-14s", "config");
	for (k = 0; k < ncands; k++)
		printf(" %*s", width(&cands[k]), cands[k].name);
	printf("\n");
	if (zs) {
		char *z = strdup(zs), *t;

		for (t = strtok(z, ","); t; t = strtok(NULL, ","))
			if (!strncmp(t, "dist-", 5)) {
				for (k = 0; k < NDISTS; k++)
					if (!strcmp(t + 5, repstos_copy_dists[k].name))
						dist(k, reps);
			} else
				fixed(strtoull(t, NULL, 0), reps);
		return 0;
	}
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		fixed(sizes[k], reps);
	for (k = 0; k < NDISTS; k++)
		dist(k, reps);
	return 0;
}
