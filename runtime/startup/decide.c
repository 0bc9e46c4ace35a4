// SPDX-License-Identifier: MIT
/*
 * decide.c - each site's form, from the policy (repstos_policy_form),
 * and the bytes it should have; what a site holds now, and whether it
 * is ours to write.
 */
#define _GNU_SOURCE
#include "startup.h"

/* ---- deciding --------------------------------------------------------- */

/* The module's part of the family of a site of op. */
static struct family *family_of(const struct module *mod, unsigned op)
{
	return (struct family *)&mod->fam[repstos_family_of(op)->id];
}

/*
 * The module's own routines, by variant and back: a site calls a
 * routine of its module (a rel32 call reaches no further), so every
 * address here is the module's, as it described itself.
 */
STARTUP_FN uintptr_t routine_of(const struct module *mod, unsigned op, int v)
{
	return family_of(mod, op)->routine[v];
}

static int variant_by_routine(const struct module *mod, unsigned op,
			      uintptr_t target)
{
	const struct family *f = family_of(mod, op);
	int v;

	for (v = 0; target && v < (int)f->n; v++)
		if (f->routine[v] == target)
			return v;
	return -1;
}

/* The stub a site of op calls as the compiler left it. */
STARTUP_FN uintptr_t stub_of(const struct module *mod, unsigned op)
{
	return family_of(mod, op)->stub;
}

/* The policy's form for site e, from the profile row h (or NULL). */
static int policy_form(const struct repstos_modules *m,
		       const struct repstos_site *e, const unsigned long long *h)
{
#if REPSTOS_PROFILES
	return repstos_policy_form(&tab->tuning, m, e, h);
#else
	/* without the profile's part, which is not linked here */
	(void)h;
	return repstos_policy_form_sized(&tab->tuning, m, e);
#endif
}

#if REPSTOS_PROFILES
/*
 * The same for a site with calls in an installed profile: its form
 * depends on its family (and op: copy or move), its narrowness and its
 * row of counts, not on its range, and weighing every form over a row
 * took 100,000 profiled sites 172 ms at start-up on the Zen 4, against
 * 5.7 ms without the profile (and 10 ms with this table).  Many sites see the very same counts (a
 * call or two of one size), so each row is weighed once: a direct-mapped
 * table, found by a mix of the counts and compared whole, kept while one
 * module's sites are walked (patch_sites) and only when it has a profile.
 */
struct row_pick *row_picks;	/* patch_sites sets it, a module at a time */

static int row_choice(const struct repstos_modules *m,
		      const struct repstos_site *e,
		      const unsigned long long *h, unsigned kind)
{
	unsigned long long mix = kind;
	struct row_pick *p;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		mix = (mix ^ h[c]) * 0x100000001b3ull;
	p = &row_picks[(mix ^ mix >> 29) % ROW_PICKS];
	if (p->key != kind + 1 || memcmp(p->h, h, sizeof(p->h))) {
		memcpy(p->h, h, sizeof(p->h));
		p->key = (unsigned char)(kind + 1);
		p->v = (unsigned char)policy_form(m, e, h);
	}
	return p->v;
}
#endif

/*
 * The policy's form for a site (repstos_policy_form), a variant of its
 * family, from its installed profile if any: its pin where the policy
 * lets it have it (repstos_policy_pinned), else its row; a row without
 * calls chooses as no profile does.  A copy site's "inline" is rep movsb in
 * place only where its op allows it (wanted_bytes); elsewhere it calls
 * the overlap-checking routine.
 *
 * With a cost table, the form for a site of known size depends only on
 * its family, its entry version and the size classes its range spans,
 * and finding it weighs every form over those classes: 10,000 bounded
 * sites took 4.5 ms at start-up on the Zen 4.  A program has many sites
 * and few ranges, so each range is asked once per family (set; copy;
 * move, which may not take rep movsb in place) and narrowness, for
 * every module of the process (tab->picks: 0 not asked yet, else the
 * variant + 1).
 */
STARTUP_FN int choice(const struct module *mod, const struct repstos_site *e,
		  const char **why)
{
	const struct repstos_family *f = repstos_family_of(e->op);
	const unsigned long long *h = mod && HIST(mod) ? HIST(mod)[e - mod->begin] :
						  NULL;
	const struct repstos_modules *m = &cfg.mods;
	/* set; copy that may go inline; move that may not */
	unsigned kind = f->id == REPSTOS_FAMILY_SET ? 0 :
			repstos_family_inline_ok(f, e->op) ? 1 : 2;
	int narrow = repstos_version_narrow(e->version);
	int forced = m->fam[f->id].forced;
	unsigned char *pick;

#if REPSTOS_PROFILES
	int v;

	/* pinned sites are few: chosen one by one, past the caches */
	if (mod && PINS(mod) && (v = repstos_policy_pinned(m, &cpu, e,
						PINS(mod)[e - mod->begin])) >= 0) {
		*why = "pinned by the size profile";
		return v;
	}
	if (h && !repstos_profile_calls(h))
		h = NULL;
#endif
	*why = h ? "the size profile's counts" :
	       forced ? "REPSTOS_VARIANT" :
	       repstos_site_kind(e) == REPSTOS_SIZE_UNKNOWN ? "size unknown: the process's routine" :
	       !cfg.cost_forms[f->id] ? "the rule for this CPU (no cost table row)" :
	       "the cost table over the site's sizes";
#if REPSTOS_PROFILES
	/* a row read back may choose otherwise (repstos_policy_form) */
	if (h && row_picks && !forced)
		return row_choice(m, e, h, (kind * 2 + (unsigned)narrow) * 2 +
				  !!(repstos_site_use(e) & REPSTOS_USE_READ));
#endif
	/* a site whose bytes are read back may choose otherwise than the
	 * range's others (repstos_policy_form): asked on its own */
	if (h || forced || repstos_site_kind(e) == REPSTOS_SIZE_UNKNOWN ||
	    !cfg.cost_forms[f->id] || repstos_site_use(e))
		return policy_form(m, e, h);
	pick = &tab->picks[narrow][kind][repstos_size_class(e->size_min)]
			  [repstos_size_class(e->size_max)];
	if (!*pick)
		*pick = 1 + (unsigned char)policy_form(m, e, NULL);
	return *pick - 1;
}

/* The process's routine for sites of unknown size, as this module's
 * stubs may call it: a stub serves every site of its family, narrow
 * ones too. */
STARTUP_FN int module_variant(const struct module *mod, enum repstos_family_id f)
{
	int v = cfg.mods.fam[f].variant;

	return mod->narrow[f] ? repstos_family_narrow(&repstos_families[f], v) : v;
}

/* Note which families have sites of a narrow entry version. */
STARTUP_FN void find_narrow(struct module *mod)
{
	const struct repstos_site *e;

	for (e = mod->begin; e < mod->end; e++)
		if (repstos_version_narrow(e->version))
			mod->narrow[repstos_family_of(e->op)->id] = 1;
}

/* The bytes a site should have; 0, or -1 if the entry cannot be used.
 * While recording, every site calls its family's profiling routine. */
static int wanted_bytes(const struct module *mod, const struct repstos_site *e,
			uintptr_t at, uint8_t *out, const char **form,
			const char **why)
{
	const struct repstos_family *f = repstos_family_of(e->op);
	uintptr_t target;
	int v;

	if (RECORDING(mod)) {
		*form = "the profiling routine", *why = "REPSTOS_PROFILE";
		return repstos_encode_call(out, e->len, at,
					   family_of(mod, e->op)->profile);
	}
	v = choice(mod, e, why);
	*form = repstos_family_name(f, v);
	if (v == f->inline_form && repstos_family_inline_ok(f, e->op)) {
		*form = f->inline_name;
		return repstos_encode_inline(out, e->len, e->op);
	}
	target = routine_of(mod, e->op, v);
	return target ? repstos_encode_call(out, e->len, at, target) : -1;
}

/* REPSTOS_DEBUG=2: a site's line, the first DEBUG_SITES of a module. */
#define DEBUG_SITES 200
static void debug_site(struct module *mod, const struct repstos_site *e,
		       const char *form, const char *why)
{
	uintptr_t at = repstos_site_addr(e);
	unsigned i = (unsigned)(e - mod->begin), n;
	char size[48];
	Dl_info info;

	if (cfg.debug < 2)
		return;
	n = (unsigned)(mod->end - mod->begin);
	if (i == DEBUG_SITES)
		fprintf(stderr, "repstos: %s: %u more sites not shown (the first "
			"%u of a module are)\n", module_name(mod),
			n - DEBUG_SITES, DEBUG_SITES);
	if (i >= DEBUG_SITES)
		return;
	snprintf(size, sizeof(size), repstos_site_kind(e) == REPSTOS_SIZE_CONST ?
		 "size %u" : repstos_site_kind(e) == REPSTOS_SIZE_BOUNDED ?
		 "size %u..%u" : "size unknown", e->size_min, e->size_max);
	if (!dladdr((const void *)at, &info))
		memset(&info, 0, sizeof(info));
	fprintf(stderr, "repstos: %s+0x%lx", module_name(mod),
		(unsigned long)(at - (uintptr_t)info.dli_fbase));
	if (info.dli_sname)
		fprintf(stderr, " (%s+0x%lx)", info.dli_sname,
			(unsigned long)(at - (uintptr_t)info.dli_saddr));
	fprintf(stderr, ": site %u, %s, %s: %s (%s)\n", i,
		e->op < REPSTOS_OP_COUNT ? repstos_op_names[e->op] : "?", size,
		form, why);
}

/* A call of a routine this CPU cannot run: a file patched ahead of time
 * for another machine (`repstos patch --cpu=zen5` run on a CPU without
 * AVX-512).  Such a site is rewritten whoever chose it. */
STARTUP_FN int unrunnable(const struct module *mod, unsigned op, uintptr_t target)
{
	int v = variant_by_routine(mod, op, target);

	return v >= 0 && !repstos_family_runs(repstos_family_of(op), &cpu, v);
}

/* What the site holds: 0, *form and *target (of a call), or -1 when it
 * is none of the forms this runtime writes and must be left alone. */
STARTUP_FN int site_form(const struct module *mod, const struct repstos_site *e,
		     enum repstos_form *form, uintptr_t *target)
{
	uintptr_t at = repstos_site_addr(e);

	if (e->op >= REPSTOS_OP_COUNT || !repstos_version_fits(e->version, e->op))
		return -1;
	/* a site of a family the module has no stub of: not ours */
	if (!stub_of(mod, e->op))
		return -1;
	*target = 0;
	*form = repstos_decode((const uint8_t *)at, e->len, at, e->op, target);
	if (*form == REPSTOS_FORM_BAD ||
	    (*form == REPSTOS_FORM_CALL && *target != stub_of(mod, e->op) &&
	     variant_by_routine(mod, e->op, *target) < 0))
		return -1;
	/* rep movsb in a move site copies forwards blindly: not ours */
	if (*form == REPSTOS_FORM_INLINE &&
	    !repstos_family_inline_ok(repstos_family_of(e->op), e->op))
		return -1;
	return 0;
}

STARTUP_FN void patch_site(struct module *mod, struct run *r,
		       const struct repstos_site *e)
{
	int rescue;

	uintptr_t at = repstos_site_addr(e), target = 0;
	uint8_t want[REPSTOS_SITE_MAX_LEN];
	enum repstos_form form;

	const char *chose = NULL, *why = NULL;

	if (site_form(mod, e, &form, &target)) {
		mod->stats->skipped++;
		debug_site(mod, e, "left alone", "not a form this runtime writes");
		return;
	}
	/* Only the compiler's form is ours to change: anything else was
	 * chosen by `repstos patch`, and stays, unless it cannot run here
	 * (or the sizes it sees are being recorded). */
	rescue = form == REPSTOS_FORM_CALL && unrunnable(mod, e->op, target);
	mod->stats->lacking += rescue;
	if (!rescue && !RECORDING(mod) &&
	    (form != REPSTOS_FORM_CALL || target != stub_of(mod, e->op))) {
		mod->stats->fixed++;
		debug_site(mod, e, "kept", "fixed ahead of time by repstos patch");
		return;
	}
	if (wanted_bytes(mod, e, at, want, &chose, &why) < 0) {
		mod->stats->skipped++;
		debug_site(mod, e, "left alone", "no routine for its choice");
		return;
	}
	debug_site(mod, e, chose, rescue ? "the file's choice cannot run here" : why);
	if (!memcmp(want, (const void *)at, e->len)) {
		mod->stats->kept++;
		return;
	}
	add_to_run(mod, r, at, want, e->len, rescue);
}
