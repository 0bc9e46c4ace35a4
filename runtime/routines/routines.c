// SPDX-License-Identifier: MIT
/*
 * routines.c - the routines' settings, in the core so that the tool,
 * which links the routines without the start-up, has them too.  Data
 * only: a module linked with the shared runtime carries it and no
 * policy.  Set by the start-up before any site is pointed at the
 * routines, and plain data: a wrong value makes a routine slower, or
 * fall back to "vec", never store the wrong bytes.
 */
#include "routines.h"

/* No rep stosb in the store loops until the start-up (or tune) has seen
 * ERMS and set the thresholds its policy or measurement gives. */
unsigned long long __repstos_vec_rep_min = ~0ull;
unsigned long long __repstos_wide_rep_min = ~0ull;
unsigned long long __repstos_short_rep_max = 128;
/* The copy routines (copy.S): rep movsb from copy_rep_min, non-temporal
 * stores from copy_nt_min (regions apart only); ~0: never. */
unsigned long long __repstos_copy_rep_min = ~0ull;
unsigned long long __repstos_copy_nt_min = ~0ull;
/* What REQUIRE tests (asm.h): 0, "vec", until the start-up has seen the
 * CPU run "avx2" and the AVX-512 routines; and what the libc adaptors
 * test: no mask registers kept until it has seen the hardware's. */
unsigned char __repstos_can_avx2;
unsigned char __repstos_can_avx512;
