/* SPDX-License-Identifier: MIT */
/*
 * tune.h - measure the routines on this machine and write the tuning
 * file the runtime reads at start-up (REPSTOS_TUNING, default
 * /etc/repstos/tuning).  For `repstos tune` and tests/perf/tune-main.c;
 * it is in librepstos.a but nothing in the start-up path refers to it,
 * so a program links it only if it calls it.
 *
 *   struct repstos_tuning t;
 *   if (repstos_tune(stderr, &t) == 0)
 *           repstos_tune_write("/etc/repstos/tuning", &t);
 *
 * The measurement takes about a second and should run on an idle
 * machine; its figures are medians of interleaved repetitions.
 */
#ifndef REPSTOS_TUNE_H
#define REPSTOS_TUNE_H

#include <stdio.h>
#include "policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Time the module-wide candidates this CPU supports ("vec", "avx2",
 * "avx512") on a small-size mix and on fixed small sizes, pick the
 * fastest on the mix unless it loses a fixed size by more than 5% to
 * another, then find from which size rep stosb beats the chosen routine's
 * store loop (its rep threshold) and beats a call to it (inline_min).
 * Writes what it measured, one line each, to `report` (may be NULL).
 * Fills *out (source "measured by repstos_tune").  Returns 0, or -1 if
 * it could not measure (no memory).
 */
int repstos_tune(FILE *report, struct repstos_tuning *out);

/* Write *t as the tuning file for this CPU at path, atomically (a
 * temporary file renamed).  Returns 0, or -1 with errno set. */
int repstos_tune_write(const char *path, const struct repstos_tuning *t);

#ifdef __cplusplus
}
#endif
#endif
