/* SPDX-License-Identifier: MIT */
/*
 * kmode.h - the part of kernel mode that is plain C, compiled into both
 * the GCC plugin (kernel.c) and the LLVM pass (llvm/kernel.cc), so that
 * the two compilers write the same text for the same kernel:
 *
 *	ktree.c		what the tree being built says of its
 *			alternatives, read from its own headers
 *	ktext.c		the asm text of a site, of the routines and of
 *			the notes; where a site may not go; what an asm
 *			does to the user-access window
 *
 * What each compiler does with the text (an asm statement, module-level
 * asm) and how it finds the unit's -I directories is its own.
 */
#ifndef REPSTOS_KMODE_H
#define REPSTOS_KMODE_H

#include <stdbool.h>
#include <stddef.h>

/* The contract header is C; its C11 static assertions read as C++ ones. */
#ifdef __cplusplus
#define _Static_assert static_assert
#include "repstos_site.h"
#undef _Static_assert
extern "C" {
#else
#include "repstos_site.h"
#endif

/* Feature numbers are 15 bits in the 12-byte layout. */
#define K_FEATURE_LIMIT	0x8000u

/* The types of kernel mode's notes in .note.repstos (name "repstos"). */
#define K_NOTE_SITE	1
#define K_NOTE_END	2
#define K_NOTE_PATH	3

/* ---- The tree (ktree.c) ----------------------------------------------- */

/* What kernel mode must know of the tree the unit is built in. */
struct ktree {
	const char *error;	/* why kernel mode cannot build for it, or NULL */
	const char *header;	/* the asm/alternative.h read */
	unsigned alt_size;	/* struct alt_instr: 12 or 14 bytes */
	unsigned alt_not;	/* ALT_NOT in its feature word: bit 15 or 16 */
	bool alt_merge;		/* .altinstructions is "aM", @progbits, size */
	unsigned rep_good, erms, fsrm;	/* feature bits */
	unsigned fsrs;		/* 0: the tree has no FSRS */
	const char *annotate;	/* objtool's NOENDBR section, or NULL */
	int noendbr_type;	/* its type in .discard.annotate_insn */
};

/* Read t from the tree's headers, found in dirs (the unit's -I and
 * -isystem directories in command-line order, NULL-terminated) as the
 * preprocessor would find them. */
void ktree_read(struct ktree *t, const char *const *dirs);

/* The one error for a tree kernel mode does not know (malloc'd). */
char *ktree_error_text(const struct ktree *t);

/* The one error for an IBT build whose tree names no annotation
 * section objtool reads. */
extern const char ktree_no_annotate[];

/* ---- Where a site may not go (ktext.c) -------------------------------- */

/* Why no site may be in this unit: source is its main file, kcmodel
 * whether it is -mcmodel=kernel code, tree_ok whether kernel mode can
 * write for its tree; or NULL. */
const char *kconflict_unit(bool kcmodel, bool tree_ok, const char *source);

/* Why no site may be in a function placed in section (or NULL), for a
 * call that is a _chk form or not; or NULL. */
const char *kconflict_function(const char *section, bool chk_form);

/* The reason a call in a user-access window is left alone. */
extern const char kconflict_uaccess[];

/* What an asm's text does to EFLAGS.AC, the user-access window. */
enum kac_effect { KAC_KEEP, KAC_OPEN, KAC_CLOSE };

enum kac_effect kac_effect(const char *text);
/* The window's state after an asm of text, from open before it. */
bool kac_after(const char *text, bool open);

/* ---- The text (ktext.c) ----------------------------------------------- */

/* One site, as ksite_text() writes it. */
struct ksite {
	enum repstos_op op;
	enum repstos_size_kind kind;
	unsigned long long min, max;
	bool cld;		/* in an interrupt handler: cld first */
	int inline_bit;		/* the bit that keeps it inline, or -1:
				 * the tree's (FSRS for sets, else FSRM) */
	const char *uid;	/* the asm's unique number, as the compiler
				 * spells it: GCC's %=, LLVM's ${:uid} */
};

/* The site's asm text (malloc'd): the original instruction, its
 * .altinstructions entries in t's layout, their replacements, its note.
 * No other character the compiler's asm templates treat specially. */
char *ksite_text(const struct ktree *t, const struct ksite *s);

/* The routines a unit carries, as kroutines_text() writes them. */
struct kroutines {
	bool global;		/* vmlinux's (start_kernel's unit): global;
				 * a module unit's: local */
	const char *ret;	/* RET as the build spells it (kret) */
	bool ibt;		/* an IBT build: NOENDBR annotations */
	bool paths;		/* -kernel-paths: count each path */
};

/* How the build spells RET: RETHUNK, SLS, or plain. */
const char *kret(bool thunk_extern, bool harden_sls);

/* The routines' asm text (malloc'd), for the end of the unit. */
char *kroutines_text(const struct ktree *t, const struct kroutines *r);

/* The note that ends a unit's notes, for the end of the unit. */
extern const char kend_note_text[];

#ifdef __cplusplus
}
#endif

#endif /* REPSTOS_KMODE_H */
