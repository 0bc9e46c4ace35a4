// SPDX-License-Identifier: MIT
/*
 * dso.c - a shared object with sites of its own, linked with its own copy
 * of librepstos.a and loaded with dlopen() by dlopen_main.c.
 */
#include "semcheck.h"
#include "sitecheck.h"

__attribute__((visibility("default"))) int dso_check(unsigned *nsites)
{
	unsigned long calls, bad;
	unsigned bad_forms = sitecheck_forms(stdout);

	bad = semcheck_run(1, &calls);
	*nsites = repstos_stats()->patched;
	printf("dso: %u sites patched (status %u), %lu calls, %lu mismatches\n",
	       repstos_stats()->patched, repstos_stats()->status, calls, bad);
	return (int)(bad + bad_forms);
}
