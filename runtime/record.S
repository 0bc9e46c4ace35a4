/* SPDX-License-Identifier: MIT */
/*
 * record.S - the module's own assembler besides its stubs and routines:
 * its record, which `repstos patch` fills in, and its profiling routine,
 * which its sites call while REPSTOS_PROFILE records their sizes.  In
 * every module with sites (module.c pulls it in), whether the start-up
 * is linked into the module or shared.
 */
#include "repstos_site.h"
#include "profile.h"
#include "asm.h"

	/* The per-module record `repstos patch` fills in (repstos_site.h). */
	REPSTOS_MODULE_RECORD

	.text


/*
 * __repstos_profile: what every site of the module calls while
 * REPSTOS_PROFILE records its sizes (runtime/profrun.c).  It keeps the
 * site contract exactly: rdx, rsi, r8 and r9 are saved on the stack and
 * restored, rax too (the routine it calls gets the fill byte back in
 * it).  It pushes below the site's stack pointer as the site's own call
 * did: code with sites is built without a red zone (the plugin's
 * -mno-red-zone; REPSTOS_MEMSET steps over it), and nothing here is
 * spilled aligned.
 *   1. the site: its return address, site + 5, binary-searched among
 *      the n sorted ones of __repstos_prof; its slot beside it;
 *   2. the size class of rcx as repstos_size_class() computes it:
 *      0 for 0, else the bit length of rcx, at most the last class;
 *   3. one more call in that class: a locked add, as threads share
 *      the slots;
 *   4. the slot's routine (or the fallback for a call from no profiled
 *      site), called rather than jumped to, since no register is free
 *      to hold its address once everything is restored; call and ret
 *      stay paired, as a shadow stack wants.
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
	mov	40(%rsp), %r9			/* the return address */
	mov	__repstos_prof+REPSTOS_PROF_RET(%rip), %rsi
	mov	__repstos_prof+REPSTOS_PROF_N(%rip), %r8	/* hi */
	xor	%eax, %eax			/* lo */
.Lprof_search:
	cmp	%r8, %rax
	jae	.Lprof_miss
	lea	(%rax,%r8), %rdx
	shr	$1, %rdx			/* mid */
	cmp	%r9, (%rsi,%rdx,8)
	je	.Lprof_found
	jb	.Lprof_above
	mov	%rdx, %r8			/* ret[mid] > ours: hi = mid */
	jmp	.Lprof_search
.Lprof_above:
	lea	1(%rdx), %rax			/* lo = mid + 1 */
	jmp	.Lprof_search
.Lprof_found:
	lea	(%rdx,%rdx,2), %rdx
	shl	$6, %rdx			/* mid * REPSTOS_PROF_SLOT_SIZE */
	add	__repstos_prof+REPSTOS_PROF_SLOTS(%rip), %rdx
	xor	%eax, %eax
	test	%rcx, %rcx
	jz	.Lprof_count
	bsr	%rcx, %rax
	inc	%eax
	cmp	$REPSTOS_PROF_LAST_CLASS, %eax
	jbe	.Lprof_count
	mov	$REPSTOS_PROF_LAST_CLASS, %eax
.Lprof_count:
	lock addq $1, REPSTOS_PROF_SLOT_HIST(%rdx,%rax,8)
	mov	(%rdx), %rsi			/* the slot's routine */
	jmp	.Lprof_call
.Lprof_miss:
	mov	__repstos_prof+REPSTOS_PROF_FALLBACK(%rip), %rsi
.Lprof_call:
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
#if REPSTOS_PROF_SLOT_SIZE != 3 << 6
#error "__repstos_profile multiplies by 3 << 6"
#endif

	OBJECT_NOTES
