// SPDX-License-Identifier: MIT
/*
 * sweep.c - every routine of both families, at every place a routine
 * branches on, against a byte loop, with the paths each case took
 * counted (runtime/routines/asm.h, path_mark: this program links routines
 * assembled with -DREPSTOS_PATHS).
 *
 *	sweep [-f] [-j N] [-m MAX] [-p FILE]
 *
 * What it varies, for each set routine (REPSTOS_VARIANTS) and each copy
 * routine (REPSTOS_COPY_VARIANTS, as copies and as moves):
 *  - sizes 0..1024 byte by byte, then 2^k-1, 2^k, 2^k+1 from 2 KiB (to
 *    16 MiB with -f, 1 MiB without) and the thresholds' neighbours;
 *  - where the destination lies: its end at each distance 0..4159
 *    before a PROT_NONE page (-f; a subset without), so that any byte
 *    stored past the end faults; its start at each offset of a page's
 *    last 64 bytes; its start 0..63 bytes after a PROT_NONE page below,
 *    so that a store before the start faults too;
 *  - for copies the source placed the same ways, the destination apart;
 *  - for moves every distance -300..300 (a subset without -f), at the
 *    top and at the bottom of the mapping;
 *  - fills 0, 1, 0x7f, 0x80, 0xff and others, in turn; the bytes a set
 *    routine may not touch hold fill ^ 0xa5, a copy's destination the
 *    complement of what will be copied there, so a missed byte shows;
 *  - the thresholds: loops only; rep stosb / rep movsb from small sizes;
 *    non-temporal copies from 70000; and the REQUIRE fallback (the can
 *    bytes 0: every wider routine runs "vec").
 * Each case checks every byte of the destination and 512 bytes on each
 * side (the guard bytes), the source (copies), and through sweep_call
 * every register: rdi, rsi, rcx, rax as the contract says, rbx, rbp,
 * rdx, r8..r15 unchanged, xmm1..xmm15 (set) or xmm8..xmm15 (copy)
 * unchanged, the direction flag clear.  A named regression case: a
 * 256-byte clear at every offset of a page, by every set routine.
 *
 * Then every path of every routine this CPU can run must have been
 * taken.  Prints "paths reached N of N", and with -p each path's count
 * to FILE.  -m MAX stops at sizes up to MAX (the test of the path check
 * itself: some paths are then left).  -j N deals the routines to N
 * processes (sweep_jobs).  Exits 0, 1 on a wrong byte or
 * register, 3 when only paths were left untaken.
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "repstos.h"
#include "policy/policy.h"
#include "routines/routines.h"
#include "sweep_call.h"
#include "refmove.h"

#define PAGE	4096ul
#define MARGIN	512ul		/* guard bytes checked on each side */
#define BIG	((16ul << 20) + 1)
#define ARENA	(2 * BIG + 64 * PAGE)

struct sweep_regs {
	uint64_t fn, rdi, rsi, rcx, rax;
	uint64_t gpr[SR_NGPR];
	uint64_t out_rdi, out_rsi, out_rcx, out_rax;
	uint64_t out_gpr[SR_NGPR];
	uint64_t out_flags;
	uint8_t xmm_in[SR_NXMM][16];
	uint8_t xmm_out[SR_NXMM][16];
	uint64_t out_below;
};
_Static_assert(offsetof(struct sweep_regs, gpr) == SR_GPR, "layout");
_Static_assert(offsetof(struct sweep_regs, out_rdi) == SR_OUT_RDI, "layout");
_Static_assert(offsetof(struct sweep_regs, out_gpr) == SR_OUT_GPR, "layout");
_Static_assert(offsetof(struct sweep_regs, out_flags) == SR_OUT_FLAGS, "layout");
_Static_assert(offsetof(struct sweep_regs, xmm_in) == SR_XMM_IN, "layout");
_Static_assert(offsetof(struct sweep_regs, xmm_out) == SR_XMM_OUT, "layout");
_Static_assert(offsetof(struct sweep_regs, out_below) == SR_OUT_BELOW, "layout");
_Static_assert(sizeof(struct sweep_regs) == SR_SIZE, "layout");

void sweep_call(struct sweep_regs *r);

/* A path record (path_mark in asm.h): weak, so the program links, and
 * says so, against routines built without them. */
struct path_rec {
	unsigned long count;
	const char *name;
};
extern struct path_rec __start_repstos_paths[] __attribute__((weak));
extern struct path_rec __stop_repstos_paths[] __attribute__((weak));

/* A mapping with a PROT_NONE page below lo and at hi. */
struct arena {
	uint8_t *lo, *hi;
};

/* What one case is, for the report. */
struct where {
	const char *routine, *op, *config;
	size_t n;
	const uint8_t *dst, *src;
	const struct arena *da, *sa;
	int fill;		/* a copy's: the distance src - dst */
};

static struct repstos_cpu cpu;
static struct arena dst_arena, src_arena;
static uint8_t *want;		/* the expected window */
static int full;
static size_t max_size = ~(size_t)0;
static unsigned long cases, failures;
static const char *config = "loops";
static const struct where *current;	/* for the SIGSEGV report */
static unsigned fill_turn;

static const int fills[] = { 0, 1, 0x7f, 0x80, 0xff, 0x5a, 0xc3 };
#define NFILLS (sizeof(fills) / sizeof(fills[0]))

static struct arena arena_new(size_t len)
{
	uint8_t *p = mmap(NULL, len + 2 * PAGE, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct arena a;

	if (p == MAP_FAILED || mprotect(p + PAGE, len, PROT_READ | PROT_WRITE)) {
		perror("sweep: mmap");
		exit(2);
	}
	a.lo = p + PAGE;
	a.hi = a.lo + len;
	return a;
}

static const char *dist_text(const struct where *w, const uint8_t *p,
			     const struct arena *a, char *buf, size_t len)
{
	snprintf(buf, len, "page offset %lu, end %ld before the guard, "
		 "start %ld after the guard below", (unsigned long)p % PAGE,
		 (long)(a->hi - (p + w->n)), (long)(p - a->lo));
	return buf;
}

static void describe(const struct where *w, const char *what)
{
	char d[128], s[128];

	if (w->src)
		fprintf(stderr, "FAIL %s %s size %zu distance %d [%s]: dest %s",
			w->routine, w->op, w->n, w->fill, w->config,
			dist_text(w, w->dst, w->da, d, sizeof(d)));
	else
		fprintf(stderr, "FAIL %s %s size %zu fill 0x%02x [%s]: dest %s",
			w->routine, w->op, w->n, w->fill, w->config,
			dist_text(w, w->dst, w->da, d, sizeof(d)));
	if (w->src)
		fprintf(stderr, "; source %s", dist_text(w, w->src, w->sa, s,
							 sizeof(s)));
	fprintf(stderr, ": %s\n", what);
}

static void fail(const struct where *w, const char *what)
{
	if (++failures <= 30)
		describe(w, what);
}

/* A store past a guard: say which case it was, then die as it would. */
static void on_segv(int sig)
{
	static const char msg[] = "sweep: SIGSEGV (a store or load beyond a "
				  "guard page) in the case:\n";

	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	if (current)
		describe(current, "faulted");
	signal(sig, SIG_DFL);
	raise(sig);
}

static void regs_init(struct sweep_regs *r, void *fn)
{
	unsigned i, j;

	memset(r, 0, sizeof(*r));
	r->fn = (uint64_t)fn;
	for (i = 0; i < SR_NGPR; i++)
		r->gpr[i] = 0x5eed00000000a000ull + i * 0x0101010101ull + cases;
	for (i = 0; i < SR_NXMM; i++)
		for (j = 0; j < 16; j++)
			r->xmm_in[i][j] = (uint8_t)(0x40 + i * 16 + j + cases);
}

/* What no routine of a family may change: the other GPRs, the vector
 * registers above its scratch ones, the direction flag. */
static void check_kept(const struct where *w, const struct sweep_regs *r,
		       unsigned first_xmm)
{
	unsigned i;

	for (i = 0; i < SR_NGPR; i++)
		if (r->out_gpr[i] != r->gpr[i])
			fail(w, "a GPR outside the contract changed");
	for (i = first_xmm - 1; i < SR_NXMM; i++)
		if (memcmp(r->xmm_out[i], r->xmm_in[i], 16))
			fail(w, "a vector register outside the contract changed");
	if (r->out_flags & (1u << 10))
		fail(w, "the direction flag is set");
	/* leaf routines only: "libc" calls the C library, whose frames
	 * go below (a forced choice only; sites keep no red zone) */
	if (r->out_below && strcmp(w->routine, "libc")) {
		char what[96];

		snprintf(what, sizeof(what), "the stack more than 8 bytes "
			 "below the stack pointer changed (words %#llx)",
			 (unsigned long long)r->out_below);
		fail(w, what);
	}
}

/* got[0, len) against want; on a difference, where the first one is. */
static void check_bytes(const struct where *w, const uint8_t *got,
			const uint8_t *exp, size_t len, const uint8_t *base)
{
	char what[96];
	size_t i;

	if (!memcmp(got, exp, len))
		return;
	for (i = 0; got[i] == exp[i]; i++)
		;
	snprintf(what, sizeof(what), "byte at %+ld from dest is 0x%02x, "
		 "not 0x%02x", (long)(got + i - base), got[i], exp[i]);
	fail(w, what);
}

/* [p, p+n) and MARGIN bytes each side, as far as the arena goes. */
static void window(const struct arena *a, const uint8_t *p, size_t n,
		   uint8_t **lo, uint8_t **hi)
{
	size_t below = (size_t)(p - a->lo), above = (size_t)(a->hi - (p + n));

	*lo = (uint8_t *)p - (below < MARGIN ? below : MARGIN);
	*hi = (uint8_t *)p + n + (above < MARGIN ? above : MARGIN);
}

/* One call of a set routine at d. */
static void set_case(const char *name, void *fn, uint8_t *d, size_t n)
{
	int c = fills[fill_turn++ % NFILLS];
	struct where w = { name, "set", config, n, d, NULL, &dst_arena, NULL, c };
	uint8_t bg = (uint8_t)(c ^ 0xa5), *lo, *hi;
	struct sweep_regs r;

	window(&dst_arena, d, n, &lo, &hi);
	memset(lo, bg, (size_t)(hi - lo));
	memset(want, bg, (size_t)(hi - lo));
	memset(want + (d - lo), c, n);
	regs_init(&r, fn);
	r.rdi = (uint64_t)d, r.rcx = n, r.rax = (uint8_t)c;
	r.rsi = r.gpr[0] ^ 1;
	current = &w;
	sweep_call(&r);
	current = NULL;
	cases++;
	if (r.out_rdi != (uint64_t)d + n || r.out_rcx || r.out_rax != (uint8_t)c ||
	    r.out_rsi != r.rsi)
		fail(&w, "rdi, rcx, rax or rsi out of contract");
	check_kept(&w, &r, 1);
	check_bytes(&w, lo, want, (size_t)(hi - lo), d);
}

static void call_copy(const struct where *w, void *fn, uint8_t *d,
		      const uint8_t *s, size_t n)
{
	struct sweep_regs r;

	regs_init(&r, fn);
	r.rdi = (uint64_t)d, r.rsi = (uint64_t)s, r.rcx = n;
	r.rax = r.gpr[1] ^ 1;
	current = w;
	sweep_call(&r);
	current = NULL;
	cases++;
	if (r.out_rdi != (uint64_t)d + n || r.out_rsi != (uint64_t)s + n ||
	    r.out_rcx)
		fail(w, "rdi, rsi or rcx out of contract");
	check_kept(w, &r, 8);
}

/* A copy from s (source arena) to d (destination arena). */
static void copy_case(const char *name, void *fn, uint8_t *d, uint8_t *s,
		      size_t n)
{
	struct where w = { name, "copy", config, n, d, s, &dst_arena,
			   &src_arena, (int)(s - d) };
	uint8_t *lo, *hi, *slo, *shi;
	size_t i, k = fill_turn++;

	window(&dst_arena, d, n, &lo, &hi);
	window(&src_arena, s, n, &slo, &shi);
	for (i = 0; i < (size_t)(shi - slo); i++)
		slo[i] = (uint8_t)((i + k) * 167 + (i >> 8));
	for (i = 0; i < (size_t)(hi - lo); i++)
		lo[i] = (uint8_t)((i + k) * 89 + 7);
	for (i = 0; i < n; i++)
		d[i] = (uint8_t)~s[i];
	memcpy(want, lo, (size_t)(hi - lo));
	memcpy(want + (d - lo), s, n);
	call_copy(&w, fn, d, s, n);
	check_bytes(&w, lo, want, (size_t)(hi - lo), d);
	/* the source is the destination's expected bytes now */
	if (memcmp(s, want + (d - lo), n))
		fail(&w, "the source changed");
}

/* A move in one arena: the destination dist bytes from the source. */
static void move_case(const char *name, void *fn, uint8_t *s, long dist,
		      size_t n)
{
	uint8_t *d = s + dist, *lo, *hi;
	uint8_t *a = dist < 0 ? d : s;
	size_t span = n + (size_t)(dist < 0 ? -dist : dist), i;
	struct where w = { name, "move", config, n, d, s, &dst_arena,
			   &dst_arena, (int)dist };

	window(&dst_arena, a, span, &lo, &hi);
	for (i = 0; i < (size_t)(hi - lo); i++)
		lo[i] = (uint8_t)((i + fill_turn) * 131 + (i >> 9));
	fill_turn++;
	memcpy(want, lo, (size_t)(hi - lo));
	byte_move(want + (d - lo), want + (s - lo), n);
	call_copy(&w, fn, d, s, n);
	check_bytes(&w, lo, want, (size_t)(hi - lo), d);
}

/*
 * The places of a region of n bytes in an arena, by index 0..count-1:
 * its end at each distance of a list before the guard above, its start
 * at each offset 4032..4095 of a page, its start 0..63 after the guard
 * below.  Returns NULL past the last.
 */
static uint8_t *place(const struct arena *a, size_t n, unsigned i)
{
	unsigned nd = full ? 4160 : 180;
	size_t d;

	if (i < nd) {
		/* quick: 0..99, the page's far end 4080..4159 */
		d = full || i < 100 ? i : 3980 + i;
		return a->hi - d - n;
	}
	i -= nd;
	if (i < 64)
		return (uint8_t *)(((uintptr_t)(a->hi - n) - 2 * PAGE) &
				   ~(PAGE - 1)) + 4032 + i;
	i -= 64;
	if (full)			/* quick: 0..7, then every 4th */
		return i < 64 ? a->lo + i : NULL;
	return i < 22 ? a->lo + (i < 8 ? i : 8 + (i - 8) * 4) : NULL;
}

/* The places of the large sizes: few, and the ones the code tests. */
static uint8_t *place_big(const struct arena *a, size_t n, unsigned i)
{
	static const unsigned ends[] = { 0, 1, 63, 100, 4095 };
	static const unsigned starts[] = { 0, 3, 32, 4032 + 0x3f, 4032 };
	unsigned ne = full ? 5 : 2, ns = full ? 5 : 2;

	if (i < ne)
		return a->hi - ends[i] - n;
	i -= ne;
	return i < ns ? a->lo + starts[i] : NULL;
}

/* A place for the other region of a copy, apart from the one swept:
 * the middle of its arena, at an offset that turns with the case. */
static uint8_t *apart(const struct arena *a, size_t n, unsigned k)
{
	return a->lo + ((size_t)(a->hi - a->lo) / 2 - n / 2) / PAGE * PAGE +
	       (k * 37 + n) % 4096;
}

static int in_range(size_t n)
{
	return n <= max_size;
}

static void sweep_set(const char *name, void *fn, size_t n, int big)
{
	uint8_t *d;
	unsigned i;

	for (i = 0; (d = big ? place_big(&dst_arena, n, i) :
		     place(&dst_arena, n, i)); i++)
		set_case(name, fn, d, n);
}

static void sweep_copy(const char *name, void *fn, size_t n, int big)
{
	uint8_t *p;
	unsigned i;

	for (i = 0; (p = big ? place_big(&dst_arena, n, i) :
		     place(&dst_arena, n, i)); i++)
		copy_case(name, fn, p, apart(&src_arena, n, i), n);
	for (i = 0; (p = big ? place_big(&src_arena, n, i) :
		     place(&src_arena, n, i)); i++)
		copy_case(name, fn, apart(&dst_arena, n, i), p, n);
}

/* Every distance -300..300 (quick: -70..70 and the block sizes'
 * neighbours), with the higher region's end at the guard above and the
 * lower region's start at the guard below. */
static void sweep_move(const char *name, void *fn, size_t n)
{
	static const long far[] = { 127, 128, 129, 255, 256, 257, 300 };
	long dist, k;
	unsigned j;

	for (dist = -300; dist <= 300; dist++) {
		if (!full && (dist < -70 || dist > 70)) {
			long a = dist < 0 ? -dist : dist;

			for (j = 0; j < sizeof(far) / sizeof(far[0]); j++)
				if (far[j] == a)
					break;
			if (j == sizeof(far) / sizeof(far[0]))
				continue;
		}
		k = dist < 0 ? -dist : dist;
		move_case(name, fn, dst_arena.hi - n - (dist > 0 ? k : 0) -
			  (size_t)(n % 7), dist, n);
		move_case(name, fn, dst_arena.lo + (dist < 0 ? k : 0) +
			  (size_t)(n % 5), dist, n);
	}
}

/* Large moves: near and far distances, and regions apart. */
static void sweep_move_big(const char *name, void *fn, size_t n)
{
	static const long dists[] = { -4097, -300, -64, -63, -33, -1, 1, 31,
				      63, 64, 300, 4097 };
	unsigned j, nd = full ? 12 : 4;
	long k;

	for (j = 0; j < nd; j++) {
		long dist = dists[full ? j : (j * 5 + 1) % 12];

		k = dist < 0 ? -dist : dist;
		move_case(name, fn, dst_arena.hi - n - (dist > 0 ? k : 0),
			  dist, n);
	}
	k = (long)n + 64;
	move_case(name, fn, dst_arena.lo + 3, k, n);
	move_case(name, fn, dst_arena.lo + 3 + k, -k, n);
}

/* The sizes above 1024: powers of two and their neighbours, and the
 * thresholds' (the configurations below). */
static size_t big_size(unsigned i)
{
	static const size_t edges[] = { 1099, 1100, 1101, 2047, 2048, 2049,
					69999, 70000, 70001 };
	unsigned top = full ? 24 : 20, k = i / 3 + 11;

	if (k <= top)
		return ((size_t)1 << k) + (i % 3) - 1;
	i -= (top - 10) * 3;
	return i < sizeof(edges) / sizeof(edges[0]) ? edges[i] : 0;
}

struct config {
	const char *name;
	unsigned long long vec_rep_min, wide_rep_min, short_rep_max;
	unsigned long long copy_rep_min, copy_nt_min;
};

static const struct config configs[] = {
	{ "loops", ~0ull, ~0ull, 128, ~0ull, ~0ull },
	{ "rep", 2048, 2048, 1024, 1100, ~0ull },
	{ "nt", 2048, 2048, 128, 1100, 70000 },
};

static void use_config(const struct config *c)
{
	config = c->name;
	__repstos_vec_rep_min = c->vec_rep_min;
	__repstos_wide_rep_min = c->wide_rep_min;
	__repstos_short_rep_max = c->short_rep_max;
	__repstos_copy_rep_min = c->copy_rep_min;
	__repstos_copy_nt_min = c->copy_nt_min;
}

/* Sizes 0..1024 of one routine, as many as the configuration needs. */
static void small_sizes(const char *name, void *fn, int copy, int moves)
{
	size_t n;

	for (n = 0; n <= 1024 && in_range(n); n++) {
		if (!copy) {
			sweep_set(name, fn, n, 0);
			continue;
		}
		sweep_copy(name, fn, n, 0);
		if (moves && (full || n <= 300 || n % 7 == 0))
			sweep_move(name, fn, n);
	}
}

static void large_sizes(const char *name, void *fn, int copy)
{
	size_t n;
	unsigned i;

	for (i = 0; (n = big_size(i)); i++) {
		if (!in_range(n))
			continue;
		if (!copy) {
			sweep_set(name, fn, n, 1);
			continue;
		}
		sweep_copy(name, fn, n, 1);
		sweep_move_big(name, fn, n);
	}
}

/* 1025..4200 under the rep thresholds, where "stosb_avx2" and the copy
 * routines change form, at the two places that matter most. */
static void middle_sizes(const char *name, void *fn, int copy)
{
	size_t n;

	for (n = 1025; n <= 4200 && in_range(n); n += full ? 1 : 13) {
		if (!copy) {
			set_case(name, fn, dst_arena.hi - n, n);
			set_case(name, fn, dst_arena.lo + n % 64, n);
			continue;
		}
		copy_case(name, fn, dst_arena.hi - n, apart(&src_arena, n, 1), n);
		copy_case(name, fn, apart(&dst_arena, n, 2), src_arena.hi - n, n);
		move_case(name, fn, dst_arena.hi - n - 64, 64, n);
		move_case(name, fn, dst_arena.lo + 17, 17, n);
		move_case(name, fn, dst_arena.lo + 200, -200, n);
	}
}

/* The regression case by name: a 256-byte clear at every page offset. */
static unsigned long clear_256(const char *name, void *fn)
{
	unsigned long before = failures;
	uint8_t *page = dst_arena.hi - 2 * PAGE;
	unsigned off;

	for (off = 0; off < PAGE; off++) {
		fill_turn = 0;		/* fill 0: a clear */
		set_case(name, fn, page + off, 256);
	}
	return failures - before;
}

/*
 * -j N: the routines are dealt round-robin to N processes (the full
 * sweep is some 200 s of one core, and CI has two), set routines first,
 * then copy routines; the last process sweeps the fallback too.  Each
 * sends its path counts and totals back to the parent (sweep_jobs).
 */
#define MAX_JOBS 64
static int jobs = 1, job;

static int mine(int copy, int v)
{
	int i = copy ? REPSTOS_VARIANT_COUNT + v : v;

	return i % jobs == job;
}

/* The family a copy flag names. */
static const struct repstos_family *family(int copy)
{
	return &repstos_families[copy ? REPSTOS_FAMILY_COPY : REPSTOS_FAMILY_SET];
}

static void sweep_family(int copy)
{
	const struct repstos_family *f = family(copy);
	int v;
	unsigned c;

	for (v = 0; v < f->nvariants; v++) {
		if (!mine(copy, v))
			continue;
		const char *name = repstos_family_name(f, v);
		void *fn = repstos_family_routine(f, v);
		unsigned long before = cases;

		if (!repstos_family_runs(f, &cpu, v)) {
			printf("%s %s: not on this CPU, skipped\n",
			       copy ? "copy" : "set", name);
			continue;
		}
		use_config(&configs[0]);
		small_sizes(name, fn, copy, 1);
		if (!copy && in_range(256))
			printf("regression: 256-byte clear at every page offset "
			       "by %s: %lu wrong\n", name, clear_256(name, fn));
		for (c = 0; c < sizeof(configs) / sizeof(configs[0]); c++) {
			use_config(&configs[c]);
			middle_sizes(name, fn, copy);
			large_sizes(name, fn, copy);
		}
		printf("%s %s: %lu cases\n", copy ? "copy" : "set", name,
		       cases - before);
		fflush(stdout);
	}
}

/*
 * The REQUIRE fallback: with the can bytes 0 every wider routine runs
 * "vec" (what a file `repstos patch` fixed for a richer CPU runs on a
 * poorer one).  A shorter sweep: the code is "vec"'s, swept above.
 */
static void sweep_fallback(void)
{
	unsigned char a2 = __repstos_can_avx2, a512 = __repstos_can_avx512;
	int saved = full;

	__repstos_can_avx2 = __repstos_can_avx512 = 0;
	full = 0;
	config = "fallback";
	for (int v = 0; v < REPSTOS_VARIANT_COUNT; v++)
		for (size_t n = 0; n <= 600 && in_range(n); n += 1 + n / 64)
			sweep_set(repstos_variant_name(v),
				  repstos_variant_routine(v), n, 0);
	for (int v = 0; v < REPSTOS_COPY_VARIANT_COUNT; v++)
		for (size_t n = 0; n <= 600 && in_range(n); n += 1 + n / 64)
			sweep_copy(repstos_copy_variant_name(v),
				   repstos_copy_variant_routine(v), n, 0);
	full = saved;
	__repstos_can_avx2 = a2, __repstos_can_avx512 = a512;
}

/* Does this CPU run the routine a path belongs to?  A path's name starts
 * with its routine's (copy routines' with "copy_"): the longest such
 * name decides; a path of none ("stosb", "copy_movsb_rep") runs
 * anywhere. */
static int path_on_cpu(const char *path)
{
	size_t best = 0;
	int ok = 1, copy = !strncmp(path, "copy_", 5), v;
	const char *p = copy ? path + 5 : path;
	const struct repstos_family *f = family(copy);

	for (v = 0; v < f->nvariants; v++) {
		const char *name = repstos_family_name(f, v);
		size_t len = strlen(name);

		if (len > best && !strncmp(p, name, len) &&
		    (p[len] == '_' || !p[len])) {
			best = len;
			ok = repstos_family_runs(f, &cpu, v);
		}
	}
	return ok;
}

/* Every path of the routines this CPU runs must have been taken. */
static int check_paths(const char *file)
{
	struct path_rec *r;
	unsigned total = 0, reached = 0, off_cpu = 0;
	FILE *f = file ? fopen(file, "w") : NULL;

	if (file && !f)
		perror(file);
	if (!__start_repstos_paths || __stop_repstos_paths - __start_repstos_paths == 0) {
		printf("sweep: the routines have no path records "
		       "(not built with -DREPSTOS_PATHS)\n");
		return 0;
	}
	for (r = __start_repstos_paths; r < __stop_repstos_paths; r++) {
		int on = path_on_cpu(r->name);

		if (f)
			fprintf(f, "%-36s %12lu%s\n", r->name, r->count,
				on ? "" : "  (not on this CPU)");
		if (!on) {
			off_cpu++;
			continue;
		}
		total++;
		if (r->count)
			reached++;
		else
			printf("path not taken: %s\n", r->name);
	}
	if (f)
		fclose(f);
	printf("paths reached %u of %u", reached, total);
	if (off_cpu)
		printf(" (%u more need what this CPU lacks)", off_cpu);
	printf("\n");
	return reached == total;
}

static void sweep_work(void)
{
	sweep_family(0);
	sweep_family(1);
	if (job == jobs - 1)
		sweep_fallback();
}

static size_t path_count(void)
{
	return __start_repstos_paths ?
	       (size_t)(__stop_repstos_paths - __start_repstos_paths) : 0;
}

/* A child's report: cases, failures, then each path record's count. */
static size_t report_len(void)
{
	return (2 + path_count()) * sizeof(unsigned long);
}

static void send_counts(int fd)
{
	size_t i, n = path_count();
	unsigned long *buf = malloc(report_len());

	if (!buf)
		_exit(2);
	buf[0] = cases;
	buf[1] = failures;
	for (i = 0; i < n; i++)
		buf[2 + i] = __start_repstos_paths[i].count;
	if (write(fd, buf, report_len()) != (ssize_t)report_len())
		_exit(2);
	free(buf);
}

/* Adds a child's report to this process's; 0 when it sent less. */
static int add_counts(int fd)
{
	size_t i, n = path_count(), got = 0, len = report_len();
	unsigned long *buf = malloc(len);
	ssize_t r;

	if (!buf)
		return 0;
	while (got < len && (r = read(fd, (char *)buf + got, len - got)) > 0)
		got += (size_t)r;
	if (got == len) {
		cases += buf[0];
		failures += buf[1];
		for (i = 0; i < n; i++)
			__start_repstos_paths[i].count += buf[2 + i];
	}
	free(buf);
	return got == len;
}

/* One child per job; 0 when each reported and ended well.  A child that
 * faulted has said which case on stderr (on_segv). */
static int sweep_jobs(void)
{
	pid_t pid[MAX_JOBS];
	int fd[MAX_JOBS], ok = 1, st, p[2];

	fflush(stdout);
	for (job = 0; job < jobs; job++) {
		if (pipe(p) || (pid[job] = fork()) < 0) {
			perror("sweep: fork");
			exit(2);
		}
		if (!pid[job]) {
			close(p[0]);
			sweep_work();
			fflush(stdout);
			send_counts(p[1]);
			_exit(0);
		}
		close(p[1]);
		fd[job] = p[0];
	}
	for (job = 0; job < jobs; job++) {
		int sent = add_counts(fd[job]);

		close(fd[job]);
		if (waitpid(pid[job], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) || !sent) {
			printf("sweep: job %d of %d ended without its report\n",
			       job + 1, jobs);
			ok = 0;
		}
	}
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: sweep [-f] [-j N] [-m MAX] [-p FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *paths = NULL;
	struct timespec t0, t1;
	int opt, all;

	while ((opt = getopt(argc, argv, "fj:m:p:")) != -1) {
		if (opt == 'f')
			full = 1;
		else if (opt == 'j')
			jobs = atoi(optarg);
		else if (opt == 'm')
			max_size = strtoul(optarg, NULL, 0);
		else if (opt == 'p')
			paths = optarg;
		else
			usage();
	}
	if (optind != argc || jobs < 1 || jobs > MAX_JOBS)
		usage();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	signal(SIGSEGV, on_segv);
	signal(SIGBUS, on_segv);
	dst_arena = arena_new(ARENA);
	src_arena = arena_new(ARENA);
	if (!(want = malloc(ARENA))) {
		perror("sweep");
		return 2;
	}
	/* the routines run what this CPU has, as a module's start-up lets
	 * them (no start-up is linked: the core's stub) */
	repstos_cpu_detect(&cpu);
	repstos_routines_enable(&cpu, cpu.features, &__repstos_can_avx2,
				&__repstos_can_avx512);
	if (jobs == 1)
		sweep_work();
	else if (!sweep_jobs())
		failures++;
	all = check_paths(paths);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lu cases, %lu failures, %.1f s (%s)\n", cases, failures,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       full ? "full" : "quick");
	if (failures)
		return 1;
	return all ? 0 : 3;
}
