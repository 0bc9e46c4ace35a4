/* SPDX-License-Identifier: MIT */
/*
 * pick.h - how `repstos tune` picks the module routine (and the copy
 * routine) from what it measured: the rule alone, apart from the
 * measuring in tune.c, so that a test can hold it to crafted figures.
 */
#ifndef REPSTOS_PICK_H
#define REPSTOS_PICK_H

#ifdef __cplusplus
extern "C" {
#endif

/* The most published distributions a family has (tune.c checks). */
#define REPSTOS_PICK_NDIST 8

/* One routine's standing against glibc, each figure glibc's time over
 * the routine's (>1: faster). */
struct repstos_verdict {
	double worst;		/* at fixed sizes, the worst class */
	unsigned worst_class;
	double dist[REPSTOS_PICK_NDIST];	/* per distribution */
	double dist_min, geo;	/* their least and geometric mean */
};

/* Within 5% of glibc at every fixed size and on every distribution. */
int repstos_pick_qualifies(const struct repstos_verdict *v);

/*
 * Which of the n routines (n >= 1): among those that qualify, the best
 * geometric mean over the distributions, and within 2% of it the one
 * safest at fixed sizes; when none qualifies, the safest at fixed sizes
 * of those level with glibc or better on the distributions taken
 * together (geometric mean >= 0.97, the goals' bar); failing that, the
 * best mean.
 */
unsigned repstos_pick(const struct repstos_verdict *v, unsigned n);

/*
 * The routine the policy already has, held (an index, or -1 where it is
 * none of the n), stays unless the rule picks another with the held
 * one's figures raised by 5%: measured again, two routines close on the
 * rule's measures would otherwise trade places on noise.  Returns the
 * index to take: held, or repstos_pick's.
 */
unsigned repstos_pick_keep(const struct repstos_verdict *v, unsigned n,
			   int held);

#ifdef __cplusplus
}
#endif
#endif
