/* SPDX-License-Identifier: MIT */
/* ref.c - the reference, a byte loop, and the user helpers named with
 * -fplugin-arg-repstos-copy-fn=my_copy -...-move-fn=my_move.  Compiled
 * without the plugin (and without builtins: the loops stay loops). */
#include "copy.h"

void *ref_move(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp <= sp || dp >= sp + n)
		for (size_t i = 0; i < n; i++)
			dp[i] = sp[i];
	else
		for (size_t i = n; i-- > 0;)
			dp[i] = sp[i];
	return d;
}

void *my_copy(void *d, const void *s, size_t n)
{
	return ref_move(d, s, n);
}

void *my_move(void *d, const void *s, size_t n)
{
	return ref_move(d, s, n);
}
