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

#include "can.h"

/*
 * Hidden: each module links its own copy of the runtime, and a site's
 * rel32 call must reach it without a PLT.  endbr64 first, because the
 * stub reaches every routine by an indirect jump (a NOP without CET).
 */
#define ENTRY(name)	ENTRY_ALIGN(name, 16)

/* The same on an `align`-byte boundary: the copy routines take 64, as
 * their small sizes' branches then sit where they measured best on Zen 4
 * (copy.S). */
#define ENTRY_ALIGN(name, align)	\
	.globl name;			\
	.hidden name;			\
	.type name, @function;		\
	.balign align;			\
name:					\
	.cfi_startproc;			\
	endbr64

#define END(name)			\
	.cfi_endproc;			\
	.size name, . - name

/*
 * The first instructions of a routine that needs more than x86-64 has:
 * unless the module's constructor found the CPU able to run it (bit
 * REPSTOS_CAN_RUN of a byte repstos_routines_enable sets from CPUID),
 * run `fallback` instead, the SSE2 routine of the same operation
 * (__repstos_vec, __repstos_copy_vec).  A file `repstos patch` fixed
 * for a richer CPU thus runs anywhere, with text patching off or
 * refused too.  A test and a predicted branch, the bytes of the compare
 * it replaced.
 * `repstos` tells such routines apart by the distance of this branch to
 * the fallback (patcher/routines.c), so they live in one file with it.
 */
#define REQUIRE(can, fallback)		\
	testb	$REPSTOS_CAN_RUN, can(%rip);	\
	jz	fallback

/* rdi += rcx; rcx = 0; return.  The common exit of the store routines. */
#define FINISH				\
	add	%rcx, %rdi;		\
	xor	%ecx, %ecx;		\
	ret

/*
 * path_mark ID: a point where one path of a routine starts.  In a test
 * build (-DREPSTOS_PATHS) control passing it adds one to a record {count,
 * name} in section repstos_paths, which the path test walks from
 * __start_repstos_paths to __stop_repstos_paths and fails on any record
 * still 0; in the real build it is nothing.  The flags are saved around
 * the count, since a path may begin between a compare and a second
 * branch on it; the stack below rsp is the routine's own (it was called).
 */
.macro path_mark id
#ifdef REPSTOS_PATHS
	pushfq
	incq	.Lpath_\id(%rip)
	popfq
	.pushsection repstos_paths, "aw", @progbits
	.balign 8
.Lpath_\id:
	.quad	0
	.quad	.Lpath_name_\id
	.popsection
	.pushsection .rodata.repstos_paths, "a", @progbits
.Lpath_name_\id:
	.asciz	"\id"
	.popsection
#endif
.endm

/*
 * .L<name>_<lo>_<hi>, defined (size_label) or jumped to (size_jump jcc):
 * the labels of the size-dispatched routines (set_body.h, copy_body.h)
 * say which sizes reach them; each defined one is a path (path_mark).  lo and hi are expressions (hi may be
 * "up"), made digits by %() of the alternate macro mode.  The mode is on
 * for that one line: left on, it would read every %register in a macro
 * argument as an expression.
 */
.macro size_label name, lo, hi
	size_sym label, \name, \lo, \hi
.endm
.macro size_jump jcc, name, lo, hi
	size_sym \jcc, \name, \lo, \hi
.endm
.macro size_sym what, name, lo, hi
	.altmacro
	.ifc \hi, up
	size_sym_ \what, \name, %(\lo), up
	.else
	size_sym_ \what, \name, %(\lo), %(\hi)
	.endif
	.noaltmacro
.endm
.macro size_sym_ what, name, lo, hi
	.ifc \what, label
.L\name\()_\lo\()_\hi\():
	path_mark \name\()_\lo\()_\hi
	.else
	\what	.L\name\()_\lo\()_\hi
	.endif
.endm

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
