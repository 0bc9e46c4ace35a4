// SPDX-License-Identifier: MIT
/*
 * manysite.c - a program with many memset sites, each with its own narrow
 * size distribution, called in an interleaved order: what a real program
 * looks like to memset, where one site always clears one struct and the
 * next a buffer of a few typical lengths.  Built twice by manysite.sh,
 * with plain gcc (glibc's memset through the PLT) and with repstos-cc
 * (sites patched at start-up), and timed in the same run.  With -DOP_COPY
 * the sites are memcpy's instead, their sizes from the memcpy
 * distributions (manysite.sh -c; repstos-cc -fplugin-arg-repstos-copy).
 *
 *   manysite [ROUNDS]   prints "ns/call MEAN-SIZE ns/call-use": the best
 *                       round back to back, and with use after write
 *
 * Site k takes three sizes drawn from published distribution k mod 5
 * (patcher/dists/memset_dists.h, or memcpy_dists.h) with seed k, called 70%,
 * 20% and 10% of its turns; sites are called in an order drawn at random,
 * all with fixed seeds, so both builds run the same calls.  Each site has
 * its own destination alignment (offset 0, 17, 34 or 51) and a copy site
 * its own source alignment (0, 13, 26 or 39), as a site's usually is.
 * With -DSITE_READ each site's function reads back the last byte its
 * memset wrote and returns it (the plugin marks such sites
 * REPSTOS_USE_READ), which the use-after-write rounds then take as the
 * dependency, as code that clears a struct and then reads a field of
 * it does.  With -DOP_NONE the sites do nothing: the harness's own cost per call
 * (the indirect call to a site drawn at random mispredicts almost
 * every time), which manysite.sh reports beside the ratios.
 *
 * Two shapes (bench/bench.h), their rounds alternating: back to back,
 * and use after write, where each call's destination depends on the last
 * byte the previous call wrote, as when a program fills the struct it
 * has just cleared: a load that needs the bytes of a store the CPU
 * cannot forward from waits for it, and the next call with it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef OP_COPY
#include "dists/memcpy_dists.h"
#define DISTS repstos_copy_dists
typedef const unsigned char *arg_t;	/* the source */
#define OP(p, a, n) memcpy(p, a, n)
#define ARG(k) (src + (k) / 4 % 4 * 13)
#else
#include "dists/memset_dists.h"
#define DISTS repstos_dists
typedef int arg_t;			/* the fill byte */
#define OP(p, a, n) memset(p, a, n)
#define ARG(k) 0x5a
#endif
#ifdef OP_NONE			/* the harness alone: what every call costs besides the op */
#undef OP
#define OP(p, a, n) __asm__ __volatile__("" : : "r"(p), "r"(a), "r"(n) : "memory")
#endif

#define NSITES 64
#define SCHED (1u << 16)
#define NDIST (sizeof(DISTS) / sizeof(DISTS[0]))

#ifdef SITE_READ
typedef unsigned char site_ret;
#define SITE_RETURN(p, n) return (p)[(n) - ((n) != 0)]
#else
typedef void site_ret;
#define SITE_RETURN(p, n) (void)0
#endif
typedef site_ret site_fn(unsigned char *, arg_t, size_t);

#define SITE(k)								\
__attribute__((noinline)) static site_ret site##k(unsigned char *p,	\
						  arg_t a, size_t n)	\
{									\
	OP(p, a, n);							\
	SITE_RETURN(p, n);						\
}
#define SITES8(k) SITE(k##0) SITE(k##1) SITE(k##2) SITE(k##3)		\
	SITE(k##4) SITE(k##5) SITE(k##6) SITE(k##7)
SITES8(0) SITES8(1) SITES8(2) SITES8(3) SITES8(4) SITES8(5) SITES8(6)
SITES8(7)

#define REF8(k) site##k##0, site##k##1, site##k##2, site##k##3,		\
	site##k##4, site##k##5, site##k##6, site##k##7,
static site_fn *const sites[NSITES] = {
	REF8(0) REF8(1) REF8(2) REF8(3) REF8(4) REF8(5) REF8(6) REF8(7)
};

struct call {
	uint8_t site;
	uint16_t size;
};

static struct call sched[SCHED];
static unsigned char buf[4096 + 64];
#ifdef OP_COPY
static const unsigned char src[4096 + 64] = { [0 ... 4096 + 63] = 0x5a };
#endif

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static unsigned draw(unsigned d, uint64_t *s)
{
	return repstos_dist_size(&DISTS[d], (unsigned)(xorshift(s) %
				 repstos_dist_total(&DISTS[d])));
}

static double make_schedule(void)
{
	unsigned sz[NSITES][3], k, i;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	double sum = 0;

	for (k = 0; k < NSITES; k++) {
		uint64_t ks = 0x2545f4914f6cdd1dull + k;

		for (i = 0; i < 3; i++)
			sz[k][i] = draw(k % NDIST, &ks);
	}
	for (i = 0; i < SCHED; i++) {
		unsigned site = (unsigned)(xorshift(&s) % NSITES);
		unsigned r = (unsigned)(xorshift(&s) % 100);

		sched[i].site = (uint8_t)site;
		sched[i].size = (uint16_t)sz[site][r < 70 ? 0 : r < 90 ? 1 : 2];
		sum += sched[i].size;
	}
	return sum / SCHED;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * One round of the schedule, ns a call.  With use, x is the last byte a
 * call wrote (d[0] for a size of 0), made zero by an `and` the compiler
 * cannot see through, and added to the next destination: a data
 * dependency on the load, at the cost of a load and two adds a call.
 */
static inline __attribute__((always_inline)) double round_ns(const int use)
{
	double t0 = now();
	uint64_t x = 0;
	unsigned i;

	for (i = 0; i < SCHED; i++) {
		unsigned char *p = buf + sched[i].site % 4 * 17 + x;
		size_t n = sched[i].size;

#ifdef SITE_READ
		x = sites[sched[i].site](p, ARG(sched[i].site), n);
		if (use)
			__asm__("and $0, %0" : "+r"(x) : : "cc");
		else
			x = 0;
#else
		sites[sched[i].site](p, ARG(sched[i].site), n);
		if (use) {
			__asm__ __volatile__("" : : : "memory");
			x = p[n - (n != 0)];
			__asm__("and $0, %0" : "+r"(x) : : "cc");
		}
#endif
	}
	return (now() - t0) / SCHED;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 20, r;
	double mean = make_schedule(), best = 1e30, best_use = 1e30, t;

	for (r = 0; r < rounds; r++) {
		t = round_ns(0);
		if (t < best)
			best = t;
		t = round_ns(1);
		if (t < best_use)
			best_use = t;
	}
	printf("%.3f %.1f %.3f\n", best, mean, best_use);
	return buf[7] != 0x5a;
}
