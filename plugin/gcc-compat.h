/* SPDX-License-Identifier: MIT */
/*
 * gcc-compat.h - every GCC header the repstos plugin reads, in an order
 * that builds against GCC 12 to 16, and each spot where the plugin API
 * moved between those versions, the version that moved it named beside
 * it (in the spirit of the kernel's scripts/gcc-plugins/gcc-common.h,
 * much smaller).  The plugin's other files read GCC through this file
 * alone (tests/build/layout.sh holds them to it), so a new GCC is met
 * here and nowhere else.
 *
 * Built and tested with GCC 12 (Debian 12), 14 (Debian 13), 15 and 16
 * (Debian testing): `make test-compilers`.
 *
 * Only x86-64 GCC is supported: the plugin reads i386 target flags.
 */
#ifndef REPSTOS_GCC_COMPAT_H
#define REPSTOS_GCC_COMPAT_H

/*
 * C++ standard headers.  system.h (read by gcc-plugin.h) poisons the
 * <ctype.h> names through safe-ctype.h, so a standard header must come
 * in before it: asked for with INCLUDE_<NAME> here, never #included
 * after this file.  GCC 12 read only <string> before safe-ctype.h; GCC
 * 13 and 14 every INCLUDE_* header but <memory>, which came after it;
 * GCC 15 reads <memory> always, before safe-ctype.h, and ignores
 * INCLUDE_MEMORY.  The plugin asks for none today: a future
 * std::unique_ptr needs INCLUDE_MEMORY defined here for GCC 12 to 14.
 */

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

/* The GCC the plugin was built for, as `gcc -dumpfullversion` says it,
 * for repstos-cc to read from the file without loading it (a GCC of
 * another major version fails to load the plugin before plugin_init
 * can say why).  One definition, in passes.c. */
#define COMPAT_STR(x)		COMPAT_STR_(x)
#define COMPAT_STR_(x)		#x
#define COMPAT_BUILT_FOR	"repstos plugin built for GCC " \
	COMPAT_STR(GCCPLUGIN_VERSION_MAJOR) "." \
	COMPAT_STR(GCCPLUGIN_VERSION_MINOR) "." \
	COMPAT_STR(GCCPLUGIN_VERSION_PATCHLEVEL)

#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cfghooks.h"
#include "cfgloop.h"
#include "gimple.h"
/* GCC 13: gimple-fold.h uses gimple_stmt_iterator without including
 * gimple-iterator.h: it must come first. */
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
#include "cpplib.h"
#include "toplev.h"	/* kernel mode's tree reader (ktree.c) */
#include "opts.h"

#ifndef TARGET_LP64
#error "repstos: the plugin must be built against an x86-64 GCC"
#endif

/* GCC 14 renamed last_stmt() to last_nondebug_stmt(); the new name
 * works on every version. */
#if GCCPLUGIN_VERSION_MAJOR < 14
#define last_nondebug_stmt(bb)	last_stmt(bb)
#endif

/*
 * Of the C front end, which kernel mode asks whether the unit is a
 * module and where it defines __REPSTOS_KERNEL__: c-family/c-common.h,
 * which declares these, must come before the diagnostic headers above,
 * so they are declared here (unchanged from GCC 12 to 16).  Weak: lto1
 * loads the plugin too, and has no preprocessor.
 */
extern cpp_reader *parse_in __attribute__((weak));
extern void cpp_define(cpp_reader *, const char *) __attribute__((weak));
extern int cpp_defined(cpp_reader *, const unsigned char *, int)
	__attribute__((weak));

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
