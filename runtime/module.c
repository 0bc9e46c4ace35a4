// SPDX-License-Identifier: MIT
/*
 * module.c - the module's side of the start-up: its constructor, which
 * tells the start-up (patch.c) where everything of this module is.
 *
 * In every module with sites, whichever archive it links: the stub
 * (dispatch.S) names __repstos_module_init, which pulls this file in;
 * the API (api.c) only where the module calls it.  With
 * librepstos.a the start-up is linked into the module as well; with the
 * shared runtime it is librepstos.so.0's, one per process (module.h).
 */
#include "module.h"
#include "routines.h"
#include "profrun.h"

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * What only some links have, referred to weakly (NULL when absent): the
 * copy routines, pulled in by the copy stub where the module has copy
 * sites (dispatch.S); and the dispatch page, which a module linked with
 * the shared runtime does without.
 */
#define WEAK(sym) _Pragma(REPSTOS_STR(weak sym))
#define REPSTOS_X_WEAK(e, name, sym, needs) WEAK(sym)
REPSTOS_COPY_VARIANTS(REPSTOS_X_WEAK)
#undef REPSTOS_X_WEAK
WEAK(REPSTOS_COPY_STUB_SYMBOL)
WEAK(REPSTOS_TARGET_SYMBOL)
WEAK(REPSTOS_COPY_TARGET_SYMBOL)
WEAK(__repstos_dispatch_page)

/* What the profiling routine (record.S) reads: this module's slots.
 * aligned(8), here and below: GCC would give a struct of 32 bytes or
 * more 32, and every module would carry the padding. */
#define NO_PAD __attribute__((aligned(8)))
HIDDEN NO_PAD struct repstos_prof __repstos_prof;

/* This module's, for the API (api.c). */
NO_PAD struct repstos_stats __repstos_module_stats = { .method = "" };
void *__repstos_module_handle;

static void describe(struct repstos_module *m)
{
	*m = (struct repstos_module){
		.abi = REPSTOS_MODULE_ABI,
		.size = sizeof(*m),
		.begin = REPSTOS_SITES_START,
		.end = REPSTOS_SITES_STOP,
		.info = &REPSTOS_MODULE_SYMBOL,
		.stats = &__repstos_module_stats,
		.prof = &__repstos_prof,
		.profile = (void *)__repstos_profile,
		.set_stub = (void *)REPSTOS_STUB_SYMBOL,
		.copy_stub = (void *)REPSTOS_COPY_STUB_SYMBOL,
#define REPSTOS_X_ADDR(e, name, sym, needs) [REPSTOS_VARIANT_##e] = (void *)sym,
		.set_routine = { REPSTOS_VARIANTS(REPSTOS_X_ADDR) },
#undef REPSTOS_X_ADDR
#define REPSTOS_X_ADDR(e, name, sym, needs) [REPSTOS_COPY_VARIANT_##e] = (void *)sym,
		.copy_routine = { REPSTOS_COPY_VARIANTS(REPSTOS_X_ADDR) },
#undef REPSTOS_X_ADDR
		.vec_rep_min = &__repstos_vec_rep_min,
		.wide_rep_min = &__repstos_wide_rep_min,
		.copy_rep_min = &__repstos_copy_rep_min,
		.copy_nt_min = &__repstos_copy_nt_min,
		.can_avx2 = &__repstos_can_avx2,
		.can_avx512 = &__repstos_can_avx512,
		.dispatch_page = __repstos_dispatch_page,
		.set_target = &REPSTOS_TARGET_SYMBOL,
		.copy_target = &REPSTOS_COPY_TARGET_SYMBOL,
	};
}

/* Priority 101, the first a program may use: the sites should be final
 * before any other constructor of this module calls one, which also keeps
 * Valgrind exact (it has translated no site yet). */
__attribute__((constructor(101))) HIDDEN void __repstos_module_init(void)
{
	struct repstos_module m;

	describe(&m);
	__repstos_module_handle = __repstos_attach(&m);
}
