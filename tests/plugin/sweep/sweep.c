/* SPDX-License-Identifier: MIT */
/*
 * sweep.c - the six plugin sites (memset, bzero, explicit_bzero, memcpy,
 * mempcpy, memmove) swept over sizes and placements against guard pages,
 * each call checked against a plain byte loop.  tests/plugin/sweep.sh
 * builds it with the plugin (copies too) and without, and runs it under
 * every variant, patch profile and runtime.
 *
 * Why this test: 44de022 fixed avx512_split, which left [p, p+64) of a
 * 256-byte set unwritten when p was in a page's last 64 bytes; every
 * other test put its buffers at one page offset, so none saw it.  Here
 * the placement is what is swept.
 *
 * The sites: one per op, each alone in a noipa function, so the size is
 * unknown where the call is (the plugin must make it a site) and there
 * is exactly one site per op.  Everything else here is byte and word
 * loops, built with -fno-tree-loop-distribute-patterns (GCC makes no
 * memset or memcpy of them), and memcmp: the harness never leans on the
 * routines it checks, and the table holds these six sites only.
 *
 * Placement: each arena lies between two PROT_NONE pages, so a store or
 * load past either end faults.  A block (the destination; for a move the
 * source and destination together) ends 0..END_MAX bytes before the back
 * guard page (its start walks every page offset), starts in a page's
 * last TAIL bytes, or starts right after the front guard page.  The
 * window checked is the block, LEAD bytes on its far side, and every
 * byte between it and the guard page on the near side.  Copy sources
 * come from a read-only arena (a store to the source faults), placed the
 * same ways.
 *
 * The destination arena and its twin, where the reference writes, hold
 * BG outside a check; each check compares the whole window with the
 * twin and then puts BG back where the block was (the whole window after
 * a mismatch), so a check costs its size, not its window.  (A store
 * beyond the window stays, and may fail a later check that then names
 * the wrong case.)
 *
 *   sweep [quick|full]	the sizes and placements of each plan below
 *   sweep fault		a memset one byte into the guard page: the
 *			fault report, for sweep.sh to see (exits 3)
 *
 * Prints one line per part and last "sweep: MODE: N checks, M
 * mismatches, T s"; exits 1 on a mismatch (the first ones of each part
 * described), 3 on a fault (the SIGSEGV handler names the case it was
 * in).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define END_MAX 4159		/* blocks end 0..END_MAX bytes before the guard */
#define TAIL 64			/* blocks start in a page's last TAIL bytes */
#define FRONT 64		/* or 0..FRONT-1 bytes after the front guard */
#define LEAD 256		/* bytes checked on a block's far side */
#define MAX_SIZE ((size_t)16 << 20)
#define MAX_DELTA 300		/* memmove overlaps: dst - src in +-MAX_DELTA */
#define CAP (MAX_SIZE + 4 * PAGE) /* an arena's bytes: a whole number of pages */
#define MAX_REPORTS 8		/* mismatches described in each part */

/* The loops the harness spends its time in, vectorized at every level
 * (-O2's cost model vectorizes no loop of unknown count): the full sweep
 * runs in half the time.  Still loops: loop distribution stays off, so
 * GCC makes no memset or memcpy of them (sweep.sh counts the sites).
 * clang has no noipa, and vectorizes these loops at -O2 as it is; its
 * loop idiom pass is off instead (sweep.sh, SWEEP_CC), and noinline
 * keeps each site in its function (the functions are external, so no
 * caller's constant reaches them). */
#ifdef __clang__
#define SITE __attribute__((noinline))
#define VECTOR
#else
#define SITE __attribute__((noipa))
#define VECTOR __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#endif
#define N(x) (sizeof(x) / sizeof((x)[0]))

/* ---- The sites: one per op ------------------------------------------- */

SITE void *site_memset(void *d, int c, size_t n)
{
	return memset(d, c, n);
}

SITE void site_bzero(void *d, size_t n)
{
	bzero(d, n);
}

SITE void site_clear(void *d, size_t n)
{
	explicit_bzero(d, n);
}

SITE void *site_memcpy(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n);
}

SITE void *site_mempcpy(void *d, const void *s, size_t n)
{
	return mempcpy(d, s, n);
}

SITE void *site_memmove(void *d, const void *s, size_t n)
{
	return memmove(d, s, n);
}

enum op { OP_MEMSET, OP_BZERO, OP_CLEAR, OP_MEMCPY, OP_MEMPCPY, OP_MEMMOVE };
static const char *const op_names[] = {
	"memset", "bzero", "explicit_bzero", "memcpy", "mempcpy", "memmove"
};

/* The site's return value; NULL for the void ones. */
static void *call_site(enum op op, uint8_t *d, const uint8_t *s, int c, size_t n)
{
	switch (op) {
	case OP_MEMSET:
		return site_memset(d, c, n);
	case OP_BZERO:
		site_bzero(d, n);
		return NULL;
	case OP_CLEAR:
		site_clear(d, n);
		return NULL;
	case OP_MEMCPY:
		return site_memcpy(d, s, n);
	case OP_MEMPCPY:
		return site_mempcpy(d, s, n);
	default:
		return site_memmove(d, s, n);
	}
}

static void *want_return(enum op op, uint8_t *d, size_t n)
{
	if (op == OP_BZERO || op == OP_CLEAR)
		return NULL;
	return op == OP_MEMPCPY ? d + n : d;
}

/* ---- The reference: plain byte loops ---------------------------------- */

SITE VECTOR static void ref_set(uint8_t *d, int c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)c;
}

/* A move the way the C standard says: as if through a temporary. */
SITE VECTOR static void ref_move(uint8_t *d, const uint8_t *s, size_t n)
{
	if (d < s)
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	else
		for (size_t i = n; i-- > 0;)
			d[i] = s[i];
}

/* ---- Window set-up between checks: word loops ----------------------- */

typedef uint64_t __attribute__((may_alias, aligned(1))) word;

VECTOR static void fill_window(uint8_t *d, uint8_t c, size_t n)
{
	uint64_t v = c * 0x0101010101010101ull;
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		*(word *)(d + i) = v;
	for (; i < n; i++)
		d[i] = c;
}

VECTOR static void copy_window(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		*(word *)(d + i) = *(const word *)(s + i);
	for (; i < n; i++)
		d[i] = s[i];
}

/* ---- Arenas ------------------------------------------------------------ */

struct arena {
	uint8_t *lo;		/* the first byte after the front guard page */
	uint8_t *hi;		/* the back guard page: the first byte that faults */
};

/* dst: where the sites write; ref: its twin, where the reference
 * writes; src: the copy sources and every move's initial bytes, a
 * pattern, read-only. */
static struct arena dst, ref, src;

static void arena_map(struct arena *a)
{
	size_t len = CAP + 2 * PAGE;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p, PAGE, PROT_NONE) ||
	    mprotect(p + PAGE + CAP, PAGE, PROT_NONE)) {
		perror("sweep: mmap");
		exit(2);
	}
	a->lo = p + PAGE;
	a->hi = p + PAGE + CAP;
}

/* The byte at the same offset in arena a as p in dst. */
static uint8_t *in(const struct arena *a, const uint8_t *p)
{
	return a->lo + (p - dst.lo);
}

/* The background of every check: no fill (fills[] below) and no source
 * byte equals it, so every byte a site writes shows. */
#define BG 0xa5

/* The source pattern: a hash of the position, below 0x80 (never BG), so
 * that a copy from the wrong offset shows too. */
static uint8_t pattern(size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return (uint8_t)(x >> 25);
}

static void arenas_map(void)
{
	arena_map(&dst);
	arena_map(&ref);
	arena_map(&src);
	fill_window(dst.lo, BG, CAP);
	fill_window(ref.lo, BG, CAP);
	for (size_t i = 0; i < CAP; i++)
		src.lo[i] = pattern(i);
	if (mprotect(src.lo, CAP, PROT_READ)) {
		perror("sweep: mprotect");
		exit(2);
	}
}

/* ---- Placements -------------------------------------------------------- */

enum place_kind { P_END, P_TAIL, P_FRONT };

struct place {
	enum place_kind kind;
	unsigned at;		/* bytes before the guard, into the tail, after the front */
};

struct span {
	uint8_t *lo, *hi;
};

/* Where a block of len bytes goes in arena a; *w gets the window
 * checked around it. */
static uint8_t *place_block(const struct arena *a, struct place p, size_t len,
			    struct span *w)
{
	uintptr_t page;
	uint8_t *b;

	switch (p.kind) {
	case P_END:
		b = a->hi - p.at - len;
		break;
	case P_TAIL:
		/* the page that leaves [b, b+len) before the guard */
		page = (uintptr_t)(a->hi - len - PAGE) & ~(uintptr_t)(PAGE - 1);
		b = (uint8_t *)page + PAGE - TAIL + p.at;
		break;
	default:
		b = a->lo + p.at;
		w->lo = a->lo;
		w->hi = b + len + LEAD;
		return b;
	}
	w->lo = b - LEAD;
	w->hi = a->hi;
	return b;
}

/* ---- What is being checked now ---------------------------------------- */

static struct {
	enum op op;
	size_t n;
	uint8_t *d;
	const uint8_t *s;
	int c;
} cur;

static unsigned long checks, mismatches, part_mismatches;

static const struct arena *arena_of(const uint8_t *p)
{
	return p >= src.lo && p < src.hi ? &src : &dst;
}

/* "at page offset 0x..., N bytes before the guard page" of a block
 * (and how far after the front guard page, when that is near). */
static int where(char *buf, size_t size, const uint8_t *p, size_t n)
{
	const struct arena *a = arena_of(p);
	int len = snprintf(buf, size, "at page offset 0x%03lx, %ld bytes "
			   "before the guard page",
			   (unsigned long)((uintptr_t)p & (PAGE - 1)),
			   (long)(a->hi - (p + n)));

	if (p - a->lo < PAGE)
		len += snprintf(buf + len, size - len, ", %ld after the front one",
				(long)(p - a->lo));
	return len;
}

/* The current case in words (snprintf only: the fault handler uses it). */
static int describe(char *buf, size_t size)
{
	int len = snprintf(buf, size, "%s size %zu: dst ", op_names[cur.op], cur.n);

	len += where(buf + len, size - len, cur.d, cur.n);
	if (cur.op >= OP_MEMCPY) {
		len += snprintf(buf + len, size - len, "; src ");
		len += where(buf + len, size - len, cur.s, cur.n);
		if (arena_of(cur.s) == &dst)
			len += snprintf(buf + len, size - len, "; dst - src %ld",
					(long)(cur.d - cur.s));
	} else {
		len += snprintf(buf + len, size - len, "; fill 0x%02x", cur.c);
	}
	return len;
}

/* A fault in a site call is a failure: name the case and stop.
 * snprintf is not async-signal-safe, but the process ends here and the
 * fault came from a site, not from inside stdio. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char msg[512];
	int len = snprintf(msg, sizeof msg, "FAULT: %s at dst%+ld during ",
			   sig == SIGSEGV ? "SIGSEGV" : "SIGBUS",
			   (long)((uint8_t *)si->si_addr - cur.d));

	len += describe(msg + len, sizeof msg - len - 1);
	msg[len++] = '\n';
	if (write(1, msg, len) < 0)
		_exit(4);
	_exit(3);
}

static void catch_faults(void)
{
	struct sigaction sa;

	/* set field by field: clang copies a 152-byte initializer with a
	 * memcpy call, which would be a seventh site */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* ---- One check --------------------------------------------------------- */

static void report(const struct span *w, void *ret, void *want)
{
	char msg[512];
	const uint8_t *r = in(&ref, w->lo);
	size_t len = w->hi - w->lo, i, bad = 0, first = len;

	describe(msg, sizeof msg);
	printf("MISMATCH %s\n", msg);
	if (ret != want)
		printf("    returned dst%+ld, not dst%+ld\n",
		       (long)((uint8_t *)ret - cur.d), (long)((uint8_t *)want - cur.d));
	for (i = 0; i < len; i++)
		if (w->lo[i] != r[i] && bad++ == 0)
			first = i;
	if (bad)
		printf("    first bad byte at dst%+ld: 0x%02x, want 0x%02x; "
		       "%zu bad bytes in [dst%+ld, dst%+ld)\n",
		       (long)(w->lo + first - cur.d), w->lo[first], r[first],
		       bad, (long)(w->lo - cur.d), (long)(w->hi - cur.d));
}

/* Call the site, compare the window with the reference's twin, and put
 * BG back over the block [b, b+len) in both (over the whole window after
 * a mismatch: the site may have written anywhere in it). */
static void run_check(const struct span *w, uint8_t *b, size_t len)
{
	void *want = want_return(cur.op, cur.d, cur.n);
	void *ret = call_site(cur.op, cur.d, cur.s, cur.c, cur.n);
	int good;

	checks++;
	good = ret == want && !memcmp(w->lo, in(&ref, w->lo), w->hi - w->lo);
	if (!good) {
		mismatches++;
		if (part_mismatches++ < MAX_REPORTS)
			report(w, ret, want);
		b = w->lo;
		len = w->hi - w->lo;
	}
	fill_window(b, BG, len);
	fill_window(in(&ref, b), BG, len);
}

static void check_set_at(enum op op, size_t n, uint8_t *d, const struct span *w, int c)
{
	ref_set(in(&ref, d), c, n);
	cur.op = op, cur.n = n, cur.d = d, cur.s = NULL, cur.c = c;
	run_check(w, d, n);
}

static void check_set(enum op op, size_t n, struct place p, int c)
{
	struct span w;
	uint8_t *d = place_block(&dst, p, n, &w);

	check_set_at(op, n, d, &w, c);
}

/* A copy from the read-only source arena: sp places the source. */
static void check_copy(enum op op, size_t n, struct place dp, struct place sp)
{
	struct span w, sw;
	uint8_t *d = place_block(&dst, dp, n, &w);
	const uint8_t *s = place_block(&src, sp, n, &sw);

	ref_move(in(&ref, d), s, n);
	cur.op = op, cur.n = n, cur.d = d, cur.s = s, cur.c = 0;
	run_check(&w, d, n);
}

/* A memmove within one block, which starts as the source pattern (the
 * rest of the window stays BG): delta = dst - src. */
static void check_move(size_t n, long delta, struct place p)
{
	size_t gap = (size_t)labs(delta);
	struct span w;
	uint8_t *b = place_block(&dst, p, n + gap, &w);
	uint8_t *d = delta >= 0 ? b + gap : b;
	uint8_t *s = delta >= 0 ? b : b + gap;

	copy_window(b, in(&src, b), n + gap);
	copy_window(in(&ref, b), in(&src, b), n + gap);
	ref_move(in(&ref, d), in(&ref, s), n);
	cur.op = OP_MEMMOVE, cur.n = n, cur.d = d, cur.s = s, cur.c = 0;
	run_check(&w, b, n + gap);
}

/* ---- The plans --------------------------------------------------------- */

struct plan {
	const char *name;
	size_t every_size;	/* every size 0..every_size */
	unsigned max_k;		/* and 2^k-1, 2^k, 2^k+1 up to 2^max_k */
	size_t big;		/* sizes above this at big_places only */
	unsigned end_lo;	/* end distances 0..end_lo */
	unsigned end_hi;	/* and end_hi..END_MAX */
	unsigned front_step;	/* front offsets 0..FRONT-1 in this step */
	size_t move_every;	/* moves: every size 0..move_every, every delta */
};

static const struct plan quick = {
	.name = "quick", .every_size = 300, .max_k = 16, .big = 4096,
	.end_lo = 300, .end_hi = 3840, .front_step = 9,
	.move_every = 300,
};

static const struct plan full = {
	.name = "full", .every_size = 1024, .max_k = 24, .big = 65536,
	.end_lo = END_MAX, .end_hi = END_MAX + 1, .front_step = 1,
	.move_every = 1024,
};

static const struct plan *plan;

static const int fills[] = { 0, 1, 0x7f, 0x80, 0xff };	/* never BG */

/* Sizes above plan->big, and large moves, go to these few only. */
static const struct place big_places[] = {
	{ P_END, 0 }, { P_TAIL, TAIL - 1 }, { P_FRONT, 1 },
};

/* Moves: ends at and near the guard, the page tail, the front. */
static const struct place move_places[] = {
	{ P_END, 0 }, { P_END, 1 }, { P_END, 63 }, { P_TAIL, 1 },
	{ P_TAIL, TAIL - 1 }, { P_FRONT, 0 }, { P_FRONT, 7 },
};

/* Large moves: both directions, next to and far from each other. */
static const long big_deltas[] = { -MAX_DELTA, -64, -1, 1, 63, MAX_DELTA };

static struct place places[END_MAX + 1 + TAIL + FRONT];
static size_t nplaces;

static void add_place(enum place_kind kind, unsigned at)
{
	places[nplaces++] = (struct place){ kind, at };
}

static void make_places(void)
{
	unsigned i;

	for (i = 0; i <= END_MAX; i++)
		if (i <= plan->end_lo || i >= plan->end_hi)
			add_place(P_END, i);
	for (i = 0; i < TAIL; i++)
		add_place(P_TAIL, i);
	for (i = 0; i < FRONT; i += plan->front_step)
		add_place(P_FRONT, i);
}

static size_t sizes[2048], nsizes;

/* Every size to every_size, then 2^k-1, 2^k, 2^k+1 above it. */
static void make_sizes(void)
{
	size_t n, k;

	for (n = 0; n <= plan->every_size; n++)
		sizes[nsizes++] = n;
	for (k = 1; k <= plan->max_k; k++)
		for (n = ((size_t)1 << k) - 1; n <= ((size_t)1 << k) + 1; n++)
			if (n > plan->every_size)
				sizes[nsizes++] = n;
}

/* ---- The parts ---------------------------------------------------------- */

/* The bug 44de022 fixed, by name: explicit_bzero(p, 256) with p in a
 * page's last 64 bytes must leave no byte non-zero; and a 256-byte set
 * at every page offset writes every byte. */
static void regression(void)
{
	uint8_t *page = dst.hi - 2 * PAGE;
	unsigned off;
	size_t f;

	for (off = PAGE - TAIL; off < PAGE; off++) {
		struct span w = { page + off - LEAD, dst.hi };

		check_set_at(OP_CLEAR, 256, page + off, &w, 0);
	}
	for (off = 0; off < PAGE; off++) {
		struct span w = { page + off - LEAD, dst.hi };

		for (f = 0; f < N(fills); f++)
			check_set_at(OP_MEMSET, 256, page + off, &w, fills[f]);
		check_set_at(OP_BZERO, 256, page + off, &w, 0);
		check_set_at(OP_CLEAR, 256, page + off, &w, 0);
	}
}

/* Every op at every placement of size n: the fill turns with the
 * placement, the source's placement with the size. */
static void sweep_size(size_t n)
{
	const struct place *pp = n > plan->big ? big_places : places;
	size_t np = n > plan->big ? N(big_places) : nplaces, i;

	for (i = 0; i < np; i++) {
		struct place sp = pp[(i + n) % np];

		check_set(OP_MEMSET, n, pp[i], fills[(i + n) % N(fills)]);
		check_set(OP_BZERO, n, pp[i], 0);
		check_set(OP_CLEAR, n, pp[i], 0);
		check_copy(OP_MEMCPY, n, pp[i], sp);
		check_copy(OP_MEMPCPY, n, pp[i], sp);
		check_copy(OP_MEMMOVE, n, pp[i], sp);
	}
}

static void sweep_sizes(void)
{
	for (size_t i = 0; i < nsizes; i++)
		sweep_size(sizes[i]);
}

/* Overlapping memmoves, both directions, every distance, at the move
 * placements; the large sizes at a few distances at the guard page. */
static void sweep_moves(void)
{
	size_t n, i, k;
	long delta;

	for (n = 0; n <= plan->move_every; n++)
		for (delta = -MAX_DELTA; delta <= MAX_DELTA; delta++)
			for (i = 0; i < N(move_places); i++)
				check_move(n, delta, move_places[i]);
	for (k = 0; k < nsizes; k++)
		if (sizes[k] > plan->move_every)
			for (i = 0; i < N(big_deltas); i++)
				check_move(sizes[k], big_deltas[i], big_places[0]);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void part(const char *what, void (*fn)(void))
{
	unsigned long c0 = checks;
	double t0 = now();

	part_mismatches = 0;
	fn();
	printf("%s: %lu checks, %lu mismatches, %.2f s\n", what,
	       checks - c0, part_mismatches, now() - t0);
}

/* A real overrun through the memset site, one byte into the guard page:
 * the fault must be reported as the case it happened in. */
static void overrun(void)
{
	struct span w = { dst.hi - 64 + 1 - LEAD, dst.hi };

	cur.op = OP_MEMSET, cur.n = 64, cur.d = dst.hi - 64 + 1, cur.c = 1;
	run_check(&w, cur.d, 0);
}

int main(int argc, char **argv)
{
	double t0 = now();

	setvbuf(stdout, NULL, _IOLBF, 0);	/* in order with the fault line */
	plan = argc > 1 && !strcmp(argv[1], "full") ? &full : &quick;
	arenas_map();
	make_places();
	make_sizes();
	catch_faults();
	if (argc > 1 && !strcmp(argv[1], "fault"))
		part("fault: a memset into the guard page", overrun);
	part("regression: explicit_bzero(p, 256) at page offsets 0xfc0..0xfff, "
	     "and 256-byte sets at 0..4095", regression);
	part("sizes: every op, every placement", sweep_sizes);
	part("moves: overlapping, both directions", sweep_moves);
	printf("sweep: %s: %lu checks, %lu mismatches, %.2f s\n", plan->name,
	       checks, mismatches, now() - t0);
	return mismatches ? 1 : 0;
}
