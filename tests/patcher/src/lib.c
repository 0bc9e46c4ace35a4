// SPDX-License-Identifier: MIT
/*
 * lib.c - a shared object with its own sites and its own copy of the
 * runtime: lib_run() memsets through them over sizes and fills, compares
 * with libc, and reports the library's runtime status.
 */
#include <string.h>
#include "repstos.h"

static unsigned char buf[4200], want[4200];

__attribute__((noipa)) static void lib_fill(unsigned long at,
					       unsigned long n, int c)
{
	REPSTOS_MEMSET(buf + at, c, n);	/* site: lib_fill */
}

__attribute__((noipa)) static void lib_zero(unsigned long at,
					       unsigned long n)
{
	REPSTOS_BZERO(buf + at, n);	/* site: lib_zero */
}

int lib_run(unsigned *status)
{
	static const unsigned long sizes[] = { 0, 1, 7, 16, 33, 64, 100, 255,
		1024, 4096 };
	unsigned s, at;
	int fails = 0;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (at = 0; at < 3; at++) {
			memset(buf, 0xee, sizeof(buf));
			memset(want, 0xee, sizeof(want));
			memset(want + at, 0xa5, sizes[s]);
			lib_fill(at, sizes[s], 0xa5);
			fails += !!memcmp(buf, want, sizeof(buf));
			memset(want + at, 0, sizes[s]);
			lib_zero(at, sizes[s]);
			fails += !!memcmp(buf, want, sizeof(buf));
		}
	}
	*status = repstos_stats()->status;
	return fails;
}
