/* SPDX-License-Identifier: MIT */
/*
 * profile.h - per-site size profiles: the file format, shared by the
 * runtime (which writes one under REPSTOS_PROFILE and reads an installed
 * one) and `repstos patch|dump --profile`; and the profiling routine's
 * data, shared with __repstos_profile and __repstos_copy_profile.
 *
 * A profile is text: sections, one per module per process, added to the
 * file at exit (or when the module is unloaded) under an exclusive lock,
 * so every module of a process and every process given the same file add
 * to it without interleaving:
 *
 *   profile 2 table HASH sites N name MODULE
 *   site INDEX CALLS H0 H1 .. H21
 *   ...
 *   end HASH
 *
 * or, where a section pins sites' forms (`repstos tune --run` writes
 * them), version 3, which may add lines
 *
 *   pin INDEX FAMILY FORM
 *
 * HASH is repstos_table_hash() of the module's site table, 16 lowercase
 * hex digits: the table holds each site's place relative to the table
 * and what the compiler knew of its size, so another build of the file
 * almost surely has another hash, and its profile is not used.  N is the
 * table's entries; MODULE the path the module was loaded from (for
 * people: readers go by the hash).  A site line per site that was called:
 * INDEX its entry in the table (increasing), Hc its calls with a size in
 * class c (repstos_size_class), CALLS their sum.  Sections for the same
 * hash add up.  A pin line (a version 3 section's, indexes increasing
 * among its pins) gives site INDEX the form FORM, a variant name of
 * FAMILY ("set" or "copy"), whatever the counts would choose
 * (repstos_policy_pinned says when it does not apply); a later
 * section's pin of a site replaces an earlier one's.  A reader refuses
 * the whole file when any line of it is not as above (a truncated
 * section, a sum that does not add up, an unknown version, a pin of a
 * form its family does not have or in a section of version 1 or 2),
 * and one of more than REPSTOS_PROFILE_MAX bytes.
 *
 * A writer keeps a file under that: a section for the same table and
 * module as the file's last one (the same module loaded again, by this
 * process or the next) is added into that one, and a section that would
 * take the file past the limit is merged with the whole file, every
 * table's sections summed into one (repstos_profile_merge).  Where the
 * file system has no locks, sections are only appended, one write(2)
 * each, as all were before.
 */
#ifndef REPSTOS_PROFILE_H
#define REPSTOS_PROFILE_H

/* The profiling routine's view (__repstos_profile): see struct repstos_prof. */
#define REPSTOS_PROF_LAST_CLASS	21	/* REPSTOS_NCLASS - 1 */
#define REPSTOS_PROF_SLOT_SIZE	192	/* sizeof(struct repstos_prof_slot) */
#define REPSTOS_PROF_SLOT_HIST	16	/* offsetof(..., hist) */
#define REPSTOS_PROF_RET	0	/* offsetof(struct repstos_prof, ret) */
#define REPSTOS_PROF_SLOTS	8	/* ... slot */
#define REPSTOS_PROF_N		16	/* ... n */
#define REPSTOS_PROF_FALLBACK	24	/* ... fallback */
#define REPSTOS_PROF_COPY_FALLBACK 32	/* ... copy_fallback */

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>
#include "policy.h"

/* 2: sections count copy sites too; 3: a section may pin forms.
 * Readers take 1 to 3; a reader of 1 and 2 alone refuses 3 as an
 * unknown version.  The runtime writes its counts as version 2, which
 * they are, so that such readers still take what it records; a
 * section with pins says 3. */
#define REPSTOS_PROFILE_VERSION 3
#define REPSTOS_PROFILE_VERSION_COUNTS 2

/* A site's pin as read: 0 none, else its family and form in one byte. */
#define REPSTOS_PIN_FORMS 32	/* more than any family's variants */
#define REPSTOS_PIN(fam, v) ((unsigned char)(1 + (fam) * REPSTOS_PIN_FORMS + (v)))
static inline int repstos_pin_family(unsigned char pin)
{
	return (pin - 1) / REPSTOS_PIN_FORMS;
}
static inline int repstos_pin_form(unsigned char pin)
{
	return pin ? (pin - 1) % REPSTOS_PIN_FORMS : -1;
}
_Static_assert(REPSTOS_VARIANT_COUNT <= REPSTOS_PIN_FORMS &&
	       REPSTOS_COPY_VARIANT_COUNT <= REPSTOS_PIN_FORMS &&
	       REPSTOS_NFAMILY * REPSTOS_PIN_FORMS < 256,
	       "a pin's family and form fit its byte");

/* The longest header line, with a name of at most
 * REPSTOS_PROFILE_NAME_MAX bytes, and the end line. */
#define REPSTOS_PROFILE_NAME_MAX 1024
#define REPSTOS_PROFILE_HEAD_MAX (128 + REPSTOS_PROFILE_NAME_MAX)
#define REPSTOS_PROFILE_END_LEN 21	/* "end " HASH "\n" */

/* The largest profile any reader takes (the runtime and `repstos`), and
 * that a writer lets a file grow to: far more than the sections of any
 * process's modules, summed. */
#define REPSTOS_PROFILE_MAX_MIB 64
#define REPSTOS_PROFILE_MAX (REPSTOS_PROFILE_MAX_MIB * 1024u * 1024u)

/* FNV-1a, 64 bits, over n bytes, continuing from h (start with
 * REPSTOS_HASH_INIT): the table as it is in memory and in the file. */
#define REPSTOS_HASH_INIT 0xcbf29ce484222325ull
uint64_t repstos_hash(uint64_t h, const void *p, size_t n);

/* The hash of a module's whole table. */
uint64_t repstos_table_hash(const struct repstos_site *begin,
			    const struct repstos_site *end);

/* The lines of a section, appended to buf at *at; 0, or -1 when they do
 * not fit.  The name has control characters replaced, and is cut to
 * REPSTOS_PROFILE_NAME_MAX bytes. */
int repstos_profile_head(char *buf, unsigned len, unsigned *at, int version,
			 uint64_t hash, unsigned nsites, const char *name);
int repstos_profile_site(char *buf, unsigned len, unsigned *at, unsigned index,
			 const unsigned long long *hist);
/* pin: REPSTOS_PIN of a variant its family has; in a version 3 section. */
int repstos_profile_pin(char *buf, unsigned len, unsigned *at, unsigned index,
			unsigned char pin);
int repstos_profile_end(char *buf, unsigned len, unsigned *at, uint64_t hash);
/* The length of the site line repstos_profile_site writes, and of the
 * pin line repstos_profile_pin does. */
unsigned repstos_profile_site_len(unsigned index, const unsigned long long *hist);
unsigned repstos_profile_pin_len(unsigned index, unsigned char pin);

/* One module's profile, as read. */
struct repstos_profile {
	uint64_t hash;		/* in: the module's table hash */
	unsigned nsites;	/* in: entries in its table */
	unsigned long long (*hist)[REPSTOS_NCLASS]; /* in: nsites zeroed
						 * rows; out: the sums */
	unsigned char *pin;	/* in: nsites zeroed bytes, or NULL (pins
				 * checked, not kept); out: REPSTOS_PIN */
	unsigned pins;		/* out: sites pinned */
	unsigned sections;	/* out: sections for this module */
	unsigned others;	/* out: sections for other modules */
	unsigned line;		/* out, when malformed: the line */
	const char *why;	/* out, when malformed: what is wrong */
};

/* Read a profile's text (len bytes): 1 when it has sections for p->hash
 * (summed into p->hist), 0 when it has none, -1 when any line is
 * malformed (p->line and p->why say which and how; p->hist is then
 * partly filled and must not be used). */
int repstos_profile_parse(const char *text, size_t len,
			  struct repstos_profile *p);

/* A profile's text (len bytes) with each table's sections summed into
 * one, in the order the tables first appear, under the header line of
 * the first (version 3 where the table has pins, each site's last
 * one): 0 and *out (malloc'd, *out_len bytes), -1 when the text is
 * malformed (p->line and p->why say where, as repstos_profile_parse,
 * whose p->hash and p->nsites it takes too; p->hist is not filled), -2
 * out of memory.  Readers see the same counts in both. */
int repstos_profile_merge(const char *text, size_t len, char **out,
			  size_t *out_len, struct repstos_profile *p);

/* Could the site have seen these sizes?  0 when every class with calls
 * lies within what the compiler proved of its size, else -1: the
 * profile is not of this build (or the table lies), and is not used. */
int repstos_profile_fits(const struct repstos_site *e,
			 const unsigned long long *hist);

/* Can the site take its pin (0: none)?  0 when the pin names a form of
 * the site's family, else -1: not a profile of this build. */
int repstos_profile_pin_fits(const struct repstos_site *e, unsigned char pin);

/*
 * The one acceptor of a profile's text (len bytes) for a table of
 * p->nsites entries whose hash is p->hash, entry i at (const char *)
 * first + i * stride: 1 when it has sections for the table and every
 * row and pin fits its entry (p->hist and p->pin malloc'd, the caller's
 * to free; p->pin NULL where no site is pinned); else -1, or -2 out of
 * memory, with one line in msg (msg_len bytes) saying why: corrupt (and
 * where), no section for the table, a row the table rules out, a pin of
 * another family; p->hist and p->pin NULL.  The runtime and `repstos`
 * both take a profile only through it.
 */
int repstos_profile_accept(const char *text, size_t len, const void *first,
			   size_t stride, struct repstos_profile *p,
			   char *msg, size_t msg_len);

/* The form a pin (0: none) gives site e, before repstos_policy_form:
 * the pinned form, or for a narrow entry version
 * repstos_family_narrow() of it; -1 where the pin does not apply and
 * the site is chosen as if unpinned: a forced variant (REPSTOS_VARIANT,
 * --cpu=ROUTINE), the inline form where the op may not take it
 * (repstos_family_inline_ok), a routine cpu cannot run (or cpu NULL).
 * The runtime and `repstos patch|dump --profile` both ask it first. */
int repstos_policy_pinned(const struct repstos_modules *m,
			  const struct repstos_cpu *cpu,
			  const struct repstos_site *e, unsigned char pin);

/* Calls in hist (saturated). */
unsigned long long repstos_profile_calls(const unsigned long long *hist);

/*
 * The profiling routine's data (runtime/startup/profrun.c fills it in; the
 * routine, __repstos_profile, reads it): the return
 * addresses of the profiled sites (site + 5), sorted, and beside each
 * the slot of that site.  The routine finds the slot by binary search,
 * adds one to the size class of rcx, and calls the slot's routine.
 */
struct repstos_prof_slot {
	void *routine;		/* what the site runs, by call */
	unsigned index;		/* its entry in the table */
	unsigned pad;
	unsigned long long hist[REPSTOS_NCLASS];	/* calls per class */
};

struct repstos_prof {
	const uintptr_t *ret;	/* n return addresses, increasing */
	struct repstos_prof_slot *slot;	/* n slots, in the same order */
	unsigned long n;
	void *fallback;		/* for a call from no profiled site */
	void *copy_fallback;	/* the same for the copy routine */
};

_Static_assert(REPSTOS_PROF_LAST_CLASS == REPSTOS_NCLASS - 1,
	       "__repstos_profile's last class");
_Static_assert(sizeof(struct repstos_prof_slot) == REPSTOS_PROF_SLOT_SIZE &&
	       offsetof(struct repstos_prof_slot, hist) == REPSTOS_PROF_SLOT_HIST,
	       "__repstos_profile's slot layout");
_Static_assert(offsetof(struct repstos_prof, ret) == REPSTOS_PROF_RET &&
	       offsetof(struct repstos_prof, slot) == REPSTOS_PROF_SLOTS &&
	       offsetof(struct repstos_prof, n) == REPSTOS_PROF_N &&
	       offsetof(struct repstos_prof, fallback) == REPSTOS_PROF_FALLBACK &&
	       offsetof(struct repstos_prof, copy_fallback) ==
	       REPSTOS_PROF_COPY_FALLBACK,
	       "__repstos_profile's view of struct repstos_prof");

#endif /* !__ASSEMBLER__ */
#endif /* REPSTOS_PROFILE_H */
