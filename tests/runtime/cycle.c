// SPDX-License-Identifier: MIT
/*
 * cycle.c - load a shared object, call its sites, unload it, N times
 * over (tests/runtime/cycles.sh).
 *
 *   cycle N LIB...     for each LIB: N cycles after a few to warm up,
 *                      then one line "LIB rss KB heap BYTES": how much
 *                      the resident set and the heap in use grew
 *
 * Built without the runtime, so that whatever stays behind is the
 * object's (and the runtime it brings) and nothing of this program's.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM 50

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/* One cycle; 0, or 1 after saying what failed. */
static int once(const char *lib, unsigned i)
{
	int (*touch)(unsigned);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	touch = (int (*)(unsigned))dlsym(h, "cycle_touch");
	if (!touch || touch(i) || touch(i * 7 + 3)) {
		fprintf(stderr, "%s: cycle_touch %s\n", lib,
			touch ? "stored wrong bytes" : "missing");
		dlclose(h);
		return 1;
	}
	return dlclose(h) != 0;
}

static int cycles(const char *lib, unsigned n)
{
	long rss;
	size_t heap;
	unsigned i;

	for (i = 0; i < WARM; i++)
		if (once(lib, i))
			return 1;
	rss = rss_kb();
	heap = mallinfo2().uordblks;
	for (i = 0; i < n; i++)
		if (once(lib, i))
			return 1;
	printf("%s rss %ld heap %lld\n", lib, rss_kb() - rss,
	       (long long)mallinfo2().uordblks - (long long)heap);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 0;
	int i;

	if (argc < 3 || !n) {
		fprintf(stderr, "usage: cycle N LIB...\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		if (cycles(argv[i], n))
			return 1;
	return 0;
}
