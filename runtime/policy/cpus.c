// SPDX-License-Identifier: MIT
/*
 * cpus.c - the named CPU profiles REPSTOS_CPU, `repstos patch --cpu`
 * and `repstos tune --cpu` accept: what such a CPU reports, so that the
 * policy can be asked what it would choose there.
 */
#include <string.h>
#include "policy.h"

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
