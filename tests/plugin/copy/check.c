/* SPDX-License-Identifier: MIT */
/*
 * check.c - the copy corpus harness, compiled WITHOUT the plugin.  Runs
 * every operation over sizes 0..4096 (every size to 300, then a spread
 * and 2^k-1, 2^k, 2^k+1) and some large ones, source and destination
 * offsets, and for moves overlaps in both directions; compares each
 * touched window, 64 guard bytes either side, byte for byte with the
 * reference on a twin buffer, and the returned pointer.  Prints one
 * digest line that the build without the plugin must print identically.
 * With -DUSE_DLOPEN the operations and the reference come from the
 * shared object named in argv[1].
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "copy.h"
#ifdef USE_DLOPEN
#include <dlfcn.h>
static void *(*ref_move_p)(void *, const void *, size_t);
#define ref_move(d, s, n) ref_move_p(d, s, n)
#endif

#define GUARD 64
#define FAR 70000		/* source to destination for copies */
#define BUF_SIZE (2 * FAR + 4 * GUARD)

static unsigned char a[BUF_SIZE], b[BUF_SIZE];
static unsigned long checks, failures;
static uint64_t digest = 1469598103934665603ull;
static size_t sizes[1200], nsizes;

static const size_t soffs[] = { 0, 1, 7, 13 };
static const size_t doffs[] = { 0, 3, 8, 63 };
static const long deltas[] = { -300, -65, -64, -17, -8, -4, -1, 0, 1, 2, 3,
			       4, 15, 16, 33, 64, 255, 300 };
static const size_t large[] = { 8191, 8192, 8193, 10000, 20000, 65536 + 3 };

#define N(x) (sizeof(x) / sizeof((x)[0]))

static void mix(uint64_t v)
{
	digest = (digest ^ v) * 1099511628211ull;
}

static void init(size_t lo, size_t hi, unsigned seed)
{
	for (size_t i = lo; i < hi; i++)
		a[i] = b[i] = (unsigned char)(i * 7 + seed * 13 + 0x35);
}

/* One call: source at s, destination at d (offsets into a and b). */
static void check_one(const struct copy_op *op, size_t s, size_t d, size_t n)
{
	size_t len = op->fixed ? op->fixed : n;
	size_t lo1 = s - GUARD, hi1 = s + len + GUARD;
	size_t lo2 = d - GUARD, hi2 = d + len + GUARD;
	void *want, *ret;
	unsigned seed = (unsigned)(checks & 0xff);
	int bad = 0;

	if (hi1 > BUF_SIZE || hi2 > BUF_SIZE)
		return;
	init(lo1, hi1, seed);
	init(lo2, hi2, seed);
	ref_move(b + d, b + s, len);
	switch (op->kind) {
	case K_DOWN4:
	case K_UP4:
		ret = op->fn(a + (op->kind == K_DOWN4 ? d : s), NULL, n);
		break;
	default:
		ret = op->fn(a + d, a + s, n);
	}
	want = a + d + (op->ret == R_END ? len : 0);
	if (memcmp(a + lo1, b + lo1, hi1 - lo1) || memcmp(a + lo2, b + lo2, hi2 - lo2)) {
		size_t i = lo1 < lo2 ? lo1 : lo2;

		for (; a[i] == b[i]; i++)
			;
		printf("FAIL %s s %zu d %zu n %zu: byte %ld from dst is %#x, "
		       "want %#x\n", op->name, s, d, n, (long)(i - d), a[i], b[i]);
		bad = 1;
	}
	if (ret != want) {
		printf("FAIL %s s %zu d %zu n %zu: returned dst%+ld, want dst%+ld\n",
		       op->name, s, d, n, (long)((unsigned char *)ret - (a + d)),
		       (long)((unsigned char *)want - (a + d)));
		bad = 1;
	}
	checks++;
	failures += bad;
	mix(a[d]);
	mix(a[d + len - (len > 0)]);
	mix(len);
}

static void check_op(const struct copy_op *op)
{
	unsigned long before = failures;

	for (size_t k = 0; k < nsizes && failures - before < 20; k++) {
		size_t n = sizes[k];

		if (op->max && n > op->max)
			continue;
		if (op->fixed && k > 0)
			break;
		switch (op->kind) {
		case K_COPY:
			for (size_t i = 0; i < N(soffs); i++)
				for (size_t j = 0; j < N(doffs); j++)
					check_one(op, 2 * GUARD + soffs[i],
						  2 * GUARD + FAR + doffs[j], n);
			break;
		case K_MOVE:
			/* apart, then overlapping both ways */
			check_one(op, 2 * GUARD + 1, 2 * GUARD + FAR + 2, n);
			check_one(op, 2 * GUARD + FAR + 5, 2 * GUARD + 3, n);
			for (size_t i = 0; i < N(deltas); i++)
				check_one(op, 2 * GUARD + 400,
					  2 * GUARD + 400 + deltas[i], n);
			break;
		case K_DOWN4:
			check_one(op, 2 * GUARD + 4, 2 * GUARD, n);
			check_one(op, 2 * GUARD + 9, 2 * GUARD + 5, n);
			break;
		case K_UP4:
			check_one(op, 2 * GUARD, 2 * GUARD + 4, n);
			check_one(op, 2 * GUARD + 5, 2 * GUARD + 9, n);
			break;
		}
	}
}

int main(int argc, char **argv)
{
#ifdef USE_DLOPEN
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	const struct copy_op *ops = h ? dlsym(h, "copy_ops") : NULL;

	if (!h) {
		printf("FAIL dlopen: %s\n", argc > 1 ? dlerror() : "no file");
		return 1;
	}
	ref_move_p = (void *(*)(void *, const void *, size_t))dlsym(h, "ref_move");
	if (!ops || !ref_move_p) {
		printf("FAIL: copy_ops or ref_move missing from %s\n", argv[1]);
		return 1;
	}
#else
	const struct copy_op *ops = copy_ops;
#endif
	for (size_t n = 0; n <= 300; n++)
		sizes[nsizes++] = n;
	for (size_t n = 301; n <= 4096; n += 29)
		sizes[nsizes++] = n;
	for (size_t k = 9; k <= 12; k++) {
		sizes[nsizes++] = ((size_t)1 << k) - 1;
		sizes[nsizes++] = (size_t)1 << k;
		sizes[nsizes++] = ((size_t)1 << k) + 1;
	}
	for (size_t i = 0; i < N(large); i++)
		sizes[nsizes++] = large[i];
	for (const struct copy_op *op = ops; op->name; op++)
		check_op(op);
	printf("copy corpus: %lu checks, %lu failures, digest %016llx\n",
	       checks, failures, (unsigned long long)digest);
	return failures ? 1 : 0;
}
