/* SPDX-License-Identifier: MIT */
/*
 * fortify.c - memset and explicit_bzero into fixed-size objects under
 * _FORTIFY_SOURCE: glibc turns them into __memset_chk and
 * __explicit_bzero_chk, the plugin into sites with the bounds check kept.
 * Usage: fortify WHAT N  (WHAT: memset, ebz, heap; N: the length).
 * Exits 0 after an in-bounds call; an overflow must abort in __chk_fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

NOIPA static int local_memset(int c, size_t n)
{
	char buf[16];
	int sum = 0;

	for (int i = 0; i < 16; i++)
		buf[i] = 1;
	memset(buf, c, n);
	for (int i = 0; i < 16; i++)
		sum += buf[i];
	return sum;
}

NOIPA static int local_ebz(size_t n)
{
	char secret[24];
	int sum = 0;

	for (int i = 0; i < 24; i++)
		secret[i] = 1;
	explicit_bzero(secret, n);
	for (int i = 0; i < 24; i++)
		sum += secret[i];
	return sum;
}

/* _FORTIFY_SOURCE=3: the object size is known only at run time. */
NOIPA static int heap_memset(size_t size, size_t n)
{
	char *p = malloc(size);
	int sum = 0;

	if (!p)
		return -1;
	memset(p, 2, n);
	for (size_t i = 0; i < n && i < size; i++)
		sum += p[i];
	free(p);
	return sum;
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	int r;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "memset")) {
		r = local_memset(3, n);
		printf("memset %zu: sum %d\n", n, r);
		return r != (n >= 16 ? 48 : (int)n * 3 + 16 - (int)n);
	}
	if (!strcmp(argv[1], "ebz")) {
		r = local_ebz(n);
		printf("explicit_bzero %zu: sum %d\n", n, r);
		return r != 24 - (int)n;
	}
	r = heap_memset(20, n);
	printf("heap memset %zu: sum %d\n", n, r);
	return r != 2 * (int)n;
}
