// SPDX-License-Identifier: MIT
/*
 * dlopen_main.c - an executable with sites loads a shared object with
 * sites: each module is patched by its own runtime copy, the object's at
 * dlopen() time, and both are correct.
 */
#include <dlfcn.h>
#include "semcheck.h"
#include "sitecheck.h"

int main(int argc, char **argv)
{
	int (*dso_check)(unsigned *);
	unsigned long calls, bad;
	unsigned dso_sites = 0, bad_forms;
	const int patching = !getenv("REPSTOS_PATCH") || strcmp(getenv("REPSTOS_PATCH"), "0");
	void *h;
	int dso_bad;

	if (argc < 2)
		return 2;
	bad_forms = sitecheck_forms(stdout);
	bad = semcheck_run(1, &calls);
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	dso_check = (int (*)(unsigned *))dlsym(h, "dso_check");
	if (!dso_check)
		return 1;
	dso_bad = dso_check(&dso_sites);
	printf("exe: %u sites patched, %lu calls, %lu mismatches; dso: %u "
	       "patched, %d failures\n", repstos_stats()->patched, calls, bad,
	       dso_sites, dso_bad);
	if (patching && (!repstos_stats()->patched || !dso_sites)) {
		printf("FAIL: a module was not patched\n");
		return 1;
	}
	return bad || bad_forms || dso_bad ? 1 : 0;
}
