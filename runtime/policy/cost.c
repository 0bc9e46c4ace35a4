// SPDX-License-Identifier: MIT
/*
 * cost.c - the cost model both families share (policy.h): size classes,
 * which forms a table has, and what a form is expected to cost over a
 * site's size profile.
 */
#include <string.h>
#include "policy.h"

unsigned repstos_size_class(unsigned long long n)
{
	unsigned c = 0;

	while (n && c < REPSTOS_NCLASS - 1) {
		n >>= 1;
		c++;
	}
	return c;
}

unsigned long long repstos_class_lo(unsigned c)
{
	return c ? 1ull << (c - 1) : 0;
}

unsigned long long repstos_class_hi(unsigned c)
{
	return c ? (1ull << c) - 1 : 0;
}

int repstos_cost_known(const struct repstos_costs *k, int v)
{
	unsigned c;

	if (v < 0 || v >= REPSTOS_NFORM)
		return 0;
	for (c = 0; c < REPSTOS_NCLASS; c++)
		if (!k->cns[v][c])
			return 0;
	return 1;
}

unsigned repstos_cost_forms(const struct repstos_costs *k)
{
	unsigned mask = 0;
	int v;

	for (v = 0; v < REPSTOS_NFORM; v++)
		if (repstos_cost_known(k, v))
			mask |= 1u << v;
	return mask;
}

/* Forget the costs of forms this CPU cannot run (a row measured with
 * AVX-512, used under a REPSTOS_CPU profile without it). */
void repstos_costs_drop(const struct repstos_family *f,
			const struct repstos_cpu *cpu, struct repstos_costs *k)
{
	int v;

	for (v = 0; v < REPSTOS_NFORM; v++) {
		if (repstos_family_runs(f, cpu, v))
			continue;
		memset(k->cns[v], 0, sizeof(k->cns[v]));
		k->change[v] = 0;
		k->change_known &= ~(1u << v);
		k->use_extra[v] = 0;
		k->use_known &= ~(1u << v);
	}
}

unsigned long long repstos_policy_weighted(const struct repstos_costs *k,
					   int v, const unsigned long long *hist)
{
	unsigned __int128 sum = 0;
	unsigned c;

	if (!repstos_cost_known(k, v))
		return ~0ull;
	for (c = 0; c < REPSTOS_NCLASS; c++)
		sum += (unsigned __int128)hist[c] * k->cns[v][c];
	/* ~0ull says "unknown": a real sum stops one short of it */
	return sum >= ~0ull ? ~0ull - 1 : (unsigned long long)sum;
}

/* The change cost of form v over the calls of hist: its change cost
 * times the expected changes of class between consecutive calls drawn
 * from hist, N - sum(h^2) / N. */
static unsigned __int128 change_term(const struct repstos_costs *k, int v,
				     const unsigned long long *hist)
{
	unsigned __int128 n = 0, sq = 0;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++) {
		n += hist[c];
		sq += (unsigned __int128)hist[c] * hist[c];
	}
	return n ? k->change[v] * (n * n - sq) / n : 0;
}


int repstos_cost_has_change(const struct repstos_costs *k)
{
	unsigned forms = repstos_cost_forms(k);

	return forms && !(forms & ~k->change_known);
}

unsigned long long repstos_policy_expected(const struct repstos_costs *k,
					   int v, const unsigned long long *hist)
{
	unsigned long long w = repstos_policy_weighted(k, v, hist);
	unsigned __int128 x;

	if (w == ~0ull || !repstos_cost_has_change(k))
		return w;
	x = w + change_term(k, v, hist);
	return x >= ~0ull ? ~0ull - 1 : (unsigned long long)x;
}

int repstos_cost_has_use(const struct repstos_costs *k)
{
	unsigned forms = repstos_cost_forms(k);

	return forms && !(forms & ~k->use_known);
}
