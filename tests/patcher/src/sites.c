// SPDX-License-Identifier: MIT
/*
 * sites.c - functions with repstos sites, for the patcher tests: one
 * site of each op, sites in a leaf and in a non-leaf function, and a
 * memset GCC inlines as `rep stosq` on its own (not a site).  Each line
 * holding a site ends in a "site:" comment naming its function, which
 * the tests read to know the expected source lines.
 */
#include <string.h>
#include "repstos.h"

void *t_memset(void *p, int c, unsigned long n)
{
	return REPSTOS_MEMSET(p, c, n);	/* site: t_memset */
}

void t_bzero(void *p, unsigned long n)
{
	REPSTOS_BZERO(p, n);	/* site: t_bzero */
}

void t_clear(void *p, unsigned long n)
{
	REPSTOS_CLEAR(p, n);	/* site: t_clear */
}

/* Two sites in one function, around a call. */
void t_two(char *p, unsigned long n, void (*fn)(char *))
{
	REPSTOS_MEMSET(p, 0x5a, n / 2);	/* site: t_two */
	fn(p);
	REPSTOS_BZERO(p + n / 2, n - n / 2);	/* site: t_two */
}

/* GCC's own rep stos (with -mstringop-strategy=rep_8byte): not a site. */
struct big { long v[64]; };
void t_gcc_inline(struct big *b)
{
	memset(b, 0, sizeof(*b));
}
