// SPDX-License-Identifier: MIT
/*
 * copysites.c - hand-written copy sites (REPSTOS_MEMCPY, REPSTOS_MEMMOVE
 * and REPSTOS_COPY_SITE_ASM for the kinds the macros do not write) in a
 * program linked with librepstos.a: they must copy right before and
 * after the start-up rewrote them, and say what they became:
 *   site OP KIND FORM ROUTINE
 * one line each (FORM stub, call or inline).  Exits 1 if a copy is
 * wrong, or if a move site holds rep movsb.  copysites.sh checks the
 * forms each REPSTOS_VARIANT gives.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "repstos.h"
#include "policy/sitecode.h"

/* A copy site of any op and size kind, as the plugin would write one. */
#define COPY_SITE(d, s, n, op, kind, min, max)				\
	__extension__ ({						\
		void *__d = (d);					\
		const void *__s = (s);					\
		unsigned long __n = (n);				\
		__asm__ __volatile__(REPSTOS_RED_ZONE_ENTER		\
			REPSTOS_COPY_SITE_ASM(op, kind, min, max)	\
			REPSTOS_RED_ZONE_LEAVE				\
			: "+D" (__d), "+S" (__s), "+c" (__n)		\
			: : "memory", "cc", REPSTOS_COPY_CLOBBERS	\
			REPSTOS_MACRO_VECTOR);				\
	})

static uint8_t buf[3][8192];
static int failures;

static void check(const char *what, const uint8_t *got, const uint8_t *want,
		  size_t n)
{
	if (memcmp(got, want, n)) {
		printf("FAIL %s: wrong bytes\n", what);
		failures++;
	}
}

static void fill(void)
{
	unsigned i;

	for (i = 0; i < sizeof(buf[0]); i++) {
		buf[0][i] = (uint8_t)(i * 7 + 1);
		buf[1][i] = 0;
	}
}

/* Every site once, at sizes that go through different paths. */
static void run_sites(size_t n)
{
	uint8_t *m = buf[2];

	fill();
	if (REPSTOS_MEMCPY(buf[1], buf[0], n) != buf[1])
		failures++, printf("FAIL memcpy's value\n");
	check("memcpy", buf[1], buf[0], n);

	/* moves both ways inside one buffer, 3 bytes apart */
	memcpy(m, buf[0], sizeof(buf[0]));
	if (REPSTOS_MEMMOVE(m + 3, m, n) != m + 3)
		failures++, printf("FAIL memmove's value\n");
	check("memmove up", m + 3, buf[0], n);
	memcpy(m, buf[0], sizeof(buf[0]));
	REPSTOS_MEMMOVE(m, m + 3, n);
	check("memmove down", m, buf[0] + 3, n);

	/* a move the compiler proved forwards-safe, a copy of known size */
	memcpy(m, buf[0], sizeof(buf[0]));
	COPY_SITE(m, m + 5, n, 5, 1, 0, 4096);
	check("move forwards", m, buf[0] + 5, n);
	fill();
	COPY_SITE(buf[1], buf[0], 4096, 3, 2, 4096, 4096);
	check("copy of 4096", buf[1], buf[0], 4096);
}

static const char *const op_names[] = {
	[REPSTOS_OP_COPY] = "copy", [REPSTOS_OP_MOVE] = "move",
	[REPSTOS_OP_MOVE_FWD] = "move_fwd",
};
static const char *const kind_names[] = { "unknown", "bounded", "const" };

static void report(void)
{
	const struct repstos_site *e;

	for (e = repstos_sites_begin(); e < repstos_sites_end(); e++) {
		uintptr_t at = repstos_site_addr(e);
		uint64_t target = 0;
		enum repstos_form f;
		const char *form = "bad", *name = "-";
		int v;

		if (!repstos_op_is_copy(e->op))
			continue;
		f = repstos_decode((const uint8_t *)at, e->len, at, e->op, &target);
		if (f == REPSTOS_FORM_INLINE) {
			form = "inline";
			if (e->op == REPSTOS_OP_MOVE) {
				printf("FAIL a move site holds rep movsb\n");
				failures++;
			}
		} else if (f == REPSTOS_FORM_CALL &&
			   target == (uintptr_t)__repstos_copy_stub) {
			form = "stub";
		} else if (f == REPSTOS_FORM_CALL) {
			form = "call";
			v = repstos_copy_variant_by_routine((void *)(uintptr_t)target);
			name = v < 0 ? "?" : repstos_copy_variant_name(v);
		}
		printf("site %s %s %s %s\n", op_names[e->op],
		       kind_names[repstos_site_kind(e) % 3], form, name);
	}
}

int main(void)
{
	static const size_t sizes[] = { 0, 1, 3, 17, 100, 300, 1000, 4096 };
	unsigned i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		run_sites(sizes[i]);
	report();
	printf("copy module routine %s\n",
	       repstos_copy_variant_name(repstos_copy_variant()));
	return failures ? 1 : 0;
}
