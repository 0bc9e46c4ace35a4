/* SPDX-License-Identifier: MIT */
/*
 * gcc-compat.h - the GCC headers the repstos plugin needs, in an order
 * that builds against GCC 12 and later, and the few spots where the
 * plugin API moved between versions (in the spirit of the kernel's
 * scripts/gcc-plugins/gcc-common.h, much smaller).
 *
 * Only x86-64 GCC is supported: the plugin reads i386 target flags.
 */
#ifndef REPSTOS_GCC_COMPAT_H
#define REPSTOS_GCC_COMPAT_H

#include "gcc-plugin.h"
#include "plugin-version.h"

#if GCCPLUGIN_VERSION_MAJOR < 12
#error "repstos: the plugin needs GCC 12 or newer"
#endif

/* plugin-version.h defines gcc_version in every file that includes it;
 * plugin_init checks it, and this use keeps the other files quiet. */
static inline const struct plugin_gcc_version *compat_gcc_version(void)
{
	return &gcc_version;
}

#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cfghooks.h"
#include "cfgloop.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-fold.h"
#include "gimple-ssa.h"
#include "ssa.h"
#include "gimplify-me.h"
#include "stringpool.h"
#include "tree-ssanames.h"
#include "tree-into-ssa.h"
#include "tree-cfg.h"
#include "cgraph.h"
#include "diagnostic.h"
#include "builtins.h"
#include "attribs.h"
#include "tree-eh.h"
#include "asan.h"
#include "dominance.h"
#include "value-query.h"
#include "gimple-range.h"
#include "alias.h"
#include "tree-dfa.h"
#include "rtl.h"
#include "memmodel.h"
#include "emit-rtl.h"
#include "output.h"

#ifndef TARGET_LP64
#error "repstos: the plugin must be built against an x86-64 GCC"
#endif

/*
 * The integer range of an expression at a statement, as [lo, hi] in the
 * expression's own type.  False when nothing useful is known.  GCC 12
 * has no get_range_info(); GCC 14 turned value_range into a polymorphic
 * holder, but int_range_max and irange bounds kept their meaning.
 */
static inline bool compat_range_of(tree expr, gimple *stmt,
				   wide_int *lo, wide_int *hi)
{
	int_range_max r;

	if (!get_range_query(cfun)->range_of_expr(r, expr, stmt))
		return false;
	if (r.undefined_p() || r.varying_p())
		return false;
	*lo = r.lower_bound();
	*hi = r.upper_bound();
	return true;
}

#endif /* REPSTOS_GCC_COMPAT_H */
