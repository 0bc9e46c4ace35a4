/* SPDX-License-Identifier: MIT */
/* fills.c - constant fill values, including ints above 255 that memset
 * truncates to their low byte (0x100 is a zeroing memset). */
#include <string.h>
#include "corpus.h"

NOIPA static void *fill_00(void *p, int c, size_t n)
{
	return memset(p, 0, n); /* @site */
}

NOIPA static void *fill_01(void *p, int c, size_t n)
{
	return memset(p, 1, n); /* @site */
}

NOIPA static void *fill_7f(void *p, int c, size_t n)
{
	return memset(p, 0x7f, n); /* @site */
}

NOIPA static void *fill_80(void *p, int c, size_t n)
{
	return memset(p, 0x80, n); /* @site */
}

NOIPA static void *fill_ff(void *p, int c, size_t n)
{
	return memset(p, 0xff, n); /* @site */
}

NOIPA static void *fill_100(void *p, int c, size_t n)
{
	return memset(p, 0x100, n); /* @site */
}

NOIPA static void *fill_17f(void *p, int c, size_t n)
{
	return memset(p, 0x17f, n); /* @site */
}

NOIPA static void *fill_m1(void *p, int c, size_t n)
{
	return memset(p, -1, n); /* @site */
}

NOIPA static void *fill_m128(void *p, int c, size_t n)
{
	return memset(p, -128, n); /* @site */
}

NOIPA static void *fill_big(void *p, int c, size_t n)
{
	return memset(p, 0x12345678, n); /* @site */
}

NOIPA static void *fill_char(void *p, int c, size_t n)
{
	signed char s = (signed char)c;

	return memset(p, s, n); /* @site */
}

NOIPA static void *fill_long(void *p, int c, size_t n)
{
	long l = (long)c << 8 | 0x5a;

	return memset(p, (int)l, n); /* @site */
}

const struct corpus_op corpus_fills[] = {
	{ "fill 0", fill_00, 0x00, 0, 0, 1 },
	{ "fill 1", fill_01, 0x01, 0, 0, 1 },
	{ "fill 0x7f", fill_7f, 0x7f, 0, 0, 1 },
	{ "fill 0x80", fill_80, 0x80, 0, 0, 1 },
	{ "fill 0xff", fill_ff, 0xff, 0, 0, 1 },
	{ "fill 0x100", fill_100, 0x00, 0, 0, 1 },
	{ "fill 0x17f", fill_17f, 0x7f, 0, 0, 1 },
	{ "fill -1", fill_m1, 0xff, 0, 0, 1 },
	{ "fill -128", fill_m128, 0x80, 0, 0, 1 },
	{ "fill 0x12345678", fill_big, 0x78, 0, 0, 1 },
	{ "fill (signed char)c", fill_char, -1, 0, 0, 1 },
	{ "fill c<<8|0x5a", fill_long, 0x5a, 0, 0, 1 },
	{ 0 }
};
