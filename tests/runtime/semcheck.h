/* SPDX-License-Identifier: MIT */
/*
 * semcheck.h - hand-written sites (REPSTOS_MEMSET & co.) checked against a
 * byte-loop reference.  A header of static functions: each module that
 * includes it gets its own sites, patched by its own copy of the runtime
 * (the executable and the dlopen()ed object in dlopen.sh).
 *
 *   full    sizes 0..4096 and 2^k-1, 2^k, 2^k+1 up to 16 MiB, offsets
 *           0..63, fills 0 1 0x7f 0x80 0xff, 64 guard bytes each side
 *   quick   the same shapes, fewer of them (for Valgrind)
 */
#ifndef SEMCHECK_H
#define SEMCHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "repstos.h"

#define GUARD 64
#define MAX_SIZE ((size_t)16 << 20)

static const int fills[] = { 0, 1, 0x7f, 0x80, 0xff };
#define NFILLS (sizeof(fills) / sizeof(fills[0]))

static uint8_t *buf, *ref;
static unsigned long checks, mismatches;

/* One site each. noinline: each is one real site, called many times. */
__attribute__((noinline)) static void *site_memset(void *d, int c, size_t n)
{
	return REPSTOS_MEMSET(d, c, n);
}

__attribute__((noinline)) static void site_bzero(void *d, size_t n)
{
	REPSTOS_BZERO(d, n);
}

__attribute__((noinline)) static void site_clear(void *d, size_t n)
{
	REPSTOS_CLEAR(d, n);
}

/* The reference: a plain byte loop (built with loop distribution off so
 * the compiler does not turn it back into memset). */
__attribute__((noinline)) static void ref_memset(uint8_t *d, int c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = (uint8_t)c;
}

/* Guard and background bytes never equal the fill, so any stray store
 * of the fill shows. */
static uint8_t background(int c)
{
	return (uint8_t)(c ^ 0xa5);
}

static void report(const char *what, size_t n, size_t off, int c, size_t at)
{
	if (mismatches++ < 20)
		fprintf(stderr, "MISMATCH %s: size %zu offset %zu fill 0x%02x: "
			"first bad byte at %+ld from dest\n", what, n, off, c,
			(long)at - (long)(GUARD + off));
}

static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len && a[i] == b[i]; i++)
		;
	return i;
}

/* Run one site call and compare the whole buffer with the reference. */
static void check_one(const char *what, size_t n, size_t off, int c)
{
	size_t total = GUARD + off + n + GUARD;
	uint8_t *dst = buf + GUARD + off;
	void *ret = dst;

	memset(buf, background(c), total);
	memset(ref, background(c), total);
	ref_memset(ref + GUARD + off, c, n);
	if (!strcmp(what, "memset"))
		ret = site_memset(dst, c, n);
	else if (!strcmp(what, "bzero"))
		site_bzero(dst, n);
	else
		site_clear(dst, n);
	checks++;
	if (ret != dst) {
		mismatches++;
		fprintf(stderr, "MISMATCH %s: size %zu: returned %p, not %p\n",
			what, n, ret, (void *)dst);
	}
	if (memcmp(buf, ref, total))
		report(what, n, off, c, first_diff(buf, ref, total));
}

/* Every offset; every fill at each offset, or (rotate) one fill per
 * offset in turn, for the sizes where all of them would take minutes. */
static void sweep(size_t n, size_t off_step, int rotate)
{
	size_t off, f;

	for (off = 0; off < 64; off += off_step)
		for (f = 0; f < NFILLS; f++) {
			int c = fills[rotate ? (off + n) % NFILLS : f];

			check_one("memset", n, off, c);
			if (c == 0) {
				check_one("bzero", n, off, 0);
				check_one("clear", n, off, 0);
			}
			if (rotate)
				break;
		}
}

static void semantics(int quick)
{
	size_t n, k;

	for (n = 0; n <= 4096; n++)
		if (!quick || n <= 300 || n % 61 == 0)
			sweep(n, quick ? 7 : 1, 0);
	for (k = 12; ((size_t)1 << k) <= MAX_SIZE; k++) {
		size_t p = (size_t)1 << k;

		if (quick && k > 16)
			break;
		for (n = p - 1; n <= p + 1; n++)
			sweep(n, quick ? 13 : 1, p > 65536);
	}
}

/* Returns the number of mismatches; *calls gets the calls checked. */
static unsigned long semcheck_run(int quick, unsigned long *calls)
{
	size_t len = MAX_SIZE + 4 * GUARD + 128;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ref = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || ref == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	semantics(quick);
	munmap(buf, len);
	munmap(ref, len);
	*calls = checks;
	return mismatches;
}

#endif
