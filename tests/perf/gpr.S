/* SPDX-License-Identifier: MIT */
/*
 * gpr.S - a benchmark-only routine: "vec" without the vector register.
 * The same size classes and overlapping stores, but every store is an
 * 8-byte store of rax (the fill broadcast into rax itself, restored with
 * movzbl at the end), so it keeps the contract with an empty scratch
 * set.  tests/perf measures it beside "vec" to justify declaring xmm0
 * (runtime/repstos_site.h).  Same rep stosb threshold as "vec".
 */
	.section .rodata.bench, "a", @progbits
	.balign 8
.Lb01:	.quad	0x0101010101010101

	.text
	.globl	__bench_gpr
	.hidden	__bench_gpr
	.type	__bench_gpr, @function
	.balign	16
__bench_gpr:
	.cfi_startproc
	endbr64
	cmp	$8, %rcx
	jb	.Lg_small
	cmp	__repstos_vec_rep_min(%rip), %rcx
	jae	.Lg_rep
	imul	.Lb01(%rip), %rax
	cmp	$16, %rcx
	ja	.Lg_17
	mov	%rax, (%rdi)
	mov	%rax, -8(%rdi,%rcx)
	jmp	.Lg_done
.Lg_17:
	cmp	$32, %rcx
	ja	.Lg_33
	mov	%rax, (%rdi)
	mov	%rax, 8(%rdi)
	mov	%rax, -16(%rdi,%rcx)
	mov	%rax, -8(%rdi,%rcx)
	jmp	.Lg_done
.Lg_33:
	cmp	$64, %rcx
	ja	.Lg_65
	mov	%rax, (%rdi)
	mov	%rax, 8(%rdi)
	mov	%rax, 16(%rdi)
	mov	%rax, 24(%rdi)
	mov	%rax, -32(%rdi,%rcx)
	mov	%rax, -24(%rdi,%rcx)
	mov	%rax, -16(%rdi,%rcx)
	mov	%rax, -8(%rdi,%rcx)
	jmp	.Lg_done
.Lg_65:
	/* 64 bytes per iteration, then the last 64 (overlapping) */
	mov	%rax, (%rdi)
	mov	%rax, 8(%rdi)
	mov	%rax, 16(%rdi)
	mov	%rax, 24(%rdi)
	mov	%rax, 32(%rdi)
	mov	%rax, 40(%rdi)
	mov	%rax, 48(%rdi)
	mov	%rax, 56(%rdi)
	add	$64, %rdi
	sub	$64, %rcx
	cmp	$64, %rcx
	ja	.Lg_65
	mov	%rax, -64(%rdi,%rcx)
	mov	%rax, -56(%rdi,%rcx)
	mov	%rax, -48(%rdi,%rcx)
	mov	%rax, -40(%rdi,%rcx)
	mov	%rax, -32(%rdi,%rcx)
	mov	%rax, -24(%rdi,%rcx)
	mov	%rax, -16(%rdi,%rcx)
	mov	%rax, -8(%rdi,%rcx)
.Lg_done:
	movzbl	%al, %eax
	add	%rcx, %rdi
	xor	%ecx, %ecx
	ret
.Lg_rep:
	rep stosb
	ret
.Lg_small:
	cmp	$4, %rcx
	jae	.Lg_4
	test	%rcx, %rcx
	jz	.Lg_ret
	mov	%al, (%rdi)
	mov	%al, -1(%rdi,%rcx)
	cmp	$3, %rcx
	jb	.Lg_fin
	mov	%al, 1(%rdi)
.Lg_fin:
	add	%rcx, %rdi
	xor	%ecx, %ecx
.Lg_ret:
	ret
.Lg_4:
	imul	$0x01010101, %eax, %eax
	mov	%eax, (%rdi)
	mov	%eax, -4(%rdi,%rcx)
	jmp	.Lg_done
	.cfi_endproc
	.size	__bench_gpr, . - __bench_gpr

	.section .note.GNU-stack, "", @progbits
