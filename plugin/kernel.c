// SPDX-License-Identifier: MIT
/*
 * kernel.c - the plugin's kernel mode, -fplugin-arg-repstos-kernel: each
 * surviving memset, memcpy, mempcpy and memmove of a Linux x86-64 unit
 * becomes an entry group in the kernel's own .altinstructions, which
 * apply_alternatives() patches at boot (the module loader for a module),
 * in the priority list of 6.1's __clear_user():
 *
 *	original	rep stosb / rep movsb, padded to 5 bytes
 *	ALT_NOT(FAST)	call __repstos_k_OP_erms
 *	ALT_NOT(ERMS)	call __repstos_k_OP_rep_good
 *	ALT_NOT(REP_GOOD) call __repstos_k_OP_orig
 *
 * FAST is the bit the tree keys its own routines on: FSRS for sets where
 * the tree has it (since 6.4 its memset and clears are), else FSRM; FSRM
 * for copies.  The entries are written in the layout of the tree being
 * built (ktree.c), one after another, so that a site's entries stay
 * consecutive as patch-once kernels want; ALT_NOT is the only flag set.
 * Entries apply in table order, so the last whose condition holds wins.
 * A memmove the compiler could not prove forwards-safe has no inline
 * form: its original is `call __repstos_k_move_erms` and it has the last
 * two entries only.  Each replacement is one 5-byte `call`, the only
 * form whose displacement apply_alternatives() fixes.
 *
 * Before patching the original runs, and it is right on every x86-64
 * CPU (rep stosb/movsb, or the erms move routine), so code that runs
 * before apply_alternatives() needs no site of its own kind.  What must
 * not have sites is code the patcher runs while it writes text:
 * arch/x86/kernel/alternative.c (text_poke_early() copies with memcpy,
 * and would rewrite its own site mid-copy).  Functions in .head.text
 * (__head: run once from the identity map before the kernel is at its
 * link address) get none either: they never run patched.
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
 *
 * Beside each site, a note in .note.repstos (name "repstos", type 1):
 * s32 offset to the site's first alt_instr, u8 op, u8 size kind, u8
 * entry count, u8 the entries' size (12 or 14: their layout), u32 min,
 * u32 max; the kernel links .note.*
 * into its .notes, and `repstos dump` and the kernel test read it.  It
 * points at the table, not the text: objtool's IBT check takes a data
 * reference to an instruction for a branch target.  A unit's notes end
 * in a type 2 note.
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

/* Feature numbers are 15 bits in the 12-byte layout. */
#define K_FEATURE_LIMIT	0x8000u

#define K_NOTE_SITE	1
#define K_NOTE_END	2

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

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/*
 * What an asm does to EFLAGS.AC, the user-access window: the kernel
 * spells stac and clac as bytes (__ASM_STAC, __ASM_CLAC in smap.h), and
 * smap_restore() pops the flags user_access_save() pushed, which may
 * open it again.  Text that may open it counts as opening ("stac" also
 * matches "stack": a site less, never one too many).
 */
enum ac_effect { AC_KEEP, AC_OPEN, AC_CLOSE };

static enum ac_effect asm_ac_effect(const char *text)
{
	if (strstr(text, "0x0f,0x01,0xcb") || strstr(text, "stac") ||
	    strstr(text, "popf"))
		return AC_OPEN;
	if (strstr(text, "0x0f,0x01,0xca") || strstr(text, "clac"))
		return AC_CLOSE;
	return AC_KEEP;
}

/* The window's state after stmt, from open before it. */
static bool ac_after(gimple *stmt, bool open)
{
	gasm *as = dyn_cast<gasm *>(stmt);

	if (!as)
		return open;
	switch (asm_ac_effect(gimple_asm_string(as))) {
	case AC_OPEN:
		return true;
	case AC_CLOSE:
		return false;
	default:
		return open;
	}
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

			if (as && asm_ac_effect(gimple_asm_string(as)) ==
				  AC_OPEN)
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

static bool in_head_text(void)
{
	const char *sec = DECL_SECTION_NAME(current_function_decl);

	return sec && !strcmp(sec, ".head.text");
}

const char *kernel_conflict(const struct candidate *c)
{
	if (ix86_cmodel != CM_KERNEL)
		return "kernel mode: not -mcmodel=kernel (vDSO, boot or "
		       "purgatory code)";
	if (layout_bad || !ktree_usable())
		return "kernel mode: unknown struct alt_instr";
	if (ends_with(main_input_filename, "arch/x86/kernel/alternative.c"))
		return "kernel mode: the alternatives patcher itself";
	if (in_head_text())
		return "kernel mode: .head.text runs before patching only";
	if (c->objsz)
		return "kernel mode: a _chk form (the kernel has no __chk_fail)";
	if (in_uaccess_window(c->stmt))
		return "kernel mode: in a user-access window (stac/clac)";
	return NULL;
}

/* ---- The site ------------------------------------------------------- */

static const char *op_family(enum repstos_op op)
{
	if (op == REPSTOS_OP_MOVE)
		return "move";
	return repstos_op_is_copy(op) ? "copy" : "set";
}

static void append(char **buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void append(char **buf, const char *fmt, ...)
{
	va_list ap;
	char *more, *joined;

	va_start(ap, fmt);
	more = xvasprintf(fmt, ap);
	va_end(ap);
	joined = concat(*buf, more, NULL);
	free(*buf);
	free(more);
	*buf = joined;
}

/* One alt_instr, ALT_NOT(feature), in the tree's layout, and its
 * replacement `call fn`. */
static void alt_entry(char **head, char **repl, int n, unsigned feature,
		      const char *fn)
{
	const struct ktree *t = ktree();

	append(head, "\t.long .Lrk%%= - .\n\t.long .Lrk%%=_r%d - .\n"
	       "\t%s %#x\n\t.byte .Lrk%%=_e - .Lrk%%=\n"
	       "\t.byte .Lrk%%=_r%de - .Lrk%%=_r%d\n", n,
	       t->alt_size == 14 ? ".long" : ".word", feature | t->alt_not,
	       n, n);
	append(repl, ".Lrk%%=_r%d:\n\tcall %s\n.Lrk%%=_r%de:\n", n, fn, n);
}

/* An interrupt or exception handler: the direction flag is whatever the
 * interrupted code left, so GCC puts cld before each call and string
 * instruction there; a site, an asm, needs its own (the attribute is
 * what ix86_set_func_type reads too). */
static bool in_interrupt_function(void)
{
	return lookup_attribute("interrupt",
				TYPE_ATTRIBUTES(TREE_TYPE(current_function_decl)));
}

/* The bit whose presence keeps a site of op inline. */
static unsigned fast_bit(enum repstos_op op)
{
	const struct ktree *t = ktree();

	if (inline_bit >= 0)
		return inline_bit;
	return !repstos_op_is_copy(op) && t->fsrs ? t->fsrs : t->fsrm;
}

static char *site_text(const struct candidate *c)
{
	const struct ktree *t = ktree();
	enum repstos_op op = c->op;
	const char *fam = op_family(op);
	bool inl = op != REPSTOS_OP_MOVE;
	char *text = xstrdup(in_interrupt_function() ? "cld\n.Lrk%=:\n"
						     : ".Lrk%=:\n");
	char *head = xstrdup(""), *repl = xstrdup("");
	char fn[64];
	int n = 0;

	if (inl)
		append(&text, "\t%s\n\t.byte 0x0f,0x1f,0x00\n",
		       repstos_op_is_copy(op) ? "rep movsb" : "rep stosb");
	else
		append(&text, "\tcall __repstos_k_move_erms\n");
	append(&text, ".Lrk%%=_e:\n");
	if (inl) {
		snprintf(fn, sizeof(fn), "__repstos_k_%s_erms", fam);
		alt_entry(&head, &repl, ++n, fast_bit(op), fn);
	}
	snprintf(fn, sizeof(fn), "__repstos_k_%s_rep_good", fam);
	alt_entry(&head, &repl, ++n, t->erms, fn);
	snprintf(fn, sizeof(fn), "__repstos_k_%s_orig", fam);
	alt_entry(&head, &repl, ++n, t->rep_good, fn);

	/* declared as the tree declares it, or gas sees a clash */
	if (t->alt_merge)
		append(&text, "\t.pushsection .altinstructions,\"aM\",@progbits,"
		       "%u\n", t->alt_size);
	else
		append(&text, "\t.pushsection .altinstructions,\"a\"\n");
	append(&text, ".Lrk%%=_a:\n%s\t.popsection\n"
	       "\t.pushsection .altinstr_replacement,\"ax\"\n%s\t.popsection\n",
	       head, repl);
	append(&text, "\t.pushsection .note.repstos,\"a\",@note\n\t.balign 4\n"
	       "\t.long 8, 16, %d\n\t.asciz \"repstos\"\n\t.long .Lrk%%=_a - .\n"
	       "\t.byte %d, %d, %d, %d\n\t.long %llu, %llu\n\t.popsection",
	       K_NOTE_SITE, (int)op, (int)c->kind, n, (int)t->alt_size, c->min,
	       c->max);
	free(head);
	free(repl);
	return text;
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

/* ---- The routines --------------------------------------------------- */

/* The routines' bodies; RET is filled in.  Each preserves every
 * register but its operands (rdi, rcx, and rsi for copies) and flags. */
static const char *const routine_bodies[][2] = {
	{ "set_erms", "\trep stosb\n\tRET\n" },
	{ "set_rep_good",
	  "\tpush %rax\n\tpush %rdx\n"
	  "\tmovabs $0x0101010101010101, %rdx\n\timul %rdx, %rax\n"
	  "\tmov %rcx, %rdx\n\tshr $3, %rcx\n\trep stosq\n"
	  "\tmov %edx, %ecx\n\tand $7, %ecx\n\trep stosb\n"
	  "\tpop %rdx\n\tpop %rax\n\tRET\n" },
	{ "set_orig",
	  "\tpush %rax\n\tpush %rdx\n"
	  "\tmovabs $0x0101010101010101, %rdx\n\timul %rdx, %rax\n"
	  "\tcmp $32, %rcx\n\tjb 2f\n"
	  "1:\tmov %rax, (%rdi)\n\tmov %rax, 8(%rdi)\n"
	  "\tmov %rax, 16(%rdi)\n\tmov %rax, 24(%rdi)\n"
	  "\tadd $32, %rdi\n\tsub $32, %rcx\n\tcmp $32, %rcx\n\tjae 1b\n"
	  "2:\tcmp $8, %rcx\n\tjb 3f\n\tmov %rax, (%rdi)\n"
	  "\tadd $8, %rdi\n\tsub $8, %rcx\n\tjmp 2b\n"
	  "3:\ttest %rcx, %rcx\n\tjz 4f\n\tmov %al, (%rdi)\n"
	  "\tinc %rdi\n\tdec %rcx\n\tjmp 3b\n"
	  "4:\tpop %rdx\n\tpop %rax\n\tRET\n" },
	{ "copy_erms", "\trep movsb\n\tRET\n" },
	{ "copy_rep_good",
	  "\tpush %rdx\n\tmov %rcx, %rdx\n\tshr $3, %rcx\n\trep movsq\n"
	  "\tmov %edx, %ecx\n\tand $7, %ecx\n\trep movsb\n"
	  "\tpop %rdx\n\tRET\n" },
	{ "copy_orig",
	  "\tpush %rax\n\tpush %rdx\n\tcmp $16, %rcx\n\tjb 2f\n"
	  "1:\tmov (%rsi), %rax\n\tmov 8(%rsi), %rdx\n"
	  "\tmov %rax, (%rdi)\n\tmov %rdx, 8(%rdi)\n"
	  "\tadd $16, %rsi\n\tadd $16, %rdi\n\tsub $16, %rcx\n"
	  "\tcmp $16, %rcx\n\tjae 1b\n"
	  "2:\ttest %rcx, %rcx\n\tjz 3f\n\tmov (%rsi), %al\n"
	  "\tmov %al, (%rdi)\n\tinc %rsi\n\tinc %rdi\n\tdec %rcx\n"
	  "\tjmp 2b\n"
	  "3:\tpop %rdx\n\tpop %rax\n\tRET\n" },
	/* Backwards, for a destination inside the source's tail: rdi,
	 * rsi end where they began. */
	{ "move_back",
	  "\tpush %rax\n\tadd %rcx, %rsi\n\tadd %rcx, %rdi\n"
	  "1:\tcmp $8, %rcx\n\tjb 2f\n\tsub $8, %rsi\n\tsub $8, %rdi\n"
	  "\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n\tsub $8, %rcx\n"
	  "\tjmp 1b\n"
	  "2:\ttest %rcx, %rcx\n\tjz 3f\n\tdec %rsi\n\tdec %rdi\n"
	  "\tmov (%rsi), %al\n\tmov %al, (%rdi)\n\tdec %rcx\n\tjmp 2b\n"
	  "3:\tpop %rax\n\tRET\n" },
};

/* The move routines: backwards when src < dst < src + len (unsigned
 * dst - src < len), else the copy routine of the same class. */
static const char *const move_classes[] = { "erms", "rep_good", "orig" };

static const char *ret_spelling(void)
{
	if (ix86_function_return == indirect_branch_thunk_extern)
		return "jmp __x86_return_thunk";
	if (ix86_harden_sls & harden_sls_return)
		return "ret\n\tint3";
	return "ret";
}

/* Under IBT: called directly only, never through a pointer; as the
 * kernel's ANNOTATE_NOENDBR says of such code, in the section the tree's
 * objtool reads, so that taking the address (the kernel test compares
 * it) is no objtool warning. */
static void emit_noendbr(FILE *f, const char *name)
{
	const struct ktree *t = ktree();
	static bool said;

	if (!(flag_cf_protection & CF_BRANCH))
		return;
	if (!t->annotate) {
		if (!said)
			error("repstos: kernel mode cannot tell which section "
			      "the objtool of this kernel reads "
			      "%<ANNOTATE_NOENDBR%> from: no %<linux/objtool.h%> "
			      "naming %qs or %qs in the %<-I%> directories",
			      ".discard.noendbr", ".discard.annotate_insn");
		said = true;
	} else if (!strcmp(t->annotate, ".discard.annotate_insn")) {
		fprintf(f, "\t.pushsection .discard.annotate_insn,\"M\","
			"@progbits,8\n\t.long __repstos_k_%s - ., %d\n"
			"\t.popsection\n", name, t->noendbr_type);
	} else {
		fprintf(f, "\t.pushsection %s\n\t.quad __repstos_k_%s\n"
			"\t.popsection\n", t->annotate, name);
	}
}

/* Each routine is 16-byte aligned with 16 bytes of NOPs before it: the
 * padding call-depth tracking (retbleed=stuff) writes its accounting
 * thunk into, as for the kernel's own functions (FUNCTION_PADDING),
 * without which it warns once and does not account the call. */
static void emit_function(FILE *f, const char *name, const char *body,
			  bool global)
{
	const char *ret = ret_spelling();

	fprintf(f, "\t.pushsection .noinstr.text,\"ax\",@progbits\n"
		"\t.p2align 4, 0x90\n\t.skip 16, 0x90\n");
	if (global)
		fprintf(f, "\t.globl __repstos_k_%s\n", name);
	fprintf(f, "\t.type __repstos_k_%s, @function\n__repstos_k_%s:\n",
		name, name);
	for (const char *p = body; *p; p++) {
		if (!strncmp(p, "RET\n", 4)) {
			fprintf(f, "%s\n", ret);
			p += 3;
		} else {
			fputc(*p, f);
		}
	}
	fprintf(f, "\t.size __repstos_k_%s, .-__repstos_k_%s\n\t.popsection\n",
		name, name);
	emit_noendbr(f, name);
}

static void emit_routines(FILE *f, bool global)
{
	char name[32], body[160];

	fprintf(f, "# repstos kernel routines\n");
	for (size_t i = 0; i < ARRAY_SIZE(routine_bodies); i++)
		emit_function(f, routine_bodies[i][0], routine_bodies[i][1],
			      global);
	for (size_t i = 0; i < ARRAY_SIZE(move_classes); i++) {
		snprintf(name, sizeof(name), "move_%s", move_classes[i]);
		snprintf(body, sizeof(body), "\tpush %%rax\n\tmov %%rdi, %%rax\n"
			 "\tsub %%rsi, %%rax\n\tcmp %%rcx, %%rax\n\tpop %%rax\n"
			 "\tjae 1f\n\tjmp __repstos_k_move_back\n"
			 "1:\tjmp __repstos_k_copy_%s\n", move_classes[i]);
		emit_function(f, name, body, global);
	}
}

static void finish_unit(void *gcc_data, void *user_data)
{
	if (ix86_cmodel != CM_KERNEL || !asm_out_file || seen_error())
		return;
	if (unit_sites)
		fprintf(asm_out_file, "\t.pushsection .note.repstos,\"a\","
			"@note\n\t.balign 4\n\t.long 8, 0, %d\n"
			"\t.asciz \"repstos\"\n\t.popsection\n", K_NOTE_END);
	if ((unit_is_module ? unit_sites != 0 : unit_defines_start_kernel) &&
	    ktree_usable())
		emit_routines(asm_out_file, !unit_is_module);
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
