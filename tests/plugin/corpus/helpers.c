/* SPDX-License-Identifier: MIT */
/* helpers.c - user-named helpers (-fplugin-arg-repstos-clear=my_zero,
 * secure_wipe and -fplugin-arg-repstos-memset=my_memset). */
#include "corpus.h"

NOIPA static void *h_my_zero(void *p, int c, size_t n)
{
	my_zero(p, n); /* @site */
	return p;
}

NOIPA static void *h_secure_wipe(void *p, int c, size_t n)
{
	secure_wipe(p, n); /* @site */
	return p;
}

NOIPA static void *h_my_memset(void *p, int c, size_t n)
{
	return my_memset(p, c, n); /* @site */
}

NOIPA static void *h_my_memset_void(void *p, int c, size_t n)
{
	my_memset(p, c, n); /* @site */
	return p;
}

NOIPA static void *h_not_a_clear(void *p, int c, size_t n)
{
	not_a_clear(p, n); /* @alone */
	return p;
}

const struct corpus_op corpus_helpers[] = {
	{ "my_zero", h_my_zero, 0, 0, 0, 1 },
	{ "secure_wipe", h_secure_wipe, 0, 0, 0, 1 },
	{ "my_memset", h_my_memset, -1, 0, 0, 1 },
	{ "my_memset_void", h_my_memset_void, -1, 0, 0, 1 },
	{ "not_a_clear", h_not_a_clear, 0, 0, 0, 1 },
	{ 0 }
};
