// SPDX-License-Identifier: MIT
/*
 * bench.c - memset candidates side by side, interleaved in one run.
 *
 *   bench [-r REPS] [-t BATCH_US] [-c NAME,NAME..] [-z SIZE,SIZE..] [-o DIR] [-l]
 *         [-s SHAPE,..] [-a OFFSET,..] [-p] [-V VEC_REP_MIN] [-W WIDE_REP_MIN]
 * (-z takes sizes, ranges LO..HI drawn uniformly, "mix", "dist-A".."dist-M"
 * or "dists"; -s shapes b2b, use, read; -a destination offsets 0, 3,
 * rand; all of them by default;
 * -p prints the default -o folder, which is
 * bench/results/VENDOR-FAMILY-MODEL of this CPU, and exits)
 * (-V, -W: override the policy's rep stosb thresholds, to measure them)
 *
 * For every configuration (size or the small-size mix; shape: back to
 * back, use after write or read after write, see bench.h; destination
 * at 4 KiB, 4 KiB + 3 or 4 KiB + 0..63 drawn per call; fill 0 or 0x5a)
 * and every repetition, each candidate runs one timed batch of the same
 * number of calls, in an order
 * rotated from one repetition to the next; the figures are medians over
 * the repetitions, and a candidate's speedup is the median of its per-
 * repetition ratio to glibc measured moments apart, which cancels most of
 * the drift of a machine shared with other work.  Hot cache: the same
 * destination every call.  The sizes come from a ring in memory, so no
 * compiler knows them; for one size all entries are equal (branches
 * predicted, as in a loop clearing one struct type), for the mix they
 * are random (branches not predicted), and for the five published
 * distributions (patcher/dists/data) they are drawn from what Google
 * measured in production: peaky, mostly small.  Candidates this CPU (or
 * the REPSTOS_CPU profile) cannot run are skipped with a note.
 *
 * Writes DIR/bench.csv, DIR/plot.dat (for plot.gp: back to back, offsets
 * 0 and 3), DIR/summary.txt.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "dists/memset_dists.h"
#include "repstos.h"
#include "policy/policy.h"

/* ---- candidates ------------------------------------------------------- */

#define RUN(n) extern BENCH_LOOPS(bench_run_##n);
RUN(glibc) RUN(inline) RUN(empty) RUN(__bench_gpr) RUN(__repstos_stub)
RUN(__bench_plain_ladder) RUN(__bench_plain_four) RUN(__bench_plain_mask16) RUN(__bench_plain_over)
RUN(__bench_plain_redir) RUN(__bench_wide) RUN(__bench_wide_y) RUN(__bench_rz) RUN(__bench_rza) RUN(__bench_split_c) RUN(__bench_split_wy) RUN(__bench_split_e8) RUN(__bench_s0_b) RUN(__bench_s0_8b) RUN(__bench_s0_e) RUN(__bench_s0_c) RUN(__bench_s0_f) RUN(__bench_s0_w) RUN(__bench_tail_plain) RUN(__bench_tail_branch) RUN(__bench_mis16) RUN(__bench_mis64) RUN(__bench_mis64_m) RUN(__bench_mis64_y) RUN(__bench_tail_y) RUN(__bench_tail_m) RUN(__bench_tail_yc) RUN(__bench_big_m) RUN(__bench_a512_m)
RUN(gcc_libcall) RUN(gcc_rep_byte) RUN(gcc_rep_4byte) RUN(gcc_rep_8byte)
RUN(gcc_loop) RUN(gcc_unrolled_loop) RUN(gcc_vector_loop)
#define X(e, name, sym, needs) RUN(sym)
REPSTOS_VARIANTS(X)
#undef X

#ifdef BENCH_KERNEL
/* kernel/bench.sh: Linux 6.1's own routines, assembled from the fetched
 * source, beside kernel mode's (plugin/kernel.c), RET through the
 * return thunk or plain. */
RUN(linux_memset_erms) RUN(linux_memset_orig) RUN(linux_memset_via_jmp)
RUN(linux_memset_rep_good)
RUN(__repstos_k_set_erms) RUN(__repstos_k_set_rep_good)
RUN(__repstos_k_set_orig) RUN(__repstos_kr_set_erms)
#endif

static const struct bench_cand all_cands[] = {
	{ "glibc", "memset() through the PLT (glibc's ifunc choice)", bench_run_glibc, -1 },
#ifdef BENCH_KERNEL
	{ "linux-call-jmp-erms", "Linux today on ERMS: call memset, jmp memset_erms", bench_run_linux_memset_via_jmp, -1 },
	{ "linux-memset_erms", "Linux memset_erms called directly", bench_run_linux_memset_erms, -1 },
	{ "linux-memset_orig", "Linux memset_orig called directly", bench_run_linux_memset_orig, -1 },
	{ "linux-memset_rep_good", "Linux memset on REP_GOOD (rep stosq) called directly", bench_run_linux_memset_rep_good, -1 },
	{ "k-erms", "kernel site: call __repstos_k_set_erms (RET = return thunk)", bench_run___repstos_k_set_erms, -1 },
	{ "k-erms-ret", "kernel site: call the erms routine, plain ret", bench_run___repstos_kr_set_erms, -1 },
	{ "k-rep_good", "kernel site: call __repstos_k_set_rep_good", bench_run___repstos_k_set_rep_good, -1 },
	{ "k-orig", "kernel site: call __repstos_k_set_orig", bench_run___repstos_k_set_orig, -1 },
#endif
#define X(e, name, sym, needs) \
	{ "site-" name, "site: call " #sym " (a patched site)", bench_run_##sym, \
	  REPSTOS_VARIANT_##e },
	REPSTOS_VARIANTS(X)
#undef X
	{ "site-gpr", "site: call __bench_gpr (\"vec\" with GPR stores only)", bench_run___bench_gpr, -1 },
	{ "site-plain_ladder", "site: call __bench_plain_ladder (avx512_split, 0..63 plain stores, no branch)", bench_run___bench_plain_ladder, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-plain_four", "site: call __bench_plain_four (avx512_split, 0..63 plain stores, a branch at 16)", bench_run___bench_plain_four, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-plain_mask16", "site: call __bench_plain_mask16 (avx512_split, 16..63 plain stores, 0..15 masked)", bench_run___bench_plain_mask16, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-plain_over", "site: call __bench_plain_over (avx512_split's masked store, then plain stores over 16..63)", bench_run___bench_plain_over, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-plain_redir", "site: call __bench_plain_redir (avx512_split, 16..63 plain, 0..15 masked, no branch at 16)", bench_run___bench_plain_redir, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-wide", "site: call __bench_wide (avx512_split, 64..256 four plain 64-byte stores, no branch)", bench_run___bench_wide, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-wide_y", "site: call __bench_wide_y (wide, and a last 32-byte store at E - 32)", bench_run___bench_wide_y, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-rz", "site: call __bench_rz (avx512, its last three stores plain, below rsp under 64 bytes)", bench_run___bench_rz, REPSTOS_VARIANT_AVX512 },
	{ "site-rza", "site: call __bench_rza (rz, its stores under 64 bytes in an aligned line)", bench_run___bench_rza, REPSTOS_VARIANT_AVX512 },
	{ "site-split_c", "site: call __bench_split_c (avx512_split to 256 bytes, above through one more jump)", bench_run___bench_split_c, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-split_wy", "site: call __bench_split_wy (split_c, 64..256 four 64-byte stores and one of 32 at E - 32)", bench_run___bench_split_wy, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-split_e8", "site: call __bench_split_e8 (split_c, 64..256 eight 32-byte stores, no branch at 128)", bench_run___bench_split_e8, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-s0_b", "site: call __bench_s0_b (split_c, below 64 a plain store of the last byte after the masked one)", bench_run___bench_s0_b, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-s0_8b", "site: call __bench_s0_8b (s0_b, then a plain store of the last 8 bytes where n >= 8)", bench_run___bench_s0_8b, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-s0_e", "site: call __bench_s0_e (s0_8b, then the last 16 and the last 32 where n allows)", bench_run___bench_s0_e, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-s0_c", "site: call __bench_s0_c (s0_b's byte store, n = 0 out before it: no cmov)", bench_run___bench_s0_c, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-s0_f", "site: call __bench_s0_f (s0_c, and the first byte in a plain store too)", bench_run___bench_s0_f, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-s0_w", "site: call __bench_s0_w (s0_f, then the first and last 8 bytes where n >= 8)", bench_run___bench_s0_w, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-tail_plain", "site: call __bench_tail_plain (avx512_split, aligned 257..512 ending in a plain store at E - 64)", bench_run___bench_tail_plain, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-tail_branch", "site: call __bench_tail_branch (avx512_split, aligned 257..512 ending plain where 64 divides n)", bench_run___bench_tail_branch, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-mis16", "site: call __bench_mis16 (avx512_split, not 64-aligned 385..512 in sixteen 32-byte stores, no loop)", bench_run___bench_mis16, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-mis64", "site: call __bench_mis64 (avx512_split, misaligned 257..512 avx512's 64-byte stores and end_in_line's)", bench_run___bench_mis64, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-mis64_m", "site: call __bench_mis64_m (mis64 without end_in_line's store)", bench_run___bench_mis64_m, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-mis64_y", "site: call __bench_mis64_y (mis64_m, then a 32-byte store at E - 32)", bench_run___bench_mis64_y, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-tail_y", "site: call __bench_tail_y (avx512_split, aligned 257..512 ending masked, then a plain 32-byte store at E - 32)", bench_run___bench_tail_y, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-tail_m", "site: call __bench_tail_m (avx512_split, aligned 257..512 ending masked alone: the control for tail_y)", bench_run___bench_tail_m, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-tail_yc", "site: call __bench_tail_yc (tail_y with its plain store at E - 32 only inside the last line, else at P - 32)", bench_run___bench_tail_yc, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-big_m", "site: call __bench_big_m (avx512_split's aligned 513 bytes up as before the plain 32-byte store after them: the control)", bench_run___bench_big_m, REPSTOS_VARIANT_AVX512_SPLIT },
	{ "site-a512_m", "site: call __bench_a512_m (avx512's 256..512 as before the plain 32-byte store after them: the control)", bench_run___bench_a512_m, REPSTOS_VARIANT_AVX512 },
	{ "stub", "site: call __repstos_stub -> the module's choice (unpatched)", bench_run___repstos_stub, -1 },
	{ "inline", "site: rep stosb in place (the inline form)", bench_run_inline, -1 },
	{ "gcc-libcall", "GCC -mstringop-strategy=libcall", bench_run_gcc_libcall, -1 },
	{ "gcc-rep_byte", "GCC -minline-all-stringops -mstringop-strategy=rep_byte", bench_run_gcc_rep_byte, -1 },
	{ "gcc-rep_4byte", "GCC ... =rep_4byte", bench_run_gcc_rep_4byte, -1 },
	{ "gcc-rep_8byte", "GCC ... =rep_8byte", bench_run_gcc_rep_8byte, -1 },
	{ "gcc-loop", "GCC ... =loop", bench_run_gcc_loop, -1 },
	{ "gcc-unrolled_loop", "GCC ... =unrolled_loop", bench_run_gcc_unrolled_loop, -1 },
	{ "gcc-vector_loop", "GCC ... =vector_loop", bench_run_gcc_vector_loop, -1 },
	{ "loop", "the timing loop alone (its cost is in every figure)", bench_run_empty, -1 },
};
#define NALL (sizeof(all_cands) / sizeof(all_cands[0]))

static const struct bench_cand *cands[NALL];

/* The routines' rep stosb thresholds (runtime/startup/patch.c), for -V / -W. */
#include "routines/routines.h"
static unsigned ncand;

/* ---- configurations --------------------------------------------------- */

/* Sizes below zero name a distribution: the 1..256 mix, or one of the
 * published ones (patcher/dists/memset_dists.h, from patcher/dists/data). */
#define MIX (-1L)
#define DIST(k) (-10L - (k))
#define IS_DIST(s) ((s) <= DIST(0) && (s) > DIST(NDIST))
#define NDIST ((long)(sizeof(repstos_dists) / sizeof(repstos_dists[0])))
/* -z LO..HI: sizes drawn uniformly from LO..HI (each below
 * 2^RANGE_BITS), as a site whose sizes vary inside one range does. */
#define RANGE_BITS 20
#define RANGE_BASE (-(1L << (2 * RANGE_BITS + 1)))
#define RANGE(lo, hi) (RANGE_BASE - ((long)(lo) << RANGE_BITS) - (long)(hi))
#define IS_RANGE(s) ((s) <= RANGE_BASE)
#define RANGE_LO(s) ((RANGE_BASE - (s)) >> RANGE_BITS)
#define RANGE_HI(s) ((RANGE_BASE - (s)) & ((1L << RANGE_BITS) - 1))


static long def_sizes[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 65, 127, 128, 255, 256,
	511, 512, 1024, 2048, 4096, 8192, 65536, 1048576, MIX,
	DIST(0), DIST(1), DIST(2), DIST(3), DIST(4),
};
static long sizes[64];
static unsigned nsizes;
static const int fills[] = { 0x5a, 0 };
#define NFILL 2
/* The shapes and destination offsets measured (-s, -a): bit masks. */
static unsigned shapes, offsets;
/* Each offset kind's ring (bench.h): 0, 3, or drawn per call. */
static uint8_t off_ring[BENCH_NOFF][BENCH_RING];

struct config {
	long size;
	unsigned shape;		/* enum bench_shape */
	unsigned off;		/* enum bench_off */
	int fill;
	size_t iters;
	uint32_t *ring;
	double *ns;		/* [cand][rep] ns per call */
};

static struct config *cfgs;
static unsigned ncfg, reps = 24;	/* a multiple of BENCH_NPHASE */
/* -P N: every repetition with the loops in placement N; -1: repetition r
 * in placement r mod BENCH_NPHASE */
static int placement = -1;
static double batch_ns = 100e3;
static char outdir_buf[4096];
static const char *outdir;
static double mix_mean;

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* The mix: sizes 1..256 as a bucketed distribution, uniform inside each
 * bucket: 30% 1-16, 20% 17-32, 20% 33-64, 15% 65-128, 15% 129-256 (mean
 * about 60, most calls small as in real programs' memset profiles). */
static uint32_t mix_size(uint64_t *s)
{
	static const unsigned lo[] = { 1, 17, 33, 65, 129 };
	static const unsigned hi[] = { 16, 32, 64, 128, 256 };
	static const unsigned cum[] = { 30, 50, 70, 85, 100 };
	unsigned r, b = 0;

	r = (unsigned)(xorshift(s) % 100);
	while (r >= cum[b])
		b++;
	return lo[b] + (uint32_t)(xorshift(s) % (hi[b] - lo[b] + 1));
}

/* A size from published distribution k (patcher/dists/memset_dists.h, made
 * from patcher/dists/data/memset-sizes by patcher/dists/mkdists.sh). */
static uint32_t dist_size(unsigned k, uint64_t *s)
{
	return repstos_dist_size(&repstos_dists[k], (unsigned)(xorshift(s) %
				 repstos_dist_total(&repstos_dists[k])));
}

static double dist_mean(unsigned k)
{
	double sum = 0;
	unsigned j;

	for (j = 0; j < repstos_dists[k].n; j++)
		sum += (double)repstos_dists[k].p[j].size * repstos_dists[k].p[j].weight;
	return sum / repstos_dist_total(&repstos_dists[k]);
}

static uint32_t *make_ring(long size)
{
	static uint32_t *made[64];
	static long made_size[64];
	static unsigned nmade;
	uint32_t *r;
	uint64_t s = 0x2545f4914f6cdd1dull;
	double sum = 0;
	unsigned i;

	for (i = 0; i < nmade; i++)
		if (made_size[i] == size)
			return made[i];
	r = malloc(BENCH_RING * sizeof(*r));
	if (!r)
		exit(2);
	for (i = 0; i < BENCH_RING; i++) {
		r[i] = size == MIX ? mix_size(&s) :
		       IS_DIST(size) ? dist_size((unsigned)(DIST(0) - size), &s) :
		       IS_RANGE(size) ? (uint32_t)(RANGE_LO(size) + xorshift(&s) %
				(RANGE_HI(size) - RANGE_LO(size) + 1)) :
		       (uint32_t)size;
		sum += r[i];
	}
	if (size == MIX)
		mix_mean = sum / BENCH_RING;
	if (nmade < 64) {
		made_size[nmade] = size;
		made[nmade++] = r;
	}
	return r;
}

/* ---- timing ----------------------------------------------------------- */

static unsigned char *buf;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One batch of c in placement phase (bench.h). */
static double time_batch(const struct bench_cand *c, struct config *k,
			 unsigned phase)
{
	struct bench_batch b = {
		.dst = buf, .c = k->fill, .sizes = k->ring,
		.doff = off_ring[k->off], .iters = k->iters,
	};
	double t0 = now();

	bench_loop(c->run, phase, k->shape)(&b);
	return (now() - t0) / (double)k->iters;
}

static void calibrate(struct config *k)
{
	const struct bench_cand *g = cands[0];
	double per;

	k->iters = 64;
	time_batch(g, k, 0);
	per = time_batch(g, k, 0);
	if (per < 0.5)
		per = 0.5;
	k->iters = (size_t)(batch_ns / per);
	if (k->iters < 4)
		k->iters = 4;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	double t[n];

	memcpy(t, v, n * sizeof(*v));
	qsort(t, n, sizeof(*t), cmp_double);
	return n & 1 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static double minimum(const double *v, unsigned n)
{
	double m = v[0];
	unsigned i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

#define NS(k, c, r) ((k)->ns[(size_t)(c) * reps + (r)])

static double med_ns(struct config *k, unsigned c)
{
	return median(&NS(k, c, 0), reps);
}

/* glibc time / candidate time, per repetition, median. */
static double speedup(struct config *k, unsigned c)
{
	double v[reps];
	unsigned r;

	for (r = 0; r < reps; r++)
		v[r] = NS(k, 0, r) / NS(k, c, r);
	return median(v, reps);
}

/* ---- machine ---------------------------------------------------------- */

static const char *off_what(unsigned o)
{
	return o == BENCH_OFF_3 ? "4 KiB + 3 (misaligned)" :
	       o == BENCH_OFF_RAND ? "4 KiB + 0..63 (drawn per call)" :
	       "4 KiB aligned";
}

static char model_name[128], kernel[160], date[64], hyper[8];

static void describe_machine(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	struct utsname u;
	time_t t = time(NULL);

	strcpy(model_name, "?");
	strcpy(hyper, "no");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model_name, sizeof(model_name), "%s",
				 strchr(line, ':') + 2);
			model_name[strcspn(model_name, "\n")] = 0;
		}
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			strcpy(hyper, "yes");
	}
	if (f)
		fclose(f);
	uname(&u);
	snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
}

static void print_machine(FILE *f, const char *pfx)
{
	const struct repstos_cpu *cpu = repstos_cpu();
	char feats[160], where[64] = "placement r mod N (repetition r)";

	if (placement >= 0)
		snprintf(where, sizeof(where), "placement %d alone", placement);

	repstos_feature_names(cpu->features, feats, sizeof(feats));
	fprintf(f, "%sdate: %s\n", pfx, date);
	fprintf(f, "%scpu: %s; vendor %s family 0x%x model 0x%x stepping %u; "
		"virtualized: %s\n", pfx, model_name,
		cpu->vendor == REPSTOS_VENDOR_AMD ? "AMD" :
		cpu->vendor == REPSTOS_VENDOR_INTEL ? "Intel" : "other",
		cpu->family, cpu->model, cpu->stepping, hyper);
	fprintf(f, "%sfeatures: %s\n", pfx, feats);
	fprintf(f, "%s%s; glibc %s; gcc %s; %ld online cpus\n", pfx, kernel,
		gnu_get_libc_version(), __VERSION__,
		sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(f, "%srepstos module choice: %s (REPSTOS_VARIANT=%s); rep stosb "
		"from %llu (vec), %llu (avx2, avx512)\n", pfx,
		repstos_variant_name(repstos_variant()),
		getenv("REPSTOS_VARIANT") ? getenv("REPSTOS_VARIANT") : "auto",
		__repstos_vec_rep_min, __repstos_wide_rep_min);
	fprintf(f, "%smethod: %u repetitions x %.0f us batches, interleaved, "
		"the loops in %s of %u placements %u bytes apart (bench.h), "
		"medians; hot cache; mix mean %.1f bytes\n", pfx, reps,
		batch_ns / 1e3, where, BENCH_NPHASE, BENCH_PHASE_BYTES,
		mix_mean);
	fprintf(f, "%sdistributions (patcher/dists/data/memset-sizes): ", pfx);
	for (unsigned k = 0; k < NDIST; k++)
		fprintf(f, "%s mean %.0f; ", repstos_dists[k].name, dist_mean(k));
	fputc('\n', f);
	fprintf(f, "%sshapes (bench.h):", pfx);
	for (unsigned s = 0; s < BENCH_NSHAPE; s++)
		if (shapes >> s & 1)
			fprintf(f, " %s = %s;", bench_shape_name(s), bench_shape_how(s));
	fprintf(f, "\n%sdestination offsets:", pfx);
	for (unsigned o = 0; o < BENCH_NOFF; o++)
		if (offsets >> o & 1)
			fprintf(f, " %s = %s;", bench_off_name(o), off_what(o));
	fputc('\n', f);
}

/* ---- output ----------------------------------------------------------- */

static const char *size_name(long s, char *b)
{
	if (s == MIX)
		return "mix";
	if (IS_DIST(s))
		sprintf(b, "dist-%s", repstos_dists[DIST(0) - s].name);
	else if (IS_RANGE(s))
		sprintf(b, "%ld..%ld", RANGE_LO(s), RANGE_HI(s));
	else
		sprintf(b, "%ld", s);
	return b;
}

static FILE *out_file(const char *name)
{
	char path[4096];
	FILE *f;

	mkdir(outdir, 0755);
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
}

static void write_csv(void)
{
	FILE *f = out_file("bench.csv");
	unsigned i, c;
	char b[32];

	print_machine(f, "# ");
	fprintf(f, "candidate,size,shape,offset,fill,ns_median,ns_min,"
		"speedup_vs_glibc,calls_per_batch\n");
	for (i = 0; i < ncfg; i++)
		for (c = 0; c < ncand; c++)
			fprintf(f, "%s,%s,%s,%s,%d,%.3f,%.3f,%.3f,%zu\n",
				cands[c]->name, size_name(cfgs[i].size, b),
				bench_shape_name(cfgs[i].shape),
				bench_off_name(cfgs[i].off), cfgs[i].fill,
				med_ns(&cfgs[i], c),
				minimum(&NS(&cfgs[i], c, 0), reps),
				speedup(&cfgs[i], c), cfgs[i].iters);
	fclose(f);
}

static struct config *find(long size, unsigned shape, unsigned off, int fill)
{
	unsigned i;

	for (i = 0; i < ncfg; i++)
		if (cfgs[i].size == size && cfgs[i].shape == shape &&
		    cfgs[i].off == off && cfgs[i].fill == fill)
			return &cfgs[i];
	return NULL;
}

/* One block per (offset 0 and 3, fill), back to back, sizes > 0 (log
 * axis), ns then speedup: the four panels plot.gp draws. */
static void write_plot_data(void)
{
	static const unsigned offs[] = { BENCH_OFF_0, BENCH_OFF_3 };
	FILE *f = out_file("plot.dat");
	unsigned a, fi, s, c;

	for (a = 0; a < 2; a++)
		for (fi = 0; fi < NFILL; fi++) {
			fprintf(f, "# align %s fill %#x\nsize",
				bench_off_name(offs[a]), fills[fi]);
			for (c = 0; c < ncand; c++)
				fprintf(f, " %s", cands[c]->name);
			for (c = 0; c < ncand; c++)
				fprintf(f, " x_%s", cands[c]->name);
			fputc('\n', f);
			for (s = 0; s < nsizes; s++) {
				struct config *k = find(sizes[s], BENCH_B2B,
							offs[a], fills[fi]);

				if (sizes[s] <= 0 || !k)
					continue;
				fprintf(f, "%ld", sizes[s]);
				for (c = 0; c < ncand; c++)
					fprintf(f, " %.3f", med_ns(k, c));
				for (c = 0; c < ncand; c++)
					fprintf(f, " %.3f", speedup(k, c));
				fputc('\n', f);
			}
			fputs("\n\n", f);
		}
	fclose(f);
}

static int cand_index(const char *name)
{
	unsigned c;

	for (c = 0; c < ncand; c++)
		if (!strcmp(cands[c]->name, name))
			return (int)c;
	return -1;
}

/*
 * The goals of bench/results/README.md for one candidate, one shape,
 * one (offset, fill): no fixed size and no published distribution below
 * 0.97x glibc; the geometric mean over the distributions >= 1.15x.
 * (They were set for calls back to back; in the other shapes they say
 * how far from them a routine is.)
 */
static void goals(FILE *f, unsigned c, unsigned shape, unsigned off,
		  int fill)
{
	double worst = 1e9, dworst = 1e9, logsum = 0, x;
	char wb[32], db[32];
	unsigned s, nd = 0, nf = 0;
	long wsize = 0, dsize = 0;

	for (s = 0; s < nsizes; s++) {
		struct config *q = find(sizes[s], shape, off, fill);

		if (!q || sizes[s] == MIX || IS_RANGE(sizes[s]))
			continue;
		x = speedup(q, c);
		if (IS_DIST(sizes[s])) {
			logsum += log(x);
			nd++;
			if (x < dworst)
				dworst = x, dsize = sizes[s];
		} else {
			nf++;
			if (x < worst)
				worst = x, wsize = sizes[s];
		}
	}
	fprintf(f, "  %-10s fill %-4s: ",
		off == BENCH_OFF_3 ? "misaligned" :
		off == BENCH_OFF_RAND ? "random" : "aligned",
		fill ? "0x5a" : "0");
	if (nf)
		fprintf(f, "worst size %s at %.2fx (goal >= 0.97: %s)",
			size_name(wsize, wb), worst,
			worst >= 0.97 ? "met" : "MISSED");
	else
		fputs("no fixed size measured", f);
	if (nd)
		fprintf(f, "; worst distribution %s at %.2fx (%s); geomean of %u "
			"distributions %.2fx (goal >= 1.15: %s)",
			size_name(dsize, db), dworst, dworst >= 0.97 ? "met" : "MISSED",
			nd, exp(logsum / nd), exp(logsum / nd) >= 1.15 ? "met" : "MISSED");
	fputc('\n', f);
}

/* A candidate's column head: its name without "site-" and "gcc-". */
static const char *head_name(unsigned c)
{
	const char *n = cands[c]->name;

	return !strncmp(n, "site-", 5) ? n + 5 :
	       !strncmp(n, "gcc-", 4) ? n + 4 : n;
}

/* Its column's width: the whole head, at least 7, so that two names
 * that share their first seven characters (avx512_split, avx512_plain)
 * stay two names. */
static int col_width(unsigned c)
{
	int w = (int)strlen(head_name(c));

	return w > 7 ? w : 7;
}

static void heads(FILE *f, int w, const char *first)
{
	unsigned c;

	fprintf(f, "%*s", w, first);
	for (c = 0; c < ncand; c++)
		fprintf(f, " %*s", col_width(c), head_name(c));
}

/* ns per call of every candidate, fill 0x5a: back to back, as the
 * summary has always had them, with auto's speedup last. */
static void ns_table(FILE *f, unsigned shape, unsigned off, int ac,
		     const char *autoname)
{
	unsigned s, c;
	char b[32];

	fprintf(f, "\nns/call (median), %s, destination %s, fill 0x5a; "
		"last column: auto (%s) speedup vs glibc\n",
		bench_shape_what(shape), off_what(off), autoname);
	heads(f, 8, "size");
	fprintf(f, "  speedup\n");
	for (s = 0; s < nsizes; s++) {
		struct config *k = find(sizes[s], shape, off, 0x5a);

		fprintf(f, "%8s", size_name(sizes[s], b));
		for (c = 0; c < ncand; c++)
			fprintf(f, " %*.2f", col_width(c), med_ns(k, c));
		if (ac >= 0)
			fprintf(f, "  %6.2fx", speedup(k, (unsigned)ac));
		fputc('\n', f);
	}
}

/* Every candidate's speedup over glibc in one shape and offset, fill
 * 0x5a; glibc's own column is its ns per call. */
static void ratio_table(FILE *f, unsigned shape, unsigned off)
{
	unsigned s, c;
	char b[32];

	fprintf(f, "\nspeedup vs glibc (glibc ns / candidate ns, median of "
		"per-repetition ratios; glibc column: its ns/call), %s, "
		"destination %s, fill 0x5a\n", bench_shape_what(shape),
		off_what(off));
	heads(f, 8, "size");
	fputc('\n', f);
	for (s = 0; s < nsizes; s++) {
		struct config *k = find(sizes[s], shape, off, 0x5a);

		fprintf(f, "%8s %*.2f", size_name(sizes[s], b), col_width(0),
			med_ns(k, 0));
		for (c = 1; c < ncand; c++)
			fprintf(f, " %*.2f", col_width(c), speedup(k, c));
		fputc('\n', f);
	}
}

/* One line per shape and offset: each candidate's geometric mean over
 * the published distributions measured (glibc: its ns per call). */
static void geomeans(FILE *f)
{
	unsigned sh, o, s, c, nd = 0;
	char name[16];

	for (s = 0; s < nsizes; s++)
		nd += IS_DIST(sizes[s]);
	if (!nd)
		return;
	fprintf(f, "\nGeometric mean over the %u distributions measured, "
		"fill 0x5a: speedup vs glibc (glibc column: its ns/call)\n", nd);
	heads(f, -10, "shape");
	fputc('\n', f);
	for (sh = 0; sh < BENCH_NSHAPE; sh++)
		for (o = 0; o < BENCH_NOFF; o++) {
			if (!(shapes >> sh & 1) || !(offsets >> o & 1))
				continue;
			snprintf(name, sizeof(name), "%s %s",
				 bench_shape_name(sh), bench_off_name(o));
			fprintf(f, "%-10s", name);
			for (c = 0; c < ncand; c++) {
				double l = 0;

				for (s = 0; s < nsizes; s++) {
					struct config *k = find(sizes[s], sh, o, 0x5a);

					if (IS_DIST(sizes[s]))
						l += log(c ? speedup(k, c) : med_ns(k, 0));
				}
				fprintf(f, " %*.2f", col_width(c), exp(l / nd));
			}
			fputc('\n', f);
		}
}

/* One shape: back to back keeps its ns tables first, as the summary had
 * them; every shape has its speedup tables and auto's goals. */
static void shape_section(FILE *f, unsigned sh, int ac, const char *autoname)
{
	unsigned o, fi;

	fprintf(f, "\n==== %s (%s)\n", bench_shape_what(sh),
		bench_shape_name(sh));
	for (o = 0; o < BENCH_NOFF; o++)
		if (sh == BENCH_B2B && offsets >> o & 1)
			ns_table(f, sh, o, ac, autoname);
	for (o = 0; o < BENCH_NOFF; o++)
		if (offsets >> o & 1)
			ratio_table(f, sh, o);
	if (ac < 0)
		return;
	fprintf(f, "\nGoals for auto (%s), %s, speedup = glibc ns / site ns, "
		"median of per-repetition ratios:\n", autoname,
		bench_shape_what(sh));
	for (o = 0; o < BENCH_NOFF; o++)
		for (fi = 0; fi < NFILL; fi++)
			if (offsets >> o & 1)
				goals(f, (unsigned)ac, sh, o, fills[fi]);
}

static void write_summary(void)
{
	FILE *f = out_file("summary.txt");
	char autoname[40];
	unsigned sh, c;
	int ac;

	snprintf(autoname, sizeof(autoname), "site-%s",
		 repstos_variant_name(repstos_variant()));
	ac = cand_index(autoname);
	fprintf(f, "repstos memset benchmark (bench, `make bench`)\n");
	print_machine(f, "");
	fprintf(f, "\nCandidates:\n");
	for (c = 0; c < ncand; c++)
		fprintf(f, "  %-18s %s\n", cands[c]->name, cands[c]->what);
	for (sh = 0; sh < BENCH_NSHAPE; sh++)
		if (shapes >> sh & 1)
			shape_section(f, sh, ac, autoname);
	geomeans(f);
	fclose(f);
}

/* ---- main ------------------------------------------------------------- */

/* A fixed size, or LO..HI for a uniform range. */
static long size_arg(const char *tok)
{
	char *end;
	long lo = strtol(tok, &end, 0), hi;

	if (end == tok || (*end && strncmp(end, "..", 2)) || lo < 0) {
		fprintf(stderr, "bench: -z %s: not a size, LO..HI, mix, "
			"dist-X or dists\n", tok);
		exit(2);
	}
	if (!*end)
		return lo;
	hi = strtol(end + 2, &end, 0);
	if (*end || lo < 0 || hi < lo || hi >= 1L << RANGE_BITS) {
		fprintf(stderr, "bench: bad size range %s (LO..HI, below 2^20)\n", tok);
		exit(2);
	}
	return RANGE(lo, hi);
}

static const char *cand_name(unsigned c)
{
	return all_cands[c].name;
}

/* -l: every candidate, with what it is. */
static void list_cands(void)
{
	unsigned c;

	for (c = 0; c < NALL; c++)
		printf("%-20s %s\n", all_cands[c].name, all_cands[c].what);
}

static void pick(const char *list)
{
	unsigned c;

	ncand = 0;
	cands[ncand++] = &all_cands[0];		/* glibc: the reference */
	for (c = 1; c < NALL; c++) {
		const char *n = all_cands[c].name;
		const char *p = list;
		size_t l = strlen(n);
		int v = all_cands[c].variant;

		if (v >= 0 && !repstos_policy_supported(repstos_cpu(),
							(enum repstos_variant)v)) {
			fprintf(stderr, "bench: skipping %s: this CPU%s lacks "
				"what it needs\n", n, getenv("REPSTOS_CPU") ?
				" (as REPSTOS_CPU describes it)" : "");
			continue;
		}
		if (!list) {
			cands[ncand++] = &all_cands[c];
			continue;
		}
		while ((p = strstr(p, n)) &&
		       !((p == list || p[-1] == ',') && (p[l] == ',' || !p[l])))
			p++;
		if (p)
			cands[ncand++] = &all_cands[c];
	}
}

static void pick_sizes(const char *list)
{
	char *s, *tok, *save;

	if (!list) {
		memcpy(sizes, def_sizes, sizeof(def_sizes));
		nsizes = sizeof(def_sizes) / sizeof(def_sizes[0]);
		return;
	}
	s = strdup(list);
	for (tok = strtok_r(s, ",", &save); tok && nsizes < 64;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned k;

		if (!strcmp(tok, "dists")) {
			for (k = 0; k < NDIST && nsizes < 64; k++)
				sizes[nsizes++] = DIST(k);
			continue;
		}
		for (k = 0; k < NDIST; k++)
			if (!strncmp(tok, "dist-", 5) &&
			    !strcmp(tok + 5, repstos_dists[k].name))
				break;
		sizes[nsizes++] = k < NDIST ? DIST(k) :
				  !strcmp(tok, "mix") ? MIX : size_arg(tok);
	}
	free(s);
}

/* bench/results/VENDOR-FAMILY-MODEL of the CPU this runs on (a
 * REPSTOS_CPU profile adds "-as-PROFILE"): one folder per CPU measured. */
static const char *default_outdir(void)
{
	struct repstos_cpu real;
	const char *as = getenv("REPSTOS_CPU");

	repstos_cpu_detect(&real);
	snprintf(outdir_buf, sizeof(outdir_buf),
		 "bench/results/%s-%02x-%02x%s%s",
		 real.vendor == REPSTOS_VENDOR_AMD ? "amd" :
		 real.vendor == REPSTOS_VENDOR_INTEL ? "intel" : "other",
		 real.family, real.model, as && *as ? "-as-" : "",
		 as && *as ? as : "");
	return outdir_buf;
}

/* The last CPU the process may run on: the machine's last unless taskset
 * (or the like) said otherwise, which must win, as on a machine whose
 * CPUs are shared out between runs. */
static void pin(void)
{
	cpu_set_t set;
	int cpu = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Every (size, shape, offset, fill) measured, each calibrated with
 * glibc: shapes slower per call get fewer calls a batch. */
static void make_configs(void)
{
	unsigned i = 0, s, sh, o, fi;

	cfgs = calloc((size_t)nsizes * BENCH_NSHAPE * BENCH_NOFF * NFILL,
		      sizeof(*cfgs));
	for (s = 0; s < nsizes; s++)
		for (sh = 0; sh < BENCH_NSHAPE; sh++)
			for (o = 0; o < BENCH_NOFF; o++)
				for (fi = 0; fi < NFILL; fi++) {
					struct config *k = &cfgs[i];

					if (!(shapes >> sh & 1) || !(offsets >> o & 1))
						continue;
					k->size = sizes[s];
					k->shape = sh;
					k->off = o;
					k->fill = fills[fi];
					k->ring = make_ring(k->size);
					k->ns = calloc((size_t)ncand * reps, sizeof(double));
					calibrate(k);
					i++;
				}
	ncfg = i;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench [-r REPS] [-t BATCH_US] [-c CAND,..] "
		"[-z SIZE,..|LO..HI,..|mix|dist-A..|dists] [-s b2b,use,read,first] "
		"[-a 0,3,rand] [-P PLACEMENT] [-o DIR] [-p] [-l]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *clist = NULL, *zlist = NULL, *slist = NULL, *alist = NULL;
	char bad[64];
	unsigned i, r, c, o;
	int opt;

	outdir = default_outdir();
	while ((opt = getopt(argc, argv, "r:t:c:z:s:a:o:plP:V:W:")) != -1)
		switch (opt) {
		case 'V': __repstos_vec_rep_min = strtoull(optarg, NULL, 0); break;
		case 'W': __repstos_wide_rep_min = strtoull(optarg, NULL, 0); break;
		case 'r': reps = (unsigned)atoi(optarg); break;
		case 't': batch_ns = atof(optarg) * 1e3; break;
		case 'c': clist = optarg; break;
		case 'z': zlist = optarg; break;
		case 's': slist = optarg; break;
		case 'a': alist = optarg; break;
		case 'o': outdir = optarg; break;
		case 'p': puts(outdir); return 0;
		case 'l': list_cands(); return 0;
		case 'P': placement = atoi(optarg); break;
		default: return usage();
		}
	shapes = slist ? bench_mask(slist, bench_shape_name, BENCH_NSHAPE) :
		     BENCH_SHAPES_DEFAULT;
	offsets = bench_mask(alist, bench_off_name, BENCH_NOFF);
	if (!shapes || !offsets)
		return usage();
	if (bench_unknown(clist, cand_name, NALL, bad, sizeof(bad))) {
		fprintf(stderr, "bench: no candidate %s (bench -l lists them)\n",
			bad);
		return 2;
	}
	if (reps < 1)
		reps = 1;
	if (placement >= BENCH_NPHASE)
		return usage();
	pick(clist);
	pick_sizes(zlist);
	pin();
	describe_machine();
	/* 1 MiB and the largest offset, with room to spare */
	if (posix_memalign((void **)&buf, 4096, (1 << 20) + 8192))
		return 2;
	memset(buf, 1, (1 << 20) + 8192);
	for (o = 0; o < BENCH_NOFF; o++)
		bench_offsets(off_ring[o], o, 3, 0x9e3779b97f4a7c15ull);

	make_configs();
	make_ring(MIX);		/* for mix_mean in the report */
	fprintf(stderr, "bench: %u candidates x %u configurations x %u "
		"repetitions\n", ncand, ncfg, reps);
	for (r = 0; r < reps; r++) {
		for (i = 0; i < ncfg; i++) {
			struct config *k = &cfgs[i];

			for (c = 0; c < ncand; c++) {
				unsigned cc = (c + r + i) % ncand;

				NS(k, cc, r) = time_batch(cands[cc], k,
						placement < 0 ? r : (unsigned)placement);
			}
		}
		fprintf(stderr, "\rbench: repetition %u/%u", r + 1, reps);
	}
	fputc('\n', stderr);
	write_csv();
	write_plot_data();
	write_summary();
	fprintf(stderr, "bench: wrote %s/bench.csv, plot.dat, summary.txt\n",
		outdir);
	return 0;
}
