/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the benchmark harnesses (bench.c, copybench.c) and each
 * candidate translation unit (cand.c, compiled once per candidate) share.
 *
 * A candidate is a timing loop with the memset or memcpy inlined the way
 * a real program would have it: a `call memset@plt`, a site (`call
 * <routine>` from an asm statement with the contract's constraints, or
 * inline `rep stosb` / `rep movsb`), or GCC's own inline expansion for
 * one -mstringop-strategy.  The loop and its overhead are the same in all.
 *
 * Each candidate has its loop in three shapes, because what the hardware
 * is sensitive to differs between them:
 *   b2b   calls back to back: nothing reads what a call wrote, so the
 *         stores drain in the background while the next call runs;
 *   use   use after write: after each call the last byte it wrote is
 *         loaded and folded into the next call's destination, as when
 *         a program clears a struct and then fills it; a load that needs
 *         bytes of a store the CPU cannot forward from (masked and string
 *         stores, on some CPUs) waits for that store to commit;
 *   read  the whole destination is read after each call (its whole
 *         8-byte words and its last byte summed) and folded in the
 *         same way, as when a program copies a buffer and then parses
 *         it;
 *   first use after write with the first byte loaded, not the last: a
 *         routine can make one byte's load forwarded with one plain
 *         store of that byte, so use alone could reward what helps no
 *         other load.  Run only when named (-s first).
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Sizes are read from a ring of this many entries, so the compiler
 * never knows them; for a fixed size every entry is the same.  Large
 * enough that no branch predictor learns the mix's random sequence (a
 * 4096-entry ring was learnt: glibc's mix time fell to its 16-byte one).
 * The destination and source offsets come from rings of the same length,
 * read at the same index. */
#define BENCH_RING 65536u

enum bench_shape { BENCH_B2B, BENCH_USE, BENCH_READ, BENCH_FIRST,
		   BENCH_NSHAPE };

/* The shapes a run measures when -s names none. */
#define BENCH_SHAPES_DEFAULT	(1u << BENCH_B2B | 1u << BENCH_USE | 1u << BENCH_READ)

/* Where the destination (and a copy's source) lies from a 4 KiB
 * boundary: aligned, at a fixed odd offset, or anywhere in a cache line,
 * drawn per call. */
enum bench_off { BENCH_OFF_0, BENCH_OFF_3, BENCH_OFF_RAND, BENCH_NOFF };

/* One timed batch: what every candidate's loop reads. */
struct bench_batch {
	unsigned char *dst;
	const unsigned char *src;	/* copies: the source */
	int c;				/* memset: the fill byte */
	const uint32_t *sizes;		/* BENCH_RING sizes */
	const uint8_t *doff, *soff;	/* BENCH_RING offsets into dst, src */
	size_t iters;
};

typedef void bench_loop_fn(const struct bench_batch *b);

/*
 * Where a loop lies in its cache lines changes what a call costs: on
 * Zen 5, moving every candidate's loop 16 bytes further moved glibc's
 * memset at small sizes between 1.3 and 1.7 ns a call and avx512_split's
 * between 1.3 and 1.6, not together, so that one placement said 1.20x
 * and the next 1.03x over the same distributions (bench/results/README.md,
 * "Where the loop lies").  A program's call sites lie anywhere, so each
 * candidate has its loops in BENCH_NPHASE placements, BENCH_PHASE_BYTES
 * apart in a 64-byte line, and the harnesses time repetition r in
 * placement r mod BENCH_NPHASE: a median is over all of them.
 */
#define BENCH_NPHASE 4
#define BENCH_PHASE_BYTES 16

/* A candidate's loops, one per placement and enum bench_shape, at
 * [phase * BENCH_NSHAPE + shape]: cand.c defines, for each candidate,
 * bench_run_NAME (memset) or bench_copy_NAME (copies). */
#define BENCH_LOOPS(sym) bench_loop_fn *const sym[BENCH_NPHASE * BENCH_NSHAPE]

/* The loop of a shape in a placement. */
static inline bench_loop_fn *bench_loop(bench_loop_fn *const *loops,
					unsigned phase, unsigned shape)
{
	return loops[phase % BENCH_NPHASE * BENCH_NSHAPE + shape];
}

struct bench_cand {
	const char *name;	/* column name in the CSV */
	const char *what;	/* one line for the summary */
	bench_loop_fn *const *run;	/* indexed by enum bench_shape */
	int variant;		/* the routine's enum repstos_variant (a bench-only
				 * routine: the one whose needs it has), or -1 */
};

static inline const char *bench_shape_name(unsigned s)
{
	return s == BENCH_USE ? "use" : s == BENCH_READ ? "read" :
	       s == BENCH_FIRST ? "first" : "b2b";
}

static inline const char *bench_shape_what(unsigned s)
{
	return s == BENCH_USE ? "use after write" :
	       s == BENCH_READ ? "read after write" :
	       s == BENCH_FIRST ? "first byte used after write" : "back to back";
}

/* What a shape does, for the reports. */
static inline const char *bench_shape_how(unsigned s)
{
	return s == BENCH_USE ? "the next call's destination depends on the "
				"last byte each call wrote" :
	       s == BENCH_READ ? "it depends on the sum of the whole 8-byte "
				 "words and the last byte each call wrote" :
	       s == BENCH_FIRST ? "it depends on the first byte each call "
				  "wrote" :
	       "calls back to back, nothing reads what they wrote";
}

static inline const char *bench_off_name(unsigned o)
{
	return o == BENCH_OFF_3 ? "3" : o == BENCH_OFF_RAND ? "rand" : "0";
}

/*
 * A comma-separated list of names (-s b2b,use; -a 0,rand) as a bit mask
 * of the entries name(i) gives for i < n; NULL: all of them.  A name that
 * is none of them gives 0, for the caller's usage message.
 */
static inline unsigned bench_mask(const char *list,
				  const char *(*name)(unsigned), unsigned n)
{
	unsigned m = 0, i;
	const char *p = list;

	if (!list)
		return (1u << n) - 1;
	while (*p) {
		size_t l = strcspn(p, ",");

		for (i = 0; i < n; i++)
			if (strlen(name(i)) == l && !strncmp(p, name(i), l))
				break;
		if (i == n)
			return 0;
		m |= 1u << i;
		p += l + !!p[l];
	}
	return m;
}

/*
 * The first entry of the comma-separated list that is none of name(i)
 * for i < n, as "NAME" in out (cut to outsz - 1 bytes), or 0 when every
 * entry is known: an unknown candidate is an error, not a silent run of
 * the rest into the committed results folder.
 */
static inline int bench_unknown(const char *list,
				const char *(*name)(unsigned), unsigned n,
				char *out, size_t outsz)
{
	const char *p = list;
	unsigned i;

	while (p && *p) {
		size_t l = strcspn(p, ",");

		for (i = 0; i < n; i++)
			if (strlen(name(i)) == l && !strncmp(p, name(i), l))
				break;
		if (i == n) {
			snprintf(out, outsz, "%.*s", (int)l, p);
			return 1;
		}
		p += l + !!p[l];
	}
	return 0;
}

/* Offsets kind o into ring r: all `fixed` for BENCH_OFF_3, zero for
 * BENCH_OFF_0, uniform 0..63 from seed s for BENCH_OFF_RAND (xorshift,
 * so every run draws the same). */
static inline void bench_offsets(uint8_t *r, unsigned o, uint8_t fixed,
				 uint64_t s)
{
	unsigned i;

	for (i = 0; i < BENCH_RING; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		r[i] = o == BENCH_OFF_RAND ? (uint8_t)(s >> 58) :
		       o == BENCH_OFF_3 ? fixed : 0;
	}
}

#endif
