// SPDX-License-Identifier: MIT
/*
 * late.c - sites on the pages of the mprotect route's own window, for
 * tests/runtime/beside.sh.  The program is linked main, librepstos.a,
 * then late_sites.c: the linker takes the start-up from the archive
 * last, its code ending with the window (runtime/runtime.mk), so the
 * first sites of late_sites.c come right after the window, on its last
 * page, and the others on the pages after it.
 *
 *   late   one line a site: "ADDRESS stub|call|inline", then "ok" when
 *          every site stored the right bytes
 */
#include <stdio.h>
#include <string.h>
#include "repstos.h"
#include "policy/sitecode.h"

void late_sites(unsigned char *p, unsigned long n);

int main(void)
{
	static unsigned char b[600];
	const struct repstos_site *e;
	unsigned long i;
	int ok = 1;

	/* one site here too, so that the stub pulls the runtime in */
	REPSTOS_MEMSET(b, 0x11, sizeof(b));
	late_sites(b, 300);
	for (i = 0; i < sizeof(b); i++)
		ok &= b[i] == (i < 300 ? 0x5a : 0x11);
	for (e = repstos_sites_begin(); e < repstos_sites_end(); e++) {
		uintptr_t at = repstos_site_addr(e), to = 0;
		enum repstos_form f = repstos_decode((const uint8_t *)at, e->len,
						     at, e->op, &to);

		printf("%lx %s\n", (unsigned long)at,
		       f == REPSTOS_FORM_INLINE ? "inline" :
		       f != REPSTOS_FORM_CALL ? "garbage" :
		       to == (uintptr_t)REPSTOS_STUB_SYMBOL ? "stub" : "call");
	}
	printf("%s\n", ok ? "ok" : "WRONG");
	return !ok;
}
