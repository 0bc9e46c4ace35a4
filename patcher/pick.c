// SPDX-License-Identifier: MIT
/*
 * pick.c - the rule `repstos tune` picks a routine by (pick.h).
 */
#include <string.h>
#include "pick.h"

/* The margin the policy's routine keeps its place by, as step 1 of
 * repstos_tune keeps the policy's rep stosb thresholds. */
#define HOLD 1.05
/* Level with glibc over the distributions taken together: the goals'
 * bar for "not slower" (bench/results/README.md), not 1: one run's
 * distributions move by 5% (Zen 5: avx512_split's mean 0.95-1.05). */
#define LEVEL 0.97

int repstos_pick_qualifies(const struct repstos_verdict *v)
{
	return v->worst >= 0.95 && v->dist_min >= 0.95;
}

unsigned repstos_pick(const struct repstos_verdict *v, unsigned n)
{
	double top = 0, safest = 0;
	unsigned i, pick = 0;
	int any = 0;

	for (i = 0; i < n; i++)
		if (repstos_pick_qualifies(&v[i]) && v[i].geo > top)
			top = v[i].geo, any = 1;
	if (any) {
		/* within 2% of the best mean, the one safest at fixed sizes */
		for (i = 0; i < n; i++)
			if (repstos_pick_qualifies(&v[i]) && v[i].geo >= top * 0.98 &&
			    v[i].worst > safest)
				safest = v[i].worst, pick = i;
		return pick;
	}
	/* None: the safest at fixed sizes of those not slower than glibc on
	 * the distributions taken together; failing that, the fastest there. */
	for (i = 0; i < n; i++)
		if (v[i].geo >= LEVEL && v[i].worst > safest)
			safest = v[i].worst, pick = i, any = 1;
	if (any)
		return pick;
	for (i = 0; i < n; i++)
		if (v[i].geo > top)
			top = v[i].geo, pick = i;
	return pick;
}

/* The held routine's figures raised by HOLD, the others' as they are:
 * the rule's pick among them.  A copy, so n is bounded by the caller's
 * table (tune.c's NFORM). */
static unsigned pick_favouring(const struct repstos_verdict *v, unsigned n,
			       unsigned held)
{
	struct repstos_verdict w[64];

	if (n > sizeof(w) / sizeof(w[0]))
		return repstos_pick(v, n);
	memcpy(w, v, n * sizeof(*v));
	w[held].worst *= HOLD;
	w[held].dist_min *= HOLD;
	w[held].geo *= HOLD;
	return repstos_pick(w, n);
}

unsigned repstos_pick_keep(const struct repstos_verdict *v, unsigned n,
			   int held)
{
	unsigned pick = repstos_pick(v, n);

	if (held < 0 || (unsigned)held >= n || (unsigned)held == pick)
		return pick;
	return pick_favouring(v, n, (unsigned)held) == (unsigned)held ?
	       (unsigned)held : pick;
}
