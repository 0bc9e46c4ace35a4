// SPDX-License-Identifier: MIT
/*
 * cand.c - one benchmark candidate: compiled once per candidate with
 *   -DCAND=name   the loops are bench_run_<name>[shape]
 *   -DKIND_LIBC   memset() as a real call (built with -fno-builtin, so
 *                 `call memset@plt`)
 *   -DKIND_GCC    __builtin_memset, expanded by GCC as the command line's
 *                 -minline-all-stringops -mstringop-strategy=X says
 *   -DKIND_SITE=sym  a site calling routine `sym` directly: the bytes a
 *                 patched site has (e8 rel32), the asm constraints the
 *                 plugin emits (rdi/rcx/rax in/out, memory, flags, xmm0);
 *                 built with -mno-red-zone, as the plugin makes the code
 *                 it compiles
 *   -DKIND_CALL=fn  a plain C call of fn(d, c, n) (or fn(d, s, n)): the
 *                 kernel's own routines, assembled by kernel/bench.sh
 *   -DKIND_INLINE the inline form: `rep stosb` in place
 *   -DKIND_EMPTY  the loop alone: its overhead, included in every figure
 *   -DOP_COPY     memcpy instead, for copybench: the loops are
 *                 bench_copy_<name>[shape]; KIND_LIBC calls memcpy (with
 *                 -DOP_MOVE memmove), KIND_SITE has a copy site's
 *                 constraints (rdi/rsi/rcx, REPSTOS_COPY_CLOBBERS),
 *                 KIND_INLINE is `rep movsb`, KIND_GCC __builtin_memcpy
 * Each in its own translation unit, so no candidate's choice leaks into
 * another's code.  The loops (bench.h's shapes) are written once, below,
 * so that only the op differs between candidates.
 */
#include <string.h>
#include "bench.h"
#include "repstos_site.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(x) #x
#define STR(x) STR_(x)

#ifdef OP_COPY
#define RUN bench_copy_
/* the source, at its own offset; read from b once, before the loop */
#define ARGS const unsigned char *src = b->src; const uint8_t *soff = b->soff
#define ARG(j) (src + soff[j])
#else
#define RUN bench_run_
#define ARGS const int c = b->c	/* the fill byte */
#define ARG(j) c
#endif

#if defined(KIND_SITE) || defined(KIND_INLINE)
#if defined(KIND_SITE)
#define SITE_INSN "call " STR(KIND_SITE)
#elif defined(OP_COPY)
#define SITE_INSN "rep movsb"
#else
#define SITE_INSN "rep stosb"
#endif
#ifdef OP_COPY
static inline void op(unsigned char *d, const unsigned char *s,
		      unsigned long n)
{
	__asm__ __volatile__(SITE_INSN
			     : "+D"(d), "+S"(s), "+c"(n)
			     : : "memory", "cc", REPSTOS_COPY_CLOBBERS);
}
#else
static inline void op(unsigned char *d, int c, unsigned long n)
{
	unsigned long a = (unsigned char)c;

	__asm__ __volatile__(SITE_INSN
			     : "+D"(d), "+c"(n), "+a"(a)
			     : : "memory", "cc", REPSTOS_SITE_CLOBBERS);
}
#endif
#elif defined(KIND_CALL) && defined(OP_COPY)
void *KIND_CALL(void *, const void *, size_t);
#define op(d, s, n) KIND_CALL(d, s, n)
#elif defined(KIND_CALL)
void *KIND_CALL(void *, int, size_t);
#define op(d, c, n) KIND_CALL(d, c, n)
#elif defined(KIND_LIBC) && defined(OP_MOVE)
#define op(d, s, n) memmove(d, s, n)
#elif defined(KIND_LIBC) && defined(OP_COPY)
#define op(d, s, n) memcpy(d, s, n)
#elif defined(KIND_LIBC)
#define op(d, c, n) memset(d, c, n)
#elif defined(KIND_GCC) && defined(OP_COPY)
#define op(d, s, n) __builtin_memcpy(d, s, n)
#elif defined(KIND_GCC)
#define op(d, c, n) __builtin_memset(d, c, n)
#elif defined(KIND_EMPTY)
#define op(d, c, n) __asm__ __volatile__("" : : "r"(d), "r"(c), "r"(n))
#else
#error "no candidate kind"
#endif

/* A plain 8-byte load from any address: no memcpy, which -fno-builtin
 * (glibc's unit) would make a call. */
typedef uint64_t __attribute__((may_alias, aligned(1))) word_t;

/* The whole 8-byte words inside d[0..n), summed one load at a time, and
 * the last byte, as tune's read-all shape (read_back) reads them: what a
 * parser or a hash reads of what it was given, no byte past its end.
 * (Words up to n rounded up, 1-7 bytes past the end, made the last one
 * wait on stores of the next bytes too: avx512_fwd's dist-L cell 0.92x
 * glibc here against tune's 1.19x.)  The asm keeps GCC from vectorizing
 * or unrolling it differently in a unit whose flags differ, so every
 * candidate reads the same way. */
static inline uint64_t sum_words(const unsigned char *d, size_t n)
{
	uint64_t s = d[n - (n != 0)];
	size_t k;

	for (k = 0; k + 8 <= n; k += 8) {
		s += *(const word_t *)(d + k);
		__asm__("" : "+r"(s));
	}
	return s;
}

/*
 * The timing loop of every shape.  x is what the shape read of the
 * call's bytes, made zero by an `and` the compiler cannot see through:
 * the next call's destination is a real data dependency on the load, so
 * the next call cannot start its stores (nor a copy its loads through
 * the destination) until the bytes it read are there.  Back to back, x
 * is the constant 0 and the loop is the plain one.
 */
static inline __attribute__((always_inline))
void loop(const struct bench_batch *b, const int shape)
{
	unsigned char *dst = b->dst;
	const uint32_t *sizes = b->sizes;
	const uint8_t *doff = b->doff;
	size_t i, iters = b->iters;
	uint64_t x = 0;
	ARGS;

	for (i = 0; i < iters; i++) {
		size_t j = i & (BENCH_RING - 1), n = sizes[j];
		unsigned char *d = dst + doff[j] + x;

		op(d, ARG(j), n);
		/* the stores are observable: no loop may merge or drop them,
		 * and no load below may be answered from what GCC knows of
		 * them (it knows memset's bytes) */
		__asm__ __volatile__("" : : : "memory");
		if (shape == BENCH_USE)
			x = d[n - (n != 0)];	/* the last byte written */
		else if (shape == BENCH_READ)
			x = sum_words(d, n);
		else if (shape == BENCH_FIRST)
			x = d[0];
		if (shape != BENCH_B2B)
			__asm__("and $0, %0" : "+r"(x) : : "cc");
	}
}

/*
 * The loops in BENCH_NPHASE placements (bench.h): each function starts
 * on a 64-byte boundary and runs PHASE * BENCH_PHASE_BYTES bytes of NOPs,
 * once a batch, before its loop, so that the same loop code lies that
 * much further into its lines.
 */
#define SLED(p) __asm__ __volatile__(".fill " #p " * %c0, 1, 0x90"	\
				     : : "i"(BENCH_PHASE_BYTES))
#define PLACED(p, shape, fn)						\
static __attribute__((aligned(64), noinline))				\
void fn##_##p(const struct bench_batch *b)				\
{									\
	SLED(p);							\
	loop(b, shape);							\
}
#define PHASE(p)							\
	PLACED(p, BENCH_B2B, loop_b2b)					\
	PLACED(p, BENCH_USE, loop_use)					\
	PLACED(p, BENCH_READ, loop_read)					\
	PLACED(p, BENCH_FIRST, loop_first)
PHASE(0) PHASE(1) PHASE(2) PHASE(3)
_Static_assert(BENCH_NPHASE == 4, "a PHASE() and an initializer line each");
_Static_assert(BENCH_NSHAPE == 4 && BENCH_B2B == 0 && BENCH_USE == 1 &&
	       BENCH_READ == 2 && BENCH_FIRST == 3, "the initializer's order");

BENCH_LOOPS(CAT(RUN, CAND)) = {
	loop_b2b_0, loop_use_0, loop_read_0, loop_first_0,
	loop_b2b_1, loop_use_1, loop_read_1, loop_first_1,
	loop_b2b_2, loop_use_2, loop_read_2, loop_first_2,
	loop_b2b_3, loop_use_3, loop_read_3, loop_first_3,
};
