// SPDX-License-Identifier: MIT
/*
 * standalone.c - the routines without the runtime's start-up: what
 * variants.S reads, for a program that links the routines and not
 * patch.c (the repstos tool, whose `tune` times them and whose check
 * compares files' code with them).  In build/runtime/librepstos-core.a
 * only.
 *
 * In runtime/librepstos.a patch.c and profrun.c define these instead,
 * and that is what brings the start-up into a module: its sites call
 * __repstos_stub, which pulls variants.o, whose references to these pull
 * patch.o and its constructor.  So this file never meets them in a link.
 */
#include "profile.h"
#include "tune.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* As patch.c starts them: no rep stosb in the store loops until
 * repstos_tune sets the thresholds it times. */
HIDDEN unsigned long long __repstos_vec_rep_min = ~0ull;
HIDDEN unsigned long long __repstos_wide_rep_min = ~0ull;
HIDDEN unsigned long long __repstos_short_rep_max = 128;

/* Nothing records here: the profiling routine is nobody's target. */
HIDDEN struct repstos_prof __repstos_prof;

extern unsigned char __repstos_can_avx2 HIDDEN, __repstos_can_avx512 HIDDEN;

/* The start-up's part for the routines (patch.c set_routines()): the
 * dispatch page stays writable here, no constructor sealed it. */
void repstos_routines_enable(const struct repstos_cpu *cpu)
{
	__repstos_can_avx2 = (unsigned char)
		repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX2);
	__repstos_can_avx512 = (unsigned char)
		repstos_policy_supported(cpu, REPSTOS_VARIANT_AVX512);
}
