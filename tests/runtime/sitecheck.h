/* SPDX-License-Identifier: MIT */
/*
 * sitecheck.h - read back every site of the calling module and compare
 * its bytes with the form the runtime says it chose.  A header of static
 * functions, so that each module (executable, shared object) checks its
 * own table through its own copy of the runtime.
 */
#ifndef SITECHECK_H
#define SITECHECK_H

#include <stdio.h>
#include <string.h>
#include "repstos.h"
#include "policy/sitecode.h"
#include "policy/policy.h"

/* What the runtime reports for a site: its routine's address, or 0 for
 * the inline form. */
static inline uintptr_t sitecheck_expected(const struct repstos_site *e)
{
	const struct repstos_stats *st = repstos_stats();
	enum repstos_variant v;

	if (st->status != REPSTOS_ST_PATCHED)
		return (uintptr_t)__repstos_stub;
	v = repstos_site_variant(e);
	return v == REPSTOS_VARIANT_INLINE ? 0 :
		(uintptr_t)repstos_variant_routine(v);
}

static inline int sitecheck_runnable(uintptr_t target)
{
	int v = repstos_variant_by_routine((const void *)target);

	return v < 0 || repstos_policy_supported(repstos_cpu(), v);
}

/* Did the runtime leave calls of a routine this CPU lacks in place? */
static inline int sitecheck_stuck(void)
{
	return repstos_stats()->lacking > repstos_stats()->rescued;
}

static inline const char *sitecheck_name(uintptr_t target)
{
	int v;

	if (!target)
		return "inline";
	if (target == (uintptr_t)__repstos_stub)
		return "stub";
	v = repstos_variant_by_routine((const void *)target);
	return v >= 0 ? repstos_variant_name(v) : "?";
}

/* The copy stub.  Not weak: a weak reference in the object that holds
 * the copy sites would make theirs weak too, and the linker would not
 * pull the stub from librepstos_nonshared.a (calls of address 0). */
REPSTOS_HIDDEN void REPSTOS_COPY_STUB_SYMBOL(void);

/* What an entry's site holds now, by name: "inline", "stub", the variant
 * of its family whose routine it calls, "garbage", or "?". */
static inline const char *sitecheck_form(const struct repstos_site *e)
{
	uintptr_t at = repstos_site_addr(e), target = 0;
	int v;

	switch (repstos_decode((const uint8_t *)at, e->len, at, e->op, &target)) {
	case REPSTOS_FORM_INLINE:
		return "inline";
	case REPSTOS_FORM_CALL:
		break;
	default:
		return "garbage";
	}
	if (!repstos_op_is_copy(e->op))
		return sitecheck_name(target);
	if (target == (uintptr_t)REPSTOS_COPY_STUB_SYMBOL)
		return "stub";
	v = repstos_copy_variant_by_routine((const void *)target);
	return v >= 0 ? repstos_copy_variant_name(v) : "?";
}

/* The number of sites whose bytes are not what the runtime reports; also
 * checks that REPSTOS_VARIANT, when set, is what the runtime chose. */
static inline unsigned sitecheck_forms(FILE *out)
{
	const struct repstos_site *e;
	const char *forced = getenv("REPSTOS_VARIANT");
	unsigned bad = 0, n = 0;

	/* A variant the CPU cannot run falls back to auto, with a warning. */
	if (forced && *forced && strcmp(forced, "auto") &&
	    repstos_variant_by_name(forced) >= 0 &&
	    repstos_policy_supported(repstos_cpu(),
				     repstos_variant_by_name(forced)) &&
	    strcmp(repstos_variant_name(repstos_variant()), forced)) {
		fprintf(out, "REPSTOS_VARIANT=%s but the runtime chose %s\n",
			forced, repstos_variant_name(repstos_variant()));
		bad++;
	}
	for (e = repstos_sites_begin(); e < repstos_sites_end(); e++, n++) {
		uintptr_t at = repstos_site_addr(e), want, got = 0;
		enum repstos_form form;

		want = sitecheck_expected(e);
		form = repstos_decode((const uint8_t *)at, e->len, at, e->op, &got);
		if (form == REPSTOS_FORM_INLINE)
			got = 0;
		/* A statically patched file keeps its own choices; a call of
		 * a routine this CPU cannot run stays only where the runtime
		 * could not rewrite it (and the routine runs "vec"). */
		if (repstos_stats()->status == REPSTOS_ST_STATIC && form != REPSTOS_FORM_BAD)
			want = sitecheck_runnable(got) || sitecheck_stuck() ?
				got : ~(uintptr_t)0;
		if (form == REPSTOS_FORM_BAD || got != want) {
			fprintf(out, "site %u at %p: bytes say %s, runtime says %s\n",
				n, (void *)at, form == REPSTOS_FORM_BAD ? "garbage" :
				sitecheck_name(got), sitecheck_name(want));
			bad++;
		}
	}
	fprintf(out, "%u sites read back, %u in the wrong form\n", n, bad);
	return bad;
}

#endif
