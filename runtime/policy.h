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

/* Variant names, by enum repstos_variant: the one table the runtime and
 * the tool share. */
extern const char *const repstos_variant_names[REPSTOS_VARIANT_COUNT];

/* Fill *cpu from CPUID on this machine. */
void repstos_cpu_detect(struct repstos_cpu *cpu);

/* A named CPU profile ("zen3", "icelake", ...), or NULL. */
const struct repstos_cpu *repstos_cpu_profile(const char *name);
/* The i-th profile name, or NULL past the end (for --help listings). */
const char *repstos_cpu_profile_name(unsigned i);

/* Numbers the routines read at run time, per CPU. */
struct repstos_tuning {
	unsigned long long vec_rep_min;	/* "vec" uses rep stosb from here; ~0: never */
	unsigned long long wide_rep_min; /* "avx2", "avx512" likewise */
	unsigned inline_min;		/* sites proven at least this large go inline */
	int variant;			/* the module-wide routine (enum repstos_variant) */
	const char *source;		/* where the numbers come from, for reports */
};

/* The tuning for this CPU from the measured table (or the conservative
 * rule for CPUs not in it). */
void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t);

/* Can this CPU run the variant's routine? ("avx2" and "avx512" need
 * instructions an x86-64 may lack; the others run everywhere.) */
int repstos_policy_supported(const struct repstos_cpu *cpu,
			     enum repstos_variant v);

/* The variant for one site, from what the compiler knew of its size and
 * the tuning (the policy's for the CPU, or a tuning file's): `module` is
 * the module-wide choice, t->variant; a forced variant is used for every
 * site as it is. */
enum repstos_variant repstos_policy_site_tuned(const struct repstos_tuning *t,
					       enum repstos_variant module,
					       int forced,
					       const struct repstos_site *e);

/*
 * The tuning file (REPSTOS_TUNING, default /etc/repstos/tuning): what
 * repstos_tune() measured, keyed by the CPU it measured, so that a file
 * copied to another machine is ignored.  Text, one "key value" a line,
 * '#' comments:
 *   cpu VENDOR FAMILY MODEL STEPPING FEATURES   (hex; must all match)
 *   variant NAME   vec_rep_min N   wide_rep_min N   inline_min N
 * repstos_tuning_format writes one into buf (returns its length, or -1
 * if it does not fit); repstos_tuning_parse reads one: 1 when it applies
 * to cpu and *t was set (fields it lacks keep the policy's value), 0 when
 * it is for another CPU, -1 when malformed.
 */
int repstos_tuning_format(char *buf, unsigned len, const struct repstos_cpu *cpu,
			  const struct repstos_tuning *t);
int repstos_tuning_parse(const char *text, const struct repstos_cpu *cpu,
			 struct repstos_tuning *t);

/* The tuning file's path: $REPSTOS_TUNING, else /etc/repstos/tuning
 * ("" when REPSTOS_TUNING is set empty: no file); always the default in
 * a secure execution (AT_SECURE: set-user-ID and the like). */
const char *repstos_tuning_path(void);

/* *t from the policy for cpu, then from the tuning file at path if it
 * is there and for this CPU.  Returns 1 file used, 0 no file or one for
 * another CPU (*other set), -1 malformed (the policy's values kept).
 * Anything but a regular file owned by root or the real user counts as
 * no file; opening never waits. */
int repstos_tuning_load(const char *path, const struct repstos_cpu *cpu,
			struct repstos_tuning *t, int *other);

#endif
