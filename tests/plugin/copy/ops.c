/* SPDX-License-Identifier: MIT */
/* ops.c - memcpy, mempcpy, memmove, their _chk forms and user helpers
 * with variable, bounded and constant sizes; memmoves the plugin can
 * prove forward-safe; copies whose source is written and whose
 * destination is read right around the site. */
#define _GNU_SOURCE
#include <string.h>
#include "copy.h"

#define COPY 3
#define MOVE 4
#define MOVE_FWD 5

NOIPA static void *c_memcpy(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n); /* @site */
}

NOIPA static void *c_memcpy_void(void *d, const void *s, size_t n)
{
	memcpy(d, s, n); /* @site */
	return d;
}

NOIPA static void *c_mempcpy(void *d, const void *s, size_t n)
{
	return mempcpy(d, s, n); /* @site */
}

/* mempcpy's result is the next destination. */
NOIPA static void *c_mempcpy_chain(void *d, const void *s, size_t n)
{
	char *e = mempcpy(d, s, n / 3); /* @site */

	e = mempcpy(e, (const char *)s + n / 3, n / 3); /* @site */
	return mempcpy(e, (const char *)s + 2 * (n / 3), n - 2 * (n / 3)); /* @site */
}

NOIPA static void *c_memmove(void *d, const void *s, size_t n)
{
	return memmove(d, s, n); /* @site */
}

NOIPA static void *c_memmove_void(void *d, const void *s, size_t n)
{
	memmove(d, s, n); /* @site */
	return d;
}

NOIPA static void *c_memcpy_chk(void *d, const void *s, size_t n)
{
	return __builtin___memcpy_chk(d, s, n, __builtin_object_size(d, 0)); /* @site */
}

NOIPA static void *c_mempcpy_chk(void *d, const void *s, size_t n)
{
	return __builtin___mempcpy_chk(d, s, n, __builtin_object_size(d, 0)); /* @site */
}

NOIPA static void *c_memmove_chk(void *d, const void *s, size_t n)
{
	return __builtin___memmove_chk(d, s, n, __builtin_object_size(d, 0)); /* @site */
}

NOIPA static void *c_masked(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n & 255); /* @site */
}

NOIPA static void *c_move_clamped(void *d, const void *s, size_t n)
{
	return memmove(d, s, n < 300 ? n : 300); /* @site */
}

NOIPA static void *c_const_small(void *d, const void *s, size_t n)
{
	return memcpy(d, s, 100); /* @small */
}

NOIPA static void *c_const_big(void *d, const void *s, size_t n)
{
	return memcpy(d, s, 8193); /* @big */
}

NOIPA static void *c_pcpy_const_big(void *d, const void *s, size_t n)
{
	return mempcpy(d, s, 10000); /* @big */
}

/* GCC never expands memmove: a site at every level and size. */
NOIPA static void *c_move_const(void *d, const void *s, size_t n)
{
	return memmove(d, s, 100); /* @site */
}

NOIPA static void *c_my_copy(void *d, const void *s, size_t n)
{
	return my_copy(d, s, n); /* @site */
}

NOIPA static void *c_my_move(void *d, const void *s, size_t n)
{
	my_move(d, s, n); /* @site */
	return d;
}

/* dst at or before src in one object: may copy forwards. */
NOIPA static void *m_down4(void *p, const void *unused, size_t n)
{
	return memmove(p, (char *)p + 4, n); /* @site */
}

/* dst after src: must stay a move. */
NOIPA static void *m_up4(void *p, const void *unused, size_t n)
{
	return memmove((char *)p + 4, p, n); /* @site */
}

/* The source is a local array written just before the site, the
 * destination read and written just after: the asm's memory effects
 * must keep both in order. */
NOIPA static void *c_via_local(void *d, const void *s, size_t n)
{
	unsigned char tmp[256];
	const unsigned char *sp = s;
	unsigned char *dp = d;

	n &= 255;
	for (size_t i = 0; i < n; i++)
		tmp[i] = sp[i] ^ 0x5a;
	memcpy(d, tmp, n); /* @site */
	for (size_t i = 0; i < n; i++)
		dp[i] ^= 0x5a;
	return d;
}

NOIPA static void *c_into_local(void *d, const void *s, size_t n)
{
	unsigned char tmp[256];
	unsigned char *dp = d;

	n &= 255;
	tmp[0] = 0;
	memcpy(tmp, s, n); /* @site */
	for (size_t i = 0; i < n; i++)
		tmp[i] ^= 0x5a;
	for (size_t i = 0; i < n; i++)
		dp[i] = tmp[i] ^ 0x5a;
	return d;
}

NOIPA static void *c_pointer(void *d, const void *s, size_t n)
{
	void *(*volatile fp)(void *, const void *, size_t) = memcpy;

	return fp(d, s, n); /* @alone */
}

const struct copy_op copy_ops[] = {
	{ "memcpy", c_memcpy, K_COPY, 0, 0, R_DST, COPY },
	{ "memcpy_void", c_memcpy_void, K_COPY, 0, 0, R_DST, COPY },
	{ "mempcpy", c_mempcpy, K_COPY, 0, 0, R_END, COPY },
	{ "mempcpy_chain", c_mempcpy_chain, K_COPY, 0, 0, R_END, COPY },
	{ "memmove", c_memmove, K_MOVE, 0, 0, R_DST, MOVE },
	{ "memmove_void", c_memmove_void, K_MOVE, 0, 0, R_DST, MOVE },
	{ "memcpy_chk", c_memcpy_chk, K_COPY, 0, 0, R_DST, COPY },
	{ "mempcpy_chk", c_mempcpy_chk, K_COPY, 0, 0, R_END, COPY },
	{ "memmove_chk", c_memmove_chk, K_MOVE, 0, 0, R_DST, MOVE },
	{ "masked", c_masked, K_COPY, 0, 255, R_DST, COPY },
	{ "move_clamped", c_move_clamped, K_MOVE, 0, 300, R_DST, MOVE },
	{ "const_small", c_const_small, K_COPY, 100, 0, R_DST, COPY },
	{ "const_big", c_const_big, K_COPY, 8193, 0, R_DST, COPY },
	{ "pcpy_const_big", c_pcpy_const_big, K_COPY, 10000, 0, R_END, COPY },
	{ "move_const", c_move_const, K_MOVE, 100, 0, R_DST, MOVE },
	{ "my_copy", c_my_copy, K_COPY, 0, 0, R_DST, COPY },
	{ "my_move", c_my_move, K_MOVE, 0, 0, R_DST, MOVE },
	{ "down4", m_down4, K_DOWN4, 0, 0, R_DST, MOVE_FWD },
	{ "up4", m_up4, K_UP4, 0, 0, R_DST, MOVE },
	{ "via_local", c_via_local, K_COPY, 0, 255, R_DST, COPY },
	{ "into_local", c_into_local, K_COPY, 0, 255, R_DST, COPY },
	{ "pointer", c_pointer, K_COPY, 0, 0, R_DST, -1 },
	{ 0 }
};
