/* SPDX-License-Identifier: MIT */
/*
 * policy.h - CPU detection and the selection policy, shared by the
 * runtime's start-up patcher and `repstos patch` (so that --cpu=native
 * chooses exactly what the runtime would).  No constructor and no
 * global state; only repstos_tuning_path() reads the environment and
 * repstos_tuning_load() a file.
 */
#ifndef REPSTOS_POLICY_H
#define REPSTOS_POLICY_H

#include "repstos.h"

/* Variant names, by enum repstos_variant: the one table the runtime, the
 * tool and the tests share (runtime/policy/policy.c, with the lookups repstos.h
 * declares: by name, by routine, and what a variant needs). */
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

/* Numbers the routines read at run time, per CPU. */
struct repstos_tuning {
	unsigned long long vec_rep_min;	/* "vec" uses rep stosb from here; ~0: never */
	unsigned long long wide_rep_min; /* "avx2", "avx512" likewise */
	unsigned long long short_rep_max; /* "stosb_avx2": above 128 bytes,
					   * rep stosb below this */
	unsigned inline_min;		/* without costs: sites proven at least
					 * this large go inline */
	int variant;			/* the module-wide routine (enum repstos_variant) */
	/* Copy sites (copy.S): the module-wide copy routine (enum
	 * repstos_copy_variant), its rep movsb and non-temporal thresholds
	 * (~0: never), and copy sites proven at least copy_inline_min bytes
	 * go inline (~0u: none). */
	int copy_variant;
	unsigned long long copy_rep_min, copy_nt_min;
	unsigned copy_inline_min;
	const char *source;		/* where the numbers come from, for reports */
	struct repstos_costs costs;	/* per form and class; all 0: none */
	struct repstos_costs copy_costs;	/* the same for copy sites */
};

/* The name of variant v of a family (copy: a copy variant), or NULL. */
const char *repstos_family_variant_name(int copy, int v);

/* A family's cost table in *t: the copy sites' (copy), or the set's;
 * a macro, so that it is as const as t. */
#define REPSTOS_TUNING_COSTS(t, copy) ((copy) ? &(t)->copy_costs : &(t)->costs)

/* The tuning for this CPU from the measured table (or the conservative
 * rule for CPUs not in it). */
void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t);

/* The copy part of *t for cpu (repstos_policy_tuning calls it). */
void repstos_policy_copy(const struct repstos_cpu *cpu, struct repstos_tuning *t);

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

/* v itself where a site of a narrow entry version may call it (a form
 * that touches no ymm, zmm or xmm16-31), else the family's SSE-only
 * "vec".  copy: v is a copy variant. */
int repstos_form_narrow(int copy, int v);

/*
 * The form for one copy site (an entry of a copy op), chosen as
 * repstos_policy_site_tuned chooses a set site's, from the copy cost
 * table: a forced variant as it is; `module` (the tuning's copy_variant)
 * for a site of unknown size; for a known size, the form the table
 * makes cheapest over the classes of its range.  Inline `rep movsb` only
 * for ops that allow it (REPSTOS_OP_COPY, REPSTOS_OP_MOVE_FWD: a move
 * whose regions may overlap backwards never takes it).  Without a copy
 * table: inline when the site is proven at least copy_inline_min bytes
 * and the op allows it, else the module routine.  "inline" (forced or
 * the module's) is the inline form where the op allows it, and elsewhere
 * "inline"'s called form, which checks for overlap: the caller's to
 * write (runtime/startup/patch.c, the tool).
 */
enum repstos_copy_variant repstos_policy_copy_site(const struct repstos_tuning *t,
						   enum repstos_copy_variant module,
						   int forced,
						   const struct repstos_site *e);

/* The same from a size profile, as repstos_policy_site_profiled chooses
 * a set site's, by the copy table; inline only where the op allows it. */
enum repstos_copy_variant
repstos_policy_copy_site_profiled(const struct repstos_tuning *t,
				  enum repstos_copy_variant module, int forced,
				  const struct repstos_site *e,
				  const unsigned long long *hist);

/* May a site of this op take the inline form, rep movsb, which copies
 * forwards whatever the overlap? */
static inline int repstos_copy_inline_ok(unsigned op)
{
	return op == REPSTOS_OP_COPY || op == REPSTOS_OP_MOVE_FWD;
}

/* Does a copy site of this op, given variant v, take the inline form?
 * Elsewhere "inline" is its called form, which checks for overlap. */
static inline int repstos_copy_form_inline(enum repstos_copy_variant v,
					   unsigned op)
{
	return v == REPSTOS_COPY_VARIANT_INLINE && repstos_copy_inline_ok(op);
}

/*
 * The form for one site, from what the compiler knew of its size and the
 * tuning (the policy's for the CPU, or a tuning file's).  `module` is the
 * module-wide choice, t->variant, which every site of unknown size gets;
 * a forced variant is used for every site as it is.  A site whose size
 * is known (a constant, or a proven range) gets, from the cost table,
 * the form whose worst ratio to the cheapest form over the classes the
 * range spans is smallest (the module routine when it is within 3% of
 * that, then the smallest total, then the lowest number: deterministic
 * for a given table).  Without a cost table: inline when the site is
 * proven at least inline_min bytes, else the module routine.
 */
enum repstos_variant repstos_policy_site_tuned(const struct repstos_tuning *t,
					       enum repstos_variant module,
					       int forced,
					       const struct repstos_site *e);

/*
 * The form for one site from a size profile: hist[c] calls of the site
 * fell in size class c (runtime/policy/profile.h).  Every form stores every
 * size correctly, so a profile can only change speed, never what a site
 * does: it is a hint.  With calls and a cost table, the form whose
 * expected time over those calls, sum of hist[c] * cost[form][c], is
 * least, among the forms the table has (the module routine when it is
 * within 3% of that, then the lowest number); the sizes were measured
 * one at a time, so a site whose size changes from call to call pays
 * mispredictions they do not show: where the table has every form's
 * change cost, each form's expected time adds its change cost
 * times the expected changes of class, N - sum(hist[c]^2) / N for N
 * calls drawn independently from the histogram, and every form with a
 * change cost competes; without it, a site whose calls spread over
 * classes keeps the module routine unless rep stosb in place is
 * cheaper.  With no calls (hist NULL or all 0), no cost table, or a
 * forced variant: repstos_policy_site_tuned.
 * The runtime and `repstos patch --profile` both choose with this.
 */
enum repstos_variant repstos_policy_site_profiled(const struct repstos_tuning *t,
						  enum repstos_variant module,
						  int forced,
						  const struct repstos_site *e,
						  const unsigned long long *hist);

/* What a process (or `repstos patch --cpu`) chose for sites of unknown
 * size, per family, and whether REPSTOS_VARIANT (or --cpu=ROUTINE)
 * forced it on every site of the family. */
struct repstos_modules {
	int variant, copy_variant;
	int forced, copy_forced;
};

/*
 * The form for site e of either family, from the profile hist (or
 * NULL): repstos_policy_site_profiled's or
 * repstos_policy_copy_site_profiled's, a variant of the site's family;
 * a site of a narrow entry version gets repstos_form_narrow() of it.
 * The one choice the runtime and `repstos patch` both make.
 */
int repstos_policy_form(const struct repstos_tuning *t,
			const struct repstos_modules *m,
			const struct repstos_site *e,
			const unsigned long long *hist);

/* Sum of hist[c] * cost[v][c] in centi-ns (saturated at ~0ull - 1);
 * ~0ull when the table lacks v. */
unsigned long long repstos_policy_weighted(const struct repstos_costs *k,
					   int v, const unsigned long long *hist);
/* What repstos_policy_site_profiled compares: the weighted sum, plus,
 * where the table has the change cost of every form it has, v's change
 * cost times the expected changes of class over the calls. */
unsigned long long repstos_policy_expected(const struct repstos_costs *k,
					   int v, const unsigned long long *hist);

/*
 * The tuning file (REPSTOS_TUNING, default /etc/repstos/tuning): what
 * repstos_tune() measured, keyed by the CPU it measured, so that a file
 * copied to another machine is ignored.  Text, one "key value" a line,
 * '#' comments:
 *   cpu VENDOR FAMILY MODEL STEPPING FEATURES   (hex; must all match)
 *   variant NAME   vec_rep_min N   wide_rep_min N   short_rep_max N
 *   inline_min N
 *   cost NAME C0 C1 .. C21   (centi-ns per class; one line per form)
 *   change NAME C   (centi-ns per change of size class; part of the table)
 *   copy_variant NAME
 *   copy_cost NAME C0 C1 .. C21, copy_change NAME C   (the copy table)
 * repstos_tuning_format writes one into buf (returns its length, or -1
 * if it does not fit); repstos_tuning_parse reads one: 1 when it applies
 * to cpu and *t was set (fields it lacks keep the policy's value; a file
 * with cost or change lines replaces the policy's whole table, and one
 * with copy_cost or copy_change lines the whole copy table), 0 when it is for
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
