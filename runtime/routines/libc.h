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
 * every caller-saved GPR the site does not give up; the low 128 bits of
 * the xmm registers a site may keep: xmm1-15 at a memset site built
 * without AVX, xmm8-15 at a copy site (every site lets a routine change
 * the upper halves, and xmm0, or xmm0-7 for copies);
 * and, where the hardware has AVX-512 (REPSTOS_CPU notwithstanding: the
 * C library picks its routines by the hardware), the mask registers but
 * k1 (glibc's routines use k0-k6; a site in AVX-512 code declares k1,
 * and in other code none is live, the ABI making every one
 * call-clobbered).  Not the
 * x87 state nor MXCSR: their control bits are the callee's to keep by
 * the ABI, and a memset sets no status bit.  The xmm registers go by
 * movups, one each way a register, not fxsave/fxrstor, which took 90 ns
 * a pair on Zen 5 (fxrstor 67 of them by difference; xsave and xrstor
 * of the SSE state alone, 130) where sixteen movups each way take 3.6:
 * under "libc" the many-site program took 97 ns a call with fxsave, 21
 * with the movups, glibc's own memset 16 (bench/manysite.sh).  SSE
 * encodings, which a CPU without AVX runs too.  Some 5 ns a call stay:
 * a plain build stays the exact baseline, this one the one that needs
 * no second build.  The call goes through the GOT, so no module gets a
 * PLT entry for it.
 *
 * memmove, not memcpy, for copies: the copy stub serves move sites too,
 * and every copy routine handles overlap.  One object a family
 * (libc_set.S, libc_copy.S), so that a module carries only its families'.
 */
#ifndef REPSTOS_LIBC_H
#define REPSTOS_LIBC_H

/*
 * The frame, below rbp (the caller's rsp less the return address and
 * rbp): the GPRs pushed, the last of them rdi's value after the call
 * (rdi + rcx); under them the masks, at one-byte displacements from rbp;
 * then, from the 16-aligned rsp, the xmm registers, reached through rdx
 * = rsp + 120, so that each takes a one-byte displacement too.  Pushes
 * and pops rather than stores at rsp: librepstos.a's text has to stay
 * within issue 21's 12 KiB (bench/footprint.sh), and the sixteen movups
 * each way cost bytes that fxsave/fxrstor did not.
 */
#define RSI_SLOT	(-24)		/* rbp-relative: keep's third push */
#define MASK(i)		(-72 - (i) * 8)	/* rbp-relative */
#define XMM(i)		((i) * 16 - 120)	/* from rdx */
#define FRAME		320		/* the masks' 64 above xmm's 256 */

/* movups of xmm FIRST..15 between the registers and the frame, through
 * rdx: SAVE 1 stores them, else loads. */
.macro xmm_from first, save
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	.if \i >= \first
	.if \save
	movups	%xmm\i, XMM(\i)(%rdx)
	.else
	movups	XMM(\i)(%rdx), %xmm\i
	.endif
	.endif
	.endr
.endm

/* Each mask register but k1, to (SAVE 1) or from the frame, where the
 * hardware has them: by REPSTOS_CAN_MASKS, not REPSTOS_CAN_RUN, which
 * REPSTOS_CPU may clear while the C library still uses them. */
.macro masks save
	testb	$REPSTOS_CAN_MASKS, __repstos_can_avx512(%rip)
	jz	1f
	.irp i, 0, 2, 3, 4, 5, 6, 7
	.if \save
	kmovq	%k\i, MASK(\i)(%rbp)
	.else
	kmovq	MASK(\i)(%rbp), %k\i
	.endif
	.endr
1:
.endm

/* Open the frame and keep what the C library may change: the GPRs, the
 * masks and xmm FIRST..15 (the first a site may keep: 1 for memset
 * sites, whose xmm0 is scratch, 8 for copy sites). */
.macro keep first
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	.irp r, rax, rdx, rsi, r8, r9, r10, r11
	push	%\r
	.endr
	lea	(%rdi, %rcx), %rdx
	push	%rdx
	and	$-16, %rsp
	sub	$FRAME, %rsp
	lea	120(%rsp), %rdx
	xmm_from \first, 1
	masks 1
.endm

/* Put it all back (rsi from its slot: the copy adaptor stores its rsi's
 * value after the call there), rdi = rdi + rcx as keep found them,
 * rcx = 0, and return. */
.macro give_back first
	masks 0
	lea	120(%rsp), %rdx
	xmm_from \first, 0
	lea	-64(%rbp), %rsp
	.irp r, rdi, r11, r10, r9, r8, rsi, rdx, rax
	pop	%\r
	.endr
	xor	%ecx, %ecx
	leave
	.cfi_def_cfa %rsp, 8
	ret
.endm

#endif
