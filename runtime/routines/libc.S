/* SPDX-License-Identifier: MIT */
/*
 * libc.S - the "libc" variants: a site that calls the C library's own
 * memset or memmove, for comparing a program with and without repstos's
 * routines without building it twice (REPSTOS_VARIANT=libc, `repstos
 * patch --cpu=libc`).  Only a forced choice gives them: the policy never
 * does, and a narrow site (entry version 1 or 2) gets "vec" instead, as
 * the C library may touch every vector register.
 *
 * A site keeps more registers than a call does (repstos_site.h), so each
 * adaptor keeps, around a call made by the ABI (stack aligned to 16):
 * every caller-saved GPR the site does not give up, the low 128 bits of
 * the vector registers a site keeps in code built without AVX (xmm1-15
 * for sets, xmm8-15 for copies; a site in AVX code declares them whole,
 * and every site lets a routine change their upper halves), and, where
 * the CPU has AVX-512, the eight mask registers (a site in AVX-512 code
 * declares only k1; glibc's routines use k0-k6).  That costs a few ns a
 * call: a plain build stays the exact baseline, this one the one that
 * needs no second build.
 *
 * The memmove, not memcpy, for copies: the copy stub serves move sites
 * too, and every copy routine handles overlap.
 */
#include "asm.h"

/* rbp-relative save area below the aligned frame */
#define GPR(i)	(i * 8)
#define MASK(i)	(64 + i * 8)
#define XMM(i)	(128 + i * 16)
#define FRAME	(128 + 16 * 16)
/* the copy adaptor's a little larger, so that its first instructions
 * differ from the set adaptor's (the tool tells routines apart by them) */
#define FRAME_COPY	(FRAME + 16)

/* The mask registers, where the CPU has them (the byte REQUIRE tests for
 * the AVX-512 routines, which need AVX512BW: 64-bit masks). */
#define SAVE_MASKS					\
	cmpb	$0, __repstos_can_avx512(%rip);		\
	je	1f;					\
	kmovq	%k0, MASK(0)(%rsp);			\
	kmovq	%k1, MASK(1)(%rsp);			\
	kmovq	%k2, MASK(2)(%rsp);			\
	kmovq	%k3, MASK(3)(%rsp);			\
	kmovq	%k4, MASK(4)(%rsp);			\
	kmovq	%k5, MASK(5)(%rsp);			\
	kmovq	%k6, MASK(6)(%rsp);			\
	kmovq	%k7, MASK(7)(%rsp);			\
1:

#define RESTORE_MASKS					\
	cmpb	$0, __repstos_can_avx512(%rip);		\
	je	1f;					\
	kmovq	MASK(0)(%rsp), %k0;			\
	kmovq	MASK(1)(%rsp), %k1;			\
	kmovq	MASK(2)(%rsp), %k2;			\
	kmovq	MASK(3)(%rsp), %k3;			\
	kmovq	MASK(4)(%rsp), %k4;			\
	kmovq	MASK(5)(%rsp), %k5;			\
	kmovq	MASK(6)(%rsp), %k6;			\
	kmovq	MASK(7)(%rsp), %k7;			\
1:

	.text

/* void memset: in rdi, rcx, rax (the byte); out rdi + rcx, rcx 0, rax */
ENTRY(__repstos_libc_memset)
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	and	$-16, %rsp
	sub	$FRAME, %rsp
	mov	%rax, GPR(0)(%rsp)
	mov	%rdx, GPR(1)(%rsp)
	mov	%rsi, GPR(2)(%rsp)
	mov	%r8, GPR(3)(%rsp)
	mov	%r9, GPR(4)(%rsp)
	mov	%r10, GPR(5)(%rsp)
	mov	%r11, GPR(6)(%rsp)
	lea	(%rdi, %rcx), %rdx
	mov	%rdx, GPR(7)(%rsp)	/* what rdi returns */
	movdqu	%xmm1, XMM(1)(%rsp)
	movdqu	%xmm2, XMM(2)(%rsp)
	movdqu	%xmm3, XMM(3)(%rsp)
	movdqu	%xmm4, XMM(4)(%rsp)
	movdqu	%xmm5, XMM(5)(%rsp)
	movdqu	%xmm6, XMM(6)(%rsp)
	movdqu	%xmm7, XMM(7)(%rsp)
	movdqu	%xmm8, XMM(8)(%rsp)
	movdqu	%xmm9, XMM(9)(%rsp)
	movdqu	%xmm10, XMM(10)(%rsp)
	movdqu	%xmm11, XMM(11)(%rsp)
	movdqu	%xmm12, XMM(12)(%rsp)
	movdqu	%xmm13, XMM(13)(%rsp)
	movdqu	%xmm14, XMM(14)(%rsp)
	movdqu	%xmm15, XMM(15)(%rsp)
	SAVE_MASKS
	mov	%rcx, %rdx		/* memset(rdi, esi, rdx) */
	mov	%eax, %esi
	path_mark libc_memset
	call	memset@PLT
	RESTORE_MASKS
	movdqu	XMM(1)(%rsp), %xmm1
	movdqu	XMM(2)(%rsp), %xmm2
	movdqu	XMM(3)(%rsp), %xmm3
	movdqu	XMM(4)(%rsp), %xmm4
	movdqu	XMM(5)(%rsp), %xmm5
	movdqu	XMM(6)(%rsp), %xmm6
	movdqu	XMM(7)(%rsp), %xmm7
	movdqu	XMM(8)(%rsp), %xmm8
	movdqu	XMM(9)(%rsp), %xmm9
	movdqu	XMM(10)(%rsp), %xmm10
	movdqu	XMM(11)(%rsp), %xmm11
	movdqu	XMM(12)(%rsp), %xmm12
	movdqu	XMM(13)(%rsp), %xmm13
	movdqu	XMM(14)(%rsp), %xmm14
	movdqu	XMM(15)(%rsp), %xmm15
	mov	GPR(0)(%rsp), %rax
	mov	GPR(1)(%rsp), %rdx
	mov	GPR(2)(%rsp), %rsi
	mov	GPR(3)(%rsp), %r8
	mov	GPR(4)(%rsp), %r9
	mov	GPR(5)(%rsp), %r10
	mov	GPR(6)(%rsp), %r11
	mov	GPR(7)(%rsp), %rdi
	xor	%ecx, %ecx
	leave
	.cfi_def_cfa %rsp, 8
	ret
END(__repstos_libc_memset)

/* memmove: in rdi, rsi, rcx; out rdi + rcx, rsi + rcx, rcx 0 */
ENTRY(__repstos_libc_memmove)
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	and	$-16, %rsp
	sub	$FRAME_COPY, %rsp
	mov	%rdx, GPR(1)(%rsp)
	mov	%r8, GPR(3)(%rsp)
	mov	%r9, GPR(4)(%rsp)
	mov	%r10, GPR(5)(%rsp)
	mov	%r11, GPR(6)(%rsp)
	lea	(%rdi, %rcx), %rdx
	mov	%rdx, GPR(7)(%rsp)
	lea	(%rsi, %rcx), %rdx
	mov	%rdx, GPR(2)(%rsp)
	movdqu	%xmm8, XMM(8)(%rsp)
	movdqu	%xmm9, XMM(9)(%rsp)
	movdqu	%xmm10, XMM(10)(%rsp)
	movdqu	%xmm11, XMM(11)(%rsp)
	movdqu	%xmm12, XMM(12)(%rsp)
	movdqu	%xmm13, XMM(13)(%rsp)
	movdqu	%xmm14, XMM(14)(%rsp)
	movdqu	%xmm15, XMM(15)(%rsp)
	SAVE_MASKS
	mov	%rcx, %rdx		/* memmove(rdi, rsi, rdx) */
	path_mark libc_memmove
	call	memmove@PLT
	RESTORE_MASKS
	movdqu	XMM(8)(%rsp), %xmm8
	movdqu	XMM(9)(%rsp), %xmm9
	movdqu	XMM(10)(%rsp), %xmm10
	movdqu	XMM(11)(%rsp), %xmm11
	movdqu	XMM(12)(%rsp), %xmm12
	movdqu	XMM(13)(%rsp), %xmm13
	movdqu	XMM(14)(%rsp), %xmm14
	movdqu	XMM(15)(%rsp), %xmm15
	mov	GPR(1)(%rsp), %rdx
	mov	GPR(3)(%rsp), %r8
	mov	GPR(4)(%rsp), %r9
	mov	GPR(5)(%rsp), %r10
	mov	GPR(6)(%rsp), %r11
	mov	GPR(2)(%rsp), %rsi
	mov	GPR(7)(%rsp), %rdi
	xor	%ecx, %ecx
	leave
	.cfi_def_cfa %rsp, 8
	ret
END(__repstos_libc_memmove)

	OBJECT_NOTES
