// SPDX-License-Identifier: MIT
/*
 * plaincheck.c - the benchmark-only routines of plain.S and plaincopy.S
 * against a byte loop, so that what bench and copybench time of them is
 * a correct memset or memmove.  The memsets: sizes
 * 0..520 (past 512, where the last of them leave for a routine), the destination at each offset 0..63 after a page start and
 * with its end at each distance 0..70 before a PROT_NONE page (a store
 * past the end faults), fills 0, 0x5a and 0xff; every byte of the
 * destination and 64 on each side, and rdi, rcx and rax as the contract
 * says.  The copy: sizes 0..300, source and destination each at offsets
 * 0..63 and with their ends against the PROT_NONE page, and as a move
 * every distance -80..80 between them; the destination, 64 bytes on each
 * side, the source unchanged, and rdi, rsi, rcx.  From 64 bytes, where each runs avx512_split, enabled as a
 * module's constructor enables it.  Run by smoke.sh where the CPU has what the routines need
 * (exit 2 otherwise: not run).  Exits 1 on the first wrong byte or
 * register, naming the case, or when a path of the routines
 * (path_mark) was never taken; prints how many cases took each.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "repstos.h"
#include "policy/policy.h"
#include "repstos_site.h"
#include "routines/routines.h"

#define PAGE 4096ul
#define SIDE 64ul
#define SET_MAX 640ul	/* the memsets' largest size: E at every place
			   in a line for big_m's 513 up */

#define ROUTINE(sym)							\
static int call_##sym(unsigned char *d, int c, unsigned long n)	\
{									\
	unsigned char *d0 = d;						\
	unsigned long a = (unsigned char)c, n0 = n;			\
									\
	__asm__ __volatile__("call " #sym				\
			     : "+D"(d), "+c"(n), "+a"(a)		\
			     : : "memory", "cc", REPSTOS_SITE_CLOBBERS);	\
	return d == d0 + n0 && n == 0 && a == (unsigned char)c;	\
}
ROUTINE(__bench_plain_ladder)
ROUTINE(__bench_plain_four)
ROUTINE(__bench_plain_mask16)
ROUTINE(__bench_plain_over)
ROUTINE(__bench_plain_redir)
ROUTINE(__bench_wide)
ROUTINE(__bench_wide_y)
ROUTINE(__bench_rz)
ROUTINE(__bench_rza)
ROUTINE(__bench_split_c)
ROUTINE(__bench_split_wy)
ROUTINE(__bench_split_e8)
ROUTINE(__bench_s0_b)
ROUTINE(__bench_s0_8b)
ROUTINE(__bench_s0_e)
ROUTINE(__bench_s0_c)
ROUTINE(__bench_s0_f)
ROUTINE(__bench_s0_w)
ROUTINE(__bench_tail_plain)
ROUTINE(__bench_tail_branch)
ROUTINE(__bench_mis16)
ROUTINE(__bench_mis64)
ROUTINE(__bench_mis64_m)
ROUTINE(__bench_mis64_y)
ROUTINE(__bench_tail_y)
ROUTINE(__bench_tail_m)
ROUTINE(__bench_tail_yc)
ROUTINE(__bench_big_m)
ROUTINE(__bench_a512_m)

#define COPY_ROUTINE(name)						\
static int call_copy_##name(unsigned char *d, const unsigned char *s,	\
			    unsigned long n)				\
{									\
	unsigned char *d0 = d;						\
	const unsigned char *s0 = s;					\
	unsigned long n0 = n;						\
									\
	__asm__ __volatile__("call __bench_copy_" #name			\
			     : "+D"(d), "+S"(s), "+c"(n)		\
			     : : "memory", "cc", REPSTOS_COPY_CLOBBERS);\
	return d == d0 + n0 && s == s0 + n0 && n == 0;			\
}
COPY_ROUTINE(mask16)
COPY_ROUTINE(fwd8)
COPY_ROUTINE(fwd8b)
COPY_ROUTINE(fwd16b)

static const struct {
	const char *name;
	int (*call)(unsigned char *, const unsigned char *, unsigned long);
} copy_routines[] = {
	{ "copy_mask16", call_copy_mask16 },
	{ "copy_fwd8", call_copy_fwd8 },
	{ "copy_fwd8b", call_copy_fwd8b },
	{ "copy_fwd16b", call_copy_fwd16b },
};

static const struct {
	const char *name;
	int (*call)(unsigned char *, int, unsigned long);
} routines[] = {
	{ "plain_ladder", call___bench_plain_ladder },
	{ "plain_four", call___bench_plain_four },
	{ "plain_mask16", call___bench_plain_mask16 },
	{ "plain_over", call___bench_plain_over },
	{ "plain_redir", call___bench_plain_redir },
	{ "wide", call___bench_wide },
	{ "wide_y", call___bench_wide_y },
	{ "rz", call___bench_rz },
	{ "rza", call___bench_rza },
	{ "split_c", call___bench_split_c },
	{ "split_wy", call___bench_split_wy },
	{ "split_e8", call___bench_split_e8 },
	{ "s0_b", call___bench_s0_b },
	{ "s0_8b", call___bench_s0_8b },
	{ "s0_e", call___bench_s0_e },
	{ "s0_c", call___bench_s0_c },
	{ "s0_f", call___bench_s0_f },
	{ "s0_w", call___bench_s0_w },
	{ "tail_plain", call___bench_tail_plain },
	{ "tail_branch", call___bench_tail_branch },
	{ "mis16", call___bench_mis16 },
	{ "mis64", call___bench_mis64 },
	{ "mis64_m", call___bench_mis64_m },
	{ "mis64_y", call___bench_mis64_y },
	{ "tail_y", call___bench_tail_y },
	{ "tail_m", call___bench_tail_m },
	{ "tail_yc", call___bench_tail_yc },
	{ "big_m", call___bench_big_m },
	{ "a512_m", call___bench_a512_m },
};

/* One case: d[0..n) must become c, SIDE bytes each side stay ~c. */
static int one(unsigned r, unsigned char *d, int c, unsigned long n,
	       unsigned long after)
{
	unsigned char keep = (unsigned char)~c;
	unsigned long k;

	memset(d - SIDE, keep, SIDE + n + after);
	if (!routines[r].call(d, c, n)) {
		printf("%s: size %lu at %p: registers not as the contract says\n",
		       routines[r].name, n, (void *)d);
		return 1;
	}
	for (k = 0; k < SIDE + n + after; k++) {
		unsigned char want = k >= SIDE && k < SIDE + n ? (unsigned char)c : keep;

		if (d[k - SIDE] != want) {
			printf("%s: size %lu fill 0x%02x at offset %lu: byte %ld "
			       "is 0x%02x, not 0x%02x\n", routines[r].name, n,
			       (unsigned char)c, (unsigned long)d & (PAGE - 1),
			       (long)k - (long)SIDE, d[k - SIDE], want);
			return 1;
		}
	}
	return 0;
}

/* A move of n bytes from s to d inside [lo, hi): what a byte loop
 * through a copy of the region leaves there, every byte compared. */
static int one_move(unsigned r, unsigned char *lo, unsigned long len,
		    unsigned char *d, const unsigned char *s, unsigned long n)
{
	static unsigned char want[3 * PAGE];
	unsigned long k;

	for (k = 0; k < len; k++)
		lo[k] = (unsigned char)(k * 7 + 3);
	memcpy(want, lo, len);
	memmove(want + (d - lo), want + (s - lo), n);
	if (!copy_routines[r].call(d, s, n)) {
		printf("%s: size %lu: registers not as the contract says\n",
		       copy_routines[r].name, n);
		return 1;
	}
	for (k = 0; k < len; k++)
		if (lo[k] != want[k]) {
			printf("%s: size %lu, destination %+ld from the "
			       "source: byte %lu is 0x%02x, not 0x%02x\n",
			       copy_routines[r].name, n,
			       (long)(d - s), k, lo[k], want[k]);
			return 1;
		}
	return 0;
}

/* Every size, placement and distance the copy routines branch on. */
static unsigned long copies(unsigned char *map, unsigned char *guard)
{
	unsigned long n, o, cases = 0;
	unsigned r;
	long dist;

	for (r = 0; r < sizeof(copy_routines) / sizeof(copy_routines[0]); r++)
		for (n = 0; n <= 300; n++) {
			for (o = 0; o < 64; o++, cases += 3)
				if (one_move(r, map + PAGE, PAGE,
					     map + PAGE + 512 + o,
					     map + PAGE + (o * 5 % 64), n) ||
				    one_move(r, guard - PAGE, PAGE,
					     guard - o - n, guard - PAGE + o, n) ||
				    one_move(r, guard - PAGE, PAGE,
					     guard - PAGE + o, guard - o - n, n))
					return 0;
			for (dist = -80; dist <= 80; dist++, cases++)
				if (one_move(r, map + PAGE, 2 * PAGE,
					     map + 2 * PAGE + dist,
					     map + 2 * PAGE, n))
					return 0;
		}
	return cases;
}

/* A path record (path_mark, runtime/routines/asm.h): the routines
 * here are assembled with -DREPSTOS_PATHS. */
struct path_rec {
	unsigned long count;
	const char *name;
};
extern struct path_rec __start_repstos_paths[], __stop_repstos_paths[];

/* Each path and the cases that took it; 0 where one was never taken. */
static int paths(void)
{
	struct path_rec *r;
	unsigned n = 0, reached = 0;

	for (r = __start_repstos_paths; r < __stop_repstos_paths; r++, n++) {
		printf("  %-28s %8lu cases\n", r->name, r->count);
		reached += r->count != 0;
	}
	printf("plaincheck: paths reached %u of %u\n", reached, n);
	return n && reached == n;
}

int main(void)
{
	static const int fills[] = { 0, 0x5a, 0xff };
	struct repstos_cpu cpu;
	unsigned char *map, *guard;
	unsigned long n, o, e, cases = 0;
	unsigned r, f;

	repstos_cpu_detect(&cpu);
	if (!repstos_policy_supported(&cpu, REPSTOS_VARIANT_AVX512_SPLIT)) {
		printf("plaincheck: this CPU lacks what avx512_split needs; not run\n");
		return 2;
	}
	/* from 64 bytes they run avx512_split itself, whose REQUIRE
	 * would otherwise send them to vec */
	repstos_routines_enable(&cpu, cpu.features, &__repstos_can_avx2,
				&__repstos_can_avx512);
	/* rep stosb from just below SET_MAX, so that the largest sizes
	 * take a routine's rep stosb path too (mis16's) */
	__repstos_wide_rep_min = SET_MAX - 4;
	map = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return 1;
	guard = map + 3 * PAGE;
	if (mprotect(guard, PAGE, PROT_NONE))
		return 1;
	for (r = 0; r < sizeof(routines) / sizeof(routines[0]); r++)
		for (f = 0; f < 3; f++)
			for (n = 0; n <= SET_MAX; n++) {
				for (o = 0; o < 64; o++, cases++)
					if (one(r, map + PAGE + o, fills[f], n, SIDE))
						return 1;
				for (e = 0; e <= 70 && n + e + SIDE <= 2 * PAGE; e++, cases++)
					if (one(r, guard - e - n, fills[f], n, e))
						return 1;
			}
	n = copies(map, guard);
	if (!n)
		return 1;
	printf("plaincheck: %lu set and %lu copy cases, every byte and "
	       "register right\n", cases, n);
	if (!paths())
		return 1;
	return 0;
}
