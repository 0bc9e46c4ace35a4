// SPDX-License-Identifier: MIT
/*
 * rows.c - what the policy chooses for a CPU before any site: the
 * measured rows, for CPUs a benchmark ran on, and the conservative rule
 * for every other CPU.  A tuning file (tuning.c) written by `repstos
 * tune` on the machine itself overrides both.
 *
 * The rule is measured, not read off feature flags (bench/results has
 * the numbers): on AMD Zen 3 (ERMS+FSRM, no FSRS) inline `rep stosb`
 * costs 2-13x glibc's memset below 4 KiB, although the 2022 kernel
 * inlined it for FSRM and today's kernel, which sets FSRS on AMD CPUs
 * with FSRM, still would.  So every site whose size the compiler did
 * not bound calls the module routine (a row's, or the conservative
 * rule's: "avx2", "avx512_split" or "vec"), which uses rep stosb only
 * from a measured size up, and a site of known size gets the form the
 * row's cost table makes cheapest (choose.c).
 */
#include <string.h>
#include "policy.h"

#define KIB 1024u

/*
 * The measured table: vendor, family, model ranges and the features the
 * chosen routines need, to what bench measured there
 * (bench/results/VENDOR-FAMILY-MODEL/) and, where `repstos tune
 * --report` printed one there, the cost table.  Only rows measured on a
 * real machine belong here; every other CPU gets the conservative rule
 * below.  Rows are tried in order: put the one needing more first.
 *
 * Intel family 6 model 0xcf (Emerald Rapids): measured on an Intel Xeon
 * of that model (KVM, 2 cores, AVX-512, FSRM; glibc 2.36 choosing its
 * AVX-512 memset and memmove; bench/results/intel-06-cf), the first
 * Intel CPU this project met and the first row derived by code: its
 * routines, thresholds and tables are what bench/mkrow.sh took from 20
 * runs of `repstos tune --report`, which judges each routine by its
 * worst cell over four shapes, five distributions and three placements
 * (rows/intel-06-cf.costs says how many runs agreed).  The conservative
 * rule gave this CPU "avx2", 0.41-0.83x glibc on the distributions back
 * to back (summary.txt); "avx512_split" is the best worst cell here
 * (0.92-0.94x, every shape).  Copies, for sites of unknown use and
 * read ones alike, "avx512_fwd" (20 of 20 runs, once it stored only its
 * ends' bytes again and tune judged worst cells within 5% level): worst
 * cells level with "avx512"'s, mean in halves 1.77x glibc against 1.59x,
 * read shapes 1.64x against 1.17x; copybench, medians of five processes,
 * 2.31x back to back where "avx512" is 2.72x, 1.75-2.02x read back where
 * it is 1.09-1.20x (copy-fwd-row.txt); sqlite, zstd, jq and Lua ran level
 * with "avx512" (real-copy-fwd-row.txt).  The copy rep movsb threshold
 * is the conservative rule's 2 KiB, not measured.  Only this model:
 * Sapphire Rapids (0x8f) shares its core but was not measured.
 *
 * AMD family 0x1a (Zen 5): measured on an AMD EPYC family 0x1a model 2
 * (KVM, 2 cores, AVX-512, FSRM; glibc 2.36 choosing its AVX-512 memset
 * and memmove; bench/results/amd-1a-02), the second row derived by
 * code: routines, thresholds and tables are what bench/mkrow.sh took
 * from 20 runs of `repstos tune --report` (rows/amd-1a-02.costs says how
 * many agreed).  Sets, for sites of unknown use and read ones,
 * "avx512_split", the best worst cell (0.99x glibc; bench's and
 * copybench's medians of five processes, shapes-row.txt and
 * copy-row.txt): "avx512" is faster back to back (1.22x against 1.09x
 * over the distributions) but 0.73-0.78x at fixed sizes below 256
 * bytes, and behind in every read shape.  rep stosb from 2 KiB in
 * "vec", from 512 KiB in the wide routines, and inline only where a
 * site is proven that large.  Copies of unknown use, "avx512": its
 * worst cell is level with "avx512_fwd"'s and its mean in halves ahead
 * (2.51x glibc back to back against 2.14x; read last and first 1.28x
 * and 1.46x against 1.73x and 1.88x); copies the plugin saw read,
 * "avx512_fwd" (20 of 20 runs).  rep movsb from 24 KiB, not 2: the loop
 * is 0.92-2.1x glibc from 1 to 24 KiB where rep movsb is 0.47-0.74x at
 * 1-2 KiB, and falls off as source and destination outgrow the 48 KiB
 * L1D, where rep movsb stayed 0.97-1.05x (copyrep.txt, 2026-12-04; in
 * tune's class table of 2026-12-07 every routine's rep movsb is
 * 0.6-0.8x glibc from 32 to 256 KiB, not measured further).
 *
 * AMD family 0x19 models 0x10-0x1f, 0x60-0x7f, 0xa0-0xaf (Zen 4):
 * measured on an AMD EPYC family 0x19 model 0x11 (KVM, 2 cores, glibc
 * 2.36; bench/results/amd-19-11, and amd-19-11-as-zen4-noavx512
 * with AVX-512 hidden from glibc and from repstos, as KVM guests of Zen 4
 * often see it).  On the published distributions (one site, sizes
 * drawn at random) and the many-site program, a routine with few size
 * branches wins, as sizes vary from call to call; at one fixed size a
 * branchy one does.  Against glibc's memset at one site:
 *  - with AVX-512, "avx512_split" (one masked store below 64 bytes,
 *    32-byte stores with one size test to 256, 64-byte ones above where
 *    aligned): 1.17-1.18x geometric mean over the distributions
 *    (0.98-1.34x), at least 0.99x at every fixed size, 1.32x on the
 *    many-site program.  "avx512", all masked stores below 256, is
 *    faster on some distributions but 0.69x at fixed sizes below 128 on
 *    a destination not 64-byte aligned (a 64-byte store crossing a
 *    cache line is split; three masked-off ones still cost): the goals
 *    put "never slower" first.
 *  - without it, "stosb_avx2": Zen 4 starts a rep stosb below 128 bytes
 *    in 2.5 ns flat, 32..64 bytes take two 32-byte stores (rep stosb was
 *    0.87x glibc there), and above 128 "avx2"'s 32-byte stores.  1.20x
 *    on the distributions against glibc's avx2 memset, 1.29x on the
 *    many-site program (1.55x from profiles), 0.90-0.96x at some fixed
 *    sizes from 65 bytes up.
 * The cost tables are what `repstos tune` measured on that machine, with
 * AVX-512 (rows/amd-19-11.costs); the forms a CPU cannot run are
 * dropped at run time.
 *
 * AMD family 0x19 models 0x00-0x0f, 0x20-0x2f, 0x40-0x5f (Zen 3 and
 * 3+): measured on an AMD EPYC family 0x19 model 0x01 (KVM, 2 cores,
 * glibc 2.36 choosing its avx2 memset; bench/results/amd-19-01).
 * "avx2", the conservative rule's routine there before this row, is
 * the only form at 1.00x glibc or better on every published
 * distribution in every shape and offset (1.00-1.22x, geomean
 * 1.10-1.14x); "vec" is 0.85-0.91x on dist-M, "stosb_avx2" 0.20x at
 * 16..31 bytes (a rep stosb starts slowly here: inline rep stosb is
 * 0.07-0.5x glibc below 4 KiB).  What the row changes: rep stosb never
 * in avx2 (its loop is level with it or faster at every size from 4 KiB
 * to 1 MiB, ten tune runs agreeing; rep stosb took 1.1-1.8x the loop's
 * time at 3..8 KiB), "vec" from 4 KiB as before, no site inline by size, and
 * a cost table (rows/amd-19-01.costs) for the sites of known size and
 * the profiles.  Copies: "avx2" with no rep movsb (the loop beat rep
 * movsb from 2 KiB, the conservative rule's, in 92 of 99 sizes from
 * 2 KiB to 1 MiB, offsets and shapes; rep movsb at a random offset was
 * 0.12-0.4x glibc).
 */
struct measured {
	unsigned vendor, family;
	unsigned char models[4][2];	/* inclusive ranges; {0, 0} ends */
	unsigned need;			/* features the row needs */
	enum repstos_variant variant;
	unsigned long long vec_rep_min, wide_rep_min;
	unsigned inline_min;
	enum repstos_copy_variant copy_variant;
	unsigned long long copy_rep_min;	/* ~0: never rep movsb */
	const struct repstos_costs *costs;	/* or NULL */
	const struct repstos_costs *copy_costs;	/* or NULL */
	const char *source;
	/* the routines of sites of unknown size read back (REPSTOS_USE_READ) */
	enum repstos_variant read_variant;
	enum repstos_copy_variant copy_read_variant;
};

/* The measured cost tables: the .costs files in rows/, what `repstos
 * tune` wrote there, as mkrows.sh generates them. */
#include "rows.h"

/*
 * Copies on Zen 4 (AMD EPYC 0x19/0x11, bench/results/amd-19-11, two
 * full runs of copybench): "avx512" worst fixed size 0.87x glibc
 * against avx2's 0.67x (avx2 loops from 257 bytes: 384..768 B
 * 0.77-0.95x), the distributions' geomean 1.13x against 1.09x; without
 * AVX-512, "avx2".  The avx2 loop beats rep movsb at every size from
 * 2 KiB to 1 MiB (1.02-1.16x glibc, against 0.75-1.0x with rep movsb
 * from 2 KiB, glibc's own threshold there), so no rep movsb below the
 * non-temporal threshold.  Zen 5's copies: its row says why "avx512", with
 * rep movsb from 24 KiB.
 */
#define F(x) REPSTOS_CPU_##x
#define ZEN4_MODELS { { 0x10, 0x1f }, { 0x60, 0x7f }, { 0xa0, 0xaf } }
#define ZEN3_MODELS { { 0x00, 0x0f }, { 0x20, 0x2f }, { 0x40, 0x5f } }
static const struct measured table[] = {
	{ REPSTOS_VENDOR_AMD, 0x19, ZEN4_MODELS,
	  F(ERMS) | F(AVX2) | F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2),
	  REPSTOS_VARIANT_AVX512_SPLIT, 2 * KIB, 4 * KIB, 4 * KIB,
	  REPSTOS_COPY_VARIANT_AVX512, ~0ull, &amd_19_11_costs,
	  &amd_19_11_copy_costs,
	  "measured: AMD family 0x19 Zen 4 (EPYC model 0x11)",
	  .read_variant = REPSTOS_VARIANT_AVX512_SPLIT,
	  .copy_read_variant = REPSTOS_COPY_VARIANT_AVX512 },
	{ REPSTOS_VENDOR_AMD, 0x19, ZEN4_MODELS, F(ERMS) | F(AVX2),
	  REPSTOS_VARIANT_STOSB_AVX2, 2 * KIB, 4 * KIB, 4 * KIB,
	  REPSTOS_COPY_VARIANT_AVX2, ~0ull, &amd_19_11_costs,
	  &amd_19_11_copy_costs,
	  "measured: AMD family 0x19 Zen 4 (EPYC model 0x11), no AVX-512",
	  .read_variant = REPSTOS_VARIANT_STOSB_AVX2,
	  .copy_read_variant = REPSTOS_COPY_VARIANT_AVX2 },
	{ REPSTOS_VENDOR_AMD, 0x19, ZEN3_MODELS, F(ERMS) | F(AVX2),
	  REPSTOS_VARIANT_AVX2, 4 * KIB, ~0ull, ~0u,
	  REPSTOS_COPY_VARIANT_AVX2, ~0ull, &amd_19_01_costs,
	  &amd_19_01_copy_costs,
	  "measured: AMD family 0x19 Zen 3 (EPYC model 0x01)",
	  .read_variant = REPSTOS_VARIANT_AVX2,
	  .copy_read_variant = REPSTOS_COPY_VARIANT_AVX2 },
	{ REPSTOS_VENDOR_INTEL, 0x6, { { 0xcf, 0xcf } },
	  F(ERMS) | F(AVX2) | F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2),
	  INTEL_06_CF_VARIANT, INTEL_06_CF_VEC_REP_MIN, INTEL_06_CF_WIDE_REP_MIN,
	  INTEL_06_CF_INLINE_MIN, INTEL_06_CF_COPY_VARIANT, 2 * KIB,
	  &intel_06_cf_costs, &intel_06_cf_copy_costs,
	  "measured: Intel family 6 model 0xcf (Xeon, Emerald Rapids)",
	  .read_variant = INTEL_06_CF_READ_VARIANT,
	  .copy_read_variant = INTEL_06_CF_COPY_READ_VARIANT },
	{ REPSTOS_VENDOR_AMD, 0x1a, { { 0x00, 0xff } },
	  F(ERMS) | F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2),
	  AMD_1A_02_VARIANT, AMD_1A_02_VEC_REP_MIN, AMD_1A_02_WIDE_REP_MIN,
	  AMD_1A_02_INLINE_MIN, AMD_1A_02_COPY_VARIANT, 24 * KIB,
	  &amd_1a_02_costs, &amd_1a_02_copy_costs,
	  "measured: AMD family 0x1a (EPYC model 2)",
	  .read_variant = AMD_1A_02_READ_VARIANT,
	  .copy_read_variant = AMD_1A_02_COPY_READ_VARIANT },
};
#undef F

static int model_in(const struct measured *m, unsigned model)
{
	unsigned i;

	for (i = 0; i < 4 && (m->models[i][0] || m->models[i][1]); i++)
		if (model >= m->models[i][0] && model <= m->models[i][1])
			return 1;
	return 0;
}

static const struct measured *lookup(const struct repstos_cpu *cpu)
{
	unsigned i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct measured *m = &table[i];

		if (m->vendor == cpu->vendor && m->family == cpu->family &&
		    model_in(m, cpu->model) && (cpu->features & m->need) == m->need)
			return m;
	}
	return NULL;
}

int repstos_policy_has_row(const struct repstos_cpu *cpu)
{
	return lookup(cpu) != NULL;
}

/*
 * The conservative rule, for CPUs no row describes.  It must not be
 * slower than glibc's memset anywhere, on CPUs nobody here measured:
 *
 *  - AMD from family 0x17 (Zen) and Intel, with AVX2: "avx2", the shape
 *    of glibc's own AVX2 memset, which glibc chooses there, down to the
 *    vzeroupper on the way out of every path that wrote a ymm register.
 *    A dirty upper half would cost the caller's later SSE code: a state
 *    transition on Intel's Haswell and Broadwell, a false dependency on
 *    every SSE write from Skylake on and on Zen 4 (zlib's minigzip -6
 *    with copy sites: 0.95x while the routines left it dirty;
 *    bench/results/README.md), where no memset benchmark sees it.
 *    Measured on Zen 4 with AVX-512 hidden, against glibc's avx2
 *    memset: 0.94-1.4x at every fixed size, 0.98-1.10x on the published
 *    distributions, where "vec" was 0.45-0.6x from 256 bytes to 2 KiB
 *    (16-byte stores: half the store width).  Not measured on Intel.
 *  - AMD with AVX-512 (a Zen after 5): "avx512_split".  Where glibc has
 *    AVX-512 it stores small sizes with one masked store and no size
 *    branch, and "avx2" was 0.69x of it on the distributions on Zen 4;
 *    "avx512_split" was 1.1x there and no worse than 0.9x at any fixed
 *    size, where "avx512" (Zen 5's) was 0.69x at small misaligned ones.
 *  - Every other CPU: "vec" (SSE2, correct on every x86-64).  Before the
 *    vector-state rule (repstos_site.h) let routines run vzeroupper,
 *    Intel got "vec" too, for want of a clean way out of "avx2".
 *  - rep stosb from 4 KiB, and only with ERMS: glibc's own threshold is
 *    2 KiB (rep_stosb_threshold), but on the Zen 3 measured first rep
 *    stosb at 2 KiB took 42.8 ns against glibc's 21.6, and matched it
 *    from 4 KiB (63.6 against 64.5 ns).
 */
static void conservative(const struct repstos_cpu *cpu, struct repstos_tuning *t)
{
	/* [routine][erms]: what the debug line says the rule chose */
	static const char *const why[3][2] = {
		{ "auto: sized stores at every size (no erms)",
		  "auto: sized stores, rep stosb from 4 KiB (erms)" },
		{ "auto: avx2 stores at every size (no erms)",
		  "auto: avx2 stores, rep stosb from 4 KiB (erms)" },
		{ "auto: avx512_split at every size (no erms)",
		  "auto: avx512_split, rep stosb from 4 KiB (erms)" },
	};
	int erms = (cpu->features & REPSTOS_CPU_ERMS) != 0, r = 0;

	if (cpu->vendor == REPSTOS_VENDOR_AMD && cpu->family >= 0x17 &&
	    (cpu->features & REPSTOS_CPU_AVX2))
		r = repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX512_SPLIT) ?
		    2 : 1;
	else if (cpu->vendor == REPSTOS_VENDOR_INTEL &&
		 (cpu->features & REPSTOS_CPU_AVX2))
		r = 1;
	t->fam[REPSTOS_FAMILY_SET].variant = r == 2 ? REPSTOS_VARIANT_AVX512_SPLIT :
		     r == 1 ? REPSTOS_VARIANT_AVX2 : REPSTOS_VARIANT_VEC;
	t->fam[REPSTOS_FAMILY_SET].read_variant = t->fam[REPSTOS_FAMILY_SET].variant;
	t->vec_rep_min = t->wide_rep_min = erms ? 4 * KIB : ~0ull;
	t->fam[REPSTOS_FAMILY_SET].inline_min = erms ? 4 * KIB : ~0u;
	t->source = why[r][erms];
}

/*
 * The conservative copy rule (copy.S), for CPUs no row describes: the
 * module routine, which every copy site of unknown size gets, "avx2"
 * wherever it runs, else "vec"; no copy site goes inline by rule (short
 * rep movsb cost 1.3-1.6x glibc's call below 128 bytes on Zen 4).  rep
 * movsb from 2 KiB with ERMS, as glibc does (not measured here: on the
 * one CPU measured, Zen 4, the loop won, and its row says so).  The
 * non-temporal threshold, 3/4 of a 32 MiB L3, is not measured either.
 */
static void conservative_copy(const struct repstos_cpu *cpu,
			      struct repstos_tuning *t)
{
	struct repstos_family_tuning *c = &t->fam[REPSTOS_FAMILY_COPY];
	int erms = (cpu->features & REPSTOS_CPU_ERMS) != 0;

	c->variant = repstos_policy_copy_supported(cpu, REPSTOS_COPY_VARIANT_AVX2) ?
		     REPSTOS_COPY_VARIANT_AVX2 : REPSTOS_COPY_VARIANT_VEC;
	c->read_variant = c->variant;
	c->inline_min = ~0u;
	t->copy_rep_min = erms ? 2 * KIB : ~0ull;
}

void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t)
{
	const struct measured *m = lookup(cpu);
	struct repstos_family_tuning *s = &t->fam[REPSTOS_FAMILY_SET];
	struct repstos_family_tuning *c = &t->fam[REPSTOS_FAMILY_COPY];

	memset(t, 0, sizeof(*t));
	t->short_rep_max = 128;
	t->copy_nt_min = 24 * KIB * KIB;
	if (!m) {
		conservative(cpu, t);
		conservative_copy(cpu, t);
		return;
	}
	s->variant = m->variant;
	s->read_variant = m->read_variant;
	t->vec_rep_min = m->vec_rep_min;
	t->wide_rep_min = m->wide_rep_min;
	s->inline_min = m->inline_min;
	c->variant = m->copy_variant;
	c->read_variant = m->copy_read_variant;
	c->inline_min = ~0u;
	t->copy_rep_min = m->copy_rep_min;
	/* a row's copy routine needs more than its set routine: a CPU the
	 * row fits without it gets the conservative copy rule */
	if (!repstos_policy_copy_supported(cpu, (enum repstos_copy_variant)c->variant))
		conservative_copy(cpu, t);
	t->source = m->source;
	if (m->costs)
		s->costs = *m->costs;
	if (m->copy_costs)
		c->costs = *m->copy_costs;
	repstos_costs_drop(&repstos_families[REPSTOS_FAMILY_SET], cpu, &s->costs);
	repstos_costs_drop(&repstos_families[REPSTOS_FAMILY_COPY], cpu, &c->costs);
}
