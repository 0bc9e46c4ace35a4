/* SPDX-License-Identifier: MIT */
/*
 * dispatch.S - the dispatch stubs every compiled site calls (the set
 * stub, and the copy stub of copy sites) and the page they jump through,
 * whose bytes the routines (set.S, copy.S) read too.
 *
 * Assembled four ways:
 *  - for librepstos.a (and librepstos.so.0, -DREPSTOS_SHARED, which
 *    also exports its stubs): each stub names the constructor, so that a
 *    module's sites, by calling the stub, pull module.c and its
 *    constructor into the link (naming __repstos_module_init);
 *  - for the core archive (-DREPSTOS_CORE) they do not: the tool links
 *    the stub and the routines (to compare files' code with them, and to
 *    time them) but no start-up;
 *  - for a module using the shared runtime (-DREPSTOS_LEAN=1 for the set
 *    stub, =2 for the copy stub;
 *    librepstos_nonshared.a): no page.  The stubs jump to the shared
 *    runtime's, through the GOT (read-only after relocation), and its
 *    page holds their targets; the set stub's object also holds the
 *    bytes this module's routines read.  The copy stub is an object of
 *    its own that pulls in the copy routines, so a module without copy
 *    sites carries none.
 */
#include "repstos_site.h"
#include "routines/asm.h"

/* A hidden object of len bytes, holding what the directive gives. */
#define OBJECT(name, len, ...)		\
	.globl name;			\
	.hidden name;			\
	.type name, @object;		\
	.size name, len;		\
name:					\
	__VA_ARGS__

/* The bytes the routines' REQUIRE tests (asm.h): 0, "vec", until set. */
#define CAN_BYTES					\
	OBJECT(__repstos_can_avx2, 1, .byte 0);		\
	OBJECT(__repstos_can_avx512, 1, .byte 0)

#ifndef REPSTOS_LEAN
	/*
	 * The dispatch page: the stubs' targets and the bytes REQUIRE tests,
	 * alone on a page of their own.  The constructor writes them once
	 * and then makes the page read-only (runtime/startup/patch.c): one write to
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
	OBJECT(REPSTOS_TARGET_SYMBOL, 8, .quad __repstos_original)
	OBJECT(REPSTOS_COPY_TARGET_SYMBOL, 8, .quad __repstos_copy_original)
	CAN_BYTES
	.balign 4096, 0			/* nothing else on the page */

#elif REPSTOS_LEAN == 1
	/* What the module's routines test (REQUIRE in asm.h): set by the
	 * start-up before any site calls them, plain data like the
	 * thresholds (routines.c).  0 until then: they run "vec". */
	.data
	CAN_BYTES
#endif

	.text
/* A dispatch stub: what every compiled site of its kind calls.  The
 * relocation does nothing but pull what it names into the link: the
 * module's constructor (module.c), or the copy routines. */
#ifndef REPSTOS_CORE
#define PULL(sym)	.reloc	., R_X86_64_NONE, sym
#else
#define PULL(sym)
#endif
#define STUB(name, target, pull, ...)	\
ENTRY(name);				\
	PULL(pull);			\
	__VA_ARGS__;			\
	jmp	*target(%rip);		\
END(name)

/*
 * Copy sites have their own stub and target: a copy routine takes other
 * arguments than a set routine.  The two-byte NOP tells the stubs apart
 * by their code alone, which is all `repstos` has in a stripped file
 * (their jumps differ only in where the linker put the targets); a set
 * site calling the copy stub would run a copy.
 */
#define COPY_MARK	xchg %ax, %ax

/* The copy stub pulls in the copy sites' profiling routine as well
 * (record_copy.S): a module without copy sites carries none. */
#define COPY_PULLS	PULL(__repstos_copy_profile); COPY_MARK

#ifndef REPSTOS_LEAN
STUB(REPSTOS_STUB_SYMBOL, REPSTOS_TARGET_SYMBOL, __repstos_module_init, )
STUB(REPSTOS_COPY_STUB_SYMBOL, REPSTOS_COPY_TARGET_SYMBOL, __repstos_module_init,
     COPY_PULLS)
#ifdef REPSTOS_SHARED
	/* What modules using the shared runtime jump to (above). */
	.globl __repstos_shared_stub
	.type __repstos_shared_stub, @function
	.set __repstos_shared_stub, REPSTOS_STUB_SYMBOL
	.globl __repstos_shared_copy_stub
	.type __repstos_shared_copy_stub, @function
	.set __repstos_shared_copy_stub, REPSTOS_COPY_STUB_SYMBOL
#endif
#elif REPSTOS_LEAN == 1
STUB(REPSTOS_STUB_SYMBOL, __repstos_shared_stub@GOTPCREL, __repstos_module_init, )
#else
STUB(REPSTOS_COPY_STUB_SYMBOL, __repstos_shared_copy_stub@GOTPCREL,
     __repstos_copy_original, COPY_PULLS)
#endif

#if !defined(REPSTOS_LEAN) || REPSTOS_LEAN == 1
	/*
	 * The table section, defined (empty) in every module that links the
	 * runtime, so __start_/__stop_repstos_sites always resolve.  It is
	 * SHF_LINK_ORDER like the compiler's entries: ld refuses to mix
	 * ordered and unordered input sections in one output section.
	 */
	REPSTOS_SITES_PUSHSECTION(REPSTOS_STUB_SYMBOL)
	.popsection
#endif

	/*
	 * The table's bounds stay inside the module.  ld 2.40 put the
	 * __start_/__stop_ symbols it defines in .dynsym of every shared
	 * object as global ones (Debian's symbols files listed them:
	 * tests/realworld/cc.sh) when module.c's hidden references were all
	 * it saw; declaring them hidden here too keeps them local.
	 */
	.hidden	REPSTOS_SITES_START
	.hidden	REPSTOS_SITES_STOP

	OBJECT_NOTES
