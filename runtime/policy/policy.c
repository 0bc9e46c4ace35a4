// SPDX-License-Identifier: MIT
/*
 * policy.c - which routine each site gets, per CPU.
 *
 * The rule is measured, not read off feature flags (bench has the
 * numbers): on AMD Zen 3 (ERMS+FSRM, no FSRS) inline `rep stosb` costs
 * 2-13x glibc's memset below 4 KiB, although the 2022 kernel inlined it
 * for FSRM and today's kernel, which sets FSRS on AMD CPUs with FSRM,
 * still would.  So:
 *
 *  - the module-wide choice (the stub's target, and every site whose
 *    size the compiler did not bound) is "vec": size-dispatched
 *    overlapping stores, with rep stosb only from vec_rep_min up, and
 *    only where ERMS says rep stosb is a good large-size engine;
 *  - a site whose size the compiler proved to be at least inline_min
 *    bytes becomes inline `rep stosb`, where ERMS makes that as fast as
 *    anything at that size and the call would only add its own cost.
 *
 * CPUs measured (the table below) get what was measured there; unknown
 * CPUs get the conservative rule: "vec" is correct on every x86-64 and
 * does not depend on rep-string microcode for small sizes.  A tuning
 * file written by repstos_tune() on the machine itself overrides both
 * (patcher/tune.h).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "policy.h"
#include "routines/routines.h"

#define KIB 1024u

struct profile {
	const char *name;
	struct repstos_cpu cpu;
};

#define F(x) REPSTOS_CPU_##x
static const struct profile profiles[] = {
	{ "generic", { REPSTOS_VENDOR_OTHER, 0, 0, 0, 0 } },
	{ "skylake", { REPSTOS_VENDOR_INTEL, 6, 0x55, 0,
		       F(ERMS) | F(REP_GOOD) | F(AVX) | F(AVX2) | F(AVX512F) |
		       F(AVX512BW) | F(AVX512VL) | F(BMI2) } },
	{ "icelake", { REPSTOS_VENDOR_INTEL, 6, 0x6a, 0,
		       F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		       F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2) } },
	{ "sapphirerapids", { REPSTOS_VENDOR_INTEL, 6, 0x8f, 0,
			      F(ERMS) | F(FSRM) | F(FZRM) | F(FSRS) | F(FSRC) |
			      F(REP_GOOD) | F(AVX) | F(AVX2) | F(AVX512F) |
			      F(AVX512BW) | F(AVX512VL) | F(BMI2) } },
	{ "zen2", { REPSTOS_VENDOR_AMD, 0x17, 0x31, 0,
		    F(REP_GOOD) | F(AVX) | F(AVX2) | F(BMI2) } },
	{ "zen3", { REPSTOS_VENDOR_AMD, 0x19, 0x01, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(BMI2) } },
	{ "zen4", { REPSTOS_VENDOR_AMD, 0x19, 0x11, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2) } },
	/* Zen 4 as KVM guests often see it: AVX-512 not exposed. */
	{ "zen4-noavx512", { REPSTOS_VENDOR_AMD, 0x19, 0x11, 0,
			     F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
			     F(BMI2) } },
	{ "zen5", { REPSTOS_VENDOR_AMD, 0x1a, 0x02, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2) } },
};
#undef F

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

const struct repstos_cpu *repstos_cpu_profile(const char *name)
{
	unsigned i;

	for (i = 0; i < NPROFILES; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i].cpu;
	return NULL;
}

const char *repstos_cpu_profile_name(unsigned i)
{
	return i < NPROFILES ? profiles[i].name : NULL;
}

/* ---- the variants ----------------------------------------------------- */

/*
 * What REPSTOS_VARIANTS says of each variant, by number, and the lookups
 * the runtime, the tool and the tests share: one table, so no list of
 * names or routines elsewhere can fall out of step with it.
 */

/* The names REPSTOS_VARIANT, --cpu and the tuning file spell. */
const char *const repstos_variant_names[REPSTOS_VARIANT_COUNT] = {
#define REPSTOS_X_NAME(e, name, sym, needs) [REPSTOS_VARIANT_##e] = name,
	REPSTOS_VARIANTS(REPSTOS_X_NAME)
#undef REPSTOS_X_NAME
};

/* Each variant's routine in this module, and what it needs of the CPU. */
struct routine_info {
	void *routine;
	unsigned needs;		/* enum repstos_feature bits */
};

static const struct routine_info variants[REPSTOS_VARIANT_COUNT] = {
#define REPSTOS_X_VARIANT(e, name, sym, needs)				\
	[REPSTOS_VARIANT_##e] = { (void *)sym, needs },
	REPSTOS_VARIANTS(REPSTOS_X_VARIANT)
#undef REPSTOS_X_VARIANT
};

/* The same for the copy routines (REPSTOS_COPY_VARIANTS). */
const char *const repstos_copy_variant_names[REPSTOS_COPY_VARIANT_COUNT] = {
#define REPSTOS_X_NAME(e, name, sym, needs) [REPSTOS_COPY_VARIANT_##e] = name,
	REPSTOS_COPY_VARIANTS(REPSTOS_X_NAME)
#undef REPSTOS_X_NAME
};

static const struct routine_info copy_variants[REPSTOS_COPY_VARIANT_COUNT] = {
#define REPSTOS_X_VARIANT(e, name, sym, needs)				\
	[REPSTOS_COPY_VARIANT_##e] = { (void *)sym, needs },
	REPSTOS_COPY_VARIANTS(REPSTOS_X_VARIANT)
#undef REPSTOS_X_VARIANT
};

/* The number of name in names[0..n), or -1. */
static int name_index(const char *const *names, int n, const char *name)
{
	int v;

	for (v = 0; v < n; v++)
		if (!strcmp(names[v], name))
			return v;
	return -1;
}

/* The number of the routine at addr in t[0..n), or -1. */
static int routine_index(const struct routine_info *t, int n, const void *addr)
{
	int v;

	for (v = 0; v < n; v++)
		if (addr == t[v].routine)
			return v;
	return -1;
}

/* Has cpu what routine v of t[0..n) needs? */
static int runs(const struct repstos_cpu *cpu, const struct routine_info *t,
		int n, int v)
{
	return v >= 0 && v < n && (cpu->features & t[v].needs) == t[v].needs;
}

const char *repstos_variant_name(enum repstos_variant v)
{
	return (unsigned)v < REPSTOS_VARIANT_COUNT ? repstos_variant_names[v] : NULL;
}

int repstos_variant_by_name(const char *name)
{
	return name_index(repstos_variant_names, REPSTOS_VARIANT_COUNT, name);
}

const char *repstos_copy_variant_name(enum repstos_copy_variant v)
{
	return (unsigned)v < REPSTOS_COPY_VARIANT_COUNT ?
	       repstos_copy_variant_names[v] : NULL;
}

int repstos_copy_variant_by_name(const char *name)
{
	return name_index(repstos_copy_variant_names, REPSTOS_COPY_VARIANT_COUNT,
			  name);
}

void *repstos_copy_variant_routine(enum repstos_copy_variant v)
{
	return (unsigned)v < REPSTOS_COPY_VARIANT_COUNT ?
	       copy_variants[v].routine : NULL;
}

int repstos_copy_variant_by_routine(const void *addr)
{
	return routine_index(copy_variants, REPSTOS_COPY_VARIANT_COUNT, addr);
}

int repstos_policy_copy_supported(const struct repstos_cpu *cpu,
				  enum repstos_copy_variant v)
{
	return runs(cpu, copy_variants, REPSTOS_COPY_VARIANT_COUNT, (int)v);
}

void *repstos_variant_routine(enum repstos_variant v)
{
	return (unsigned)v < REPSTOS_VARIANT_COUNT ? variants[v].routine : NULL;
}

int repstos_variant_by_routine(const void *addr)
{
	return routine_index(variants, REPSTOS_VARIANT_COUNT, addr);
}

int repstos_policy_supported(const struct repstos_cpu *cpu,
			     enum repstos_variant v)
{
	return runs(cpu, variants, REPSTOS_VARIANT_COUNT, (int)v);
}

/* A routine that needs no AVX feature runs on every x86-64, so it can
 * touch no ymm, zmm or xmm16-31: the one test of what a narrow site
 * (repstos_site.h, "The vector state") may call.  "vec" is both
 * families' SSE-only routine. */
int repstos_form_narrow(int copy, int v)
{
	const unsigned avx = REPSTOS_CPU_AVX | REPSTOS_CPU_AVX2 |
			     REPSTOS_CPU_AVX512F;
	unsigned needs = copy ? copy_variants[v].needs : variants[v].needs;

	if (!(needs & avx))
		return v;
	return copy ? (int)REPSTOS_COPY_VARIANT_VEC : (int)REPSTOS_VARIANT_VEC;
}

int repstos_cpu_as(struct repstos_cpu *cpu, const char *name)
{
	const struct repstos_cpu *p;

	if (!name || !*name || !strcmp(name, "native"))
		return 0;
	p = repstos_cpu_profile(name);
	if (!p)
		return -1;
	cpu->vendor = p->vendor;
	cpu->family = p->family;
	cpu->model = p->model;
	cpu->features &= p->features;
	return 0;
}

/* ---- the cost model ---------------------------------------------------- */

unsigned repstos_size_class(unsigned long long n)
{
	unsigned c = 0;

	while (n && c < REPSTOS_NCLASS - 1) {
		n >>= 1;
		c++;
	}
	return c;
}

unsigned long long repstos_class_lo(unsigned c)
{
	return c ? 1ull << (c - 1) : 0;
}

unsigned long long repstos_class_hi(unsigned c)
{
	return c ? (1ull << c) - 1 : 0;
}

int repstos_cost_known(const struct repstos_costs *k, int v)
{
	unsigned c;

	if (v < 0 || v >= REPSTOS_NFORM)
		return 0;
	for (c = 0; c < REPSTOS_NCLASS; c++)
		if (!k->cns[v][c])
			return 0;
	return 1;
}

unsigned repstos_cost_forms(const struct repstos_costs *k)
{
	unsigned mask = 0;
	int v;

	for (v = 0; v < REPSTOS_NFORM; v++)
		if (repstos_cost_known(k, v))
			mask |= 1u << v;
	return mask;
}

/* Forget the costs of forms this CPU cannot run (a row measured with
 * AVX-512, used under a REPSTOS_CPU profile without it); copy: of the
 * copy family. */
static void drop_unsupported(const struct repstos_cpu *cpu, int copy,
			     struct repstos_costs *k)
{
	int v;

	for (v = 0; v < REPSTOS_NFORM; v++) {
		int runs = copy ? repstos_policy_copy_supported(cpu,
						(enum repstos_copy_variant)v) :
				  repstos_policy_supported(cpu,
						(enum repstos_variant)v);

		if (!runs) {
			memset(k->cns[v], 0, sizeof(k->cns[v]));
			k->change[v] = 0;
			k->change_known &= ~(1u << v);
		}
	}
}

/*
 * The measured table: vendor, family, model ranges and the features the
 * chosen routines need, to what bench measured there
 * (bench/results/VENDOR-FAMILY-MODEL/) and, where `repstos tune
 * --report` printed one there, the cost table.  Only rows measured on a
 * real machine belong here; every other CPU gets the conservative rule
 * below.  Rows are tried in order: put the one needing more first.
 *
 * AMD family 0x1a (Zen 5): measured on an AMD EPYC family 0x1a model 2
 * (virtualized, 2 cores, glibc 2.36 choosing __memset_avx512_unaligned_erms;
 * bench/results/amd-1a-02): "avx512" is ~2x glibc on the 1..256 mix
 * and its 64-byte store loop beats rep stosb (glibc's choice from 2 KiB)
 * by 1.5-1.8x from 4 KiB to 256 KiB; rep stosb wins again from 512 KiB
 * (the loop: 8.5 us at 1 MiB, rep stosb 7.2).  So rep stosb from
 * 512 KiB, and a site goes inline only when proven that large.  "vec"
 * loses to rep stosb from 2 KiB.  No cost table was measured there.
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
 * The cost table is `repstos tune --report`'s on that machine, with
 * AVX-512; the forms a CPU cannot run are dropped at run time.
 */
struct measured {
	unsigned vendor, family;
	unsigned char models[4][2];	/* inclusive ranges; {0, 0} ends */
	unsigned need;			/* features the row needs */
	enum repstos_variant variant;
	unsigned long long vec_rep_min, wide_rep_min;
	unsigned inline_min;
	const struct repstos_costs *costs;	/* or NULL */
	const struct repstos_costs *copy_costs;	/* or NULL */
	const char *source;
};

static const struct repstos_costs zen4_costs = {
	.cns = {
		[REPSTOS_VARIANT_ORIGINAL] = {
			190, 217, 298, 515, 569, 515, 731, 758,
			1137, 1354, 2654, 5253, 10452, 21716, 44185, 90554,
			180126, 359950, 719600, 1441525, 2892900, 2893680 },
		[REPSTOS_VARIANT_INLINE] = {
			258, 258, 258, 259, 259, 258, 261, 265,
			1224, 1337, 1572, 2070, 3804, 7259, 14775, 29321,
			57488, 113171, 225140, 450131, 1124480, 1112943 },
		[REPSTOS_VARIANT_ERMS] = {
			190, 217, 325, 542, 596, 542, 758, 276,
			1226, 1367, 1619, 2099, 3871, 7349, 14802, 29338,
			57560, 113250, 225200, 450175, 1115460, 1112371 },
		[REPSTOS_VARIANT_REP_GOOD] = {
			1111, 1111, 1111, 1111, 686, 687, 703, 699,
			1493, 1631, 2013, 2720, 4851, 9213, 17987, 37163,
			78223, 157650, 315200, 632325, 1364620, 1367440 },
		[REPSTOS_VARIANT_VEC] = {
			190, 190, 190, 190, 244, 163, 217, 218,
			461, 894, 1760, 3493, 3838, 7329, 14793, 29446,
			57665, 113458, 225540, 450413, 1128060, 1128480 },
		[REPSTOS_VARIANT_AVX2] = {
			271, 271, 271, 217, 190, 190, 163, 190,
			272, 597, 1030, 1896, 4447, 7397, 14851, 29410,
			57630, 113421, 225333, 450175, 1115800, 1118660 },
		[REPSTOS_VARIANT_AVX512] = {
			354, 353, 354, 354, 354, 353, 354, 354,
			329, 543, 976, 1842, 4474, 7397, 14916, 29401,
			57647, 113379, 225400, 450300, 1108643, 1115086 },
		[REPSTOS_VARIANT_AVX512_SPLIT] = {
			163, 163, 163, 163, 163, 163, 163, 191,
			273, 488, 921, 1788, 4423, 7379, 14850, 29400,
			57646, 113375, 225333, 450163, 1108071, 1101071 },
		[REPSTOS_VARIANT_STOSB_AVX2] = {
			281, 281, 281, 282, 281, 283, 245, 218,
			273, 597, 1030, 1896, 4501, 7395, 14877, 29293,
			57647, 113500, 225600, 450300, 1110840, 1113060 },
	},
	/* tune's change costs there (three runs agree within 0.7 ns):
	 * nothing for avx512 and rep stosb in place, 2.7 ns for
	 * avx512_split, 4.0 for stosb_avx2 (branches at 32 and 128 bytes).
	 * avx2 from 256 bytes and stosb_avx2 from 32 were measured again
	 * after their code changed (66e5fee, 03d7725; three runs of tune,
	 * medians): the class ends at +3 of the loop, where avx2 now keeps
	 * glibc's shape, cost 0.8 ns more, four stores 32..63 0.8 more and
	 * 64..127 0.85 less. */
	.change = {
		[REPSTOS_VARIANT_ORIGINAL] = 1386,
		[REPSTOS_VARIANT_INLINE] = 13,
		[REPSTOS_VARIANT_ERMS] = 1015,
		[REPSTOS_VARIANT_REP_GOOD] = 36,
		[REPSTOS_VARIANT_VEC] = 982,
		[REPSTOS_VARIANT_AVX2] = 801,
		[REPSTOS_VARIANT_AVX512] = 3,
		[REPSTOS_VARIANT_AVX512_SPLIT] = 276,
		[REPSTOS_VARIANT_STOSB_AVX2] = 396,
	},
	.change_known = (1u << REPSTOS_VARIANT_COUNT) - 1,
};

/* `repstos tune --report`'s copy table on the same machine (AMD EPYC
 * 0x19/0x11, KVM): rep movsb in place takes 3.8 ns flat below 128
 * bytes, where "avx512" takes 1.9-2.5, so no copy site of a size known
 * to be small goes inline here; from 2 KiB the forms are level. */
static const struct repstos_costs zen4_copy_costs = {
	.cns = {
		[REPSTOS_COPY_VARIANT_ORIGINAL] = {
			190, 217, 300, 379, 569, 677, 894, 948,
			1382, 2375, 4415, 8449, 17254, 33420, 67153, 133618,
			266164, 588870, 1094536, 2155033, 4308150, 4301125 },
		[REPSTOS_COPY_VARIANT_INLINE] = {
			380, 380, 383, 380, 380, 381, 384, 386,
			1330, 1539, 1830, 2700, 4432, 7912, 17469, 63067,
			123903, 364895, 646509, 1117150, 2323700, 2366275 },
		[REPSTOS_COPY_VARIANT_VEC] = {
			136, 135, 164, 163, 163, 190, 190, 297,
			515, 902, 1771, 3519, 7176, 14151, 28855, 59457,
			115454, 286625, 509391, 1110317, 2272125, 2268100 },
		[REPSTOS_COPY_VARIANT_AVX2] = {
			163, 163, 190, 190, 190, 263, 247, 263,
			393, 569, 949, 1816, 4428, 7892, 16272, 56559,
			113503, 234550, 475618, 1065417, 2191750, 2230300 },
		[REPSTOS_COPY_VARIANT_AVX512] = {
			190, 190, 191, 190, 190, 190, 190, 249,
			449, 757, 1105, 2034, 4488, 8499, 17785, 57796,
			114297, 236250, 478436, 1070767, 2214275, 2210800 },
	},
	/* tune's change costs there, the median of three runs: "avx512"
	 * branches once at 64 bytes and climbs a ladder above */
	.change = {
		[REPSTOS_COPY_VARIANT_ORIGINAL] = 1204,
		[REPSTOS_COPY_VARIANT_INLINE] = 8,
		[REPSTOS_COPY_VARIANT_VEC] = 1045,
		[REPSTOS_COPY_VARIANT_AVX2] = 944,
		[REPSTOS_COPY_VARIANT_AVX512] = 268,
	},
	.change_known = (1u << REPSTOS_COPY_VARIANT_COUNT) - 1,
};

#define F(x) REPSTOS_CPU_##x
#define ZEN4_MODELS { { 0x10, 0x1f }, { 0x60, 0x7f }, { 0xa0, 0xaf } }
static const struct measured table[] = {
	{ REPSTOS_VENDOR_AMD, 0x19, ZEN4_MODELS,
	  F(ERMS) | F(AVX2) | F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2),
	  REPSTOS_VARIANT_AVX512_SPLIT, 2 * KIB, 4 * KIB, 4 * KIB, &zen4_costs,
	  &zen4_copy_costs, "measured: AMD family 0x19 Zen 4 (EPYC model 0x11)" },
	{ REPSTOS_VENDOR_AMD, 0x19, ZEN4_MODELS, F(ERMS) | F(AVX2),
	  REPSTOS_VARIANT_STOSB_AVX2, 2 * KIB, 4 * KIB, 4 * KIB, &zen4_costs,
	  &zen4_copy_costs,
	  "measured: AMD family 0x19 Zen 4 (EPYC model 0x11), no AVX-512" },
	{ REPSTOS_VENDOR_AMD, 0x1a, { { 0x00, 0xff } },
	  F(ERMS) | F(AVX512F) | F(AVX512BW) | F(AVX512VL) | F(BMI2),
	  REPSTOS_VARIANT_AVX512, 2 * KIB, 512 * KIB, 512 * KIB, NULL,
	  NULL, "measured: AMD family 0x1a (EPYC model 2)" },
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
	t->variant = r == 2 ? REPSTOS_VARIANT_AVX512_SPLIT :
		     r == 1 ? REPSTOS_VARIANT_AVX2 : REPSTOS_VARIANT_VEC;
	t->vec_rep_min = t->wide_rep_min = erms ? 4 * KIB : ~0ull;
	t->inline_min = erms ? 4 * KIB : ~0u;
	t->source = why[r][erms];
}

/*
 * The copy routines' choice (copy.S): the module-wide routine, which
 * every copy site of unknown size gets, avx2 wherever it runs, else
 * vec; no copy site goes inline by rule (short rep movsb cost 1.3-1.6x
 * glibc's call below 128 bytes on Zen 4).  Sites of known size choose
 * from the copy cost table where a row has one (repstos_policy_copy_site).
 *
 * rep movsb for large copies: measured on AMD EPYC family 0x19 model
 * 0x11 (Zen 4; bench/results/amd-19-11/copybench.txt), the avx2
 * loop beats it at every size from 2 KiB to 1 MiB (1.02-1.16x glibc,
 * against 0.75-1.0x with rep movsb from 2 KiB, glibc's own threshold
 * there), so on AMD family 0x19 the loop copies everything below the
 * non-temporal threshold.  Elsewhere (not measured) rep movsb from
 * 2 KiB with ERMS, as glibc does.  The non-temporal threshold, 3/4 of a
 * 32 MiB L3, is not measured either.
 */
void repstos_policy_copy(const struct repstos_cpu *cpu, struct repstos_tuning *t)
{
	int erms = (cpu->features & REPSTOS_CPU_ERMS) != 0;
	int zen4 = cpu->vendor == REPSTOS_VENDOR_AMD && cpu->family == 0x19;

	/* avx512 on Zen 4 (AMD EPYC 0x19/0x11, bench/results/amd-19-11,
	 * two full runs): worst fixed size 0.87x glibc against avx2's 0.67x
	 * (avx2 loops from 257 bytes: 384..768 B 0.77-0.95x), the
	 * distributions' geomean 1.13x against 1.09x.  Elsewhere avx2. */
	if (zen4 && repstos_policy_copy_supported(cpu, REPSTOS_COPY_VARIANT_AVX512))
		t->copy_variant = REPSTOS_COPY_VARIANT_AVX512;
	else
		t->copy_variant = repstos_policy_copy_supported(cpu, REPSTOS_COPY_VARIANT_AVX2) ?
				  REPSTOS_COPY_VARIANT_AVX2 : REPSTOS_COPY_VARIANT_VEC;
	t->copy_rep_min = erms && !zen4 ? 2 * KIB : ~0ull;
	t->copy_nt_min = 24 * KIB * KIB;
	t->copy_inline_min = ~0u;
}

void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t)
{
	const struct measured *m = lookup(cpu);

	memset(t, 0, sizeof(*t));
	t->short_rep_max = 128;
	repstos_policy_copy(cpu, t);
	if (!m) {
		conservative(cpu, t);
		return;
	}
	t->variant = m->variant;
	t->vec_rep_min = m->vec_rep_min;
	t->wide_rep_min = m->wide_rep_min;
	t->inline_min = m->inline_min;
	t->source = m->source;
	if (m->costs) {
		t->costs = *m->costs;
		drop_unsupported(cpu, 0, &t->costs);
	}
	if (m->copy_costs) {
		t->copy_costs = *m->copy_costs;
		drop_unsupported(cpu, 1, &t->copy_costs);
	}
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

enum repstos_variant repstos_policy_site_tuned(const struct repstos_tuning *t,
					       enum repstos_variant module,
					       int forced,
					       const struct repstos_site *e)
{
	unsigned known;

	if (forced || e->size_kind == REPSTOS_SIZE_UNKNOWN)
		return module;
	known = repstos_cost_forms(&t->costs);
	if (known)
		return (enum repstos_variant)cheapest(&t->costs, known,
				(int)module,
				repstos_size_class(e->size_min),
				repstos_size_class(e->size_max));
	if (e->size_min >= t->inline_min)
		return REPSTOS_VARIANT_INLINE;
	return module;
}

unsigned long long repstos_policy_weighted(const struct repstos_costs *k,
					   int v, const unsigned long long *hist)
{
	unsigned __int128 sum = 0;
	unsigned c;

	if (!repstos_cost_known(k, v))
		return ~0ull;
	for (c = 0; c < REPSTOS_NCLASS; c++)
		sum += (unsigned __int128)hist[c] * k->cns[v][c];
	/* ~0ull says "unknown": a real sum stops one short of it */
	return sum >= ~0ull ? ~0ull - 1 : (unsigned long long)sum;
}

static int any_calls(const unsigned long long *hist)
{
	unsigned c;

	for (c = 0; hist && c < REPSTOS_NCLASS; c++)
		if (hist[c])
			return 1;
	return 0;
}

/* The change cost of form v over the calls of hist: its change cost
 * times the expected changes of class between consecutive calls drawn
 * from hist, N - sum(h^2) / N. */
static unsigned __int128 change_term(const struct repstos_costs *k, int v,
				     const unsigned long long *hist)
{
	unsigned __int128 n = 0, sq = 0;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++) {
		n += hist[c];
		sq += (unsigned __int128)hist[c] * hist[c];
	}
	return n ? k->change[v] * (n * n - sq) / n : 0;
}

/* Does one size class hold at least 95% of the calls? */
static int one_class(const unsigned long long *hist)
{
	unsigned long long total = 0, top = 0;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++) {
		total += hist[c];
		top = hist[c] > top ? hist[c] : top;
	}
	return (unsigned __int128)top * 100 >= (unsigned __int128)total * 95;
}

/* Does the table say what a change of class costs every form it has? */
static int has_change(const struct repstos_costs *k)
{
	unsigned forms = repstos_cost_forms(k);

	return forms && !(forms & ~k->change_known);
}

unsigned long long repstos_policy_expected(const struct repstos_costs *k,
					   int v, const unsigned long long *hist)
{
	unsigned long long w = repstos_policy_weighted(k, v, hist);
	unsigned __int128 x;

	if (w == ~0ull || !has_change(k))
		return w;
	x = w + change_term(k, v, hist);
	return x >= ~0ull ? ~0ull - 1 : (unsigned long long)x;
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
		      int module, const unsigned long long *hist)
{
	unsigned long long best = ~0ull, w;
	int v, pick = -1, by_change = has_change(k);

	for (v = 0; v < REPSTOS_NFORM; v++) {
		if (!(known >> v & 1) ||
		    (!by_change && !one_class(hist) && v != module &&
		     v != REPSTOS_VARIANT_INLINE))
			continue;
		w = repstos_policy_expected(k, v, hist);
		if (w != ~0ull && (pick < 0 || w < best))
			best = w, pick = v;
	}
	if (pick < 0)
		return module;
	w = repstos_policy_expected(k, module, hist);
	if ((known >> module & 1) && w != ~0ull &&
	    (unsigned __int128)w * 100 <= (unsigned __int128)best * 103)
		return module;
	return pick;
}

enum repstos_variant repstos_policy_site_profiled(const struct repstos_tuning *t,
						  enum repstos_variant module,
						  int forced,
						  const struct repstos_site *e,
						  const unsigned long long *hist)
{
	unsigned known;

	/* the forms the table has only when there is a profile to weigh:
	 * this runs for every site at start-up (10,000 sites took 0.7 ms
	 * more when it counted them first) */
	if (forced || !any_calls(hist) ||
	    !(known = repstos_cost_forms(&t->costs)))
		return repstos_policy_site_tuned(t, module, forced, e);
	return (enum repstos_variant)by_profile(&t->costs, known, (int)module,
						hist);
}

/* The copy forms t's table has that a site of op may take: rep movsb
 * in place not for a move that may overlap backwards, whatever its
 * cost. */
static unsigned copy_forms(const struct repstos_tuning *t, unsigned op)
{
	unsigned known = repstos_cost_forms(&t->copy_costs);

	if (!repstos_copy_inline_ok(op))
		known &= ~(1u << REPSTOS_COPY_VARIANT_INLINE);
	return known;
}

enum repstos_copy_variant repstos_policy_copy_site(const struct repstos_tuning *t,
						   enum repstos_copy_variant module,
						   int forced,
						   const struct repstos_site *e)
{
	unsigned known;

	if (forced || e->size_kind == REPSTOS_SIZE_UNKNOWN)
		return module;
	known = copy_forms(t, e->op);
	if (known)
		return (enum repstos_copy_variant)cheapest(&t->copy_costs,
				known, (int)module,
				repstos_size_class(e->size_min),
				repstos_size_class(e->size_max));
	if (repstos_copy_inline_ok(e->op) && e->size_min >= t->copy_inline_min)
		return REPSTOS_COPY_VARIANT_INLINE;
	return module;
}

enum repstos_copy_variant
repstos_policy_copy_site_profiled(const struct repstos_tuning *t,
				  enum repstos_copy_variant module, int forced,
				  const struct repstos_site *e,
				  const unsigned long long *hist)
{
	unsigned known;

	if (forced || !any_calls(hist) || !(known = copy_forms(t, e->op)))
		return repstos_policy_copy_site(t, module, forced, e);
	return (enum repstos_copy_variant)by_profile(&t->copy_costs, known,
						     (int)module, hist);
}

int repstos_policy_form(const struct repstos_tuning *t,
			const struct repstos_modules *m,
			const struct repstos_site *e,
			const unsigned long long *hist)
{
	int copy = repstos_op_is_copy(e->op);
	int v = copy ?
		(int)repstos_policy_copy_site_profiled(t,
			(enum repstos_copy_variant)m->copy_variant,
			m->copy_forced, e, hist) :
		(int)repstos_policy_site_profiled(t,
			(enum repstos_variant)m->variant, m->forced, e, hist);

	return repstos_version_narrow(e->version) ? repstos_form_narrow(copy, v) :
						   v;
}

/* ---- the tuning file -------------------------------------------------- */

int repstos_text_put(char *buf, unsigned len, unsigned *at,
		     const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n < 0 || (unsigned)n >= len - *at)
		return -1;
	*at += (unsigned)n;
	return 0;
}

/* The line words of a family's table: its costs and its change costs. */
static const char *const table_words[2][2] = {
	{ "cost", "change" }, { "copy_cost", "copy_change" },
};

const char *repstos_family_variant_name(int copy, int v)
{
	return copy ? repstos_copy_variant_name((enum repstos_copy_variant)v) :
		      repstos_variant_name((enum repstos_variant)v);
}

/* A family's table as tuning-file lines: a cost line per form it has,
 * then a change line per form whose change cost it has. */
static int put_table(char *buf, unsigned len, unsigned *at, int copy,
		     const struct repstos_costs *k)
{
	unsigned c;
	int v, r = 0;

	for (v = 0; !r && v < REPSTOS_NFORM; v++) {
		if (!repstos_cost_known(k, v))
			continue;
		r = repstos_text_put(buf, len, at, "%s %s",
				     table_words[copy][0], repstos_family_variant_name(copy, v));
		for (c = 0; !r && c < REPSTOS_NCLASS; c++)
			r = repstos_text_put(buf, len, at, " %u", k->cns[v][c]);
		if (!r)
			r = repstos_text_put(buf, len, at, "\n");
	}
	for (v = 0; !r && v < REPSTOS_NFORM; v++)
		if (k->change_known >> v & 1)
			r = repstos_text_put(buf, len, at, "%s %s %u\n",
					     table_words[copy][1],
					     repstos_family_variant_name(copy, v), k->change[v]);
	return r;
}

int repstos_tuning_format(char *buf, unsigned len, const struct repstos_cpu *cpu,
			  const struct repstos_tuning *t)
{
	const char *module = repstos_variant_name(t->variant);
	unsigned at = 0;
	int r;

	if (!module)	/* not a variant: vec, correct on every x86-64 */
		module = repstos_variant_name(REPSTOS_VARIANT_VEC);
	r = repstos_text_put(buf, len, &at,
		"# repstos tuning (repstos_tune): applies only to this cpu\n"
		"cpu %x %x %x %x %x\n"
		"variant %s\nvec_rep_min %llu\nwide_rep_min %llu\n"
		"short_rep_max %llu\ninline_min %u\n",
		cpu->vendor, cpu->family, cpu->model, cpu->stepping,
		cpu->features, module, t->vec_rep_min, t->wide_rep_min,
		t->short_rep_max, t->inline_min);
	if (!r)
		r = put_table(buf, len, &at, 0, &t->costs);
	if (!r && repstos_copy_variant_name(t->copy_variant))
		r = repstos_text_put(buf, len, &at, "copy_variant %s\n",
				     repstos_copy_variant_name(t->copy_variant));
	if (!r)
		r = put_table(buf, len, &at, 1, &t->copy_costs);
	return r ? -1 : (int)at;
}

/* Parsing without stdio's sscanf: it runs in every program's start-up. */
const char *repstos_text_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

const char *repstos_text_word(const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && (p[n] == ' ' || p[n] == '\t') ?
		repstos_text_blank(p + n) : NULL;
}

const char *repstos_text_number(const char *p, int base, unsigned long long *v)
{
	const char *s = p;

	*v = 0;
	for (;; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else
			break;
		if (*v > (~0ull - d) / (unsigned)base)
			return NULL;	/* does not fit: not a number we wrote */
		*v = *v * (unsigned)base + d;
	}
	return p == s ? NULL : repstos_text_blank(p);
}

/* The variant (copy: the copy variant) whose name starts p (followed
 * by a blank or the end of the line), or -1. */
static int name_at(const char *p, int copy)
{
	char name[32];		/* longer than any variant name */
	size_t n = strcspn(p, " \t\n");

	if (n >= sizeof(name))
		return -1;
	memcpy(name, p, n);
	name[n] = 0;
	return copy ? repstos_copy_variant_by_name(name) :
		      repstos_variant_by_name(name);
}

/* A cost line's REPSTOS_NCLASS numbers after the name, each 1..2^32-1. */
static const char *costs_at(const char *p, unsigned (*cns)[REPSTOS_NCLASS])
{
	unsigned long long v;
	unsigned c;

	p = repstos_text_blank(p + strcspn(p, " \t\n"));
	for (c = 0; c < REPSTOS_NCLASS; c++) {
		p = repstos_text_number(p, 10, &v);
		if (!p || !v || v > 0xffffffffu)
			return NULL;
		(*cns)[c] = (unsigned)v;
	}
	return p;
}

/* A change line's number after the name, 0..2^32-1. */
static const char *change_at(const char *p, unsigned *change)
{
	unsigned long long v;

	p = repstos_text_blank(p + strcspn(p, " \t\n"));
	if (!(p = repstos_text_number(p, 10, &v)) || v > 0xffffffffu)
		return NULL;
	*change = (unsigned)v;
	return p;
}

/*
 * A line of a family's table at p ([copy_]cost or [copy_]change) into
 * n's table of that family: the family (1 copy, 0 set) and *q past the
 * line's numbers, or NULL when they are malformed; -1 when p starts no
 * table line.
 */
static int table_line(const char *p, struct repstos_tuning *n, const char **q)
{
	int copy, what, v;

	for (copy = 0; copy < 2; copy++)
		for (what = 0; what < 2; what++) {
			struct repstos_costs *k = REPSTOS_TUNING_COSTS(n, copy);

			if (!(*q = repstos_text_word(p, table_words[copy][what])))
				continue;
			if ((v = name_at(*q, copy)) < 0)
				*q = NULL;
			else if (!what)
				*q = costs_at(*q, &k->cns[v]);
			else if ((*q = change_at(*q, &k->change[v])))
				k->change_known |= 1u << v;
			return copy;
		}
	return -1;
}

int repstos_tuning_parse(const char *text, const struct repstos_cpu *cpu,
			 struct repstos_tuning *t)
{
	const unsigned want[5] = { cpu->vendor, cpu->family, cpu->model,
				   cpu->stepping, cpu->features };
	struct repstos_tuning n = *t;
	const char *p = text, *q;
	int have_cpu = 0, have_table[2] = { 0, 0 };

	memset(&n.costs, 0, sizeof(n.costs));
	memset(&n.copy_costs, 0, sizeof(n.copy_costs));

	while (*p) {
		unsigned long long v;
		int i;

		p = repstos_text_blank(p);
		if ((q = repstos_text_word(p, "cpu"))) {
			for (i = 0; i < 5; i++) {
				if (!(q = repstos_text_number(q, 16, &v)))
					return -1;
				if (v != want[i])
					return 0;
			}
			have_cpu = 1;
		} else if ((q = repstos_text_word(p, "variant"))) {
			if ((i = name_at(q, 0)) < 0)
				return -1;
			n.variant = i;
			q += strlen(repstos_variant_names[i]);
		} else if ((i = table_line(p, &n, &q)) >= 0) {
			if (!q)
				return -1;
			have_table[i] = 1;
		} else if ((q = repstos_text_word(p, "copy_variant"))) {
			if ((i = name_at(q, 1)) < 0)
				return -1;
			n.copy_variant = i;
			q += strlen(repstos_copy_variant_names[i]);
		} else if ((q = repstos_text_word(p, "vec_rep_min"))) {
			if (!(q = repstos_text_number(q, 10, &v)))
				return -1;
			n.vec_rep_min = v;
		} else if ((q = repstos_text_word(p, "wide_rep_min"))) {
			if (!(q = repstos_text_number(q, 10, &v)))
				return -1;
			n.wide_rep_min = v;
		} else if ((q = repstos_text_word(p, "short_rep_max"))) {
			if (!(q = repstos_text_number(q, 10, &v)))
				return -1;
			n.short_rep_max = v;
		} else if ((q = repstos_text_word(p, "inline_min"))) {
			if (!(q = repstos_text_number(q, 10, &v)) || v > ~0u)
				return -1;
			n.inline_min = (unsigned)v;
		} else if (*p == '#' || *p == '\n') {
			q = p;
		} else {
			return -1;
		}
		/* a last line with no newline was cut (or is being written) */
		if (!(q = strchr(q, '\n')))
			return -1;
		p = q + 1;
	}
	if (!have_cpu)
		return -1;
	if (!repstos_policy_supported(cpu, (enum repstos_variant)n.variant))
		return -1;
	if (!repstos_policy_copy_supported(cpu,
			(enum repstos_copy_variant)n.copy_variant))
		return -1;
	if (!have_table[0])
		n.costs = t->costs;		/* the policy's table stays */
	if (!have_table[1])
		n.copy_costs = t->copy_costs;
	drop_unsupported(cpu, 0, &n.costs);
	drop_unsupported(cpu, 1, &n.copy_costs);
	n.source = "tuning file";
	*t = n;
	return 1;
}

/* Not in a secure execution (set-user-ID...): there the user may not
 * name a file for the program to open. */
const char *repstos_tuning_path(void)
{
	const char *path = secure_getenv("REPSTOS_TUNING");

	return path ? path : "/etc/repstos/tuning";
}

/* Only a regular file, so that no path (a FIFO, a device) can make
 * start-up wait or act; only root's or the real user's, so that nobody
 * else's file steers the program. */
const char *repstos_untrusted(int fd, struct stat *st)
{
	if (fstat(fd, st) || !S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != 0 && st->st_uid != getuid())
		return "owned by neither root nor the user";
	return NULL;
}

/* Plain system calls, one open() when there is no file: this runs in
 * every module's start-up.  O_NONBLOCK: opening a FIFO must not wait
 * for a writer before trusted() turns it away.  A file is read whole or
 * not at all: one that does not fit in the buffer is malformed, not cut
 * (a line cut at the end once read "variant avx512_split" as
 * "variant avx512"), and so is one holding a NUL. */
int repstos_tuning_load(const char *path, const struct repstos_cpu *cpu,
			struct repstos_tuning *t, int *other)
{
	char text[REPSTOS_TUNING_MAX];
	struct stat st;
	ssize_t n = 0, k = 1;
	int fd, r;

	repstos_policy_tuning(cpu, t);
	*other = 0;
	if (!path || !*path)
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (repstos_untrusted(fd, &st)) {
		close(fd);
		return 0;
	}
	/* one byte more than fits: to see that it does not */
	while (k > 0 && n < (ssize_t)sizeof(text)) {
		k = read(fd, text + n, sizeof(text) - (size_t)n);
		n += k > 0 ? k : 0;
	}
	close(fd);
	if (n <= 0)
		return 0;
	if (n == (ssize_t)sizeof(text) || memchr(text, 0, (size_t)n))
		return -1;
	text[n] = 0;
	r = repstos_tuning_parse(text, cpu, t);
	*other = r == 0;
	return r;
}

/* Let the routines whose bytes these are run what cpu has (routines.h):
 * the tool's, for the CPU it measures; each module's, at its start-up. */
void repstos_routines_enable(const struct repstos_cpu *cpu,
			     unsigned char *can_avx2, unsigned char *can_avx512)
{
	__atomic_store_n(can_avx2,
			 repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX2),
			 __ATOMIC_RELAXED);
	__atomic_store_n(can_avx512,
			 repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX512),
			 __ATOMIC_RELAXED);
}
