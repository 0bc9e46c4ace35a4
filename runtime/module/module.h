/* SPDX-License-Identifier: MIT */
/*
 * module.h - what a module hands the start-up: where its sites, stubs,
 * routines and the routines' settings are.
 *
 * Every module with sites has a module side (module.c: the constructor,
 * the stub, the routines, the record) and needs a start-up (patch.c:
 * CPU detection, the policy, the tuning file, profiles, the text
 * writer).  With librepstos.a both are in the module; with the shared
 * runtime (librepstos.so.0) each module carries only its side and one
 * start-up serves the whole process, so CPUID and the tuning file are
 * read once however many modules it maps.
 *
 * The constructor builds this on its stack from hidden symbols (no data,
 * no relocations in the module) and passes it to __repstos_attach, which
 * copies it; the module's last destructor lets go of it
 * (__repstos_detach), so that a module loaded and unloaded over and over
 * leaves nothing behind.  Between a module and librepstos.so.0 this is
 * an ABI: abi and size say which; a start-up that does not know them
 * leaves the module's sites calling the stub, which is correct
 * everywhere.
 */
#ifndef REPSTOS_MODULE_H
#define REPSTOS_MODULE_H

#include "repstos.h"
#include "policy/profile.h"

/* 2: copy_profile, and struct repstos_prof's copy_fallback;
 * 3: short_rep_max, and __repstos_detach (the start-up takes 2 too) */
#define REPSTOS_MODULE_ABI 3

struct repstos_module {
	unsigned abi;			/* REPSTOS_MODULE_ABI */
	unsigned size;			/* sizeof(struct repstos_module) */
	const struct repstos_site *begin, *end;	/* its table */
	const volatile struct repstos_module_info *info; /* its record */
	struct repstos_stats *stats;	/* filled by the start-up */
	struct repstos_prof *prof;	/* what its profiling routine reads */
	void *profile;			/* __repstos_profile */
	void *copy_profile;		/* __repstos_copy_profile */
	void *set_stub;
	void *copy_stub;		/* NULL: no copy sites, and the
					 * copy routines are not looked at */
	void *set_routine[REPSTOS_VARIANT_COUNT];
	void *copy_routine[REPSTOS_COPY_VARIANT_COUNT];
	/* The settings its routines read (routines.h). */
	unsigned long long *vec_rep_min, *wide_rep_min;
	unsigned long long *copy_rep_min, *copy_nt_min;
	unsigned char *can_avx2, *can_avx512;
	/* Its dispatch page and the stubs' targets on it; NULL where the
	 * stubs jump through the shared runtime's page instead. */
	char *dispatch_page;
	void **set_target, **copy_target;
	/* ABI 3: "stosb_avx2"'s threshold (routines.h) */
	unsigned long long *short_rep_max;
};

/* The module side's own symbols (module.c, api.c, dispatch.S, record.S).
 * The table's bounds are defined in every module module.c is linked
 * into: the stubs' objects define the section, empty, and keep the
 * bounds out of the dynamic symbol table (dispatch.S). */
extern const struct repstos_site REPSTOS_SITES_START[] REPSTOS_HIDDEN;
extern const struct repstos_site REPSTOS_SITES_STOP[] REPSTOS_HIDDEN;
extern const volatile struct repstos_module_info REPSTOS_MODULE_SYMBOL REPSTOS_HIDDEN;
extern struct repstos_stats __repstos_module_stats REPSTOS_HIDDEN;
extern void *__repstos_module_handle REPSTOS_HIDDEN;	/* the start-up's */

/* The start-up's side (patch.c); in librepstos.so.0, the few names a
 * module binds to.  attach gives a handle for the calls below, or NULL;
 * detach, from the module's last destructor, lets go of it. */
#ifdef REPSTOS_SHARED
#define REPSTOS_EXPORT __attribute__((visibility("default")))
#else
#define REPSTOS_EXPORT REPSTOS_HIDDEN
#endif
REPSTOS_EXPORT void *__repstos_attach(const struct repstos_module *m);
REPSTOS_EXPORT void __repstos_detach(void *handle);
REPSTOS_EXPORT const struct repstos_cpu *__repstos_process_cpu(void);
REPSTOS_EXPORT enum repstos_variant __repstos_process_variant(void);
REPSTOS_EXPORT enum repstos_copy_variant __repstos_process_copy_variant(void);
REPSTOS_EXPORT enum repstos_variant
__repstos_module_site_variant(void *handle, const struct repstos_site *e);

#endif
