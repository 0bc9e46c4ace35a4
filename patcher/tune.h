/* SPDX-License-Identifier: MIT */
/*
 * tune.h - measure the routines on this machine for the tuning file
 * the runtime reads at start-up (REPSTOS_TUNING, default
 * /etc/repstos/tuning), which `repstos tune` (main.c) formats
 * (repstos_tuning_format) and writes (rs_text_write):
 *
 *   struct repstos_tuning t;
 *   if (repstos_tune(stderr, cpu, &t) == 0)
 *           ... repstos_tuning_format(text, sizeof(text), cpu, &t) ...
 *
 * One cpu for all three: the forms measured are those it can run, and
 * the file is keyed to it, so the runtime takes the file exactly when
 * it sees that CPU (REPSTOS_CPU included) and never a measurement of
 * another.  In a program with the runtime's start-up, pass repstos_cpu().
 *
 * The measurement takes a few seconds and should run on an idle
 * machine; its figures are medians of interleaved repetitions.
 */
#ifndef REPSTOS_TUNE_H
#define REPSTOS_TUNE_H

#include <stdio.h>
#include "policy/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Measure this machine (about 1-3 s): the rep stosb thresholds of the
 * store loops, the cost of every form this CPU runs in every size class
 * (the table per-site choices are made from), and two routines: the
 * module routine every site of unknown size and use gets, and the read
 * routine a site of unknown size its function reads back gets.  Each
 * routine's cells are its ratio to glibc's memset in every shape (back
 * to back; the next call depending on the last byte written, the first,
 * every 8-byte word) on every published distribution
 * (patcher/dists/memset_dists.h), the worst of three placements, and
 * back to back at fixed sizes; the module routine is the best worst
 * cell over every shape, then the best geometric mean; the read routine
 * the same over the read shapes; the policy's routine kept within 5%
 * (pick.h).  Then the same for the copy routines and rep movsb in place
 * (the copy table), against glibc's memcpy and the published memcpy
 * distributions (patcher/dists/memcpy_dists.h).  The copy routines' rep
 * movsb and non-temporal thresholds stay the policy's.  Writes what it
 * measured, every cell, to `report` (may be NULL).
 * Fills *out (source "measured by repstos_tune").  Returns 0, or -1 if
 * it could not measure (no memory; or, a bug, more forms than its
 * tables hold).
 */
int repstos_tune(FILE *report, const struct repstos_cpu *cpu,
		 struct repstos_tuning *out);

/*
 * For a report: the cost table again with the last byte read back (each
 * call's destination depends on the last byte the call before wrote),
 * with *t's thresholds; repstos_tune_print_costs then prints it too.
 * Nothing in *t changes.  Returns 0, or -1 as repstos_tune does.
 */
int repstos_tune_use(FILE *report, const struct repstos_cpu *cpu,
		     const struct repstos_tuning *t);

/* The cost table of *t as a table of ns (and the one with use after
 * write, after repstos_tune_use), and whether the policy (rows.c) has a
 * row for cpu. */
void repstos_tune_print_costs(FILE *f, const struct repstos_cpu *cpu,
			      const struct repstos_tuning *t);

#ifdef __cplusplus
}
#endif
#endif
