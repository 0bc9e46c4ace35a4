/* SPDX-License-Identifier: MIT */
/*
 * bench_asm.h - what the benchmark-only routines (plain.S, plaincopy.S)
 * add to the runtime's asm.h: leaving for another routine on a
 * condition as a path of its own.  In the build plaincheck counts paths
 * with (-DREPSTOS_PATHS) the jump goes through a path_mark; in the
 * build bench times it is the one conditional jump, as before.
 */
#ifndef BENCH_ASM_H
#define BENCH_ASM_H

#include "routines/asm.h"

/* j<cc> to target, as path id */
.macro leave_if cc, id, target
#ifdef REPSTOS_PATHS
	j\cc	.Lleave_\id
#else
	j\cc	\target
#endif
.endm

/* Where a routine's leave_if id lands in the counted build: after the
 * routine's last instruction. */
.macro leave_to id, target
#ifdef REPSTOS_PATHS
.Lleave_\id:
	path_mark \id
	jmp	\target
#endif
.endm

#endif
