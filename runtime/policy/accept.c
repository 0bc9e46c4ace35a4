// SPDX-License-Identifier: MIT
/*
 * accept.c - whether a size profile is this build's, and its rows if
 * it is (profile.h, repstos_profile_accept): one acceptor for the
 * runtime's installed and REPSTOS_PROFILE_USE profiles and for `repstos
 * patch|dump|tune --profile`, so that both take and refuse the same
 * files, for the same reasons, in the same words.
 */
#include <stdio.h>
#include <stdlib.h>
#include "profile.h"

int repstos_profile_fits(const struct repstos_site *e,
			 const unsigned long long *hist)
{
	unsigned lo = 0, hi = REPSTOS_NCLASS - 1, c;

	/* never an entry the runtime does not know */
	if (e->op >= REPSTOS_OP_COUNT || !repstos_version_fits(e->version, e->op))
		return repstos_profile_calls(hist) ? -1 : 0;
	if (repstos_site_kind(e) != REPSTOS_SIZE_UNKNOWN) {
		lo = repstos_size_class(e->size_min);
		hi = repstos_size_class(e->size_max);
	}
	for (c = 0; c < REPSTOS_NCLASS; c++)
		if (hist[c] && (c < lo || c > hi))
			return -1;
	return 0;
}

int repstos_profile_pin_fits(const struct repstos_site *e, unsigned char pin)
{
	if (!pin)
		return 0;
	if (e->op >= REPSTOS_OP_COUNT || !repstos_version_fits(e->version, e->op))
		return -1;
	return repstos_pin_family(pin) == (int)repstos_family_of(e->op)->id ?
	       0 : -1;
}

/* Entry i of a table whose entries lie stride bytes apart. */
static const struct repstos_site *entry(const void *first, size_t stride,
					unsigned i)
{
	return (const struct repstos_site *)((const char *)first + i * stride);
}

/* Does every row fit its entry, and every pin its family?  0, or -1
 * with msg. */
static int rows_fit(const void *first, size_t stride,
		    const struct repstos_profile *p, char *msg, size_t len)
{
	unsigned i;

	for (i = 0; i < p->nsites; i++)
		if (repstos_profile_fits(entry(first, stride, i), p->hist[i])) {
			snprintf(msg, len, "site %u saw sizes its table entry "
				 "rules out: not a profile of this build", i);
			return -1;
		} else if (repstos_profile_pin_fits(entry(first, stride, i),
						    p->pin[i])) {
			snprintf(msg, len, "site %u pinned to a form of another "
				 "family: not a profile of this build", i);
			return -1;
		}
	return 0;
}

int repstos_profile_accept(const char *text, size_t len, const void *first,
			   size_t stride, struct repstos_profile *p,
			   char *msg, size_t msg_len)
{
	unsigned n = p->nsites ? p->nsites : 1;
	int r = -2;

	p->hist = calloc(n, sizeof(*p->hist));
	p->pin = calloc(n, 1);
	if (p->hist && p->pin)
		r = repstos_profile_parse(text, len, p);
	if (r == -2)
		snprintf(msg, msg_len, "out of memory");
	else if (r < 0)
		snprintf(msg, msg_len, "corrupt at line %u: %s", p->line, p->why);
	else if (r == 0)
		snprintf(msg, msg_len, "no section for table %016llx: a profile "
			 "of another build", (unsigned long long)p->hash);
	else if (rows_fit(first, stride, p, msg, msg_len))
		r = -1;
	if (r <= 0) {
		free(p->hist);
		free(p->pin);
		p->hist = NULL;
		p->pin = NULL;
		return r == -2 ? -2 : -1;
	}
	if (!p->pins) {
		free(p->pin);
		p->pin = NULL;
	}
	return 1;
}
