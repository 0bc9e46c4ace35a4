// SPDX-License-Identifier: MIT
/*
 * vector.c - vector values live across sites in code built with AVX
 * (-mavx2) or AVX-512 (-mavx512f): the vector-state rule of
 * include/repstos_site.h.  The routines may change ymm0-15's upper
 * halves (vzeroupper) and xmm16-31, so the plugin declares those
 * registers clobbered here, and each function below keeps NV vectors
 * (more than 16 with AVX-512, so some live in zmm16-31) across its site.
 *
 * narrow() is a site of the narrow entry version, as an older plugin
 * wrote it: it declares xmm0 only, so the runtime must give it a form
 * that keeps every other vector register whole.  Built with -DCONTROL
 * the same site claims the current version, and a routine that uses the
 * rule (avx2, avx512) corrupts its vectors: the check can fail.
 * wide_bounded() and narrow_bounded() are two hand-written sites of the
 * same proven size range, current and narrow, in that order in the
 * table: the start-up answers a range once per family and must not hand
 * the first's form to the second.
 *
 *   vector         prints "ok" when every function's vectors and bytes
 *                  came through
 *   vector forms   prints each table entry's version, size kind and the
 *                  form it holds now, in table order
 */
#include <immintrin.h>
#include <stdio.h>
#include <string.h>
#include "repstos.h"
#include "sitecheck.h"		/* tests/runtime: what a site holds */

#ifdef __AVX512F__
typedef __m512i vec;
#define NV 28
#else
typedef __m256i vec;
#define NV 14
#endif

#ifdef CONTROL
#define NARROW_VERSION REPSTOS_SITE_VERSION
#else
#define NARROW_VERSION REPSTOS_SITE_VERSION_NARROW
#endif

static vec in[NV];
static unsigned char buf[2][8192];
static volatile size_t sizes[] = { 40, 100, 300, 700, 5000 };

/* Load NV vectors, run stmt, fold the vectors: they are live across it. */
#define ACROSS(stmt)							\
	vec v0 = in[0], v1 = in[1], v2 = in[2], v3 = in[3], v4 = in[4];	\
	vec v5 = in[5], v6 = in[6], v7 = in[7], v8 = in[8], v9 = in[9];	\
	vec v10 = in[10], v11 = in[11], v12 = in[12], v13 = in[13];	\
	MORE_LOADS							\
	stmt;								\
	out[0] = v0, out[1] = v1, out[2] = v2, out[3] = v3;		\
	out[4] = v4, out[5] = v5, out[6] = v6, out[7] = v7;		\
	out[8] = v8, out[9] = v9, out[10] = v10, out[11] = v11;		\
	out[12] = v12, out[13] = v13;					\
	MORE_STORES

#if NV > 14
#define MORE_LOADS							\
	vec v14 = in[14], v15 = in[15], v16 = in[16], v17 = in[17];	\
	vec v18 = in[18], v19 = in[19], v20 = in[20], v21 = in[21];	\
	vec v22 = in[22], v23 = in[23], v24 = in[24], v25 = in[25];	\
	vec v26 = in[26], v27 = in[27];
#define MORE_STORES							\
	out[14] = v14, out[15] = v15, out[16] = v16, out[17] = v17;	\
	out[18] = v18, out[19] = v19, out[20] = v20, out[21] = v21;	\
	out[22] = v22, out[23] = v23, out[24] = v24, out[25] = v25;	\
	out[26] = v26, out[27] = v27;
#else
#define MORE_LOADS
#define MORE_STORES
#endif

/* out is written only after the site, and in may alias p: the loads
 * stay above it, the values in registers across it. */
__attribute__((noinline)) static void set(void *p, size_t n, vec *out)
{
	ACROSS(memset(p, 0x5a, n));
}

__attribute__((noinline)) static void copy(void *d, const void *s, size_t n,
					   vec *out)
{
	ACROSS(memcpy(d, s, n));
}

/* The size kinds as numbers, which the asm text needs (the enum's
 * names are C only). */
#define KIND_UNKNOWN	0
#define KIND_BOUNDED	1
_Static_assert(KIND_UNKNOWN == REPSTOS_SIZE_UNKNOWN &&
	       KIND_BOUNDED == REPSTOS_SIZE_BOUNDED, "size kinds");

/* A hand-written memset site of entry version `version`, size kind and
 * range, filling n bytes at p with 0x5a, declaring xmm0 and `more`. */
#define HAND_SITE(version, kind, min, max, more...)			\
	do {								\
		void *d = p;						\
		unsigned long a = 0x5a;					\
									\
		__asm__ __volatile__(REPSTOS_RED_ZONE_ENTER		\
			".hidden " REPSTOS_STR(REPSTOS_STUB_SYMBOL) "\n\t" \
			".Lhand%=: call " REPSTOS_STR(REPSTOS_STUB_SYMBOL) "\n\t" \
			REPSTOS_STR(REPSTOS_ENTRY(.Lhand%=, version, 0,	\
						  kind, min, max))	\
			REPSTOS_RED_ZONE_LEAVE				\
			: "+D" (d), "+c" (n), "+a" (a)			\
			: : "memory", "cc", "xmm0" more);		\
	} while (0)

__attribute__((noinline)) static void narrow(void *p, size_t n, vec *out)
{
	ACROSS(HAND_SITE(NARROW_VERSION, KIND_UNKNOWN, 0, 0xffffffff));
}

/* 40..5000 bytes, the sizes main() uses.  (GCC emits these two in
 * the opposite order, which puts wide_bounded's entry first.) */
__attribute__((noinline)) static void narrow_bounded(void *p, size_t n,
						     vec *out)
{
	ACROSS(HAND_SITE(NARROW_VERSION, KIND_BOUNDED, 40, 5000));
}

__attribute__((noinline)) static void wide_bounded(void *p, size_t n,
						   vec *out)
{
	ACROSS(HAND_SITE(REPSTOS_SITE_VERSION, KIND_BOUNDED, 40, 5000,
			 REPSTOS_MACRO_VECTOR));
}

static void print_forms(void)
{
	const struct repstos_site *e;

	for (e = repstos_sites_begin(); e < repstos_sites_end(); e++)
		printf("%u %u %s\n", e->version, repstos_site_kind(e), sitecheck_form(e));
}

static int check(const char *who, size_t n, const vec *out,
		 const unsigned char *bytes, int fill)
{
	size_t i;

	if (memcmp(out, in, sizeof(in))) {
		printf("%s %zu: vectors changed across the site\n", who, n);
		return 1;
	}
	for (i = 0; i < n; i++)
		if (bytes[i] != (fill < 0 ? buf[1][i] : fill)) {
			printf("%s %zu: byte %zu wrong\n", who, n, i);
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	static vec out[NV];
	unsigned char *b = (unsigned char *)in;
	size_t i, k;
	int bad = 0;

	if (argc > 1 && !strcmp(argv[1], "forms")) {
		print_forms();
		return 0;
	}
	for (i = 0; i < sizeof(in); i++)
		b[i] = (unsigned char)(i * 7 + 1);
	for (i = 0; i < sizeof(buf[1]); i++)
		buf[1][i] = (unsigned char)(i * 13 + 3);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];

		memset(out, 0, sizeof(out));
		set(buf[0], n, out);
		bad |= check("memset", n, out, buf[0], 0x5a);
		memset(out, 0, sizeof(out));
		copy(buf[0], buf[1], n, out);
		bad |= check("memcpy", n, out, buf[0], -1);
		memset(out, 0, sizeof(out));
		narrow(buf[0], n, out);
		bad |= check("narrow site", n, out, buf[0], 0x5a);
		memset(out, 0, sizeof(out));
		wide_bounded(buf[0], n, out);
		bad |= check("bounded site", n, out, buf[0], 0x5a);
		memset(out, 0, sizeof(out));
		narrow_bounded(buf[0], n, out);
		bad |= check("bounded narrow site", n, out, buf[0], 0x5a);
	}
	if (!bad)
		puts("ok");
	return bad;
}
