// SPDX-License-Identifier: MIT
/*
 * copies_main.c - runs copies.c's checks (linked in, or from a shared
 * object): prints OK, or the failures and exits 1.
 */
#include <stdio.h>

int copies_run(void);

int main(void)
{
	int fails = copies_run();

	if (fails) {
		printf("%d failures\n", fails);
		return 1;
	}
	puts("OK");
	return 0;
}
