// SPDX-License-Identifier: MIT
/*
 * family.c - the variant registry: each family's names, routines and
 * what they need, from the contract's one list of each
 * (REPSTOS_VARIANTS, REPSTOS_COPY_VARIANTS), and the lookups the
 * runtime, the tool and the tests share.  One table a family, so no list
 * of names or routines elsewhere can fall out of step with it.
 */
#include <string.h>
#include "family.h"
#include "policy.h"
#include "routines/routines.h"

const char *const repstos_variant_names[REPSTOS_VARIANT_COUNT] = {
#define REPSTOS_X_NAME(e, name, sym, needs) [REPSTOS_VARIANT_##e] = name,
	REPSTOS_VARIANTS(REPSTOS_X_NAME)
#undef REPSTOS_X_NAME
};

static const struct repstos_routine set_routines[REPSTOS_VARIANT_COUNT] = {
#define REPSTOS_X_VARIANT(e, name, sym, needs)				\
	[REPSTOS_VARIANT_##e] = { (void *)sym, needs },
	REPSTOS_VARIANTS(REPSTOS_X_VARIANT)
#undef REPSTOS_X_VARIANT
};

const char *const repstos_copy_variant_names[REPSTOS_COPY_VARIANT_COUNT] = {
#define REPSTOS_X_NAME(e, name, sym, needs) [REPSTOS_COPY_VARIANT_##e] = name,
	REPSTOS_COPY_VARIANTS(REPSTOS_X_NAME)
#undef REPSTOS_X_NAME
};

static const struct repstos_routine copy_routines[REPSTOS_COPY_VARIANT_COUNT] = {
#define REPSTOS_X_VARIANT(e, name, sym, needs)				\
	[REPSTOS_COPY_VARIANT_##e] = { (void *)sym, needs },
	REPSTOS_COPY_VARIANTS(REPSTOS_X_VARIANT)
#undef REPSTOS_X_VARIANT
};

#define OP(x) (1u << REPSTOS_OP_##x)

/*
 * Set sites may all take rep stosb in place; of copy sites only those
 * whose regions cannot overlap backwards may take rep movsb, which
 * copies forwards blindly (repstos_site.h, "Copy sites").  "vec" is
 * each family's SSE-only routine.
 */
const struct repstos_family repstos_families[REPSTOS_NFAMILY] = {
	[REPSTOS_FAMILY_SET] = {
		.id = REPSTOS_FAMILY_SET,
		.name = "set",
		.nvariants = REPSTOS_VARIANT_COUNT,
		.names = repstos_variant_names,
		.routines = set_routines,
		.inline_form = REPSTOS_VARIANT_INLINE,
		.inline_name = "rep stosb in place",
		.narrow_form = REPSTOS_VARIANT_VEC,
		.wide = 1u << REPSTOS_VARIANT_LIBC,
		.forced_only = 1u << REPSTOS_VARIANT_LIBC |
			       1u << REPSTOS_VARIANT_AVX512_PLAIN,
		.range_form = REPSTOS_VARIANT_AVX512_PLAIN,
		.range_with = 1u << REPSTOS_VARIANT_AVX512 |
			      1u << REPSTOS_VARIANT_AVX512_SPLIT,
		.no_forward = 1u << REPSTOS_VARIANT_INLINE |
			      1u << REPSTOS_VARIANT_REP_GOOD |
			      1u << REPSTOS_VARIANT_STOSB_AVX2 |
			      1u << REPSTOS_VARIANT_AVX512 |
			      1u << REPSTOS_VARIANT_AVX512_SPLIT,
		.ops = OP(MEMSET) | OP(ZERO) | OP(CLEAR),
		.inline_ops = OP(MEMSET) | OP(ZERO) | OP(CLEAR),
		.version = REPSTOS_SITE_VERSION,
		.narrow_version = REPSTOS_SITE_VERSION_NARROW,
		.stub = "__repstos_stub",
		.variant_word = "variant",
		.cost_word = "cost",
		.change_word = "change",
		.read_word = "read_variant",
		.use_word = "use_extra",
	},
	[REPSTOS_FAMILY_COPY] = {
		.id = REPSTOS_FAMILY_COPY,
		.name = "copy",
		.nvariants = REPSTOS_COPY_VARIANT_COUNT,
		.names = repstos_copy_variant_names,
		.routines = copy_routines,
		.inline_form = REPSTOS_COPY_VARIANT_INLINE,
		.inline_name = "rep movsb in place",
		.narrow_form = REPSTOS_COPY_VARIANT_VEC,
		.wide = 1u << REPSTOS_COPY_VARIANT_LIBC,
		.forced_only = 1u << REPSTOS_COPY_VARIANT_LIBC |
			       1u << REPSTOS_COPY_VARIANT_AVX512_PLAIN,
		.range_form = REPSTOS_COPY_VARIANT_AVX512_PLAIN,
		.range_with = 1u << REPSTOS_COPY_VARIANT_AVX512,
		.no_forward = 1u << REPSTOS_COPY_VARIANT_INLINE |
			      1u << REPSTOS_COPY_VARIANT_AVX512,
		.ops = OP(COPY) | OP(MOVE) | OP(MOVE_FWD),
		.inline_ops = OP(COPY) | OP(MOVE_FWD),
		.version = REPSTOS_COPY_VERSION,
		.narrow_version = REPSTOS_COPY_VERSION_NARROW,
		.stub = "__repstos_copy_stub",
		.variant_word = "copy_variant",
		.cost_word = "copy_cost",
		.change_word = "copy_change",
		.read_word = "copy_read_variant",
		.use_word = "copy_use_extra",
	},
};

/* Not inline: compiled for size (the start-up's objects), GCC kept an
 * out-of-line copy in each object that called it, 63 bytes each. */
const struct repstos_family *repstos_family_of(unsigned op)
{
	int f = REPSTOS_NFAMILY - 1;

	/* down to set's, the family of every op no other family has */
	while (f > REPSTOS_FAMILY_SET &&
	       !(op < 32 && repstos_families[f].ops >> op & 1))
		f--;
	return &repstos_families[f];
}

const char *repstos_family_name(const struct repstos_family *f, int v)
{
	return v >= 0 && v < f->nvariants ? f->names[v] : NULL;
}

int repstos_family_by_name(const struct repstos_family *f, const char *name)
{
	int v;

	for (v = 0; v < f->nvariants; v++)
		if (!strcmp(f->names[v], name))
			return v;
	return -1;
}

void *repstos_family_routine(const struct repstos_family *f, int v)
{
	return v >= 0 && v < f->nvariants ? f->routines[v].routine : NULL;
}

int repstos_family_by_routine(const struct repstos_family *f, const void *addr)
{
	int v;

	for (v = 0; v < f->nvariants; v++)
		if (addr == f->routines[v].routine)
			return v;
	return -1;
}

int repstos_family_runs(const struct repstos_family *f,
			const struct repstos_cpu *cpu, int v)
{
	return v >= 0 && v < f->nvariants &&
	       (cpu->features & f->routines[v].needs) == f->routines[v].needs;
}

/* A routine that needs no AVX feature runs on every x86-64, so it can
 * touch no ymm, zmm or xmm16-31: the one test of what a narrow site
 * (repstos_site.h, "The vector state") may call; but the C library's,
 * which needs nothing of ours, may use them all. */
int repstos_family_narrow(const struct repstos_family *f, int v)
{
	const unsigned avx = REPSTOS_CPU_AVX | REPSTOS_CPU_AVX2 |
			     REPSTOS_CPU_AVX512F;

	return (f->routines[v].needs & avx) || (f->wide >> v & 1) ?
	       f->narrow_form : v;
}

/* ---- the installed API (repstos.h) and the policy's names ------------ */

#define SET (&repstos_families[REPSTOS_FAMILY_SET])
#define COPY (&repstos_families[REPSTOS_FAMILY_COPY])

const char *repstos_variant_name(enum repstos_variant v)
{
	return repstos_family_name(SET, (int)v);
}

int repstos_variant_by_name(const char *name)
{
	return repstos_family_by_name(SET, name);
}

void *repstos_variant_routine(enum repstos_variant v)
{
	return repstos_family_routine(SET, (int)v);
}

int repstos_variant_by_routine(const void *addr)
{
	return repstos_family_by_routine(SET, addr);
}

const char *repstos_copy_variant_name(enum repstos_copy_variant v)
{
	return repstos_family_name(COPY, (int)v);
}

int repstos_copy_variant_by_name(const char *name)
{
	return repstos_family_by_name(COPY, name);
}

void *repstos_copy_variant_routine(enum repstos_copy_variant v)
{
	return repstos_family_routine(COPY, (int)v);
}

int repstos_copy_variant_by_routine(const void *addr)
{
	return repstos_family_by_routine(COPY, addr);
}

int repstos_policy_supported(const struct repstos_cpu *cpu,
			     enum repstos_variant v)
{
	return repstos_family_runs(SET, cpu, (int)v);
}

int repstos_policy_copy_supported(const struct repstos_cpu *cpu,
				  enum repstos_copy_variant v)
{
	return repstos_family_runs(COPY, cpu, (int)v);
}

/* Let the routines whose bytes these are run what cpu has (routines.h):
 * the tool's, for the CPU it measures; each module's, at its start-up.
 * The masks bit follows the hardware: kmovq needs AVX512BW, and the C
 * library behind the "libc" adaptors uses what the hardware has.  The
 * needs from set_routines[] by constant index, which the compiler
 * folds: no call, as the start-up's 12 KiB (issue 21) has no room. */
void repstos_routines_enable(const struct repstos_cpu *cpu,
			     unsigned hw_features, unsigned char *can_avx2,
			     unsigned char *can_avx512)
{
	unsigned f = cpu->features;
	unsigned n2 = set_routines[REPSTOS_VARIANT_AVX2].needs;
	unsigned n512 = set_routines[REPSTOS_VARIANT_AVX512].needs;
	unsigned masks = hw_features & REPSTOS_CPU_AVX512BW ?
			 REPSTOS_CAN_MASKS : 0;

	_Static_assert(REPSTOS_CAN_RUN == 1, "a comparison's 1");
	__atomic_store_n(can_avx2, (f & n2) == n2, __ATOMIC_RELAXED);
	__atomic_store_n(can_avx512, ((f & n512) == n512) | masks,
			 __ATOMIC_RELAXED);
}
