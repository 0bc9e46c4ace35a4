// SPDX-License-Identifier: MIT
// Proves: tune keeps the policy's routine within 5% and takes another beyond.
/*
 * pick.c - repstos_pick and repstos_pick_keep (patcher/pick.c) on
 * crafted verdicts: the figures one Zen 5 tune run measured, where the
 * rule alone flips from the policy's avx512_split to avx512, and
 * neighbours of them on each side of the 5% the held routine is given,
 * in both of the rule's branches (some routine qualifies, none does).
 */
#include <stdio.h>
#include "pick.h"

static unsigned checks, failures;

static void expect(const char *what, unsigned got, unsigned want)
{
	checks++;
	if (got == want) {
		printf("ok: %s: %u\n", what, got);
		return;
	}
	failures++;
	printf("FAIL: %s: %u, not %u\n", what, got, want);
}

static struct repstos_verdict v(double worst, double dist_min, double geo)
{
	struct repstos_verdict r = { .worst = worst, .dist_min = dist_min,
				     .geo = geo };

	return r;
}

int main(void)
{
	/* 0: avx512_split, 1: avx512, 2: avx2, as tune measured them on an
	 * AMD EPYC 0x1a/0x02 in the run that chose avx512 */
	struct repstos_verdict zen5[3] = {
		v(0.72, 0.90, 0.99), v(0.73, 0.86, 1.23), v(0.60, 0.35, 0.63),
	};
	/* a later run: avx512_split level at every fixed size, its
	 * distributions 0.88-1.02x (mean 0.95) */
	struct repstos_verdict zen5b[2] = { v(1.00, 0.88, 0.95), v(0.65, 0.96, 1.28) };
	struct repstos_verdict far[2] = { v(0.60, 0.90, 0.99), v(0.80, 0.86, 1.23) };
	struct repstos_verdict near_q[2] = { v(0.99, 0.99, 1.14), v(0.97, 0.97, 1.20) };
	struct repstos_verdict far_q[2] = { v(0.99, 0.99, 1.10), v(0.97, 0.97, 1.20) };
	struct repstos_verdict edge[2] = { v(0.92, 0.97, 1.06), v(0.96, 0.96, 1.05) };

	expect("no routine qualifies, the rule alone: avx512 (avx512_split's mean 0.99)",
	       repstos_pick(zen5, 3), 1);
	expect("the same, avx512_split held: kept (0.72x is within 5% of 0.73x)",
	       repstos_pick_keep(zen5, 3, 0), 0);
	expect("the same, avx512 held: avx512", repstos_pick_keep(zen5, 3, 1), 1);
	expect("the same, nothing held: the rule's", repstos_pick_keep(zen5, 3, -1), 1);
	expect("the same, a held index past the routines: the rule's",
	       repstos_pick_keep(zen5, 3, 7), 1);
	expect("avx2 held, 0.63x against 1.23x: not kept", repstos_pick_keep(zen5, 3, 2), 1);
	expect("distributions' mean 0.95, the rule alone: avx512 (below 0.97)",
	       repstos_pick(zen5b, 2), 1);
	expect("the same, avx512_split held: kept (0.95 within 5% of the bar)",
	       repstos_pick_keep(zen5b, 2, 0), 0);
	expect("held 0.60x at a fixed size against 0.80x: not kept",
	       repstos_pick_keep(far, 2, 0), 1);
	expect("both qualify, held mean 1.14 against 1.20: kept",
	       repstos_pick_keep(near_q, 2, 0), 0);
	expect("both qualify, held mean 1.10 against 1.20: not kept",
	       repstos_pick_keep(far_q, 2, 0), 1);
	expect("held qualifies only within 5% (0.92x): kept, its mean the best",
	       repstos_pick_keep(edge, 2, 0), 0);
	expect("the same, the rule alone: the one that qualifies",
	       repstos_pick(edge, 2), 1);
	printf("pick: %u checks, %u failed\n", checks, failures);
	return failures ? 1 : 0;
}
