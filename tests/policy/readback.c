// SPDX-License-Identifier: MIT
/*
 * readback.c - sites whose bytes their function reads back (the
 * plugin marks them REPSTOS_USE_READ) beside the same sites left alone,
 * for tests/policy/readback.sh:
 *   readback tuning FILE [SET [COPY]]
 *                          write a tuning file for this CPU whose set
 *                          table makes the masked "avx512_split"
 *                          cheapest below 64 bytes, and the copy table
 *                          rep movsb in place (a string store), then
 *                          "avx512", both "vec" next, "avx2" from 64;
 *                          SET the set sites' module routine (default
 *                          avx512_split), COPY the copy sites' (avx512);
 *                          both families' read routine "vec"
 *   readback forms         each site's op, sizes, use and form now, one
 *                          line a site, in table order
 *   readback run           call every site and check what it stored
 * Under REPSTOS_PROFILE, `run` records the profile readback.sh chooses
 * from again.  Built with the plugin, copy and min-const=1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repstos.h"
#include "policy/policy.h"
#include "sitecheck.h"		/* tests/runtime: names of what a site calls */
#include "tuning_out.h"

static unsigned char buf[4096], from[4096];

/* A read of one byte the site wrote, and of none.  The index may lie
 * past the bytes written, so that GCC cannot answer the load from the
 * memset's fill, which takes the load away. */
__attribute__((noinline)) int set_5_read(unsigned i)
{
	memset(buf, 1, 5);
	return buf[i % 64];
}

__attribute__((noinline)) void set_5_left(void) { memset(buf, 2, 5); }

/* 32..63 bytes: one size class */
__attribute__((noinline)) int set_32_63_read(unsigned n)
{
	memset(buf, 3, 32 + n % 32);
	return buf[0];
}

/* 0..63 bytes: classes 0 to 6 */
__attribute__((noinline)) int set_0_63_read(unsigned n)
{
	memset(buf, 4, n % 64);
	return buf[0];
}

/* 16..63 bytes: both classes of 16..63, read back and not */
__attribute__((noinline)) int set_16_63_read(unsigned n)
{
	memset(buf, 9, 16 + n % 48);
	return buf[0];
}

__attribute__((noinline)) void set_16_63_left(unsigned n)
{
	memset(buf, 10, 16 + n % 48);
}

/* 100 bytes: above the masked stores' sizes */
__attribute__((noinline)) int set_100_read(unsigned i)
{
	memset(buf, 5, 100);
	return buf[i % 128];
}

/* unknown size: the module routine, read or not */
__attribute__((noinline)) int set_unknown_read(size_t n)
{
	memset(buf, 6, n);
	return buf[0];
}

/* unknown sizes, profiled at 40 bytes: read, and not */
__attribute__((noinline)) int set_var_read(size_t n)
{
	memset(buf, 7, n);
	return buf[0];
}

__attribute__((noinline)) void set_var_left(size_t n) { memset(buf, 8, n); }

__attribute__((noinline)) int copy_24_read(void)
{
	memcpy(buf, from, 24);
	return buf[23];
}

__attribute__((noinline)) void copy_24_left(void) { memcpy(buf, from, 24); }

/* 16..63 bytes copied: both classes of 16..63, read back and not */
__attribute__((noinline)) int copy_16_63_read(unsigned n)
{
	memcpy(buf, from, 16 + n % 48);
	return buf[0];
}

__attribute__((noinline)) void copy_16_63_left(unsigned n)
{
	memcpy(buf, from, 16 + n % 48);
}

/* 0..63 bytes copied, 97 of 100 calls in 16..63 and three of 5 bytes */
__attribute__((noinline)) void copy_mostly_16_63(unsigned n)
{
	memcpy(buf, from, n % 64);
}

/* Row v of k: `small` centi-ns below 64 bytes, `large` from 64. */
static void row(struct repstos_costs *k, int v, unsigned small, unsigned large)
{
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		k->cns[v][c] = c <= repstos_size_class(63) ? small : large;
}

/* Every form of family f's table k at 90 ns, but those no table
 * measures (forced_only: the C library's, avx512_plain). */
static void slow(struct repstos_costs *k, const struct repstos_family *f)
{
	static const struct repstos_costs none;
	int v;

	*k = none;
	for (v = 0; v < f->nvariants; v++)
		if (!(f->forced_only >> v & 1))
			row(k, v, 9000, 9000);
}

/* Family id's module routine in t by name, or -1 with a message. */
static int module_named(struct repstos_tuning *t, unsigned id, const char *name)
{
	const struct repstos_family *f = &repstos_families[id];

	t->fam[id].variant = repstos_family_by_name(f, name);
	if (t->fam[id].variant >= 0)
		return 0;
	fprintf(stderr, "readback: no %s routine '%s'\n", f->name, name);
	return -1;
}

static int write_tuning(const char *path, const char *set, const char *copy)
{
	const struct repstos_family *f = &repstos_families[REPSTOS_FAMILY_SET];
	struct repstos_tuning t;
	struct repstos_cpu cpu;
	struct repstos_costs *k;

	repstos_cpu_detect(&cpu);
	repstos_policy_tuning(&cpu, &t);
	if (module_named(&t, REPSTOS_FAMILY_SET, set) ||
	    module_named(&t, REPSTOS_FAMILY_COPY, copy))
		return 2;
	/* a read routine none of the module routines is */
	t.fam[REPSTOS_FAMILY_SET].read_variant = REPSTOS_VARIANT_VEC;
	t.fam[REPSTOS_FAMILY_COPY].read_variant = REPSTOS_COPY_VARIANT_VEC;
	k = &t.fam[REPSTOS_FAMILY_SET].costs;
	slow(k, f);
	row(k, REPSTOS_VARIANT_AVX512_SPLIT, 100, 500);
	row(k, REPSTOS_VARIANT_AVX512, 150, 500);
	row(k, REPSTOS_VARIANT_VEC, 200, 400);
	row(k, REPSTOS_VARIANT_AVX2, 300, 300);
	k = &t.fam[REPSTOS_FAMILY_COPY].costs;
	slow(k, &repstos_families[REPSTOS_FAMILY_COPY]);
	row(k, REPSTOS_COPY_VARIANT_INLINE, 50, 9000);
	row(k, REPSTOS_COPY_VARIANT_AVX512, 100, 500);
	row(k, REPSTOS_COPY_VARIANT_VEC, 200, 400);
	row(k, REPSTOS_COPY_VARIANT_AVX2, 300, 300);
	return tuning_out(path, &cpu, &t);
}

static int print_forms(void)
{
	const struct repstos_site *e;

	for (e = repstos_sites_begin(); e < repstos_sites_end(); e++)
		printf("%s %u %u %s %s\n", repstos_op_is_copy(e->op) ? "copy" : "set",
		       e->size_min, e->size_max,
		       repstos_site_use(e) & REPSTOS_USE_READ ? "read" : "left",
		       sitecheck_form(e));
	return 0;
}

static int check(const unsigned char *want, size_t n, int c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != (want ? want[i] : c)) {
			printf("byte %zu of %zu is %d\n", i, n, buf[i]);
			return 1;
		}
	return 0;
}

static int run(void)
{
	int bad = 0;
	unsigned n;

	for (n = 0; n < sizeof(from); n++)
		from[n] = (unsigned char)(n * 7 % 251);
	bad |= set_5_read(4) != 1 || check(NULL, 5, 1);
	set_5_left(), bad |= check(NULL, 5, 2);
	for (n = 0; n < 64; n++) {
		bad |= set_32_63_read(n) != 3 || check(NULL, 32 + n % 32, 3);
		bad |= (set_0_63_read(n) != 4 && n) || check(NULL, n, 4);
		bad |= set_16_63_read(n) != 9 || check(NULL, 16 + n % 48, 9);
		set_16_63_left(n), bad |= check(NULL, 16 + n % 48, 10);
	}
	bad |= set_100_read(99) != 5 || check(NULL, 100, 5);
	bad |= set_unknown_read(777) != 6 || check(NULL, 777, 6);
	for (n = 0; n < 10; n++) {
		bad |= set_var_read(40) != 7 || check(NULL, 40, 7);
		set_var_left(40), bad |= check(NULL, 40, 8);
	}
	bad |= copy_24_read() != from[23] || check(from, 24, 0);
	for (n = 0; n < 24; n++)	/* by hand: no site */
		((volatile unsigned char *)buf)[n] = 0;
	copy_24_left(), bad |= check(from, 24, 0);
	for (n = 0; n < 64; n++) {
		bad |= copy_16_63_read(n) != from[0] || check(from, 16 + n % 48, 0);
		copy_16_63_left(n), bad |= check(from, 16 + n % 48, 0);
	}
	for (n = 0; n < 100; n++) {
		unsigned k = n < 3 ? 5 : 16 + n % 48;

		copy_mostly_16_63(k), bad |= check(from, k, 0);
	}
	puts(bad ? "run: wrong bytes" : "run: every site stored what it should");
	return bad;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "tuning"))
		return write_tuning(argv[2], argc >= 4 ? argv[3] : "avx512_split",
				    argc == 5 ? argv[4] : "avx512");
	if (argc == 2 && !strcmp(argv[1], "forms"))
		return print_forms();
	if (argc == 2 && !strcmp(argv[1], "run"))
		return run();
	fprintf(stderr, "usage: readback tuning FILE [SET [COPY]] | forms | run\n");
	return 2;
}
