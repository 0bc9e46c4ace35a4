// SPDX-License-Identifier: MIT
/*
 * pick.c - the rule `repstos tune` picks a routine by (pick.h).
 */
#include "pick.h"

/* The margin the policy's routine keeps its place by, as step 1 of
 * repstos_tune keeps the policy's rep stosb thresholds. */
#define HOLD 1.05
/* Worst cells this close are level: one run's cell moves by up to 4%
 * (avx512's worst copy read-all cell on Emerald Rapids, 1.02-1.06x in
 * ten runs of 11 repetitions a cell, where at 3% the read routine went
 * now to it, now to avx512_fwd, whose mean is 40% ahead). */
#define NEAR 0.95

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

/* The worst cell of shape sh in s, and the product and count of its
 * cells into *prod, *n. */
static void shape_cells(const struct repstos_cells *c, unsigned sh,
			struct repstos_standing *s, double *prod, unsigned *n)
{
	unsigned i;

	for (i = 0; i < REPSTOS_PICK_NCELL; i++) {
		double r = c->r[sh][i];

		if (r <= 0)
			continue;
		++*n;
		*prod *= r;
		if (r < s->worst)
			s->worst = r, s->worst_shape = sh, s->worst_cell = i;
	}
}

/*
 * The mean is taken in two halves where the mask has both: the cells
 * back to back, and the cells of the read shapes, each half's geometric
 * mean weighing the same.  A site of unknown use is as likely to be left
 * as read; one mean over every cell made the three read shapes three
 * quarters of it.  (On Emerald Rapids that mean put avx512_fwd's
 * copies at 1.55x against avx512's 1.38x, and with the held margin
 * below they took the row; sqlite and Lua then ran 0.3-2% slower and
 * the many-site program 7%: a next call that waits on the load is rarer
 * in programs than three to one.  In halves the two were level, 1.61x
 * and 1.58x, and the row's routine stayed; once avx512_fwd stored only
 * its ends' bytes again, halves put it at 1.78x against 1.59x, and with
 * it as the row the four programs ran level with avx512 (within 0.7%),
 * the many-site program 1-3% behind.)
 */
struct repstos_standing repstos_pick_standing(const struct repstos_cells *c,
					      unsigned shapes)
{
	struct repstos_standing s = { 1e9, 1, 0, 0 };
	double b2b = 1, read = 1;
	unsigned sh, nb = 0, nr = 0;

	for (sh = 0; sh < REPSTOS_NSHAPE; sh++) {
		if (!(shapes >> sh & 1))
			continue;
		if (sh == REPSTOS_SHAPE_B2B)
			shape_cells(c, sh, &s, &b2b, &nb);
		else
			shape_cells(c, sh, &s, &read, &nr);
	}
	if (!nb && !nr)
		return (struct repstos_standing){ 0, 0, 0, 0 };
	if (!nr)
		s.geo = root(b2b, nb);
	else if (!nb)
		s.geo = root(read, nr);
	else
		s.geo = root(root(b2b, nb) * root(read, nr), 2);
	return s;
}

/* The rule of pick.h. */
static unsigned rule(const struct repstos_cells *c, unsigned n,
		     unsigned shapes)
{
	double top = 0, geo = 0;
	unsigned i, pick = 0;

	for (i = 0; i < n; i++) {
		struct repstos_standing s = repstos_pick_standing(&c[i], shapes);

		if (s.worst > top)
			top = s.worst;
	}
	for (i = 0; i < n; i++) {
		struct repstos_standing s = repstos_pick_standing(&c[i], shapes);

		if (s.worst >= top * NEAR && s.geo > geo)
			geo = s.geo, pick = i;
	}
	return pick;
}

unsigned repstos_pick(const struct repstos_cells *c, unsigned n,
		      unsigned shapes)
{
	return rule(c, n, shapes);
}

/*
 * The held routine gives way to the rule's pick only by more than HOLD
 * in the measure that decided between them: the worst cell where the
 * held one's is not level with the pick's (NEAR), else the mean.
 * Raising both of the held one's figures instead kept a routine whose
 * worst cell was level (0.97x against 0.98x, in a run of 7 repetitions
 * a cell) and whose mean was far behind (1.15x against 1.48x, the copy
 * read shapes on Emerald Rapids): the margin against noise decided what
 * noise did not.
 */
unsigned repstos_pick_keep(const struct repstos_cells *c, unsigned n,
			   unsigned shapes, int held)
{
	unsigned pick = rule(c, n, shapes);
	struct repstos_standing p, h;

	if (held < 0 || (unsigned)held >= n || (unsigned)held == pick)
		return pick;
	p = repstos_pick_standing(&c[pick], shapes);
	h = repstos_pick_standing(&c[held], shapes);
	if (h.worst >= p.worst * NEAR)
		return p.geo > h.geo * HOLD ? pick : (unsigned)held;
	return p.worst > h.worst * HOLD ? pick : (unsigned)held;
}

/* c's cells, each the better of it and again's. */
static void better_of(struct repstos_cells *c, const struct repstos_cells *again)
{
	unsigned sh, i;

	for (sh = 0; sh < REPSTOS_NSHAPE; sh++)
		for (i = 0; i < REPSTOS_PICK_NCELL; i++)
			if (again->r[sh][i] > c->r[sh][i])
				c->r[sh][i] = again->r[sh][i];
}

int repstos_pick_confirm(struct repstos_cells *pick, struct repstos_cells *held,
			 const struct repstos_cells *again_pick,
			 const struct repstos_cells *again_held,
			 unsigned shapes)
{
	struct repstos_cells two[2];

	better_of(pick, again_pick);
	better_of(held, again_held);
	two[0] = *pick;
	two[1] = *held;
	return repstos_pick_keep(two, 2, shapes, 1) == 0;
}
