// SPDX-License-Identifier: MIT
/*
 * classify.c - which calls the pass takes for candidates, what it knows
 * of each (op, size), whether each becomes a site, and the verbose note
 * that says so.  The calls that survived optimisation it finds:
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
 * and the aggregate copies and clears GCC would expand into memcpy or
 * memset calls (classify_aggregate, split_result_copy).
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
 */
#include "plugin.h"

/* What min_const_for() gives where no constant size is worth a site. */
#define MIN_CONST_NEVER	(~0ULL)

/* What libc calls from 8193 bytes on with generic tuning (see above). */
#define MIN_CONST_MEASURED	8193ULL

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
static bool classify_call(gcall *call, struct candidate *c)
{
	tree fndecl = gimple_call_fndecl(call);
	const char *name = NULL;
	const struct shape *sh;

	if (!fndecl || gimple_call_internal_p(call))
		return false;	/* through a pointer: nothing to know */
	if (DECL_NAME(fndecl))
		name = IDENTIFIER_POINTER(DECL_NAME(fndecl));
	for (sh = shapes; sh < shapes + ARRAY_SIZE(shapes); sh++) {
		if (!matches(call, name, sh))
			continue;
		c->fndecl = fndecl;
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

/* ---- Aggregate copies and clears ------------------------------------ */

/*
 * GIMPLE copies a struct or array whole (`*a = *b`, `s = t`, a memcpy
 * gimple folding made one, `return *p` into the caller's slot) and
 * clears one with an empty constructor (`x = (struct big){0}`, the
 * zeroing half of `struct big x = { .a = 1 }`).  No call exists until
 * RTL expansion: emit_block_move and clear_storage move by pieces, else
 * through the target's cpymem or setmem pattern, and where that declines
 * (or the size is not constant) call memcpy or memset.  x86-64's pattern
 * declines a constant size exactly where it declines a memcpy or memset
 * builtin's (one function, emit_block_move_hints, decides for both),
 * except that the builtins are never expanded at -O0 and aggregates
 * are: GCC 12 with generic tuning calls from 8193 bytes at -O0 as at
 * -O1, -O2, -O3 and -Og, and never at -Os.  So an aggregate is a
 * candidate exactly where an explicit call of its size would be one
 * above min-const, and at -O0 from the same floor as at -O1.
 *
 * Left to GCC, not candidates: register-type values, a string
 * initialiser (copied and its tail cleared in two steps), a source of
 * another size, and any access outside the generic address space
 * (`__seg_gs`: GCC never calls for those, and a site's rdi and rsi are
 * flat).  Candidates that judge() leaves alone: volatile accesses (a
 * routine may store a byte twice) and, as for calls, code that may
 * throw.  A by-value argument's copy into the outgoing argument area is
 * made inside the RTL call sequence, where no GIMPLE statement is: it
 * stays GCC's memcpy call.
 */

/* A reference to memory whose address a site may take. */
static bool addressable_ref(tree ref)
{
	tree base;

	if (!(DECL_P(ref) || handled_component_p(ref) ||
	      TREE_CODE(ref) == MEM_REF || TREE_CODE(ref) == TARGET_MEM_REF))
		return false;
	if (TREE_CODE(ref) == VIEW_CONVERT_EXPR ||
	    contains_bitfld_component_ref_p(ref) ||
	    reverse_storage_order_for_component_p(ref))
		return false;
	if (!ADDR_SPACE_GENERIC_P(TYPE_ADDR_SPACE(TREE_TYPE(ref))))
		return false;
	base = get_base_address(ref);
	if (!base || (VAR_P(base) && DECL_HARD_REGISTER(base)))
		return false;
	if (TREE_CODE(base) == MEM_REF || TREE_CODE(base) == TARGET_MEM_REF)
		return ADDR_SPACE_GENERIC_P(TYPE_ADDR_SPACE(
			TREE_TYPE(TREE_TYPE(TREE_OPERAND(base, 0)))));
	return DECL_P(base);
}

static unsigned long long min_const_for(const struct candidate *c);

/* Fill c from an aggregate copy or clear GCC would expand into a call of
 * memcpy or memset, or return false. */
static bool classify_aggregate(gassign *as, struct candidate *c)
{
	tree lhs = gimple_assign_lhs(as), rhs = gimple_assign_rhs1(as);
	tree size = TYPE_SIZE_UNIT(TREE_TYPE(lhs));
	bool clear;

	if (!gimple_assign_single_p(as) || gimple_clobber_p(as) ||
	    is_gimple_reg_type(TREE_TYPE(lhs)) || !addressable_ref(lhs))
		return false;
	if (!size || TREE_CODE(size) != INTEGER_CST || !tree_fits_uhwi_p(size))
		return false;
	clear = TREE_CODE(rhs) == CONSTRUCTOR && CONSTRUCTOR_NELTS(rhs) == 0;
	if (!clear && (!opt.copy || !addressable_ref(rhs) ||
		       !TYPE_SIZE_UNIT(TREE_TYPE(rhs)) ||
		       !tree_int_cst_equal(size, TYPE_SIZE_UNIT(TREE_TYPE(rhs)))))
		return false;
	c->fndecl = builtin_decl_implicit(clear ? BUILT_IN_MEMSET :
						  BUILT_IN_MEMCPY);
	if (!c->fndecl)
		return false;
	c->aggregate = true;
	c->kind = REPSTOS_SIZE_CONST;
	c->min = c->max = tree_to_uhwi(size);
	if (c->min == 0 || c->min < min_const_for(c))
		return false;	/* moved or stored inline by GCC */
	c->gcc_expands = true;
	c->what = clear ? "aggregate clear" : "aggregate copy";
	c->libc = clear ? "memset" : "memcpy";
	c->dst = build_fold_addr_expr(lhs);
	c->src = clear ? NULL_TREE : build_fold_addr_expr(rhs);
	c->len = size_int(c->min);
	c->op = clear ? REPSTOS_OP_ZERO : REPSTOS_OP_COPY;
	return true;
}

/*
 * A struct returned in memory whose call is not given its destination
 * as the return slot (`g = f ()`, g a global f may read, and every such
 * call at -O0) is returned into a temporary that expand_call then
 * copies with emit_block_move: a memcpy call where the size reaches
 * GCC's limit.  Split it as GCC would, `tmp = f () [return slot]; g =
 * tmp;`, the temporary's storage ended after the copy, so that the copy
 * is an aggregate copy the pass sees.  Returns true if it did (the
 * copy has no virtual operands yet: the pass renames them).
 */
bool split_result_copy(gimple *stmt)
{
	gcall *call = dyn_cast<gcall *>(stmt);
	struct candidate probe;
	gimple_stmt_iterator gsi;
	tree lhs, size, fntype, tmp;

	if (!call || !opt.copy || gimple_call_internal_p(call) ||
	    gimple_call_return_slot_opt_p(call) ||
	    !(lhs = gimple_call_lhs(call)) ||
	    is_gimple_reg_type(TREE_TYPE(lhs)) || !addressable_ref(lhs) ||
	    TREE_THIS_VOLATILE(lhs) || gimple_has_volatile_ops(call))
		return false;
	fntype = gimple_call_fntype(call);
	size = TYPE_SIZE_UNIT(TREE_TYPE(lhs));
	if (!fntype || !aggregate_value_p(TREE_TYPE(lhs), fntype) || !size ||
	    TREE_CODE(size) != INTEGER_CST || !tree_fits_uhwi_p(size))
		return false;
	/* a copy after a tail call would never run */
	if ((gimple_call_flags(call) & (ECF_NORETURN | ECF_RETURNS_TWICE)) ||
	    gimple_call_tail_p(call) || gimple_call_must_tail_p(call) ||
	    stmt_can_throw_internal(cfun, call) || stmt_ends_bb_p(call))
		return false;
	memset(&probe, 0, sizeof(probe));
	probe.stmt = call;
	probe.aggregate = true;
	if (tree_to_uhwi(size) == 0 ||
	    tree_to_uhwi(size) < min_const_for(&probe))
		return false;

	tmp = create_tmp_var(TREE_TYPE(lhs), "repstos_ret");
	gimple_call_set_lhs(call, tmp);
	gimple_call_set_return_slot_opt(call, true);
	gsi = gsi_for_stmt(call);
	gassign *copy = gimple_build_assign(lhs, tmp);
	gimple_set_location(copy, gimple_location(call));
	gsi_insert_after(&gsi, copy, GSI_NEW_STMT);
	gsi_insert_after(&gsi, gimple_build_assign(tmp,
			 build_clobber(TREE_TYPE(tmp))), GSI_SAME_STMT);
	return true;
}

/* Fill c from stmt, or return false if it is not one of ours. */
bool classify(gimple *stmt, struct candidate *c)
{
	memset(c, 0, sizeof(*c));
	c->stmt = stmt;
	if (gcall *call = dyn_cast<gcall *>(stmt))
		return classify_call(call, c);
	if (gassign *as = dyn_cast<gassign *>(stmt))
		return classify_aggregate(as, c);
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
void settle_op(struct candidate *c)
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
void settle_size(struct candidate *c)
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
	    || !compat_range_of(c->len, c->stmt, &lo, &hi))
		return;
	if (!TYPE_UNSIGNED(type) && wi::neg_p(lo))
		return;		/* a negative int is a huge size_t */
	c->min = saturate(lo);
	c->max = saturate(hi);
	if (c->min == 0 && c->max == REPSTOS_SIZE_SAT)
		return;
	c->kind = c->min == c->max ? REPSTOS_SIZE_CONST : REPSTOS_SIZE_BOUNDED;
}

/* The smallest constant size worth a site for c (see the top comment;
 * an aggregate is expanded at -O0 too: see classify_aggregate). */
static unsigned long long min_const_for(const struct candidate *c)
{
	if (opt.min_const != MIN_CONST_AUTO)
		return opt.min_const;
	if (!optimize && !c->aggregate)
		return 0;
	if (optimize_bb_for_size_p(gimple_bb(c->stmt)))
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
	floor = min_const_for(c);
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
	sym = call_symbol(c->fndecl);
	if (!strcmp(sym, c->libc))
		return false;
	leave(c, "an asm label sends it to %s", sym);
	return true;
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
void judge(struct candidate *c)
{
	tree lhs = is_gimple_call(c->stmt) ? gimple_call_lhs(c->stmt) :
					     NULL_TREE;
	const char *conflict = sanitizer_conflict(c);

	if (!conflict && kernel_mode)
		conflict = kernel_conflict(c);
	if (conflict)
		leave(c, "%s", conflict);
	else if (relabelled(c) || regs_unusable(c))
		return;
	else if (c->aggregate && gimple_has_volatile_ops(c->stmt))
		leave(c, "a volatile access: a routine may store a byte "
		      "twice, or load it twice");
	else if (stmt_can_throw_internal(cfun, c->stmt))
		leave(c, "the call may throw");
	else if (lhs && !POINTER_TYPE_P(TREE_TYPE(lhs)))
		leave(c, "its non-pointer return value is used");
	else if (below_min_const(c))
		return;
	else if (c->kind != REPSTOS_SIZE_UNKNOWN && c->max > opt.max_size)
		leave(c, "size may reach %llu, above max-size=%llu", c->max,
		      opt.max_size);
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

void remark(const struct candidate *c)
{
	char size[96];

	if (!opt.verbose)
		return;
	describe_size(c, size, sizeof(size));
	if (*c->why_not)
		inform(gimple_location(c->stmt),
		       "repstos: %s left alone (%s; %s)", c->what, size,
		       c->why_not);
	else if (c->fwd)
		inform(gimple_location(c->stmt), "repstos: %s rewritten (%s; "
		       "copies forwards: %s%s)", c->what, size, c->fwd,
		       c->read_back ? "; read back" : "");
	else
		inform(gimple_location(c->stmt), "repstos: %s rewritten (%s%s)",
		       c->what, size, c->read_back ? "; read back" : "");
}

