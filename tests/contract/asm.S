/* SPDX-License-Identifier: MIT */
/* Sites hand-written in assembler with the header's REPSTOS_SITE. */
#include "repstos_site.h"

	.text
	.globl	zero_page
zero_page:
	mov	$4096, %ecx
	xor	%eax, %eax
	REPSTOS_SITE(.Lzero_page, 1, 2, 4096, 4096)	/* zero, constant */
	ret

	.section .text.other, "ax", @progbits
	.globl	fill
fill:
	mov	%esi, %eax
	mov	%rdx, %rcx
	REPSTOS_SITE(.Lfill, 0, 0, 0, 0xffffffff)
	ret
	.globl	copy
copy:
	mov	%rdx, %rcx
	REPSTOS_COPY_SITE(.Lcopy, 3, 0, 0, 0xffffffff)	/* copy, unknown */
	ret
	.section .note.GNU-stack, "", @progbits
