/* SPDX-License-Identifier: MIT */
/*
 * policy.h - CPU detection and the selection policy, shared by the
 * runtime's start-up patcher and `repstos patch` (so that --cpu=native
 * chooses exactly what the runtime would).  No constructor and no
 * global state; only repstos_tuning_path() reads the environment and
 * repstos_tuning_load() a file.  By concern:
 *   family.c   the families and their variants (family.h)
 *   cpu.c      CPUID;  cpus.c  the named CPU profiles
 *   cost.c     the cost model;  rows.c  the measured rows and the rules
 *   choose.c   one site's form;  tuning.c  the tuning file
 */
#ifndef REPSTOS_POLICY_H
#define REPSTOS_POLICY_H

#include "repstos.h"
#include "family.h"

/* Variant names, by enum repstos_variant: the one table the runtime, the
 * tool and the tests share (the set family's, family.h; repstos.h
 * declares the lookups by name and by routine). */
extern const char *const repstos_variant_names[REPSTOS_VARIANT_COUNT];
/* The same for the copy variants (REPSTOS_COPY_VARIANTS). */
extern const char *const repstos_copy_variant_names[REPSTOS_COPY_VARIANT_COUNT];

/* Fill *cpu from CPUID on this machine. */
void repstos_cpu_detect(struct repstos_cpu *cpu);

/* A named CPU profile ("zen3", "icelake", ...), or NULL. */
const struct repstos_cpu *repstos_cpu_profile(const char *name);
/* The i-th profile name, or NULL past the end (for --help listings). */
const char *repstos_cpu_profile_name(unsigned i);
/* *cpu as REPSTOS_CPU=name presents it (the runtime, `repstos tune`):
 * the profile's vendor, family and model, with only the features both
 * have.  NULL, "" and "native" leave it as it is; -1 for an unknown
 * name, which leaves it as it is too. */
int repstos_cpu_as(struct repstos_cpu *cpu, const char *name);

/*
 * The cost model, one for both families of sites.  Size class 0 is
 * size 0; class k >= 1 holds the sizes [2^(k-1), 2^k); the last class
 * everything from 1 MiB up.  A form's cost in a class is what one call
 * took at a size fixed for the run (branches predicted), the worst of
 * the class's two ends, destination aligned and not (copies: source and
 * destination aligned, and at +5 and +3), in centi-nanoseconds; 0: not
 * measured.  Forms are the family's variants, numbered as they are (a
 * copy table uses the first REPSTOS_COPY_VARIANT_COUNT rows);
 * "inline", number 1 in both, stands for rep stosb (rep movsb) in place.
 */
#define REPSTOS_NCLASS 22
#define REPSTOS_NFORM REPSTOS_VARIANT_COUNT	/* rows: the larger family */
_Static_assert((int)REPSTOS_COPY_VARIANT_COUNT <= (int)REPSTOS_NFORM &&
	       (int)REPSTOS_VARIANT_INLINE == (int)REPSTOS_COPY_VARIANT_INLINE,
	       "one table shape for both families");
struct repstos_costs {
	unsigned cns[REPSTOS_NFORM][REPSTOS_NCLASS];
	/* What one change of size class from a call to the next adds to a
	 * form's time, in centi-ns: the mispredictions of a routine that
	 * branches on the size, which the fixed sizes above never show
	 * (rep stosb in place, and "avx512" below 256 bytes, have next to
	 * none).  Measured below 256 bytes; bit v of change_known: form v's
	 * was measured. */
	unsigned change[REPSTOS_NFORM];
	unsigned change_known;
	/* What a call below 64 bytes adds to a form's time, in centi-ns,
	 * when the next instruction reads the last byte it wrote: a load
	 * waits for a masked or a string store to commit, where a plain
	 * store's bytes are forwarded (the mean over the classes below 64
	 * of the read-back table less this one, none below 0).  Bit v of
	 * use_known: form v's was measured.  A profile is weighed by both
	 * shapes where the table has this for every form (choose.c). */
	unsigned use_extra[REPSTOS_NFORM];
	unsigned use_known;
};

/* The class of size n. */
unsigned repstos_size_class(unsigned long long n);
/* The sizes at the ends of class c. */
unsigned long long repstos_class_lo(unsigned c);
unsigned long long repstos_class_hi(unsigned c);
/* Does the table have every class of form v? */
int repstos_cost_known(const struct repstos_costs *k, int v);
/* The forms it has every class of, bit v for form v; 0: no table. */
unsigned repstos_cost_forms(const struct repstos_costs *k);

/* One family's part of a tuning. */
struct repstos_family_tuning {
	int variant;			/* the module-wide routine: the stub's
					 * target, and every site of unknown size
					 * and use */
	int read_variant;		/* a site of unknown size its function
					 * reads back (REPSTOS_USE_READ): the
					 * routine best in the shapes that read
					 * what was just written */
	unsigned inline_min;		/* without costs: sites proven at least
					 * this large go inline; ~0u: none */
	struct repstos_costs costs;	/* per form and class; all 0: none */
};

/* What the policy (or a tuning file) says for a CPU: each family's
 * part, and the numbers the routines read at run time. */
struct repstos_tuning {
	struct repstos_family_tuning fam[REPSTOS_NFAMILY];
	unsigned long long vec_rep_min;	/* "vec" uses rep stosb from here; ~0: never */
	unsigned long long wide_rep_min; /* "avx2", "avx512" likewise */
	unsigned long long short_rep_max; /* "stosb_avx2": above 128 bytes,
					   * rep stosb below this */
	/* the copy routines' rep movsb and non-temporal thresholds (~0:
	 * never) */
	unsigned long long copy_rep_min, copy_nt_min;
	const char *source;		/* where the numbers come from, for reports */
};

/* The tuning for this CPU from the measured table (or the conservative
 * rule for CPUs not in it). */
void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t);

/* Does the measured table have a row for this CPU? */
int repstos_policy_has_row(const struct repstos_cpu *cpu);

/* Can this CPU run the variant's routine?  Does it have every feature
 * REPSTOS_VARIANTS says the routine needs ("avx2", "avx512" and others
 * use instructions an x86-64 may lack)? */
int repstos_policy_supported(const struct repstos_cpu *cpu,
			     enum repstos_variant v);

/* The same for a copy routine (REPSTOS_COPY_VARIANTS). */
int repstos_policy_copy_supported(const struct repstos_cpu *cpu,
				  enum repstos_copy_variant v);

/* What a process (or `repstos patch --cpu`) chose for sites of unknown
 * size, per family, and whether REPSTOS_VARIANT (or --cpu=ROUTINE)
 * forced it on every site of the family. */
struct repstos_modules {
	struct {
		int variant, forced;
	} fam[REPSTOS_NFAMILY];
};

/* Why a site has its form (repstos_policy_site). */
enum repstos_why {
	REPSTOS_WHY_PINNED,	/* its pin in the size profile */
	REPSTOS_WHY_PROFILE,	/* the size profile's counts */
	REPSTOS_WHY_FORCED,	/* REPSTOS_VARIANT, --cpu=ROUTINE */
	REPSTOS_WHY_UNKNOWN,	/* size unknown: the module routine */
	REPSTOS_WHY_READ,	/* size unknown, read back: the read routine */
	REPSTOS_WHY_RULE,	/* known size, no cost table: the CPU's rule */
	REPSTOS_WHY_COSTS,	/* known size: the cost table over its classes */
	REPSTOS_WHY_COUNT
};
/* What the runtime's REPSTOS_DEBUG lines say for why (the tool's words
 * for a forced routine are its --cpu=ROUTINE). */
const char *repstos_why_name(enum repstos_why why);

/* What one site gets: eight bytes, returned in one register. */
struct repstos_decision {
	int form;		/* a variant of the site's family */
	unsigned char in_place;	/* form is the family's inline form and the
				 * op may take it: rep stosb (rep movsb) in
				 * the site itself, no call */
	unsigned char why;	/* enum repstos_why */
};

/*
 * The form for one site e of family f (repstos_family_of(e->op),
 * resolved once by the caller), with its size profile row hist (calls
 * per size class, profile.h; NULL or all 0: none) and its pin (0:
 * none): the one decision the runtime's start-up and `repstos
 * patch|dump|tune` all make, so that ahead of time and at start-up a
 * site gets the same form from the same inputs.  In order:
 *  - a pin, where repstos_policy_pinned lets the site have it;
 *  - a forced variant (REPSTOS_VARIANT, --cpu=ROUTINE), as it is;
 *  - a profile with calls: a site whose calls spread over 16..63 takes
 *    f's range_form where the module routine goes with it; else, with a
 *    cost table, the form whose expected time over those calls, sum of
 *    hist[c] * cost[form][c], is least (the module routine when it is
 *    within 3% of that, then the lowest number); the sizes were
 *    measured one at a time, so where the table has every form's change
 *    cost, each form's expected time adds its change cost times the
 *    expected changes of class, N - sum(hist[c]^2) / N for N calls drawn
 *    independently from the histogram; without it, a site whose calls
 *    spread over classes keeps the module routine unless the inline
 *    form is cheaper; where the table also has every form's use_extra,
 *    a form other than the module routine only when it is expected to
 *    be more than 3% faster both back to back and with each call's
 *    last byte read next (the best such in the worse of the two);
 *  - a size the compiler proved (a constant, or a range): the form
 *    whose worst ratio to the cheapest form over the classes the range
 *    spans is smallest (the module routine when it is within 3% of that,
 *    then the smallest total, then the lowest number: deterministic for
 *    a given table); without a cost table, the inline form when the site
 *    is proven at least inline_min bytes;
 *  - else (size unknown) the module routine, or where the site's
 *    function reads its bytes back (REPSTOS_USE_READ) the read routine,
 *    the one best in the shapes that read what was just written (tune
 *    chooses both from the same cells: `repstos tune`, pick.h).
 * A site its function reads back (REPSTOS_USE_READ) whose sizes lie in
 * one class below 64 bytes takes none of the family's `no_forward` forms
 * where the table has another: the loads after it would wait for a
 * masked or string store to commit, which the table, measured back to
 * back, does not show; with a profile, the same where 95% of its calls
 * fall in one such class.  The inline form only where the family lets
 * the op take it (repstos_family_inline_ok: a move that may overlap
 * backwards never does).  A site of a narrow entry version gets
 * repstos_family_narrow() of the result.  A profile only changes speed,
 * never what a site does: every form stores every size correctly.
 * Built with REPSTOS_NO_PROFILES (the lean start-up, which links no
 * profile code), hist and pin are not read.
 */
struct repstos_decision repstos_policy_site(const struct repstos_tuning *t,
					    const struct repstos_modules *m,
					    const struct repstos_cpu *cpu,
					    const struct repstos_family *f,
					    const struct repstos_site *e,
					    const unsigned long long *hist,
					    unsigned char pin);

/* Does form v of family f go in place, rep stosb (rep movsb) in a site
 * of op itself?  Only the inline form, where the op may take it. */
static inline int repstos_policy_in_place(const struct repstos_family *f,
					  unsigned op, int v)
{
	return v == f->inline_form && repstos_family_inline_ok(f, op);
}

/* The module routine of family f as a site may call it: for a narrow
 * one (a narrow entry version, or a stub that serves one),
 * repstos_family_narrow() of it. */
static inline int repstos_policy_module_for(const struct repstos_modules *m,
					    const struct repstos_family *f,
					    int narrow)
{
	int v = m->fam[f->id].variant;

	return narrow ? repstos_family_narrow(f, v) : v;
}

/* Sum of hist[c] * cost[v][c] in centi-ns (saturated at ~0ull - 1);
 * ~0ull when the table lacks v. */
unsigned long long repstos_policy_weighted(const struct repstos_costs *k,
					   int v, const unsigned long long *hist);
/* Does the table say what a change of class costs every form it has? */
int repstos_cost_has_change(const struct repstos_costs *k);
/* Does it have every form's use_extra? */
int repstos_cost_has_use(const struct repstos_costs *k);
/* Forget the costs of the forms of f that cpu cannot run. */
void repstos_costs_drop(const struct repstos_family *f,
			const struct repstos_cpu *cpu, struct repstos_costs *k);
/* What repstos_policy_site compares for a profiled site: the weighted
 * sum, plus, where the table has the change cost of every form it has, v's change
 * cost times the expected changes of class over the calls. */
unsigned long long repstos_policy_expected(const struct repstos_costs *k,
					   int v, const unsigned long long *hist);

/*
 * The tuning file (REPSTOS_TUNING, default /etc/repstos/tuning): what
 * repstos_tune() measured, keyed by the CPU it measured, so that a file
 * copied to another machine is ignored.  Text, one "key value" a line,
 * '#' comments:
 *   cpu VENDOR FAMILY MODEL STEPPING FEATURES   (hex; must all match)
 *   variant NAME   read_variant NAME
 *   vec_rep_min N   wide_rep_min N   short_rep_max N
 *   inline_min N
 *   cost NAME C0 C1 .. C21   (centi-ns per class; one line per form)
 *   change NAME C   (centi-ns per change of size class; part of the table)
 *   use_extra NAME C   (centi-ns a call below 64 bytes adds when its last
 *                       byte is read next; part of the table)
 *   copy_variant NAME   copy_read_variant NAME
 *   copy_cost NAME C0 C1 .. C21, copy_change NAME C, copy_use_extra NAME C
 *                       (the copy table)
 * repstos_tuning_format writes one into buf (returns its length, or -1
 * if it does not fit); repstos_tuning_parse reads one: 1 when it applies
 * to cpu and *t was set (fields it lacks keep the policy's value; a file
 * with cost, change or use_extra lines replaces the policy's whole table,
 * and one with copy_cost, copy_change or copy_use_extra lines the whole
 * copy table), 0 when it is for
 * another CPU, -1 when malformed: a line that is none of the above, or
 * a last line without its newline.
 */
/* Room for any tuning file's text and its NUL: a file of more than
 * REPSTOS_TUNING_MAX - 1 bytes is malformed. */
#define REPSTOS_TUNING_MAX 4096

int repstos_tuning_format(char *buf, unsigned len, const struct repstos_cpu *cpu,
			  const struct repstos_tuning *t);
int repstos_tuning_parse(const char *text, const struct repstos_cpu *cpu,
			 struct repstos_tuning *t);

/*
 * Text helpers the tuning file and the profile (runtime/policy/profile.h) share:
 * no stdio scanning, as they run in every program's start-up.
 * repstos_text_put appends printf-style to buf at *at (0, or -1 once it
 * no longer fits); repstos_text_blank skips blanks; repstos_text_word
 * matches w followed by a blank and returns what follows the blanks;
 * repstos_text_number reads a decimal or lowercase hex number (NULL when
 * there is none or it does not fit in 64 bits) and skips the blanks
 * after it.
 */
int repstos_text_put(char *buf, unsigned len, unsigned *at,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *repstos_text_blank(const char *p);
const char *repstos_text_word(const char *p, const char *w);
const char *repstos_text_number(const char *p, int base,
				unsigned long long *v);

/* Why the open file fd may not steer a program (*st filled): not a
 * regular file, or owned by neither root nor the real user; NULL if it
 * may.  For the tuning file and installed size profiles. */
struct stat;
const char *repstos_untrusted(int fd, struct stat *st);

/* The tuning file's path: $REPSTOS_TUNING, else /etc/repstos/tuning
 * ("" when REPSTOS_TUNING is set empty: no file); always the default in
 * a secure execution (AT_SECURE: set-user-ID and the like). */
const char *repstos_tuning_path(void);

/* *t from the policy for cpu, then from the tuning file at path if it
 * is there and for this CPU.  Returns 1 file used, 0 no file or one for
 * another CPU (*other set), -1 malformed or too large (the policy's
 * values kept).
 * Anything but a regular file owned by root or the real user counts as
 * no file; opening never waits. */
int repstos_tuning_load(const char *path, const struct repstos_cpu *cpu,
			struct repstos_tuning *t, int *other);

#endif
