/* SPDX-License-Identifier: MIT */
/*
 * libc.h - the "libc" variants: a site that calls the C library's own
 * memset or memmove, for comparing a program with and without repstos's
 * routines without building it twice (REPSTOS_VARIANT=libc, `repstos
 * patch --cpu=libc`).  Only a forced choice gives them: the policy never
 * does, and a narrow site (entry version 1 or 2) gets "vec" instead, as
 * the C library may touch every vector register.
 *
 * A site keeps more registers than a call does (repstos_site.h), so each
 * adaptor keeps, around a call made by the ABI (stack aligned to 16):
 * every caller-saved GPR the site does not give up; xmm0-15 (fxsave: a
 * site in code built without AVX keeps xmm1-15, or xmm8-15 for copies,
 * and every site lets a routine change the upper halves); and, where the
 * CPU has AVX-512, the mask registers but k1 (glibc's routines use
 * k0-k6; a site in AVX-512 code declares k1, and in other code none is
 * live, the ABI making every one call-clobbered).  That costs some ns a
 * call: a plain build stays the exact baseline, this one the one that
 * needs no second build.  The call goes through the GOT, so no module
 * gets a PLT entry for it.
 *
 * memmove, not memcpy, for copies: the copy stub serves move sites too,
 * and every copy routine handles overlap.  One object a family
 * (libc_set.S, libc_copy.S), so that a module carries only its families'.
 */
#ifndef REPSTOS_LIBC_H
#define REPSTOS_LIBC_H

/* The frame: the GPRs and masks first, where a one-byte displacement
 * reaches them, then fxsave's 512 bytes (16-aligned). */
#define GPR(i)	((i) * 8)
#define MASK(i)	(64 + (i) * 8)
#define FX	128
#define FRAME	640

/* Open the frame and keep what the C library may change; rdi's value
 * after the call (rdi + rcx) in GPR(7). */
.macro keep
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
	mov	%rdx, GPR(7)(%rsp)
	fxsave	FX(%rsp)
	cmpb	$0, __repstos_can_avx512(%rip)
	je	1f
	kmovq	%k0, MASK(0)(%rsp)
	kmovq	%k2, MASK(2)(%rsp)
	kmovq	%k3, MASK(3)(%rsp)
	kmovq	%k4, MASK(4)(%rsp)
	kmovq	%k5, MASK(5)(%rsp)
	kmovq	%k6, MASK(6)(%rsp)
	kmovq	%k7, MASK(7)(%rsp)
1:
.endm

/* Put it all back (rsi from GPR(2): the copy adaptor stores its rsi's
 * value after the call there), rdi = GPR(7), rcx = 0, and return. */
.macro give_back
	cmpb	$0, __repstos_can_avx512(%rip)
	je	1f
	kmovq	MASK(0)(%rsp), %k0
	kmovq	MASK(2)(%rsp), %k2
	kmovq	MASK(3)(%rsp), %k3
	kmovq	MASK(4)(%rsp), %k4
	kmovq	MASK(5)(%rsp), %k5
	kmovq	MASK(6)(%rsp), %k6
	kmovq	MASK(7)(%rsp), %k7
1:
	fxrstor	FX(%rsp)
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
.endm

#endif
