// SPDX-License-Identifier: MIT
/*
 * repstos.c - GCC plugin turning memset-family calls into patchable
 * `rep stosb` sites.  The site it emits is defined in
 * include/repstos_site.h; README.md ("Plugin options", "The site
 * contract") and repstos-cc(1) describe it for users.
 *
 * A GIMPLE pass after "optimized" (it runs at every -O level, after the
 * sanitizer passes) finds the calls that survived optimisation:
 *
 *   memset, __memset_chk, bzero		builtins, by gimple_call_builtin_p
 *   explicit_bzero, __explicit_bzero_chk	by name
 *   -fplugin-arg-repstos-clear=f,g		user (ptr, len) clear helpers
 *   -fplugin-arg-repstos-memset=h		user (ptr, c, len) helpers
 *
 * and, as copy sites (REPSTOS_COPY_SITE: `call __repstos_copy_stub`,
 * rdi/rsi/rcx tied), the copies (see struct shape):
 *
 *   memcpy, mempcpy, memmove and their _chk	with -fplugin-arg-repstos-copy
 *   -fplugin-arg-repstos-copy-fn=f, move-fn=g	user (dst, src, len) helpers
 *
 * and replaces each with a volatile asm that is exactly what
 * REPSTOS_SITE_ASM in include/repstos.h emits: `call __repstos_stub` plus
 * a SHF_LINK_ORDER entry in the site table (linked, with every site of
 * its text section, to one label there: link_sections, an RTL pass just
 * before final).  rdi, rcx and rax are tied
 * in/out operands, the asm clobbers memory, the flags and
 * REPSTOS_SITE_CLOBBERS (in AVX code the vector file as well: the
 * vector-state rule of repstos_site.h), and inherits the call's virtual
 * operands.
 *
 * Which calls become sites, by default:
 *  - every non-constant size (max-size=N: not when its proven maximum
 *    exceeds N);
 *  - constant sizes only where GCC would have called libc itself: GCC 12
 *    expands constant memsets at RTL time into stores or `rep stos`, and
 *    replacing those by a call is a regression.  Measured with GCC 12.2,
 *    generic tuning (and -mtune=intel, -march=x86-64-v3): -O1/-O2/-O3/-Og
 *    inline up to 8192 bytes and call libc from 8193; -Os never calls
 *    (always `rep stos`); -O0 never expands, so every memset is a call.
 *    Hence min-const defaults to 8193, to "never" in blocks optimised for
 *    size and to 0 at -O0.  Tunings with lower limits (znver3 calls from
 *    129, skylake from 257) keep those calls as libc calls unless the user
 *    passes min-const.
 *
 * A call stays a call (the verbose note says why) where the function
 * cannot give its site the registers it names (no SSE, a fixed
 * register: regs_unusable) and where an asm label sends the C library's
 * function elsewhere (relabelled), besides the sanitizer and kernel
 * cases judge() lists.
 *
 * The red zone: a `call` inside an asm writes its return address below
 * rsp, over the 128 bytes a leaf function may keep live locals in, and
 * no asm operand can tell GCC so.  The plugin compiles the unit as with
 * -mno-red-zone (set in plugin_init, before the target options are
 * processed, so every function and every target attribute inherits it).
 */
#include "gcc-compat.h"

/* The contract header is C; its C11 static assertions read as C++ ones. */
#define _Static_assert static_assert
#include "repstos_site.h"
#undef _Static_assert

#include "kernel.h"

/* The two symbols GCC looks up; everything else is hidden (plugin.mk). */
#define PLUGIN_EXPORT __attribute__((visibility("default")))

PLUGIN_EXPORT int plugin_is_GPL_compatible;

/* REPSTOS_SITE_CLOBBERS is a list of C strings, as asm clobbers take;
 * REPSTOS_COPY_CLOBBERS too. */
static const char *const site_clobbers[] = { REPSTOS_SITE_CLOBBERS };
static const char *const copy_clobbers[] = { REPSTOS_COPY_CLOBBERS };
static const char *const avx_clobbers[] = { REPSTOS_SITE_CLOBBERS_AVX };
static const char *const avx512_clobbers[] = { REPSTOS_SITE_CLOBBERS_AVX512 };

/* Functions the checks call, built once per unit; GC roots so they
 * survive collections. */
static tree chk_fail_fndecl, poisoned_fndecl, asan_memcpy_fndecl;

static const struct ggc_root_tab repstos_ggc_roots[] = {
	{ &chk_fail_fndecl, 1, sizeof(tree),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &poisoned_fndecl, 1, sizeof(tree),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &asan_memcpy_fndecl, 1, sizeof(tree),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

static struct plugin_info repstos_plugin_info = {
	.version = "1",
	.help = "turn memset-family calls into patchable rep stosb sites\n"
		"  -fplugin-arg-repstos-clear=F[,G...]   (ptr, len) clear helpers\n"
		"  -fplugin-arg-repstos-memset=F[,G...]  (ptr, c, len) helpers\n"
		"  -fplugin-arg-repstos-copy             memcpy, mempcpy, memmove too\n"
		"  -fplugin-arg-repstos-copy-fn=F[,G...] (dst, src, len) memcpy helpers\n"
		"  -fplugin-arg-repstos-move-fn=F[,G...] (dst, src, len) memmove helpers\n"
		"  -fplugin-arg-repstos-min-const=N|auto smallest constant size\n"
		"  -fplugin-arg-repstos-max-size=N       leave proven larger sizes\n"
		"  -fplugin-arg-repstos-verbose          one note per call\n"
		"  -fplugin-arg-repstos-kernel           Linux alternatives\n",
};

/* Sentinels for the numeric options: min-const=auto, no max-size. */
#define MIN_CONST_AUTO	(~0ULL)
#define MAX_SIZE_NONE	(~0ULL)
/* What min_const_for() gives where no constant size is worth a site. */
#define MIN_CONST_NEVER	(~0ULL)

/* What libc calls from 8193 bytes on with generic tuning (see above). */
#define MIN_CONST_MEASURED	8193ULL

static struct {
	bool verbose;
	bool copy;		/* copy sites for the copy builtins */
	unsigned long long min_const;
	unsigned long long max_size;
	vec<const char *> clear_names;
	vec<const char *> memset_names;
	vec<const char *> copy_names;
	vec<const char *> move_names;
} opt = { false, false, MIN_CONST_AUTO, MAX_SIZE_NONE, vNULL, vNULL, vNULL,
	  vNULL };

/* Per-unit counts for the verbose summary. */
static unsigned n_sites, n_left;

/* One call the pass looked at and what it found out about it. */
struct candidate {
	gcall *call;
	bool gcc_expands;	/* a builtin GCC may expand itself at RTL time */
	const char *what;	/* name used in remarks */
	const char *libc;	/* the C library's symbol for it, or NULL */
	tree dst;
	tree src;		/* copies: the source, else NULL_TREE */
	bool returns_end;	/* mempcpy: returns dst + len */
	tree fill;		/* NULL_TREE: zero */
	tree len;
	tree objsz;		/* _chk forms: object size, else NULL_TREE */
	enum repstos_op op;
	enum repstos_size_kind kind;
	unsigned long long min, max;
	char why_not[128];	/* reason to leave it alone, or "" */
	const char *fwd;	/* MOVE_FWD: the rule that proved it, else NULL */
	bool read_back;		/* REPSTOS_USE_READ: see read_back() */
};

/* ---- Options -------------------------------------------------------- */

/* A number for option key (min-const takes auto too: or_auto says so). */
static bool parse_number(const char *key, const char *value,
			 unsigned long long *out, bool or_auto)
{
	char *end;

	if (!value || !*value) {
		error("missing value for %<-fplugin-arg-repstos-%s%>", key);
		return false;
	}
	errno = 0;
	*out = strtoull(value, &end, 0);
	if (errno || *end || *value == '-') {
		if (or_auto)
			error("bad value %qs for %<-fplugin-arg-repstos-%s%>: "
			      "expected a non-negative integer or %<auto%>",
			      value, key);
		else
			error("bad value %qs for %<-fplugin-arg-repstos-%s%>: "
			      "expected a non-negative integer", value, key);
		return false;
	}
	return true;
}

static bool valid_identifier(const char *s, size_t n)
{
	if (!n || ISDIGIT(s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ISIDNUM(s[i]))
			return false;
	return true;
}

/* "a,b,c" into names; every element must be a C identifier. */
static bool parse_names(const char *key, const char *value,
			vec<const char *> *names)
{
	const char *p = value;

	if (!value || !*value) {
		error("missing value for %<-fplugin-arg-repstos-%s%>", key);
		return false;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!valid_identifier(p, n)) {
			error("bad value %qs for %<-fplugin-arg-repstos-%s%>: "
			      "expected comma-separated function names",
			      value, key);
			return false;
		}
		names->safe_push(xstrndup(p, n));
		if (!comma)
			return true;
		p = comma + 1;
	}
}

static bool parse_args(const struct plugin_name_args *info)
{
	bool ok = true;

	for (int i = 0; i < info->argc; i++) {
		const char *key = info->argv[i].key;
		const char *value = info->argv[i].value;

		if (!strcmp(key, "verbose") || !strcmp(key, "copy")) {
			if (value) {
				error("%<-fplugin-arg-repstos-%s%> takes "
				      "no value (got %qs)", key, value);
				ok = false;
			}
			*(key[0] == 'v' ? &opt.verbose : &opt.copy) = true;
		} else if (!strcmp(key, "clear")) {
			ok &= parse_names(key, value, &opt.clear_names);
		} else if (!strcmp(key, "memset")) {
			ok &= parse_names(key, value, &opt.memset_names);
		} else if (!strcmp(key, "copy-fn")) {
			ok &= parse_names(key, value, &opt.copy_names);
		} else if (!strcmp(key, "move-fn")) {
			ok &= parse_names(key, value, &opt.move_names);
		} else if (!strcmp(key, "min-const")) {
			if (value && !strcmp(value, "auto"))
				opt.min_const = MIN_CONST_AUTO;
			else
				ok &= parse_number(key, value, &opt.min_const,
						   true);
		} else if (!strcmp(key, "max-size")) {
			ok &= parse_number(key, value, &opt.max_size, false);
		} else if (kernel_option(key, value, &ok)) {
			opt.copy |= kernel_mode;
		} else {
			error("unknown option %<-fplugin-arg-repstos-%s%> "
			      "(known: clear, memset, copy, copy-fn, move-fn, "
			      "min-const, max-size, verbose, kernel)", key);
			ok = false;
		}
	}
	return ok;
}

/* ---- Finding the calls ---------------------------------------------- */

static bool name_in(const char *name, const vec<const char *> &names)
{
	unsigned i;
	const char *n;

	FOR_EACH_VEC_ELT(names, i, n)
		if (!strcmp(n, name))
			return true;
	return false;
}

static bool arg_is_pointer(gcall *call, unsigned i)
{
	return POINTER_TYPE_P(TREE_TYPE(gimple_call_arg(call, i)));
}

static bool arg_is_integer(gcall *call, unsigned i)
{
	return INTEGRAL_TYPE_P(TREE_TYPE(gimple_call_arg(call, i)));
}

/* A call by name with the shape we expect: (ptr, [int,] int [, int]),
 * or for copies (ptr, ptr, int [, int]) with the source at src. */
static bool shaped_like(gcall *call, unsigned nargs, int src)
{
	if (gimple_call_num_args(call) != nargs || !arg_is_pointer(call, 0))
		return false;
	for (unsigned i = 1; i < nargs; i++)
		if (!((int)i == src ? arg_is_pointer(call, i) :
				       arg_is_integer(call, i)))
			return false;
	return true;
}

/*
 * The calls the pass knows, tried in order: each by its builtin code
 * (GCC checked the arguments and may expand it itself at RTL time), by
 * its name, or by a name in an option's list, the last two only with
 * nargs (ptr, int...) arguments, or (ptr, ptr, int...) for copies.
 * fill, len, objsz and src are argument numbers, -1 where the call has
 * none.
 *
 * Copies (the ops repstos_op_is_copy() says) come from builtins only
 * with -fplugin-arg-repstos-copy: the copy policy has a measured row for
 * one CPU only, and copy sites are not profiled yet.  A helper named in copy-fn= or move-fn= is asked for by
 * name and needs no more.  GCC expands constant-size memcpy and mempcpy
 * at RTL time exactly where it expands memset (measured with GCC 12.2,
 * generic tuning: a libc call from 8193 bytes at -O1 and above, never at
 * -Os, always at -O0), so min-const applies to them as it is; memmove it
 * never expands (x86-64 has no movmem pattern: a constant-size memmove
 * that gimple folding left is a libc call at every level and size), so
 * every memmove and __memmove_chk is a site, like explicit_bzero.
 */
struct shape {
	enum built_in_function builtin;	/* END_BUILTINS: match by name */
	const char *name;		/* the builtin's, or the one to match */
	const vec<const char *> *names;	/* or one of these */
	unsigned nargs;
	enum repstos_op op;
	int fill, len, objsz;
	int src;			/* copies: the source argument */
	bool end;			/* returns dst + len (mempcpy) */
	bool gcc_expands;		/* GCC may expand constant sizes */
};

static const struct shape shapes[] = {
	{ BUILT_IN_MEMSET, "memset", NULL, 3, REPSTOS_OP_MEMSET, 1, 2, -1,
	  -1, false, true },
	{ BUILT_IN_MEMSET_CHK, "__memset_chk", NULL, 4,
	  REPSTOS_OP_MEMSET, 1, 2, 3, -1, false, true },
	{ BUILT_IN_BZERO, "bzero", NULL, 2, REPSTOS_OP_ZERO, -1, 1, -1,
	  -1, false, true },
	{ END_BUILTINS, "explicit_bzero", &opt.clear_names, 2,
	  REPSTOS_OP_CLEAR, -1, 1, -1, -1, false, false },
	{ END_BUILTINS, "__explicit_bzero_chk", NULL, 3,
	  REPSTOS_OP_CLEAR, -1, 1, 2, -1, false, false },
	{ END_BUILTINS, NULL, &opt.memset_names, 3,
	  REPSTOS_OP_MEMSET, 1, 2, -1, -1, false, false },
	/* copies */
	{ BUILT_IN_MEMCPY, "memcpy", NULL, 3, REPSTOS_OP_COPY, -1, 2, -1,
	  1, false, true },
	{ BUILT_IN_MEMCPY_CHK, "__memcpy_chk", NULL, 4, REPSTOS_OP_COPY,
	  -1, 2, 3, 1, false, true },
	{ BUILT_IN_MEMPCPY, "mempcpy", NULL, 3, REPSTOS_OP_COPY, -1, 2, -1,
	  1, true, true },
	{ BUILT_IN_MEMPCPY_CHK, "__mempcpy_chk", NULL, 4, REPSTOS_OP_COPY,
	  -1, 2, 3, 1, true, true },
	{ BUILT_IN_MEMMOVE, "memmove", NULL, 3, REPSTOS_OP_MOVE, -1, 2, -1,
	  1, false, false },
	{ BUILT_IN_MEMMOVE_CHK, "__memmove_chk", NULL, 4, REPSTOS_OP_MOVE,
	  -1, 2, 3, 1, false, false },
	{ END_BUILTINS, NULL, &opt.copy_names, 3, REPSTOS_OP_COPY, -1, 2, -1,
	  1, false, false },
	{ END_BUILTINS, NULL, &opt.move_names, 3, REPSTOS_OP_MOVE, -1, 2, -1,
	  1, false, false },
};

/* Is the call (to the function named name, or NULL) of shape sh? */
static bool matches(gcall *call, const char *name, const struct shape *sh)
{
	if (sh->builtin != END_BUILTINS)
		return (opt.copy || !repstos_op_is_copy(sh->op))
			&& gimple_call_builtin_p(call, sh->builtin);
	if (!name)
		return false;
	if (!(sh->name && !strcmp(name, sh->name)) &&
	    !(sh->names && name_in(name, *sh->names)))
		return false;
	return shaped_like(call, sh->nargs, sh->src);
}

static tree arg_or_null(gcall *call, int i)
{
	return i < 0 ? NULL_TREE : gimple_call_arg(call, i);
}

/* Fill c from the call, or return false if it is not one of ours. */
static bool classify(gcall *call, struct candidate *c)
{
	tree fndecl = gimple_call_fndecl(call);
	const char *name = NULL;
	const struct shape *sh;

	memset(c, 0, sizeof(*c));
	c->call = call;
	if (!fndecl || gimple_call_internal_p(call))
		return false;	/* through a pointer: nothing to know */
	if (DECL_NAME(fndecl))
		name = IDENTIFIER_POINTER(DECL_NAME(fndecl));
	for (sh = shapes; sh < shapes + ARRAY_SIZE(shapes); sh++) {
		if (!matches(call, name, sh))
			continue;
		c->gcc_expands = sh->gcc_expands;
		c->what = sh->builtin != END_BUILTINS ? sh->name : name;
		if (sh->name && !strcmp(c->what, sh->name))
			c->libc = sh->name;
		c->dst = gimple_call_arg(call, 0);
		c->src = arg_or_null(call, sh->src);
		c->returns_end = sh->end;
		c->fill = arg_or_null(call, sh->fill);
		c->len = arg_or_null(call, sh->len);
		c->objsz = arg_or_null(call, sh->objsz);
		c->op = sh->op;
		return true;
	}
	return false;
}

/* A pointer as the compiler built it: base plus a byte offset, known
 * or not.  base is an SSA name (a pointer nothing more is known of),
 * a declared object, or whatever else the address starts from. */
struct pointer_parts {
	tree base;
	HOST_WIDE_INT off;
	bool off_known;
};

/* Walk p back through copies, pointer conversions, constant and variable
 * pointer additions and addresses of object parts, as far as GIMPLE
 * shows them (a few steps; no PHIs). */
static void decompose(tree p, struct pointer_parts *r)
{
	r->off = 0;
	r->off_known = true;
	for (int steps = 0; steps < 16; steps++) {
		if (TREE_CODE(p) == ADDR_EXPR) {
			tree obj = TREE_OPERAND(p, 0), base;
			poly_int64 o;
			HOST_WIDE_INT k;

			base = get_addr_base_and_unit_offset(obj, &o);
			if (base && o.is_constant(&k)) {
				r->off += k;
			} else {
				base = get_base_address(obj);
				r->off_known = false;
			}
			if (base && TREE_CODE(base) == MEM_REF) {
				poly_offset_int mo = mem_ref_offset(base);
				offset_int mk;

				if (mo.is_constant(&mk) && wi::fits_shwi_p(mk))
					r->off += mk.to_shwi();
				else
					r->off_known = false;
				p = TREE_OPERAND(base, 0);
				continue;
			}
			r->base = base;
			return;
		}
		if (TREE_CODE(p) == SSA_NAME && !SSA_NAME_IS_DEFAULT_DEF(p)
		    && is_gimple_assign(SSA_NAME_DEF_STMT(p))) {
			gimple *def = SSA_NAME_DEF_STMT(p);
			enum tree_code code = gimple_assign_rhs_code(def);
			tree rhs1 = gimple_assign_rhs1(def);

			if (code == POINTER_PLUS_EXPR) {
				tree k = gimple_assign_rhs2(def);

				if (TREE_CODE(k) == INTEGER_CST
				    && tree_fits_shwi_p(fold_convert(ssizetype, k)))
					r->off += tree_to_shwi(
						fold_convert(ssizetype, k));
				else
					r->off_known = false;
				p = rhs1;
				continue;
			}
			if ((code == SSA_NAME || code == ADDR_EXPR
			     || CONVERT_EXPR_CODE_P(code))
			    && POINTER_TYPE_P(TREE_TYPE(rhs1))) {
				p = rhs1;
				continue;
			}
		}
		break;
	}
	r->base = p;
}

/*
 * May this memmove copy forwards, as `rep movsb` does?  Forwards is
 * right unless the destination starts inside the source's tail (src <
 * dst < src + len).  Two rules prove it, both from the pointers alone,
 * whatever the length:
 *  - one base, both offsets constant, the destination's <= the source's
 *    (memmove(p, p + k, n), k >= 0: shifting an array down);
 *  - two declared objects GCC's alias oracle says are distinct
 *    (compare_base_decls: it knows aliases and symbols that may share an
 *    address), whatever the offsets: an access through a pointer stays
 *    inside the object the pointer was made from, so they cannot overlap.
 * Anything else (pointers of unknown origin, a variable offset into one
 * object, a PHI) stays REPSTOS_OP_MOVE.  Returns the rule, or NULL.
 */
static const char *forward_safe(tree dst, tree src)
{
	struct pointer_parts d, s;

	decompose(dst, &d);
	decompose(src, &s);
	if (!d.base || !s.base)
		return NULL;
	if (operand_equal_p(d.base, s.base, 0)) {
		if (d.off_known && s.off_known && d.off <= s.off)
			return "destination at or before the source in one object";
		return NULL;
	}
	if (DECL_P(d.base) && DECL_P(s.base)
	    && compare_base_decls(d.base, s.base) == 0)
		return "distinct objects";
	return NULL;
}

/* A memset whose fill byte is known to be 0 is a zeroing site; a
 * memmove that may copy forwards is a MOVE_FWD site. */
static void settle_op(struct candidate *c)
{
	if (c->op == REPSTOS_OP_MEMSET && c->fill
	    && TREE_CODE(c->fill) == INTEGER_CST
	    && (TREE_INT_CST_LOW(c->fill) & 0xff) == 0)
		c->op = REPSTOS_OP_ZERO;
	if (c->op == REPSTOS_OP_MOVE) {
		c->fwd = forward_safe(c->dst, c->src);
		if (c->fwd)
			c->op = REPSTOS_OP_MOVE_FWD;
	}
}

static unsigned long long saturate(const wide_int &w)
{
	if (wi::gtu_p(w, REPSTOS_SIZE_SAT))
		return REPSTOS_SIZE_SAT;
	return w.to_uhwi();
}

/* What the compiler knows of the size: constant, a range, or nothing. */
static void settle_size(struct candidate *c)
{
	tree type = TREE_TYPE(c->len);
	wide_int lo, hi;

	c->kind = REPSTOS_SIZE_UNKNOWN;
	c->min = 0;
	c->max = REPSTOS_SIZE_SAT;
	if (TREE_CODE(c->len) == INTEGER_CST) {
		if (tree_int_cst_sgn(c->len) < 0 && !TYPE_UNSIGNED(type))
			return;
		c->kind = REPSTOS_SIZE_CONST;
		c->min = c->max = saturate(wi::to_wide(c->len));
		return;
	}
	if (TREE_CODE(c->len) != SSA_NAME
	    || !compat_range_of(c->len, c->call, &lo, &hi))
		return;
	if (!TYPE_UNSIGNED(type) && wi::neg_p(lo))
		return;		/* a negative int is a huge size_t */
	c->min = saturate(lo);
	c->max = saturate(hi);
	if (c->min == 0 && c->max == REPSTOS_SIZE_SAT)
		return;
	c->kind = c->min == c->max ? REPSTOS_SIZE_CONST : REPSTOS_SIZE_BOUNDED;
}

/* The smallest constant size worth a site here (see the top comment). */
static unsigned long long min_const_for(basic_block bb)
{
	if (opt.min_const != MIN_CONST_AUTO)
		return opt.min_const;
	if (!optimize)
		return 0;
	if (optimize_bb_for_size_p(bb))
		return MIN_CONST_NEVER;
	return MIN_CONST_MEASURED;
}

/* Sanitizers whose checks a site would lose; ASan's is re-emitted. */
static const char *sanitizer_conflict(const struct candidate *c)
{
	if (sanitize_flags_p(SANITIZE_THREAD))
		return repstos_op_is_copy(c->op) ?
			"-fsanitize=thread intercepts copies" :
			"-fsanitize=thread intercepts memset";
	if (sanitize_flags_p(SANITIZE_KERNEL_ADDRESS | SANITIZE_HWADDRESS
			     | SANITIZE_KERNEL_HWADDRESS))
		return "this address sanitizer is not supported";
	return NULL;
}

/* Leave c alone, for the reason fmt says. */
static void leave(struct candidate *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void leave(struct candidate *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why_not, sizeof(c->why_not), fmt, ap);
	va_end(ap);
}

/* Below min-const, a constant size is GCC's to expand inline. */
static bool below_min_const(struct candidate *c)
{
	unsigned long long floor;

	/* explicit_bzero and user helpers are calls whatever their size:
	 * GCC never expands them, so a site beats them at every size. */
	if (c->kind != REPSTOS_SIZE_CONST || !c->gcc_expands)
		return false;
	floor = min_const_for(gimple_bb(c->call));
	if (c->min >= floor)
		return false;
	if (floor == MIN_CONST_NEVER)
		leave(c, "constant size, optimised for size: GCC inlines it");
	else
		leave(c, "constant size below min-const=%llu: GCC inlines it",
		      floor);
	return true;
}

/* The symbol a call to fndecl goes to: its assembler name, without the
 * '*' that marks one the program spelled itself (an asm label). */
static const char *call_symbol(tree fndecl)
{
	const char *sym = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl));

	return *sym == '*' ? sym + 1 : sym;
}

/* A libc function the program sent elsewhere with an asm label
 * (`memset(...) __asm__("my_memset")`, as GCC's builtins/memops-asm
 * test does): GCC calls the named symbol, a site would call neither. */
static bool relabelled(struct candidate *c)
{
	const char *sym;

	if (!c->libc)
		return false;
	sym = call_symbol(gimple_call_fndecl(c->call));
	if (!strcmp(sym, c->libc))
		return false;
	leave(c, "an asm label sends it to %s", sym);
	return true;
}

/* A list of register names, as asm clobbers take them. */
struct reg_list {
	const char *const *regs;
	size_t n;
};

#define REG_LIST(a)	{ a, ARRAY_SIZE(a) }

/*
 * The registers a user-space site clobbers in this function, into
 * lists[], which has room for three; returns how many lists.  The
 * vector state (repstos_site.h): the whole vector file only where the
 * function may keep upper halves, xmm16-31 or mask registers, which GCC
 * refuses to hear of elsewhere.  Both TARGET_ tests follow the
 * function's own target attribute.
 */
static unsigned site_clobber_lists(const struct candidate *c,
				   struct reg_list *lists)
{
	static const struct reg_list set = REG_LIST(site_clobbers),
		copy = REG_LIST(copy_clobbers), avx = REG_LIST(avx_clobbers),
		avx512 = REG_LIST(avx512_clobbers);
	unsigned n = 0;

	lists[n++] = repstos_op_is_copy(c->op) ? copy : set;
	if (TARGET_AVX)
		lists[n++] = avx;
	if (TARGET_AVX512F)
		lists[n++] = avx512;
	return n;
}

/* Can the site have register name here?  GCC refuses to clobber one
 * the function's ISA lacks (xmm0 without SSE: -mgeneral-regs-only,
 * -mno-sse, target("no-sse")), cannot give a fixed one to an operand,
 * and a fixed one the routine clobbered would be destroyed behind the
 * back of whatever keeps it there (-ffixed-REG, a global register
 * variable).  If not, leave c alone and say why. */
static bool reg_unusable(struct candidate *c, const char *name)
{
	int regno = decode_reg_name(name);

	if (regno < 0)
		leave(c, "the site needs %s, unknown to GCC", name);
	else if (!TEST_HARD_REG_BIT(accessible_reg_set, regno))
		leave(c, "the site needs %s, which a function without SSE "
		      "lacks", name);
	else if (fixed_regs[regno])
		leave(c, "the site needs %s, fixed here (-ffixed-%s or a "
		      "global register variable)", name, name);
	else
		return false;
	return true;
}

/* Leave c alone where a register its site needs (an operand, or in
 * user space one it clobbers) is not the site's to use. */
static bool regs_unusable(struct candidate *c)
{
	static const char *const set_ops[] = { "rdi", "rcx", "rax" };
	static const char *const copy_ops[] = { "rdi", "rcx", "rsi" };
	struct reg_list lists[4] = {
		repstos_op_is_copy(c->op) ? (struct reg_list)REG_LIST(copy_ops)
					  : (struct reg_list)REG_LIST(set_ops)
	};
	unsigned n = 1;

	if (!kernel_mode)
		n += site_clobber_lists(c, lists + 1);
	for (unsigned i = 0; i < n; i++)
		for (size_t j = 0; j < lists[i].n; j++)
			if (reg_unusable(c, lists[i].regs[j]))
				return true;
	return false;
}

/* Decide whether c becomes a site; say why not in c->why_not. */
static void judge(struct candidate *c)
{
	tree lhs = gimple_call_lhs(c->call);
	const char *conflict = sanitizer_conflict(c);

	if (!conflict && kernel_mode)
		conflict = kernel_conflict(c->call, c->objsz);
	if (conflict)
		leave(c, "%s", conflict);
	else if (relabelled(c) || regs_unusable(c))
		return;
	else if (stmt_can_throw_internal(cfun, c->call))
		leave(c, "the call may throw");
	else if (lhs && !POINTER_TYPE_P(TREE_TYPE(lhs)))
		leave(c, "its non-pointer return value is used");
	else if (below_min_const(c))
		return;
	else if (c->kind != REPSTOS_SIZE_UNKNOWN && c->max > opt.max_size)
		leave(c, "size may reach %llu, above max-size=%llu", c->max,
		      opt.max_size);
}

/* ---- Use of the written bytes -------------------------------------- */

/* How far read_back looks: statements and blocks after the site. */
#define USE_STMTS	64
#define USE_BLOCKS	16

/* p with conversions and constant or variable offsets taken off, a few
 * steps back along its definitions: q for p_1 = q_2 + 8. */
static tree pointer_root(tree p)
{
	for (int i = 0; i < 8 && TREE_CODE(p) == SSA_NAME; i++) {
		gimple *d = SSA_NAME_DEF_STMT(p);
		enum tree_code code;

		if (!is_gimple_assign(d))
			break;
		code = gimple_assign_rhs_code(d);
		if (code != POINTER_PLUS_EXPR && code != SSA_NAME &&
		    code != ADDR_EXPR && !CONVERT_EXPR_CODE_P(code))
			break;
		p = gimple_assign_rhs1(d);
	}
	return p;
}

/* The object a pointer points into: the declaration of &decl (and
 * &decl + n), else the SSA name it is derived from; NULL_TREE when
 * neither. */
static tree pointed_object(tree p)
{
	tree base;

	p = pointer_root(p);
	if (TREE_CODE(p) == SSA_NAME)
		return p;
	if (TREE_CODE(p) != ADDR_EXPR)
		return NULL_TREE;
	base = get_base_address(TREE_OPERAND(p, 0));
	if (base && DECL_P(base))
		return base;
	if (base && TREE_CODE(base) == MEM_REF)
		return pointer_root(TREE_OPERAND(base, 0)) == p ? NULL_TREE :
			pointed_object(TREE_OPERAND(base, 0));
	return NULL_TREE;
}

/* The object a memory reference reads from, as pointed_object names. */
static tree read_object(tree ref)
{
	tree base = get_base_address(ref);

	if (!base)
		return NULL_TREE;
	if (DECL_P(base))
		return base;
	if (TREE_CODE(base) == MEM_REF || TREE_CODE(base) == TARGET_MEM_REF)
		return pointed_object(TREE_OPERAND(base, 0));
	return NULL_TREE;
}

/* Does stmt load some of what the site writes (object obj, region r)?
 * Only a load of the same object counts: the alias oracle alone would
 * take every load through an unknown pointer for one. */
static bool loads_written(gimple *stmt, tree obj, ao_ref *r)
{
	tree rhs;

	if (!gimple_assign_load_p(stmt))
		return false;
	rhs = gimple_assign_rhs1(stmt);
	return read_object(rhs) == obj && ref_maybe_used_by_stmt_p(stmt, r, false);
}

/* What stops the walk: the function calls out (a call, an asm) or
 * returns, after which the bytes' use is not the function's to see. */
static bool leaves(gimple *stmt)
{
	return is_gimple_call(stmt) || gimple_code(stmt) == GIMPLE_ASM ||
	       gimple_code(stmt) == GIMPLE_RETURN ||
	       gimple_code(stmt) == GIMPLE_RESX;
}

/*
 * Does the site's function load some of the bytes the site writes
 * after it, before calling out or returning (REPSTOS_USE_READ)?  The
 * blocks after the call, breadth first, a few dozen statements: what
 * follows a clear or a copy in the same function is close by.  Such a
 * load waits on the site's stores, and a masked or string store does
 * not forward to it: such sites want forms with plain stores.
 */
static bool read_back(const struct candidate *c)
{
	auto_vec<basic_block, USE_BLOCKS> work;
	auto_bitmap seen;
	gimple_stmt_iterator gsi = gsi_for_stmt(c->call);
	tree obj = pointed_object(c->dst);
	unsigned stmts = 0, blocks = 0;
	ao_ref r;

	if (!obj)
		return false;
	ao_ref_init_from_ptr_and_size(&r, c->dst,
				      c->kind == REPSTOS_SIZE_CONST ? c->len :
				      NULL_TREE);
	gsi_next(&gsi);
	for (;;) {
		for (; !gsi_end_p(gsi); gsi_next(&gsi)) {
			gimple *stmt = gsi_stmt(gsi);

			if (is_gimple_debug(stmt))
				continue;
			if (leaves(stmt) || ++stmts > USE_STMTS)
				return false;
			if (loads_written(stmt, obj, &r))
				return true;
		}
		if (blocks++ < USE_BLOCKS) {
			edge e;
			edge_iterator ei;

			FOR_EACH_EDGE(e, ei, gsi_bb(gsi)->succs)
				if (e->dest != EXIT_BLOCK_PTR_FOR_FN(cfun) &&
				    bitmap_set_bit(seen, e->dest->index))
					work.safe_push(e->dest);
		}
		if (work.is_empty())
			return false;
		gsi = gsi_start_bb(work[0]);
		work.ordered_remove(0);
	}
}

/* ---- Rewriting ------------------------------------------------------ */

/*
 * The link sites share (REPSTOS_ENTRY_IN), so that gas opens one table
 * section per text section, not one per site: a label in that section,
 * defined by the first site in it.  Sites are emitted linked to one per
 * function (LINK_FN and the function's number), correct wherever the
 * function's blocks are in one section; link_sections, just before
 * final, renames each to its text section's (LINK and a number), which
 * also parts the cold blocks from the hot.
 */
#define LINK_FN		".Lrepstos_link_f"
#define LINK		".Lrepstos_link"
#define LINK_DEF	".ifndef %s%d; %s%d:; .endif; "

/* The entry's kind byte: the size kind and what is known of the use. */
static int kind_byte(const struct candidate *c)
{
	return (int)c->kind | (c->read_back ? REPSTOS_USE_READ : 0);
}

/* The asm text of one site: the contract's REPSTOS_SITE_IN (or
 * REPSTOS_COPY_SITE_IN) after its link's definition, its fields as
 * printf conversions (and %= spelled %%=). */
static char *site_asm(const struct candidate *c)
{
	int f = cfun->funcdef_no;

	if (repstos_op_is_copy(c->op))
		return xasprintf(LINK_DEF REPSTOS_STR(REPSTOS_COPY_SITE_IN(
					.Lrepstos_site%%=, %s%d,
					%d, %d, %llu, %llu)),
				 LINK_FN, f, LINK_FN, f, LINK_FN, f,
				 (int)c->op, kind_byte(c), c->min, c->max);
	return xasprintf(LINK_DEF REPSTOS_STR(REPSTOS_SITE_IN(
				.Lrepstos_site%%=, %s%d,
				%d, %d, %llu, %llu)),
			 LINK_FN, f, LINK_FN, f, LINK_FN, f,
			 (int)c->op, kind_byte(c), c->min, c->max);
}

static tree asm_operand(const char *constraint, tree value)
{
	tree str = build_string(strlen(constraint) + 1, constraint);

	return build_tree_list(build_tree_list(NULL_TREE, str), value);
}

static tree asm_clobber(const char *reg)
{
	return build_tree_list(NULL_TREE, build_string(strlen(reg) + 1, reg));
}

/* Clobbers from a list; repeats (xmm0..7 of a copy site in AVX code)
 * are harmless to GCC. */
static void push_clobbers(vec<tree, va_gc> **clob, const char *const *regs,
			  size_t n)
{
	for (size_t i = 0; i < n; i++)
		vec_safe_push(*clob, asm_clobber(regs[i]));
}

/* The fill byte zero-extended to 64 bits, as the site wants it in rax
 * (a 32-bit operand would leave the upper half undefined). */
static tree fill_value(gimple_seq *seq, location_t loc, tree fill)
{
	if (!fill)
		return build_zero_cst(long_unsigned_type_node);
	if (TREE_CODE(fill) == INTEGER_CST)
		return build_int_cst(long_unsigned_type_node,
				     TREE_INT_CST_LOW(fill) & 0xff);
	fill = gimple_convert(seq, loc, unsigned_char_type_node, fill);
	return gimple_convert(seq, loc, long_unsigned_type_node, fill);
}

/*
 * Build the site asm for c: rdi = dst, rcx = len and rax = fill for a
 * set site; rdi = dst, rsi = src, rcx = len for a copy site.  *end is
 * the rdi output, dst + len when the site is done.
 *
 * The "memory" clobber is what orders the site against other memory
 * accesses, for the source's reads as for the destination's writes: GCC
 * takes such an asm as reading and writing all memory, so no store to
 * the source is sunk below it or deleted as dead, and no load of the
 * destination is hoisted above it (the asm is also volatile, which RTL
 * dead store elimination treats as a read of everything).
 */
static gasm *build_site(const struct candidate *c, tree len, tree fill,
			tree *end)
{
	vec<tree, va_gc> *in = NULL, *out = NULL, *clob = NULL;
	bool copy = repstos_op_is_copy(c->op);
	tree d = make_ssa_name(ptr_type_node);
	tree n = make_ssa_name(size_type_node);
	tree a = make_ssa_name(copy ? ptr_type_node : long_unsigned_type_node);
	char *text = site_asm(c);
	struct reg_list lists[3];
	unsigned nlists;
	gasm *as;

	vec_safe_push(out, asm_operand("=D", d));
	vec_safe_push(out, asm_operand("=c", n));
	vec_safe_push(out, asm_operand(copy ? "=S" : "=a", a));
	vec_safe_push(in, asm_operand("0", c->dst));
	vec_safe_push(in, asm_operand("1", len));
	vec_safe_push(in, asm_operand("2", copy ? c->src : fill));
	vec_safe_push(clob, asm_clobber("memory"));
	vec_safe_push(clob, asm_clobber("cc"));
	nlists = site_clobber_lists(c, lists);
	for (unsigned i = 0; i < nlists; i++)
		push_clobbers(&clob, lists[i].regs, lists[i].n);
	as = gimple_build_asm_vec(text, in, out, clob, NULL);
	free(text);
	gimple_asm_set_volatile(as, true);
	SSA_NAME_DEF_STMT(d) = as;
	SSA_NAME_DEF_STMT(n) = as;
	SSA_NAME_DEF_STMT(a) = as;
	*end = d;
	return as;
}

/* An external function the unit may not declare itself. */
static tree extern_fn(tree *slot, const char *name, tree ret, tree arg1,
		      tree arg2, tree arg3, bool noreturn)
{
	if (!*slot) {
		tree type = build_function_type_list(ret, arg1, arg2, arg3,
						     NULL_TREE);
		tree decl = build_fn_decl(name, type);

		TREE_THIS_VOLATILE(decl) = noreturn;
		TREE_NOTHROW(decl) = 1;
		*slot = decl;
	}
	return *slot;
}

/*
 * Insert `if (lhs CODE rhs) guarded;` before stmt, the call in a cold
 * block of its own that rejoins stmt's block unless the call never
 * returns.  Virtual operands are renamed by the pass's TODO.
 */
static void guard_call(gimple *stmt, tree lhs, enum tree_code code,
		       tree rhs, gcall *guarded)
{
	profile_probability cold = profile_probability::very_unlikely();
	gimple_stmt_iterator gsi = gsi_for_stmt(stmt);
	basic_block bb = gimple_bb(stmt), then_bb;
	gcond *cond;
	edge e;

	cond = gimple_build_cond(code, lhs, rhs, NULL_TREE, NULL_TREE);
	gimple_set_location(cond, gimple_location(stmt));
	gsi_insert_before(&gsi, cond, GSI_SAME_STMT);

	e = split_block(bb, cond);
	e->flags = (e->flags & ~EDGE_FALLTHRU) | EDGE_FALSE_VALUE;
	e->probability = cold.invert();

	then_bb = create_empty_bb(bb);
	then_bb->count = bb->count.apply_probability(cold);
	make_edge(bb, then_bb, EDGE_TRUE_VALUE)->probability = cold;
	if (!(gimple_call_flags(guarded) & ECF_NORETURN))
		make_single_succ_edge(then_bb, e->dest, EDGE_FALLTHRU);
	if (current_loops)
		add_bb_to_loop(then_bb, bb->loop_father);

	gimple_set_location(guarded, gimple_location(stmt));
	gsi = gsi_start_bb(then_bb);
	gsi_insert_after(&gsi, guarded, GSI_NEW_STMT);
}

/*
 * FORTIFY: `if (len > objsz) __chk_fail ();` before the site, so an
 * overflow still ends in glibc's "buffer overflow detected".  Returns
 * false when no check is needed.
 */
static bool emit_fortify_check(struct candidate *c, tree len)
{
	tree objsz = c->objsz, fn;

	if (!objsz || integer_all_onesp(objsz))
		return false;
	if (TREE_CODE(objsz) == INTEGER_CST && c->kind != REPSTOS_SIZE_UNKNOWN
	    && c->max <= TREE_INT_CST_LOW(objsz)
	    && c->max != REPSTOS_SIZE_SAT)
		return false;	/* proven in bounds */

	fn = extern_fn(&chk_fail_fndecl, "__chk_fail", void_type_node,
		       NULL_TREE, NULL_TREE, NULL_TREE, true);
	guard_call(c->call, len, GT_EXPR, fold_convert(size_type_node, objsz),
		   gimple_build_call(fn, 0));
	return true;
}

/*
 * ASan checks memset and the copies in its libc interceptors, which a
 * site bypasses.  Check as the interceptor does: find the first poisoned
 * byte of [ptr, ptr + len) and report an access of the whole length
 * there, so the report names the right kind (heap-buffer-overflow, ...);
 * __asan_storeN would report the start.  A copy checks its read range
 * (the source) and then its write range, as ASan's memcpy does.
 */
static bool emit_asan_check(struct candidate *c, tree ptr, tree len,
			    bool write)
{
	bool recover = flag_sanitize_recover & SANITIZE_ADDRESS;
	enum built_in_function report;
	gimple_stmt_iterator gsi = gsi_for_stmt(c->call);
	tree fn, bad;
	gcall *probe;

	if (!sanitize_flags_p(SANITIZE_ADDRESS))
		return false;
	if (write)
		report = recover ? BUILT_IN_ASAN_REPORT_STORE_N_NOABORT :
				   BUILT_IN_ASAN_REPORT_STORE_N;
	else
		report = recover ? BUILT_IN_ASAN_REPORT_LOAD_N_NOABORT :
				   BUILT_IN_ASAN_REPORT_LOAD_N;
	initialize_sanitizer_builtins();

	fn = extern_fn(&poisoned_fndecl, "__asan_region_is_poisoned",
		       ptr_type_node, ptr_type_node, size_type_node, NULL_TREE,
		       false);
	bad = make_ssa_name(ptr_type_node);
	probe = gimple_build_call(fn, 2, ptr, len);
	gimple_call_set_lhs(probe, bad);
	gimple_set_location(probe, gimple_location(c->call));
	gsi_insert_before(&gsi, probe, GSI_SAME_STMT);

	fn = builtin_decl_implicit(report);
	guard_call(c->call, bad, NE_EXPR, null_pointer_node,
		   gimple_build_call(fn, 2, bad, len));
	return true;
}

/*
 * ASan's memcpy (and so GCC 12's memcpy interceptor) reports ranges that
 * overlap, memcpy-param-overlap, before it checks either range; a site
 * bypasses it.  Where dst != src and [dst, dst + len) meets [src, src +
 * len), call __asan_memcpy itself, which reports.  For mempcpy too,
 * whose overlap is as undefined (GCC 12's libasan does not intercept
 * it: the plain build calls libc's unchecked).  Under
 * -fsanitize-recover=address __asan_memcpy then copies and returns, and
 * the site copies again: an overlapping copy's result is undefined
 * either way.  User copy-fn helpers are not checked: no interceptor
 * sees them either.
 */
static bool emit_asan_overlap_check(struct candidate *c, tree len)
{
	location_t loc = gimple_location(c->call);
	gimple_stmt_iterator gsi = gsi_for_stmt(c->call);
	gimple_seq seq = NULL;
	tree d, s, up, down, meet, overlap, fn;

	if (!sanitize_flags_p(SANITIZE_ADDRESS) || c->op != REPSTOS_OP_COPY
	    || !c->libc)
		return false;
	/* unsigned dst - src < len: dst is inside the source; src - dst
	 * < len: src is inside the destination */
	d = gimple_convert(&seq, loc, size_type_node, c->dst);
	s = gimple_convert(&seq, loc, size_type_node, c->src);
	up = gimple_build(&seq, loc, MINUS_EXPR, size_type_node, d, s);
	down = gimple_build(&seq, loc, MINUS_EXPR, size_type_node, s, d);
	meet = gimple_build(&seq, loc, BIT_IOR_EXPR, boolean_type_node,
			    gimple_build(&seq, loc, LT_EXPR, boolean_type_node,
					 up, len),
			    gimple_build(&seq, loc, LT_EXPR, boolean_type_node,
					 down, len));
	overlap = gimple_build(&seq, loc, BIT_AND_EXPR, boolean_type_node,
			       meet, gimple_build(&seq, loc, NE_EXPR,
						  boolean_type_node, d, s));
	gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);

	fn = extern_fn(&asan_memcpy_fndecl, "__asan_memcpy", ptr_type_node,
		       ptr_type_node, const_ptr_type_node, size_type_node,
		       false);
	guard_call(c->call, overlap, NE_EXPR, boolean_false_node,
		   gimple_build_call(fn, 3, c->dst, c->src, len));
	return true;
}

/* Replace c->call by a site.  Returns true if new calls were added (their
 * virtual operands then need renaming). */
static bool rewrite(struct candidate *c)
{
	gcall *call = c->call;
	location_t loc = gimple_location(call);
	tree lhs = gimple_call_lhs(call);
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	gimple_seq seq = NULL;
	bool new_calls = false;
	tree len, fill, end;
	gasm *site;

	len = gimple_convert(&seq, loc, size_type_node, c->len);
	fill = fill_value(&seq, loc, c->fill);
	if (seq)
		gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);

	new_calls |= emit_fortify_check(c, len);
	new_calls |= emit_asan_overlap_check(c, len);
	if (c->src)
		new_calls |= emit_asan_check(c, c->src, len, false);
	new_calls |= emit_asan_check(c, c->dst, len, true);

	site = kernel_mode ? kernel_build_site(c->op, c->kind, c->min, c->max,
					       c->dst, c->src, len, fill, &end)
			   : build_site(c, len, fill, &end);
	gimple_set_location(site, loc);
	gimple_set_block(site, gimple_block(call));
	gimple_move_vops(site, call);
	gsi = gsi_for_stmt(call);
	gsi_replace(&gsi, site, true);
	if (lhs) {
		/* memset, memcpy and memmove return their destination,
		 * mempcpy the end: rdi after the site */
		gassign *ret = gimple_build_assign(lhs,
					fold_convert(TREE_TYPE(lhs),
						     c->returns_end ? end : c->dst));

		gimple_set_location(ret, loc);
		gsi_insert_after(&gsi, ret, GSI_NEW_STMT);
	}
	return new_calls;
}

/* ---- Remarks -------------------------------------------------------- */

static void describe_size(const struct candidate *c, char *buf, size_t len)
{
	switch (c->kind) {
	case REPSTOS_SIZE_CONST:
		snprintf(buf, len, "size %llu", c->min);
		break;
	case REPSTOS_SIZE_BOUNDED:
		if (c->min && c->max >= REPSTOS_SIZE_SAT)
			snprintf(buf, len, "size unknown, at least %llu",
				 c->min);
		else if (c->min)
			snprintf(buf, len, "size unknown, %llu to %llu",
				 c->min, c->max);
		else
			snprintf(buf, len, "size unknown, at most %llu",
				 c->max);
		break;
	default:
		snprintf(buf, len, "size unknown");
		break;
	}
}

static void remark(const struct candidate *c)
{
	char size[96];

	if (!opt.verbose)
		return;
	describe_size(c, size, sizeof(size));
	if (*c->why_not)
		inform(gimple_location(c->call),
		       "repstos: %s left alone (%s; %s)", c->what, size,
		       c->why_not);
	else if (c->fwd)
		inform(gimple_location(c->call), "repstos: %s rewritten (%s; "
		       "copies forwards: %s%s)", c->what, size, c->fwd,
		       c->read_back ? "; read back" : "");
	else
		inform(gimple_location(c->call), "repstos: %s rewritten (%s%s)",
		       c->what, size, c->read_back ? "; read back" : "");
}

/* ---- The pass ------------------------------------------------------- */

static bool target_ok(void)
{
	static bool warned;

	if (TARGET_64BIT && TARGET_LP64)
		return true;
	if (!warned)
		warning(0, "repstos: the target is not x86-64 LP64 "
			"(%<-m32%> or %<-mx32%>): no sites are made");
	warned = true;
	return false;
}

/* Collect every candidate first: range queries must see the CFG as the
 * optimisers left it, before the FORTIFY checks split blocks. */
static void collect(vec<candidate> *found)
{
	basic_block bb;

	FOR_EACH_BB_FN(bb, cfun) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi); gsi_next(&gsi)) {
			gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
			struct candidate c;

			if (!call || !classify(call, &c))
				continue;
			found->safe_push(c);
		}
	}
}

static unsigned int repstos_execute(void)
{
	auto_vec<candidate> found;
	bool ranger = false, new_calls = false, sites = false;
	unsigned i;
	candidate *c;

	collect(&found);
	if (found.is_empty())
		return 0;

	if (optimize) {
		calculate_dominance_info(CDI_DOMINATORS);
		enable_ranger(cfun);
		ranger = true;
	}
	FOR_EACH_VEC_ELT(found, i, c) {
		settle_op(c);
		settle_size(c);
		judge(c);
		c->read_back = !*c->why_not && read_back(c);
		remark(c);
	}
	if (ranger)
		disable_ranger(cfun);

	FOR_EACH_VEC_ELT(found, i, c) {
		if (*c->why_not) {
			n_left++;
			continue;
		}
		new_calls |= rewrite(c);
		sites = true;
		n_sites++;
	}
	if (!sites)
		return 0;

	/* A target attribute node streamed in by LTO from a unit compiled
	 * without the plugin may still allow the red zone. */
	target_flags |= MASK_NO_RED_ZONE;

	free_dominance_info(CDI_DOMINATORS);
	cgraph_edge::rebuild_edges();
	if (!new_calls)
		return 0;
	mark_virtual_operands_for_renaming(cfun);
	return TODO_update_ssa_only_virtuals | TODO_cleanup_cfg;
}

static const pass_data repstos_pass_data = {
	GIMPLE_PASS,			/* type */
	"repstos",			/* name */
	OPTGROUP_NONE,			/* optinfo_flags */
	TV_NONE,			/* tv_id */
	PROP_ssa | PROP_cfg,		/* properties_required */
	0,				/* properties_provided */
	0,				/* properties_destroyed */
	0,				/* todo_flags_start */
	0,				/* todo_flags_finish */
};

class repstos_pass : public gimple_opt_pass {
public:
	repstos_pass(gcc::context *ctx)
		: gimple_opt_pass(repstos_pass_data, ctx) {}
	bool gate(function *) final override { return target_ok(); }
	unsigned int execute(function *) final override
	{
		return repstos_execute();
	}
};

/* ---- Links, at the end ---------------------------------------------- */

/* Each text section that has sites, numbered in the order first met. */
static hash_map<nofree_ptr_hash<section>, unsigned> *link_numbers;

static unsigned link_number(section *sec)
{
	bool existed;
	unsigned *n;

	if (!link_numbers)
		link_numbers = new hash_map<nofree_ptr_hash<section>, unsigned>;
	n = &link_numbers->get_or_insert(sec, &existed);
	if (!existed)
		*n = link_numbers->elements() - 1;
	return *n;
}

/* The site's template with its function's link renamed to number n, or
 * NULL when it is not a site's. */
static const char *linked_template(const char *t, unsigned n)
{
	size_t fn = strlen(LINK_FN);
	char *out = XNEWVEC(char, strlen(t) + 3 * 16 + 1), *o = out;
	const char *p = t, *q, *ret;

	if (!strstr(t, LINK_FN))
		return NULL;
	while ((q = strstr(p, LINK_FN))) {
		memcpy(o, p, q - p);
		o += q - p;
		o += sprintf(o, "%s%u", LINK, n);
		for (p = q + fn; ISDIGIT(*p); p++)
			;
	}
	strcpy(o, p);
	ret = ggc_strdup(out);
	XDELETEVEC(out);
	return ret;
}

/* Every ASM_OPERANDS of the insn carries the template; final reads the
 * first, but they are kept alike. */
static void set_template(rtx body, const char *t)
{
	if (GET_CODE(body) == PARALLEL) {
		for (int i = 0; i < XVECLEN(body, 0); i++)
			set_template(XVECEXP(body, 0, i), t);
	} else if (GET_CODE(body) == SET &&
		   GET_CODE(SET_SRC(body)) == ASM_OPERANDS) {
		ASM_OPERANDS_TEMPLATE(SET_SRC(body)) = t;
	} else if (GET_CODE(body) == ASM_OPERANDS) {
		ASM_OPERANDS_TEMPLATE(body) = t;
	}
}

/*
 * The section final will put the function's code in, before and after
 * its switch of text section (NOTE_INSN_SWITCH_TEXT_SECTIONS): asked of
 * current_function_section as final's assemble_start_function sets it
 * up, from the partition of the first block.
 */
static section *text_section_of(bool cold)
{
	bool saved = in_cold_section_p;
	section *sec;

	in_cold_section_p = cold;
	sec = current_function_section();
	in_cold_section_p = saved;
	return sec;
}

static bool first_block_cold(void)
{
	return crtl->has_bb_partition &&
	       BB_PARTITION(ENTRY_BLOCK_PTR_FOR_FN(cfun)->next_bb) ==
			BB_COLD_PARTITION;
}

static unsigned int link_sections(void)
{
	bool cold = first_block_cold();

	for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
		rtx asmop;
		const char *t;

		if (NOTE_P(insn) &&
		    NOTE_KIND(insn) == NOTE_INSN_SWITCH_TEXT_SECTIONS)
			cold = !cold;
		if (!NONJUMP_INSN_P(insn))
			continue;
		asmop = extract_asm_operands(PATTERN(insn));
		if (!asmop || !strstr(ASM_OPERANDS_TEMPLATE(asmop), LINK_FN))
			continue;
		t = linked_template(ASM_OPERANDS_TEMPLATE(asmop),
				    link_number(text_section_of(cold)));
		set_template(PATTERN(insn), t);
	}
	return 0;
}

static const pass_data link_pass_data = {
	RTL_PASS,			/* type */
	"repstos_link",			/* name */
	OPTGROUP_NONE,			/* optinfo_flags */
	TV_NONE,			/* tv_id */
	0,				/* properties_required */
	0,				/* properties_provided */
	0,				/* properties_destroyed */
	0,				/* todo_flags_start */
	0,				/* todo_flags_finish */
};

class link_pass : public rtl_opt_pass {
public:
	link_pass(gcc::context *ctx) : rtl_opt_pass(link_pass_data, ctx) {}
	bool gate(function *) final override { return target_ok(); }
	unsigned int execute(function *) final override
	{
		return link_sections();
	}
};

static void repstos_finish_unit(void *gcc_data, void *user_data)
{
	if (opt.verbose)
		inform(UNKNOWN_LOCATION, "repstos: %s: %u site%s, %u call%s "
		       "left alone", main_input_filename ?
		       main_input_filename : "<unit>", n_sites,
		       n_sites == 1 ? "" : "s", n_left, n_left == 1 ? "" : "s");
}

/* Put pass next to the first instance of the pass named ref (GCC
 * registers it there and then). */
static void add_pass(const char *plugin, opt_pass *pass, const char *ref,
		     enum pass_positioning_ops pos)
{
	struct register_pass_info where = { pass, ref, 1, pos };

	register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, NULL, &where);
}

PLUGIN_EXPORT int plugin_init(struct plugin_name_args *info,
		struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("repstos: plugin %qs was built for GCC %s, this is "
		      "GCC %s: rebuild it", info->full_name,
		      gcc_version.basever, version->basever);
		return 1;
	}
	if (!parse_args(info))
		return 1;

	/* Before option override: every function and target attribute
	 * of the unit inherits it (see the top comment).  The kernel has
	 * no red zone, and its vDSO must stay as built. */
	if (kernel_mode)
		kernel_register(info->base_name);
	else
		target_flags |= MASK_NO_RED_ZONE;

	register_callback(info->base_name, PLUGIN_INFO, NULL,
			  &repstos_plugin_info);
	add_pass(info->base_name, new repstos_pass(g), "optimized",
		 PASS_POS_INSERT_AFTER);
	add_pass(info->base_name, new link_pass(g), "final",
		 PASS_POS_INSERT_BEFORE);
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)repstos_ggc_roots);
	register_callback(info->base_name, PLUGIN_FINISH_UNIT,
			  repstos_finish_unit, NULL);
	return 0;
}
