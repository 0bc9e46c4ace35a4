/* SPDX-License-Identifier: MIT */
/*
 * record.S - the module's own assembler besides its stubs and routines:
 * its record, which `repstos patch` fills in, and its profiling routine,
 * which its set sites call while REPSTOS_PROFILE records their sizes
 * (the copy sites' is in record_copy.S, linked only where there are
 * some).  In every module with sites (module.c pulls it in), whether
 * the start-up is linked into the module or shared.
 */
#include "repstos_site.h"
#include "policy/profile.h"
#include "routines/asm.h"
#include "prof_body.h"

	/* The per-module record `repstos patch` fills in (repstos_site.h). */
	REPSTOS_MODULE_RECORD

	.text


/*
 * __repstos_profile: what every set site of the module calls while
 * REPSTOS_PROFILE records its sizes (runtime/startup/profrun.c).  It keeps the
 * site contract exactly: rdx, rsi, r8 and r9 are saved on the stack and
 * restored, rax too (the routine it calls gets the fill byte back in
 * it).  It pushes below the site's stack pointer as the site's own call
 * did: code with sites is built without a red zone (the plugin's
 * -mno-red-zone; REPSTOS_MEMSET steps over it), and nothing here is
 * spilled aligned.  The routine is called rather than jumped to, since
 * no register is free to hold its address once everything is restored;
 * call and ret stay paired, as a shadow stack wants.
 */
ENTRY(__repstos_profile)
	push	%rax
	.cfi_adjust_cfa_offset 8
	push	%rdx
	.cfi_adjust_cfa_offset 8
	push	%rsi
	.cfi_adjust_cfa_offset 8
	push	%r8
	.cfi_adjust_cfa_offset 8
	push	%r9
	.cfi_adjust_cfa_offset 8
	prof_count 40, %rsi, %rsi, REPSTOS_PROF_FALLBACK
	mov	32(%rsp), %rax			/* the fill byte */
	call	*%rsi
	pop	%r9
	.cfi_adjust_cfa_offset -8
	pop	%r8
	.cfi_adjust_cfa_offset -8
	pop	%rsi
	.cfi_adjust_cfa_offset -8
	pop	%rdx
	.cfi_adjust_cfa_offset -8
	pop	%rax				/* as the routine left it */
	.cfi_adjust_cfa_offset -8
	ret
END(__repstos_profile)


	OBJECT_NOTES
