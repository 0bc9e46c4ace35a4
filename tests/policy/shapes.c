// SPDX-License-Identifier: MIT
// Proves: a size profile moves a site off the module routine only to a form more than 3% faster both back to back and with its last byte read next, where the table says what a read-back costs each form; and never off a module routine the table has no row for.
/*
 * shapes.c - repstos_policy_site (choose.c) on a crafted set table and
 * size profiles, with and without the table's use_extra (policy.h):
 * the module routine avx512_split; "inline" (rep stosb in place) 25%
 * cheaper back to back at 16..31 bytes but 9 ns slower a call read
 * back, as a string store's bytes are not forwarded; "vec" 10% cheaper
 * back to back and 5 ns cheaper read back.  Figures of the shape the
 * Intel Emerald Rapids tune measured (use_extra 4.4 ns for rep stosb,
 * 6.2 for avx512_split, 1.4 for vec).
 */
#include <stdio.h>
#include <string.h>
#include "repstos.h"
#include "policy/policy.h"
#include "policy/family.h"

static unsigned checks, failures;

static void expect(const char *what, int got, int want)
{
	const struct repstos_family *f = repstos_family_of(REPSTOS_OP_MEMSET);

	checks++;
	if (got == want) {
		printf("ok: %s: %s\n", what, repstos_family_name(f, got));
		return;
	}
	failures++;
	printf("FAIL: %s: %s, not %s\n", what, repstos_family_name(f, got),
	       repstos_family_name(f, want));
}

/* Every class costs `base` centi-ns but 16..31 bytes (class 5). */
static void row(struct repstos_costs *k, int v, unsigned base, unsigned at16)
{
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		k->cns[v][c] = c == 5 ? at16 : base;
	k->change[v] = 100;
	k->change_known |= 1u << v;
}

static void use(struct repstos_costs *k, int v, unsigned extra)
{
	k->use_extra[v] = extra;
	k->use_known |= 1u << v;
}

/* The module routine the sites' module has (repstos_modules). */
static int module = REPSTOS_VARIANT_AVX512_SPLIT;

static int choose(const struct repstos_tuning *t, unsigned kind, unsigned use,
		  const unsigned long long *hist)
{
	static const struct repstos_cpu cpu = { REPSTOS_VENDOR_INTEL, 6, 0xcf,
						0, ~0u };
	const struct repstos_family *f = repstos_family_of(REPSTOS_OP_MEMSET);
	struct repstos_modules m;
	struct repstos_site e;

	memset(&m, 0, sizeof(m));
	m.fam[REPSTOS_FAMILY_SET].variant = module;
	m.fam[REPSTOS_FAMILY_COPY].variant = REPSTOS_COPY_VARIANT_AVX512;
	memset(&e, 0, sizeof(e));
	e.version = REPSTOS_SITE_VERSION;
	e.len = REPSTOS_SITE_LEN;
	e.op = REPSTOS_OP_MEMSET;
	e.kind = (uint8_t)(kind | use);
	e.size_min = 0;
	e.size_max = REPSTOS_SIZE_SAT;
	return repstos_policy_site(t, &m, &cpu, f, &e, hist, 0).form;
}

int main(void)
{
	static struct repstos_tuning t;
	struct repstos_costs *k = &t.fam[REPSTOS_FAMILY_SET].costs;
	unsigned long long at16[REPSTOS_NCLASS] = { 0 }, at64[REPSTOS_NCLASS] = { 0 };

	at16[5] = 1000;		/* every call 16..31 bytes */
	at64[7] = 1000;		/* every call 64..127 bytes */
	t.fam[REPSTOS_FAMILY_SET].variant = REPSTOS_VARIANT_AVX512_SPLIT;
	t.fam[REPSTOS_FAMILY_SET].read_variant = REPSTOS_VARIANT_AVX512_SPLIT;
	t.fam[REPSTOS_FAMILY_SET].inline_min = ~0u;
	row(k, REPSTOS_VARIANT_AVX512_SPLIT, 400, 400);
	row(k, REPSTOS_VARIANT_INLINE, 400, 300);
	row(k, REPSTOS_VARIANT_VEC, 600, 360);

	/* the table alone: rep stosb in place, 25% cheaper back to back */
	expect("no use_extra: the back-to-back table's cheapest",
	       choose(&t, REPSTOS_SIZE_UNKNOWN, 0, at16), REPSTOS_VARIANT_INLINE);

	use(k, REPSTOS_VARIANT_AVX512_SPLIT, 620);
	use(k, REPSTOS_VARIANT_INLINE, 1520);
	use(k, REPSTOS_VARIANT_VEC, 140);
	expect("use_extra: vec, faster in both shapes (0.90 and 0.49)",
	       choose(&t, REPSTOS_SIZE_UNKNOWN, 0, at16), REPSTOS_VARIANT_VEC);
	expect("the same for a site read back",
	       choose(&t, REPSTOS_SIZE_UNKNOWN, REPSTOS_USE_READ, at16),
	       REPSTOS_VARIANT_VEC);

	/* vec only 2% cheaper back to back: within the noise in one shape */
	row(k, REPSTOS_VARIANT_VEC, 600, 392);
	expect("a form 2% faster back to back keeps the module routine",
	       choose(&t, REPSTOS_SIZE_UNKNOWN, 0, at16),
	       REPSTOS_VARIANT_AVX512_SPLIT);

	/* vec faster back to back but slower read back */
	row(k, REPSTOS_VARIANT_VEC, 600, 300);
	use(k, REPSTOS_VARIANT_VEC, 800);
	expect("a form faster back to back, slower read back: the module routine",
	       choose(&t, REPSTOS_SIZE_UNKNOWN, 0, at16),
	       REPSTOS_VARIANT_AVX512_SPLIT);

	/* from 64 bytes no read-back cost counts: the cheaper back to back */
	row(k, REPSTOS_VARIANT_INLINE, 300, 300);
	expect("64..127 bytes: rep stosb in place, 25% cheaper back to back",
	       choose(&t, REPSTOS_SIZE_UNKNOWN, 0, at64), REPSTOS_VARIANT_INLINE);

	/* a module routine with no row in the table (tune may choose a
	 * forced_only one, avx512_plain, by its cells): nothing to weigh
	 * the others against, so a profile keeps it, where it once took
	 * the cheapest back to back (rep stosb in place here) */
	module = REPSTOS_VARIANT_AVX512_PLAIN;
	expect("a module routine the table has no row for: kept",
	       choose(&t, REPSTOS_SIZE_UNKNOWN, 0, at64),
	       REPSTOS_VARIANT_AVX512_PLAIN);
	module = REPSTOS_VARIANT_AVX512_SPLIT;

	/* through a tuning file and back: the same figures, the same form */
	{
		static const struct repstos_cpu cpu = { REPSTOS_VENDOR_INTEL, 6,
							0xcf, 0, ~0u };
		static struct repstos_tuning back;
		char text[REPSTOS_TUNING_MAX];

		back = t;
		memset(&back.fam[REPSTOS_FAMILY_SET].costs, 0, sizeof(*k));
		checks++;
		if (repstos_tuning_format(text, sizeof(text), &cpu, &t) < 0 ||
		    !strstr(text, "\nuse_extra vec 800\n") ||
		    repstos_tuning_parse(text, &cpu, &back) != 1 ||
		    memcmp(&back.fam[REPSTOS_FAMILY_SET].costs, k, sizeof(*k))) {
			failures++;
			printf("FAIL: a tuning file's use_extra lines do not "
			       "read back as written:\n%s", text);
		} else {
			printf("ok: use_extra lines read back as written\n");
		}
		k->use_known &= ~(1u << REPSTOS_VARIANT_VEC);
		checks++;
		if (repstos_tuning_format(text, sizeof(text), &cpu, &t) < 0 ||
		    repstos_tuning_parse(text, &cpu, &back) != 1 ||
		    repstos_cost_has_use(&back.fam[REPSTOS_FAMILY_SET].costs)) {
			failures++;
			printf("FAIL: a table with a form's use_extra missing "
			       "reads back as whole\n");
		} else {
			printf("ok: a form's use_extra missing: not weighed\n");
		}
		/* inline and vec both 3 ns at 16..31: the lower number */
		expect("one form's use_extra missing: the back-to-back table alone",
		       choose(&t, REPSTOS_SIZE_UNKNOWN, 0, at16),
		       REPSTOS_VARIANT_INLINE);
	}
	printf("%u checks, %u failed\n", checks, failures);
	return failures != 0;
}
