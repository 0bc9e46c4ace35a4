/*
 * lib.c - the functions main.c's asm labels send memset and memcpy to:
 * byte loops through volatile pointers (so that GCC does not turn them
 * back into memset and memcpy calls) that count their calls.
 */
#include <stddef.h>

unsigned long set_calls, copy_calls;

void *my_memset(void *p, int c, size_t n)
{
	volatile unsigned char *d = p;

	set_calls++;
	while (n--)
		*d++ = (unsigned char)c;
	return p;
}

void *my_memcpy(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const unsigned char *s = src;

	copy_calls++;
	while (n--)
		*d++ = *s++;
	return dst;
}
