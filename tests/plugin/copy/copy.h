/* SPDX-License-Identifier: MIT */
/*
 * copy.h - the copy operations the plugin's copy corpus exercises
 * (tests/plugin/copy.sh).  ops.c is compiled with the plugin and
 * -fplugin-arg-repstos-copy; ref.c (the reference byte loops) and
 * check.c (the harness) without it.  Markers on the call lines as in
 * tests/plugin/corpus: @site every level, @big all but -Os, @small only
 * at -O0, @alone never.
 */
#ifndef COPY_H
#define COPY_H
#include <stddef.h>

#define NOIPA __attribute__((noipa))

typedef void *(*copy_fn)(void *d, const void *s, size_t n);

enum copy_kind {
	K_COPY,		/* fn(d, s, n): d and s never overlap */
	K_MOVE,		/* fn(d, s, n): any overlap, both directions */
	K_DOWN4,	/* fn(p, -, n): memmove(p, p + 4, n) */
	K_UP4,		/* fn(p, -, n): memmove(p + 4, p, n) */
};

enum copy_ret { R_DST, R_END };	/* returns the destination / its end */

struct copy_op {
	const char *name;
	copy_fn fn;
	enum copy_kind kind;
	size_t fixed;		/* non-zero: always copies this many bytes */
	size_t max;		/* largest n it takes (0: any) */
	enum copy_ret ret;
	int op;			/* REPSTOS_OP_* its site must have, -1: none */
};

extern const struct copy_op copy_ops[];

/* ref.c: a byte-loop memmove and a user helper pair. */
void *ref_move(void *d, const void *s, size_t n);
void *my_copy(void *d, const void *s, size_t n);
void *my_move(void *d, const void *s, size_t n);

#endif
