/* SPDX-License-Identifier: MIT */
/*
 * sites.h - tests/policy/profile.sh: one site per function, all with one
 * signature so that a table can drive them, and each module's forms.
 */
#ifndef PROFILE_SITES_H
#define PROFILE_SITES_H

#include <stddef.h>
#include <stdlib.h>	/* sitecheck.h needs it */
#include "sitecheck.h"

/* noipa: one real site each, whatever the callers pass */
#define SITE_FN __attribute__((noipa))

typedef void site_fn(void *p, int c, size_t n);

/* libprofdso.so's; its copy sites copy from profsrc, which holds
 * PROFSRC_BYTE(i) at i once prog has called fill_profsrc() */
site_fn l_memset, l_clear, l_const, l_never, l_copy;
void lib_forms(void);
#define PROFSRC_SIZE ((2u << 20) + 256)
#define PROFSRC_BYTE(i) ((unsigned char)((i) * 7 % 251))
extern unsigned char profsrc[PROFSRC_SIZE];

/* "MODULE INDEX FORM" for every site of the calling module. */
static inline void print_forms(const char *module)
{
	const struct repstos_site *b = repstos_sites_begin(), *e;

	for (e = b; e < repstos_sites_end(); e++)
		printf("%s %ld %s\n", module, (long)(e - b), sitecheck_form(e));
}

#endif
