/* SPDX-License-Identifier: MIT */
/*
 * asan.c - memset and explicit_bzero on a 16-byte heap block under
 * -fsanitize=address.  Usage: asan WHAT N (WHAT: memset, ebz).  An
 * in-bounds N returns 0; N > 16 must be reported by ASan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

NOIPA static void *fill(void *p, int c, size_t n)
{
	return memset(p, c, n);
}

NOIPA static void wipe(void *p, size_t n)
{
	explicit_bzero(p, n);
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	unsigned char *p = malloc(16);
	int bad = 0;

	if (!p || argc < 3)
		return 2;
	if (!strcmp(argv[1], "memset")) {
		bad = fill(p, 0x81, n) != p;
		for (size_t i = 0; i < n && i < 16; i++)
			bad += p[i] != 0x81;
	} else {
		wipe(p, n);
		for (size_t i = 0; i < n && i < 16; i++)
			bad += p[i] != 0;
	}
	printf("%s %zu: %s\n", argv[1], n, bad ? "wrong" : "ok");
	free(p);
	return bad;
}
