/* SPDX-License-Identifier: MIT */
/*
 * asm.h - what the runtime's assembler files share: how a routine opens
 * and closes, the guard of a routine that needs more than x86-64, the
 * common exit of the store routines, and the notes every object needs.
 */
#ifndef REPSTOS_ASM_H
#define REPSTOS_ASM_H

#ifndef __ASSEMBLER__
#error "asm.h is for assembler files"
#endif

/*
 * Hidden: each module links its own copy of the runtime, and a site's
 * rel32 call must reach it without a PLT.  endbr64 first, because the
 * stub reaches every routine by an indirect jump (a NOP without CET).
 */
#define ENTRY(name)			\
	.globl name;			\
	.hidden name;			\
	.type name, @function;		\
	.balign 16;			\
name:					\
	.cfi_startproc;			\
	endbr64

#define END(name)			\
	.cfi_endproc;			\
	.size name, . - name

/*
 * The first instructions of a routine that needs more than x86-64 has:
 * unless the module's constructor found the CPU able to run it (a byte
 * of data, set from CPUID: runtime/patch.c), run "vec" instead.  A file
 * `repstos patch` fixed for a richer CPU thus runs anywhere, with text
 * patching off or refused too.  A compare and a predicted branch.
 * `repstos` tells such routines apart by the distance of this branch to
 * "vec" (patcher/routines.c), so they live in one file with it.
 */
#define REQUIRE(can)			\
	cmpb	$0, can(%rip);		\
	je	__repstos_vec

/* rdi += rcx; rcx = 0; return.  The common exit of the store routines. */
#define FINISH				\
	add	%rcx, %rdi;		\
	xor	%ecx, %ecx;		\
	ret

/*
 * The notes at the end of every runtime object.  The linker keeps a
 * module's IBT and SHSTK property only if every object in it states it,
 * and everything here is compatible: endbr64 at every entry, call and
 * ret paired.  And no object asks for an executable stack.
 */
.macro OBJECT_NOTES
	.pushsection .note.gnu.property, "a"
	.balign 8
	.long	4
	.long	16
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000002		/* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long	4
	.long	3			/* IBT | SHSTK */
	.long	0
	.popsection
	.pushsection .note.GNU-stack, "", @progbits
	.popsection
.endm

#endif /* REPSTOS_ASM_H */
