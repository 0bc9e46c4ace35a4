// SPDX-License-Identifier: MIT
/*
 * routines.c - the routines' settings, in the core so that the tool,
 * which links the routines without the start-up, has them too.
 */
#include "routines.h"
#include "policy.h"

/* No rep stosb in the store loops until the start-up (or tune) has seen
 * ERMS and set the thresholds its policy or measurement gives. */
unsigned long long __repstos_vec_rep_min = ~0ull;
unsigned long long __repstos_wide_rep_min = ~0ull;
unsigned long long __repstos_short_rep_max = 128;
/* The copy routines (copy.S): rep movsb from copy_rep_min, non-temporal
 * stores from copy_nt_min (regions apart only); ~0: never. */
unsigned long long __repstos_copy_rep_min = ~0ull;
unsigned long long __repstos_copy_nt_min = ~0ull;

void repstos_routines_enable(const struct repstos_cpu *cpu)
{
	__atomic_store_n(&__repstos_can_avx2,
			 repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX2),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&__repstos_can_avx512,
			 repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX512),
			 __ATOMIC_RELAXED);
}
