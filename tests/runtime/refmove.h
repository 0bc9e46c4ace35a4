/* SPDX-License-Identifier: MIT */
/*
 * refmove.h - the reference the copy routines are held to (copy.c,
 * sweep.c, fuzz_routines.c): memmove one byte at a time, from the end
 * when the destination is above the source.  Their builds keep the
 * compiler from making it a memmove call again (loop distribution off,
 * or -fno-builtin under clang).
 */
#ifndef REFMOVE_H
#define REFMOVE_H

#include <stddef.h>
#include <stdint.h>

static inline void byte_move(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t i;

	if (d <= s)
		for (i = 0; i < n; i++)
			d[i] = s[i];
	else
		for (i = n; i-- > 0;)
			d[i] = s[i];
}

#endif
