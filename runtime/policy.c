// SPDX-License-Identifier: MIT
/*
 * policy.c - which routine each site gets, per CPU.
 *
 * The rule is measured, not read off feature flags (tests/perf has the
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
 * Unknown CPUs get the same rule: "vec" is correct on every x86-64 and
 * does not depend on rep-string microcode for small sizes.
 */
#include <string.h>
#include "policy.h"

#define KIB 1024u

struct profile {
	const char *name;
	struct repstos_cpu cpu;
};

#define F(x) REPSTOS_CPU_##x
static const struct profile profiles[] = {
	{ "generic", { REPSTOS_VENDOR_OTHER, 0, 0, 0, 0 } },
	{ "skylake", { REPSTOS_VENDOR_INTEL, 6, 0x55, 0,
		       F(ERMS) | F(REP_GOOD) | F(AVX) | F(AVX2) | F(AVX512F) } },
	{ "icelake", { REPSTOS_VENDOR_INTEL, 6, 0x6a, 0,
		       F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		       F(AVX512F) } },
	{ "sapphirerapids", { REPSTOS_VENDOR_INTEL, 6, 0x8f, 0,
			      F(ERMS) | F(FSRM) | F(FZRM) | F(FSRS) | F(FSRC) |
			      F(REP_GOOD) | F(AVX) | F(AVX2) | F(AVX512F) } },
	{ "zen2", { REPSTOS_VENDOR_AMD, 0x17, 0x31, 0,
		    F(REP_GOOD) | F(AVX) | F(AVX2) } },
	{ "zen3", { REPSTOS_VENDOR_AMD, 0x19, 0x01, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) } },
	{ "zen4", { REPSTOS_VENDOR_AMD, 0x19, 0x11, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(AVX512F) } },
	{ "zen5", { REPSTOS_VENDOR_AMD, 0x1a, 0x02, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(AVX512F) } },
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

void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t)
{
	/* Without ERMS, rep stosb is microcode of unknown quality: the
	 * store loop is used at every size and nothing goes inline. */
	if (!(cpu->features & REPSTOS_CPU_ERMS)) {
		t->vec_rep_min = ~0ull;
		t->inline_min = ~0u;
		return;
	}
	t->vec_rep_min = 4 * KIB;
	t->inline_min = 4 * KIB;
}

enum repstos_variant repstos_policy_module(const struct repstos_cpu *cpu,
					   const char **why)
{
	if (why)
		*why = cpu->features & REPSTOS_CPU_ERMS ?
			"auto: sized stores, rep stosb from 4 KiB (erms)" :
			"auto: sized stores at every size (no erms)";
	return REPSTOS_VARIANT_VEC;
}

enum repstos_variant repstos_policy_site(const struct repstos_cpu *cpu,
					 enum repstos_variant module, int forced,
					 const struct repstos_site *e)
{
	struct repstos_tuning t;

	if (forced)
		return module;
	repstos_policy_tuning(cpu, &t);
	if (e->size_kind != REPSTOS_SIZE_UNKNOWN && e->size_min >= t.inline_min)
		return REPSTOS_VARIANT_INLINE;
	return module;
}
