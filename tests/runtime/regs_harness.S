/* SPDX-License-Identifier: MIT */
/*
 * regs_harness.S - call a routine with every register set from a
 * struct regfile and store every register back afterwards.
 *
 *   void regs_call_W(const struct regfile *in, struct regfile *out,
 *                    void (*fn)(void));     W = xmm, ymm, zmm
 *
 * regs_ret_W is where fn returns to (the profiling routine finds its
 * "site" by that address).
 *
 * struct regfile (regs.c): gpr[16] in the order below (rsp slot unused),
 * flags, mxcsr (+pad), k[8], then vec[32][64] at offset 0xc0.
 */
#define GPR(i)	(8 * (i))
#define FLAGS	0x80
#define MXCSR	0x88
#define KREG(i)	(0x90 + 8 * (i))	/* 0x90..0xcf */
#define VEC(i)	(0x100 + 64 * (i))

/* rax=0 rbx=1 rcx=2 rdx=3 rsi=4 rdi=5 rbp=6 rsp=7 r8..r15=8..15 */

.macro load_gprs
	mov	GPR(1)(%rdi), %rbx
	mov	GPR(2)(%rdi), %rcx
	mov	GPR(3)(%rdi), %rdx
	mov	GPR(4)(%rdi), %rsi
	mov	GPR(6)(%rdi), %rbp
	mov	GPR(8)(%rdi), %r8
	mov	GPR(9)(%rdi), %r9
	mov	GPR(10)(%rdi), %r10
	mov	GPR(11)(%rdi), %r11
	mov	GPR(12)(%rdi), %r12
	mov	GPR(13)(%rdi), %r13
	mov	GPR(14)(%rdi), %r14
	mov	GPR(15)(%rdi), %r15
	mov	GPR(0)(%rdi), %rax
	mov	GPR(5)(%rdi), %rdi
.endm

/* After the call: out in rax, the routine's rax and flags on the stack. */
.macro store_gprs
	pushfq
	push	%rax
	mov	24(%rsp), %rax
	mov	%rbx, GPR(1)(%rax)
	mov	%rcx, GPR(2)(%rax)
	mov	%rdx, GPR(3)(%rax)
	mov	%rsi, GPR(4)(%rax)
	mov	%rdi, GPR(5)(%rax)
	mov	%rbp, GPR(6)(%rax)
	mov	%r8, GPR(8)(%rax)
	mov	%r9, GPR(9)(%rax)
	mov	%r10, GPR(10)(%rax)
	mov	%r11, GPR(11)(%rax)
	mov	%r12, GPR(12)(%rax)
	mov	%r13, GPR(13)(%rax)
	mov	%r14, GPR(14)(%rax)
	mov	%r15, GPR(15)(%rax)
	pop	%rbx
	mov	%rbx, GPR(0)(%rax)
	pop	%rbx
	mov	%rbx, FLAGS(%rax)
	stmxcsr	MXCSR(%rax)
.endm

.macro prologue
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	push	%rsi			/* out */
	push	%rdx			/* fn */
	ldmxcsr	MXCSR(%rdi)
	cld
.endm

.macro epilogue
	add	$16, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	ret
.endm

	.text
	.globl regs_call_xmm
	.type regs_call_xmm, @function
regs_call_xmm:
	prologue
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu	VEC(\i)(%rdi), %xmm\i
	.endr
	load_gprs
	call	*(%rsp)
	.globl regs_ret_xmm
regs_ret_xmm:			/* where the call returns */
	store_gprs
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu	%xmm\i, VEC(\i)(%rax)
	.endr
	epilogue
	.size regs_call_xmm, . - regs_call_xmm

	.globl regs_call_ymm
	.type regs_call_ymm, @function
regs_call_ymm:
	prologue
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	vmovdqu	VEC(\i)(%rdi), %ymm\i
	.endr
	load_gprs
	call	*(%rsp)
	.globl regs_ret_ymm
regs_ret_ymm:			/* where the call returns */
	store_gprs
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	vmovdqu	%ymm\i, VEC(\i)(%rax)
	.endr
	vzeroupper
	epilogue
	.size regs_call_ymm, . - regs_call_ymm

	.globl regs_call_zmm
	.type regs_call_zmm, @function
regs_call_zmm:
	prologue
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	vmovdqu64 VEC(\i)(%rdi), %zmm\i
	.endr
	.irp i, 0,1,2,3,4,5,6,7
	kmovw	KREG(\i)(%rdi), %k\i
	.endr
	load_gprs
	call	*(%rsp)
	.globl regs_ret_zmm
regs_ret_zmm:			/* where the call returns */
	store_gprs
	.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	vmovdqu64 %zmm\i, VEC(\i)(%rax)
	.endr
	.irp i, 0,1,2,3,4,5,6,7
	kmovw	%k\i, KREG(\i)(%rax)
	.endr
	vzeroupper
	epilogue
	.size regs_call_zmm, . - regs_call_zmm

	.section .note.GNU-stack, "", @progbits
