/* SPDX-License-Identifier: MIT */
/*
 * repstos_site.h - the site contract shared by the plugin, the runtime and
 * the `repstos` ELF tool.  This is the only definition of the site format:
 * the bytes of each form, the table entry and the module record, each as
 * numbers and as the assembler macro every producer expands (the plugin,
 * REPSTOS_SITE_ASM, hand-written assembler, the runtime's own record).
 * runtime/policy/sitecode.c is its one encoder and decoder; tests/contract
 * checks each producer's object against it, and that the test helpers
 * read the layout from here.
 *
 * A site is a patchable spot in machine code that behaves like `rep stosb`:
 *
 *   in:  rdi = destination, rcx = count, rax = fill byte zero-extended
 *        (the inline form reads only al; the call forms rely on the upper
 *        bits of rax being zero so they can restore it with one movzbl)
 *   out: rdi = destination + count, rcx = 0, rax unchanged
 *   may change: rdi, rcx, the flags, and REPSTOS_SITE_CLOBBERS below.
 *   Direction flag clear on entry (SysV ABI).  Every other register, GPR
 *   and vector, survives; tests/runtime/regs checks it for every routine.
 *
 * Declared scratch set: xmm0 (the whole register: ymm0 and zmm0 too).
 * Why xmm0 and no GPR: a libc memset call clobbers all nine caller-saved
 * GPRs and all sixteen vector registers, so any set smaller than that is
 * already a gain for the register allocator.  The small-size routine needs
 * the fill byte broadcast: to 8 bytes it is built in rax itself (imul by
 * 0x0101010101010101 from memory) and rax is restored with `movzbl %al`,
 * so no extra GPR is needed; 16-byte stores need one vector register, and
 * they halve the store count from 16 to 256 bytes.  One vector register
 * costs integer code nothing and float code at most one spill around the
 * site, where the libc call it replaces cost all sixteen.
 *
 * Declared too, in code compiled with AVX-512F enabled: k1
 * (REPSTOS_SITE_CLOBBERS_AVX512).  "avx512" makes sizes 0..255
 * branch-free with masked stores, which needs a mask register; keeping
 * k1 for the caller, saved and restored around every call, cost more
 * than the whole call at small sizes.  Where AVX-512F is not enabled GCC never
 * keeps a value in a mask register (and rejects a "k1" clobber), and the
 * ABI makes k1 call-clobbered, so there a site needs no clobber at all.
 *
 * The vector state (entry versions 3 and 4, REPSTOS_SITE_VERSION and
 * REPSTOS_COPY_VERSION).  A site also lets its routine change the upper
 * part (bits 128 and up) of every ymm0-15/zmm0-15 and the whole of
 * xmm16-31, as the call it replaces may.  Why: a routine that leaves a
 * ymm or zmm upper half non-zero leaves the core's "dirty upper" state
 * on, and every later SSE instruction that writes an xmm register then
 * waits on that register's old value (it must keep the upper part).
 * Only vzeroupper (or vzeroall) ends the state, and it clears every
 * upper half, not a declared register's: so the AVX2 routines end with
 * vzeroupper, and the AVX-512 ones keep their vectors in zmm16-31, which
 * the state does not cover.
 *   What the site declares for it depends on the code around it.  Code
 * compiled without AVX has no upper halves and no xmm16-31 to keep (its
 * vector registers are the 128-bit xmm0-15; the ABI makes every vector
 * register call-clobbered, so no caller keeps one across a call into
 * it): there the site declares REPSTOS_SITE_CLOBBERS as before.  Code
 * compiled with AVX may keep 256-bit values: there the site declares
 * xmm0-15 whole (REPSTOS_SITE_CLOBBERS_AVX), and with AVX-512F also
 * xmm16-31 and k1 (REPSTOS_SITE_CLOBBERS_AVX512) - the vector file a
 * libc call clobbers, while every GPR but the site's own still survives.
 *   Sites of the narrow versions 1 and 2 (from before this rule) keep
 * every vector register but the declared ones, whole: the runtime and
 * `repstos patch` give them only forms that touch no ymm, zmm or
 * xmm16-31 (a routine whose needs include no AVX; repstos_family_narrow()),
 * and a module that has any calls its stub's routine in that form too.
 *
 * The figures behind these choices, with the CPUs they come from, are in
 * bench/results/README.md ("The contract's measured reasons").
 *
 * Routines are leaf code reached by `call` with an unaligned stack: no
 * aligned spills, no calls.  A routine may write the 8 bytes just below
 * its stack pointer, a leaf's red zone: the backward copies push their
 * count there.  Nothing is kept there: sites are built without a red zone
 * (the plugin's -mno-red-zone; REPSTOS_MEMSET steps over it), the stub
 * jumps to a routine only once its saved registers are popped, and a
 * signal frame begins 128 bytes lower.
 *
 * Site forms, all exactly REPSTOS_SITE_LEN (5) bytes in what the plugin
 * and REPSTOS_MEMSET emit (the table records the length, >= 5):
 *   call __repstos_stub        e8 rel32  what the compiler emits; correct
 *                                        with no patching at all
 *   call <variant routine>     e8 rel32  chosen by the runtime or `repstos patch`
 *   rep stosb; nopl (%rax)     f3 aa 0f 1f 00  (longer sites: more NOP bytes)
 *
 * The stub and the routines are linked into every module (executable or
 * shared object) from librepstos.a with hidden visibility, so a rel32 call
 * always reaches and no PLT (whose lazy binding clobbers r11) is involved.
 */
#ifndef REPSTOS_SITE_H
#define REPSTOS_SITE_H

#ifdef __ASSEMBLER__
#define REPSTOS_U32(x) x
#else
#include <stddef.h>
#include <stdint.h>
#define REPSTOS_U32(x) x##u
#endif

/* A macro's expansion as a C string (commas and all). */
#define REPSTOS_STR_(...)	#__VA_ARGS__
#define REPSTOS_STR(...)	REPSTOS_STR_(__VA_ARGS__)

/* ---- The bytes of a site (runtime/policy/sitecode.c writes and reads them) ---- */

#define REPSTOS_OPC_CALL	0xe8	/* call rel32 */
#define REPSTOS_CALL_REL32	1	/* where the rel32 is in the call */
#define REPSTOS_CALL_LEN	5	/* the call: opcode and rel32 */
#define REPSTOS_OPC_REP		0xf3	/* rep prefix */
#define REPSTOS_OPC_STOSB	0xaa	/* stosb */
#define REPSTOS_OPC_MOVSB	0xa4	/* movsb: the inline form of a copy site */
#define REPSTOS_INLINE_LEN	2	/* rep stosb */

#define REPSTOS_SITE_LEN	REPSTOS_CALL_LEN /* bytes in an emitted site */
#define REPSTOS_SITE_MAX_LEN	15	/* longest site written or accepted */

/* ---- The site table ---------------------------------------------------- */

/* The section: a C identifier, so the linker defines __start_repstos_sites
 * and __stop_repstos_sites. */
#define REPSTOS_SITES_NAME	repstos_sites
#define REPSTOS_SITES_SECTION	REPSTOS_STR(REPSTOS_SITES_NAME)
#define REPSTOS_SITES_START	__start_repstos_sites
#define REPSTOS_SITES_STOP	__stop_repstos_sites

/*
 * Entry versions.  Set sites (memset, bzero, clears) were version 1, as
 * before copies existed; copy sites version 2, so that a reader from
 * before copies skips them (the runtime: the site keeps calling its stub)
 * or reports them (the tool: "unknown entry version") rather than take a
 * copy for a memset.  Versions 3 (set) and 4 (copy) are the same sites
 * under the vector-state rule above, which producers now write; a reader
 * from before it skips them as it did copies, and its routines keep more
 * than they declare, so the site stays correct.  Versions 5 (set) and 6
 * (copy) are 3 and 4 with the use of the written bytes in the kind
 * byte's upper half (REPSTOS_USE_READ below); a reader from before them
 * skips them as before, and one that knows them takes 3 and 4 as of
 * unknown use.  Readers take all six, and give versions 1 and 2 only
 * the narrow forms.
 */
#define REPSTOS_SITE_VERSION	5
#define REPSTOS_COPY_VERSION	6
#define REPSTOS_SITE_VERSION_NARROW	1
#define REPSTOS_COPY_VERSION_NARROW	2
#define REPSTOS_SITE_VERSION_NO_USE	3	/* wide, use unknown */
#define REPSTOS_COPY_VERSION_NO_USE	4
#define REPSTOS_SITE_ENTRY_SIZE	16	/* bytes in one table entry */
#define REPSTOS_SITE_ALIGN	4

/* Where each field of an entry is (struct repstos_site below). */
#define REPSTOS_ENTRY_SITE	0	/* int32: site - &field */
#define REPSTOS_ENTRY_VERSION	4	/* u8 */
#define REPSTOS_ENTRY_LEN	5	/* u8 */
#define REPSTOS_ENTRY_OP	6	/* u8: enum repstos_op */
#define REPSTOS_ENTRY_SIZE_KIND	7	/* u8: enum repstos_size_kind */
#define REPSTOS_ENTRY_SIZE_MIN	8	/* u32 */
#define REPSTOS_ENTRY_SIZE_MAX	12	/* u32 */

/* The dispatch stub every compiled site calls: a jump the runtime
 * rewrites to the routine it chose, and until then a fallback that
 * takes a routine of the family by a byte (runtime/module/dispatch.S);
 * "original", correct on every x86-64, before anything is chosen. */
#define REPSTOS_STUB_SYMBOL	__repstos_stub
/* The same for copy sites: their own stub, since a copy routine and a
 * set routine take different arguments. */
#define REPSTOS_COPY_STUB_SYMBOL	__repstos_copy_stub

/*
 * The table's section, opened for entries describing code in the section
 * of `link`.  SHF_LINK_ORDER ("o"), so --gc-sections drops an entry with
 * its dead function (with -z start-stop-gc); ld also refuses to mix ordered
 * and unordered input sections in one output section, so every producer
 * must use this.
 */
#define REPSTOS_SITES_PUSHSECTION(link)					\
	.pushsection REPSTOS_SITES_NAME, "ao", @progbits, link;		\
	.balign REPSTOS_SITE_ALIGN

/*
 * REPSTOS_ENTRY_IN(site, link, version, op, kind, min, max): the table
 * entry of the site at label `site`, as assembler statements, in the
 * table section linked to `link`: a label in the same section as the
 * site.  `site` is stored relative to the entry (like the kernel's
 * struct alt_instr), so a PIE or shared object needs no dynamic
 * relocation for it; in a .o it is an R_X86_64_PC32 against the text
 * section.
 *
 * gas opens one table section per distinct `link` symbol and looks each
 * up along a list of the same name, so a file of N sites with N links
 * assembles in time N^2 (20,000 sites: 6 s).  Sites that share a link,
 * as the plugin's do (one per function and text section) and
 * REPSTOS_MEMSET's (one per text section, found by the assembler:
 * repstos.h), cost one section between them.
 */
#define REPSTOS_ENTRY_IN(site, link, version, op, kind, min, max)	\
	REPSTOS_ENTRY_OPEN(site, REPSTOS_SITES_PUSHSECTION, link,	\
			   version, op, kind, min, max)

/* REPSTOS_ENTRY_OPEN(site, open, link, version, op, kind, min, max):
 * the same, the table section opened by the statements open(link): a
 * producer's own macro that does what REPSTOS_SITES_PUSHSECTION does,
 * with a link of its choice. */
#define REPSTOS_ENTRY_OPEN(site, open, link, version, op, kind, min, max) \
	open(link);							\
	.long site - .;							\
	.byte version, REPSTOS_SITE_LEN, op, kind;			\
	.long min, max;							\
	.popsection

/* REPSTOS_ENTRY(site, version, op, kind, min, max): the same, linked to
 * the site's own label: right wherever the site is, for the few sites a
 * hand writes. */
#define REPSTOS_ENTRY(site, version, op, kind, min, max)		\
	REPSTOS_ENTRY_IN(site, site, version, op, kind, min, max)

/*
 * REPSTOS_SITE_IN(label, link, op, kind, min, max): a whole site - the
 * call of the stub, hidden so that no PLT (whose lazy binding clobbers
 * r11) is ever involved, and its entry, linked to `link`.  Assembler
 * statements; C code takes them as text with REPSTOS_STR(): the plugin
 * does, and REPSTOS_SITE_ASM in repstos.h through REPSTOS_SITE_OPEN
 * below, so every producer writes the same bytes.
 */
#define REPSTOS_SITE_IN(label, link, op, kind, min, max)		\
	REPSTOS_SITE_OPEN(label, REPSTOS_SITES_PUSHSECTION, link,	\
			  op, kind, min, max)

/* REPSTOS_SITE_OPEN(label, open, link, op, kind, min, max): the same,
 * its entry's table section opened by open(link) (REPSTOS_ENTRY_OPEN). */
#define REPSTOS_SITE_OPEN(label, open, link, op, kind, min, max)	\
	.hidden REPSTOS_STUB_SYMBOL;					\
	label: call REPSTOS_STUB_SYMBOL;				\
	REPSTOS_ENTRY_OPEN(label, open, link, REPSTOS_SITE_VERSION,	\
			   op, kind, min, max)

/* REPSTOS_COPY_SITE_IN(label, link, op, kind, min, max),
 * REPSTOS_COPY_SITE_OPEN(label, open, link, ...): the same for a copy
 * site (op REPSTOS_OP_COPY, _MOVE or _MOVE_FWD; see "Copy sites"
 * below). */
#define REPSTOS_COPY_SITE_IN(label, link, op, kind, min, max)		\
	REPSTOS_COPY_SITE_OPEN(label, REPSTOS_SITES_PUSHSECTION, link,	\
			       op, kind, min, max)
#define REPSTOS_COPY_SITE_OPEN(label, open, link, op, kind, min, max)	\
	.hidden REPSTOS_COPY_STUB_SYMBOL;				\
	label: call REPSTOS_COPY_STUB_SYMBOL;				\
	REPSTOS_ENTRY_OPEN(label, open, link, REPSTOS_COPY_VERSION,	\
			   op, kind, min, max)

/* REPSTOS_SITE(label, ...), REPSTOS_COPY_SITE(label, ...): a site whose
 * entry links to its own label. */
#define REPSTOS_SITE(label, op, kind, min, max)				\
	REPSTOS_SITE_IN(label, label, op, kind, min, max)
#define REPSTOS_COPY_SITE(label, op, kind, min, max)			\
	REPSTOS_COPY_SITE_IN(label, label, op, kind, min, max)

/* ---- The module record --------------------------------------------------- */

/* Per-module information the runtime reads and `repstos patch` writes. */
#define REPSTOS_MODULE_NAME	repstos_module
#define REPSTOS_MODULE_SECTION	REPSTOS_STR(REPSTOS_MODULE_NAME)
#define REPSTOS_MODULE_SYMBOL	__repstos_module
#define REPSTOS_MODULE_MAGIC	"REPSTOS"	/* 8 bytes with the NUL */
#define REPSTOS_MODULE_VERSION	1
#define REPSTOS_MOD_STATIC	REPSTOS_U32(0x1)

#define REPSTOS_MODULE_SIZE	32
#define REPSTOS_MODULE_MAGIC_OFF	0	/* char[8] */
#define REPSTOS_MODULE_VERSION_OFF	8	/* u32 */
#define REPSTOS_MODULE_FLAGS_OFF	12	/* u32: REPSTOS_MOD_* */
#define REPSTOS_MODULE_PROFILE_OFF	16	/* char[16], NUL-terminated */
#define REPSTOS_MODULE_PROFILE_LEN	16

/*
 * The record as librepstos.a defines it, once per module (the record
 * object of runtime/module/ expands this): magic, version, no flags, no profile.
 */
#define REPSTOS_MODULE_RECORD						\
	.pushsection REPSTOS_MODULE_NAME, "a", @progbits;		\
	.balign 8;							\
	.globl REPSTOS_MODULE_SYMBOL;					\
	.hidden REPSTOS_MODULE_SYMBOL;					\
	.type REPSTOS_MODULE_SYMBOL, @object;				\
REPSTOS_MODULE_SYMBOL:							\
	.asciz REPSTOS_MODULE_MAGIC;					\
	.long REPSTOS_MODULE_VERSION;					\
	.long 0;							\
	.fill REPSTOS_MODULE_PROFILE_LEN, 1, 0;				\
	.size REPSTOS_MODULE_SYMBOL, . - REPSTOS_MODULE_SYMBOL;		\
	.if . - REPSTOS_MODULE_SYMBOL - REPSTOS_MODULE_SIZE;		\
	.error "module record size";					\
	.endif;								\
	.popsection

/* ---- Registers ----------------------------------------------------------- */

/* Registers a site declares clobbered, besides rdi, rcx and the flags.
 * As a list of strings for GCC asm clobbers (the plugin and the macro). */
#define REPSTOS_SITE_CLOBBERS	"xmm0"
/* Added where the code is compiled with AVX (see "The vector state"):
 * xmm0-15 whole, for sites of either family; with AVX-512F xmm16-31 and
 * k1 too. */
#define REPSTOS_SITE_CLOBBERS_AVX	"xmm0", "xmm1", "xmm2", "xmm3",	\
	"xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",	\
	"xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#define REPSTOS_SITE_CLOBBERS_AVX512	"k1", "xmm16", "xmm17", "xmm18", \
	"xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25",	\
	"xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"

/*
 * Copy sites behave like `rep movsb`:
 *
 *   in:  rdi = destination, rsi = source, rcx = count
 *   out: rdi = destination + count, rsi = source + count, rcx = 0
 *   may change: rdi, rsi, rcx, the flags, and REPSTOS_COPY_CLOBBERS.
 *   Direction flag clear on entry and on return.
 *
 * Declared scratch set: rax and xmm0..xmm7 (whole registers), and k1
 * where AVX-512F is enabled, as for set sites.  Why: a copy that may
 * overlap must load everything it cannot reload before its first store.
 * Eight vector registers hold the head and tail of a copy up to eight
 * vectors long (4w+1..8w: 129..256 bytes with AVX2, 257..512 with
 * AVX-512), so every size to 8w is one run of loads then one of stores,
 * with no direction test and no loop, as in glibc's memmove (with four,
 * the overlapping 4w+1..8w moves went to the loops and lost to glibc).  The cost to a caller: xmm4..7 too do not survive the
 * site.  Integer code keeps nothing in them; float code still has
 * xmm8..15 (and xmm16..31 with AVX-512) across the site, where the libc
 * call it replaces clobbered all sixteen (and every caller-saved GPR),
 * so the site stays far cheaper for the register allocator than the
 * call.  rax holds the bytes of copies shorter than one 4-byte load.
 *
 * Every copy routine is correct for any overlap in both directions (a
 * move), so the copy stub, which serves copy and move sites alike, may
 * point at any of them.  Only the inline form, `rep movsb`, copies
 * forwards blindly: the runtime and `repstos patch` give it to
 * REPSTOS_OP_COPY and REPSTOS_OP_MOVE_FWD sites only.
 *
 * Site forms, REPSTOS_SITE_LEN bytes as for set sites:
 *   call __repstos_copy_stub   e8 rel32
 *   call <copy routine>        e8 rel32
 *   rep movsb; nopl (%rax)     f3 a4 0f 1f 00
 */
#define REPSTOS_COPY_CLOBBERS	"rax", "xmm0", "xmm1", "xmm2", "xmm3", \
				"xmm4", "xmm5", "xmm6", "xmm7"

/*
 * The variant routines, in one list so names, numbers, routines and what
 * they need agree everywhere:
 *   X(ENUM, "name" as REPSTOS_VARIANT spells it, routine symbol,
 *     the CPU features the routine needs: REPSTOS_CPU_* bits, 0 for none)
 * "inline" has a routine too: the called form of `rep stosb`, used by the
 * stub when text patching is off.  "erms" needs nothing: rep stosb runs
 * on every x86-64, ERMS only makes it fast.  "libc" calls the C library's
 * memset through an adaptor that keeps the site's registers: only a
 * forced choice (REPSTOS_VARIANT=libc) gives it, to compare a program
 * with its C library's routine without a second build.  Entry 0 must stay
 * "original" (the stub's initial target); new variants go at the end.
 * The feature bits are C enumerators (repstos.h): the list is expanded
 * only in C; assembler files include this header for the rest.  One
 * entry a line, name and symbol first: test scripts and make read the
 * names and symbols from here with sed.
 */
#define REPSTOS_VARIANTS(X)						\
	X(ORIGINAL, "original", __repstos_original, 0)			\
	X(INLINE, "inline", __repstos_stosb, 0)				\
	X(ERMS, "erms", __repstos_erms, 0)				\
	X(REP_GOOD, "rep_good", __repstos_rep_good, 0)			\
	X(VEC, "vec", __repstos_vec, 0)					\
	X(AVX2, "avx2", __repstos_avx2, REPSTOS_CPU_AVX2)		\
	X(AVX512, "avx512", __repstos_avx512, REPSTOS_NEEDS_AVX512)	\
	X(AVX512_SPLIT, "avx512_split", __repstos_avx512_split, REPSTOS_NEEDS_AVX512) \
	X(STOSB_AVX2, "stosb_avx2", __repstos_stosb_avx2, REPSTOS_CPU_AVX2 | REPSTOS_CPU_ERMS) \
	X(LIBC, "libc", __repstos_libc_memset, 0)			\
	X(AVX512_PLAIN, "avx512_plain", __repstos_avx512_plain, REPSTOS_NEEDS_AVX512)

/*
 * The copy routines, in the same shape: what the copy stub and copy sites
 * call.  Entry 0, the copy stub's initial target, must stay "original";
 * "inline" is the called form of `rep movsb`, which unlike the inline
 * form checks for overlap (the stub serves move sites too).  The names
 * are the set variants' where a routine is the same idea, so that
 * REPSTOS_VARIANT=avx2 means 32-byte vectors for both; "libc" is memmove,
 * not memcpy, as the copy stub serves move sites too.
 */
#define REPSTOS_COPY_VARIANTS(X)					\
	X(ORIGINAL, "original", __repstos_copy_original, 0)	\
	X(INLINE, "inline", __repstos_copy_movsb, 0)			\
	X(VEC, "vec", __repstos_copy_vec, 0)				\
	X(AVX2, "avx2", __repstos_copy_avx2, REPSTOS_CPU_AVX2)		\
	X(AVX512, "avx512", __repstos_copy_avx512, REPSTOS_NEEDS_AVX512) \
	X(LIBC, "libc", __repstos_libc_memmove, 0)			\
	X(AVX512_PLAIN, "avx512_plain", __repstos_copy_avx512_plain, REPSTOS_NEEDS_AVX512) \
	X(AVX512_FWD, "avx512_fwd", __repstos_copy_avx512_fwd, REPSTOS_NEEDS_AVX512)

/*
 * The ops, in the same shape, for C, assembler and shell alike (the
 * preprocessor reads them in every language; tests/xlist.sh gives them
 * to scripts):
 *   X(ENUM, "name", the number an entry's op byte holds)
 * Set sites are 0..2, copy sites 3..5 (entry version REPSTOS_COPY_VERSION).
 *   MEMSET    memset(p, c, n): any fill byte
 *   ZERO      fill known to be zero (bzero, memset(p, 0, n))
 *   CLEAR     explicit_bzero or a user clear: never elided
 *   COPY      memcpy: the regions do not overlap
 *   MOVE      memmove: they may, either way
 *   MOVE_FWD  memmove the compiler proved safe to copy forwards
 *             (destination not inside the source's tail): may take rep
 *             movsb inline
 */
#define REPSTOS_OPS(X)							\
	X(MEMSET, "memset", 0)						\
	X(ZERO, "zero", 1)						\
	X(CLEAR, "clear", 2)						\
	X(COPY, "copy", 3)						\
	X(MOVE, "move", 4)						\
	X(MOVE_FWD, "move_fwd", 5)

/*
 * What the compiler knew of a site's size, in the same shape:
 *   UNKNOWN   size_min 0, size_max UINT32_MAX
 *   BOUNDED   a proven range [size_min, size_max]
 *   CONST     size_min == size_max == the size
 */
#define REPSTOS_SIZE_KINDS(X)						\
	X(UNKNOWN, "unknown", 0)					\
	X(BOUNDED, "bounded", 1)					\
	X(CONST, "const", 2)

/*
 * The kind byte of an entry: the size kind in its low half; in entries
 * of versions 5 and 6 its upper half says what the compiler saw of the
 * written bytes' use, 0 when nothing:
 *   REPSTOS_USE_READ  the site's own function loads some of them back
 *                     after the site, before it calls out or returns:
 *                     the next loads wait on the site's stores, and a
 *                     form whose stores do not forward to them (masked
 *                     or string stores) pays for it
 * Other bits of that half are reserved: `repstos check` reports an
 * entry with one set, as it does an unknown kind; the runtime reads the
 * size kind alone and takes such a site as of unknown use.
 */
#define REPSTOS_KIND_SIZE_MASK	0x0f
#define REPSTOS_USE_READ	0x10
#define REPSTOS_USE_MASK	0xf0

/* The masked-store routines: byte masks (AVX512BW) built with bzhi
 * (BMI2), their vectors in zmm16-31 and, 32 bytes wide, ymm16-31
 * (AVX512VL). */
#define REPSTOS_NEEDS_AVX512						\
	(REPSTOS_CPU_AVX512F | REPSTOS_CPU_AVX512BW | REPSTOS_CPU_BMI2 | \
	 REPSTOS_CPU_AVX512VL)

#ifndef __ASSEMBLER__

/* What a site does: the list of ops and their names ("zero" is what
 * `repstos dump` and REPSTOS_DEBUG=2 print). */
#define REPSTOS_X_OP_ENUM(e, name, num) REPSTOS_OP_##e = num,
enum repstos_op {
	REPSTOS_OPS(REPSTOS_X_OP_ENUM)
	REPSTOS_OP_COUNT
};
#undef REPSTOS_X_OP_ENUM

/* Whether op is a copy site's (entry version REPSTOS_COPY_VERSION; 2
 * before the vector-state rule). */
static inline int repstos_op_is_copy(unsigned op)
{
	return op >= REPSTOS_OP_COPY && op < REPSTOS_OP_COUNT;
}

/* The entry version an op's entries carry. */
static inline unsigned repstos_op_version(unsigned op)
{
	return repstos_op_is_copy(op) ? REPSTOS_COPY_VERSION :
					REPSTOS_SITE_VERSION;
}

/* Is this an entry version a reader of this header knows? */
static inline int repstos_version_known(unsigned version)
{
	return version >= REPSTOS_SITE_VERSION_NARROW &&
	       version <= REPSTOS_COPY_VERSION;
}

/* Does an entry of this version carry the use (REPSTOS_USE_*)? */
static inline int repstos_version_has_use(unsigned version)
{
	return version == REPSTOS_SITE_VERSION ||
	       version == REPSTOS_COPY_VERSION;
}

/* Is it one of the narrow versions, from before the vector-state rule? */
static inline int repstos_version_narrow(unsigned version)
{
	return version == REPSTOS_SITE_VERSION_NARROW ||
	       version == REPSTOS_COPY_VERSION_NARROW;
}

/* Does an entry of this version describe a site of op's family?  Set
 * versions are odd, copy versions even. */
static inline int repstos_version_fits(unsigned version, unsigned op)
{
	return repstos_version_known(version) &&
	       version % 2 == repstos_op_version(op) % 2;
}

/* What the compiler knew of the size at the site. */
#define REPSTOS_X_KIND_ENUM(e, name, num) REPSTOS_SIZE_##e = num,
enum repstos_size_kind {
	REPSTOS_SIZE_KINDS(REPSTOS_X_KIND_ENUM)
	REPSTOS_SIZE_KIND_COUNT
};
#undef REPSTOS_X_KIND_ENUM

/* Sizes at or above this saturate to it in size_min / size_max. */
#define REPSTOS_SIZE_SAT	REPSTOS_U32(0xffffffff)


/*
 * One table entry, as REPSTOS_ENTRY writes it.  Readers skip entries
 * whose version they do not know rather than guess.
 */
struct repstos_site {
	int32_t site;		/* site address - &this->site */
	uint8_t version;	/* REPSTOS_SITE_VERSION */
	uint8_t len;		/* bytes at the site, >= REPSTOS_SITE_LEN */
	uint8_t op;		/* enum repstos_op */
	uint8_t kind;		/* enum repstos_size_kind, and REPSTOS_USE_*
				 * (repstos_site_kind, repstos_site_use) */
	uint32_t size_min;	/* smallest possible size, saturated */
	uint32_t size_max;	/* largest possible size, saturated */
};

#define REPSTOS_CHECK_AT(type, field, off)				\
	_Static_assert(offsetof(struct type, field) == (off),		\
		       #type "." #field " is where the contract says")
REPSTOS_CHECK_AT(repstos_site, site, REPSTOS_ENTRY_SITE);
REPSTOS_CHECK_AT(repstos_site, version, REPSTOS_ENTRY_VERSION);
REPSTOS_CHECK_AT(repstos_site, len, REPSTOS_ENTRY_LEN);
REPSTOS_CHECK_AT(repstos_site, op, REPSTOS_ENTRY_OP);
REPSTOS_CHECK_AT(repstos_site, kind, REPSTOS_ENTRY_SIZE_KIND);
REPSTOS_CHECK_AT(repstos_site, size_min, REPSTOS_ENTRY_SIZE_MIN);
REPSTOS_CHECK_AT(repstos_site, size_max, REPSTOS_ENTRY_SIZE_MAX);
_Static_assert(sizeof(struct repstos_site) == REPSTOS_SITE_ENTRY_SIZE,
	       "site table entry size is part of the contract");

static inline uintptr_t repstos_site_addr(const struct repstos_site *e)
{
	return (uintptr_t)&e->site + (intptr_t)e->site;
}

/* What the compiler knew of the size (enum repstos_size_kind). */
static inline unsigned repstos_site_kind(const struct repstos_site *e)
{
	return e->kind & REPSTOS_KIND_SIZE_MASK;
}

/* What it saw of the bytes' use: REPSTOS_USE_*, 0 where nothing (or
 * the entry's version has no such field). */
static inline unsigned repstos_site_use(const struct repstos_site *e)
{
	return repstos_version_has_use(e->version) ? e->kind & REPSTOS_USE_MASK : 0;
}

/* Is the kind byte one this header knows, for the entry's version? */
static inline int repstos_site_kind_known(const struct repstos_site *e)
{
	unsigned use = e->kind & REPSTOS_USE_MASK;

	return repstos_site_kind(e) < REPSTOS_SIZE_KIND_COUNT &&
	       (!use || (repstos_version_has_use(e->version) &&
			 !(use & ~REPSTOS_USE_READ)));
}

/*
 * The module record, as REPSTOS_MODULE_RECORD defines it.  `repstos
 * patch` sets REPSTOS_MOD_STATIC and the profile name; the runtime then
 * leaves every site of the module as it is.
 */
struct repstos_module_info {
	char magic[8];
	uint32_t version;
	uint32_t flags;		/* REPSTOS_MOD_* */
	char profile[REPSTOS_MODULE_PROFILE_LEN]; /* NUL-terminated, when static */
};

REPSTOS_CHECK_AT(repstos_module_info, magic, REPSTOS_MODULE_MAGIC_OFF);
REPSTOS_CHECK_AT(repstos_module_info, version, REPSTOS_MODULE_VERSION_OFF);
REPSTOS_CHECK_AT(repstos_module_info, flags, REPSTOS_MODULE_FLAGS_OFF);
REPSTOS_CHECK_AT(repstos_module_info, profile, REPSTOS_MODULE_PROFILE_OFF);
_Static_assert(sizeof(struct repstos_module_info) == REPSTOS_MODULE_SIZE,
	       "module record size is part of the contract");
_Static_assert(sizeof(REPSTOS_MODULE_MAGIC) == 8, "magic is 8 bytes");
#undef REPSTOS_CHECK_AT

/* Variant numbers. */
#define REPSTOS_X_ENUM(e, name, sym, needs) REPSTOS_VARIANT_##e,
enum repstos_variant {
	REPSTOS_VARIANTS(REPSTOS_X_ENUM)
	REPSTOS_VARIANT_COUNT
};
#undef REPSTOS_X_ENUM

/* Copy variant numbers. */
#define REPSTOS_X_ENUM(e, name, sym, needs) REPSTOS_COPY_VARIANT_##e,
enum repstos_copy_variant {
	REPSTOS_COPY_VARIANTS(REPSTOS_X_ENUM)
	REPSTOS_COPY_VARIANT_COUNT
};
#undef REPSTOS_X_ENUM

#endif /* !__ASSEMBLER__ */
#endif /* REPSTOS_SITE_H */
