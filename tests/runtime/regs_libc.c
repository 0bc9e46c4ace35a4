// SPDX-License-Identifier: MIT
// Proves: the "libc" adaptors keep every register a site keeps, whatever the C library's memset and memmove change.
/*
 * regs_libc.c - a memset and a memmove that do their work and then
 * change every register a call may change: every caller-saved GPR, the
 * flags, xmm0-15 (their upper halves back to zero, as the C library's
 * vzeroupper leaves them), zmm16-31 and k0-7.  Linked into regs_libc,
 * they take the C library's place behind the "libc" adaptors, which
 * reach memset and memmove through the GOT, so that regs.c proves the
 * adaptors keep what a site keeps whatever the C library touches.
 * glibc's own routines would not show it: on an AVX-512 CPU its memset
 * writes ymm16 and up only, and an adaptor that kept none of xmm1-8
 * passed regs there.  MXCSR is left alone: its control bits are the
 * callee's to keep by the ABI, and a memset sets no status bit.
 */
unsigned char regs_clobber_width;	/* 0 SSE, 1 AVX, 2 AVX-512F */

__attribute__((constructor)) static void pick_width(void)
{
	__builtin_cpu_init();
	regs_clobber_width = __builtin_cpu_supports("avx512f") ? 2 :
			     __builtin_cpu_supports("avx") ? 1 : 0;
}

__asm__(
	".text\n"
	".globl memset\n"
	".type memset, @function\n"
	"memset:\n"
	"	mov	%rdi, %r11\n"
	"	mov	%rdx, %rcx\n"
	"	mov	%esi, %eax\n"
	"	rep stosb\n"
	"	jmp	regs_clobber\n"
	".size memset, .-memset\n"

	".globl memmove\n"
	".type memmove, @function\n"
	"memmove:\n"
	"	mov	%rdi, %r11\n"
	"	mov	%rdx, %rcx\n"
	"	cmp	%rsi, %rdi\n"
	"	jbe	1f\n"			/* forward where dest <= src */
	"	lea	-1(%rsi,%rcx), %rsi\n"
	"	lea	-1(%rdi,%rcx), %rdi\n"
	"	std\n"
	"	rep movsb\n"
	"	cld\n"
	"	jmp	regs_clobber\n"
	"1:	rep movsb\n"
	"	jmp	regs_clobber\n"
	".size memmove, .-memmove\n"

	/* r11: the destination, which the ABI returns in rax */
	"regs_clobber:\n"
	"	mov	%r11, %rax\n"
	"	movabs	$0x5a5a5a5a5a5a5a5a, %rcx\n"
	"	mov	%rcx, %rdx\n"
	"	mov	%rcx, %rsi\n"
	"	mov	%rcx, %rdi\n"
	"	mov	%rcx, %r8\n"
	"	mov	%rcx, %r9\n"
	"	mov	%rcx, %r10\n"
	"	mov	%rcx, %r11\n"
	"	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15\n"
	"	pcmpeqd	%xmm\\i, %xmm\\i\n"
	"	.endr\n"
	"	cmpb	$0, regs_clobber_width(%rip)\n"
	"	je	9f\n"
	"	cmpb	$1, regs_clobber_width(%rip)\n"
	"	je	8f\n"
	"	.irp i, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31\n"
	"	vpternlogd $0xff, %zmm\\i, %zmm\\i, %zmm\\i\n"
	"	.endr\n"
	"	.irp i, 0, 1, 2, 3, 4, 5, 6, 7\n"
	"	kxnorw	%k\\i, %k\\i, %k\\i\n"
	"	.endr\n"
	"8:	vzeroupper\n"
	"9:	cmp	%rcx, %rdx\n"		/* ZF set: the flags change too */
	"	ret\n"
);
