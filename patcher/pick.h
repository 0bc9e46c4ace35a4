/* SPDX-License-Identifier: MIT */
/*
 * pick.h - how `repstos tune` picks the module routine and the read
 * routine of each family (set, copy) from what it measured: the rule
 * alone, apart from the measuring in tune.c, so that a test can hold it
 * to crafted figures.
 *
 * A cell is one way a program may use a routine: a shape (what the code
 * after the call does with the bytes) and a size distribution, or back
 * to back the fixed sizes.  Its figure is glibc's time over the
 * routine's (>1: faster), the worst of the placements measured
 * (destination aligned, +3, at a random offset).  Every choice is made
 * from the cells of every shape, never one: on Zen 4 a masked store is
 * not forwarded to a later load, so a routine 2% ahead back to back can
 * be 40% behind when the next instruction reads what it wrote.
 */
#ifndef REPSTOS_PICK_H
#define REPSTOS_PICK_H

#ifdef __cplusplus
extern "C" {
#endif

/* The most published distributions a family has (tune.c checks). */
#define REPSTOS_PICK_NDIST 8
/* A shape's cells: its distributions, then (back to back) the fixed
 * sizes, the worst size class. */
#define REPSTOS_PICK_FIXED REPSTOS_PICK_NDIST
#define REPSTOS_PICK_NCELL (REPSTOS_PICK_NDIST + 1)

/* The shapes (bench.h has the same four): nothing reads the bytes; the
 * next call's address depends on the last byte written, on the first,
 * on the sum of every 8-byte word. */
enum repstos_shape {
	REPSTOS_SHAPE_B2B,
	REPSTOS_SHAPE_LAST,
	REPSTOS_SHAPE_FIRST,
	REPSTOS_SHAPE_ALL,
	REPSTOS_NSHAPE
};
#define REPSTOS_SHAPES_EVERY	((1u << REPSTOS_NSHAPE) - 1)
/* What a site the plugin saw read back is judged by. */
#define REPSTOS_SHAPES_READ	(REPSTOS_SHAPES_EVERY & ~(1u << REPSTOS_SHAPE_B2B))

/* One routine's cells; 0 where a cell was not measured. */
struct repstos_cells {
	double r[REPSTOS_NSHAPE][REPSTOS_PICK_NCELL];
};

/* A routine's standing over the shapes of a mask: its worst cell (and
 * where), and its mean: the geometric mean of its cells, or, where the
 * mask has back to back and read shapes, the geometric mean of the two
 * halves' (back to back's cells; the read shapes' cells), which weigh
 * the same. */
struct repstos_standing {
	double worst, geo;
	unsigned worst_shape, worst_cell;
};
struct repstos_standing repstos_pick_standing(const struct repstos_cells *c,
					      unsigned shapes);

/*
 * Which of the n routines (n >= 1), over the shapes of the mask: the
 * best worst cell; among those within 5% of it (the noise of one run's
 * cell), the best mean (repstos_standing).
 */
unsigned repstos_pick(const struct repstos_cells *c, unsigned n,
		      unsigned shapes);

/*
 * The routine the policy already has, held (an index, or -1 where it is
 * none of the n), stays unless the rule's pick beats it by more than 5%
 * in the measure that decided: the worst cell, or, where the held one's
 * is within 5% of the pick's, the mean.  Measured again, two
 * routines close on that measure would otherwise trade places on noise.
 * Returns the index to take: held, or repstos_pick's.
 */
unsigned repstos_pick_keep(const struct repstos_cells *c, unsigned n,
			   unsigned shapes, int held);

/*
 * A change from the held routine, confirmed by a second pass: the
 * pick's and the held routine's cells each become the better of their
 * two passes (again_pick, again_held; a cell of 0 there is unmeasured),
 * and the two are judged again with the hold.  A cell is the worst of
 * three placements' medians, so noise only pulls it down.  Returns 1
 * where the pick stands, 0 where the held routine stays.
 */
int repstos_pick_confirm(struct repstos_cells *pick, struct repstos_cells *held,
			 const struct repstos_cells *again_pick,
			 const struct repstos_cells *again_held,
			 unsigned shapes);

#ifdef __cplusplus
}
#endif
#endif
