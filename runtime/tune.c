// SPDX-License-Identifier: MIT
/*
 * tune.c - time the routines here and choose the tuning (runtime/tune.h).
 *
 * Every routine is called the way a site calls it: `call` with the
 * contract's registers, stepping over the red zone as REPSTOS_MEMSET
 * does (this file is not built with -mno-red-zone).  The call is
 * indirect, which costs all candidates the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tune.h"

extern unsigned long long __repstos_vec_rep_min, __repstos_wide_rep_min
	__attribute__((visibility("hidden")));

#define RING 65536u
#define REPS 11
#define NEVER (~0ull)

static unsigned char *buf;
static uint32_t *ring;

static void run_call(void *fn, unsigned char *dst, size_t iters)
{
	size_t i;

	for (i = 0; i < iters; i++) {
		void *d = dst;
		unsigned long n = ring[i & (RING - 1)], a = 0x5a;

		__asm__ __volatile__("lea -128(%%rsp), %%rsp\n\t"
				     "call *%[fn]\n\t"
				     "lea 128(%%rsp), %%rsp"
				     : "+D"(d), "+c"(n), "+a"(a)
				     : [fn] "r"(fn)
				     : "memory", "cc", "xmm0");
	}
}

static void run_inline(unsigned char *dst, size_t iters)
{
	size_t i;

	for (i = 0; i < iters; i++) {
		void *d = dst;
		unsigned long n = ring[i & (RING - 1)], a = 0x5a;

		__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n), "+a"(a)
				     : : "memory", "cc");
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* fn NULL: inline rep stosb.  ns per call. */
static double once(void *fn, size_t iters)
{
	double t0 = now();

	if (fn)
		run_call(fn, buf + 3, iters);
	else
		run_inline(buf + 3, iters);
	return (now() - t0) / (double)iters;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median ns per call of each of n candidates, interleaved. */
static void measure(void *const *fns, unsigned n, double *med)
{
	double t[8][REPS];
	size_t iters;
	unsigned r, c;

	once(fns[0], 64);
	iters = (size_t)(200e3 / (once(fns[0], 64) + 0.5)) + 4;
	for (r = 0; r < REPS; r++)
		for (c = 0; c < n; c++) {
			unsigned k = (c + r) % n;

			t[k][r] = once(fns[k], iters);
		}
	for (c = 0; c < n; c++) {
		qsort(t[c], REPS, sizeof(double), cmpd);
		med[c] = t[c][REPS / 2];
	}
}

static void fill_ring(uint32_t size)
{
	uint64_t s = 0x2545f4914f6cdd1dull;
	unsigned i;

	for (i = 0; i < RING; i++) {
		if (size) {
			ring[i] = size;
			continue;
		}
		/* the small-size mix of tests/perf/bench.c */
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		ring[i] = 1 + (uint32_t)(s % 16);
		if (s % 100 >= 30)
			ring[i] = 17 + (uint32_t)((s >> 20) % 16);
		if (s % 100 >= 50)
			ring[i] = 33 + (uint32_t)((s >> 20) % 32);
		if (s % 100 >= 70)
			ring[i] = 65 + (uint32_t)((s >> 20) % 64);
		if (s % 100 >= 85)
			ring[i] = 129 + (uint32_t)((s >> 20) % 128);
	}
}

static const unsigned fixed[] = { 1, 8, 16, 32, 64, 128, 256, 1024 };

/* The size from which rep stosb (`other`) is no slower than `fn` at every
 * measured size up to 1 MiB, or NEVER. */
static unsigned long long crossover(FILE *rep, const char *what, void *fn,
				    void *other)
{
	unsigned long long from = NEVER;
	unsigned long long s;

	for (s = 1u << 20; s >= 512; s /= 2) {
		void *fns[2] = { fn, other };
		double m[2];

		fill_ring((uint32_t)s);
		measure(fns, 2, m);
		if (rep)
			fprintf(rep, "  %-28s %8llu bytes: %9.2f vs %9.2f ns\n",
				what, s, m[0], m[1]);
		if (m[1] > m[0] * 1.02)
			break;
		from = s;
	}
	return from;
}

int repstos_tune(FILE *rep, struct repstos_tuning *out)
{
	struct repstos_cpu cpu;
	void *fns[4];
	const char *names[4];
	unsigned n = 0, c, f, best;
	double mix[4], m[4], worst[4], prod[4], score[4];
	unsigned long long saved_vec = __repstos_vec_rep_min;
	unsigned long long saved_wide = __repstos_wide_rep_min;
	int v;

	buf = NULL;
	ring = malloc(RING * sizeof(*ring));
	if (!ring || posix_memalign((void **)&buf, 4096, (1u << 20) + 4096)) {
		free(ring);
		return -1;
	}
	memset(buf, 1, (1u << 20) + 4096);
	repstos_cpu_detect(&cpu);
	repstos_policy_tuning(&cpu, out);
	for (v = REPSTOS_VARIANT_VEC; v < REPSTOS_VARIANT_COUNT && n < 4; v++)
		if (repstos_policy_supported(&cpu, (enum repstos_variant)v)) {
			fns[n] = repstos_variant_routine((enum repstos_variant)v);
			names[n++] = repstos_variant_name((enum repstos_variant)v);
		}
	/* The small sizes never reach the rep threshold; keep it high. */
	__repstos_vec_rep_min = __repstos_wide_rep_min = NEVER;

	fill_ring(0);
	measure(fns, n, mix);
	for (c = 0; c < n; c++)
		worst[c] = 0, prod[c] = 1;
	for (f = 0; f < sizeof(fixed) / sizeof(fixed[0]); f++) {
		double lo = 1e30;

		fill_ring(fixed[f]);
		measure(fns, n, m);
		for (c = 0; c < n; c++)
			lo = m[c] < lo ? m[c] : lo;
		for (c = 0; c < n; c++) {
			if (m[c] / lo > worst[c])
				worst[c] = m[c] / lo;
			prod[c] *= m[c] / lo;
		}
	}
	/* Score: the mix (sizes varying call to call, what a routine shared
	 * by all sites sees) and the fixed sizes weigh half each, as the
	 * geometric mean of each candidate's time over the fastest's: the
	 * score raised to the 16th power (8 fixed sizes, no libm) is
	 * mix^8 times the product of the fixed ratios. */
	best = 0;
	for (c = 0; c < n; c++) {
		double lo = mix[0];
		unsigned k;

		for (k = 1; k < n; k++)
			lo = mix[k] < lo ? mix[k] : lo;
		score[c] = prod[c];
		for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
			score[c] *= mix[c] / lo;
		if (score[c] < score[best])
			best = c;
	}
	if (rep) {
		for (c = 0; c < n; c++)
			fprintf(rep, "  %-8s mix 1..256: %6.2f ns/call; fixed sizes: "
				"at worst %.2fx the fastest; score^16 %.3g\n", names[c],
				mix[c], worst[c], score[c]);
		fprintf(rep, "  chosen: %s\n", names[best]);
	}
	out->variant = repstos_variant_by_name(names[best]);

	/* rep stosb against the chosen routine's loop, and against a call. */
	if (cpu.features & REPSTOS_CPU_ERMS) {
		unsigned long long x = crossover(rep, "loop vs rep stosb (called)",
						 fns[best], repstos_variant_routine(REPSTOS_VARIANT_INLINE));

		if (out->variant == REPSTOS_VARIANT_VEC)
			out->vec_rep_min = x;
		else
			out->wide_rep_min = x;
		out->inline_min = (unsigned)(x > ~0u ? ~0u : x);
		if (out->variant != REPSTOS_VARIANT_VEC) {
			x = crossover(rep, "vec loop vs rep stosb (called)",
				      repstos_variant_routine(REPSTOS_VARIANT_VEC),
				      repstos_variant_routine(REPSTOS_VARIANT_INLINE));
			out->vec_rep_min = x;
		}
	}
	out->source = "measured by repstos_tune";
	if (rep)
		fprintf(rep, "  vec_rep_min %llu, wide_rep_min %llu, inline_min %u\n",
			out->vec_rep_min, out->wide_rep_min, out->inline_min);
	__repstos_vec_rep_min = saved_vec;
	__repstos_wide_rep_min = saved_wide;
	free(buf);
	free(ring);
	return 0;
}

int repstos_tune_write(const char *path, const struct repstos_tuning *t)
{
	struct repstos_cpu cpu;
	char text[512], tmp[4096];
	FILE *f;
	int n, e;

	repstos_cpu_detect(&cpu);
	n = repstos_tuning_format(text, sizeof(text), &cpu, t);
	if (n < 0 || snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path,
			      (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	if (fwrite(text, 1, (size_t)n, f) != (size_t)n || fflush(f) ||
	    fsync(fileno(f))) {
		e = errno;
		fclose(f);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (fclose(f) || rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}
