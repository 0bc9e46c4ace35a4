// SPDX-License-Identifier: MIT
/*
 * handsite.c - sites written by hand with the REPSTOS_* macros from
 * repstos.h, for code built without the plugin (clang, kernels, code
 * that wants one particular call to be a site).  Link with
 * librepstos.a; the runtime patches these sites like the plugin's.
 *
 *   cc -O2 -Iinclude -Iruntime examples/handsite.c runtime/librepstos.a
 */
#include <stdio.h>
#include <stdlib.h>
#include "repstos.h"

struct session {
	unsigned char key[32];
	char user[64];
	size_t used;
};

static void session_reset(struct session *s, size_t keep)
{
	/* Wipe the key; a site with the CLEAR operation is never elided. */
	REPSTOS_CLEAR(s->key, sizeof(s->key));
	/* Clear the user name past the part we keep: a run-time size. */
	REPSTOS_BZERO(s->user + keep, sizeof(s->user) - keep);
	s->used = keep;
}

int main(int argc, char **argv)
{
	size_t keep = argc > 1 ? strtoul(argv[1], NULL, 10) % 64 : 5;
	struct session s;
	unsigned sum = 0, i;

	/* memset through a site returns its destination, as memset does. */
	unsigned char *p = REPSTOS_MEMSET(&s, 'x', sizeof(s));
	session_reset(&s, keep);
	for (i = 0; i < sizeof(s.user); i++)
		sum += (unsigned char)s.user[i];
	printf("%s: kept %zu bytes of the name, sum %u, key[0] %u\n",
	       p == (unsigned char *)&s ? "ok" : "WRONG", keep, sum, s.key[0]);
	printf("%u sites in this program, variant %s\n",
	       (unsigned)(repstos_sites_end() - repstos_sites_begin()),
	       repstos_variant_name(repstos_variant()));
	return 0;
}
