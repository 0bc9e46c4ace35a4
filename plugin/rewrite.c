// SPDX-License-Identifier: MIT
/*
 * rewrite.c - a candidate made a site.  rewrite() replaces the call (or
 * the aggregate copy or clear, its addresses taken first) by a volatile
 * asm that makes the site REPSTOS_SITE_ASM in
 * include/repstos.h makes: `call __repstos_stub` plus a SHF_LINK_ORDER
 * entry in the site table (linked, with every site of its text section,
 * to one label there: see LINK_FN).  rdi, rcx and rax are tied in/out
 * operands, the asm clobbers memory, the flags and
 * REPSTOS_SITE_CLOBBERS (in AVX code the vector file as well: the
 * vector-state rule of repstos_site.h), and inherits the call's virtual
 * operands.  A copy site (REPSTOS_COPY_SITE) ties rdi, rsi and rcx.
 *
 * Before the site go the checks the call had: FORTIFY's length check
 * for a _chk form, and under ASan the interceptor's range and overlap
 * checks, each a cold call guarded by a compare.  In kernel mode
 * kernel_build_site() builds the asm instead.
 */
#include "plugin.h"

/* ---- The site ------------------------------------------------------- */

/* REPSTOS_SITE_CLOBBERS is a list of C strings, as asm clobbers take;
 * REPSTOS_COPY_CLOBBERS too. */
static const char *const site_clobbers[] = { REPSTOS_SITE_CLOBBERS };
static const char *const copy_clobbers[] = { REPSTOS_COPY_CLOBBERS };
static const char *const avx_clobbers[] = { REPSTOS_SITE_CLOBBERS_AVX };
static const char *const avx512_clobbers[] = { REPSTOS_SITE_CLOBBERS_AVX512 };

/*
 * The registers a user-space site clobbers in this function, into
 * lists[], which has room for three; returns how many lists.  The
 * vector state (repstos_site.h): the whole vector file only where the
 * function may keep upper halves, xmm16-31 or mask registers, which GCC
 * refuses to hear of elsewhere.  Both TARGET_ tests follow the
 * function's own target attribute.
 */
unsigned site_clobber_lists(const struct candidate *c,
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

/* The link's definition, made by the first site that names it. */
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

/* One asm operand (its constraint and value), or one clobber, as
 * gimple_build_asm_vec takes them; kernel_build_site's too. */
tree asm_operand(const char *constraint, tree value)
{
	tree str = build_string(strlen(constraint) + 1, constraint);

	return build_tree_list(build_tree_list(NULL_TREE, str), value);
}

tree asm_clobber(const char *reg)
{
	return build_tree_list(NULL_TREE, build_string(strlen(reg) + 1, reg));
}

/*
 * What every site has, user space's and kernel mode's: rdi = dst and
 * rcx = len, tied in/out operands 0 and 1, and the "memory" and "cc"
 * clobbers.  The "memory" clobber is what orders the site against other
 * memory accesses, for the source's reads as for the destination's
 * writes: GCC takes such an asm as reading and writing all memory, so
 * no store to the source is sunk below it or deleted as dead, and no
 * load of the destination is hoisted above it (the asm is also
 * volatile, which RTL dead store elimination treats as a read of
 * everything).
 */
void site_begin(struct site_operands *ops, tree dst, tree len)
{
	ops->in = ops->out = ops->clob = NULL;
	ops->d = make_ssa_name(ptr_type_node);
	ops->n = make_ssa_name(size_type_node);
	vec_safe_push(ops->out, asm_operand("=D", ops->d));
	vec_safe_push(ops->out, asm_operand("=c", ops->n));
	vec_safe_push(ops->in, asm_operand("0", dst));
	vec_safe_push(ops->in, asm_operand("1", len));
	vec_safe_push(ops->clob, asm_clobber("memory"));
	vec_safe_push(ops->clob, asm_clobber("cc"));
}

/* The volatile asm of text (freed) with ops, defining its SSA outputs;
 * *end is the rdi output, dst + len when the site is done. */
gasm *site_finish(struct site_operands *ops, char *text, tree *end)
{
	gasm *as = gimple_build_asm_vec(text, ops->in, ops->out, ops->clob,
					NULL);

	free(text);
	gimple_asm_set_volatile(as, true);
	for (unsigned i = 0; i < gimple_asm_noutputs(as); i++) {
		tree v = TREE_VALUE(gimple_asm_output_op(as, i));

		if (TREE_CODE(v) == SSA_NAME)
			SSA_NAME_DEF_STMT(v) = as;
	}
	*end = ops->d;
	return as;
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

/* Build the site asm for c: rdi = dst, rcx = len and rax = fill for a
 * set site; rdi = dst, rsi = src, rcx = len for a copy site. */
static gasm *build_site(const struct candidate *c, tree len, tree fill,
			tree *end)
{
	struct site_operands ops;
	bool copy = repstos_op_is_copy(c->op);
	tree a;
	struct reg_list lists[3];
	unsigned nlists;

	site_begin(&ops, c->dst, len);
	a = make_ssa_name(copy ? ptr_type_node : long_unsigned_type_node);
	vec_safe_push(ops.out, asm_operand(copy ? "=S" : "=a", a));
	vec_safe_push(ops.in, asm_operand("2", copy ? c->src : fill));
	nlists = site_clobber_lists(c, lists);
	for (unsigned i = 0; i < nlists; i++)
		push_clobbers(&ops.clob, lists[i].regs, lists[i].n);
	return site_finish(&ops, site_asm(c), end);
}

/* ---- The checks ----------------------------------------------------- */

/* Functions the checks call, built once per unit; GC roots so they
 * survive collections. */
static tree chk_fail_fndecl, poisoned_fndecl, asan_memcpy_fndecl;

const struct ggc_root_tab check_ggc_roots[] = {
	{ &chk_fail_fndecl, 1, sizeof(tree),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &poisoned_fndecl, 1, sizeof(tree),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &asan_memcpy_fndecl, 1, sizeof(tree),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

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
	guard_call(c->stmt, len, GT_EXPR, fold_convert(size_type_node, objsz),
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
	gimple_stmt_iterator gsi = gsi_for_stmt(c->stmt);
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
	gimple_set_location(probe, gimple_location(c->stmt));
	gsi_insert_before(&gsi, probe, GSI_SAME_STMT);

	fn = builtin_decl_implicit(report);
	guard_call(c->stmt, bad, NE_EXPR, null_pointer_node,
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
	location_t loc = gimple_location(c->stmt);
	gimple_stmt_iterator gsi = gsi_for_stmt(c->stmt);
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
	guard_call(c->stmt, overlap, NE_EXPR, boolean_false_node,
		   gimple_build_call(fn, 3, c->dst, c->src, len));
	return true;
}

/* ---- The rewrite ---------------------------------------------------- */

/* An aggregate's address (an ADDR_EXPR of the reference) as a value
 * before the statement; the object it names now has its address taken
 * (a BLKmode one lives in memory anyway; a smaller one, made a site by
 * min-const, must too). */
static tree aggregate_address(gimple_stmt_iterator *gsi, tree addr)
{
	tree base = get_base_address(TREE_OPERAND(addr, 0));

	if (base && DECL_P(base))
		TREE_ADDRESSABLE(base) = 1;
	return force_gimple_operand_gsi(gsi, addr, true, NULL_TREE, true,
					GSI_SAME_STMT);
}

/* Replace c->stmt by a site.  Returns true if new calls were added (their
 * virtual operands then need renaming). */
bool rewrite(struct candidate *c)
{
	gimple *call = c->stmt;
	location_t loc = gimple_location(call);
	tree lhs = is_gimple_call(call) ? gimple_call_lhs(call) : NULL_TREE;
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	gimple_seq seq = NULL;
	bool new_calls = false;
	tree len, fill, end;
	gasm *site;

	if (c->aggregate) {
		c->dst = aggregate_address(&gsi, c->dst);
		if (c->src)
			c->src = aggregate_address(&gsi, c->src);
	}
	len = gimple_convert(&seq, loc, size_type_node, c->len);
	fill = fill_value(&seq, loc, c->fill);
	if (seq)
		gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);

	new_calls |= emit_fortify_check(c, len);
	new_calls |= emit_asan_overlap_check(c, len);
	if (c->src)
		new_calls |= emit_asan_check(c, c->src, len, false);
	new_calls |= emit_asan_check(c, c->dst, len, true);

	site = kernel_mode ? kernel_build_site(c, len, fill, &end)
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

