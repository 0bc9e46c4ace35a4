// SPDX-License-Identifier: MIT
/*
 * pick.c - the rule `repstos tune` picks a routine by (pick.h).
 */
#include "pick.h"

/* The margin the policy's routine keeps its place by, as step 1 of
 * repstos_tune keeps the policy's rep stosb thresholds. */
#define HOLD 1.05
/* Worst cells this close are level: one run's cell moves by 2-3%. */
#define NEAR 0.97

/* y^n, n small. */
static double power(double y, unsigned n)
{
	double p = 1;

	while (n--)
		p *= y;
	return p;
}

/* x^(1/n), x > 0, by halving the interval between 1 and x: no libm for
 * the tool.  (Newton's method from 1 took 60 steps to come down from
 * 1 + x/n for 36 cells, and had not: a geomean of 37x for cells of
 * 1-2.4x.)  200 halvings leave far less than a double's last digit. */
static double root(double x, unsigned n)
{
	double lo = x < 1 ? x : 1, hi = x < 1 ? 1 : x;
	unsigned i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (power(mid, n) < x)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

struct repstos_standing repstos_pick_standing(const struct repstos_cells *c,
					      unsigned shapes)
{
	struct repstos_standing s = { 1e9, 1, 0, 0 };
	unsigned sh, i, n = 0;

	for (sh = 0; sh < REPSTOS_NSHAPE; sh++)
		for (i = 0; (shapes >> sh & 1) && i < REPSTOS_PICK_NCELL; i++) {
			double r = c->r[sh][i];

			if (r <= 0)
				continue;
			n++;
			s.geo *= r;
			if (r < s.worst)
				s.worst = r, s.worst_shape = sh, s.worst_cell = i;
		}
	if (!n)
		return (struct repstos_standing){ 0, 0, 0, 0 };
	s.geo = root(s.geo, n);
	return s;
}

/* Routine i's standing, its figures raised by HOLD where i is held
 * (-1: none). */
static struct repstos_standing seen(const struct repstos_cells *c, unsigned i,
				    unsigned shapes, int held)
{
	struct repstos_standing s = repstos_pick_standing(&c[i], shapes);

	if ((int)i == held)
		s.worst *= HOLD, s.geo *= HOLD;
	return s;
}

/* The rule of pick.h, with the held routine's figures raised by HOLD. */
static unsigned rule(const struct repstos_cells *c, unsigned n,
		     unsigned shapes, int held)
{
	double top = 0, geo = 0;
	unsigned i, pick = 0;

	for (i = 0; i < n; i++) {
		struct repstos_standing s = seen(c, i, shapes, held);

		if (s.worst > top)
			top = s.worst;
	}
	for (i = 0; i < n; i++) {
		struct repstos_standing s = seen(c, i, shapes, held);

		if (s.worst >= top * NEAR && s.geo > geo)
			geo = s.geo, pick = i;
	}
	return pick;
}

unsigned repstos_pick(const struct repstos_cells *c, unsigned n,
		      unsigned shapes)
{
	return rule(c, n, shapes, -1);
}

unsigned repstos_pick_keep(const struct repstos_cells *c, unsigned n,
			   unsigned shapes, int held)
{
	unsigned pick = rule(c, n, shapes, -1);

	if (held < 0 || (unsigned)held >= n || (unsigned)held == pick)
		return pick;
	return rule(c, n, shapes, held) == (unsigned)held ? (unsigned)held : pick;
}
