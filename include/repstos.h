/* SPDX-License-Identifier: MIT */
/*
 * repstos.h - the runtime's C API and the hand-written site macro.
 *
 * Everything here is per module: librepstos.a is linked into each
 * executable and shared object with hidden visibility, so these functions
 * answer for the module that calls them.
 */
#ifndef REPSTOS_H
#define REPSTOS_H

#include <stddef.h>
#include "repstos_site.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REPSTOS_HIDDEN __attribute__((visibility("hidden")))

/*
 * CPU features as detected with CPUID (see runtime/policy/cpu.c), in one list so
 * that bits and names agree: X(ENUM, "name" as reports spell it).  A
 * feature's bit is its place in the list; new ones go at the end, as the
 * tuning file records the bits.
 */
#define REPSTOS_FEATURES(X)						\
	X(ERMS, "erms")		/* CPUID.7.0:EBX[9] */			\
	X(FSRM, "fsrm")		/* CPUID.7.0:EDX[4] */			\
	X(FZRM, "fzrm")		/* CPUID.7.1:EAX[10] */			\
	X(FSRS, "fsrs")		/* CPUID.7.1:EAX[11] */			\
	X(FSRC, "fsrc")		/* CPUID.7.1:EAX[12] */			\
	X(REP_GOOD, "rep_good")	/* kernel rule: Intel fam 6, AMD fam >= 0x10 */ \
	X(AVX, "avx")		/* CPUID.1:ECX[28] and OS saves ymm (XGETBV) */ \
	X(AVX2, "avx2")		/* CPUID.7.0:EBX[5], with AVX */	\
	X(AVX512F, "avx512f")	/* CPUID.7.0:EBX[16] and OS saves zmm */ \
	X(AVX512BW, "avx512bw")	/* CPUID.7.0:EBX[30], with AVX512F */	\
	X(BMI2, "bmi2")		/* CPUID.7.0:EBX[8] */			\
	X(AVX512VL, "avx512vl")	/* CPUID.7.0:EBX[31], with AVX512F */

/* Bit numbers, by place in the list. */
enum repstos_feature_bit {
#define REPSTOS_X_BIT(e, name) REPSTOS_CPU_BIT_##e,
	REPSTOS_FEATURES(REPSTOS_X_BIT)
#undef REPSTOS_X_BIT
	REPSTOS_CPU_FEATURE_COUNT
};

/* The bits, as struct repstos_cpu.features holds them. */
enum repstos_feature {
#define REPSTOS_X_MASK(e, name) REPSTOS_CPU_##e = 1u << REPSTOS_CPU_BIT_##e,
	REPSTOS_FEATURES(REPSTOS_X_MASK)
#undef REPSTOS_X_MASK
};

enum repstos_vendor {
	REPSTOS_VENDOR_OTHER = 0,
	REPSTOS_VENDOR_INTEL = 1,
	REPSTOS_VENDOR_AMD = 2,
};

struct repstos_cpu {
	unsigned vendor;	/* enum repstos_vendor */
	unsigned family;	/* display family (base + extended) */
	unsigned model;		/* display model */
	unsigned stepping;
	unsigned features;	/* enum repstos_feature bits */
};

/* Why the module's sites are as they are (repstos_stats.status). */
enum repstos_status {
	REPSTOS_ST_NOT_RUN = 0,		/* constructor has not run yet */
	REPSTOS_ST_PATCHED,		/* sites rewritten (possibly zero of them) */
	REPSTOS_ST_DISABLED,		/* REPSTOS_PATCH=0: stub dispatch only */
	REPSTOS_ST_STATIC,		/* `repstos patch` fixed the file: left alone
					 * (but for rescues; stats.lacking) */
	REPSTOS_ST_REFUSED,		/* the kernel refused every way to write text */
};

struct repstos_stats {
	unsigned sites;		/* entries in this module's table */
	unsigned patched;	/* sites rewritten at start-up */
	unsigned kept;		/* sites already in the wanted form */
	unsigned fixed;		/* sites someone else fixed (not a stub call): left alone */
	unsigned skipped;	/* entries not touched: unknown version, bad bytes, failure */
	unsigned rescued;	/* of patched: calls of a routine this CPU lacks */
	unsigned pages;		/* distinct pages written */
	unsigned status;	/* enum repstos_status */
	int error;		/* errno of the refusal, when REFUSED or partial */
	const char *method;	/* "/proc/self/mem", "mprotect" or "" */
	unsigned long long nsec;	/* time the whole start-up took (CPUID,
					 * environment, tuning file, patching) */
	unsigned long long patch_nsec;	/* of which the patching of the sites */
	const char *tuning;	/* where the choice came from (policy or tuning file) */
	unsigned lacking;	/* calls of a routine this CPU lacks, found in a
				 * static file; those not rescued run "vec" */
};

/* The CPU as the runtime saw it. */
REPSTOS_HIDDEN const struct repstos_cpu *repstos_cpu(void);
/* Space-separated feature names of `features`, into buf; returns buf. */
REPSTOS_HIDDEN char *repstos_feature_names(unsigned features, char *buf, size_t len);
/* The variant this module's stub dispatches to and unknown sites use. */
REPSTOS_HIDDEN enum repstos_variant repstos_variant(void);
/* The variant a site with this table entry gets: of its family, so a
 * copy entry's is an enum repstos_copy_variant. */
REPSTOS_HIDDEN enum repstos_variant repstos_site_variant(const struct repstos_site *e);
/* Name of a variant ("erms", ...), or NULL. */
REPSTOS_HIDDEN const char *repstos_variant_name(enum repstos_variant v);
/* Variant by name, or -1. */
REPSTOS_HIDDEN int repstos_variant_by_name(const char *name);
/* Address of a variant's routine, or NULL. */
REPSTOS_HIDDEN void *repstos_variant_routine(enum repstos_variant v);
/* The variant whose routine is at addr, or -1. */
REPSTOS_HIDDEN int repstos_variant_by_routine(const void *addr);
/* The same for copy routines (REPSTOS_COPY_VARIANTS). */
REPSTOS_HIDDEN enum repstos_copy_variant repstos_copy_variant(void);
REPSTOS_HIDDEN const char *repstos_copy_variant_name(enum repstos_copy_variant v);
REPSTOS_HIDDEN int repstos_copy_variant_by_name(const char *name);
REPSTOS_HIDDEN void *repstos_copy_variant_routine(enum repstos_copy_variant v);
REPSTOS_HIDDEN int repstos_copy_variant_by_routine(const void *addr);
/* This module's table and counts. */
REPSTOS_HIDDEN const struct repstos_site *repstos_sites_begin(void);
REPSTOS_HIDDEN const struct repstos_site *repstos_sites_end(void);
REPSTOS_HIDDEN const struct repstos_stats *repstos_stats(void);

/* The stub and routines, for tests and hand-written assembly. */
#define REPSTOS_X_DECL(e, name, sym, needs) REPSTOS_HIDDEN void sym(void);
REPSTOS_VARIANTS(REPSTOS_X_DECL)
REPSTOS_COPY_VARIANTS(REPSTOS_X_DECL)
#undef REPSTOS_X_DECL
REPSTOS_HIDDEN void REPSTOS_STUB_SYMBOL(void);
REPSTOS_HIDDEN void REPSTOS_COPY_STUB_SYMBOL(void);

/*
 * The link hand-written sites share (REPSTOS_ENTRY_IN, repstos_site.h):
 * gas opens one table section per distinct link, and finds each along a
 * list of all of them, so a unit of N sites with a link each assembles
 * in time N^2 (20,000: 11 s).  The plugin knows each site's text section
 * and links its sites to one label there.  C cannot name the section an
 * asm lands in (a static inline function's sites land in each caller's,
 * -ffunction-sections or a hot/cold split spreads one function's), so
 * under GCC the assembler finds it out, with the macros below.
 *
 * A link is a label set at the start of an empty subsection
 * (REPSTOS_HAND_SUB) of the text section it serves.  In that subsection
 * of its own section, a site's `.` is where a link is exactly when the
 * two are in one section (the link's .eqv alias is compared: gas refuses
 * to compare two labels of different sections, not an alias).  A site
 * tries the last two links taken, else makes one.  So every entry links
 * to a label of its own site's section, whatever the section; sites
 * take one link a section when they come in runs or alternate between
 * two sections (hot and cold), and at worst one each, as before.  The
 * subsection stays empty: the code is byte for byte what a site with a
 * link of its own makes, and so are the line tables.
 *
 * The macros come with every site, defined by the first one in the unit
 * (an LTO partition gets no top-level asm but the first's).  The asm is
 * `inline` (GCC 9 and later), or GCC would weigh it by its lines, not
 * its three instructions, when it decides whether to inline the
 * function around it.
 */
#define REPSTOS_HAND_SUB	"8191"

/*
 * The assembler macros, and the state they keep in .L symbols (local to
 * the object):
 *   __repstos_hlink   sets .Lrepstos_hc to the number of a link of the
 *                     site's section: .Lrepstos_hc or .Lrepstos_hp, the
 *                     last two taken, else a new one (.Lrepstos_hn: links
 *                     made); the push and pop leave section, subsection
 *                     and .previous as they were
 *   __repstos_his k   .Lrepstos_hh = 1 if link k (0: none) is here, run
 *                     in REPSTOS_HAND_SUB of the site's section
 *   __repstos_hnew k  link k here: .Lrepstos_hl<k>, and .Lrepstos_ha<k>
 *                     its alias
 *   __repstos_hpush k REPSTOS_SITES_PUSHSECTION(.Lrepstos_hl<k>)
 * Under .altmacro, %(expr) passes a number, a parameter's bare name is
 * its value in the body, and & joins it to a name.
 */
#define REPSTOS_HAND_DEFS						\
	".ifndef .Lrepstos_hd\n"					\
	".set .Lrepstos_hd,1\n.set .Lrepstos_hn,0\n"			\
	".set .Lrepstos_hc,0\n.set .Lrepstos_hp,0\n"			\
	".macro __repstos_his rs_k\n.noaltmacro\n"			\
	".if rs_k\n.if .Lrepstos_ha&rs_k==.\n.set .Lrepstos_hh,1\n"	\
	".endif\n.endif\n.endm\n"					\
	".macro __repstos_hnew rs_k\n.noaltmacro\n"			\
	".set .Lrepstos_hl&rs_k,.\n"					\
	".eqv .Lrepstos_ha&rs_k,.Lrepstos_hl&rs_k\n.endm\n"		\
	".macro __repstos_hpush rs_k\n.noaltmacro\n"			\
	REPSTOS_STR(REPSTOS_SITES_PUSHSECTION(.Lrepstos_hl&rs_k))	\
	"\n.endm\n"							\
	".macro __repstos_hlink\n"					\
	".pushsection .text\n.previous\n"				\
	".subsection " REPSTOS_HAND_SUB "\n"				\
	".set .Lrepstos_hh,0\n"						\
	".altmacro\n__repstos_his %%(.Lrepstos_hc)\n"			\
	".if .Lrepstos_hh==0\n"						\
	".altmacro\n__repstos_his %%(.Lrepstos_hp)\n"			\
	".set .Lrepstos_ht,.Lrepstos_hp\n"				\
	".set .Lrepstos_hp,.Lrepstos_hc\n"				\
	".set .Lrepstos_hc,.Lrepstos_ht\n"				\
	".if .Lrepstos_hh==0\n"						\
	".set .Lrepstos_hn,.Lrepstos_hn+1\n"				\
	".set .Lrepstos_hc,.Lrepstos_hn\n"				\
	".altmacro\n__repstos_hnew %%(.Lrepstos_hn)\n"			\
	".endif\n.endif\n.popsection\n.endm\n"				\
	".endif\n\t"

/* Opens a hand-written site's table section (REPSTOS_ENTRY_OPEN), with
 * the link of its text section. */
#define REPSTOS_HAND_OPEN(unused)					\
	__repstos_hlink; .altmacro; __repstos_hpush %%(.Lrepstos_hc)

/*
 * REPSTOS_SITE_ASM(op, kind, min, max): the text of one site and its
 * table entry (REPSTOS_SITE_OPEN in repstos_site.h, linked as above),
 * for an asm statement with rdi, rcx, rax bound.  REPSTOS_COPY_SITE_ASM:
 * the same for a copy site (REPSTOS_COPY_SITE_OPEN), for an asm
 * statement with rdi, rsi, rcx bound.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define REPSTOS_SITE_ASM(op, kind, min, max)				\
	REPSTOS_HAND_DEFS REPSTOS_STR(REPSTOS_SITE_OPEN(		\
		.Lrepstos_site%=, REPSTOS_HAND_OPEN, _, op, kind, min, max))
#define REPSTOS_COPY_SITE_ASM(op, kind, min, max)			\
	REPSTOS_HAND_DEFS REPSTOS_STR(REPSTOS_COPY_SITE_OPEN(		\
		.Lrepstos_site%=, REPSTOS_HAND_OPEN, _, op, kind, min, max))
#if __GNUC__ >= 9
#define REPSTOS_ASM_INLINE	__inline
#endif
#else
/* clang's assembler takes neither a bare parameter under .altmacro nor
 * the alias compared with `.`, and finds a section by its link without
 * a walk (20,000 sites linked each to its own: 10.3 s to compile and
 * assemble, 11.4 s to compile alone): there each entry links to its own
 * site. */
#define REPSTOS_SITE_ASM(op, kind, min, max)				\
	REPSTOS_STR(REPSTOS_SITE(.Lrepstos_site%=, op, kind, min, max))
#define REPSTOS_COPY_SITE_ASM(op, kind, min, max)			\
	REPSTOS_STR(REPSTOS_COPY_SITE(.Lrepstos_site%=, op, kind, min, max))
#endif
#ifndef REPSTOS_ASM_INLINE
#define REPSTOS_ASM_INLINE
#endif

/*
 * REPSTOS_MEMSET(dst, c, n): memset(dst, c, n) as a patchable site, for
 * code built without the plugin (clang, kernels, hand-tuned paths).
 * Evaluates to dst.  The stack pointer steps over the 128-byte red zone
 * around the site, because a `call` writes below rsp and a leaf function
 * may keep live locals there; the two `lea`s cost about a cycle.
 */
#define REPSTOS_RED_ZONE_ENTER	"lea -128(%%rsp), %%rsp\n\t"
#define REPSTOS_RED_ZONE_LEAVE	"\n\tlea 128(%%rsp), %%rsp"

/* The vector state (repstos_site.h): xmm0-15 whole where this unit may
 * keep upper halves (AVX), and k1 and xmm16-31 where it may keep values
 * there (AVX-512F).  A function with target("avx") in a unit built
 * without -mavx should not inline a REPSTOS_* site from elsewhere. */
#ifdef __AVX__
#define REPSTOS_MACRO_AVX	, REPSTOS_SITE_CLOBBERS_AVX
#else
#define REPSTOS_MACRO_AVX
#endif
#ifdef __AVX512F__
#define REPSTOS_MACRO_VECTOR	REPSTOS_MACRO_AVX, REPSTOS_SITE_CLOBBERS_AVX512
#else
#define REPSTOS_MACRO_VECTOR	REPSTOS_MACRO_AVX
#endif

#define REPSTOS_SITE_CALL(d, c, n, op)					\
	__extension__ ({						\
		void *__rs_dst = (d);					\
		void *__rs_d = __rs_dst;				\
		unsigned long __rs_n = (n);				\
		unsigned long __rs_a = (unsigned char)(c);		\
		__asm__ __volatile__ REPSTOS_ASM_INLINE(		\
			REPSTOS_RED_ZONE_ENTER				\
			REPSTOS_SITE_ASM(op, 0, 0, 0xffffffff)		\
			REPSTOS_RED_ZONE_LEAVE				\
			: "+D" (__rs_d), "+c" (__rs_n), "+a" (__rs_a)	\
			: : "memory", "cc", REPSTOS_SITE_CLOBBERS	\
			REPSTOS_MACRO_VECTOR);				\
		__rs_dst;						\
	})

/* A copy site of op (enum repstos_op) copying n bytes from s to d,
 * evaluating to d; the red zone stepped over as for REPSTOS_MEMSET. */
#define REPSTOS_COPY_CALL(d, s, n, op)					\
	__extension__ ({						\
		void *__rs_dst = (d);					\
		void *__rs_d = __rs_dst;				\
		const void *__rs_s = (s);				\
		unsigned long __rs_n = (n);				\
		__asm__ __volatile__ REPSTOS_ASM_INLINE(		\
			REPSTOS_RED_ZONE_ENTER				\
			REPSTOS_COPY_SITE_ASM(op, 0, 0, 0xffffffff)	\
			REPSTOS_RED_ZONE_LEAVE				\
			: "+D" (__rs_d), "+S" (__rs_s), "+c" (__rs_n)	\
			: : "memory", "cc", REPSTOS_COPY_CLOBBERS	\
			REPSTOS_MACRO_VECTOR);				\
		__rs_dst;						\
	})

#define REPSTOS_MEMSET(dst, c, n)	REPSTOS_SITE_CALL(dst, c, n, 0)
#define REPSTOS_BZERO(dst, n)		((void)REPSTOS_SITE_CALL(dst, 0, n, 1))
#define REPSTOS_CLEAR(dst, n)		((void)REPSTOS_SITE_CALL(dst, 0, n, 2))
/* memcpy (the regions must not overlap) and memmove as copy sites. */
#define REPSTOS_MEMCPY(dst, src, n)	REPSTOS_COPY_CALL(dst, src, n, 3)
#define REPSTOS_MEMMOVE(dst, src, n)	REPSTOS_COPY_CALL(dst, src, n, 4)

#ifdef __cplusplus
}
#endif
#endif /* REPSTOS_H */
