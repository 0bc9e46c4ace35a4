// SPDX-License-Identifier: MIT
/*
 * failalloc.c - LD_PRELOAD for tests/policy/lost.sh: malloc, calloc
 * and realloc called from the executable's own code (where librepstos.a
 * is linked) fail as FAILALLOC says; everyone else's succeed.
 *
 *   FAILALLOC=all   every allocation the executable asks for fails
 *   FAILALLOC=N     those of more than N bytes fail
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

/* The executable's code, from its program headers. */
static uintptr_t lo, hi;

static void find_exe(void)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	size_t i, n = getauxval(AT_PHNUM);
	uintptr_t bias = 0;

	for (i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (uintptr_t)ph - ph[i].p_vaddr;
	for (i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			lo = bias + ph[i].p_vaddr;
			hi = lo + ph[i].p_memsz;
		}
}

/* Should an allocation of n bytes for the code at ret fail? */
static int fails(const void *ret, size_t n)
{
	const char *how = getenv("FAILALLOC");

	if (!how)
		return 0;
	if (!hi)
		find_exe();
	if ((uintptr_t)ret < lo || (uintptr_t)ret >= hi)
		return 0;
	if (strcmp(how, "all") && n <= strtoul(how, NULL, 10))
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fails(__builtin_return_address(0), n) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fails(__builtin_return_address(0), n * size) ? NULL :
		__libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fails(__builtin_return_address(0), n) ? NULL :
		__libc_realloc(p, n);
}
