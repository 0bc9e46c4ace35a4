/* SPDX-License-Identifier: MIT */
/*
 * dispatch.S - the dispatch stub every compiled site of one family
 * calls, its fallback, and the module's dispatch record of that family
 * (abi.h): the set stub, or with -DREPSTOS_COPY_FAMILY the copy stub.
 * One object per family, so that a module carries only the routines of
 * the families it has sites of: the record names the family's routines
 * and pulls them into the link.
 *
 * A stub is endbr64, then a jump (e9 rel32) that the start-up rewrites
 * like a site, to the routine it chose (runtime/startup/patch.c); until
 * then, and where text is not written (REPSTOS_PATCH=0, or refused),
 * the jump goes to the fallback right after it.  Assembled for:
 *  - librepstos.a (and librepstos.so.0, -DREPSTOS_SHARED, which also
 *    exports its stubs): the fallback reads this family's choice byte,
 *    which the start-up sets, and jumps to that routine of the record,
 *    or to "original" for a byte past the record's end.  No pointer:
 *    a stray or hostile write to the byte can choose only among the
 *    family's routines, each correct for every site of the family.
 *    The stub names the constructor, so that a module's sites, by
 *    calling it, pull module.c and its constructor into the link;
 *  - the core archive (-DREPSTOS_CORE), the same without naming the
 *    constructor: the tool links the stubs and the routines (to
 *    compare files' code with them, and to time them) but no start-up;
 *  - a module using the shared runtime (-DREPSTOS_LEAN;
 *    librepstos_nonshared.a): no byte; the fallback jumps to the shared
 *    runtime's stub, through the GOT (read-only after relocation), and
 *    the start-up leaves the jump as it is (patch.c, patch_stubs).
 * -DREPSTOS_PROFILES (the size-profile archive, the shared runtime and
 * its modules) adds the family's profiling routine to the record, as
 * the fallback's last entry (record.S, record_copy.S).
 */
#include "repstos_site.h"
#include "routines/asm.h"
#include "module/module.h"

#ifdef REPSTOS_COPY_FAMILY
#define STUB		REPSTOS_COPY_STUB_SYMBOL
#define CHOICE		__repstos_copy_choice
#define SHARED_STUB	__repstos_shared_copy_stub
#define ROUTINES	REPSTOS_COPY_VARIANTS
#define PROFILE		__repstos_copy_profile
#define FAMILY		1
/*
 * Copy sites have their own stub: a copy routine takes other arguments
 * than a set routine.  The two-byte NOP tells the stubs apart by their
 * code alone, which is all `repstos` has in a stripped file; a set site
 * calling the copy stub would run a copy.
 */
#define MARK		xchg %ax, %ax
#define JUMP_AT		REPSTOS_COPY_STUB_JUMP_AT
#else
#define STUB		REPSTOS_STUB_SYMBOL
#define CHOICE		__repstos_set_choice
#define SHARED_STUB	__repstos_shared_stub
#define ROUTINES	REPSTOS_VARIANTS
#define PROFILE		__repstos_profile
#define FAMILY		0
#define MARK
#define JUMP_AT		REPSTOS_STUB_JUMP_AT
#endif

/* The relocation does nothing but pull what it names into the link
 * (the constructor), or keep what it names with the stub under
 * --gc-sections (the record). */
#define PULL(sym)	.reloc	., R_X86_64_NONE, sym

/* A routine of the record: its place from the entry. */
#define X_ENTRY(e, name, sym, needs)	.long sym - .;

	/* The dispatch record (abi.h). */
	.pushsection REPSTOS_DISPATCH_NAME, "a", @progbits
	.balign 4
.Lrecord:
	.byte	FAMILY, (.Lroutines_end - .Lroutines) / 4
	.byte	.Ljump - STUB, 0
	.long	STUB - .
#ifdef REPSTOS_LEAN
	.long	0
#else
	.long	CHOICE - .
#endif
.Lroutines:
	ROUTINES(X_ENTRY)
.Lroutines_end:
#ifdef REPSTOS_PROFILES
	.long	PROFILE - .
#define NCHOICES	((.Lroutines_end - .Lroutines) / 4 + 1)
#else
	.long	0
#define NCHOICES	((.Lroutines_end - .Lroutines) / 4)
#endif
	.popsection

#ifndef REPSTOS_LEAN
	/* The byte the fallback reads: 0, "original", correct on every
	 * x86-64, until the start-up sets it, before any site is pointed
	 * at a routine. */
	.data
	.globl	CHOICE
	.hidden	CHOICE
	.type	CHOICE, @object
	.size	CHOICE, 1
CHOICE:	.byte	0
#endif

	.text
ENTRY(STUB)
#ifndef REPSTOS_CORE
	PULL(__repstos_module_init)
#endif
	PULL(.Lrecord)
	MARK
	/* The stub's jump (struct repstos_dispatch's jmp): always 5 bytes. */
.Ljump:	.byte	0xe9
	.long	.Lfallback - (. + 4)
.Lfallback:
#ifdef REPSTOS_LEAN
	jmp	*SHARED_STUB@GOTPCREL(%rip)
#else
	/*
	 * routine[choice], or routine[0] for a byte past the end.  A site
	 * may lose nothing but rdi, rcx, the flags and its declared vector
	 * registers, so rax and rdx are saved and the address goes below
	 * the stack pointer, where code with sites keeps nothing (no red
	 * zone: the plugin's -mno-red-zone, REPSTOS_MEMSET steps over it)
	 * and a signal frame does not reach (the kernel leaves the 128
	 * bytes below it alone).  An indirect jump, not a push and ret:
	 * call and ret stay paired for a shadow stack.
	 */
	push	%rax
	.cfi_adjust_cfa_offset 8
	push	%rdx
	.cfi_adjust_cfa_offset 8
	movzbl	CHOICE(%rip), %eax
	cmp	$NCHOICES, %eax
	jb	1f
	xor	%eax, %eax
1:	lea	.Lroutines(%rip), %rdx
	lea	(%rdx,%rax,4), %rdx
	movslq	(%rdx), %rax
	add	%rdx, %rax
	mov	%rax, -8(%rsp)
	pop	%rdx
	.cfi_adjust_cfa_offset -8
	pop	%rax
	.cfi_adjust_cfa_offset -8
	jmp	*-24(%rsp)
#endif
END(STUB)
	.if	.Ljump - STUB - JUMP_AT
	.error	"the stub's jump is not where abi.h says"
	.endif

#ifdef REPSTOS_SHARED
	/* What modules using the shared runtime jump to (above). */
	.globl	SHARED_STUB
	.type	SHARED_STUB, @function
	.set	SHARED_STUB, STUB
#endif

	/*
	 * The table section, defined (empty) in every module that links the
	 * runtime, so __start_/__stop_repstos_sites always resolve.  It is
	 * SHF_LINK_ORDER like the compiler's entries: ld refuses to mix
	 * ordered and unordered input sections in one output section.
	 */
	REPSTOS_SITES_PUSHSECTION(STUB)
	.popsection

	/*
	 * The bounds of the table and of the records stay inside the
	 * module.  ld 2.40 put the __start_/__stop_ symbols it defines in
	 * .dynsym of every shared object as global ones (Debian's symbols
	 * files listed them: tests/realworld/cc.sh) when module.c's hidden
	 * references were all it saw; declaring them hidden here too keeps
	 * them local.
	 */
	.hidden	REPSTOS_SITES_START
	.hidden	REPSTOS_SITES_STOP
	.hidden	__start_repstos_dispatch
	.hidden	__stop_repstos_dispatch

	OBJECT_NOTES
