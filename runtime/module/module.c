// SPDX-License-Identifier: MIT
/*
 * module.c - the module's side of the start-up: its constructor, which
 * tells the start-up (attach.c) where everything of this module is, and
 * its destructor, which tells it the module is going.
 *
 * In every module with sites, whichever archive it links: each stub
 * (dispatch.S) names __repstos_module_init, which pulls this file in;
 * the API (api.c) only where the module calls it.  With
 * librepstos.a the start-up is linked into the module as well; with the
 * shared runtime it is librepstos.so.0's, one per process (module.h).
 * What it hands over is constant data (record.S), so the constructor is
 * one call.
 */
#include "module.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* Weak: a librepstos.so.0 from before modules handed theirs back lacks
 * it, and a module must still load with it. */
#pragma weak __repstos_detach

/* This module's, for the API (api.c).  aligned(8): GCC would give a
 * struct of 32 bytes or more 32, and every module would carry the
 * padding. */
__attribute__((aligned(8))) struct repstos_stats __repstos_module_stats = {
	.method = ""
};
void *__repstos_module_handle;

/* Priority 101, the first a program may use: the sites should be final
 * before any other constructor of this module calls one, which also keeps
 * Valgrind exact (it has translated no site yet). */
__attribute__((constructor(101))) HIDDEN void __repstos_module_init(void)
{
	__repstos_module_handle = __repstos_attach(&__repstos_module_desc);
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
