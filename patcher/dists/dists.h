/* SPDX-License-Identifier: MIT */
/*
 * dists.h - a published size distribution (memset_dists.h,
 * memcpy_dists.h, which patcher/dists/mkdists.sh generates) and the two
 * ways it is drawn from: by tune.c, bench.c, copybench.c, manysite.c.
 */
#ifndef REPSTOS_DISTS_H
#define REPSTOS_DISTS_H

/* { size, probability in millionths }, sizes ascending. */
struct repstos_dist_point {
	unsigned short size;
	unsigned weight;
};

struct repstos_dist {
	const char *name;
	const struct repstos_dist_point *p;
	unsigned n;
};

/* The sum of d's weights. */
static inline unsigned repstos_dist_total(const struct repstos_dist *d)
{
	unsigned j, total = 0;

	for (j = 0; j < d->n; j++)
		total += d->p[j].weight;
	return total;
}

/* The size of d at r, r uniform below repstos_dist_total(d). */
static inline unsigned repstos_dist_size(const struct repstos_dist *d,
					 unsigned r)
{
	unsigned j;

	for (j = 0; j + 1 < d->n && r >= d->p[j].weight; j++)
		r -= d->p[j].weight;
	return d->p[j].size;
}

#endif
