// SPDX-License-Identifier: MIT
/*
 * cyclelib.c - the shared object tests/runtime/cycle.c loads and
 * unloads again and again: a few sites (hand-written, so that no
 * plugin option decides how many), or with -DPLAIN none and no runtime,
 * for the growth a plain library's cycles cost.
 */
#include <stddef.h>
#include <string.h>
/* Whatever PLAIN says (declarations only): every build of this file
 * reads the same headers, as tests/build/deps.sh expects of a source. */
#include "repstos.h"
#ifndef PLAIN
#define SET(p, c, n) REPSTOS_MEMSET(p, c, n)
#define ZERO(p, n) REPSTOS_BZERO(p, n)

/* Its stub's byte and its stub, for tests/policy/probe.c; the byte is
 * NULL with the shared runtime, where the module has none. */
#pragma weak __repstos_set_choice
extern unsigned char __repstos_set_choice __attribute__((visibility("hidden")));

__attribute__((visibility("default"))) void *cycle_dispatch_page(void)
{
	return &__repstos_set_choice;
}

__attribute__((visibility("default"))) void *cycle_stub(void)
{
	return (void *)REPSTOS_STUB_SYMBOL;
}
#else
#define SET(p, c, n) memset(p, c, n)
#define ZERO(p, n) memset(p, 0, n)
#endif

/* Sites of three sizes; 0 when every one stored its bytes. */
__attribute__((visibility("default"))) int cycle_touch(unsigned n)
{
	unsigned char b[256];
	size_t i;

	memset(b, 0xee, sizeof(b));
	SET(b, 0x11, n % 64);
	SET(b + 64, 0x22, 64);
	ZERO(b + 128, n % 128);
	for (i = 0; i < sizeof(b); i++)
		if (b[i] != (i < n % 64 ? 0x11 : i < 64 ? 0xee : i < 128 ? 0x22 :
			     i < 128 + n % 128 ? 0 : 0xee))
			return 1;
	return 0;
}
