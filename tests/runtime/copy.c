// SPDX-License-Identifier: MIT
// Proves: every copy routine and the copy stub copy and move as a byte
// loop does, and write nothing outside the destination.
/*
 * copy.c - every copy routine (REPSTOS_COPY_VARIANTS) and the copy stub
 * against a plain byte loop, as copies and as moves:
 *
 *  - copies, regions apart: every size 0..4096 (0..320 at every source
 *    and destination offset 0..63, above that 64 offset pairs a size,
 *    every source offset once), and 2^k-1, 2^k, 2^k+1 up to 16 MiB at a
 *    few offsets;
 *  - moves, one buffer: every distance -256..256 (destination minus
 *    source, so both directions and no overlap at all at the ends) for
 *    every size 0..600 and a sample to 4096, a few distances at the
 *    large sizes;
 *  - sizes from 1100 on three times: the loops alone, rep movsb from
 *    1100, and rep movsb from 1100 with non-temporal stores from 70000
 *    (the thresholds the start-up sets, copy.S reads).
 * Each call must leave rdi, rsi at the ends and rcx 0 (through an asm
 * call with the contract's clobbers), the bytes the byte loop gives,
 * and the 64 guard bytes on each side of both regions as they were.
 * Exits 1 on any failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "repstos.h"
#include "policy/policy.h"
#include "routines/routines.h"
#include "refmove.h"

#define MAXN	((16u << 20) + 1)
#define PAD	4096u		/* room for offsets and distances */
#define GUARD	64u
#define BUF	(MAXN + 2 * PAD)

static uint8_t *a, *b, *a0, *b0, *ref;
static unsigned long failures, calls;
static const char *who;

static void fail(size_t n, long so, long dd, const char *what)
{
	if (++failures <= 20)
		printf("FAIL %s size %zu offset %ld %s %ld: %s\n", who, n,
		       so, dd >= 1000 ? "dst offset" : "distance",
		       dd >= 1000 ? dd - 1000 : dd, what);
}

/* The site contract's call: rdi, rsi, rcx in and out. */
static void call(void *fn, uint8_t **d, const uint8_t **s, size_t *n)
{
	__asm__ __volatile__("call *%[fn]"
			     : "+D" (*d), "+S" (*s), "+c" (*n)
			     : [fn] "r" (fn)
			     : "memory", "cc", REPSTOS_COPY_CLOBBERS);
}

static void check_call(void *fn, uint8_t *d, const uint8_t *s, size_t n,
		       long so, long dd)
{
	uint8_t *od = d;
	const uint8_t *os = s;
	size_t on = n;

	call(fn, &d, &s, &n);
	calls++;
	if (d != od + on || s != os + on || n != 0)
		fail(on, so, dd, "rdi, rsi or rcx out of contract");
}

/* A copy between the two buffers: a at source offset so, b at dst
 * offset do. */
static void copy_case(void *fn, size_t n, unsigned so, unsigned dof)
{
	uint8_t *d = b + PAD + dof;
	const uint8_t *s = a + PAD + so;
	size_t w = n + 2 * GUARD;

	check_call(fn, d, s, n, so, 1000 + dof);
	memcpy(ref, b0 + PAD + dof - GUARD, w);
	byte_move(ref + GUARD, a0 + PAD + so, n);
	if (memcmp(d - GUARD, ref, w))
		fail(n, so, 1000 + dof, "destination or its guard bytes wrong");
	if (memcmp(s - GUARD, a0 + PAD + so - GUARD, w))
		fail(n, so, 1000 + dof, "source or its guard bytes changed");
	memcpy(d - GUARD, b0 + PAD + dof - GUARD, w);
}

/* A move inside a: destination at offset so + dist from the source. */
static void move_case(void *fn, size_t n, unsigned so, long dist)
{
	uint8_t *s = a + PAD + so, *d = s + dist;
	uint8_t *lo = (dist < 0 ? d : s) - GUARD;
	size_t w = n + (size_t)(dist < 0 ? -dist : dist) + 2 * GUARD;

	check_call(fn, d, s, n, so, dist);
	memcpy(ref, a0 + (lo - a), w);
	byte_move(ref + (d - lo), ref + (s - lo), n);
	if (memcmp(lo, ref, w))
		fail(n, so, dist, "bytes or guard bytes wrong");
	memcpy(lo, a0 + (lo - a), w);
}

/* 0 loops only, 1 rep movsb from 1100, 2 and non-temporal from 70000. */
static void thresholds(int t)
{
	__repstos_copy_rep_min = t ? 1100 : ~0ull;
	__repstos_copy_nt_min = t == 2 ? 70000 : ~0ull;
}

static void small_sizes(void *fn)
{
	size_t n;
	unsigned so, dof, k = 0;
	long dist;

	for (n = 0; n <= 4096; n++) {
		if (n <= 320)
			for (so = 0; so < 64; so++)
				for (dof = 0; dof < 64; dof++)
					copy_case(fn, n, so, dof);
		else
			for (so = 0; so < 64; so++)
				copy_case(fn, n, so, (so * 7 + n) % 64);
		if (n <= 600 || n % 61 == 0 || n == 4096)
			for (dist = -256; dist <= 256; dist++)
				move_case(fn, n, k++ % 64, dist);
	}
}

/* From 1100 bytes, under the given thresholds. */
static void threshold_sizes(void *fn)
{
	static const long dists[] = { -256, -65, -64, -63, -17, -1, 0, 1,
				      15, 16, 63, 64, 200, 256 };
	size_t n;
	unsigned i, k = 0;

	for (n = 1100; n <= 4096; n += 97)
		for (i = 0; i < sizeof(dists) / sizeof(dists[0]); i++) {
			copy_case(fn, n, i * 5 % 64, i * 11 % 64);
			move_case(fn, n, k++ % 64, dists[i]);
		}
}

static void large_sizes(void *fn)
{
	static const long dists[] = { -256, -64, -33, -1, 1, 31, 64, 256 };
	static const unsigned offs[][2] = { { 0, 0 }, { 3, 61 }, { 32, 1 } };
	unsigned k, j, i = 0;
	int e;

	for (k = 12; k <= 24; k++)
		for (e = -1; e <= 1; e++) {
			size_t n = ((size_t)1 << k) + e;

			for (j = 0; j < 3; j++)
				copy_case(fn, n, offs[j][0], offs[j][1]);
			for (j = 0; j < 2; j++, i++)
				move_case(fn, n, i * 13 % 64,
					  dists[i % (sizeof(dists) / sizeof(dists[0]))]);
			move_case(fn, n, 5, (long)(PAD - 64)); /* apart */
		}
}

int main(void)
{
	struct timespec t0, t1;
	uint8_t *m[5];
	size_t i;
	int v, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 5; i++)
		if (!(m[i] = aligned_alloc(4096, BUF))) {
			perror("aligned_alloc");
			return 1;
		}
	a = m[0], b = m[1], a0 = m[2], b0 = m[3], ref = m[4];
	srand(12);
	for (i = 0; i < BUF; i++) {
		a0[i] = (uint8_t)rand();
		b0[i] = (uint8_t)rand();
	}
	memcpy(a, a0, BUF);
	memcpy(b, b0, BUF);
	/* The routines' thresholds are set per pass; the stub's target is
	 * on the sealed dispatch page, so the stub runs what the start-up
	 * chose (this test has no sites: "original"). */
	for (v = 0; v < REPSTOS_COPY_VARIANT_COUNT; v++) {
		void *fn = repstos_copy_variant_routine(v);

		if (!repstos_policy_copy_supported(repstos_cpu(), v)) {
			printf("%s: not supported by this CPU, skipped\n",
			       repstos_copy_variant_name(v));
			continue;
		}
		who = repstos_copy_variant_name(v);
		/* the start-up (pulled in by the stub) let the routines run
		 * what this CPU has: else REQUIRE would test "vec" again */
		printf("%s: own code%s\n", who,
		       (v == REPSTOS_COPY_VARIANT_AVX2 && !repstos_can_run(__repstos_can_avx2)) ||
		       (v == REPSTOS_COPY_VARIANT_AVX512 && !repstos_can_run(__repstos_can_avx512)) ?
		       " NOT enabled" : "");
		thresholds(0);
		small_sizes(fn);
		for (t = 0; t < 3; t++) {
			thresholds(t);
			threshold_sizes(fn);
			large_sizes(fn);
		}
		printf("%s: %lu calls so far, %lu failures\n", who, calls,
		       failures);
	}
	who = "copy stub";
	thresholds(0);
	threshold_sizes(__repstos_copy_stub);
	large_sizes(__repstos_copy_stub);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lu calls, %lu failures, %.1f s\n", calls, failures,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failures ? 1 : 0;
}
