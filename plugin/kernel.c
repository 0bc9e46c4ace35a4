// SPDX-License-Identifier: MIT
/*
 * kernel.c - the GCC plugin's kernel mode, -fplugin-arg-repstos-kernel:
 * each surviving memset, memcpy, mempcpy and memmove of a Linux x86-64
 * unit becomes an entry group in the kernel's own .altinstructions, as
 * ktext.c writes it (the text is shared with the LLVM pass: kmode.h);
 * this file is what GCC's side of it needs: the options, where a site
 * may go (a stac/clac analysis over GIMPLE), the site's asm statement,
 * the routines and notes at the end of the unit, and the tree read from
 * the unit's -I directories (ktree.c).
 *
 * Before patching the original runs, and it is right on every x86-64
 * CPU (rep stosb/movsb, or the erms move routine), so code that runs
 * before apply_alternatives() needs no site of its own kind.  What must
 * not have sites is code the patcher runs while it writes text
 * (kconflict_unit), and .head.text (kconflict_function).
 *
 * The register contract: a set site takes rdi = dst, rcx = len, rax =
 * the fill byte zero-extended; a copy site rdi, rsi, rcx.  The routines
 * save what else they use (rax, rdx) on the stack, so a site clobbers
 * only its own operands, the flags and memory: one push/pop pair costs
 * less than GCC spilling live registers around every site.
 *
 * The routines are GPR-only and live in .noinstr.text, so noinstr code
 * may hold sites.  objtool writes ORC and .return_sites entries for
 * them from outside any section group, which rules out COMDAT: ld
 * refuses references into a discarded group member.  So vmlinux gets
 * them once, global, from the unit that defines start_kernel() (always
 * built in); a module unit with sites gets local copies of its own.
 * They end in RET as the build spells it: `jmp __x86_return_thunk`
 * under -mfunction-return=thunk-extern (RETHUNK), `ret; int3` under
 * -mharden-sls (SLS), else `ret`.
 */
#include "plugin.h"

/* The C front end's preprocessor, or NULL (lto1). */
static cpp_reader *preprocessor(void)
{
	if (!&parse_in || !cpp_define || !cpp_defined)
		return NULL;
	return parse_in;
}

bool kernel_mode;

/* The bit that keeps the inline form when the option gives one, else
 * -1: the tree's (fast_bit). */
static int inline_bit = -1;

/* -fplugin-arg-repstos-kernel-paths: the routines count their paths. */
static bool kernel_paths;

static bool unit_defines_start_kernel, unit_is_module, layout_bad;
static unsigned unit_sites;
static tree stack_pointer_var;

bool kernel_option(const char *key, const char *value, bool *ok)
{
	char *end;
	unsigned long v;

	if (!strcmp(key, "kernel")) {
		if (value) {
			error("%<-fplugin-arg-repstos-kernel%> takes no value "
			      "(got %qs)", value);
			*ok = false;
		}
		kernel_mode = true;
		return true;
	}
	if (!strcmp(key, "kernel-paths")) {
		if (value) {
			error("%<-fplugin-arg-repstos-kernel-paths%> takes no "
			      "value (got %qs)", value);
			*ok = false;
		}
		kernel_paths = true;
		return true;
	}
	if (strcmp(key, "kernel-inline-bit"))
		return false;
	v = value ? strtoul(value, &end, 0) : 0;
	if (!value || !*value || *end || v >= K_FEATURE_LIMIT) {
		error("bad value %qs for %<-fplugin-arg-repstos-kernel-inline-"
		      "bit%>: expected an x86 feature bit number (word * 32 + "
		      "bit)", value ? value : "");
		*ok = false;
	}
	inline_bit = v;
	return true;
}

/* ---- Where sites may go --------------------------------------------- */

/* The window's state after stmt, from open before it. */
static bool ac_after(gimple *stmt, bool open)
{
	gasm *as = dyn_cast<gasm *>(stmt);

	return as ? kac_after(gimple_asm_string(as), open) : open;
}

/* The state at the end of bb, entered with open. */
static bool ac_at_end(basic_block bb, bool open)
{
	for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
	     gsi_next(&gsi))
		open = ac_after(gsi_stmt(gsi), open);
	return open;
}

/*
 * The blocks the window may be open on entry to, in open_in: a forward
 * may-analysis over the CFG to its fixed point, closed at the entry (no
 * function is entered or left with it open: objtool holds the kernel to
 * that).  A site goes only where the window is closed on every path,
 * which is what objtool checks of a call.  Returns whether the function
 * opens it at all.
 */
static bool scan_uaccess(sbitmap open_in)
{
	basic_block bb;
	bool any = false, changed = true;

	bitmap_clear(open_in);
	FOR_EACH_BB_FN(bb, cfun)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi); gsi_next(&gsi)) {
			gasm *as = dyn_cast<gasm *>(gsi_stmt(gsi));

			if (as && kac_effect(gimple_asm_string(as)) == KAC_OPEN)
				any = true;
		}
	while (any && changed) {
		changed = false;
		FOR_EACH_BB_FN(bb, cfun) {
			edge e;
			edge_iterator ei;

			if (!ac_at_end(bb, bitmap_bit_p(open_in, bb->index)))
				continue;
			FOR_EACH_EDGE(e, ei, bb->succs)
				if (e->dest != EXIT_BLOCK_PTR_FOR_FN(cfun) &&
				    bitmap_set_bit(open_in, e->dest->index))
					changed = true;
		}
	}
	return any;
}

/* May the user-access window be open at stmt?  The analysis is made
 * once per function (the pass asks before it changes the CFG). */
static bool in_uaccess_window(gimple *stmt)
{
	static tree seen;
	static sbitmap open_in;
	static bool any;
	basic_block bb = gimple_bb(stmt);
	bool open;

	if (seen != current_function_decl) {
		seen = current_function_decl;
		if (open_in)
			sbitmap_free(open_in);
		open_in = sbitmap_alloc(last_basic_block_for_fn(cfun));
		any = scan_uaccess(open_in);
	}
	if (!any)
		return false;
	open = bitmap_bit_p(open_in, bb->index);
	for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
	     !gsi_end_p(gsi) && gsi_stmt(gsi) != stmt; gsi_next(&gsi))
		open = ac_after(gsi_stmt(gsi), open);
	return open;
}

const char *kernel_conflict(const struct candidate *c)
{
	const char *why;

	/* ktree_usable() only where it could matter: its error is for
	 * -mcmodel=kernel units */
	why = kconflict_unit(ix86_cmodel == CM_KERNEL,
			     ix86_cmodel != CM_KERNEL ||
			     (!layout_bad && ktree_usable()),
			     main_input_filename);
	if (!why)
		why = kconflict_function(DECL_SECTION_NAME(current_function_decl),
					 c->objsz != NULL_TREE);
	if (!why && in_uaccess_window(c->stmt))
		why = kconflict_uaccess;
	return why;
}

/* ---- The site ------------------------------------------------------- */

/* An interrupt or exception handler: the direction flag is whatever the
 * interrupted code left, so GCC puts cld before each call and string
 * instruction there; a site, an asm, needs its own (the attribute is
 * what ix86_set_func_type reads too). */
static bool in_interrupt_function(void)
{
	return lookup_attribute("interrupt",
				TYPE_ATTRIBUTES(TREE_TYPE(current_function_decl)));
}

static char *site_text(const struct candidate *c)
{
	struct ksite s = { c->op, c->kind, c->min, c->max,
			   in_interrupt_function(), inline_bit, "%=" };

	return ksite_text(ktree(), &s);
}

/* The kernel's current_stack_pointer (asm/asm.h), if the unit declares
 * it: ASM_CALL_CONSTRAINT, "+r" of it, makes GCC set up the frame
 * before the asm in frame-pointer builds, as objtool wants of a call.
 * Caught as it is declared: the C front end's bindings are gone by the
 * time the pass runs. */
static void see_decl(void *gcc_data, void *user_data)
{
	tree d = (tree)gcc_data;

	if (d && VAR_P(d) && DECL_HARD_REGISTER(d) && DECL_NAME(d) &&
	    !strcmp(IDENTIFIER_POINTER(DECL_NAME(d)), "current_stack_pointer"))
		stack_pointer_var = d;
}

static const struct ggc_root_tab kernel_ggc_roots[] = {
	{ &stack_pointer_var, 1, sizeof(tree),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

gasm *kernel_build_site(const struct candidate *c, tree len, tree fill,
			tree *end)
{
	struct site_operands ops;
	bool copy = repstos_op_is_copy(c->op);
	tree sp = stack_pointer_var;

	site_begin(&ops, c->dst, len);
	if (copy) {
		vec_safe_push(ops.out, asm_operand("=S",
						   make_ssa_name(ptr_type_node)));
		vec_safe_push(ops.in, asm_operand("2", c->src));
	} else {
		vec_safe_push(ops.in, asm_operand("a", fill));
	}
	if (sp) {
		vec_safe_push(ops.out, asm_operand("=r", sp));
		vec_safe_push(ops.in, asm_operand(copy ? "3" : "2", sp));
	}
	unit_sites++;
	return site_finish(&ops, site_text(c), end);
}

/* The routines, as the build spells RET, with NOENDBR annotations
 * under IBT (one error where the tree names no section for them). */
static void emit_routines(FILE *f, bool global)
{
	struct kroutines r = {
		global,
		kret(ix86_function_return == indirect_branch_thunk_extern,
		     ix86_harden_sls & harden_sls_return),
		(flag_cf_protection & CF_BRANCH) != 0, kernel_paths
	};
	char *text;

	if (r.ibt && !ktree()->annotate)
		error("%s", ktree_no_annotate);
	text = kroutines_text(ktree(), &r);
	fputs(text, f);
	free(text);
}

static void finish_unit(void *gcc_data, void *user_data)
{
	if (ix86_cmodel != CM_KERNEL || !asm_out_file || seen_error())
		return;
	if ((unit_is_module ? unit_sites != 0 : unit_defines_start_kernel) &&
	    ktree_usable())
		emit_routines(asm_out_file, !unit_is_module);
	if (unit_sites)
		fputs(kend_note_text, asm_out_file);
}

/* Every function definition, before gimplification: is this the unit
 * vmlinux takes the routines from, and is it a module's? */
static void see_function(void *gcc_data, void *user_data)
{
	tree fndecl = (tree)gcc_data;

	cpp_reader *pp = preprocessor();

	unit_is_module = pp && cpp_defined(pp, (const unsigned char *)"MODULE",
					   6);
	if (DECL_NAME(fndecl) &&
	    !strcmp(IDENTIFIER_POINTER(DECL_NAME(fndecl)), "start_kernel"))
		unit_defines_start_kernel = true;
}

/* ---- The kernel's alt_instr ----------------------------------------- */

/* The tree, read once from the unit's -I and -isystem directories, in
 * command-line order (ktree.c). */
const struct ktree *ktree(void)
{
	static struct ktree kt;
	static bool read;
	vec<const char *> dirs = vNULL;

	if (read)
		return &kt;
	read = true;
	for (unsigned i = 0; i < save_decoded_options_count; i++) {
		const struct cl_decoded_option *o = &save_decoded_options[i];

		if ((o->opt_index == OPT_I || o->opt_index == OPT_isystem) &&
		    o->arg)
			dirs.safe_push(o->arg);
	}
	dirs.safe_push(NULL);
	ktree_read(&kt, dirs.address());
	dirs.release();
	return &kt;
}

bool ktree_usable(void)
{
	static bool said;
	const struct ktree *t = ktree();
	char *msg;

	if (!t->error)
		return true;
	if (!said) {
		msg = ktree_error_text(t);
		error("%s", msg);
		free(msg);
	}
	said = true;
	return false;
}

/* A named field of the unit's struct alt_instr at offset, of size bytes. */
static bool field_at(tree type, const char *name, unsigned offset,
		     unsigned size)
{
	for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f)) {
		if (TREE_CODE(f) != FIELD_DECL || !DECL_NAME(f) ||
		    strcmp(IDENTIFIER_POINTER(DECL_NAME(f)), name))
			continue;
		return int_bit_position(f) == offset * 8 &&
		       tree_fits_uhwi_p(DECL_SIZE(f)) &&
		       tree_to_uhwi(DECL_SIZE(f)) == size * 8;
	}
	return false;
}

/* Does the unit's struct alt_instr read as the tree's header says?  The
 * 14-byte layout's feature word is an anonymous union, seen by size. */
static bool layout_matches(tree type, unsigned size)
{
	return TYPE_SIZE_UNIT(type) && tree_fits_uhwi_p(TYPE_SIZE_UNIT(type))
	       && tree_to_uhwi(TYPE_SIZE_UNIT(type)) == size
	       && field_at(type, "instr_offset", 0, 4)
	       && field_at(type, "repl_offset", 4, 4)
	       && (size == 14 || field_at(type, "cpuid", 8, 2))
	       && field_at(type, "instrlen", size - 2, 1)
	       && field_at(type, "replacementlen", size - 1, 1);
}

/* A unit that declares struct alt_instr: a cross-check of the header
 * ktree() read, which is what the entries are written from. */
static void see_type(void *gcc_data, void *user_data)
{
	tree type = (tree)gcc_data;
	const struct ktree *t;
	tree name;

	if (!type || TREE_CODE(type) != RECORD_TYPE || !TYPE_NAME(type))
		return;
	name = TYPE_NAME(type);
	if (TREE_CODE(name) == TYPE_DECL)
		name = DECL_NAME(name);
	if (!name || strcmp(IDENTIFIER_POINTER(name), "alt_instr"))
		return;
	t = ktree();
	if (t->error || layout_matches(type, t->alt_size))
		return;		/* no tree: its error comes with a site */
	layout_bad = true;
	error_at(TREE_CODE(TYPE_NAME(type)) == TYPE_DECL ?
		 DECL_SOURCE_LOCATION(TYPE_NAME(type)) : input_location,
		 "repstos: this %<struct alt_instr%> is not the %u-byte one "
		 "of %s, which kernel mode writes: it knows Linux 5.13 to 7.x "
		 "(12 bytes to 6.2, %<s32 instr_offset, s32 repl_offset, u16 "
		 "cpuid, u8 instrlen, u8 replacementlen%>; 14 bytes from 6.3, "
		 "%<u32 ft_flags%> for %<cpuid%>)", t->alt_size, t->header);
}

/* Tell the unit it is built in kernel mode (the kernel test reads its
 * own notes only then). */
static void start_unit(void *gcc_data, void *user_data)
{
	cpp_reader *pp = preprocessor();

	if (pp && ix86_cmodel == CM_KERNEL)
		cpp_define(pp, "__REPSTOS_KERNEL__=1");
}

void kernel_register(const char *plugin_name)
{
	register_callback(plugin_name, PLUGIN_START_UNIT, start_unit, NULL);
	register_callback(plugin_name, PLUGIN_FINISH_DECL, see_decl, NULL);
	register_callback(plugin_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)kernel_ggc_roots);
	register_callback(plugin_name, PLUGIN_FINISH_TYPE, see_type, NULL);
	register_callback(plugin_name, PLUGIN_PRE_GENERICIZE, see_function,
			  NULL);
	register_callback(plugin_name, PLUGIN_FINISH_UNIT, finish_unit, NULL);
}
