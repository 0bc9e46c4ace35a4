// SPDX-License-Identifier: MIT
/*
 * harden.c - what the runtime decided, for the hardening tests
 * (secure.sh and the others of issue 10).  One hand-written site.
 *
 *   harden status          one line: secure=, status=, variant=, ...;
 *                          ran= tells which routine a site ran, from
 *                          what it left in zmm0 (on a CPU with AVX-512)
 *   harden tuning FILE     write a tuning file for this CPU that picks
 *                          "original" (no policy row does), to tell
 *                          whether the runtime read it
 *   harden relro           status, then whether the dispatch pointer is
 *                          read-only and right (rocheck.h)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include "repstos.h"
#include "policy/policy.h"
#include "rocheck.h"

__attribute__((noinline)) static int site_ok(void)
{
	unsigned char b[64];

	memset(b, 0, sizeof(b));
	REPSTOS_MEMSET(b + 1, 0x5a, 62);
	return b[0] == 0 && b[1] == 0x5a && b[62] == 0x5a && b[63] == 0;
}

/*
 * Which kind of routine the site below runs, from what it does to zmm0
 * and zmm16 (which it may clobber: zmm16 under the vector-state rule,
 * and this unit, built without AVX-512, keeps nothing there): 64 bytes
 * of 0xee go into each, a 100-byte memset of 0x11 runs, and then
 * "avx512" has left 0x11 in all of zmm16 (its fill), "avx2" 0x11 in the
 * low 16 bytes of zmm0 and zeros above (its vzeroupper), "vec" 0x11 in
 * the low 16 and 0xee above (legacy SSE keeps it), the other routines
 * 0xee in both.  So a file patched to call "avx512" shows whether the
 * routine ran or fell back, on a CPU that has AVX-512.
 */
static const char *ran(int *ok)
{
	unsigned char in[64], out[64], out16[64], b[128];
	void *d = b;
	unsigned long n = 100, a = 0x11;
	int i, lo, zero;

	if (!__builtin_cpu_supports("avx512f"))
		return "unknown";
	memset(in, 0xee, sizeof(in));
	memset(b, 0, sizeof(b));
	__asm__ __volatile__("vmovdqu64 %[in], %%zmm0\n\t"
			     "vmovdqu64 %[in], %%zmm16\n\t"
			     REPSTOS_RED_ZONE_ENTER
			     REPSTOS_SITE_ASM(0, 0, 0, 0xffffffff)
			     REPSTOS_RED_ZONE_LEAVE "\n\t"
			     "vmovdqu64 %%zmm0, %[out]\n\t"
			     "vmovdqu64 %%zmm16, %[out16]"
			     : "+D"(d), "+c"(n), "+a"(a), [out] "=m"(out),
			       [out16] "=m"(out16)
			     : [in] "m"(in)
			     : "memory", "cc", "xmm0");
	for (i = 0; i < 128; i++)
		*ok &= b[i] == (i < 100 ? 0x11 : 0);
	lo = out[0] == 0x11 && out[15] == 0x11;
	zero = !out[16] && !out[31] && !out[32] && !out[63];
	if (out16[0] == 0x11 && out16[63] == 0x11)
		return "avx512";
	if (lo && zero)
		return "avx2";
	if (lo && out[16] == 0xee && out[63] == 0xee)
		return "vec";
	return out[0] == 0xee ? "gpr" : "?";
}

static int status(void)
{
	const struct repstos_stats *st = repstos_stats();
	const char *method = st->method && *st->method ? st->method : "-";
	int ok = site_ok();
	const char *kind = ran(&ok);

	printf("secure=%lu status=%u variant=%s features=%#x method=%s "
	       "patched=%u sites=%u ran=%s site=%s tuning=%s\n",
	       getauxval(AT_SECURE), st->status,
	       repstos_variant_name(repstos_variant()),
	       repstos_cpu()->features, method, st->patched, st->sites, kind,
	       ok ? "ok" : "WRONG", st->tuning);
	return ok ? 0 : 1;
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

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "status"))
		return status();
	if (argc == 2 && !strcmp(argv[1], "relro"))
		return status() | !rocheck_target(stdout);
	if (argc == 3 && !strcmp(argv[1], "tuning"))
		return tuning(argv[2]);
	fprintf(stderr, "usage: harden status | relro | tuning FILE\n");
	return 2;
}
