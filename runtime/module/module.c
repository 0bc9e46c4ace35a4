// SPDX-License-Identifier: MIT
/*
 * module.c - the module's side of the start-up: its constructor, which
 * tells the start-up (patch.c) where everything of this module is, and
 * its destructor, which tells it the module is going.
 *
 * In every module with sites, whichever archive it links: the stub
 * (dispatch.S) names __repstos_module_init, which pulls this file in;
 * the API (api.c) only where the module calls it.  With
 * librepstos.a the start-up is linked into the module as well; with the
 * shared runtime it is librepstos.so.0's, one per process (module.h).
 */
#include "module.h"
#include "routines/routines.h"
#include "startup/profrun.h"

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * What only some links have, referred to weakly (NULL when absent): the
 * copy routines and the copy profiling routine, pulled in by the copy
 * stub where the module has copy sites (dispatch.S); and the dispatch
 * page, which a module linked with the shared runtime does without.
 */
#define WEAK(sym) _Pragma(REPSTOS_STR(weak sym))
#define REPSTOS_X_WEAK(e, name, sym, needs) WEAK(sym)
REPSTOS_COPY_VARIANTS(REPSTOS_X_WEAK)
#undef REPSTOS_X_WEAK
WEAK(__repstos_copy_profile)
WEAK(REPSTOS_COPY_STUB_SYMBOL)
WEAK(REPSTOS_TARGET_SYMBOL)
WEAK(REPSTOS_COPY_TARGET_SYMBOL)
WEAK(__repstos_dispatch_page)
/* Weak too: a librepstos.so.0 from before modules handed theirs back
 * lacks it, and a module must still load with it. */
WEAK(__repstos_detach)

/* What the profiling routine (record.S) reads: this module's slots.
 * aligned(8), here and below: GCC would give a struct of 32 bytes or
 * more 32, and every module would carry the padding. */
#define NO_PAD __attribute__((aligned(8)))
HIDDEN NO_PAD struct repstos_prof __repstos_prof;

/* This module's, for the API (api.c). */
NO_PAD struct repstos_stats __repstos_module_stats = { .method = "" };
void *__repstos_module_handle;

/*
 * Field by field, on the constructor's stack: as one compound literal,
 * which once the description passed 256 bytes GCC built by copying an
 * image of it from .data, every module carried that image (264 bytes)
 * and its relocations (bench/footprint.sh caught it).
 */
static void describe(struct repstos_module *m)
{
	m->abi = REPSTOS_MODULE_ABI;
	m->size = sizeof(*m);
	m->begin = REPSTOS_SITES_START;
	m->end = REPSTOS_SITES_STOP;
	m->info = &REPSTOS_MODULE_SYMBOL;
	m->stats = &__repstos_module_stats;
	m->prof = &__repstos_prof;
	m->profile = (void *)__repstos_profile;
	m->copy_profile = (void *)__repstos_copy_profile;
	m->set_stub = (void *)REPSTOS_STUB_SYMBOL;
	m->copy_stub = (void *)REPSTOS_COPY_STUB_SYMBOL;
#define REPSTOS_X_ADDR(e, name, sym, needs) \
	m->set_routine[REPSTOS_VARIANT_##e] = (void *)sym;
	REPSTOS_VARIANTS(REPSTOS_X_ADDR)
#undef REPSTOS_X_ADDR
#define REPSTOS_X_ADDR(e, name, sym, needs) \
	m->copy_routine[REPSTOS_COPY_VARIANT_##e] = (void *)sym;
	REPSTOS_COPY_VARIANTS(REPSTOS_X_ADDR)
#undef REPSTOS_X_ADDR
	m->vec_rep_min = &__repstos_vec_rep_min;
	m->wide_rep_min = &__repstos_wide_rep_min;
	m->copy_rep_min = &__repstos_copy_rep_min;
	m->copy_nt_min = &__repstos_copy_nt_min;
	m->can_avx2 = &__repstos_can_avx2;
	m->can_avx512 = &__repstos_can_avx512;
	m->dispatch_page = __repstos_dispatch_page;
	m->set_target = &REPSTOS_TARGET_SYMBOL;
	m->copy_target = &REPSTOS_COPY_TARGET_SYMBOL;
	m->short_rep_max = &__repstos_short_rep_max;
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

/* Priority 101 here too, the last of this module's destructors: its
 * other destructors' calls are still counted, and after this nothing of
 * it is left in the start-up (a dlclose()d module's handle would dangle,
 * and its profile would be lost or written once a cycle).  The handle
 * goes first, so that a late call of the API asks as if there were none. */
__attribute__((destructor(101))) HIDDEN void __repstos_module_fini(void)
{
	void *handle = __repstos_module_handle;

	__repstos_module_handle = NULL;
	if (handle && __repstos_detach)
		__repstos_detach(handle);
}
