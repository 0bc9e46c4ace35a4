/* SPDX-License-Identifier: MIT */
/*
 * record_copy.S - the profiling routine of copy sites, beside record.S's
 * for set sites: in the size-profile archive, the shared runtime and
 * its modules.
 */
#include "repstos_site.h"
#include "routines/asm.h"
#include "prof_body.h"

	.text

/*
 * __repstos_copy_profile: what every copy site of the module calls while
 * REPSTOS_PROFILE records its sizes: __repstos_profile (record.S) for the
 * copy contract (REPSTOS_COPY_CLOBBERS), which lets rax change but takes
 * rsi as the source: the search uses r10 instead, saved with rdx, r8
 * and r9, and the routine's address goes in rax.  A file of its own, which
 * the copy stub's dispatch record names (dispatch.S), so that only a
 * module with copy sites carries it, and only where size profiles are
 * linked (-DREPSTOS_PROFILES).
 */
ENTRY(__repstos_copy_profile)
	push	%rdx
	.cfi_adjust_cfa_offset 8
	push	%r8
	.cfi_adjust_cfa_offset 8
	push	%r9
	.cfi_adjust_cfa_offset 8
	push	%r10
	.cfi_adjust_cfa_offset 8
	prof_count 32, %r10, %rax, REPSTOS_PROF_COPY_FALLBACK
	call	*%rax
	pop	%r10
	.cfi_adjust_cfa_offset -8
	pop	%r9
	.cfi_adjust_cfa_offset -8
	pop	%r8
	.cfi_adjust_cfa_offset -8
	pop	%rdx
	.cfi_adjust_cfa_offset -8
	ret
END(__repstos_copy_profile)

	OBJECT_NOTES
