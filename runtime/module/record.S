/* SPDX-License-Identifier: MIT */
/*
 * record.S - the module's own data besides its stubs and routines: its
 * record, which `repstos patch` fills in, and its description
 * (abi.h), which its constructor hands the start-up; with
 * -DREPSTOS_PROFILES also the profiling routine its set sites call while
 * REPSTOS_PROFILE records their sizes, and what that routine reads (the
 * copy sites' routine is in record_copy.S, linked only where there are
 * some).  In every module with sites (module.c pulls it in), whether
 * the start-up is linked into the module or shared.
 */
#include "repstos_site.h"
#include "policy/profile.h"
#include "routines/asm.h"
#include "module/module.h"
#include "prof_body.h"

	/* The per-module record `repstos patch` fills in (repstos_site.h). */
	REPSTOS_MODULE_RECORD

	/*
	 * The description (struct repstos_module_desc): each place as its
	 * distance from its field, which the linker fills in, so that no
	 * code builds it and no dynamic relocation is needed.
	 */
	.section .rodata.repstos_module, "a", @progbits
	.balign 4
	.globl	__repstos_module_desc
	.hidden	__repstos_module_desc
	.type	__repstos_module_desc, @object
__repstos_module_desc:
	.long	REPSTOS_MODULE_ABI, REPSTOS_DESC_SIZE
	.long	REPSTOS_SITES_START - ., REPSTOS_SITES_STOP - .
	.long	REPSTOS_MODULE_SYMBOL - .
	.long	__repstos_module_stats - .
#ifdef REPSTOS_PROFILES
	.long	__repstos_prof - .
#else
	.long	0
#endif
	.long	__start_repstos_dispatch - ., __stop_repstos_dispatch - .
	.long	__repstos_vec_rep_min - ., __repstos_wide_rep_min - .
	.long	__repstos_short_rep_max - .
	.long	__repstos_copy_rep_min - ., __repstos_copy_nt_min - .
	.long	__repstos_can_avx2 - ., __repstos_can_avx512 - .
	.size	__repstos_module_desc, . - __repstos_module_desc
	.if	. - __repstos_module_desc - REPSTOS_DESC_SIZE
	.error	"module description size"
	.endif
	/* The table's and the records' sections, defined (empty) here too,
	 * so that their bounds resolve in a module that calls the API but
	 * has no site and no stub.  The table's is SHF_LINK_ORDER as every
	 * producer's (dispatch.S). */
	REPSTOS_SITES_PUSHSECTION(__repstos_module_desc)
	.popsection
	.pushsection REPSTOS_DISPATCH_NAME, "a", @progbits
	.popsection
	.hidden	REPSTOS_SITES_START
	.hidden	REPSTOS_SITES_STOP
	.hidden	__start_repstos_dispatch
	.hidden	__stop_repstos_dispatch

#ifdef REPSTOS_PROFILES
	/* What the profiling routines read: this module's slots
	 * (profile.h), set up by the start-up while it records. */
	.bss
	.balign	8
	.globl	__repstos_prof
	.hidden	__repstos_prof
	.type	__repstos_prof, @object
	.size	__repstos_prof, 40
__repstos_prof:
	.zero	40

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
#endif

	OBJECT_NOTES
