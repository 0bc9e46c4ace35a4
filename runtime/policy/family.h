/* SPDX-License-Identifier: MIT */
/*
 * family.h - the families of sites, each described by data: set sites
 * (memset, bzero, explicit_bzero) and copy sites (memcpy, mempcpy,
 * memmove).  Code that serves every family asks a site's descriptor
 * (repstos_family_of) for its names, routines, forms, entry versions
 * and tuning-file words instead of branching on the op; a new family
 * is one more entry of repstos_families[].
 */
#ifndef REPSTOS_FAMILY_H
#define REPSTOS_FAMILY_H

#include "repstos.h"

enum repstos_family_id {
	REPSTOS_FAMILY_SET,
	REPSTOS_FAMILY_COPY,
	REPSTOS_NFAMILY
};

/* A variant's routine in this module and the CPU features it needs. */
struct repstos_routine {
	void *routine;
	unsigned needs;		/* enum repstos_feature bits */
};

struct repstos_family {
	enum repstos_family_id id;
	const char *name;		/* "set", "copy": reports */
	int nvariants;
	/* By variant number: the names REPSTOS_VARIANT, --cpu and the
	 * tuning file spell, and the routines (REPSTOS_VARIANTS). */
	const char *const *names;
	const struct repstos_routine *routines;
	int inline_form;	/* rep stosb (rep movsb) in place */
	const char *inline_name; /* what reports call it */
	int narrow_form;	/* the SSE-only routine: what a narrow entry
				 * gets instead of one that touches ymm/zmm */
	unsigned wide;		/* bit v: variant v may touch any vector
				 * register whatever it needs (the C
				 * library's): never for a narrow entry */
	unsigned forced_only;	/* bit v: no cost table measures v, and
				 * only a forced choice (REPSTOS_VARIANT,
				 * --cpu) gives it, or range_form's rule */
	int range_form;		/* what a site gets whose profiled sizes
				 * vary inside 16..63 (choose.c,
				 * spread_16_63) ... */
	unsigned range_with;	/* ... where bit v, v the module routine,
				 * is set: none where 0 */
	unsigned no_forward;	/* bit v: variant v stores some sizes below
				 * 64 bytes with a masked or a string store,
				 * whose bytes no load is forwarded */
	unsigned ops;		/* bit op set: an op of the family */
	unsigned inline_ops;	/* bit op set: it may take the inline form */
	unsigned version;	/* its entries' version (repstos_site.h) */
	unsigned narrow_version; /* the same from before the vector-state rule */
	const char *stub;	/* the symbol its sites call first */
	/* The tuning file's words: the module routine, a cost line, a
	 * change line, the read routine. */
	const char *variant_word, *cost_word, *change_word, *read_word;
	const char *use_word;	/* the table's use_extra line */
};

extern const struct repstos_family repstos_families[REPSTOS_NFAMILY];

/* The family of a site of op (an op outside every family, which a file
 * may hold: set's, as the readers of the table check the op first). */
const struct repstos_family *repstos_family_of(unsigned op);

/* Variant v's name, or NULL when f has no variant v. */
const char *repstos_family_name(const struct repstos_family *f, int v);
/* The variant named name, or -1. */
int repstos_family_by_name(const struct repstos_family *f, const char *name);
/* Variant v's routine, or NULL. */
void *repstos_family_routine(const struct repstos_family *f, int v);
/* The variant whose routine is at addr, or -1. */
int repstos_family_by_routine(const struct repstos_family *f, const void *addr);
/* Can cpu run variant v's routine: has it every feature it needs? */
int repstos_family_runs(const struct repstos_family *f,
			const struct repstos_cpu *cpu, int v);
/* v where a site of a narrow entry version may call it (its routine
 * touches no ymm, zmm or xmm16-31), else f's narrow_form. */
int repstos_family_narrow(const struct repstos_family *f, int v);
/* May a site of op take f's inline form? */
static inline int repstos_family_inline_ok(const struct repstos_family *f,
					   unsigned op)
{
	return op < 32 && (f->inline_ops >> op & 1);
}

#endif
