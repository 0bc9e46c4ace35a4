// SPDX-License-Identifier: MIT
/*
 * plugin.c - plain libc calls the GCC plugin turns into sites (when
 * plugin/repstos.so exists): unknown, bounded and explicit-clear sizes.
 * Each line the plugin rewrites ends in a "site:" comment.
 */
#include <string.h>
#include <strings.h>

void p_memset(char *p, int c, unsigned long n)
{
	memset(p, c, n);	/* site: p_memset */
}

void p_bzero(char *p, unsigned long n)
{
	bzero(p, n);	/* site: p_bzero */
}

void p_bounded(char *p, unsigned n)
{
	if (n > 100)
		n = 100;
	memset(p, 0, n);	/* site: p_bounded */
}

void p_clear(char *p, unsigned long n)
{
	explicit_bzero(p, n);	/* site: p_clear */
}
