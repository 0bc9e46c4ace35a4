// SPDX-License-Identifier: MIT
/*
 * relro_dso.c - a shared object for relro.sh, loaded by dlopen_main in
 * place of libdso.so: its own sites and its own dispatch pointer, which
 * must be read-only once its runtime copy has started.
 */
#include "rocheck.h"

__attribute__((noinline)) static int site_ok(void)
{
	unsigned char b[300];

	memset(b, 0, sizeof(b));
	REPSTOS_MEMSET(b + 1, 0x5a, 298);
	return b[0] == 0 && b[1] == 0x5a && b[298] == 0x5a && b[299] == 0;
}

__attribute__((visibility("default"))) int dso_check(unsigned *nsites)
{
	int ok = site_ok();

	printf("dso: site %s; ", ok ? "ok" : "WRONG");
	ok &= rocheck_target(stdout);
	*nsites = repstos_stats()->patched;
	return !ok;
}
