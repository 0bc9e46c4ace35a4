/* SPDX-License-Identifier: MIT */
/*
 * routines.h - what the routines (set.S) read besides their arguments:
 * the rep-stosb thresholds and the bytes that say which of them this CPU
 * can run.  Defined in the core (routines.c, dispatch.S), so a program
 * that links only the routines (the tool) has them as a module does.
 */
#ifndef REPSTOS_ROUTINES_H
#define REPSTOS_ROUTINES_H

#include "can.h"
#include "repstos.h"

/* The stubs' fallbacks read these (dispatch.S): the routine of the
 * family they jump to where the stub's own jump was not rewritten. */
extern unsigned char __repstos_set_choice REPSTOS_HIDDEN;
extern unsigned char __repstos_copy_choice REPSTOS_HIDDEN;

/* From these sizes on "vec" (and the wider routines) use rep stosb;
 * below this one "stosb_avx2" does.  ~0: never, until ERMS is seen. */
extern unsigned long long __repstos_vec_rep_min REPSTOS_HIDDEN;
extern unsigned long long __repstos_wide_rep_min REPSTOS_HIDDEN;
extern unsigned long long __repstos_short_rep_max REPSTOS_HIDDEN;
/* The copy routines: rep movsb from copy_rep_min (forwards, and not
 * within 64 bytes below the source), non-temporal stores from
 * copy_nt_min (where the regions do not overlap).  ~0: never. */
extern unsigned long long __repstos_copy_rep_min REPSTOS_HIDDEN;
extern unsigned long long __repstos_copy_nt_min REPSTOS_HIDDEN;

/* REPSTOS_CAN_RUN when this CPU can run "avx2", "avx512" (each of
 * those routines tests its bit first and runs "vec" without it);
 * __repstos_can_avx512 also says REPSTOS_CAN_MASKS (can.h). */
extern unsigned char __repstos_can_avx2 REPSTOS_HIDDEN;
extern unsigned char __repstos_can_avx512 REPSTOS_HIDDEN;

/* Let the routines whose bytes these are run what cpu has, and keep
 * the mask registers hw_features (the hardware's, before REPSTOS_CPU)
 * has: the start-up does it for each module, the tool for its own
 * routines and the CPU it measures. */
void repstos_routines_enable(const struct repstos_cpu *cpu,
			     unsigned hw_features, unsigned char *can_avx2,
			     unsigned char *can_avx512) REPSTOS_HIDDEN;

/* Does the byte let its routines run? */
static inline int repstos_can_run(unsigned char can)
{
	return can & REPSTOS_CAN_RUN;
}

#endif
