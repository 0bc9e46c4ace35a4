// SPDX-License-Identifier: MIT
/*
 * patch.c - a module's start-up: recording sizes (REPSTOS_PROFILE), the
 * stubs' jumps and the sites written run by run, and configuring the
 * process once (startup.h has the whole picture).
 */
#define _GNU_SOURCE
#include "startup.h"

struct repstos_cpu cpu;
static unsigned hw_features;	/* cpu's before REPSTOS_CPU (read_config) */
struct config cfg;
struct tables *tab;		/* set once configured */
unsigned attached;		/* modules started and not yet gone */

/* ---- recording sizes (REPSTOS_PROFILE) -------------------------------- */

/* REPSTOS_PROFILE names path, and this module's sizes cannot be
 * recorded: one line, whatever REPSTOS_DEBUG says, as nothing will be
 * written at exit either. */
STARTUP_FN void not_recorded(const char *path, const char *name, const char *why)
{
	fprintf(stderr, "repstos: %s: profile of %s not recorded: %s\n",
		path, name, why);
}

#if REPSTOS_PROFILES
/* The profile installed for this module, if there is one it can use. */
static void read_profile(struct module *mod)
{
	struct repstos_prof_rows rows = { NULL, NULL };
	const char *why = NULL;

	if (mod->begin == mod->end)
		return;
	if (repstos_prof_load(mod->begin, mod->end, &rows, &mod->profile,
			      &why) < 0 && cfg.debug)
		fprintf(stderr, "repstos: %s: profile %s ignored: %s\n",
			module_name(mod), mod->profile ? mod->profile : "?", why);
	mod->hist = rows.hist;
	mod->pin = rows.pin;
}

/* What a profiled site goes on to run: what it would run unprofiled
 * (for the inline form, its called form: rep stosb, or for a copy site
 * rep movsb after the overlap check, which every copy op may take). */
static void *profiled_routine(const struct module *mod,
			      const struct repstos_family *f,
			      const struct repstos_site *e,
			      enum repstos_form form, uintptr_t target)
{
	if (form == REPSTOS_FORM_INLINE)
		return (void *)routine_of(mod, f, f->inline_form);
	if (target != stub_of(mod, f) && !unrunnable(mod, f, target))
		return (void *)target;
	return (void *)routine_of(mod, f, choice(mod, f, e).form);
}

/* Give every site the runtime may rewrite a slot, before any calls the
 * profiling routine. */
static void start_recording(struct module *mod)
{
	const struct repstos_site *b = mod->begin, *end = mod->end, *e;
	const struct repstos_family *f;
	struct repstos_recorder *rec;
	enum repstos_form form;
	uintptr_t target;

	rec = repstos_prof_begin(cfg.record, mod->stats->sites);
	if (!rec) {
		not_recorded(cfg.record, module_name(mod),
			     strerror(errno ? errno : ENOMEM));
		return;
	}
	mod->record = 1;
	for (e = b; e < end; e++) {
		f = repstos_family_of(e->op);
		if (!site_form(mod, f, e, &form, &target))
			repstos_prof_site(rec, (unsigned)(e - b),
					  repstos_site_addr(e),
					  profiled_routine(mod, f, e, form, target));
	}
	if (repstos_prof_ready(rec, mod->prof,
			       (void *)mod->fam[REPSTOS_FAMILY_SET].routine[
					module_variant(mod, REPSTOS_FAMILY_SET)],
			       (void *)mod->fam[REPSTOS_FAMILY_COPY].routine[
					module_variant(mod, REPSTOS_FAMILY_COPY)],
			       repstos_table_hash(b, end), module_name(mod))) {
		not_recorded(cfg.record, module_name(mod),
			     strerror(errno ? errno : ENOMEM));
		mod->record = 0;
		return;
	}
	mod->rec = rec;
}

/* Can this module's sites call a profiling routine of its own? */
static int can_record(const struct module *mod)
{
	int c;

	for (c = 0; c < 2; c++)
		if (mod->fam[c].stub && !mod->fam[c].profile)
			return 0;
	return mod->prof != NULL;
}
#endif

/* Where size profiles are not linked: one line for a profile asked
 * to be recorded, as where one cannot be. */
#define NO_PROFILES "size profiles " NOT_LINKED

static void read_profiles(struct module *mod)
{
#if REPSTOS_PROFILES
	read_profile(mod);
	if (cfg.record && mod->stats->sites) {	/* something to count */
		if (can_record(mod))
			start_recording(mod);
		else
			not_recorded(cfg.record, module_name(mod), NO_PROFILES);
	}
#else
	const char *use = secure_getenv("REPSTOS_PROFILE_USE");

	if (cfg.record && mod->stats->sites)
		not_recorded(cfg.record, module_name(mod), NO_PROFILES);
	if (use && *use && cfg.debug && mod->stats->sites)
		fprintf(stderr, "repstos: %s: profile %s ignored: %s\n",
			module_name(mod), use, NO_PROFILES);
#endif
}

static const char *route_name(const struct writer *w)
{
	if (w->mprotect_ok)
		return "mprotect";
	if (w->mem_errno)
		return "";
	return "/proc/self/mem";
}

/* What a family's stub goes on to: the routine every unknown site of
 * the family gets, or while recording the profiling routine; 0 for a
 * family the module has no stub or no such routine of.  *choice: the
 * byte that sends the stub's fallback there (dispatch.S). */
static uintptr_t stub_routine(const struct module *mod, int c, unsigned *choice)
{
	const struct family *f = &mod->fam[c];
	unsigned v = (unsigned)module_variant(mod, c);

	if (!f->stub || v >= f->n || !f->routine[v])
		return 0;
	*choice = RECORDING(mod) ? f->profile_choice : v;
	return RECORDING(mod) ? f->profile : f->routine[v];
}

/* Rewrite the stubs' jumps like sites, where text may be written: the
 * stubs then go straight to the routine, and no data is read on the
 * way.  Where it cannot be written the byte (set_choices) still says.
 * Not a stub without a byte: a shared-runtime module's goes on through
 * the GOT to the shared stub, read-only all the way, and rewriting it
 * would cost every module of the process one more write. */
static void patch_stubs(struct module *mod)
{
	uint8_t want[REPSTOS_CALL_LEN];
	unsigned choice;
	uintptr_t to, at;
	int c, beside;

	for (c = 0; c < 2; c++) {
		at = (uintptr_t)mod->fam[c].jump;
		if (!at || !mod->fam[c].choice || *(const uint8_t *)at != 0xe9 ||
		    !(to = stub_routine(mod, c, &choice)) ||
		    repstos_encode_call(want, REPSTOS_CALL_LEN, at, to))
			continue;
		want[0] = 0xe9;			/* jmp rel32 */
		write_text(&mod->writer, at, want, sizeof(want), &beside);
	}
}

STARTUP_FN void patch_sites(struct module *mod)
{
	uint8_t small[4 * REPSTOS_SITE_MAX_LEN];
	struct run run = { .max = RUN_MAX };
	struct writer *w = &mod->writer;
	const struct repstos_site *e;

	w->fd = -1;
	w->allowed = cfg.route;
	if (cfg.route != ROUTE_OFF)
		w->crowded = crowded();
	w->page_mask = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) - 1 : 4095;
	w->last_page = ~(uintptr_t)0;
	if (!(run.buf = malloc(RUN_MAX)))
		run.buf = small, run.max = sizeof(small);
#if REPSTOS_PROFILES
	if (mod->hist)		/* none: every site is chosen without it */
		row_picks = calloc(ROW_PICKS, sizeof(*row_picks));
#endif
	for (e = mod->begin; e < mod->end; e++)
		patch_site(mod, &run, e);
#if REPSTOS_PROFILES
	free(row_picks);
	row_picks = NULL;
#endif
	flush_run(mod, &run);
	if (run.buf != small)
		free(run.buf);
	if (cfg.route != ROUTE_OFF && !(mod->info->flags & REPSTOS_MOD_STATIC))
		patch_stubs(mod);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	mod->stats->status = w->unwritten && !mod->stats->patched ?
			     REPSTOS_ST_REFUSED : REPSTOS_ST_PATCHED;
	mod->stats->method = mod->stats->patched ? route_name(w) : "";
}


/* ---- start-up --------------------------------------------------------- */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* What the module's routines read: the thresholds and what this CPU can
 * run.  Before any site is pointed at them.  A module from before the
 * masks bit tests its byte against 0: under a REPSTOS_CPU without
 * AVX-512 on hardware with it, the bit alone lets it run its AVX-512
 * routines, which store the same bytes on that hardware. */
static void set_routines(const struct module *mod)
{
	const struct repstos_tuning *t = &tab->tuning;

	__atomic_store_n(mod->vec_rep_min, t->vec_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(mod->wide_rep_min, t->wide_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(mod->copy_rep_min, t->copy_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(mod->copy_nt_min, t->copy_nt_min, __ATOMIC_RELAXED);
	if (mod->short_rep_max)	/* NULL: a module of ABI 2 */
		__atomic_store_n(mod->short_rep_max, t->short_rep_max,
				 __ATOMIC_RELAXED);
	repstos_routines_enable(&cpu, hw_features, mod->can_avx2,
				mod->can_avx512);
}

/* The stubs' bytes, where their fallback reads one: which routine it
 * goes on to (the profiling routine while recording, the last of the
 * record).  The copy stub serves move sites too: every copy routine,
 * "inline"'s called form included, handles overlap. */
static void set_choices(const struct module *mod)
{
	unsigned choice;
	int c;

	for (c = 0; c < 2; c++)
		if (mod->fam[c].choice && stub_routine(mod, c, &choice))
			__atomic_store_n(mod->fam[c].choice, choice,
					 __ATOMIC_RELEASE);
}

static int is_static(const struct module *mod)
{
	return (mod->info->flags & REPSTOS_MOD_STATIC) != 0;
}

/* The process's choice: once, whichever module starts first; -1 where
 * there is no memory for it.  Kept while a module is attached, so that
 * with librepstos.a in a library loaded and unloaded over and over it
 * is gone with the library.  With size profiles linked it needs no
 * heap (a profile that cannot be recorded for want of memory still
 * says so, tests/policy/lost.sh); without, every module of the
 * archive would carry the tuning tables in its .bss. */
#if REPSTOS_PROFILES
static struct tables tables;
#endif

STARTUP_FN int configure(void)
{
	if (tab)
		return 0;
#if REPSTOS_PROFILES
	memset(&tables, 0, sizeof(tables));
	tab = &tables;
#else
	if (!(tab = calloc(1, sizeof(*tab))))
		return -1;
#endif
	memset(&cfg, 0, sizeof(cfg));
	repstos_cpu_detect(&cpu);
	hw_features = cpu.features;
	read_config(&cfg);
	return 0;
}

STARTUP_FN void unconfigure(void)
{
#if !REPSTOS_PROFILES
	free(tab);
#endif
	tab = NULL;
}

STARTUP_FN void start(struct module *mod)
{
	unsigned long long t0 = now_ns();

	mod->stats->sites = (unsigned)(mod->end - mod->begin);
	find_narrow(mod);
	read_profiles(mod);
	set_routines(mod);
	set_choices(mod);
	if (cfg.route == ROUTE_OFF && !is_static(mod)) {
		mod->stats->status = REPSTOS_ST_DISABLED;
	} else {
		unsigned long long t1 = now_ns();

		/* A static file's sites are all someone else's choice: the
		 * walk only rescues calls of routines this CPU lacks (with
		 * text patching off, it only counts them). */
		patch_sites(mod);
		mod->stats->patch_nsec = now_ns() - t1;
		if (is_static(mod) && !RECORDING(mod))
			mod->stats->status = REPSTOS_ST_STATIC;
	}
	mod->stats->tuning = tab->tuning.source;
	mod->stats->nsec = now_ns() - t0;
	if (cfg.debug)
		report(mod);
}
