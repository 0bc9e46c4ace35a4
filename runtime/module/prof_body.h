/* SPDX-License-Identifier: MIT */
/*
 * prof_body.h - what the profiling routines of set sites (record.S) and
 * of copy sites (record_copy.S) share: finding the site and counting its
 * call.
 */
#ifndef REPSTOS_PROF_BODY_H
#define REPSTOS_PROF_BODY_H

#include "policy/profile.h"

/*
 * The profiling routines' common part: find the site and count the call.
 *   1. the site: its return address (at ret_at(%rsp)), binary-searched
 *      among the n sorted ones of __repstos_prof (their array in \tbl);
 *      its slot beside it;
 *   2. the size class of rcx as repstos_size_class() computes it: 0 for
 *      0, else the bit length of rcx, at most the last class;
 *   3. one more call in that class: a locked add, as threads share the
 *      slots;
 *   4. the routine to go on to into \dst: the slot's, or \fallback's
 *      (an offset in __repstos_prof) for a call from no profiled site.
 * Uses rax, rdx, r8, r9 and \tbl; leaves rcx, rdi and rsi as they were
 * (unless one is \tbl or \dst).
 */
#if REPSTOS_PROF_SLOT_SIZE != 3 << 6
#error "prof_count multiplies by 3 << 6"
#endif

.macro prof_count ret_at, tbl, dst, fallback
	mov	\ret_at(%rsp), %r9			/* the return address */
	mov	__repstos_prof+REPSTOS_PROF_RET(%rip), \tbl
	mov	__repstos_prof+REPSTOS_PROF_N(%rip), %r8	/* hi */
	xor	%eax, %eax			/* lo */
1:	cmp	%r8, %rax
	jae	5f
	lea	(%rax,%r8), %rdx
	shr	$1, %rdx			/* mid */
	cmp	%r9, (\tbl,%rdx,8)
	je	3f
	jb	2f
	mov	%rdx, %r8			/* ret[mid] > ours: hi = mid */
	jmp	1b
2:	lea	1(%rdx), %rax			/* lo = mid + 1 */
	jmp	1b
3:	lea	(%rdx,%rdx,2), %rdx
	shl	$6, %rdx			/* mid * REPSTOS_PROF_SLOT_SIZE */
	add	__repstos_prof+REPSTOS_PROF_SLOTS(%rip), %rdx
	xor	%eax, %eax
	test	%rcx, %rcx
	jz	4f
	bsr	%rcx, %rax
	inc	%eax
	cmp	$REPSTOS_PROF_LAST_CLASS, %eax
	jbe	4f
	mov	$REPSTOS_PROF_LAST_CLASS, %eax
4:	lock addq $1, REPSTOS_PROF_SLOT_HIST(%rdx,%rax,8)
	mov	(%rdx), \dst			/* the slot's routine */
	jmp	6f
5:	mov	__repstos_prof+\fallback(%rip), \dst
6:
.endm

#endif /* REPSTOS_PROF_BODY_H */
