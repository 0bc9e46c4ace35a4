/* SPDX-License-Identifier: MIT */
/* libc_copy.S - "libc" of the copy family: the C library's memmove
 * (libc.h). */
#include "asm.h"
#include "libc.h"

	.text

/* in rdi, rsi, rcx; out rdi + rcx, rsi + rcx, rcx 0.  The tool tells
 * routines apart by their first instructions: this one saves rsi's
 * final value first. */
ENTRY(__repstos_libc_memmove)
	lea	(%rsi, %rcx), %rax	/* rax is the copy sites' to change */
	keep 8
	mov	%rax, RSI_SLOT(%rbp)
	path_mark libc_memmove
	mov	%rcx, %rdx		/* memmove(rdi, rsi, rdx) */
	call	*memmove@GOTPCREL(%rip)
	give_back 8
END(__repstos_libc_memmove)

	OBJECT_NOTES
