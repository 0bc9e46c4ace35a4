// SPDX-License-Identifier: MIT
/*
 * cand.c - one benchmark candidate: compiled once per candidate with
 *   -DCAND=name   the run function is bench_run_<name>
 *   -DKIND_LIBC   memset() as a real call (built with -fno-builtin, so
 *                 `call memset@plt`)
 *   -DKIND_GCC    __builtin_memset, expanded by GCC as the command line's
 *                 -minline-all-stringops -mstringop-strategy=X says
 *   -DKIND_SITE=sym  a site calling routine `sym` directly: the bytes a
 *                 patched site has (e8 rel32), the asm constraints the
 *                 plugin emits (rdi/rcx/rax in/out, memory, flags, xmm0);
 *                 built with -mno-red-zone, as the plugin makes the code
 *                 it compiles
 *   -DKIND_INLINE the inline form: `rep stosb` in place
 *   -DKIND_EMPTY  the loop alone: its overhead, included in every figure
 *   -DOP_COPY     with KIND_GCC: __builtin_memcpy instead, for copybench;
 *                 the run function is bench_copy_<name>, its second
 *                 argument the source
 * Each in its own translation unit, so no candidate's choice leaks into
 * another's code.
 */
#include <string.h>
#include "bench.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(x) #x
#define STR(x) STR_(x)

#if defined(KIND_SITE) || defined(KIND_INLINE)
#if defined(KIND_SITE)
#define SITE_INSN "call " STR(KIND_SITE)
#else
#define SITE_INSN "rep stosb"
#endif
static inline void op(unsigned char *d, int c, unsigned long n)
{
	unsigned long a = (unsigned char)c;

	__asm__ __volatile__(SITE_INSN
			     : "+D"(d), "+c"(n), "+a"(a)
			     : : "memory", "cc", "xmm0");
}
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

#ifdef OP_COPY
#define RUN bench_copy_
typedef const unsigned char *arg_t;	/* the source */
#else
#define RUN bench_run_
typedef int arg_t;			/* the fill byte */
#endif

void CAT(RUN, CAND)(unsigned char *dst, arg_t c, const uint32_t *sizes,
		    size_t iters)
{
	size_t i;

	for (i = 0; i < iters; i++) {
		op(dst, c, sizes[i & (BENCH_RING - 1)]);
		/* the stores are observable: no loop may merge or drop them */
		__asm__ __volatile__("" : : : "memory");
	}
}
