// SPDX-License-Identifier: MIT
/*
 * cet.c - a module with sites for cet.sh: a memset the plugin makes a
 * site of (built with repstos-cc) and a hand-written one.
 */
#include <string.h>
#include "repstos.h"

__attribute__((noinline)) int cet_clear(char *p, unsigned long n)
{
	memset(p, 0x5a, n);
	REPSTOS_BZERO(p, n / 2);
	return p[0] + p[n - 1];
}

int main(int argc, char **argv)
{
	char b[64];

	return cet_clear(b, sizeof(b) - (unsigned long)argc + 1) == 0x5a ?
		0 : 1;
}
