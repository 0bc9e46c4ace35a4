/*
 * main.c - sends memset and memcpy elsewhere through asm labels, as
 * GCC's builtins/memops-asm test does, and calls them (by name and as
 * __builtin_) with sizes the compiler cannot know.  Prints how often
 * lib.c's my_memset and my_memcpy ran and a sum of what was written:
 * every build must print what the plain one prints.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

extern void *memset(void *, int, size_t) __asm__("my_memset");
extern void *memcpy(void *, const void *, size_t) __asm__("my_memcpy");
extern unsigned long set_calls, copy_calls;

static char a[256], b[256];

__attribute__((noinline)) void clear(char *p, int c, size_t n)
{
	memset(p, c, n);
	__builtin_memset(p + n, c + 1, n / 2);
}

__attribute__((noinline)) void copy(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
	__builtin_memcpy(d + n, s, n / 2);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	unsigned long sum = 0;

	clear(a, 5, n);
	copy(b, a, n);
	for (size_t i = 0; i < sizeof(b); i++)
		sum = sum * 31 + (unsigned char)b[i];
	printf("my_memset %lu, my_memcpy %lu, sum %lu\n", set_calls,
	       copy_calls, sum);
	return 0;
}
