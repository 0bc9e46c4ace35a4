// SPDX-License-Identifier: MIT
/*
 * probe.c - what the runtime did at start-up, for the tests of issue 25
 * (tests/policy/writer.sh, tuning.sh, lost.sh; tests/runtime/rie.sh).  Three
 * hand-written sites, linked with librepstos.a.
 *
 *   probe status      one line of KEY=VALUE: the module's status, sites
 *                     patched and how, the tuning's source, the
 *                     thresholds the routines read, and site=ok when
 *                     every site stored the right bytes
 *   probe maps [LIB]  status, then the protections of the page of the
 *                     stub's byte (runtime/module/dispatch.S), whether
 *                     the stub jumps straight to a routine or through
 *                     its fallback (which reads the byte), and how many
 *                     mappings are writable and executable at once;
 *                     with LIB, the same for the byte and the stub of
 *                     LIB (tests/runtime/cyclelib.c), dlopen()ed now
 *   probe tuning FILE  write a tuning file for this CPU, the policy's
 *                     numbers with the module routine "original", which
 *                     no policy row picks
 *
 * PROBE_RIE=1 sets READ_IMPLIES_EXEC from .preinit_array, before any
 * constructor: from then on a mapping or protection change asking for
 * read access gets exec too.  (A new program would not keep it: execve
 * clears it for 64-bit programs on x86-64.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>
#include "policy/policy.h"
#include "repstos.h"
#include "routines/routines.h"
#include "module/module.h"

/* From envp: environ may not be set yet. */
static const char *env(char **envp, const char *name)
{
	size_t n = strlen(name);

	for (; *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

static void rie(int argc, char **argv, char **envp)
{
	const char *how = env(envp, "PROBE_RIE");
	int p = personality(0xffffffff);

	if (!how || p < 0 || (p & READ_IMPLIES_EXEC))
		return;
	if (strcmp(how, "1"))
		return;
	personality((unsigned long)p | READ_IMPLIES_EXEC);
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit)(int, char **, char **) = rie;

__attribute__((noinline)) static int sites_ok(void)
{
	unsigned char b[300];
	volatile size_t n = 200;
	size_t i;
	int ok = 1;

	memset(b, 0xee, sizeof(b));
	REPSTOS_MEMSET(b, 0x5a, 10);
	REPSTOS_MEMSET(b + 10, 0x33, n);
	REPSTOS_BZERO(b + 210, 50);
	for (i = 0; i < sizeof(b); i++)
		ok &= b[i] == (i < 10 ? 0x5a : i < 210 ? 0x33 : i < 260 ? 0 : 0xee);
	return ok;
}

static int status(void)
{
	const struct repstos_stats *st = repstos_stats();
	int ok = sites_ok();

	printf("status=%u patched=%u sites=%u method=%s tuning=%s "
	       "variant=%s vec_rep_min=%llu wide_rep_min=%llu "
	       "short_rep_max=%llu personality=%#x site=%s\n", st->status,
	       st->patched, st->sites, *st->method ? st->method : "-",
	       st->tuning, repstos_variant_name(repstos_variant()),
	       __repstos_vec_rep_min, __repstos_wide_rep_min,
	       __repstos_short_rep_max, personality(0xffffffff),
	       ok ? "ok" : "WRONG");
	return !ok;
}

static int tuning(const char *path)
{
	struct repstos_cpu cpu;
	struct repstos_tuning t;
	char text[REPSTOS_TUNING_MAX];
	FILE *f;

	repstos_cpu_detect(&cpu);
	repstos_policy_tuning(&cpu, &t);
	t.fam[REPSTOS_FAMILY_SET].variant = REPSTOS_VARIANT_ORIGINAL;
	f = fopen(path, "w");
	if (!f || repstos_tuning_format(text, sizeof(text), &cpu, &t) < 0 ||
	    fputs(text, f) < 0 || fclose(f))
		return 1;
	return 0;
}

/* "WHAT=PERM wx=N": the protections of the mapping holding page, and
 * the mappings both writable and executable, from /proc/self/maps. */
static int maps(const char *what, const void *page)
{
	char line[512], perm[8], found[8] = "?";
	unsigned long lo, hi;
	unsigned wx = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) != 3)
			continue;
		if ((uintptr_t)page >= lo && (uintptr_t)page < hi)
			strcpy(found, perm);
		wx += perm[1] == 'w' && perm[2] == 'x';
	}
	if (f)
		fclose(f);
	printf("%s=%s wx=%u\n", what, found, wx);
	return !f;
}

/* "WHAT=direct" where the set stub at stub jumps straight to a routine
 * (its jump rewritten), "WHAT=fallback" where it goes to its fallback,
 * which reads the byte. */
static void stub_state(const char *what, const void *stub)
{
	const unsigned char *j = (const unsigned char *)stub + REPSTOS_STUB_JUMP_AT;
	int32_t rel;

	memcpy(&rel, j + 1, sizeof(rel));
	printf("%s=%s\n", what, j[0] != 0xe9 ? "?" : rel ? "direct" : "fallback");
}

/* The same of a library dlopen()ed now. */
static int lib_maps(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	void *(*page)(void) = h ? (void *(*)(void))dlsym(h, "cycle_dispatch_page") : NULL;
	void *(*stub)(void) = h ? (void *(*)(void))dlsym(h, "cycle_stub") : NULL;

	if (!page || !stub) {
		printf("dlopen %s: %s\n", lib, dlerror());
		return 1;
	}
	stub_state("lib_stub", stub());
	return maps("lib", page());
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "status"))
		return status();
	if (argc >= 2 && argc <= 3 && !strcmp(argv[1], "maps"))
		return status() | (stub_state("stub", (void *)REPSTOS_STUB_SYMBOL), 0) |
		       maps("dispatch", &__repstos_set_choice) |
		       (argc == 3 && lib_maps(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "tuning"))
		return tuning(argv[2]);
	fprintf(stderr, "usage: probe status | maps [LIB] | tuning FILE\n");
	return 2;
}
