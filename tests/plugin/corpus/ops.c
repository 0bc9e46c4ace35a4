/* SPDX-License-Identifier: MIT */
/* ops.c - the memset family with variable, bounded and constant sizes. */
#include <string.h>
#include <strings.h>
#include "corpus.h"

NOIPA static void *op_memset(void *p, int c, size_t n)
{
	return memset(p, c, n); /* @site */
}

NOIPA static void *op_memset_void(void *p, int c, size_t n)
{
	memset(p, c, n); /* @site */
	return p;
}

NOIPA static void *op_builtin(void *p, int c, size_t n)
{
	return __builtin_memset(p, c, n); /* @site */
}

NOIPA static void *op_zero(void *p, int c, size_t n)
{
	return memset(p, 0, n); /* @site */
}

NOIPA static void *op_bzero(void *p, int c, size_t n)
{
	bzero(p, n); /* @site */
	return p;
}

NOIPA static void *op_explicit_bzero(void *p, int c, size_t n)
{
	explicit_bzero(p, n); /* @site */
	return p;
}

/* GCC never expands explicit_bzero, so even a small constant size is a
 * site at every level. */
NOIPA static void *op_explicit_const(void *p, int c, size_t n)
{
	explicit_bzero(p, 48); /* @site */
	return p;
}

NOIPA static void *op_chk(void *p, int c, size_t n)
{
	return __builtin___memset_chk(p, c, n, __builtin_object_size(p, 0)); /* @site */
}

NOIPA static void *op_masked(void *p, int c, size_t n)
{
	return memset(p, c, n & 255); /* @site */
}

NOIPA static void *op_clamped(void *p, int c, size_t n)
{
	return memset(p, c, n < 300 ? n : 300); /* @site */
}

NOIPA static void *op_int_len(void *p, int c, size_t n)
{
	unsigned short m = (unsigned short)n;

	return memset(p, c, m); /* @site */
}

NOIPA static void *op_quarters(void *p, int c, size_t n)
{
	char *d = p;

	/* unrolled at -O2 and above: four sites on one line */
	for (int i = 0; i < 4; i++)
		memset(d + i * (n / 4), c, n / 4); /* @site */
	memset(d + 4 * (n / 4), c, n % 4); /* @site */
	return p;
}

NOIPA static void *op_known(void *p, int c, size_t n)
{
	if (n == 64)
		return memset(p, c, n); /* @small */
	return memset(p, c, n); /* @site */
}

NOIPA static void *op_const_small(void *p, int c, size_t n)
{
	return memset(p, c, 100); /* @small */
}

NOIPA static void *op_const_edge(void *p, int c, size_t n)
{
	return memset(p, c, 8192); /* @small */
}

NOIPA static void *op_const_big(void *p, int c, size_t n)
{
	return memset(p, c, 8193); /* @big */
}

NOIPA static void *op_const_big_zero(void *p, int c, size_t n)
{
	bzero(p, 20000); /* @big */
	return p;
}

NOIPA static void *op_pointer(void *p, int c, size_t n)
{
	void *(*volatile fp)(void *, int, size_t) = memset;

	return fp(p, c, n); /* @alone */
}

const struct corpus_op corpus_ops[] = {
	{ "memset", op_memset, -1, 0, 0, 1 },
	{ "memset_void", op_memset_void, -1, 0, 0, 1 },
	{ "builtin", op_builtin, -1, 0, 0, 1 },
	{ "zero", op_zero, 0, 0, 0, 1 },
	{ "bzero", op_bzero, 0, 0, 0, 1 },
	{ "explicit_bzero", op_explicit_bzero, 0, 0, 0, 1 },
	{ "explicit_const", op_explicit_const, 0, 48, 0, 1 },
	{ "chk", op_chk, -1, 0, 0, 1 },
	{ "masked", op_masked, -1, 0, 255, 1 },
	{ "clamped", op_clamped, -1, 0, 300, 1 },
	{ "int_len", op_int_len, -1, 0, 65535, 1 },
	{ "quarters", op_quarters, -1, 0, 0, 1 },
	{ "known", op_known, -1, 0, 0, 1 },
	{ "const_small", op_const_small, -1, 100, 0, 1 },
	{ "const_edge", op_const_edge, -1, 8192, 0, 1 },
	{ "const_big", op_const_big, -1, 8193, 0, 1 },
	{ "const_big_zero", op_const_big_zero, 0, 20000, 0, 1 },
	{ "pointer", op_pointer, -1, 0, 0, 1 },
	{ 0 }
};
