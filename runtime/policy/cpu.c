// SPDX-License-Identifier: MIT
/*
 * cpu.c - what the CPU says about itself through CPUID.
 *
 * Leaves and bits as the kernel names them (arch/x86/include/asm/
 * cpufeatures.h); REP_GOOD follows the kernel's rule, which user space
 * can only half apply: the kernel also reads MSR_IA32_MISC_ENABLE's
 * fast-strings bit, and user space cannot.
 */
#include <cpuid.h>
#include <string.h>
#include "policy.h"

struct regs {
	unsigned a, b, c, d;
};

static struct regs cpuid(unsigned leaf, unsigned sub)
{
	struct regs r = { 0, 0, 0, 0 };

	__cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
	return r;
}

static unsigned long long xgetbv0(void)
{
	unsigned lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

static unsigned vendor_of(const struct regs *r0)
{
	char v[13];

	memcpy(v, &r0->b, 4);
	memcpy(v + 4, &r0->d, 4);
	memcpy(v + 8, &r0->c, 4);
	v[12] = 0;
	if (!strcmp(v, "GenuineIntel"))
		return REPSTOS_VENDOR_INTEL;
	if (!strcmp(v, "AuthenticAMD") || !strcmp(v, "HygonGenuine"))
		return REPSTOS_VENDOR_AMD;
	return REPSTOS_VENDOR_OTHER;
}

/* Display family and model from leaf 1 EAX, as the SDM and APM define. */
static void signature(unsigned eax, struct repstos_cpu *cpu)
{
	unsigned fam = (eax >> 8) & 0xf, model = (eax >> 4) & 0xf;

	if (fam == 0xf)
		fam += (eax >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		model |= ((eax >> 16) & 0xf) << 4;
	cpu->family = fam;
	cpu->model = model;
	cpu->stepping = eax & 0xf;
}

/* AVX needs the OS to save ymm state (XCR0 bits 1-2), AVX-512 zmm too (5-7). */
static unsigned os_vector_state(const struct regs *r1)
{
	unsigned long long xcr0;
	unsigned f = 0;

	if (!(r1->c & (1u << 27)) || !(r1->c & (1u << 28)))
		return 0;
	xcr0 = xgetbv0();
	if ((xcr0 & 0x6) == 0x6)
		f |= REPSTOS_CPU_AVX;
	if ((xcr0 & 0xe6) == 0xe6)
		f |= REPSTOS_CPU_AVX512F;	/* masked by CPUID below */
	return f;
}

static unsigned leaf7_features(unsigned max_leaf, unsigned os)
{
	struct regs r7, r71;
	unsigned f = 0;

	if (max_leaf < 7)
		return 0;
	r7 = cpuid(7, 0);
	if (r7.b & (1u << 9))
		f |= REPSTOS_CPU_ERMS;
	if (r7.d & (1u << 4))
		f |= REPSTOS_CPU_FSRM;
	if ((r7.b & (1u << 5)) && (os & REPSTOS_CPU_AVX))
		f |= REPSTOS_CPU_AVX2;
	if ((r7.b & (1u << 16)) && (os & REPSTOS_CPU_AVX512F)) {
		f |= REPSTOS_CPU_AVX512F;
		if (r7.b & (1u << 30))
			f |= REPSTOS_CPU_AVX512BW;
		if (r7.b & (1u << 31))
			f |= REPSTOS_CPU_AVX512VL;
	}
	if (r7.b & (1u << 8))
		f |= REPSTOS_CPU_BMI2;
	if (r7.a >= 1) {
		r71 = cpuid(7, 1);
		if (r71.a & (1u << 10))
			f |= REPSTOS_CPU_FZRM;
		if (r71.a & (1u << 11))
			f |= REPSTOS_CPU_FSRS;
		if (r71.a & (1u << 12))
			f |= REPSTOS_CPU_FSRC;
	}
	return f;
}

/* The kernel's REP_GOOD: Intel family 6; AMD family 0x10 and later. */
static int rep_good(const struct repstos_cpu *cpu)
{
	if (cpu->vendor == REPSTOS_VENDOR_INTEL)
		return cpu->family == 6;
	if (cpu->vendor == REPSTOS_VENDOR_AMD)
		return cpu->family >= 0x10;
	return 0;
}

void repstos_cpu_detect(struct repstos_cpu *cpu)
{
	struct regs r0 = cpuid(0, 0), r1 = { 0, 0, 0, 0 };
	unsigned os = 0;

	memset(cpu, 0, sizeof(*cpu));
	cpu->vendor = vendor_of(&r0);
	if (r0.a >= 1) {
		r1 = cpuid(1, 0);
		signature(r1.a, cpu);
		os = os_vector_state(&r1);
	}
	cpu->features = leaf7_features(r0.a, os) | (os & REPSTOS_CPU_AVX);
	if (rep_good(cpu))
		cpu->features |= REPSTOS_CPU_REP_GOOD;
}

_Static_assert(REPSTOS_CPU_FEATURE_COUNT <= 32,
	       "features are bits of an unsigned");

static const char *const feature_name[REPSTOS_CPU_FEATURE_COUNT] = {
#define REPSTOS_X_NAME(e, name) [REPSTOS_CPU_BIT_##e] = name,
	REPSTOS_FEATURES(REPSTOS_X_NAME)
#undef REPSTOS_X_NAME
};

char *repstos_feature_names(unsigned features, char *buf, size_t len)
{
	size_t used = 0, i;

	if (!len)
		return buf;
	buf[0] = 0;
	for (i = 0; i < REPSTOS_CPU_FEATURE_COUNT; i++) {
		size_t n = strlen(feature_name[i]) + (used ? 1 : 0);

		if (!(features & (1u << i)) || used + n + 1 > len)
			continue;
		if (used)
			buf[used++] = ' ';
		strcpy(buf + used, feature_name[i]);
		used += strlen(feature_name[i]);
	}
	return buf;
}
