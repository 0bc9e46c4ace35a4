// SPDX-License-Identifier: MIT
/*
 * readback.c - the use mark of a site's entry (REPSTOS_USE_READ in its
 * kind byte): does the function load some of the bytes the site writes
 * soon after it?  read_back() looks a few dozen statements ahead for a
 * load of the same object.  A masked or string store does not forward
 * to such a load: such sites want forms with plain stores.
 */
#include "plugin.h"

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
bool read_back(const struct candidate *c)
{
	auto_vec<basic_block, USE_BLOCKS> work;
	auto_bitmap seen;
	gimple_stmt_iterator gsi = gsi_for_stmt(c->stmt);
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
