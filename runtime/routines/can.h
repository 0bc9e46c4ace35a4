/* SPDX-License-Identifier: MIT */
/*
 * can.h - the bits of __repstos_can_avx2 and __repstos_can_avx512
 * (routines.h), for the routines' assembler and the C that sets them.
 */
#ifndef REPSTOS_CAN_H
#define REPSTOS_CAN_H

/* The routine runs: the CPU as the policy sees it (REPSTOS_CPU
 * included) has what it needs.  REQUIRE (asm.h) tests it. */
#define REPSTOS_CAN_RUN		1
/* __repstos_can_avx512 only: the hardware has the 64-bit mask registers
 * (AVX512BW, their state enabled by the kernel), whatever the policy
 * sees.  The "libc" adaptors keep k0 and k2-7 by it (libc.h): the C
 * library picks its memset by the hardware, not by REPSTOS_CPU. */
#define REPSTOS_CAN_MASKS	2

#endif
