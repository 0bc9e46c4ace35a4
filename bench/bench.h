/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the benchmark harness (bench.c) and each candidate
 * translation unit (cand.c, compiled once per candidate) share.
 *
 * A candidate is a timing loop with the memset inlined the way a real
 * program would have it: a `call memset@plt`, a site (`call <routine>`
 * from an asm statement with the contract's constraints, or inline
 * `rep stosb`), or GCC's own inline expansion for one
 * -mstringop-strategy.  The loop and its overhead are the same in all.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Sizes are read from a ring of this many entries, so the compiler
 * never knows them; for a fixed size every entry is the same.  Large
 * enough that no branch predictor learns the mix's random sequence (a
 * 4096-entry ring was learnt: glibc's mix time fell to its 16-byte one). */
#define BENCH_RING 65536u

typedef void bench_run_fn(unsigned char *dst, int c, const uint32_t *sizes,
			  size_t iters);
/* The same loop for copybench's GCC candidates (cand.c -DOP_COPY). */
typedef void bench_copy_fn(unsigned char *dst, const unsigned char *src,
			   const uint32_t *sizes, size_t iters);

struct bench_cand {
	const char *name;	/* column name in the CSV */
	const char *what;	/* one line for the summary */
	bench_run_fn *run;
	int variant;		/* the routine's enum repstos_variant, or -1 */
};

#endif
