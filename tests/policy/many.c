// SPDX-License-Identifier: MIT
/*
 * many.c - a program with many sites (tests/policy/many.sh): the
 * generated units many_sites0.c, many_sites1.c hold MANY_UNIT
 * hand-written sites each, in many_0() and many_1().
 *
 *   manysites          one line: sites= patched= start_us= patch_us=
 *                      (how long the start-up took, and of that choosing
 *                      and writing the sites)
 *   manysites run      the same, after calling every site once (with 8
 *                      bytes), so that a profile of them has a row each
 */
#include <stdio.h>
#include <string.h>
#include "repstos.h"

void many_0(unsigned char *p, unsigned long n);
void many_1(unsigned char *p, unsigned long n);

int main(int argc, char **argv)
{
	const struct repstos_stats *st = repstos_stats();
	static unsigned char b[128];

	if (argc > 1 && !strcmp(argv[1], "run")) {
		many_0(b, 8);
		many_1(b, 8);
	}
	printf("sites=%u patched=%u start_us=%llu patch_us=%llu\n", st->sites,
	       st->patched, st->nsec / 1000, st->patch_nsec / 1000);
	return 0;
}
