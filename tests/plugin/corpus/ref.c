/* SPDX-License-Identifier: MIT */
/* ref.c - reference fill and user helpers, compiled WITHOUT the plugin;
 * volatile stores keep GCC from turning the loops back into memset. */
#include "corpus.h"

void ref_fill(void *p, int c, size_t n)
{
	volatile unsigned char *d = p;

	for (size_t i = 0; i < n; i++)
		d[i] = (unsigned char)c;
}

void my_zero(void *p, size_t n) { ref_fill(p, 0, n); }
void secure_wipe(void *p, size_t n) { ref_fill(p, 0, n); }
void *my_memset(void *p, int c, size_t n) { ref_fill(p, c, n); return p; }
/* Same shape as a clear, not named on the command line: never a site. */
void not_a_clear(void *p, size_t n) { ref_fill(p, 0, n); }
