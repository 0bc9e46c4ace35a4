/* SPDX-License-Identifier: MIT */
/*
 * gpr.S - a benchmark-only routine: "vec" without the vector register.
 * The routines' own body (runtime/routines/set_body.h) at width 8: the shape of
 * "vec", but every store is an 8-byte store of rax (the fill broadcast
 * into rax itself, restored with movzbl on the way out), so it keeps the
 * contract with an empty scratch set.  bench measures it beside
 * "vec" to justify declaring xmm0 (include/repstos_site.h).  Same rep
 * stosb threshold as "vec".
 */
#include "routines/asm.h"
#include "routines/set_body.h"

	.text
ENTRY(__bench_gpr)
	SET_BODY gpr, 8, 64, __repstos_vec_rep_min
END(__bench_gpr)

	OBJECT_NOTES
