// SPDX-License-Identifier: MIT
/*
 * main.c - runs every function of use.c once with known bytes and
 * prints what each returned and a digest of what it wrote, so that the
 * plugin's build and a build without it can be compared.
 */
#include <stdio.h>
#include <string.h>
#include "use.h"

static unsigned long digest;

void use_bytes(char *p)
{
	digest = digest * 31 + (unsigned char)p[0];
}

static void mix(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		digest = digest * 131 + b[i];
}

int main(int argc, char **argv)
{
	static char a[512], b[512];
	static int v[80];
	size_t n = 40 + (size_t)argc;	/* hidden from the compiler */
	long r = 0;

	for (int i = 0; i < 512; i++)
		a[i] = (char)(i * 7), b[i] = (char)(i * 3);
	for (int i = 0; i < 80; i++)
		v[i] = i % 5 + 1;
	r += parse(a, n);
	r += clear_then_read(b, n);
	r += offset_read(b, n, 20);
	r += moved_then_read(b, n);
	clear(a, n);
	r += other_object(a, b, n);
	r += call_first(b, n);
	stores_only(v, 4);
	r += far_read(b, n, v + 8);
	mix(a, sizeof(a));
	mix(b, sizeof(b));
	mix(v, sizeof(v));
	printf("%ld %lx\n", r, digest);
	(void)argv;
	return 0;
}
