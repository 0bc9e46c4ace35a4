// SPDX-License-Identifier: MIT
/*
 * copies.c - copy sites for tests/patcher/copies.sh, built with
 * -fplugin-arg-repstos-copy: the plugin's memcpy, mempcpy and memmove
 * (one it proves forwards-safe: MOVE_FWD), and REPSTOS_MEMCPY and
 * REPSTOS_MEMMOVE from repstos.h.  copies_run() drives every site over
 * sizes, offsets and, for the moves, overlaps in both directions, and
 * compares whole buffers, guard bytes and all, with a byte loop; it
 * returns the number of failures.  A move site that copied forwards
 * blindly (rep movsb) fails "move up".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "repstos.h"

#define BUF 8448
static unsigned char src[BUF], dst[BUF], want[BUF];
static unsigned char shift[BUF];	/* one object: memmove within it */
static int fails;

/* Each site in its own function, so a dump names it. */
__attribute__((noinline)) void *c_memcpy(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n);		/* site: copy */
}

__attribute__((noinline)) void *c_mempcpy(void *d, const void *s, size_t n)
{
	return mempcpy(d, s, n);	/* site: copy */
}

__attribute__((noinline)) void *c_memmove(void *d, const void *s, size_t n)
{
	return memmove(d, s, n);	/* site: move */
}

/* One object, the destination at or before the source: MOVE_FWD. */
__attribute__((noinline)) void c_shift_down(size_t n)
{
	memmove(shift, shift + 3, n);	/* site: move_fwd */
}

__attribute__((noinline)) void *c_macro_copy(void *d, const void *s, size_t n)
{
	return REPSTOS_MEMCPY(d, s, n);	/* site: copy */
}

__attribute__((noinline)) void *c_macro_move(void *d, const void *s, size_t n)
{
	return REPSTOS_MEMMOVE(d, s, n);	/* site: move */
}

/* The reference: bytes one at a time, never a copy site. */
static void ref_move(volatile unsigned char *d, const volatile unsigned char *s,
		     size_t n)
{
	size_t i;

	if (d < s)
		for (i = 0; i < n; i++)
			d[i] = s[i];
	else
		for (i = n; i-- > 0;)
			d[i] = s[i];
}

static void pattern(unsigned char *p, unsigned seed)
{
	size_t i;

	for (i = 0; i < BUF; i++)
		p[i] = (unsigned char)(i * 13 + seed);
}

static void same(const char *what, const unsigned char *got, size_t n,
		 size_t at)
{
	size_t i;

	if (!memcmp(got, want, BUF))
		return;
	for (i = 0; got[i] == want[i]; i++)
		;
	if (fails++ < 10)
		printf("FAIL %s n=%zu at=%zu: byte %zu is %#x, not %#x\n", what,
		       n, at, i, got[i], want[i]);
}

typedef void *(*copy_fn)(void *, const void *, size_t);

static void copies(const char *what, copy_fn fn, size_t n, size_t at,
		   int pend)
{
	void *r;

	pattern(src, 1);
	pattern(dst, 77);
	memcpy(want, dst, BUF);	/* site: copy (whole arrays: GCC folds it into an aggregate copy, which it would expand into a memcpy call) */
	ref_move(want + at, src + (at ^ 5), n);
	r = fn(dst + at, src + (at ^ 5), n);
	same(what, dst, n, at);
	if (r != dst + at + (pend ? n : 0) && fails++ < 10)
		printf("FAIL %s n=%zu: returned %p, not %p\n", what, n, r,
		       (void *)(dst + at + (pend ? n : 0)));
}

/* Overlapping moves in dst itself, distance k up (k > 0) or down. */
static void moves(const char *what, copy_fn fn, size_t n, size_t at, int k)
{
	pattern(dst, 9);
	memcpy(want, dst, BUF);	/* site: copy (as above) */
	ref_move(want + 128 + at + k, want + 128 + at, n);
	if (fn(dst + 128 + at + k, dst + 128 + at, n) != dst + 128 + at + k &&
	    fails++ < 10)
		printf("FAIL %s n=%zu: wrong value\n", what, n);
	same(what, dst, n, at);
}

static void shifts(size_t n)
{
	pattern(shift, 5);
	memcpy(want, shift, BUF);	/* site: copy (as above) */
	ref_move(want, want + 3, n);
	c_shift_down(n);
	same("shift down", shift, n, 0);
}

static const size_t sizes[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128,
	129, 255, 256, 257, 511, 1023, 1024, 2047, 2048, 2049, 4095, 4096,
	4097, 8000,
};

int copies_run(void)
{
	static const int dist[] = { 1, 3, 8, 31, 64, 100, -1, -3, -8, -64 };
	size_t i, at, d;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];

		for (at = 0; at < 8; at += 3) {
			copies("memcpy", c_memcpy, n, at, 0);
			copies("mempcpy", c_mempcpy, n, at, 1);
			copies("memmove apart", c_memmove, n, at, 0);
			copies("REPSTOS_MEMCPY", c_macro_copy, n, at, 0);
			copies("REPSTOS_MEMMOVE apart", c_macro_move, n, at, 0);
		}
		if (n <= 8000 - 128 - 100) {
			for (d = 0; d < sizeof(dist) / sizeof(dist[0]); d++) {
				moves(dist[d] > 0 ? "memmove up" : "memmove down",
				      c_memmove, n, 1, dist[d]);
				moves(dist[d] > 0 ? "REPSTOS_MEMMOVE up" :
				      "REPSTOS_MEMMOVE down", c_macro_move, n,
				      1, dist[d]);
			}
		}
		if (n + 3 <= BUF)
			shifts(n);
	}
	return fails;
}
