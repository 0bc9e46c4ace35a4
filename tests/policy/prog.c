// SPDX-License-Identifier: MIT
/*
 * prog.c - the executable of tests/policy/profile.sh, linked with libprofdso.so:
 * sites of every kind (unknown, bounded and constant sizes, zeroing, a
 * clear, one written by hand, a memcpy and a memmove), called a known
 * number of times with known sizes, from main, from threads and from a
 * forked child.
 *
 *   prog calls    make the planned calls
 *   prog expect   what a profile of `calls` must hold: per site function
 *                 "MODULE FUNCTION" and its calls in each size class
 *   prog forms    "MODULE INDEX FORM" for every site of both modules
 *   prog sem      every site against a byte loop at every size it may
 *                 be given, whatever form a profile chose for it
 *
 * Built with -DOTHER_BUILD it is another build of the same program: as
 * many sites, at other places (a profile of one is foreign to the other).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sites.h"

#ifdef OTHER_BUILD
static volatile int other;
#define OTHER() (other++)
#else
#define OTHER() ((void)0)
#endif

SITE_FN void x_small(void *p, int c, size_t n) { OTHER(); memset(p, c, n); }
SITE_FN void x_mid(void *p, int c, size_t n) { memset(p, c, n); }
SITE_FN void x_big(void *p, int c, size_t n) { memset(p, 0, n); }
SITE_FN void x_const(void *p, int c, size_t n) { memset(p, 7, 300); }
SITE_FN void x_bounded(void *p, int c, size_t n) { memset(p, c, n < 63 ? n : 63); }
SITE_FN void x_hand(void *p, int c, size_t n) { REPSTOS_MEMSET(p, c, n); }
SITE_FN void x_thread(void *p, int c, size_t n) { memset(p, c, n); }
SITE_FN void x_fork(void *p, int c, size_t n) { memset(p, c, n); }
SITE_FN void x_never(void *p, int c, size_t n) { memset(p, c, n); }
SITE_FN void x_copy(void *p, int c, size_t n) { OTHER(); memcpy(p, profsrc, n); }
/* p may be anywhere, profsrc too as far as GCC knows: a move site */
SITE_FN void x_move(void *p, int c, size_t n) { memmove(p, profsrc, n); }

/* What each stores: the byte c (fill -1) or `fill`, or (copy) profsrc's
 * bytes, over n bytes (fixed 0) or `fixed`; sem gives it sizes up to
 * max. */
struct site {
	const char *module, *name;
	site_fn *fn;
	int fill;
	size_t fixed, max;
	int copy;
};

#define ANY ((size_t)-1)
enum { X_SMALL, X_MID, X_BIG, X_CONST, X_BOUNDED, X_HAND, X_THREAD, X_FORK,
       X_NEVER, X_COPY, X_MOVE, L_MEMSET, L_CLEAR, L_CONST, L_NEVER, L_COPY,
       NSITES };

static const struct site sites[NSITES] = {
	[X_SMALL] = { "prog", "x_small", x_small, -1, 0, ANY },
	[X_MID] = { "prog", "x_mid", x_mid, -1, 0, ANY },
	[X_BIG] = { "prog", "x_big", x_big, 0, 0, ANY },
	[X_CONST] = { "prog", "x_const", x_const, 7, 300, ANY },
	[X_BOUNDED] = { "prog", "x_bounded", x_bounded, -1, 0, 63 },
	[X_HAND] = { "prog", "x_hand", x_hand, -1, 0, ANY },
	[X_THREAD] = { "prog", "x_thread", x_thread, -1, 0, ANY },
	[X_FORK] = { "prog", "x_fork", x_fork, -1, 0, ANY },
	[X_NEVER] = { "prog", "x_never", x_never, -1, 0, ANY },
	[X_COPY] = { "prog", "x_copy", x_copy, -1, 0, ANY, 1 },
	[X_MOVE] = { "prog", "x_move", x_move, -1, 0, ANY, 1 },
	[L_MEMSET] = { "lib", "l_memset", l_memset, -1, 0, ANY },
	[L_CLEAR] = { "lib", "l_clear", l_clear, 0, 0, ANY },
	[L_CONST] = { "lib", "l_const", l_const, 0, 20000, ANY },
	[L_NEVER] = { "lib", "l_never", l_never, -1, 0, ANY },
	[L_COPY] = { "lib", "l_copy", l_copy, -1, 0, ANY, 1 },
};

/* The calls main makes: site, size, times.  Sizes were picked so that
 * under tests/policy's fixed cost table sites land in different forms. */
static const struct step {
	unsigned site;
	size_t size;
	unsigned count;
} plan[] = {
	{ X_SMALL, 0, 1 }, { X_SMALL, 1, 2 }, { X_SMALL, 5, 3 },
	{ X_SMALL, 16, 4 }, { X_SMALL, 33, 5 },
	{ X_MID, 100, 7 }, { X_MID, 700, 11 }, { X_MID, 1500, 13 },
	{ X_BIG, 3000, 2 }, { X_BIG, 70000, 3 }, { X_BIG, 2 << 20, 1 },
	{ X_CONST, 300, 6 },
	{ X_BOUNDED, 0, 1 }, { X_BOUNDED, 9, 2 }, { X_BOUNDED, 63, 3 },
	{ X_HAND, 8, 9 }, { X_HAND, 4096, 1 },
	{ L_MEMSET, 64, 10 }, { L_MEMSET, 65536, 10 },
	{ L_CLEAR, 32, 12 },
	{ L_CONST, 20000, 4 },
	{ X_COPY, 16, 5 }, { X_COPY, 200, 3 },
	{ X_MOVE, 40, 4 },
	{ L_COPY, 100, 6 }, { L_COPY, 3000, 2 },
};

/* x_thread: THREADS threads at once, PER_THREAD calls of 24 bytes each
 * (counts lost between threads would show).  x_fork: BEFORE calls of 2
 * bytes, then CHILD of 3 in a child that exits normally (its section
 * must not count the parent's calls again), then AFTER of 4. */
#define THREADS 4
#define PER_THREAD 25000
#define BEFORE 3
#define CHILD 5
#define AFTER 2

#define NCLASS 22
#define GUARD 64
static unsigned char big[(2 << 20) + 2 * GUARD + 64];

/* Bit length, the last class from 1 MiB up: the profile's classes. */
static unsigned size_class(size_t n)
{
	unsigned c = 0;

	for (; n; n >>= 1)
		c++;
	return c < NCLASS ? c : NCLASS - 1;
}

static void *thread_calls(void *arg)
{
	unsigned char buf[64];
	unsigned i;

	for (i = 0; i < PER_THREAD; i++)
		x_thread(buf, 0x11, 24);
	return NULL;
}

static int fork_calls(void)
{
	unsigned i;
	pid_t pid;
	int st;

	for (i = 0; i < BEFORE; i++)
		x_fork(big, 1, 2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < CHILD; i++)
			x_fork(big, 1, 3);
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st) {
		perror("fork");
		return 1;
	}
	for (i = 0; i < AFTER; i++)
		x_fork(big, 1, 4);
	return 0;
}

static int calls(void)
{
	pthread_t t[THREADS];
	unsigned i, k;

	for (i = 0; i < sizeof(plan) / sizeof(plan[0]); i++)
		for (k = 0; k < plan[i].count; k++)
			sites[plan[i].site].fn(big, 0x5a, plan[i].size);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, thread_calls, NULL))
			return 1;
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return fork_calls();
}

static int expect(void)
{
	static unsigned long long h[NSITES][NCLASS];
	unsigned i, c;

	for (i = 0; i < sizeof(plan) / sizeof(plan[0]); i++)
		h[plan[i].site][size_class(plan[i].size)] += plan[i].count;
	h[X_THREAD][size_class(24)] += THREADS * PER_THREAD;
	h[X_FORK][size_class(2)] += BEFORE;
	h[X_FORK][size_class(3)] += CHILD;
	h[X_FORK][size_class(4)] += AFTER;
	for (i = 0; i < NSITES; i++) {
		printf("%s %s", sites[i].module, sites[i].name);
		for (c = 0; c < NCLASS; c++)
			printf(" %llu", h[i][c]);
		putchar('\n');
	}
	return 0;
}

/* ---- sem ---------------------------------------------------------------- */

/* A byte loop (built with -fno-tree-loop-distribute-patterns: never a
 * memset, never a site). */
static void bytes(unsigned char *p, int c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)c;
}

/* One call at offset off with byte c, and every byte of the area
 * checked: the stored ones and GUARD bytes on each side. */
static int check(const struct site *s, size_t n, size_t off, int c)
{
	size_t len = s->fixed ? s->fixed : n, start = GUARD + off, i;
	int want = s->fill < 0 ? c : s->fill;
	unsigned char bg = (unsigned char)(want ^ 0xa5);

	bytes(big, bg, start + len + GUARD);
	s->fn(big + start, c, n);
	for (i = 0; i < start + len + GUARD; i++)
		if (big[i] != (i < start || i >= start + len ? bg :
			       s->copy ? PROFSRC_BYTE(i - start) : want)) {
			printf("MISMATCH %s: size %zu offset %zu byte 0x%02x: "
			       "first bad byte at %+ld\n", s->name, len, off, c,
			       (long)i - (long)start);
			return 1;
		}
	return 0;
}

static int sweep(const struct site *s, size_t n, unsigned offs)
{
	static const size_t off[] = { 0, 1, 7, 31, 63 };
	unsigned o;
	int bad = 0;

	for (o = 0; o < offs; o++) {
		bad |= check(s, n, off[o], 0);
		bad |= check(s, n, off[o], 0xa7);
	}
	return bad;
}

static int sem(void)
{
	unsigned long checks = 0;
	unsigned i, k;
	size_t n;
	int bad = 0;

	/* every size to 300 (where the routines branch most), every 37th
	 * to 4 KiB, 2^k - 1 .. 2^k + 1 for every other k to 1 MiB + 1 */
	for (i = 0; i < NSITES && !bad; i++) {
		const struct site *s = &sites[i];

		if (s->fixed) {		/* n makes no difference */
			bad |= sweep(s, 0, 5);
			checks++;
			continue;
		}
		for (n = 0; n <= 4200 && n <= s->max && !bad; checks++) {
			bad |= sweep(s, n, 5);
			n += n < 300 ? 1 : 37;
		}
		for (k = 12; k <= 20 && s->max == ANY && !bad; k += 2)
			for (n = (1ul << k) - 1; n <= (1ul << k) + 1; n++, checks++)
				bad |= sweep(s, n, 2);
	}
	printf("%lu sizes checked, %s\n", checks, bad ? "MISMATCH" : "all right");
	return bad;
}

int main(int argc, char **argv)
{
	const char *mode = argc == 2 ? argv[1] : "";
	size_t i;

	for (i = 0; i < PROFSRC_SIZE; i++)
		profsrc[i] = PROFSRC_BYTE(i);

	if (!strcmp(mode, "calls"))
		return calls();
	if (!strcmp(mode, "expect"))
		return expect();
	if (!strcmp(mode, "sem"))
		return sem();
	if (!strcmp(mode, "forms")) {
		print_forms("prog");
		lib_forms();
		return 0;
	}
	fprintf(stderr, "usage: prog calls|expect|forms|sem\n");
	return 2;
}
