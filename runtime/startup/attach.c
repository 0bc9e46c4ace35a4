// SPDX-License-Identifier: MIT
/*
 * attach.c - what a module hands over (its description, ABI 4, or ABI
 * 2 and 3 in the shared runtime), __repstos_attach and __repstos_detach,
 * and the API's backends (api.c).
 */
#define _GNU_SOURCE
#include "startup.h"

/* ---- what a module hands over ------------------------------------------ */

/* Its description (ABI 4, abi.h): the families its dispatch records
 * name, and the rest.  0, or -1 when it is not one this start-up knows. */
STARTUP_FN int take(struct module *mod, const struct repstos_module_desc *d)
{
	const struct repstos_dispatch *r;
	unsigned i, n;

	if (d->abi != REPSTOS_MODULE_ABI || d->size != sizeof(*d))
		return -1;
	for (i = 0; i < REPSTOS_DESC_PLACES; i++)
		mod->place[i] = repstos_rel_addr(&d->place[i]);
	for (r = mod->dispatch; r && r < mod->dispatch_end;
	     r = repstos_dispatch_next(r)) {
		struct family *f = &mod->fam[r->copy & 1];

		if (r->copy > 1)	/* a family newer than this start-up */
			continue;
		n = r->copy ? REPSTOS_COPY_VARIANT_COUNT : REPSTOS_VARIANT_COUNT;
		f->n = r->n < n ? r->n : n;	/* a newer module's extra
						 * routines: not known here */
		f->stub = (uintptr_t)repstos_rel_addr(&r->stub);
		f->jump = (uint8_t *)f->stub + r->jmp;
		f->choice = repstos_rel_addr(&r->choice);
		for (i = 0; i < f->n; i++)
			f->routine[i] = (uintptr_t)repstos_rel_addr(&r->routine[i]);
		f->profile = (uintptr_t)repstos_rel_addr(&r->routine[r->n]);
		f->profile_choice = r->n;
	}
	return mod->stats && mod->fam[0].stub + mod->fam[1].stub ? 0 : -1;
}

#ifdef REPSTOS_SHARED
/* The description of a module of ABI 2 or 3, as their constructors
 * built it (abi.h): a module of the shared runtime from before ABI 4,
 * whose stubs jump through the GOT to the shared ones and are not ours
 * to rewrite.  One of ABI 2 (before short_rep_max) is the same up to it. */
static int take_v3(struct module *mod, const struct repstos_module_v3 *m)
{
	unsigned v;

	if (!((m->abi == 3 && m->size == sizeof(*m)) ||
	      (m->abi == 2 && m->size == offsetof(struct repstos_module_v3,
						  short_rep_max))) ||
	    !m->stats || !m->set_stub)
		return -1;
	mod->begin = m->begin;
	mod->end = m->end;
	mod->info = m->info;
	mod->stats = m->stats;
	mod->prof = m->prof;
	mod->vec_rep_min = m->vec_rep_min;
	mod->wide_rep_min = m->wide_rep_min;
	mod->short_rep_max = m->abi == 3 ? m->short_rep_max : NULL;
	mod->copy_rep_min = m->copy_rep_min;
	mod->copy_nt_min = m->copy_nt_min;
	mod->can_avx2 = m->can_avx2;
	mod->can_avx512 = m->can_avx512;
	mod->fam[0].stub = (uintptr_t)m->set_stub;
	mod->fam[0].profile = (uintptr_t)m->profile;
	mod->fam[0].n = REPSTOS_V3_VARIANTS;
	for (v = 0; v < REPSTOS_V3_VARIANTS; v++)
		mod->fam[0].routine[v] = (uintptr_t)m->set_routine[v];
	if (m->copy_stub) {
		mod->fam[1].stub = (uintptr_t)m->copy_stub;
		mod->fam[1].profile = (uintptr_t)m->copy_profile;
		mod->fam[1].n = REPSTOS_V3_COPY_VARIANTS;
		for (v = 0; v < REPSTOS_V3_COPY_VARIANTS; v++)
			mod->fam[1].routine[v] = (uintptr_t)m->copy_routine[v];
	}
	return 0;
}
#endif

/* Does the start-up know the module's description?  A module built
 * against a newer runtime than the shared one loaded keeps its sites
 * calling the stub: correct, one jump slower. */
static int take_any(struct module *mod, const void *desc)
{
#ifdef REPSTOS_SHARED
	const unsigned *abi = desc;

	if (*abi == 2 || *abi == 3)
		return take_v3(mod, desc);
#endif
	return take(mod, desc);
}

/* No memory even to start a module: its sites stay calls of the stub,
 * correct; a profile being recorded says what it misses.  Before the
 * configuration is read: REPSTOS_PROFILE as read_config() reads it. */
static void not_started(const struct module *mod)
{
#if REPSTOS_PROFILES
	const char *path = secure_getenv("REPSTOS_PROFILE");

	if (path && *path)
		not_recorded(path, module_name(mod), strerror(ENOMEM));
#endif
}

static void free_module(struct module *mod)
{
#if REPSTOS_PROFILES
	free(mod->hist);
	free(mod->pin);
	free(mod->profile);
#endif
	free(mod);
}

/*
 * A module's constructor (module.c) hands it over: run in the loader's
 * order, one at a time (the dynamic loader holds its lock through
 * constructors and destructors, dlopen()'s and dlclose()'s included).
 * The module stays known for the API calls below until its destructor
 * lets go (__repstos_detach).  Every module's state is on the heap, and
 * goes with it.
 */
void *__repstos_attach(const void *desc)
{
	struct module m = { .hist = NULL }, *mod;

	if (take_any(&m, desc))
		return NULL;
	if (!(mod = malloc(sizeof(*mod))) || configure()) {
		not_started(&m);
		free(mod);
		return NULL;
	}
	*mod = m;
	attached++;
	start(mod);
	return mod;
}

/* The module goes (its last destructor, at exit or dlclose()): its
 * section is written and its state freed.  Its sites are not touched:
 * at exit other threads may still call them, and they stay correct. */
void __repstos_detach(void *handle)
{
	struct module *mod = handle;

	if (!mod)
		return;
#if REPSTOS_PROFILES
	if (mod->rec)
		repstos_prof_end(mod->rec);
#endif
	free_module(mod);
	if (!--attached)
		unconfigure();
}


/* ---- the API's backends (api.c) --------------------------------------- */

const struct repstos_cpu *__repstos_process_cpu(void)
{
	configure();
	return &cpu;
}

enum repstos_variant __repstos_process_variant(void)
{
	return configure() ? REPSTOS_VARIANT_ORIGINAL :
	       (enum repstos_variant)cfg.mods.fam[REPSTOS_FAMILY_SET].variant;
}

enum repstos_copy_variant __repstos_process_copy_variant(void)
{
	return configure() ? REPSTOS_COPY_VARIANT_ORIGINAL :
	       (enum repstos_copy_variant)cfg.mods.fam[REPSTOS_FAMILY_COPY].variant;
}

enum repstos_variant __repstos_module_site_variant(void *handle,
						   const struct repstos_site *e)
{
	if (configure())
		return REPSTOS_VARIANT_ORIGINAL;
	return (enum repstos_variant)choice(handle, repstos_family_of(e->op), e).form;
}
