/* SPDX-License-Identifier: MIT */
/*
 * copy/fortify.c - memcpy, mempcpy and memmove into a 16-byte local
 * under _FORTIFY_SOURCE: glibc makes them __memcpy_chk, __mempcpy_chk
 * and __memmove_chk; the plugin (with -fplugin-arg-repstos-copy) makes
 * them sites with the bounds check kept.  Usage: fortify WHAT N (WHAT:
 * memcpy, mempcpy, memmove).  Exits 0 after an in-bounds copy; an
 * overflow must abort in __chk_fail.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

static const char src[64] = "0123456789abcdefghijklmnopqrstuvwxyz";

NOIPA static int copy(int what, size_t n)
{
	char buf[16];
	char *end = buf;
	int sum = 0;

	memset(buf, '.', sizeof(buf));
	if (what == 0)
		end = (char *)memcpy(buf, src, n) + n;
	else if (what == 1)
		end = mempcpy(buf, src, n);
	else
		end = (char *)memmove(buf, src + 1, n) + n;
	for (int i = 0; i < 16; i++)
		sum += buf[i];
	return end == buf + n ? sum : -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "memcpy", "mempcpy", "memmove" };
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	int what = 0, want = 0;

	if (argc < 3)
		return 2;
	while (what < 3 && strcmp(argv[1], names[what]))
		what++;
	if (what == 3)
		return 2;
	for (size_t i = 0; i < 16; i++)
		want += i < n ? src[i + (what == 2)] : '.';
	printf("%s %zu: %d\n", argv[1], n, copy(what, n));
	return copy(what, n) != want;
}
