// SPDX-License-Identifier: MIT
/*
 * pick.c - the rule `repstos tune` picks a routine by (pick.h).
 */
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

/* Routine i's verdict, raised by HOLD where i is held (-1: none). */
static struct repstos_verdict seen(const struct repstos_verdict *v,
				   unsigned i, int held)
{
	struct repstos_verdict r = v[i];

	if ((int)i == held) {
		r.worst *= HOLD;
		r.dist_min *= HOLD;
		r.geo *= HOLD;
	}
	return r;
}

/* The rule of pick.h, with the held routine's figures raised by HOLD. */
static unsigned rule(const struct repstos_verdict *v, unsigned n, int held)
{
	double top = 0, safest = 0;
	unsigned i, pick = 0;
	int any = 0;

	for (i = 0; i < n; i++) {
		struct repstos_verdict r = seen(v, i, held);

		if (repstos_pick_qualifies(&r) && r.geo > top)
			top = r.geo, any = 1;
	}
	if (any) {
		/* within 2% of the best mean, the one safest at fixed sizes */
		for (i = 0; i < n; i++) {
			struct repstos_verdict r = seen(v, i, held);

			if (repstos_pick_qualifies(&r) && r.geo >= top * 0.98 &&
			    r.worst > safest)
				safest = r.worst, pick = i;
		}
		return pick;
	}
	/* None: the safest at fixed sizes of those not slower than glibc on
	 * the distributions taken together; failing that, the fastest there. */
	for (i = 0; i < n; i++) {
		struct repstos_verdict r = seen(v, i, held);

		if (r.geo >= LEVEL && r.worst > safest)
			safest = r.worst, pick = i, any = 1;
	}
	if (any)
		return pick;
	for (i = 0; i < n; i++) {
		struct repstos_verdict r = seen(v, i, held);

		if (r.geo > top)
			top = r.geo, pick = i;
	}
	return pick;
}

unsigned repstos_pick(const struct repstos_verdict *v, unsigned n)
{
	return rule(v, n, -1);
}

unsigned repstos_pick_keep(const struct repstos_verdict *v, unsigned n,
			   int held)
{
	unsigned pick = rule(v, n, -1);

	if (held < 0 || (unsigned)held >= n || (unsigned)held == pick)
		return pick;
	return rule(v, n, held) == (unsigned)held ? (unsigned)held : pick;
}
