/* SPDX-License-Identifier: MIT */
/*
 * corpus.h - the operations the plugin corpus exercises.  ops.c, fills.c
 * and helpers.c are compiled with the plugin; ref.c (reference byte loop
 * and the user helpers) and check.c (the harness) without it.
 *
 * Each call line in the plugin-compiled files carries a marker the test
 * script reads:  @site  a site at every -O level;  @big  a site except
 * where GCC inlines every constant memset (-Os);  @small  a site only at
 * -O0, where GCC expands no memset inline;  @alone  never a site.
 */
#ifndef CORPUS_H
#define CORPUS_H
#include <stddef.h>

#define NOIPA __attribute__((noipa))

typedef void *(*corpus_fn)(void *p, int c, size_t n);

struct corpus_op {
	const char *name;
	corpus_fn fn;
	int fill;		/* -1: uses c; else the byte it always writes */
	size_t fixed;		/* non-zero: always writes this many bytes */
	size_t max;		/* largest n it may be given (0: any) */
	int returns_p;		/* returns its destination */
};

/* Tables, NULL-terminated, one per plugin-compiled file. */
extern const struct corpus_op corpus_ops[], corpus_fills[], corpus_helpers[];

/* ref.c: the reference and the user helpers named on the command line
 * (-fplugin-arg-repstos-clear=my_zero,secure_wipe -...-memset=my_memset). */
void ref_fill(void *p, int c, size_t n);
void my_zero(void *p, size_t n);
void secure_wipe(void *p, size_t n);
void *my_memset(void *p, int c, size_t n);
void not_a_clear(void *p, size_t n);

#endif
