/* SPDX-License-Identifier: MIT */
/*
 * sweep_call.S - void sweep_call(struct sweep_regs *r): call r->fn as a
 * site does, with every register the site contract names loaded from r
 * (rdi, rsi, rcx, rax) and every other one sweep.c checks loaded with a
 * sentinel (rbx, rbp, rdx, r8..r15, xmm1..xmm15), then store what the
 * routine left in all of them, and the flags, back into r.  The routine
 * sees the stack as a site's call leaves it: 8 bytes off 16.  The
 * 16 words below the routine's stack pointer (the red zone a leaf
 * may use, below the return address) are filled with a pattern first,
 * and which of them changed goes back in r, as bit i for the word 8 * i
 * below ours: a routine may write the 8 bytes just below its stack
 * pointer (repstos_site.h) and no more, but the routines here are the
 * counted build, whose path_mark pushes the flags below a backward
 * path's push of the count: the first two words are not checked.
 */
#include "sweep_call.h"

	.text
	.globl	sweep_call
	.type	sweep_call, @function
sweep_call:
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	push	%rdi			/* 24(%rsp) after the call: r */
	push	SR_FN(%rdi)		/* 8(%rsp) at the call: the routine */
	sub	$8, %rsp		/* the call leaves rsp 8 off 16 */
	mov	$0xa5c3a5c3a5c3a5c3, %rax	/* the routine's rsp is ours - 8 */
	.irp	i, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17
	mov	%rax, -8*\i(%rsp)
	.endr
	.irp	x, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	movdqu	SR_XMM_IN+(\x-1)*16(%rdi), %xmm\x
	.endr
	mov	SR_GPR+0(%rdi), %rbx
	mov	SR_GPR+8(%rdi), %rbp
	mov	SR_GPR+16(%rdi), %rdx
	mov	SR_GPR+24(%rdi), %r8
	mov	SR_GPR+32(%rdi), %r9
	mov	SR_GPR+40(%rdi), %r10
	mov	SR_GPR+48(%rdi), %r11
	mov	SR_GPR+56(%rdi), %r12
	mov	SR_GPR+64(%rdi), %r13
	mov	SR_GPR+72(%rdi), %r14
	mov	SR_GPR+80(%rdi), %r15
	mov	SR_RSI(%rdi), %rsi
	mov	SR_RCX(%rdi), %rcx
	mov	SR_RAX(%rdi), %rax
	mov	SR_RDI(%rdi), %rdi
	call	*8(%rsp)
	push	%rdi
	mov	24(%rsp), %rdi
	pop	SR_OUT_RDI(%rdi)
	mov	%rsi, SR_OUT_RSI(%rdi)
	mov	%rcx, SR_OUT_RCX(%rdi)
	mov	%rax, SR_OUT_RAX(%rdi)
	mov	%rbx, SR_OUT_GPR+0(%rdi)
	mov	%rbp, SR_OUT_GPR+8(%rdi)
	mov	%rdx, SR_OUT_GPR+16(%rdi)
	mov	%r8, SR_OUT_GPR+24(%rdi)
	mov	%r9, SR_OUT_GPR+32(%rdi)
	mov	%r10, SR_OUT_GPR+40(%rdi)
	mov	%r11, SR_OUT_GPR+48(%rdi)
	mov	%r12, SR_OUT_GPR+56(%rdi)
	mov	%r13, SR_OUT_GPR+64(%rdi)
	mov	%r14, SR_OUT_GPR+72(%rdi)
	mov	%r15, SR_OUT_GPR+80(%rdi)
	pushfq
	pop	SR_OUT_FLAGS(%rdi)
	.irp	x, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	movdqu	%xmm\x, SR_XMM_OUT+(\x-1)*16(%rdi)
	.endr
	xor	%ecx, %ecx		/* bit i: the word 8 * i below ours */
	mov	$0xa5c3a5c3a5c3a5c3, %rax
	.irp	i, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17
	cmp	%rax, -8*\i(%rsp)
	setne	%dl
	movzbl	%dl, %edx
	shl	$\i, %rdx
	or	%rdx, %rcx
	.endr
	mov	%rcx, SR_OUT_BELOW(%rdi)
	add	$24, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	ret
	.size	sweep_call, . - sweep_call

	.section .note.GNU-stack, "", @progbits
