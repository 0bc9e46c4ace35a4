// SPDX-License-Identifier: MIT
// Proves: every set and copy routine, and both stubs, change only the
// registers and flags the contract lets them change.
/*
 * regs.c - every routine and the stub change only what the contract
 * allows: rdi (to dest + count), rcx (to 0), the flags (DF stays clear),
 * xmm0 (the whole ymm0/zmm0) and k1; under the vector-state rule
 * (repstos_site.h) also the upper halves of ymm0-15 and xmm16-31.
 * Every other GPR, every other vector register at the widest width the
 * CPU has (whole, for a form a narrow site may call), the other AVX-512
 * mask registers and MXCSR must come back as they went in.  And every
 * routine leaves the upper state clean: called with ymm0-15's upper
 * halves zero, it leaves them zero.  The same for the profiling routine
 * in front of each routine, and for the copy profiling routine in front
 * of each copy routine.
 *
 * The stub both ways it reaches a routine (runtime/module/dispatch.S):
 * its jump rewritten straight to the routine, as the start-up does where
 * it may write text, and its fallback, through its family's byte.
 *
 * Copy routines and the copy stub by their contract (repstos_site.h,
 * "Copy sites"): rdi and rsi to their ends, rcx to 0, the destination
 * holding the source's bytes; rax, the vector registers REPSTOS_COPY_CLOBBERS names and k1 may
 * change, nothing else may.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "repstos.h"
#include "policy/policy.h"
#include "startup/profrun.h"
#include "routines/routines.h"
#include "module/module.h"

#include "regs_harness.h"

/* Valgrind runs this too (valgrind.sh): it has to be told of code
 * rewritten under it, as the stubs' jumps are below.  Its package holds
 * the header. */
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define VALGRIND_DISCARD_TRANSLATIONS(addr, len) ((void)0)
#endif

extern struct repstos_prof __repstos_prof __attribute__((visibility("hidden")));
extern const char regs_ret_xmm[], regs_ret_ymm[], regs_ret_zmm[];

enum { RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8 };
static const char *const gpr_name[16] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static uint8_t area_mem[(1 << 20) + 8192] __attribute__((aligned(4096)));
/* The destination: 3 bytes into the buffer, or (near_page) ending 3
 * bytes before a page boundary, where a routine's wide or masked
 * stores must not reach past the end. */
static uint8_t *area = area_mem;
static int near_page;
static unsigned failures, calls;
static unsigned nvec, vec_bytes, nk;
static int copying;		/* checking a copy routine */
static int narrow;		/* ... one a narrow site may call: it keeps
				 * every vector register whole */
static int clean_uppers;	/* ymm0-15's upper halves go in zero and
				 * must come out so */

/* The vector registers a set (copy 0) or copy (1) routine may change, as
 * a mask: the "xmmN" of REPSTOS_SITE_CLOBBERS or REPSTOS_COPY_CLOBBERS
 * (repstos_site.h), so the check follows the contract's one definition. */
static uint32_t declared_vec(int copy)
{
	static const char *const set[] = { REPSTOS_SITE_CLOBBERS };
	static const char *const cp[] = { REPSTOS_COPY_CLOBBERS };
	const char *const *l = copy ? cp : set;
	size_t n = copy ? sizeof(cp) / sizeof(cp[0]) : sizeof(set) / sizeof(set[0]);
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(l[i], "xmm", 3))
			m |= 1u << atoi(l[i] + 3);
	return m;
}
static uint8_t source[(1 << 17) + 64];
static void (*call_with)(const struct regfile *, struct regfile *, void (*)(void));

static uint64_t rnd(void)
{
	static uint64_t s = 0x9e3779b97f4a7c15ull;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

static void setup(struct regfile *in, size_t n, int fill)
{
	unsigned i;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < 16; i++)
		in->gpr[i] = rnd();
	for (i = 0; i < 8; i++)
		in->k[i] = rnd() & 0xffff;
	for (i = 0; i < sizeof(in->vec); i += 8) {
		uint64_t r = rnd();

		memcpy((uint8_t *)in->vec + i, &r, 8);
	}
	if (clean_uppers)
		for (i = 0; i < 16; i++)
			memset(in->vec[i] + 16, 0, sizeof(in->vec[i]) - 16);
	in->mxcsr = 0x1f80 | (rnd() & 0x6000);	/* random rounding mode */
	area = near_page && n < 4096 ? area_mem + 8192 - 3 - 3 - n : area_mem;
	in->gpr[RDI] = (uint64_t)(uintptr_t)(area + 3);
	in->gpr[RCX] = n;
	in->gpr[RAX] = (uint8_t)fill;
	if (copying) {
		in->gpr[RSI] = (uint64_t)(uintptr_t)(source + 5);
		memset(source + 5, fill, n);
	}
}

static void fail(const char *who, size_t n, const char *what)
{
	failures++;
	if (failures < 30)
		printf("FAIL %s size %zu: %s\n", who, n, what);
}

static void compare(const char *who, size_t n, const struct regfile *in,
		    const struct regfile *out)
{
	char msg[96];
	unsigned i;

	for (i = 0; i < 16; i++) {
		uint64_t want = in->gpr[i];

		if (i == RSP || (copying && i == RAX))
			continue;
		if (i == RDI || (copying && i == RSI))
			want = in->gpr[i] + n;
		if (i == RCX)
			want = 0;
		if (out->gpr[i] != want) {
			snprintf(msg, sizeof(msg), "%s is %#llx, want %#llx",
				 gpr_name[i], (unsigned long long)out->gpr[i],
				 (unsigned long long)want);
			fail(who, n, msg);
		}
	}
	if (out->flags & (1u << 10))
		fail(who, n, "direction flag set");
	if (out->mxcsr != in->mxcsr)
		fail(who, n, "mxcsr changed");
	/* the vector registers the header declares (declared_vec); the
	 * vector-state rule lets the rest change above their xmm, and
	 * xmm16-31 whole */
	for (i = 0; i < nvec; i++) {
		unsigned kept = narrow ? vec_bytes : i < 16 ? 16 : 0;

		if (!(declared_vec(copying) >> i & 1) &&
		    memcmp(in->vec[i], out->vec[i], kept)) {
			snprintf(msg, sizeof(msg), "vector register %u changed", i);
			fail(who, n, msg);
		}
	}
	for (i = 0; clean_uppers && i < 16; i++) {
		static const uint8_t zero[64];

		if (memcmp(out->vec[i] + 16, zero, vec_bytes - 16)) {
			snprintf(msg, sizeof(msg), "upper half of vector "
				 "register %u left non-zero (dirty upper state)", i);
			fail(who, n, msg);
		}
	}
	for (i = 0; i < nk; i++)	/* k1 is declared (REPSTOS_SITE_CLOBBERS_AVX512) */
		if (i != 1 && in->k[i] != out->k[i])
		fail(who, n, "mask register changed");
}

static void check_bytes(const char *who, size_t n, int fill)
{
	size_t i;

	if (copying && n > sizeof(source) - 5)
		n = 0;			/* the larger sizes: registers only */
	for (i = 0; i < n; i++)
		if (area[3 + i] != (uint8_t)fill) {
			fail(who, n, "bytes not filled");
			return;
		}
	if (area[3 + n] != 0xee || area[2] != 0xee)
		fail(who, n, "wrote outside the buffer");
}

static void run(const char *who, void (*fn)(void), size_t n, int fill)
{
	static struct regfile in, out;

	setup(&in, n, fill);
	memset(area, 0xee, n + 6);
	call_with(&in, &out, fn);
	calls++;
	compare(who, n, &in, &out);
	check_bytes(who, n, fill);
}

/*
 * Point a stub's jump (at at from the stub) at to, or with to NULL at
 * its fallback, as the start-up rewrites it: through /proc/self/mem, so
 * that the page stays executable for the code that may share it.
 */
static void stub_jump(void (*stub)(void), unsigned at, void (*to)(void))
{
	uintptr_t jump = (uintptr_t)stub + at, next = jump + 5;
	int32_t rel = (int32_t)(to ? (uintptr_t)to - next : 0);
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (*(uint8_t *)jump != 0xe9 || fd < 0 ||
	    pwrite(fd, &rel, sizeof(rel), (off_t)(jump + 1)) != sizeof(rel)) {
		perror("rewriting the stub's jump");
		exit(1);
	}
	close(fd);
	VALGRIND_DISCARD_TRANSLATIONS(jump, 5);
}

static const size_t sizes[] = {
	0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127,
	128, 129, 255, 256, 1000, 2047, 2048, 4095, 4096, 4097, 65536, 100001,
};

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Every size, near a page end and not, fill 0 and not: 4 calls each;
 * and where the CPU has upper halves, 2 more each with them zero. */
static void run_sizes(const char *who, void (*fn)(void))
{
	size_t i;

	for (i = 0; i < NSIZES; i++) {
		for (near_page = 0; near_page < 2; near_page++) {
			run(who, fn, sizes[i], 0xa7);
			run(who, fn, sizes[i], 0);
		}
		clean_uppers = vec_bytes > 16;
		for (near_page = 0; clean_uppers && near_page < 2; near_page++)
			run(who, fn, sizes[i], 0xa7);
		clean_uppers = 0;
	}
}

/*
 * The profiling routine in front of routine v, as while recording: the
 * harness's call is the one site, so every call counts in its size
 * class and goes on to v; then with no site at all, every call goes to
 * the fallback, v too.  The counts must be what run_sizes() made, in
 * the size's class.
 */
static void run_profiled(int v)
{
	static struct repstos_prof_slot slot;
	static uintptr_t ret;
	unsigned long long want[REPSTOS_NCLASS] = { 0 };
	const struct repstos_family *f =
		&repstos_families[copying ? REPSTOS_FAMILY_COPY : REPSTOS_FAMILY_SET];
	void *fn = repstos_family_routine(f, v);
	void (*profile)(void) = copying ? __repstos_copy_profile :
					  __repstos_profile;
	const char *name = repstos_family_name(f, v);
	char who[64];
	size_t i;

	ret = (uintptr_t)(call_with == regs_call_zmm ? regs_ret_zmm :
			  call_with == regs_call_ymm ? regs_ret_ymm : regs_ret_xmm);
	memset(&slot, 0, sizeof(slot));
	slot.routine = fn;
	__repstos_prof = (struct repstos_prof){ &ret, &slot, 1, NULL, NULL };
	snprintf(who, sizeof(who), "%sprofile -> %s", copying ? "copy " : "", name);
	run_sizes(who, profile);
	for (i = 0; i < NSIZES; i++)
		want[repstos_size_class(sizes[i])] += vec_bytes > 16 ? 6 : 4;
	if (memcmp(want, slot.hist, sizeof(want)))
		fail(who, 0, "calls counted in the wrong size classes");
	/* no site: every call to its family's fallback, never the other's */
	__repstos_prof = (struct repstos_prof){ &ret, &slot, 0,
						copying ? NULL : fn,
						copying ? fn : NULL };
	snprintf(who, sizeof(who), "%sprofile (no site) -> %s",
		 copying ? "copy " : "", name);
	run_sizes(who, profile);
	memset(&__repstos_prof, 0, sizeof(__repstos_prof));
}

/* The hardware's registers, not the policy's view of the CPU: under
 * REPSTOS_CPU=zen3 (libc.sh runs it so) the routines still run on AVX-512
 * hardware, and the C library behind "libc" still uses its registers. */
static void pick_width(void)
{
	struct repstos_cpu hw;
	unsigned f;

	repstos_cpu_detect(&hw);
	f = hw.features;
	if (f & REPSTOS_CPU_AVX512F) {
		call_with = regs_call_zmm, nvec = 32, vec_bytes = 64, nk = 8;
		printf("checking zmm0-31 and k0-7\n");
	} else if (f & REPSTOS_CPU_AVX) {
		call_with = regs_call_ymm, nvec = 16, vec_bytes = 32, nk = 0;
		printf("checking ymm0-15\n");
	} else {
		call_with = regs_call_xmm, nvec = 16, vec_bytes = 16, nk = 0;
		printf("checking xmm0-15\n");
	}
}

/* Every copy routine, called and through the copy stub. */
static void run_copies(void)
{
	int v, stub;

	copying = 1;
	/* the non-temporal loop too, from 65536 bytes */
	__repstos_copy_nt_min = 65536;
	for (v = 0; v < REPSTOS_COPY_VARIANT_COUNT; v++) {
		void (*fn)(void) = (void (*)(void))repstos_copy_variant_routine(v);

		if (!repstos_policy_copy_supported(repstos_cpu(), v))
			continue;
		narrow = repstos_family_narrow(&repstos_families[REPSTOS_FAMILY_COPY], v) == v;
		for (stub = 0; stub < 3; stub++) {
			char who[64];

			snprintf(who, sizeof(who), "%scopy %s", stub == 1 ?
				 "copy stub -> " : stub == 2 ?
				 "copy stub, fallback -> " : "",
				 repstos_copy_variant_name(v));
			stub_jump(__repstos_copy_stub, REPSTOS_COPY_STUB_JUMP_AT,
				  stub == 1 ? fn : NULL);
			__repstos_copy_choice = (unsigned char)v;
			run_sizes(who, stub ? __repstos_copy_stub : fn);
		}
		run_profiled(v);
	}
	copying = 0;
}

int main(void)
{
	int v, stub;

	pick_width();
	/* The runtime pointed the stubs at its choice; this test points
	 * them at each routine in turn, both ways. */
	for (v = 0; v < REPSTOS_VARIANT_COUNT; v++) {
		void (*fn)(void) = (void (*)(void))repstos_variant_routine(v);

		if (!repstos_policy_supported(repstos_cpu(), v)) {
			printf("%s: not supported by this CPU, skipped\n",
			       repstos_variant_name(v));
			continue;
		}
		narrow = repstos_family_narrow(&repstos_families[REPSTOS_FAMILY_SET], v) == v;
		for (stub = 0; stub < 3; stub++) {
			char who[64];

			snprintf(who, sizeof(who), "%s%s", stub == 1 ? "stub -> " :
				 stub == 2 ? "stub, fallback -> " : "",
				 repstos_variant_name(v));
			stub_jump(__repstos_stub, REPSTOS_STUB_JUMP_AT,
				  stub == 1 ? fn : NULL);
			__repstos_set_choice = (unsigned char)v;
			run_sizes(who, stub ? __repstos_stub : fn);
		}
		run_profiled(v);
	}
	run_copies();
	printf("%u calls, %u register or byte failures\n", calls, failures);
	return failures ? 1 : 0;
}
