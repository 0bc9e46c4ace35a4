/* SPDX-License-Identifier: MIT */
/*
 * policy.h - CPU detection and the selection policy, shared by the
 * runtime's start-up patcher and `repstos patch` (so that --cpu=native
 * chooses exactly what the runtime would).  Pure functions: no
 * constructor, no global state, no environment.
 */
#ifndef REPSTOS_POLICY_H
#define REPSTOS_POLICY_H

#include "repstos.h"

/* Fill *cpu from CPUID on this machine. */
void repstos_cpu_detect(struct repstos_cpu *cpu);

/* A named CPU profile ("zen3", "icelake", ...), or NULL. */
const struct repstos_cpu *repstos_cpu_profile(const char *name);
/* The i-th profile name, or NULL past the end (for --help listings). */
const char *repstos_cpu_profile_name(unsigned i);

/* The module-wide variant for this CPU (what the stub dispatches to);
 * *why gets a short reason for REPSTOS_DEBUG. */
enum repstos_variant repstos_policy_module(const struct repstos_cpu *cpu,
					   const char **why);

/* The variant for one site, from what the compiler knew of its size.
 * `module` is the module-wide choice (or a forced variant; a forced
 * variant is used for every site as it is). */
enum repstos_variant repstos_policy_site(const struct repstos_cpu *cpu,
					 enum repstos_variant module, int forced,
					 const struct repstos_site *e);

/* Numbers the routines read at run time, per CPU. */
struct repstos_tuning {
	unsigned long long vec_rep_min;	/* "vec" uses rep stosb from here; ~0: never */
	unsigned inline_min;		/* sites proven at least this large go inline */
};

void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t);

#endif
