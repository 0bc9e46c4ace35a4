/* SPDX-License-Identifier: MIT */
/*
 * standin.S - a stand-in __repstos_copy_stub for the plugin tests while
 * runtime/librepstos.a has none: a plain, correct memmove with the copy
 * site contract (rdi, rsi advanced by rcx, rcx 0, rax clobbered).  The
 * tests link it only when `nm` finds no __repstos_copy_stub in the
 * archive.
 */
#include "repstos_site.h"
	.text
	.globl REPSTOS_COPY_STUB_SYMBOL
	.hidden REPSTOS_COPY_STUB_SYMBOL
	.type REPSTOS_COPY_STUB_SYMBOL, @function
REPSTOS_COPY_STUB_SYMBOL:
	movq	%rdi, %rax
	subq	%rsi, %rax
	cmpq	%rcx, %rax		/* dst - src < n: dst in the source's tail */
	jb	1f
	rep movsb
	ret
1:	movq	%rcx, %rax		/* backwards */
	leaq	-1(%rsi,%rcx), %rsi
	leaq	-1(%rdi,%rcx), %rdi
	std
	rep movsb
	cld
	leaq	1(%rdi,%rax), %rdi
	leaq	1(%rsi,%rax), %rsi
	ret
	.size REPSTOS_COPY_STUB_SYMBOL, . - REPSTOS_COPY_STUB_SYMBOL
	.section .note.GNU-stack,"",@progbits
