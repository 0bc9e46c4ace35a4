/* SPDX-License-Identifier: MIT */
/*
 * copy/asan.c - copies between two 16-byte heap blocks under
 * -fsanitize=address.  Usage: asan WHAT N (WHAT: read, write, move,
 * pcpy, olap, olapr, polap, same): "read" copies N bytes out of a
 * 16-byte block into a 64-byte one, "write" into a 16-byte block from a
 * 64-byte one, "move" and "pcpy" as "write" with memmove and mempcpy.
 * An in-bounds N prints ok; N > 16 must be reported by ASan, as a read
 * or as a write.  "olap" copies N bytes within the 64-byte block 8 bytes
 * up with memcpy, "olapr" 8 bytes down, "polap" up with mempcpy, "same"
 * onto itself: from N = 9 (not "same") the ranges overlap, which ASan's
 * memcpy reports as memcpy-param-overlap.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

NOIPA static void *cpy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
NOIPA static void *mov(void *d, const void *s, size_t n) { return memmove(d, s, n); }
NOIPA static void *pcpy(void *d, const void *s, size_t n) { return mempcpy(d, s, n); }

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	unsigned char *small = malloc(16), *big = malloc(64);
	void *ret, *want;
	int bad = 0;

	if (!small || !big || argc < 3)
		return 2;
	memset(small, 0x11, 16);
	memset(big, 0x22, 64);
	if (!strcmp(argv[1], "olap")) {
		ret = cpy(big + 8, big, n), want = big + 8;
	} else if (!strcmp(argv[1], "olapr")) {
		ret = cpy(big, big + 8, n), want = big;
	} else if (!strcmp(argv[1], "polap")) {
		ret = pcpy(big + 8, big, n), want = big + 8 + n;
	} else if (!strcmp(argv[1], "same")) {
		ret = cpy(big, big, n), want = big;
	} else if (!strcmp(argv[1], "read")) {
		ret = cpy(big, small, n), want = big;
		for (size_t i = 0; i < n && i < 16; i++)
			bad += big[i] != 0x11;
	} else {
		if (!strcmp(argv[1], "write"))
			ret = cpy(small, big, n), want = small;
		else if (!strcmp(argv[1], "move"))
			ret = mov(small, big, n), want = small;
		else
			ret = pcpy(small, big, n), want = small + n;
		for (size_t i = 0; i < n && i < 16; i++)
			bad += small[i] != 0x22;
	}
	bad += ret != want;
	printf("%s %zu: %s\n", argv[1], n, bad ? "wrong" : "ok");
	free(small);
	free(big);
	return bad;
}
