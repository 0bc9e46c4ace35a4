/* SPDX-License-Identifier: MIT */
/*
 * tuning_out.h - what the programs of tests/policy that write a tuning
 * file of fixed tables share: writing it.
 */
#ifndef TESTS_POLICY_TUNING_OUT_H
#define TESTS_POLICY_TUNING_OUT_H

#include <stdio.h>
#include "policy/policy.h"

/* t for cpu, as a tuning file at path: 0, or 1 with the reason said. */
static inline int tuning_out(const char *path, const struct repstos_cpu *cpu,
			     const struct repstos_tuning *t)
{
	char text[REPSTOS_TUNING_MAX];
	FILE *f = fopen(path, "w");
	int n = repstos_tuning_format(text, sizeof(text), cpu, t);

	if (!f || n < 0 || fwrite(text, 1, (size_t)n, f) != (size_t)n || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

#endif
