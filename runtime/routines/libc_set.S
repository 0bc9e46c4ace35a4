/* SPDX-License-Identifier: MIT */
/* libc_set.S - "libc" of the set family: the C library's memset (libc.h). */
#include "asm.h"
#include "libc.h"

	.text

/* in rdi, rcx, rax (the byte); out rdi + rcx, rcx 0, rax as it was */
ENTRY(__repstos_libc_memset)
	keep 1
	path_mark libc_memset
	mov	%rcx, %rdx		/* memset(rdi, esi, rdx) */
	mov	%eax, %esi
	call	*memset@GOTPCREL(%rip)
	give_back 1
END(__repstos_libc_memset)

	OBJECT_NOTES
