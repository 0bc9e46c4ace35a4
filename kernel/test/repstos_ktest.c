// SPDX-License-Identifier: MIT
/*
 * repstos_ktest.c - the kernel test of repstos' kernel mode, KTAP on the
 * console.  Built into vmlinux (kernel/build.sh adds it to lib/) and as
 * a module (the same file with MODULE defined): every memset, memcpy and
 * memmove below has a size the compiler cannot see, so each is a site
 * in a plugin build and a call of the kernel's own routines in a plain
 * one; the results must be the same.
 *
 * Every buffer byte outside the operation holds pat(i), so what an
 * operation must leave is known without a second copy (a reference loop
 * could itself become a memcpy and test nothing).
 *
 * Before the tests it counts the sites of the image (vmlinux's .notes,
 * or this module's own notes) by what apply_alternatives() left at each:
 * inline rep stosb/movsb, or a call of which routine.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/init.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/sizes.h>
#include <asm/cpufeature.h>

#ifndef MODULE
/*
 * repstos_fsrm on the command line: boot as if the CPU had FSRM (and
 * FSRS, on which a tree that has it keys the set sites), which keeps
 * every site's inline form.  QEMU's TCG refuses +fsrm, so this is how
 * the test runs the inline form of the build users get.  An early
 * parameter is parsed in setup_arch(), before identify_boot_cpu()
 * applies the forced caps and before apply_alternatives().
 */
static int __init repstos_force_fsrm(char *arg)
{
	setup_force_cpu_cap(X86_FEATURE_FSRM);
#ifdef X86_FEATURE_FSRS
	setup_force_cpu_cap(X86_FEATURE_FSRS);
#endif
	return 0;
}
early_param("repstos_fsrm", repstos_force_fsrm);
#endif

#define BUF_SIZE	(SZ_1M + 4 * PAGE_SIZE)
#define MARGIN		64

static u8 *dst_buf, *src_buf;
static unsigned long failures;

static u8 pat(unsigned long i, unsigned seed)
{
	return (u8)(((i + seed) * 2654435761u) >> 13);
}

static void fill(u8 *b, unsigned long from, unsigned long to, unsigned seed)
{
	for (unsigned long i = from; i < to; i++)
		b[i] = pat(i, seed);
}

/* A size the compiler cannot know: every call below stays a call. */
static size_t hide(size_t n)
{
	OPTIMIZER_HIDE_VAR(n);
	return n;
}

static bool report(const char *what, size_t n, unsigned long a,
		   unsigned long b, unsigned long at)
{
	if (failures++ < 10)
		pr_info("# %s: size %zu, dst %lu src %lu: wrong byte at %lu\n",
			what, n, a, b, at);
	return false;
}

/* dst_buf[lo, hi): bytes [a, a + n) equal want(i), the rest pat(i, 1). */
static bool check_set(const char *what, size_t n, unsigned long a, int c)
{
	unsigned long lo = a > MARGIN ? a - MARGIN : 0, hi = a + n + MARGIN;

	for (unsigned long i = lo; i < hi && i < BUF_SIZE; i++) {
		u8 want = i >= a && i < a + n ? (u8)c : pat(i, 1);

		if (dst_buf[i] != want)
			return report(what, n, a, 0, i);
	}
	return true;
}

static bool check_copy(const char *what, size_t n, unsigned long a,
		       unsigned long b)
{
	unsigned long lo = a > MARGIN ? a - MARGIN : 0, hi = a + n + MARGIN;

	for (unsigned long i = lo; i < hi && i < BUF_SIZE; i++) {
		u8 want = i >= a && i < a + n ? pat(i - a + b, 2) : pat(i, 1);

		if (dst_buf[i] != want)
			return report(what, n, a, b, i);
	}
	return true;
}

static void prepare(unsigned long a, size_t n)
{
	unsigned long lo = a > MARGIN ? a - MARGIN : 0;
	unsigned long hi = min_t(unsigned long, a + n + MARGIN, BUF_SIZE);

	fill(dst_buf, lo, hi, 1);
}

static bool one_set(size_t n, unsigned long a, int c)
{
	prepare(a, n);
	if (c)
		memset(dst_buf + a, c, hide(n));
	else
		memset(dst_buf + a, 0, hide(n));
	return check_set(c ? "memset" : "zero", n, a, c);
}

static bool one_copy(size_t n, unsigned long a, unsigned long b)
{
	prepare(a, n);
	memcpy(dst_buf + a, src_buf + b, hide(n));
	return check_copy("memcpy", n, a, b);
}

/* Sizes: every one to 4096, then 2^k - 1, 2^k, 2^k + 1 to 1 MiB. */
static size_t nth_size(unsigned i)
{
	unsigned k;

	if (i <= 4096)
		return i;
	i -= 4097;
	k = 13 + i / 3;
	return k > 20 ? 0 : (1ul << k) + i % 3 - 1;
}

#define N_SIZES	(4097 + 8 * 3)

static const unsigned long small_align[] = { 0, 1, 2, 3, 4, 5, 7, 8, 15, 63 };
static const unsigned long big_align[] = { 0, 1, 7, 63 };

static unsigned n_aligns(size_t n)
{
	if (n <= 256)
		return ARRAY_SIZE(small_align);
	return n <= 4096 ? ARRAY_SIZE(big_align) : 2;
}

static unsigned long align_of(size_t n, unsigned j)
{
	return n <= 256 ? small_align[j] : big_align[j];
}

static bool test_set(int c)
{
	for (unsigned i = 0; i < N_SIZES; i++) {
		size_t n = nth_size(i);

		for (unsigned j = 0; j < n_aligns(n); j++)
			if (!one_set(n, align_of(n, j), c))
				return false;
	}
	return true;
}

static bool test_copy(void)
{
	for (unsigned i = 0; i < N_SIZES; i++) {
		size_t n = nth_size(i);
		unsigned na = n_aligns(n);

		for (unsigned j = 0; j < na; j++)
			for (unsigned k = 0; k < na; k += 1 + (n > 64))
				if (!one_copy(n, align_of(n, j),
					      align_of(n, k)))
					return false;
	}
	return true;
}

/* memmove(p + d, p + s, n) in dst_buf; the bytes to expect follow from
 * pat(i, 1) alone. */
static bool one_move(size_t n, unsigned long d, unsigned long s)
{
	unsigned long lo = min(d, s), hi = max(d, s) + n + MARGIN;

	lo = lo > MARGIN ? lo - MARGIN : 0;
	hi = min_t(unsigned long, hi, BUF_SIZE);
	fill(dst_buf, lo, hi, 1);
	memmove(dst_buf + d, dst_buf + s, hide(n));
	for (unsigned long i = lo; i < hi; i++) {
		u8 want = i >= d && i < d + n ? pat(i - d + s, 1) : pat(i, 1);

		if (dst_buf[i] != want)
			return report("memmove", n, d, s, i);
	}
	return true;
}

static size_t move_size(unsigned i)
{
	if (i <= 64)
		return i;
	if (i < 64 + 43)
		return 64 + (i - 64) * 13;
	return i == 64 + 43 ? 1000 : 4096;
}

/* Every distance from -300 to 300 between destination and source. */
static bool test_move_overlap(void)
{
	for (unsigned i = 0; i < 64 + 45; i++)
		for (int dist = -300; dist <= 300; dist++)
			if (!one_move(move_size(i), 4096 + dist, 4096))
				return false;
	return true;
}

/* memmove(p, p + 5, n): the compiler proves it forwards-safe, so in a
 * plugin build it is a copy site (inline where the CPU allows). */
static bool test_move_fwd(void)
{
	for (unsigned i = 0; i < N_SIZES; i++) {
		size_t n = nth_size(i);

		if (n + 5 + MARGIN > BUF_SIZE)
			continue;
		fill(dst_buf, 0, n + 5 + MARGIN, 1);
		memmove(dst_buf, dst_buf + 5, hide(n));
		for (unsigned long j = 0; j < n + 5 + MARGIN; j++) {
			u8 want = j < n ? pat(j + 5, 1) : pat(j, 1);

			if (dst_buf[j] != want)
				return report("memmove_fwd", n, 0, 5, j);
		}
	}
	return true;
}

/* Each operation ending at the last byte before vmalloc's guard page:
 * a routine touching one byte too many faults. */
static bool test_page_end(void)
{
	for (unsigned i = 0; i < N_SIZES; i++) {
		size_t n = nth_size(i);
		unsigned long a = BUF_SIZE - n;

		if (n + 8 > BUF_SIZE)
			continue;
		if (!one_set(n, a, 0x5a) || !one_copy(n, a, 0))
			return false;
		prepare(0, n);
		memcpy(dst_buf, src_buf + a, hide(n));
		if (!check_copy("memcpy from page end", n, 0, a))
			return false;
		if (!one_move(n, a, a - 7) || !one_move(n, a - 7, a))
			return false;
	}
	return true;
}

/* ---- What the alternatives left at each site ------------------------ */

/* The routines, weak: a plain build has none. */
#define ROUTINE(name) extern char __repstos_k_##name[] __weak
ROUTINE(set_erms); ROUTINE(set_rep_good); ROUTINE(set_orig);
ROUTINE(copy_erms); ROUTINE(copy_rep_good); ROUTINE(copy_orig);
ROUTINE(move_erms); ROUTINE(move_rep_good); ROUTINE(move_orig);

enum { F_INLINE, F_ERMS, F_REP_GOOD, F_ORIG, F_OTHER, F_COUNT };
static const char *const form_names[F_COUNT] = {
	"inline", "erms", "rep_good", "orig", "other"
};

static int call_form(const u8 *site)
{
	const u8 *to = site + 5 + *(const s32 *)(site + 1);

	if (to == (u8 *)__repstos_k_set_erms || to == (u8 *)__repstos_k_copy_erms
	    || to == (u8 *)__repstos_k_move_erms)
		return F_ERMS;
	if (to == (u8 *)__repstos_k_set_rep_good ||
	    to == (u8 *)__repstos_k_copy_rep_good ||
	    to == (u8 *)__repstos_k_move_rep_good)
		return F_REP_GOOD;
	if (to == (u8 *)__repstos_k_set_orig || to == (u8 *)__repstos_k_copy_orig
	    || to == (u8 *)__repstos_k_move_orig)
		return F_ORIG;
	return F_OTHER;
}

static int site_form(const u8 *site)
{
	if (site[0] == 0xf3 && (site[1] == 0xaa || site[1] == 0xa4))
		return F_INLINE;
	if (site[0] == 0xe8)
		return call_form(site);
	return F_OTHER;
}

/* plugin/kernel.c's note: namesz 8, descsz 16, type 1, "repstos"; site
 * is the offset to the site's first struct alt_instr, whose first field
 * is the offset to the site (.altinstructions is init data: the test
 * runs before it is freed). */
struct rk_note {
	u32 namesz, descsz, type;
	char name[8];
	s32 site;
	u8 op, kind, entries, version;
	u32 min, max;
};

/* Count the sites of the notes in [p, end), stopping at an end note
 * (type 2) when stop_at_end. */
/* (a module built without the plugin uses neither this nor paths_of(),
 * and defconfig builds with -Werror) */
static unsigned __maybe_unused count_sites(const u8 *p, const u8 *end,
					   bool stop_at_end,
					   unsigned forms[F_COUNT])
{
	unsigned n = 0;

	while (!end || p < end) {
		const struct rk_note *note = (const void *)p;
		bool ours = note->namesz == 8 && !memcmp(note->name, "repstos", 8);

		if (ours && note->type == 2 && stop_at_end)
			break;
		if (ours && note->type == 1 && note->descsz == 16) {
			const s32 *alt = (const void *)((const u8 *)&note->site
							+ note->site);

			forms[site_form((const u8 *)alt + *alt)]++;
			n++;
		}
		if (!end && !ours)
			break;
		p += 12 + ALIGN(note->namesz, 4) + ALIGN(note->descsz, 4);
	}
	return n;
}

static void print_sites(const char *where, unsigned n,
			const unsigned forms[F_COUNT])
{
	pr_info("# repstos_ktest: %s sites %u: %s %u, %s %u, %s %u, %s %u, "
		"%s %u\n", where, n, form_names[0], forms[0], form_names[1],
		forms[1], form_names[2], forms[2], form_names[3], forms[3],
		form_names[4], forms[4]);
}

#ifdef __REPSTOS_KERNEL__
/* Where this unit's notes begin: top-level asm comes out before any
 * function, so before every site's note; the plugin ends them. */
asm(".pushsection .note.repstos,\"a\",@note\n\t.balign 4\n"
    "repstos_ktest_notes:\n\t.popsection");
extern const u8 repstos_ktest_notes[];
#endif

static void count_all(void)
{
	unsigned forms[F_COUNT] = { 0 }, n = 0;

#ifndef MODULE
	extern const u8 __start_notes[], __stop_notes[];

	n = count_sites(__start_notes, __stop_notes, false, forms);
	print_sites("image", n, forms);
	memset(forms, 0, sizeof(forms));
	n = 0;
#endif
#ifdef __REPSTOS_KERNEL__
	n = count_sites(repstos_ktest_notes, NULL, true, forms);
#endif
	print_sites("unit", n, forms);
}

/* ---- Registers ------------------------------------------------------ */

#ifdef __REPSTOS_KERNEL__
/*
 * Call a routine as a site does, every GPR but rsp, rbp and the
 * operands holding a known value: all must come back as they went in,
 * since a site's clobbers are only its operands, the flags and memory.
 */
#define KEEPS(sym, fill_rax) ({						\
	register unsigned long r8 asm("r8") = 0x8888888888888888;	\
	register unsigned long r9 asm("r9") = 0x9999999999999999;	\
	register unsigned long r10 asm("r10") = 0xaaaaaaaaaaaaaaaa;	\
	register unsigned long r11 asm("r11") = 0xbbbbbbbbbbbbbbbb;	\
	register unsigned long r12 asm("r12") = 0xcccccccccccccccc;	\
	register unsigned long r13 asm("r13") = 0xdddddddddddddddd;	\
	register unsigned long r14 asm("r14") = 0xeeeeeeeeeeeeeeee;	\
	register unsigned long r15 asm("r15") = 0xffffffffffffffff;	\
	unsigned long ax = fill_rax, bx = 0x1111111111111111;		\
	unsigned long dx = 0x2222222222222222, cx = 77;			\
	void *di = dst_buf + 3, *si = src_buf + 1;			\
									\
	fill(dst_buf, 0, 256, 1);					\
	asm volatile("call " #sym					\
		     : "+D" (di), "+c" (cx), "+S" (si), "+a" (ax),	\
		       "+b" (bx), "+d" (dx), "+r" (r8), "+r" (r9),	\
		       "+r" (r10), "+r" (r11), "+r" (r12), "+r" (r13),	\
		       "+r" (r14), "+r" (r15), ASM_CALL_CONSTRAINT	\
		     : : "memory");					\
	ax == fill_rax && bx == 0x1111111111111111 &&			\
	dx == 0x2222222222222222 && r8 == 0x8888888888888888 &&		\
	r9 == 0x9999999999999999 && r10 == 0xaaaaaaaaaaaaaaaa &&	\
	r11 == 0xbbbbbbbbbbbbbbbb && r12 == 0xcccccccccccccccc &&	\
	r13 == 0xdddddddddddddddd && r14 == 0xeeeeeeeeeeeeeeee &&	\
	r15 == 0xffffffffffffffff && !cx;				\
})

static int test_regs(void)
{
	bool ok = KEEPS(__repstos_k_set_erms, 0x5a) &&
		  check_set("regs", 77, 3, 0x5a) &&
		  KEEPS(__repstos_k_set_rep_good, 0x5a) &&
		  check_set("regs", 77, 3, 0x5a) &&
		  KEEPS(__repstos_k_set_orig, 0x5a) &&
		  check_set("regs", 77, 3, 0x5a) &&
		  KEEPS(__repstos_k_copy_erms, 0x5a) &&
		  check_copy("regs", 77, 3, 1) &&
		  KEEPS(__repstos_k_copy_rep_good, 0x5a) &&
		  check_copy("regs", 77, 3, 1) &&
		  KEEPS(__repstos_k_copy_orig, 0x5a) &&
		  check_copy("regs", 77, 3, 1) &&
		  KEEPS(__repstos_k_move_erms, 0x5a) &&
		  check_copy("regs", 77, 3, 1) &&
		  KEEPS(__repstos_k_move_rep_good, 0x5a) &&
		  check_copy("regs", 77, 3, 1) &&
		  KEEPS(__repstos_k_move_orig, 0x5a) &&
		  check_copy("regs", 77, 3, 1);

	return ok;
}

/*
 * Every routine called directly, whatever the alternatives chose: the
 * sizes and places of its every path (plugin/kernel.c), bytes checked
 * around each.  A set takes rdi, rcx and the fill byte in rax, a copy
 * or move rdi, rsi, rcx; each must leave rcx 0 and rax as it was.
 */
#define CALL_K(sym, d, s, n, c) ({					\
	void *di = (d);							\
	const void *si = (s);						\
	unsigned long cx = (n), ax = (c);				\
									\
	asm volatile("call " #sym					\
		     : "+D" (di), "+S" (si), "+c" (cx), "+a" (ax),	\
		       ASM_CALL_CONSTRAINT : : "memory");		\
	!cx && ax == (unsigned long)(c);				\
})

enum { K_SET, K_COPY, K_MOVE };

static bool call_k(unsigned r, u8 *d, const u8 *s, size_t n, u8 c)
{
	switch (r) {
	case 0: return CALL_K(__repstos_k_set_erms, d, s, n, c);
	case 1: return CALL_K(__repstos_k_set_rep_good, d, s, n, c);
	case 2: return CALL_K(__repstos_k_set_orig, d, s, n, c);
	case 3: return CALL_K(__repstos_k_copy_erms, d, s, n, c);
	case 4: return CALL_K(__repstos_k_copy_rep_good, d, s, n, c);
	case 5: return CALL_K(__repstos_k_copy_orig, d, s, n, c);
	case 6: return CALL_K(__repstos_k_move_erms, d, s, n, c);
	case 7: return CALL_K(__repstos_k_move_rep_good, d, s, n, c);
	default: return CALL_K(__repstos_k_move_orig, d, s, n, c);
	}
}

static const char *const k_names[] = {
	"set_erms", "set_rep_good", "set_orig", "copy_erms", "copy_rep_good",
	"copy_orig", "move_erms", "move_rep_good", "move_orig"
};

/* Sizes: 0 to 300, on by 7 to 1100, then either side of the routines'
 * fast-string threshold (1024) and a few larger. */
static const size_t k_big[] = { 1023, 1024, 1025, 2047, 2049, 4097, 65537 };

static size_t k_size(unsigned i)
{
	if (i <= 300)
		return i;
	if (i <= 300 + 114)
		return 300 + (i - 300) * 7;
	return k_big[i - 415];
}
#define K_SIZES	(415 + ARRAY_SIZE(k_big))

static bool k_set(unsigned r, size_t n, unsigned long a, u8 c)
{
	prepare(a, n);
	if (!call_k(r, dst_buf + a, NULL, n, c))
		return report(k_names[r], n, a, 0, ~0ul);
	return check_set(k_names[r], n, a, c);
}

static bool k_copy(unsigned r, size_t n, unsigned long a, unsigned long b)
{
	prepare(a, n);
	if (!call_k(r, dst_buf + a, src_buf + b, n, 0))
		return report(k_names[r], n, a, b, ~0ul);
	return check_copy(k_names[r], n, a, b);
}

/* In dst_buf, from s to d, as one_move() checks a memmove. */
static bool k_move(unsigned r, size_t n, unsigned long d, unsigned long s)
{
	unsigned long lo = min(d, s), hi = max(d, s) + n + MARGIN;

	lo = lo > MARGIN ? lo - MARGIN : 0;
	hi = min_t(unsigned long, hi, BUF_SIZE);
	fill(dst_buf, lo, hi, 1);
	if (!call_k(r, dst_buf + d, dst_buf + s, n, 0))
		return report(k_names[r], n, d, s, ~0ul);
	for (unsigned long i = lo; i < hi; i++) {
		u8 want = i >= d && i < d + n ? pat(i - d + s, 1) : pat(i, 1);

		if (dst_buf[i] != want)
			return report(k_names[r], n, d, s, i);
	}
	return true;
}

static const int k_dists[] = { -300, -65, -64, -17, -8, -1, 0, 1, 8, 17,
			       64, 65, 300 };

static bool k_one(unsigned r, size_t n, unsigned j)
{
	unsigned long a = align_of(n, j % n_aligns(n));
	int kind = r / 3;

	if (kind == K_SET)
		return k_set(r, n, a, (u8)(0x5a + j)) &&
		       k_set(r, n, BUF_SIZE - n, 0);
	if (!k_copy(r, n, a, align_of(n, (j + 1) % n_aligns(n))) ||
	    !k_copy(r, n, BUF_SIZE - n, 0))
		return false;
	/* destination below, on and above an overlapping source */
	for (unsigned i = 0; i < ARRAY_SIZE(k_dists); i++)
		if ((kind == K_MOVE || k_dists[i] <= 0) &&
		    !k_move(r, n, 8192 + k_dists[i] + j, 8192 + j))
			return false;
	return true;
}

static int test_routines(void)
{
	if (!__repstos_k_set_erms)
		return -1;
	for (unsigned r = 0; r < ARRAY_SIZE(k_names); r++)
		for (unsigned i = 0; i < K_SIZES; i++)
			for (unsigned j = 0; j < (i < 415 ? 3 : 1); j++)
				if (!k_one(r, k_size(i), j))
					return 0;
	return 1;
}
#else
static int test_regs(void)
{
	return -1;
}

static int test_routines(void)
{
	return -1;
}
#endif

/* ---- Path counters -------------------------------------------------- */

/*
 * A build with -fplugin-arg-repstos-kernel-paths counts each path of
 * each routine (plugin/kernel.c) and names the counter in a note of
 * type 3: s32 offset to the u64 count, then "routine:path".  Print
 * them all; 1 if each was taken, 0 if one was not, -1 if there are none.
 */
static int __maybe_unused paths_of(const u8 *p, const u8 *end,
				   bool stop_at_end)
{
	unsigned all = 0, taken = 0;

	while (!end || p < end) {
		const u32 *h = (const void *)p;
		const u8 *desc = p + 12 + ALIGN(h[0], 4);
		bool ours = h[0] == 8 && !memcmp(p + 12, "repstos", 8);

		if (ours && h[2] == 2 && stop_at_end)
			break;
		if (ours && h[2] == 3) {
			const u64 *count = (const void *)(desc + *(const s32 *)desc);

			pr_info("# repstos_ktest: path %s %llu\n", desc + 4,
				(unsigned long long)*count);
			all++;
			taken += *count != 0;
		}
		if (!end && !ours)
			break;
		p = desc + ALIGN(h[1], 4);
	}
	if (all)
		pr_info("# repstos_ktest: paths taken %u of %u\n", taken, all);
	return all ? taken == all : -1;
}

static int test_paths(void)
{
#ifdef MODULE
#ifdef __REPSTOS_KERNEL__
	return paths_of(repstos_ktest_notes, NULL, true);
#else
	return -1;
#endif
#else
	extern const u8 __start_notes[], __stop_notes[];

	return paths_of(__start_notes, __stop_notes, false);
#endif
}

/* ---- KTAP ----------------------------------------------------------- */

static bool test_zero(void) { return test_set(0); }
static bool test_memset(void) { return test_set(0xa5); }

static const struct {
	const char *name;
	bool (*fn)(void);
} tests[] = {
	{ "zero", test_zero },
	{ "memset", test_memset },
	{ "memcpy", test_copy },
	{ "memmove_fwd", test_move_fwd },
	{ "memmove_overlap", test_move_overlap },
	{ "page_end", test_page_end },
};

/* Test i's KTAP line from its result r: below 0 skipped (why), 0 failed.
 * Returns whether it counts as passed. */
static unsigned ktap_line(unsigned i, const char *name, int r, const char *why)
{
	if (r < 0)
		pr_info("ok %u %s # SKIP %s\n", i, name, why);
	else
		pr_info("%sok %u %s\n", r ? "" : "not ", i, name);
	return r != 0;
}

static int __init repstos_ktest_init(void)
{
	unsigned passed = 0, n = ARRAY_SIZE(tests) + 3;

	pr_info("KTAP version 1\n");
#ifdef MODULE
	pr_info("# repstos_ktest: module\n");
#else
	pr_info("# repstos_ktest: built-in\n");
#endif
	dst_buf = vmalloc(BUF_SIZE);
	src_buf = vmalloc(BUF_SIZE);
	if (!dst_buf || !src_buf) {
		pr_info("1..0 # SKIP no memory\n");
		goto out;
	}
	fill(src_buf, 0, BUF_SIZE, 2);
	count_all();
	pr_info("1..%u\n", n);
	for (unsigned i = 0; i < ARRAY_SIZE(tests); i++) {
		failures = 0;
		if (tests[i].fn()) {
			passed++;
			pr_info("ok %u %s\n", i + 1, tests[i].name);
		} else {
			pr_info("not ok %u %s\n", i + 1, tests[i].name);
		}
	}
	passed += ktap_line(n - 2, "registers", test_regs(),
			    "no repstos routines");
	/* the routines before the paths: the counters then hold every class */
	passed += ktap_line(n - 1, "routines", test_routines(),
			    "no repstos routines");
	passed += ktap_line(n, "paths", test_paths(), "no path counters");
	pr_info("# repstos_ktest: %u passed, %u failed\n", passed, n - passed);
out:
	vfree(dst_buf);
	vfree(src_buf);
	return 0;
}
module_init(repstos_ktest_init);

MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("repstos kernel-mode sites: KTAP test");
