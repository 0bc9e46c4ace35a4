// SPDX-License-Identifier: MIT
/*
 * tune-main.c - the tuning step on its own (the CLI's `repstos tune`
 * will call the same runtime/tune.h API):
 *   tune [FILE]   measure, print the figures, write FILE if given
 *                 (the runtime reads $REPSTOS_TUNING, default
 *                 /etc/repstos/tuning)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "tune.h"

int main(int argc, char **argv)
{
	/* The runtime linked here saw this CPU (REPSTOS_CPU included). */
	const struct repstos_cpu *cpu = repstos_cpu();
	struct repstos_tuning t;
	char text[REPSTOS_TUNING_MAX];

	if (repstos_tune(stdout, cpu, &t)) {
		fprintf(stderr, "tune: cannot measure\n");
		return 1;
	}
	repstos_tune_print_costs(stdout, cpu, &t);
	repstos_tuning_format(text, sizeof(text), cpu, &t);
	fputs(text, stdout);
	if (argc > 1 && repstos_tune_write(argv[1], cpu, &t)) {
		fprintf(stderr, "tune: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
