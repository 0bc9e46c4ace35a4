// SPDX-License-Identifier: MIT
/*
 * sizes.c - one site of each kind of size knowledge, set and copy, for
 * tests/policy:
 *   sizes tuning FILE MODULE [change]
 *                       write a tuning file for this CPU whose cost table
 *                       is fixed (below), so the forms each site must get
 *                       are known whatever the machine measures; with
 *                       change, it says what a change of size class costs
 *   sizes forms         print each site's op, size knowledge and the form
 *                       its bytes hold now, one line a site, in table order
 *   sizes run           call every site and check the bytes it stored
 * Built with the plugin, copy and min-const=1, so constant sizes and
 * copies become sites.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repstos.h"
#include "policy/sitecode.h"
#include "policy/policy.h"
#include "sitecheck.h"		/* tests/runtime: names of what a site calls */
#include "tuning_out.h"

static unsigned char buf[1 << 17], from[1 << 13];

__attribute__((noinline)) void const_16(void) { memset(buf, 1, 16); }
__attribute__((noinline)) void const_300(void) { memset(buf, 2, 300); }
__attribute__((noinline)) void const_3000(void) { memset(buf, 3, 3000); }
__attribute__((noinline)) void const_100000(void) { memset(buf, 4, 100000); }

__attribute__((noinline)) void bounded_100(unsigned n)
{
	if (n > 100)
		n = 100;
	memset(buf, 5, n);
}

__attribute__((noinline)) void bounded_4000(unsigned n)
{
	memset(buf, 6, 4000 + n % 1000);
}

__attribute__((noinline)) void unknown(size_t n)
{
	memset(buf, 7, n);
}

__attribute__((noinline)) void copy_300(void) { memcpy(buf, from, 300); }
__attribute__((noinline)) void copy_3000(void) { memcpy(buf, from, 3000); }

__attribute__((noinline)) void copy_bounded_100(unsigned n)
{
	memcpy(buf, from, n > 100 ? 100 : n);
}

__attribute__((noinline)) void copy_bounded_4000(unsigned n)
{
	memcpy(buf, from, 4000 + n % 1000);
}

/* p and q may overlap either way: a move no table may make inline */
__attribute__((noinline)) void move_bounded_4000(unsigned char *p,
						  const unsigned char *q,
						  unsigned n)
{
	memmove(p, q, 4000 + n % 1000);
}

__attribute__((noinline)) void copy_unknown(size_t n)
{
	memcpy(buf, from, n);
}

/* Row v of k: `small` centi-ns below 64 bytes, `mid` to 2047, `large`
 * from 2048 on. */
static void fixed_row(struct repstos_costs *k, int v, unsigned small,
		      unsigned mid, unsigned large)
{
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		k->cns[v][c] = c <= repstos_size_class(63) ? small :
			       c <= repstos_size_class(2047) ? mid : large;
}

/*
 * The fixed table: "vec" cheapest below 64 bytes, "erms" from 64 to
 * 2047, rep stosb in place from 2048; "original" and "rep_good" never.
 * Only routines every x86-64 runs, so the expected forms hold on any CI
 * machine.
 */
static void fixed_costs(struct repstos_costs *k)
{
	static const struct repstos_costs none;	/* not memset: no site */

	*k = none;
	fixed_row(k, REPSTOS_VARIANT_VEC, 100, 500, 10000);
	fixed_row(k, REPSTOS_VARIANT_ERMS, 300, 200, 5000);
	fixed_row(k, REPSTOS_VARIANT_INLINE, 1000, 1000, 1000);
	fixed_row(k, REPSTOS_VARIANT_ORIGINAL, 9999, 9999, 9999);
	fixed_row(k, REPSTOS_VARIANT_REP_GOOD, 9999, 9999, 9999);
}

/*
 * The copy table, in the same shape: "vec" cheapest below 64 bytes, rep
 * movsb in place from 64 on, so a move site that may overlap, which may
 * not take it, gets "vec" where a copy of the same sizes goes inline;
 * "original", the module routine, never.
 */
static void fixed_copy_costs(struct repstos_costs *k)
{
	static const struct repstos_costs none;

	*k = none;
	fixed_row(k, REPSTOS_COPY_VARIANT_VEC, 100, 500, 10000);
	fixed_row(k, REPSTOS_COPY_VARIANT_INLINE, 1000, 200, 5000);
	fixed_row(k, REPSTOS_COPY_VARIANT_ORIGINAL, 99999, 99999, 99999);
}

/*
 * With `change`, for tests/policy/profile.sh: what a change of size class costs
 * each form table k has, nothing but `vec_cost` for its "vec".  The set
 * table's "vec" pays 20 ns a change, so a site whose sizes spread over
 * classes below 64 bytes does better with "erms" than with "vec",
 * cheaper at each fixed size; the copy table's forms pay nothing, so a
 * copy site whose sizes spread takes "vec", cheapest at its sizes, where
 * without change costs it could only keep the module routine or take
 * rep movsb in place.
 */
static void fixed_change(struct repstos_costs *k, int vec, unsigned vec_cost)
{
	unsigned forms = repstos_cost_forms(k);
	int v;

	for (v = 0; v < REPSTOS_NFORM; v++)
		if (forms >> v & 1) {
			k->change[v] = v == vec ? vec_cost : 0;
			k->change_known |= 1u << v;
		}
}

static int write_tuning(const char *path, const char *module, int change)
{
	struct repstos_tuning t;
	struct repstos_cpu cpu;

	repstos_cpu_detect(&cpu);
	repstos_policy_tuning(&cpu, &t);
	t.fam[REPSTOS_FAMILY_SET].variant = repstos_variant_by_name(module);
	t.fam[REPSTOS_FAMILY_COPY].variant = REPSTOS_COPY_VARIANT_ORIGINAL;
	fixed_costs(&t.fam[REPSTOS_FAMILY_SET].costs);
	fixed_copy_costs(&t.fam[REPSTOS_FAMILY_COPY].costs);
	if (change) {
		fixed_change(&t.fam[REPSTOS_FAMILY_SET].costs, REPSTOS_VARIANT_VEC, 2000);
		fixed_change(&t.fam[REPSTOS_FAMILY_COPY].costs, REPSTOS_COPY_VARIANT_VEC, 0);
	}
	return tuning_out(path, &cpu, &t);
}

static int print_forms(void)
{
	static const char *const kind[] = { "unknown", "bounded", "const" };
	const struct repstos_site *e;

	for (e = repstos_sites_begin(); e < repstos_sites_end(); e++)
		printf("%s %s %u %u %s\n",
		       e->op == REPSTOS_OP_MOVE ? "move" :
		       repstos_op_is_copy(e->op) ? "copy" : "set",
		       kind[repstos_site_kind(e) % 3], e->size_min, e->size_max,
		       sitecheck_form(e));
	return 0;
}

static int check(size_t n, int c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (buf[i] != c) {
			printf("byte %zu of %zu is %d, not %d\n", i, n, buf[i], c);
			return 1;
		}
	return 0;
}

/* After a copy of n bytes from `from` (byte i: i * 7 mod 251). */
static int check_copy(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 7 % 251)) {
			printf("copied byte %zu of %zu is %d\n", i, n, p[i]);
			return 1;
		}
	return 0;
}

static int run(void)
{
	int bad = 0;

	const_16(), bad |= check(16, 1);
	const_300(), bad |= check(300, 2);
	const_3000(), bad |= check(3000, 3);
	const_100000(), bad |= check(100000, 4);
	bounded_100(77), bad |= check(77, 5);
	bounded_4000(999), bad |= check(4999, 6);
	unknown(12345), bad |= check(12345, 7);
	for (size_t i = 0; i < sizeof(from); i++)
		from[i] = (unsigned char)(i * 7 % 251);
	copy_300(), bad |= check_copy(buf, 300);
	copy_3000(), bad |= check_copy(buf, 3000);
	copy_bounded_100(77), bad |= check_copy(buf, 77);
	copy_bounded_4000(999), bad |= check_copy(buf, 4999);
	copy_unknown(5555), bad |= check_copy(buf, 5555);
	/* overlapping both ways: 64 bytes up, then back down (the pattern
	 * put in place byte by byte, through a volatile pointer: no site) */
	for (size_t i = 0; i < 5000; i++)
		((volatile unsigned char *)buf)[1024 + i] = from[i];
	move_bounded_4000(buf + 1088, buf + 1024, 999), bad |= check_copy(buf + 1088, 4999);
	move_bounded_4000(buf + 1024, buf + 1088, 999), bad |= check_copy(buf + 1024, 4999);
	puts(bad ? "run: wrong bytes" : "run: every site stored what it should");
	return bad;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "change"))) &&
	    !strcmp(argv[1], "tuning"))
		return write_tuning(argv[2], argv[3], argc == 5);
	if (argc == 2 && !strcmp(argv[1], "forms"))
		return print_forms();
	if (argc == 2 && !strcmp(argv[1], "run"))
		return run();
	fprintf(stderr, "usage: sizes tuning FILE MODULE [change] | forms | run\n");
	return 2;
}
