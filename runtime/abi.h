/* SPDX-License-Identifier: MIT */
/*
 * abi.h - the module ABI: what a module hands the start-up, and the
 * names of the start-up it calls.  Its two sides are runtime/module/
 * (the module's: module.h, record.S and dispatch.S write the
 * description, module.c hands it over) and runtime/startup/ (the
 * start-up's: attach.c reads it); each includes this header and
 * neither includes the other's.
 *
 * The description is constant data the linker fills in (record.S,
 * dispatch.S): every place in it is an offset from the field that holds
 * it, so it needs no dynamic relocation and no code builds it.  The
 * constructor passes it to __repstos_attach, which reads what it needs;
 * the module's last destructor lets go of it (__repstos_detach), so
 * that a module loaded and unloaded over and over leaves nothing
 * behind.  Between a module and librepstos.so.0 this is an ABI: abi and
 * size say which; a start-up that does not know them leaves the
 * module's sites calling the stub, which is correct everywhere.
 */
#ifndef REPSTOS_ABI_H
#define REPSTOS_ABI_H

/* 2: copy_profile, and struct repstos_prof's copy_fallback;
 * 3: short_rep_max, and __repstos_detach (the start-up takes 2 too);
 * 4: the description is struct repstos_module_desc and the dispatch
 *    records (the shared start-up takes 2 and 3 too) */
#define REPSTOS_MODULE_ABI 4

/* The dispatch records' section: one record per stub the module has
 * (dispatch.S), between __start_ and __stop_ of it. */
#define REPSTOS_DISPATCH_NAME	repstos_dispatch

/* Where each stub's jump (e9 rel32) is: after its endbr64, and the copy
 * stub's two-byte mark (dispatch.S). */
#define REPSTOS_STUB_JUMP_AT		4
#define REPSTOS_COPY_STUB_JUMP_AT	6

/* struct repstos_module_desc, field by field (record.S writes it). */
#define REPSTOS_DESC_SIZE	64
/* struct repstos_dispatch: its fixed part; the offsets follow it */
#define REPSTOS_DISPATCH_HEAD	12

#ifndef __ASSEMBLER__
#include <stdint.h>
#include "repstos.h"

struct repstos_prof;

/* A place in the module as an offset from the field holding it; 0: none. */
typedef int32_t repstos_rel;

static inline void *repstos_rel_addr(const repstos_rel *r)
{
	return *r ? (void *)((const char *)r + *r) : (void *)0;
}

/*
 * One family of sites in a module: the stub they call, its jump, which
 * the start-up rewrites like a site (to the chosen routine, or the
 * profiling routine) where the module has a byte of its own, and the
 * fallback that jump first goes to.  The
 * fallback of a module with a start-up of its own reads the byte
 * `choice` and jumps to routine[choice]: a bounded index into this
 * constant table, 0 ("original") past its end, so no write to the
 * byte can send a site anywhere but to a routine of its family; the
 * fallback of a module of the shared runtime jumps to the shared
 * stub (choice 0).
 */
struct repstos_dispatch {
	uint8_t copy;		/* 0: the set stub; 1: the copy stub */
	uint8_t n;		/* routines, numbered as the family's variants */
	uint8_t jmp;		/* the stub's jump (e9 rel32) is at stub + jmp */
	uint8_t pad;
	repstos_rel stub;
	repstos_rel choice;	/* the byte the fallback reads; 0: none */
	repstos_rel routine[];	/* n routines, then the family's profiling
				 * routine (0: size profiles not linked) */
};

/* What a module hands the start-up (ABI 4): its description. */
#define REPSTOS_DESC_PLACES	14
struct repstos_module_desc {
	unsigned abi;			/* REPSTOS_MODULE_ABI */
	unsigned size;			/* sizeof(struct repstos_module_desc) */
	union {
		struct {
			repstos_rel begin, end;	/* its site table */
			repstos_rel info;	/* its record */
			repstos_rel stats;	/* struct repstos_stats, filled
						 * by the start-up */
			repstos_rel prof;	/* struct repstos_prof its
						 * profiling routines read;
						 * 0: none linked */
			repstos_rel dispatch, dispatch_end; /* its dispatch records */
			/* The settings its routines read (routines.h). */
			repstos_rel vec_rep_min, wide_rep_min, short_rep_max;
			repstos_rel copy_rep_min, copy_nt_min;
			repstos_rel can_avx2, can_avx512;
		};
		repstos_rel place[REPSTOS_DESC_PLACES];	/* the same, in order */
	};
};
_Static_assert(sizeof(struct repstos_module_desc) == REPSTOS_DESC_SIZE &&
	       sizeof(struct repstos_dispatch) == REPSTOS_DISPATCH_HEAD,
	       "record.S and dispatch.S write these layouts");

/* The next record after d, in the section. */
static inline const struct repstos_dispatch *
repstos_dispatch_next(const struct repstos_dispatch *d)
{
	return (const void *)&d->routine[d->n + 1];
}

#ifdef REPSTOS_SHARED
/* What modules of ABI 2 and 3 hand librepstos.so.0, which still takes
 * them: the same places, as pointers a constructor filled in. */
#define REPSTOS_V3_VARIANTS		9
#define REPSTOS_V3_COPY_VARIANTS	5
_Static_assert(REPSTOS_VARIANT_LIBC == REPSTOS_V3_VARIANTS &&
	       REPSTOS_COPY_VARIANT_LIBC == REPSTOS_V3_COPY_VARIANTS,
	       "the ABI 3 lists are the ones before libc");
struct repstos_module_v3 {
	unsigned abi;			/* 2 or 3 */
	unsigned size;
	const struct repstos_site *begin, *end;
	const volatile struct repstos_module_info *info;
	struct repstos_stats *stats;
	struct repstos_prof *prof;
	void *profile;			/* __repstos_profile */
	void *copy_profile;		/* __repstos_copy_profile */
	void *set_stub;
	void *copy_stub;		/* NULL: no copy sites */
	/* the variants there were then: all but "libc" */
	void *set_routine[REPSTOS_V3_VARIANTS];
	void *copy_routine[REPSTOS_V3_COPY_VARIANTS];
	unsigned long long *vec_rep_min, *wide_rep_min;
	unsigned long long *copy_rep_min, *copy_nt_min;
	unsigned char *can_avx2, *can_avx512;
	char *dispatch_page;		/* NULL in every module of the
					 * shared runtime */
	void **set_target, **copy_target;
	unsigned long long *short_rep_max;	/* ABI 3 */
};
#endif

/* The start-up's side (attach.c); in librepstos.so.0, the few names a
 * module binds to.  attach gives a handle for the calls below, or NULL;
 * detach, from the module's last destructor, lets go of it.  attach
 * reads the ABI from the description's first two fields. */
#ifdef REPSTOS_SHARED
#define REPSTOS_EXPORT __attribute__((visibility("default")))
#else
#define REPSTOS_EXPORT REPSTOS_HIDDEN
#endif
REPSTOS_EXPORT void *__repstos_attach(const void *desc);
REPSTOS_EXPORT void __repstos_detach(void *handle);
REPSTOS_EXPORT const struct repstos_cpu *__repstos_process_cpu(void);
REPSTOS_EXPORT enum repstos_variant __repstos_process_variant(void);
REPSTOS_EXPORT enum repstos_copy_variant __repstos_process_copy_variant(void);
REPSTOS_EXPORT enum repstos_variant
__repstos_module_site_variant(void *handle, const struct repstos_site *e);

#endif /* !__ASSEMBLER__ */
#endif
