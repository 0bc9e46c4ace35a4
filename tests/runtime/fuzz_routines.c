// SPDX-License-Identifier: MIT
/*
 * fuzz_routines.c - differential fuzzing of the routines against a byte
 * loop.  Proves: for whatever case an input decodes to, every set routine
 * (REPSTOS_VARIANTS) as a memset and every copy routine
 * (REPSTOS_COPY_VARIANTS) as a copy and as a move
 *  - leaves each destination byte as a plain byte loop does (memmove's:
 *    from the end when the destination is above the source);
 *  - changes no byte around it: 256 before, and every byte up to the
 *    PROT_NONE guard page after it (a store past that faults), and no
 *    source byte of a copy;
 *  - keeps its register contract (repstos_site.h): rdi = dest + n,
 *    rsi = src + n (copies), rcx = 0, rax the fill byte (sets), every
 *    other GPR, MXCSR and the low 128 bits of every undeclared xmm as
 *    they went in, the direction flag clear;
 *  - and stores nothing anywhere else in the arenas (each is compared
 *    whole every few thousand cases, and each case's bytes before its
 *    call, so a stray store is named as such).
 * A case is a routine, a size (log-uniform to 1 MiB, with extra weight
 * on powers of two and the routines' size classes, where off-by-one
 * bugs live), where each region starts in its page (in the last 64
 * bytes, the first 64, anywhere) or how near it ends to the guard page
 * (0..127 bytes) or starts after one, a move's distance (either way:
 * within a few vectors, just overlapping or just apart, far), the fill
 * byte, and the thresholds (those of a program that saw no ERMS, ~0;
 * small ones, 1100 and 70000, so rep stosb, rep movsb and the
 * non-temporal loop run; or any from a list).  On a mismatch it prints
 * the case and the input in hex and aborts.
 *
 * Two drivers share decode() and run_case():
 *  - FUZZ_LIBFUZZER: LLVMFuzzerTestOneInput, for clang -fsanitize=fuzzer
 *    (`make fuzz-routines`).  The routines are assembler, which libFuzzer
 *    cannot see, so the harness counts each class of case it reaches in
 *    libFuzzer's extra counters, and an input that reaches a new class is
 *    kept.
 *  - otherwise a main (tests/runtime/fuzz.sh, for make test):
 *      fuzz_routines [-s SEED] [-t SECONDS | -n CASES] [-v] [-x HEX] [PATH...]
 *    replays every file of each PATH (a corpus directory or a file),
 *    the input -x gives, then random inputs from a PRNG seeded with SEED
 *    (printed; the same SEED replays the same cases) for SECONDS
 *    (default 10) or CASES.  Exits 0 when every case passed.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "repstos.h"
#include "routines/routines.h"
#include "refmove.h"

/* ---- What a routine is called with: regs_harness.S -------------------- */

/* regs_harness.h's regs_call_xmm: the routine sees exactly the registers
 * the case chose, and every one it changes shows. */
#include "regs_harness.h"

enum { RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP };
static const char *const gpr_name[16] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* ---- The routines, from the contract's lists --------------------------- */

struct routine {
	const char *name;
	void (*fn)(void);
};

#define X_ROUTINE(e, name, sym, needs) { name, sym },
static const struct routine set_routines[] = { REPSTOS_VARIANTS(X_ROUTINE) };
static const struct routine copy_routines[] = { REPSTOS_COPY_VARIANTS(X_ROUTINE) };
#undef X_ROUTINE

#define NSET	(sizeof(set_routines) / sizeof(set_routines[0]))
#define NCOPY	(sizeof(copy_routines) / sizeof(copy_routines[0]))

enum op { OP_SET, OP_COPY, OP_MOVE };
static const char *const op_name[] = { "set", "copy", "move" };

/* ---- Memory ------------------------------------------------------------- */

#define PAGE		4096u
#define SIZE_BITS	20		/* sizes below 2^20, and 2^20 + 3 */
#define MAX_N		(((size_t)1 << SIZE_BITS) + 3)
#define DIST_BITS	20
/* Room for a move's two regions (n + |distance| <= 2 MiB + 6) and for
 * placing them anywhere in a page. */
#define ARENA		(((size_t)2 << 20) + 4 * PAGE)
#define PRE		256u		/* bytes checked before a region */
#define POST		PAGE		/* ... and after it, to the guard */

/* An arena: ARENA bytes with a PROT_NONE page on each side, so that a
 * region placed against either end faults on any access past it.  The
 * pristine copy holds what each byte must be before and, outside the
 * destination, after a call: a non-periodic pattern, so that a byte
 * copied from the wrong place or left unwritten shows. */
struct arena {
	uint8_t *mem, *pristine;
};

static struct arena dst_arena, src_arena;
static uint8_t *ref;			/* the byte loop's result */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void *map_or_die(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void arena_init(struct arena *a, uint64_t seed)
{
	uint8_t *m = map_or_die(ARENA + 2 * PAGE, PROT_READ | PROT_WRITE);
	size_t i;

	if (mprotect(m, PAGE, PROT_NONE) ||
	    mprotect(m + PAGE + ARENA, PAGE, PROT_NONE)) {
		perror("mprotect");
		exit(2);
	}
	a->mem = m + PAGE;
	a->pristine = map_or_die(ARENA, PROT_READ | PROT_WRITE);
	for (i = 0; i < ARENA; i += 8) {
		uint64_t v = splitmix(&seed);

		memcpy(a->pristine + i, &v, 8);
	}
	memcpy(a->mem, a->pristine, ARENA);
}

static void fuzz_setup(void)
{
	arena_init(&dst_arena, 1);
	arena_init(&src_arena, 2);
	ref = map_or_die(ARENA, PROT_READ | PROT_WRITE);
}

/* ---- A case, and how an input decodes to one --------------------------- */

/* Where a region goes in its arena. */
enum place_mode {
	PLACE_END,	/* ending 0..127 bytes before the guard page */
	PLACE_LAST64,	/* starting in a page's last 64 bytes */
	PLACE_FIRST64,	/* starting in a page's first 64 bytes */
	PLACE_ANY,	/* starting anywhere in a page */
	PLACE_LOW,	/* starting 0..127 bytes after the low guard page */
	PLACE_COUNT
};
static const char *const place_name[] = { "end", "last64", "first64", "any", "low" };

struct place {
	unsigned mode, arg;
};

struct thresholds {
	unsigned long long vec_rep_min, wide_rep_min, short_rep_max;
	unsigned long long copy_rep_min, copy_nt_min;
};

enum thr_mode { THR_DEFAULT, THR_SMALL, THR_LIST, THR_COUNT };
static const char *const thr_name[] = { "default", "small", "list" };

struct fuzz_case {
	enum op op;
	unsigned routine;	/* in set_routines or copy_routines */
	size_t n;
	uint8_t fill;
	struct place dst, src;	/* src: a copy's, in its own arena */
	int anchor_src;		/* a move: src, not dst, placed as dst says */
	long dist;		/* a move: destination minus source */
	enum thr_mode thr_mode;
	struct thresholds t;
	uint64_t reg_seed;	/* the other registers' values */
};

/* Bytes in, 0 past the end: a short input is still a case, its missing
 * fields the simplest values, and every field stays at its offset
 * whatever the op, so a mutation changes one thing. */
struct reader {
	const uint8_t *p;
	size_t len, at;
};

static unsigned next_byte(struct reader *r)
{
	unsigned b = r->at < r->len ? r->p[r->at] : 0;

	r->at++;
	return b;
}

static uint32_t next_u24(struct reader *r)
{
	uint32_t v = next_byte(r);

	v |= next_byte(r) << 8;
	return v | next_byte(r) << 16;
}

/* A bit length, then random bits below the top one: every power of two
 * gets as many cases as the next. */
static size_t log_uniform(unsigned bits, uint32_t low)
{
	size_t top;

	if (!bits)
		return 0;
	top = (size_t)1 << (bits - 1);
	return top | (low & (top - 1));
}

/* Where the routines change strategy (vector widths and their multiples,
 * the tops of their no-loop classes, page and threshold sizes): a size
 * one either side of these is where a class's first or last case is. */
static const size_t edges[] = {
	0, 4, 8, 16, 32, 64, 128, 256, 320, 384, 512, 768, 1024, 1100,
	2048, 4096, 8192, 65536, 70000,
};
#define NEDGES (sizeof(edges) / sizeof(edges[0]))

static size_t clamp_size(long n)
{
	return n < 0 ? 0 : (size_t)n > MAX_N ? MAX_N : (size_t)n;
}

static size_t decode_size(struct reader *r)
{
	unsigned kind = next_byte(r) % 4, a = next_byte(r), d = next_byte(r);
	uint32_t low = next_u24(r);

	switch (kind) {
	case 2:		/* 2^k - 3 .. 2^k + 3 */
		return clamp_size(((long)1 << a % (SIZE_BITS + 1)) + (long)(d % 7) - 3);
	case 3:		/* an edge, or one either side */
		return clamp_size((long)edges[a % NEDGES] + (long)(d % 3) - 1);
	default:	/* half the cases: log-uniform */
		return log_uniform(a % (SIZE_BITS + 1), low);
	}
}

static struct place decode_place(struct reader *r, int *bit)
{
	unsigned m = next_byte(r);
	struct place p;

	p.mode = m % PLACE_COUNT;
	p.arg = next_byte(r);
	p.arg |= next_byte(r) << 8;
	if (bit)
		*bit = m >> 7;
	return p;
}

/* A move's distance: within a few vectors of the source (the loops'
 * short-distance paths), just overlapping or just apart, or far. */
static long decode_dist(struct reader *r, size_t n)
{
	unsigned k = next_byte(r), a = next_byte(r);
	uint32_t low = next_u24(r);
	size_t mag;

	switch (k >> 1 & 3) {
	case 0:
	case 3:
		mag = a % 68;
		break;
	case 1:
		mag = clamp_size((long)n + (long)(a % 5) - 2);
		break;
	default:
		mag = log_uniform(a % (DIST_BITS + 1), low);
	}
	return k & 1 ? -(long)mag : (long)mag;
}

/* Thresholds from a list: each routine path's threshold at or near a
 * size class's ends, and never (~0, twice the weight). */
static unsigned long long pick_threshold(struct reader *r)
{
	static const unsigned long long list[] = {
		0, 1, 64, 129, 256, 257, 385, 513, 1024, 1100, 4096, 65536,
		70000, ~0ull, ~0ull,
	};

	return list[next_byte(r) % (sizeof(list) / sizeof(list[0]))];
}

static void decode_thresholds(struct reader *r, struct fuzz_case *c)
{
	struct thresholds *t = &c->t;

	c->thr_mode = next_byte(r) % THR_COUNT;
	/* defaults: as routines.c has them before a start-up saw ERMS */
	*t = (struct thresholds){ ~0ull, ~0ull, 128, ~0ull, ~0ull };
	if (c->thr_mode == THR_SMALL)
		*t = (struct thresholds){ 1100, 1100, 1100, 1100, 70000 };
	if (c->thr_mode == THR_LIST) {
		t->vec_rep_min = pick_threshold(r);
		t->wide_rep_min = pick_threshold(r);
		t->short_rep_max = pick_threshold(r);
		t->copy_rep_min = pick_threshold(r);
		t->copy_nt_min = pick_threshold(r);
	} else {
		r->at += 5;
	}
}

/* Bytes a case takes; the random driver makes inputs this long. */
#define CASE_BYTES	26

static void decode(const uint8_t *data, size_t len, struct fuzz_case *c)
{
	struct reader r = { data, len, 0 };
	unsigned sel = next_byte(&r) % (NSET + 2 * NCOPY);

	memset(c, 0, sizeof(*c));
	c->op = sel < NSET ? OP_SET : sel < NSET + NCOPY ? OP_COPY : OP_MOVE;
	c->routine = sel < NSET ? sel : (sel - NSET) % NCOPY;
	c->n = decode_size(&r);				/* bytes 1..6 */
	c->fill = (uint8_t)next_byte(&r);		/* 7 */
	c->dst = decode_place(&r, NULL);		/* 8..10 */
	c->src = decode_place(&r, &c->anchor_src);	/* 11..13 */
	c->dist = decode_dist(&r, c->n);		/* 14..18 */
	decode_thresholds(&r, c);			/* 19..24 */
	c->reg_seed = next_byte(&r);			/* 25 */
}

/* ---- Where the case's regions are --------------------------------------- */

/* Offset in its arena of a region of len bytes whose byte at anchor is
 * placed as p says.  The page placements take the highest such start,
 * so the region ends within a page of the guard and the check up to the
 * guard covers every byte after it. */
static size_t place_at(struct place p, size_t len, size_t anchor)
{
	size_t top = ARENA - len, o;

	switch (p.mode) {
	case PLACE_END:
		return top - p.arg % 128;
	case PLACE_LOW:
		return p.arg % 128;
	case PLACE_LAST64:
		o = PAGE - 64 + p.arg % 64;
		break;
	case PLACE_FIRST64:
		o = p.arg % 64;
		break;
	default:
		o = p.arg % PAGE;
	}
	return top - (top + anchor - o) % PAGE;
}

struct layout {
	size_t dst, src;	/* offsets: dst in dst_arena, src in its own */
	size_t lo, hi;		/* the window checked in dst_arena */
	size_t slo, shi;	/* ... and in src_arena (copies) */
};

static void window(size_t start, size_t end, size_t *lo, size_t *hi)
{
	*lo = start > PRE ? start - PRE : 0;
	*hi = ARENA - end > POST ? end + POST : ARENA;
}

static void lay_out(const struct fuzz_case *c, struct layout *l)
{
	size_t n = c->n, mag = (size_t)labs(c->dist);
	size_t dpos = c->dist > 0 ? mag : 0, spos = c->dist > 0 ? 0 : mag;
	size_t lo;

	memset(l, 0, sizeof(*l));
	if (c->op != OP_MOVE) {
		l->dst = place_at(c->dst, n, 0);
		window(l->dst, l->dst + n, &l->lo, &l->hi);
		if (c->op == OP_COPY) {
			l->src = place_at(c->src, n, 0);
			window(l->src, l->src + n, &l->slo, &l->shi);
		}
		return;
	}
	/* a move: both regions in dst_arena, placed as one */
	lo = place_at(c->dst, n + mag, c->anchor_src ? spos : dpos);
	l->dst = lo + dpos;
	l->src = lo + spos;
	window(lo, lo + n + mag, &l->lo, &l->hi);
}

/* ---- Telling libFuzzer which class of case an input reached ------------ */

#ifdef FUZZ_LIBFUZZER
/* Each class has its own counter, and libFuzzer keeps an input for each
 * (a few bytes on disk): the classes are what the routines branch on,
 * coarse where they do not (sizes past 8 KiB by bit length only). */
#define NOPS		(NSET + 2 * NCOPY)
#define NBITS		(SIZE_BITS + 2)		/* bit lengths of sizes */
#define EXACT_BITS	14			/* below 8 KiB: and +-1 */
#define NSIZE_CLASS	(EXACT_BITS * 4 + NBITS - EXACT_BITS)
#define NGEO		6
#define NDIST_CLASS	8

static struct {
	uint8_t where[NOPS][NSIZE_CLASS][NGEO];	/* routine, size, page */
	uint8_t dist[NCOPY][NBITS][NDIST_CLASS];	/* moves: distance */
	uint8_t thr[NOPS][NBITS][THR_COUNT];	/* thresholds, by size */
} features __attribute__((section("__libfuzzer_extra_counters"), used));

static unsigned bit_length(size_t n)
{
	return n ? 64 - (unsigned)__builtin_clzll(n) : 0;
}

/* Bit length, and below 8 KiB whether n is a power of two, one below
 * or one above (where a size class starts or ends). */
static unsigned size_class(size_t n)
{
	unsigned b = bit_length(n);
	size_t p = b ? (size_t)1 << (b - 1) : 0;

	if (b >= EXACT_BITS)
		return EXACT_BITS * 4 + b - EXACT_BITS;
	return b * 4 + (n == p ? 0 : n == 2 * p - 1 ? 1 : n == p + 1 ? 2 : 3);
}

/* Where the destination starts in its page, and whether it ends near the
 * guard: what the page-end paths test. */
static unsigned geo_class(const struct fuzz_case *c, const struct layout *l)
{
	size_t off = l->dst % PAGE;
	unsigned start = off < 64 ? 0 : off >= PAGE - 64 ? 1 : 2;

	return start * 2 + (ARENA - (l->dst + c->n) < 128);
}

/* A move's direction, and no overlap, a short distance or a long one. */
static unsigned dist_class(const struct fuzz_case *c)
{
	size_t mag = (size_t)labs(c->dist);
	unsigned k = !mag ? 0 : mag < 64 ? 1 : mag < c->n ? 2 : 3;

	return k * 2 + (c->dist > 0);
}

static void count_features(const struct fuzz_case *c, const struct layout *l)
{
	unsigned opr = c->op == OP_SET ? c->routine :
		       NSET + (c->op == OP_MOVE) * NCOPY + c->routine;
	unsigned b = bit_length(c->n);

	features.where[opr][size_class(c->n)][geo_class(c, l)]++;
	features.thr[opr][b][c->thr_mode]++;
	if (c->op == OP_MOVE)
		features.dist[c->routine][b][dist_class(c)]++;
}
#else
static void count_features(const struct fuzz_case *c, const struct layout *l)
{
	(void)c, (void)l;
}
#endif

/* ---- Saying what failed ----------------------------------------------- */

static const uint8_t *cur_input;	/* the input being run, to print */
static size_t cur_len;
static char cur_origin[300];		/* the driver's: a file, a seed */
static const struct fuzz_case *cur_case; /* ... and its case, for a fault */
static struct layout cur_layout;

static const char *routine_name(const struct fuzz_case *c)
{
	return c->op == OP_SET ? set_routines[c->routine].name :
				 copy_routines[c->routine].name;
}

/* A region: where it is, and the placement that put it there (NULL: a
 * move's other region, at the distance from the placed one). */
static void print_place(const char *what, const struct place *p, size_t off,
			size_t n)
{
	printf("  %s: ", what);
	if (p)
		printf("%s/%u: ", place_name[p->mode], p->arg);
	printf("page offset %#zx, ends %zu bytes before the guard page\n",
	       off % PAGE, ARENA - off - n);
}

/* A threshold as text, "~0" for never; slot: one buffer per argument. */
static const char *threshold(unsigned long long v, unsigned slot)
{
	static char buf[5][24];

	if (v == ~0ull)
		return "~0";
	snprintf(buf[slot], sizeof(buf[slot]), "%llu", v);
	return buf[slot];
}

static void print_case(const struct fuzz_case *c, const struct layout *l)
{
	const struct thresholds *t = &c->t;

	printf("case: %s %s n=%zu", op_name[c->op], routine_name(c), c->n);
	if (c->op == OP_SET)
		printf(" fill=%#x", c->fill);
	if (c->op == OP_MOVE)
		printf(" distance=%ld (dst - src)", c->dist);
	printf("\n");
	if (c->op == OP_MOVE) {
		print_place("dst", c->anchor_src ? NULL : &c->dst, l->dst, c->n);
		print_place("src", c->anchor_src ? &c->dst : NULL, l->src, c->n);
	} else {
		print_place("dst", &c->dst, l->dst, c->n);
	}
	if (c->op == OP_COPY)
		print_place("src (its own arena)", &c->src, l->src, c->n);
	printf("  thresholds %s: vec_rep_min %s wide_rep_min %s short_rep_max %s "
	       "copy_rep_min %s copy_nt_min %s\n", thr_name[c->thr_mode],
	       threshold(t->vec_rep_min, 0), threshold(t->wide_rep_min, 1),
	       threshold(t->short_rep_max, 2), threshold(t->copy_rep_min, 3),
	       threshold(t->copy_nt_min, 4));
}

static void print_input(void)
{
	size_t i;

	printf("input (%s): ", cur_origin);
	for (i = 0; i < cur_len; i++)
		printf("%02x", cur_input[i]);
	printf("\nreproduce: fuzz_routines -x ");
	for (i = 0; i < cur_len; i++)
		printf("%02x", cur_input[i]);
	printf("\n");
}

static void __attribute__((noreturn, format(printf, 3, 4)))
failed(const struct fuzz_case *c, const struct layout *l, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	print_case(c, l);
	print_input();
	fflush(stdout);
	abort();
}

/* ---- Running a case ------------------------------------------------------ */

static void byte_fill(uint8_t *d, uint8_t b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = b;
}

static void set_thresholds(const struct thresholds *t)
{
	__repstos_vec_rep_min = t->vec_rep_min;
	__repstos_wide_rep_min = t->wide_rep_min;
	__repstos_short_rep_max = t->short_rep_max;
	__repstos_copy_rep_min = t->copy_rep_min;
	__repstos_copy_nt_min = t->copy_nt_min;
}

/* The xmm registers a routine may change (REPSTOS_SITE_CLOBBERS or
 * REPSTOS_COPY_CLOBBERS), as a mask: the check follows the contract's
 * one definition. */
static uint32_t declared_xmm(int copy)
{
	static const char *const set[] = { REPSTOS_SITE_CLOBBERS };
	static const char *const cp[] = { REPSTOS_COPY_CLOBBERS };
	const char *const *list = copy ? cp : set;
	size_t n = copy ? sizeof(cp) / sizeof(cp[0]) : sizeof(set) / sizeof(set[0]);
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(list[i], "xmm", 3))
			m |= 1u << atoi(list[i] + 3);
	return m;
}

static void fill_registers(const struct fuzz_case *c, const struct layout *l,
			   struct regfile *in)
{
	uint64_t s = c->reg_seed * 0x100000001b3ull;
	unsigned i, j;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < 16; i++)
		in->gpr[i] = splitmix(&s);
	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j += 8) {
			uint64_t v = splitmix(&s);

			memcpy(in->vec[i] + j, &v, 8);
		}
	in->mxcsr = 0x1f80;
	in->gpr[RDI] = (uintptr_t)(dst_arena.mem + l->dst);
	in->gpr[RCX] = c->n;
	if (c->op == OP_SET)
		in->gpr[RAX] = c->fill;		/* zero-extended, as a site has it */
	else
		in->gpr[RSI] = (uintptr_t)(c->op == OP_COPY ?
					   src_arena.mem + l->src :
					   dst_arena.mem + l->src);
}

static void check_registers(const struct fuzz_case *c, const struct layout *l,
			    const struct regfile *in, const struct regfile *out)
{
	int copy = c->op != OP_SET;
	uint32_t declared = declared_xmm(copy);
	unsigned i;

	for (i = 0; i < 16; i++) {
		uint64_t want = in->gpr[i];

		if (i == RSP || (copy && i == RAX))
			continue;
		if (i == RDI || (copy && i == RSI))
			want += c->n;
		if (i == RCX)
			want = 0;
		if (out->gpr[i] != want)
			failed(c, l, "%s is %#llx, want %#llx", gpr_name[i],
			       (unsigned long long)out->gpr[i],
			       (unsigned long long)want);
	}
	if (out->flags & 1u << 10)
		failed(c, l, "direction flag left set");
	if (out->mxcsr != in->mxcsr)
		failed(c, l, "mxcsr changed");
	for (i = 0; i < 16; i++)
		if (!(declared >> i & 1) && memcmp(in->vec[i], out->vec[i], 16))
			failed(c, l, "xmm%u changed (not declared)", i);
}

/* Which bytes of got differ from want, as offsets from the start of
 * the region named (got[0] is at rel from it). */
static void report_bytes(const struct fuzz_case *c, const struct layout *l,
			 const uint8_t *got, const uint8_t *want, size_t len,
			 long rel, const char *region, const char *what)
{
	size_t i, first = len, last = 0, count = 0;

	for (i = 0; i < len; i++)
		if (got[i] != want[i]) {
			if (first == len)
				first = i;
			last = i;
			count++;
		}
	failed(c, l, "%s: %zu bytes differ, from %s%+ld to %s%+ld; the first is "
	       "%#x, want %#x", what, count, region, rel + (long)first, region,
	       rel + (long)last, got[first], want[first]);
}

static void check_bytes(const struct fuzz_case *c, const struct layout *l)
{
	uint8_t *mem = dst_arena.mem;
	size_t w = l->hi - l->lo;

	memcpy(ref, dst_arena.pristine + l->lo, w);
	if (c->op == OP_SET)
		byte_fill(ref + (l->dst - l->lo), c->fill, c->n);
	else if (c->op == OP_COPY)
		byte_move(ref + (l->dst - l->lo), src_arena.pristine + l->src, c->n);
	else
		byte_move(ref + (l->dst - l->lo), ref + (l->src - l->lo), c->n);
	if (memcmp(mem + l->lo, ref, w))
		report_bytes(c, l, mem + l->lo, ref, w,
			     (long)l->lo - (long)l->dst, "dst",
			     "destination, the bytes around it or a move's source");
	if (c->op == OP_COPY &&
	    memcmp(src_arena.mem + l->slo, src_arena.pristine + l->slo, l->shi - l->slo))
		report_bytes(c, l, src_arena.mem + l->slo, src_arena.pristine + l->slo,
			     l->shi - l->slo, (long)l->slo - (long)l->src, "src",
			     "the source or the bytes around it");
	memcpy(mem + l->lo, dst_arena.pristine + l->lo, w);
}

/* A store outside its case's windows stays in the arena: every few
 * thousand cases (and at the end) each arena is compared whole, and each
 * case's windows before its call (check_clean), so that such a store
 * shows as what it is, not as the failure of a later case. */
static void check_arenas(unsigned long cases)
{
	const struct arena *a[] = { &dst_arena, &src_arena };
	unsigned i;

	for (i = 0; i < 2; i++)
		if (memcmp(a[i]->mem, a[i]->pristine, ARENA)) {
			printf("FAIL: a byte of the %s arena changed outside every "
			       "case's window, in one of the last %lu cases (up to "
			       "%s)\n", i ? "source" : "destination", cases,
			       cur_origin);
			fflush(stdout);
			abort();
		}
}

#define CHECK_EVERY	4096

static unsigned long since_check;	/* cases since the last */

static void check_clean(const struct fuzz_case *c, const struct layout *l)
{
	if (memcmp(dst_arena.mem + l->lo, dst_arena.pristine + l->lo, l->hi - l->lo) ||
	    (c->op == OP_COPY && memcmp(src_arena.mem + l->slo,
					src_arena.pristine + l->slo, l->shi - l->slo)))
		failed(c, l, "this case's bytes changed before its call: a stray "
		       "store of one of the %lu cases before it", since_check);
}

static void run_case(const struct fuzz_case *c)
{
	static struct regfile in, out;
	const struct routine *r = c->op == OP_SET ? &set_routines[c->routine] :
						    &copy_routines[c->routine];
	struct layout l;

	lay_out(c, &l);
	cur_case = c;
	cur_layout = l;
	count_features(c, &l);
	set_thresholds(&c->t);
	fill_registers(c, &l, &in);
	check_clean(c, &l);
	regs_call_xmm(&in, &out, r->fn);
	check_registers(c, &l, &in, &out);
	check_bytes(c, &l);
}

static int verbose;

static void fuzz_one(const uint8_t *data, size_t len)
{
	struct fuzz_case c;

	cur_input = data;
	cur_len = len;
	decode(data, len, &c);
	if (verbose) {
		struct layout l;

		lay_out(&c, &l);
		print_case(&c, &l);
	}
	run_case(&c);
	if (++since_check == CHECK_EVERY) {
		check_arenas(since_check);
		since_check = 0;
	}
}

/* What the routines may run on this CPU: the start-up (pulled in by
 * repstos_cpu()) set the can bytes, or avx2 and avx512 test "vec". */
static void print_cpu(void)
{
	char names[256];

	printf("cpu [%s]; avx2 routines %s, avx512 routines %s\n",
	       repstos_feature_names(repstos_cpu()->features, names, sizeof(names)),
	       repstos_can_run(__repstos_can_avx2) ? "on" : "OFF (run vec)",
	       repstos_can_run(__repstos_can_avx512) ? "on" : "OFF (run vec)");
}

/* ---- libFuzzer ---------------------------------------------------------- */

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_setup();
	print_cpu();
	snprintf(cur_origin, sizeof(cur_origin), "libFuzzer");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzz_one(data, len);
	return 0;
}

#else
/* ---- The standalone driver ----------------------------------------------- */

static unsigned long replayed;

/* A routine that touches a guard page faults: say which case did (not
 * async-signal-safe, but the process is ending either way), then die of
 * the signal, so the exit status shows it. */
static void on_fault(int sig)
{
	printf("FAIL: signal %d: an access past a region into its guard page?\n",
	       sig);
	if (cur_case)
		print_case(cur_case, &cur_layout);
	print_input();
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void replay_file(const char *path)
{
	uint8_t buf[4096];
	size_t len;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "fuzz_routines: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	snprintf(cur_origin, sizeof(cur_origin), "file %s", path);
	fuzz_one(buf, len);
	replayed++;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of a directory in name order (so a run is repeatable), or
 * the file itself. */
static void replay(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL, full[4096];
	size_t n = 0, i;

	if (!d) {
		if (errno != ENOTDIR)
			return;	/* a working corpus not made yet: nothing */
		replay_file(path);
		return;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		snprintf(full, sizeof(full), "%s/%s", path, names[i]);
		replay_file(full);
		free(names[i]);
	}
	free(names);
}

static void run_hex(const char *hex)
{
	uint8_t buf[4096];
	size_t len = 0;
	unsigned b;

	while (len < sizeof(buf) && sscanf(hex + 2 * len, "%2x", &b) == 1)
		buf[len++] = (uint8_t)b;
	snprintf(cur_origin, sizeof(cur_origin), "-x");
	fuzz_one(buf, len);
	replayed++;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Random inputs from one PRNG stream: case i of seed s is the same in
 * every run, so "-s s -n i+1" reaches it again.  count < 0: for secs. */
static unsigned long run_random(uint64_t seed, double secs, long count)
{
	uint8_t buf[CASE_BYTES];
	uint64_t s = seed;
	double end = now() + secs;
	unsigned long i;
	size_t j;

	for (i = 0; count >= 0 ? i < (unsigned long)count : now() < end; i++) {
		for (j = 0; j < CASE_BYTES; j++)
			buf[j] = (uint8_t)splitmix(&s);
		snprintf(cur_origin, sizeof(cur_origin),
			 "seed %llu case %lu: -s %llu -n %lu", (unsigned long long)seed,
			 i, (unsigned long long)seed, i + 1);
		fuzz_one(buf, sizeof(buf));
	}
	return i;
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz_routines [-s SEED] [-t SECONDS | -n CASES] "
		"[-v] [-x HEX] [CORPUS_DIR_OR_FILE...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	double secs = 10, t0;
	long count = -1;
	unsigned long cases;
	const char *hex = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "s:t:n:vx:")) != -1)
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': secs = atof(optarg); break;
		case 'n': count = strtol(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		case 'x': hex = optarg; break;
		default: usage();
		}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);
	fuzz_setup();
	print_cpu();
	t0 = now();
	for (; optind < argc; optind++)
		replay(argv[optind]);
	if (hex)
		run_hex(hex);
	printf("replayed %lu inputs\n", replayed);
	if (hex && count < 0)
		return 0;	/* -x alone: that case only */
	printf("seed %llu\n", (unsigned long long)seed);
	cases = run_random(seed, secs - (now() - t0), count);
	check_arenas(since_check);
	printf("%lu random cases and %lu replayed in %.1f s (%.0f cases/s), "
	       "no failure\n", cases, replayed, now() - t0,
	       (cases + replayed) / (now() - t0));
	return 0;
}
#endif
