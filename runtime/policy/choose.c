// SPDX-License-Identifier: MIT
/*
 * choose.c - the form of one site, of any family, from what the
 * compiler knew of its size, the tuning's cost table and, where there
 * is one, the site's size profile and pin (policy.h,
 * repstos_policy_site): the one choice the runtime and `repstos
 * patch|dump|tune` all make.
 */
#include <string.h>
#include "policy.h"
#include "profile.h"

/* In the order of enum repstos_why, as one string: no table of pointers
 * to relocate in every module's start-up. */
static const char why_text[] =
	"pinned by the size profile\0"
	"the size profile's counts\0"
	"REPSTOS_VARIANT\0"
	"size unknown: the process's routine\0"
	"size unknown, read back: the process's read routine\0"
	"the rule for this CPU (no cost table row)\0"
	"the cost table over the site's sizes";

const char *repstos_why_name(enum repstos_why why)
{
	const char *p = why_text;

	while (why--)
		p += strlen(p) + 1;
	return p;
}

/* A form's standing over classes lo..hi: its worst cost against the
 * cheapest form's, in permille, and its total. */
struct standing {
	unsigned long long worst, total;
};

static struct standing standing(const struct repstos_costs *k, int v,
				const unsigned *best, unsigned lo, unsigned hi)
{
	struct standing s = { 0, 0 };
	unsigned c;

	for (c = lo; c <= hi; c++) {
		unsigned long long r = 1000ull * k->cns[v][c] / best[c];

		if (r > s.worst)
			s.worst = r;
		s.total += k->cns[v][c];
	}
	return s;
}

static int better(struct standing a, struct standing b)
{
	return a.worst != b.worst ? a.worst < b.worst : a.total < b.total;
}

/* The cheapest of the forms in `known` over classes lo..hi (policy.h
 * says how); module when known has none. */
static int cheapest(const struct repstos_costs *k, unsigned known, int module,
		    unsigned lo, unsigned hi)
{
	unsigned best[REPSTOS_NCLASS], c;
	struct standing s, top = { ~0ull, ~0ull };
	int v, pick = -1;

	for (c = lo; c <= hi; c++) {
		unsigned b = ~0u;

		for (v = 0; v < REPSTOS_NFORM; v++)
			if ((known >> v & 1) && k->cns[v][c] < b)
				b = k->cns[v][c];
		best[c] = b;
	}
	for (v = 0; v < REPSTOS_NFORM; v++) {
		if (!(known >> v & 1))
			continue;
		s = standing(k, v, best, lo, hi);
		if (pick < 0 || better(s, top))
			top = s, pick = v;
	}
	if (pick < 0)
		return module;
	if ((known >> module & 1) &&
	    standing(k, module, best, lo, hi).worst <= top.worst + 30)
		return module;
	return pick;
}

/* The forms t's table for f has that a site of op may take: the inline
 * form not for a copy that may overlap backwards, whatever its cost. */
static unsigned forms(const struct repstos_family_tuning *ft,
		      const struct repstos_family *f, unsigned op)
{
	unsigned known = repstos_cost_forms(&ft->costs);

	if (!repstos_family_inline_ok(f, op))
		known &= ~(1u << f->inline_form);
	return known;
}

/* By what the compiler knew of the size (policy.h).  A site whose
 * bytes its code reads back (REPSTOS_USE_READ), with sizes in one class
 * below 64 bytes, takes none of the forms whose stores there are masked
 * or string stores: a load of their bytes waits for them to commit,
 * where a plain store's are forwarded (Zen 4, use after write at fixed
 * sizes of 1..56 bytes: vec 1.20-1.77x glibc, avx512_split 1.00-1.01x,
 * stosb_avx2 1.11-1.20x; the table, measured back to back, cannot see
 * it). */
static int by_size(const struct repstos_family_tuning *ft,
		   const struct repstos_family *f, int module,
		   const struct repstos_site *e, enum repstos_why *why)
{
	unsigned known, lo, hi;

	*why = REPSTOS_WHY_UNKNOWN;
	if (repstos_site_kind(e) == REPSTOS_SIZE_UNKNOWN) {
		if (!(repstos_site_use(e) & REPSTOS_USE_READ))
			return module;
		*why = REPSTOS_WHY_READ;
		return ft->read_variant;
	}
	known = forms(ft, f, e->op);
	lo = repstos_size_class(e->size_min);
	hi = repstos_size_class(e->size_max);
	if (repstos_site_use(e) & REPSTOS_USE_READ && lo == hi &&
	    e->size_max < 64 && known & ~f->no_forward)
		known &= ~f->no_forward;
	*why = known ? REPSTOS_WHY_COSTS : REPSTOS_WHY_RULE;
	if (known)
		return cheapest(&ft->costs, known, module, lo, hi);
	if (repstos_family_inline_ok(f, e->op) && e->size_min >= ft->inline_min)
		return f->inline_form;
	return module;
}

#ifndef REPSTOS_NO_PROFILES
static int any_calls(const unsigned long long *hist)
{
	unsigned c;

	for (c = 0; hist && c < REPSTOS_NCLASS; c++)
		if (hist[c])
			return 1;
	return 0;
}

/* Do 95% of the calls fall in classes lo..hi, and some in lo and in hi?
 * (top_class's share: sqlite's busiest copy sites put 98-99% of their
 * calls in 16..63 and a few below 16.) */
static int spans(const unsigned long long *hist, unsigned lo, unsigned hi)
{
	unsigned long long total = 0, in = 0;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++) {
		total += hist[c];
		if (c >= lo && c <= hi)
			in += hist[c];
	}
	return hist[lo] && hist[hi] &&
	       (unsigned __int128)in * 100 >= (unsigned __int128)total * 95;
}

/* The size class that holds at least 95% of the calls, or -1. */
static int top_class(const unsigned long long *hist)
{
	unsigned long long total = 0, top = 0;
	unsigned c, at = 0;

	for (c = 0; c < REPSTOS_NCLASS; c++) {
		total += hist[c];
		if (hist[c] > top)
			top = hist[c], at = c;
	}
	return (unsigned __int128)top * 100 >= (unsigned __int128)total * 95 ?
	       (int)at : -1;
}

/*
 * From a profile (policy.h), either family: of the `known` forms (bit v
 * for form v), the one whose expected time over the calls of hist is
 * least by table k.  The module routine keeps the site unless another
 * form saves more than 3% of it: the table's figures move by that much
 * from run to run, and a choice made on noise would differ from one
 * tuning file to the next.  The table's figures are for one size at a
 * time, branches predicted; where a site's sizes spread over classes, a
 * routine that branches on the size mispredicts.  Where the table has
 * every form's change cost, the expected time counts them; where it has
 * not, such a site keeps the module routine, chosen on varying sizes,
 * unless rep stosb (rep movsb) in place, which does not branch on the
 * size, is cheaper (choosing by the fixed sizes alone made the many-site
 * program 1.06x glibc on Zen 4 where the module routine made it 1.27x).
 */
static int by_profile(const struct repstos_costs *k, unsigned known,
		      int module, int inline_form,
		      const unsigned long long *hist)
{
	unsigned long long best = ~0ull, w;
	int v, pick = -1, by_change = repstos_cost_has_change(k);

	for (v = 0; v < REPSTOS_NFORM; v++) {
		if (!(known >> v & 1) ||
		    (!by_change && top_class(hist) < 0 && v != module &&
		     v != inline_form))
			continue;
		w = repstos_policy_expected(k, v, hist);
		if (w != ~0ull && (pick < 0 || w < best))
			best = w, pick = v;
	}
	/* a module routine the table has no row for (tune may choose a
	 * forced_only one, such as avx512_plain, by its cells) cannot be
	 * weighed against the others: the site keeps it.  (One the caller
	 * left out of known, a masked one for a site read back, is
	 * weighed by nothing: the cheapest of known.) */
	if (pick < 0 || !(repstos_cost_forms(k) >> module & 1))
		return module;
	w = repstos_policy_expected(k, module, hist);
	if ((known >> module & 1) && w != ~0ull &&
	    (unsigned __int128)w * 100 <= (unsigned __int128)best * 103)
		return module;
	return pick;
}

/* The calls of hist below 64 bytes: the ones use_extra is for. */
static unsigned long long calls_below_64(const unsigned long long *hist)
{
	unsigned long long n = 0;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS && repstos_class_hi(c) < 64; c++)
		n += hist[c];
	return n;
}

/* Form v's expected time over hist relative to the module's, in the
 * worse of the two shapes the table has: back to back, and each call's
 * last byte read next (use_extra on every call below 64 bytes); 0 where
 * either lacks a figure. */
static double worse_shape(const struct repstos_costs *k, int v, int module,
			  const unsigned long long *hist)
{
	unsigned long long bv = repstos_policy_expected(k, v, hist);
	unsigned long long bm = repstos_policy_expected(k, module, hist);
	double small = (double)calls_below_64(hist), b, u;

	if (bv == ~0ull || bm == ~0ull || !bm)
		return 0;
	b = (double)bv / (double)bm;
	u = ((double)bv + small * k->use_extra[v]) /
	    ((double)bm + small * k->use_extra[module]);
	return b > u ? b : u;
}

/*
 * by_profile where the table also has what each form loses when its
 * bytes are read back (use_extra): a profile may take a site from the
 * module routine, which tune chose by every shape, only to a form
 * expected to be more than 3% faster in both shapes, back to back and
 * with the last byte read next, whatever the site's use: so a profile
 * never makes a site slower in either beyond the noise.  (The table
 * alone made the many-site program slower profiled than not on Zen 4:
 * 0.96x glibc against 1.01x.)  Among those, the best in the worse of
 * its two shapes.  The change costs count as in by_profile; without
 * them only the module routine and rep stosb (rep movsb) in place are
 * weighed for a site whose sizes spread.
 */
static int by_shapes(const struct repstos_costs *k, unsigned known,
		     int module, int inline_form,
		     const unsigned long long *hist)
{
	double best = 0.97, r;
	int v, pick = module, by_change = repstos_cost_has_change(k);

	if (!(known >> module & 1) || !(k->use_known >> module & 1))
		return by_profile(k, known, module, inline_form, hist);
	for (v = 0; v < REPSTOS_NFORM; v++) {
		if (!(known >> v & 1) || v == module ||
		    (!by_change && top_class(hist) < 0 && v != inline_form))
			continue;
		r = worse_shape(k, v, module, hist);
		if (r > 0 && r < best)
			best = r, pick = v;
	}
	return pick;
}

/*
 * A site whose profile has 95% of its calls in 16..63 and some in each
 * of its classes (16..31 and 32..63) takes f's range_form, plain stores
 * with no size branch there, where the module routine is one it goes
 * with (so this CPU runs it, and the policy wants that width here).  The
 * few calls outside take the module routine's paths behind one more
 * branch.  The back-to-back table sees neither what the module
 * routine's masked store costs the loads of its bytes, which wait for it
 * to commit, nor what the forms that forward (avx2, vec) lose to their
 * branch at 32 where the sizes vary across it: __repstos_avx512_plain's
 * comment has the figures.
 * Whatever the site's use: the plugin's +read says the site's own
 * function reads the bytes, its absence nothing (a caller may), and an
 * unknown use is weighed toward use after write.  One class alone
 * keeps read_back's rule: a fixed size predicts every branch.  Only
 * from a profile: by_size, in every module's start-up, has no bytes to
 * spare (bench/footprint.sh).
 */
static int spread_16_63(const struct repstos_family *f, int module,
			const unsigned long long *hist)
{
	return (f->range_with >> module & 1) &&
	       spans(hist, repstos_size_class(16), repstos_size_class(63));
}

/* The forms of `known` a site may take by its profile: as by_size's
 * rule, no form that stores below 64 bytes without forwarding where the
 * site's bytes are read back and 95% of its calls fall in one class
 * below 64 bytes; all of them where that leaves none. */
static unsigned read_back(const struct repstos_family *f,
			  const struct repstos_site *e,
			  const unsigned long long *hist, unsigned known)
{
	int c = top_class(hist);

	if (repstos_site_use(e) & REPSTOS_USE_READ && c >= 0 && c <= 6 &&
	    known & ~f->no_forward)
		known &= ~f->no_forward;
	return known;
}

/* From the profile row hist, which has calls (policy.h); by the size
 * where the table has no form the site may take. */
static int profiled(const struct repstos_family_tuning *ft,
		    const struct repstos_family *f, int module,
		    const struct repstos_site *e,
		    const unsigned long long *hist, enum repstos_why *why)
{
	unsigned known;

	*why = REPSTOS_WHY_PROFILE;
	if (spread_16_63(f, module, hist))
		return f->range_form;
	if (!(known = forms(ft, f, e->op)))
		return by_size(ft, f, module, e, why);
	known = read_back(f, e, hist, known);
	if (repstos_cost_has_use(&ft->costs))
		return by_shapes(&ft->costs, known, module, f->inline_form, hist);
	return by_profile(&ft->costs, known, module, f->inline_form, hist);
}
#endif

/* Before weighing: a pin the policy lets the site have, a forced
 * variant; -1 for neither. */
static int given(const struct repstos_modules *m, const struct repstos_cpu *cpu,
		 const struct repstos_family *f, const struct repstos_site *e,
		 unsigned char pin, enum repstos_why *why)
{
#ifndef REPSTOS_NO_PROFILES
	int v;

	if (pin && (v = repstos_policy_pinned(m, cpu, e, pin)) >= 0) {
		*why = REPSTOS_WHY_PINNED;
		return v;	/* narrowed already */
	}
#endif
	if (!m->fam[f->id].forced)
		return -1;
	*why = REPSTOS_WHY_FORCED;
	return m->fam[f->id].variant;
}

struct repstos_decision repstos_policy_site(const struct repstos_tuning *t,
					    const struct repstos_modules *m,
					    const struct repstos_cpu *cpu,
					    const struct repstos_family *f,
					    const struct repstos_site *e,
					    const unsigned long long *hist,
					    unsigned char pin)
{
	const struct repstos_family_tuning *ft = &t->fam[f->id];
	int module = m->fam[f->id].variant;
	enum repstos_why why = REPSTOS_WHY_UNKNOWN;
	int v = given(m, cpu, f, e, pin, &why);

	if (why == REPSTOS_WHY_PINNED)
		goto out;
#ifndef REPSTOS_NO_PROFILES
	/* the forms the table has only when there is a profile to weigh:
	 * this runs for every site at start-up (10,000 sites took 0.7 ms
	 * more when it counted them first) */
	if (v < 0 && any_calls(hist))
		v = profiled(ft, f, module, e, hist, &why);
#else
	(void)cpu;
	(void)hist;
	(void)pin;
#endif
	if (v < 0)
		v = by_size(ft, f, module, e, &why);
	if (repstos_version_narrow(e->version))
		v = repstos_family_narrow(f, v);
out:
	return (struct repstos_decision){ .form = v, .why = (unsigned char)why,
		.in_place = (unsigned char)repstos_policy_in_place(f, e->op, v) };
}
