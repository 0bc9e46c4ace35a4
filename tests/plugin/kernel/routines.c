// SPDX-License-Identifier: MIT
/*
 * routines.c - kernel mode's routines (plugin/kernel.c), taken from
 * routines_unit.o, called as a kernel site calls them: every GPR but
 * rsp and rbp holds a known value, and after the call each must hold
 * what the contract says (rdi = dst + n, rsi = src + n, rcx = 0, rax the
 * fill byte; a move may leave rdi and rsi where they began) and every
 * byte around the operation must be as it was.  Sizes 0 to 1100 at
 * every destination offset in a 64-byte line, the fast-string
 * thresholds and large sizes beside them, operations that end on the
 * last byte before a PROT_NONE page or start on the first byte after
 * one, copies whose destination is below an overlapping source, moves
 * at every distance to 300.  Then every path counter the unit's path
 * notes name must be non-zero: exit 3, "path not taken: ...", if not.
 *
 * routines [-m MAX]: sizes up to MAX only (the path check shown able to
 * fail).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define N_ROUTINES	11

extern char __repstos_k_set_erms[], __repstos_k_set_rep_good[],
	__repstos_k_set_orig[], __repstos_k_copy_erms[],
	__repstos_k_copy_rep_good[], __repstos_k_copy_orig[],
	__repstos_k_move_erms[], __repstos_k_move_rep_good[],
	__repstos_k_move_orig[], __repstos_k_move_fwd[],
	__repstos_k_move_back[];
extern const unsigned char krt_notes[];

enum kind { SET, COPY, MOVE };

static const struct routine {
	const char *name;
	void *fn;
	enum kind kind;
} routines[] = {
	{ "set_erms", __repstos_k_set_erms, SET },
	{ "set_rep_good", __repstos_k_set_rep_good, SET },
	{ "set_orig", __repstos_k_set_orig, SET },
	{ "copy_erms", __repstos_k_copy_erms, COPY },
	{ "copy_rep_good", __repstos_k_copy_rep_good, COPY },
	{ "copy_orig", __repstos_k_copy_orig, COPY },
	{ "move_erms", __repstos_k_move_erms, MOVE },
	{ "move_rep_good", __repstos_k_move_rep_good, MOVE },
	{ "move_orig", __repstos_k_move_orig, MOVE },
};

/* The routine the next call goes to (the asm calls through it). */
void *krt_target;

static unsigned long max_size = ~0ul;
static unsigned long calls, failures;

struct regs {
	unsigned long ax, bx, cx, dx, si, di;
	unsigned long r[8];	/* r8 to r15 */
};

#define KEEP(i)	(0x0808080808080808ul * (i) + 0x0123456789abcdeful)

/* Call krt_target with rdi, rsi, rcx, rax; what every register held
 * after it into *o. */
static void call(unsigned long di, unsigned long si, unsigned long cx,
		 unsigned long ax, struct regs *o)
{
	register unsigned long r8 asm("r8") = KEEP(8);
	register unsigned long r9 asm("r9") = KEEP(9);
	register unsigned long r10 asm("r10") = KEEP(10);
	register unsigned long r11 asm("r11") = KEEP(11);
	register unsigned long r12 asm("r12") = KEEP(12);
	register unsigned long r13 asm("r13") = KEEP(13);
	register unsigned long r14 asm("r14") = KEEP(14);
	register unsigned long r15 asm("r15") = KEEP(15);
	unsigned long bx = KEEP(3), dx = KEEP(2);

	asm volatile("call *krt_target(%%rip)"
		     : "+D"(di), "+S"(si), "+c"(cx), "+a"(ax), "+b"(bx),
		       "+d"(dx), "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r11),
		       "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15)
		     : : "memory", "cc");
	*o = (struct regs){ ax, bx, cx, dx, si, di,
			    { r8, r9, r10, r11, r12, r13, r14, r15 } };
	calls++;
}

static int regs_kept(const struct regs *o)
{
	for (int i = 0; i < 8; i++)
		if (o->r[i] != KEEP(8 + i))
			return 0;
	return o->bx == KEEP(3) && o->dx == KEEP(2) && o->cx == 0;
}

static unsigned char pat(uintptr_t a, unsigned seed)
{
	a = a * 2654435761u + seed * 40503u;
	return (unsigned char)(a ^ a >> 13 ^ a >> 7);
}

static void failed(const char *r, const char *what, unsigned long n,
		   const void *d, const void *s, long at)
{
	if (failures++ < 20)
		printf("FAIL %s: %s, size %lu, dst %p src %p, at %ld\n",
		       r, what, n, d, s, at);
}

/* The arena: PROT_NONE pages on both sides of ARENA bytes. */
#define PAGE	4096ul
#define ARENA	(40 * PAGE)
#define MARGIN	64ul
static unsigned char *arena, *src_arena;

static unsigned char *map_guarded(void)
{
	unsigned char *m = mmap(NULL, ARENA + 2 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || mprotect(m, PAGE, PROT_NONE) ||
	    mprotect(m + PAGE + ARENA, PAGE, PROT_NONE)) {
		perror("routines: mmap");
		exit(2);
	}
	return m + PAGE;
}

/* [lo, hi) of the arena: the operation's bytes and a margin, clipped. */
static void span(const unsigned char *p, unsigned long n, unsigned char **lo,
		 unsigned char **hi)
{
	*lo = (unsigned char *)p - MARGIN < arena ? arena
						   : (unsigned char *)p - MARGIN;
	*hi = (unsigned char *)p + n + MARGIN > arena + ARENA ?
		arena + ARENA : (unsigned char *)p + n + MARGIN;
}

static void one_set(const struct routine *r, unsigned char *d, unsigned long n,
		    unsigned char c)
{
	unsigned char *lo, *hi;
	struct regs o;

	span(d, n, &lo, &hi);
	for (unsigned char *p = lo; p < hi; p++)
		*p = pat((uintptr_t)p, 1);
	krt_target = r->fn;
	call((uintptr_t)d, KEEP(1), n, c, &o);
	if (!regs_kept(&o) || o.ax != c || o.di != (uintptr_t)d + n ||
	    o.si != KEEP(1))
		failed(r->name, "registers", n, d, NULL, -1);
	for (unsigned char *p = lo; p < hi; p++)
		if (*p != (p >= d && p < d + n ? c : pat((uintptr_t)p, 1))) {
			failed(r->name, "bytes", n, d, NULL, p - d);
			break;
		}
}

/* A copy or move of n bytes from s to d, both in the arena or s in
 * src_arena.  What d must end as is computed from a snapshot first. */
static void one_copy(const struct routine *r, unsigned char *d,
		     const unsigned char *s, unsigned long n)
{
	static unsigned char want[ARENA];
	unsigned char *lo, *hi;
	int same = s >= arena && s < arena + ARENA;
	struct regs o;

	span(d, n, &lo, &hi);
	if (same) {
		unsigned char *slo, *shi;

		span(s, n, &slo, &shi);
		lo = slo < lo ? slo : lo;
		hi = shi > hi ? shi : hi;
	}
	for (unsigned char *p = lo; p < hi; p++)
		*p = pat((uintptr_t)p, 1);
	for (unsigned char *p = lo; p < hi; p++)
		want[p - arena] = p >= d && p < d + n ?
			(same ? pat((uintptr_t)(s + (p - d)), 1) : s[p - d])
			: pat((uintptr_t)p, 1);
	krt_target = r->fn;
	call((uintptr_t)d, (uintptr_t)s, n, KEEP(0), &o);
	if (!regs_kept(&o) || o.ax != KEEP(0) ||
	    !((o.di == (uintptr_t)d + n && o.si == (uintptr_t)s + n) ||
	      (r->kind == MOVE && o.di == (uintptr_t)d &&
	       o.si == (uintptr_t)s)))
		failed(r->name, "registers", n, d, s, -1);
	for (unsigned char *p = lo; p < hi; p++)
		if (*p != want[p - arena]) {
			failed(r->name, "bytes", n, d, s, p - d);
			break;
		}
}

/* Sizes: 0 to 1100, then either side of each power of two to 64 KiB
 * (the fast-string thresholds are among them), and 100000. */
static unsigned long nth_size(unsigned i)
{
	static const unsigned long big[] = { 100000 };

	if (i <= 1100)
		return i;
	i -= 1101;
	if (i < 6 * 3)
		return (2048ul << i / 3) + i % 3 - 1;
	i -= 6 * 3;
	return i < 1 ? big[i] : 0;
}
#define N_SIZES	(1101 + 6 * 3 + 1)

static const unsigned char fills[] = { 0, 0x5a, 0xff, 0x80, 1 };

static void test_set(const struct routine *r)
{
	for (unsigned i = 0; i < N_SIZES; i++) {
		unsigned long n = nth_size(i);
		unsigned step = n <= 256 ? 1 : n <= 1100 ? 9 : 31;

		if (n > max_size)
			continue;
		for (unsigned a = 0; a < 64; a += step)
			one_set(r, arena + PAGE + a, n, fills[(i + a) % 5]);
		one_set(r, arena + ARENA - n, n, fills[i % 5]);
		one_set(r, arena, n, fills[(i + 1) % 5]);
	}
}

static const unsigned src_offs[] = { 0, 1, 3, 8, 13, 32, 63 };

static void test_copy(const struct routine *r)
{
	unsigned char *far = src_arena + PAGE;

	for (unsigned i = 0; i < N_SIZES; i++) {
		unsigned long n = nth_size(i);
		unsigned step = n <= 256 ? 1 : n <= 1100 ? 9 : 31;

		if (n > max_size)
			continue;
		for (unsigned a = 0; a < 64; a += step)
			for (unsigned b = 0; b < 7; b += 1 + (n > 64))
				one_copy(r, arena + PAGE + a, far + src_offs[b], n);
		/* at the guard pages, both ends, both buffers */
		one_copy(r, arena + ARENA - n, src_arena + ARENA - n, n);
		one_copy(r, arena, src_arena, n);
		one_copy(r, arena + ARENA - n, src_arena, n);
		one_copy(r, arena, src_arena + ARENA - n, n);
	}
}

/* d - s from -300 to 300 in the arena: a copy routine meets the
 * negative ones as forwards-safe memmoves, a move routine all. */
static void test_overlap(const struct routine *r)
{
	int hi = r->kind == MOVE ? 300 : 0;

	for (unsigned long n = 0; n <= 1100 && n <= max_size;
	     n += n < 300 ? 1 : 97)
		for (int dist = -300; dist <= hi; dist += n < 300 ? 1 : 7) {
			unsigned char *s = arena + 2 * PAGE + 5;

			one_copy(r, s + dist, s, n);
		}
	/* and large, at the far guard page */
	for (unsigned i = 1101; i < N_SIZES; i++) {
		unsigned long n = nth_size(i);

		if (n > max_size || n + 600 > ARENA)
			continue;
		one_copy(r, arena + ARENA - n - 7, arena + ARENA - n, n);
		if (r->kind == MOVE)
			one_copy(r, arena + ARENA - n, arena + ARENA - n - 7, n);
	}
}

/* The path notes from krt_notes to the unit's end note. */
static int check_paths(void)
{
	const unsigned char *p = krt_notes;
	unsigned taken = 0, all = 0;

	for (;;) {
		const uint32_t *h = (const void *)p;
		const unsigned char *desc = p + 12 + ((h[0] + 3) & ~3u);

		if (h[0] != 8 || memcmp(p + 12, "repstos", 8) || h[2] == 2)
			break;
		if (h[2] == 3) {
			int32_t off;
			const uint64_t *count;

			memcpy(&off, desc, 4);
			count = (const void *)(desc + off);
			all++;
			if (*count)
				taken++;
			/* each path's count, for the log: how many calls
			 * each path got, not only that it got one */
			printf("path %s %llu\n", desc + 4,
			       (unsigned long long)*count);
			if (!*count)
				printf("path not taken: %s\n", desc + 4);
		}
		p = desc + ((h[1] + 3) & ~3u);
	}
	printf("paths reached %u of %u\n", taken, all);
	if (!all)
		return 2;
	return taken == all ? 0 : 3;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 3 && !strcmp(argv[1], "-m"))
		max_size = strtoul(argv[2], NULL, 0);
	else if (argc != 1) {
		fprintf(stderr, "usage: routines [-m MAX]\n");
		return 2;
	}
	arena = map_guarded();
	src_arena = map_guarded();
	for (unsigned i = 0; i < N_ROUTINES - 2; i++) {
		const struct routine *r = &routines[i];

		if (r->kind == SET) {
			test_set(r);
			continue;
		}
		test_copy(r);
		test_overlap(r);
	}
	printf("%lu calls, %lu failures\n", calls, failures);
	rc = check_paths();
	return failures ? 1 : rc;
}
