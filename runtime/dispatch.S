/* SPDX-License-Identifier: MIT */
/*
 * dispatch.S - the dispatch stubs every compiled site calls (the set
 * stub, and the copy stub of copy sites) and the page they jump through,
 * whose bytes the routines (set.S, copy.S) read too.
 *
 * Assembled twice.  For librepstos.a each stub names repstos_stats, so
 * that a module's sites, by calling the stub, pull patch.c and its
 * constructor into the link.  For the core archive (-DREPSTOS_CORE) it
 * does not: the tool links the stub and the routines (to compare files'
 * code with them, and to time them) but no start-up.
 */
#include "repstos_site.h"
#include "asm.h"

	/*
	 * The dispatch page: the stubs' targets and the bytes REQUIRE tests,
	 * alone on a page of their own.  The constructor writes them once
	 * and then makes the page read-only (runtime/patch.c): one write to
	 * the target would send every site still calling the stub anywhere,
	 * and RELRO cannot cover a value chosen at run time.  Until then the
	 * targets are "original" (set and copy), correct on every x86-64,
	 * and the bytes are 0.
	 */
	.section .data.repstos_dispatch, "aw", @progbits
	.balign 4096
	.globl __repstos_dispatch_page
	.hidden __repstos_dispatch_page
__repstos_dispatch_page:
	.globl REPSTOS_TARGET_SYMBOL
	.hidden REPSTOS_TARGET_SYMBOL
	.type REPSTOS_TARGET_SYMBOL, @object
	.size REPSTOS_TARGET_SYMBOL, 8
REPSTOS_TARGET_SYMBOL:
	.quad	__repstos_original
	.globl REPSTOS_COPY_TARGET_SYMBOL
	.hidden REPSTOS_COPY_TARGET_SYMBOL
	.type REPSTOS_COPY_TARGET_SYMBOL, @object
	.size REPSTOS_COPY_TARGET_SYMBOL, 8
REPSTOS_COPY_TARGET_SYMBOL:
	.quad	__repstos_copy_original
	.globl __repstos_can_avx2
	.hidden __repstos_can_avx2
	.type __repstos_can_avx2, @object
	.size __repstos_can_avx2, 1
__repstos_can_avx2:
	.byte	0
	.globl __repstos_can_avx512
	.hidden __repstos_can_avx512
	.type __repstos_can_avx512, @object
	.size __repstos_can_avx512, 1
__repstos_can_avx512:
	.byte	0
	.balign 4096, 0			/* nothing else on the page */

	.text
/* A dispatch stub: what every compiled site of its kind calls.  The
 * relocation does nothing but pull patch.o, whose constructor sets the
 * target. */
#ifndef REPSTOS_CORE
#define PULL_STARTUP	.reloc	., R_X86_64_NONE, repstos_stats
#else
#define PULL_STARTUP
#endif
#define STUB(name, target, ...)		\
ENTRY(name);				\
	PULL_STARTUP;			\
	__VA_ARGS__;			\
	jmp	*target(%rip);		\
END(name)

STUB(REPSTOS_STUB_SYMBOL, REPSTOS_TARGET_SYMBOL, )
/*
 * Copy sites have their own stub and target: a copy routine takes other
 * arguments than a set routine.  The two-byte NOP tells the stubs apart
 * by their code alone, which is all `repstos` has in a stripped file
 * (their jumps differ only in where the linker put the targets); a set
 * site calling the copy stub would run a copy.
 */
STUB(REPSTOS_COPY_STUB_SYMBOL, REPSTOS_COPY_TARGET_SYMBOL, xchg %ax, %ax)

	/*
	 * The table section, defined (empty) in every module that links the
	 * runtime, so __start_/__stop_repstos_sites always resolve.  It is
	 * SHF_LINK_ORDER like the compiler's entries: ld refuses to mix
	 * ordered and unordered input sections in one output section.
	 */
	REPSTOS_SITES_PUSHSECTION(REPSTOS_STUB_SYMBOL)
	.popsection

	OBJECT_NOTES
