/* SPDX-License-Identifier: MIT */
/*
 * dispatch.S - the dispatch stub every compiled site calls and the page
 * it jumps through, whose bytes the routines (set.S) read too.
 *
 * Assembled twice.  For librepstos.a the stub names repstos_stats, so
 * that a module's sites, by calling the stub, pull patch.c and its
 * constructor into the link.  For the core archive (-DREPSTOS_CORE) it
 * does not: the tool links the stub and the routines (to compare files'
 * code with them, and to time them) but no start-up.
 */
#include "repstos_site.h"
#include "asm.h"

	/*
	 * The dispatch page: the stub's target and the bytes REQUIRE tests,
	 * alone on a page of their own.  The constructor writes them once
	 * and then makes the page read-only (runtime/patch.c): one write to
	 * the target would send every site still calling the stub anywhere,
	 * and RELRO cannot cover a value chosen at run time.  Until then the
	 * target is "original", correct on every x86-64, and the bytes are 0.
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
/* The dispatch stub: what every compiled site calls.  The relocation
 * does nothing but pull patch.o, whose constructor sets the target. */
ENTRY(REPSTOS_STUB_SYMBOL)
#ifndef REPSTOS_CORE
	.reloc	., R_X86_64_NONE, repstos_stats
#endif
	jmp	*REPSTOS_TARGET_SYMBOL(%rip)
END(REPSTOS_STUB_SYMBOL)

	/*
	 * The table section, defined (empty) in every module that links the
	 * runtime, so __start_/__stop_repstos_sites always resolve.  It is
	 * SHF_LINK_ORDER like the compiler's entries: ld refuses to mix
	 * ordered and unordered input sections in one output section.
	 */
	REPSTOS_SITES_PUSHSECTION(REPSTOS_STUB_SYMBOL)
	.popsection

	OBJECT_NOTES
