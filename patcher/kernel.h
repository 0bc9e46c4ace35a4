/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - kernel-mode sites as the tool reads them, for check and
 * dump of a Linux image built with -fplugin-arg-repstos-kernel.
 *
 * Such a file has no repstos site table.  Each site is a note in
 * .note.repstos (linked into vmlinux's .notes) naming the site's first
 * struct alt_instr in .altinstructions (plugin/kernel.c says the
 * layout); the entries say what apply_alternatives() writes there on
 * each CPU.  k_load() reads the notes and the whole table, so that an
 * entry on a site that no note names is seen too.
 */
#ifndef PATCHER_KERNEL_H
#define PATCHER_KERNEL_H

#include "patcher.h"

#define K_NOTE_SITE	1
#define K_SITE_LEN	5	/* what each site's notes and entries cover */
/* struct alt_instr, as each site's note records it (its size): Linux
 * 5.13 to 6.2's 12 bytes, s32 instr_offset, s32 repl_offset, u16 cpuid,
 * u8 instrlen, u8 replacementlen, ALT_NOT the top bit of cpuid; or the
 * 14 bytes of 6.3 onwards, u32 ft_flags for cpuid (the feature in its
 * low 16 bits, flags in the high: ALT_FLAG_NOT is bit 16). */
#define K_ALT_OLD	12
#define K_ALT_NEW	14
#define K_ALT_NOT_OLD	0x8000u
#define K_FLAG_NOT	1u	/* of the 14-byte layout's flags */
#define K_FSRS		(12 * 32 + 11)
#define K_FSRM		(18 * 32 + 4)
#define K_ERMS		(9 * 32 + 9)
#define K_REP_GOOD	(3 * 32 + 16)
#define K_ALWAYS	(3 * 32 + 21)
#define K_PREFIX	"__repstos_k_"
#define K_NCLASS	5
#define K_NONE		((size_t)-1)

/* A place in the file: section and offset in it. */
struct kloc {
	size_t sec;
	uint64_t off;
	const char *sym;	/* ET_REL: the symbol a relocation names */
};

/* One struct alt_instr of an .altinstructions section. */
struct kalt {
	struct kloc at, instr, repl;
	uint16_t feature;	/* the CPU feature bit it tests */
	bool not;		/* ALT_NOT: applies when the CPU lacks it */
	uint16_t flags;		/* 14-byte layout: other flags, none of ours */
	uint8_t ilen, rlen;
	bool ok;		/* instr and repl resolved */
	unsigned named;		/* the notes that name it */
	size_t site;		/* a site its bytes overlap, or K_NONE */
};

struct ksite {
	struct kloc note, alt, site;
	unsigned op, kind, entries, alt_size;
	uint32_t min, max;
	size_t first;		/* alt's index in kfile.alt, or K_NONE */
};

struct kfile {
	struct ksite *site;	/* in note order */
	size_t n, bad;		/* sites; notes that could not be read */
	unsigned alt_size;	/* the layout the first note records */
	size_t mixed;		/* notes that record another */
	struct kalt *alt;	/* every entry of every .altinstructions */
	size_t nalt;
	size_t ragged;		/* sections not a whole number of entries */
	size_t *byloc;		/* alt indexes by (instr.sec, instr.off) */
	size_t nloc;
};

extern const char *const k_class_names[K_NCLASS];

/* kernel.c */
/* The file's notes and alt_instr table: 0, or -1 (no notes, or no
 * memory) with nothing to free. */
int k_load(struct rs_elf *f, struct kfile *k);
void k_free(struct kfile *k);
/* Entry j of site s (NULL: not one of its section's entries). */
const struct kalt *k_entry(const struct kfile *k, const struct ksite *s,
			   unsigned j);
/* The entries on site i's bytes, in table order: their number, and a
 * malloc()ed array in *out (NULL when none, or no memory). */
size_t k_on_site(const struct kfile *k, size_t i, size_t **out);
/* The bytes at `at` in a few words: rep_stosb, rep_movsb, the routine
 * a call calls (less the routines' prefix), call:NAME, or ?. */
void k_form_at(struct rs_elf *f, struct kloc at, char *buf, size_t len);
/* What apply_alternatives() leaves at site i on a CPU of class cls. */
void k_form_for(struct rs_elf *f, const struct kfile *k, size_t i,
		unsigned cls, char *buf, size_t len);
/* Does a CPU of class cls have feature bit feat? 1, 0, or -1: the
 * classes say nothing of that bit. */
int k_class_has(unsigned cls, unsigned feat);

#endif
