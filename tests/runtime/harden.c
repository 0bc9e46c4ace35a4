// SPDX-License-Identifier: MIT
/*
 * harden.c - what the runtime decided, for the hardening tests
 * (secure.sh and the others of issue 10).  One hand-written site.
 *
 *   harden status          one line: secure=, status=, variant=, ...
 *   harden tuning FILE     write a tuning file for this CPU that picks
 *                          "original" (no policy row does), to tell
 *                          whether the runtime read it
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include "repstos.h"
#include "policy.h"

__attribute__((noinline)) static int site_ok(void)
{
	unsigned char b[64];

	memset(b, 0, sizeof(b));
	REPSTOS_MEMSET(b + 1, 0x5a, 62);
	return b[0] == 0 && b[1] == 0x5a && b[62] == 0x5a && b[63] == 0;
}

static int status(void)
{
	const struct repstos_stats *st = repstos_stats();
	const char *method = st->method && *st->method ? st->method : "-";

	printf("secure=%lu status=%u variant=%s features=%#x method=%s "
	       "patched=%u sites=%u site=%s tuning=%s\n", getauxval(AT_SECURE),
	       st->status, repstos_variant_name(repstos_variant()),
	       repstos_cpu()->features, method, st->patched, st->sites,
	       site_ok() ? "ok" : "WRONG", st->tuning);
	return site_ok() ? 0 : 1;
}

static int tuning(const char *path)
{
	struct repstos_cpu cpu;
	struct repstos_tuning t;
	char text[512];
	FILE *f;

	repstos_cpu_detect(&cpu);
	repstos_policy_tuning(&cpu, &t);
	t.variant = REPSTOS_VARIANT_ORIGINAL;
	f = fopen(path, "w");
	if (!f || repstos_tuning_format(text, sizeof(text), &cpu, &t) < 0 ||
	    fputs(text, f) < 0 || fclose(f))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "status"))
		return status();
	if (argc == 3 && !strcmp(argv[1], "tuning"))
		return tuning(argv[2]);
	fprintf(stderr, "usage: harden status | tuning FILE\n");
	return 2;
}
