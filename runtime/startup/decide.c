// SPDX-License-Identifier: MIT
/*
 * decide.c - each site's form, from the policy (repstos_policy_site),
 * and the bytes it should have; what a site holds now, and whether it
 * is ours to write.
 */
#define _GNU_SOURCE
#include "startup.h"

/* ---- deciding --------------------------------------------------------- */

/* The module's part of family f. */
static struct family *family_of(const struct module *mod,
				const struct repstos_family *f)
{
	return (struct family *)&mod->fam[f->id];
}

/*
 * The module's own routines, by variant and back: a site calls a
 * routine of its module (a rel32 call reaches no further), so every
 * address here is the module's, as it described itself.
 */
STARTUP_FN uintptr_t routine_of(const struct module *mod,
			       const struct repstos_family *f, int v)
{
	return family_of(mod, f)->routine[v];
}

static int variant_by_routine(const struct module *mod,
			      const struct repstos_family *f, uintptr_t target)
{
	const struct family *mf = family_of(mod, f);
	int v;

	for (v = 0; target && v < (int)mf->n; v++)
		if (mf->routine[v] == target)
			return v;
	return -1;
}

/* The stub a site of family f calls as the compiler left it. */
STARTUP_FN uintptr_t stub_of(const struct module *mod,
			     const struct repstos_family *f)
{
	return family_of(mod, f)->stub;
}

/* The policy's decision for site e of family f (repstos_policy_site),
 * from its profile row h and pin (NULL and 0 where this start-up links
 * no profiles: HIST and PINS). */
static struct repstos_decision decide(const struct repstos_family *f,
				      const struct repstos_site *e,
				      const unsigned long long *h,
				      unsigned char pin)
{
	return repstos_policy_site(&tab->tuning, &cfg.mods, &cpu, f, e, h, pin);
}

/* A decision as one byte of a cache, 0 for none: the form and why
 * (in_place follows from the form and the site's op). */
static unsigned char packed(struct repstos_decision d)
{
	return (unsigned char)(1 + (d.why << 4 | d.form));
}

static struct repstos_decision unpacked(const struct repstos_family *f,
					const struct repstos_site *e,
					unsigned char b)
{
	struct repstos_decision d;

	d.form = (b - 1) & 15;
	d.why = (unsigned char)((b - 1) >> 4);
	d.in_place = (unsigned char)repstos_policy_in_place(f, e->op, d.form);
	return d;
}
_Static_assert(REPSTOS_NFORM <= 16 && REPSTOS_WHY_COUNT * 16 < 255,
	       "a decision in a byte");

#if REPSTOS_PROFILES
/*
 * The same for a site with calls in an installed profile: its decision
 * depends on its family (and op: copy or move), its narrowness, its
 * read mark and its row of counts, not on its range, and weighing every
 * form over a row took 100,000 profiled sites 172 ms at start-up on the
 * Zen 4, against 5.7 ms without the profile (and 10 ms with this table).
 * Many sites see the very same counts (a call or two of one size), so
 * each row is weighed once: a direct-mapped table, found by a mix of the
 * counts and compared whole, kept while one module's sites are walked
 * (patch_sites) and only when it has a profile.
 */
struct row_pick *row_picks;	/* patch_sites sets it, a module at a time */

static struct repstos_decision row_choice(const struct repstos_family *f,
					  const struct repstos_site *e,
					  const unsigned long long *h,
					  unsigned kind)
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
		p->v = packed(decide(f, e, h, 0));
	}
	return unpacked(f, e, p->v);
}
#endif

/*
 * The policy's decision for site e of family f (repstos_policy_site),
 * with its installed profile's row and pin if any; the start-up keeps
 * only the caches around it.
 *
 * With a cost table, the decision for a site of known size depends only
 * on its family, its entry version and the size classes its range
 * spans, and finding it weighs every form over those classes: 10,000
 * bounded sites took 4.5 ms at start-up on the Zen 4.  A program has
 * many sites and few ranges, so each range is asked once per family
 * (set; copy; move, which may not take rep movsb in place) and
 * narrowness, for every module of the process (tab->picks: 0 not asked
 * yet, else packed()).  A site read back (REPSTOS_USE_READ) may be
 * decided otherwise than the range's others, so it is asked on its own.
 */
STARTUP_FN struct repstos_decision choice(const struct module *mod,
					  const struct repstos_family *f,
					  const struct repstos_site *e)
{
	const unsigned long long *h = mod && HIST(mod) ?
				      HIST(mod)[e - mod->begin] : NULL;
	unsigned char pin = mod && PINS(mod) ? PINS(mod)[e - mod->begin] : 0;
	/* set; copy that may go inline; move that may not */
	unsigned kind = f->id == REPSTOS_FAMILY_SET ? 0 :
			repstos_family_inline_ok(f, e->op) ? 1 : 2;
	int narrow = repstos_version_narrow(e->version);
	unsigned char *pick = NULL;
	struct repstos_decision d;

	if (h && !repstos_profile_calls(h))
		h = NULL;
	/* pinned sites are few: decided one by one, past the caches */
	if (pin || cfg.mods.fam[f->id].forced)
		;
#if REPSTOS_PROFILES
	else if (h && row_picks)
		return row_choice(f, e, h, (kind * 2 + (unsigned)narrow) * 2 +
				  !!(repstos_site_use(e) & REPSTOS_USE_READ));
#endif
	else if (!h && cfg.cost_forms[f->id] && !repstos_site_use(e) &&
		 repstos_site_kind(e) != REPSTOS_SIZE_UNKNOWN)
		pick = &tab->picks[narrow][kind][repstos_size_class(e->size_min)]
				  [repstos_size_class(e->size_max)];
	if (pick && *pick)
		return unpacked(f, e, *pick);
	d = decide(f, e, h, pin);
	if (pick)
		*pick = packed(d);
	return d;
}

/* The process's routine for sites of unknown size, as this module's
 * stubs may call it: a stub serves every site of its family, narrow
 * ones too. */
STARTUP_FN int module_variant(const struct module *mod, enum repstos_family_id f)
{
	return repstos_policy_module_for(&cfg.mods, &repstos_families[f],
					 mod->narrow[f]);
}

/* Note which families have sites of a narrow entry version. */
STARTUP_FN void find_narrow(struct module *mod)
{
	const struct repstos_site *e;

	for (e = mod->begin; e < mod->end; e++)
		if (repstos_version_narrow(e->version))
			mod->narrow[repstos_family_of(e->op)->id] = 1;
}

/* The bytes site e of family f should have; 0, or -1 if the entry
 * cannot be used.  While recording, every site calls its family's
 * profiling routine. */
static int wanted_bytes(const struct module *mod, const struct repstos_family *f,
			const struct repstos_site *e, uintptr_t at, uint8_t *out,
			const char **form, const char **why)
{
	struct repstos_decision d;
	uintptr_t target;

	if (RECORDING(mod)) {
		*form = "the profiling routine", *why = "REPSTOS_PROFILE";
		return repstos_encode_call(out, e->len, at,
					   family_of(mod, f)->profile);
	}
	d = choice(mod, f, e);
	*why = repstos_why_name(d.why);
	if (d.in_place) {
		*form = f->inline_name;
		return repstos_encode_inline(out, e->len, e->op);
	}
	*form = repstos_family_name(f, d.form);
	target = routine_of(mod, f, d.form);
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
STARTUP_FN int unrunnable(const struct module *mod,
			  const struct repstos_family *f, uintptr_t target)
{
	int v = variant_by_routine(mod, f, target);

	return v >= 0 && !repstos_family_runs(f, &cpu, v);
}

/* What site e of family f (repstos_family_of, whatever its op) holds:
 * 0, *form and *target (of a call), or -1 when it is none of the forms
 * this runtime writes and must be left alone. */
STARTUP_FN int site_form(const struct module *mod, const struct repstos_family *f,
			 const struct repstos_site *e, enum repstos_form *form,
			 uintptr_t *target)
{
	uintptr_t at = repstos_site_addr(e);

	if (e->op >= REPSTOS_OP_COUNT || !repstos_version_fits(e->version, e->op))
		return -1;
	/* a site of a family the module has no stub of: not ours */
	if (!stub_of(mod, f))
		return -1;
	*target = 0;
	*form = repstos_decode((const uint8_t *)at, e->len, at, e->op, target);
	if (*form == REPSTOS_FORM_BAD ||
	    (*form == REPSTOS_FORM_CALL && *target != stub_of(mod, f) &&
	     variant_by_routine(mod, f, *target) < 0))
		return -1;
	/* rep movsb in a move site copies forwards blindly: not ours */
	if (*form == REPSTOS_FORM_INLINE &&
	    !repstos_family_inline_ok(f, e->op))
		return -1;
	return 0;
}

STARTUP_FN void patch_site(struct module *mod, struct run *r,
		       const struct repstos_site *e)
{
	const struct repstos_family *f = repstos_family_of(e->op);
	uintptr_t at = repstos_site_addr(e), target = 0;
	uint8_t want[REPSTOS_SITE_MAX_LEN];
	const char *chose = NULL, *why = NULL;
	enum repstos_form form;
	int rescue;

	if (site_form(mod, f, e, &form, &target)) {
		mod->stats->skipped++;
		debug_site(mod, e, "left alone", "not a form this runtime writes");
		return;
	}
	/* Only the compiler's form is ours to change: anything else was
	 * chosen by `repstos patch`, and stays, unless it cannot run here
	 * (or the sizes it sees are being recorded). */
	rescue = form == REPSTOS_FORM_CALL && unrunnable(mod, f, target);
	mod->stats->lacking += rescue;
	if (!rescue && !RECORDING(mod) &&
	    (form != REPSTOS_FORM_CALL || target != stub_of(mod, f))) {
		mod->stats->fixed++;
		debug_site(mod, e, "kept", "fixed ahead of time by repstos patch");
		return;
	}
	if (wanted_bytes(mod, f, e, at, want, &chose, &why) < 0) {
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
