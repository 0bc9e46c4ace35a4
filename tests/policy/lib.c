// SPDX-License-Identifier: MIT
/*
 * lib.c - libprofdso.so of tests/policy/profile.sh: sites in a shared object, with
 * its own copy of the runtime, its own table and its own section; a copy
 * site among them, and the source every copy site copies from.
 */
#include <string.h>
#include "sites.h"

SITE_FN void l_memset(void *p, int c, size_t n)
{
	memset(p, c, n);
}

SITE_FN void l_clear(void *p, int c, size_t n)
{
	explicit_bzero(p, n);
}

SITE_FN void l_const(void *p, int c, size_t n)
{
	memset(p, 0, 20000);
}

SITE_FN void l_never(void *p, int c, size_t n)
{
	memset(p, c, n);
}

unsigned char profsrc[PROFSRC_SIZE];

SITE_FN void l_copy(void *p, int c, size_t n)
{
	memcpy(p, profsrc, n);
}

void lib_forms(void)
{
	print_forms("lib");
}
