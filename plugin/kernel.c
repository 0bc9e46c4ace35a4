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

/* -fplugin-arg-repstos-kernel-paths: the routines count their paths. */
static bool kernel_paths;

/* Feature numbers are 15 bits in the 12-byte layout. */
#define K_FEATURE_LIMIT	0x8000u

#define K_NOTE_SITE	1
#define K_NOTE_END	2
#define K_NOTE_PATH	3

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

/*
 * The routines of the orig and REP_GOOD classes, as Linux's own
 * memset_orig and memcpy_orig are built: sizes to 64 in straight-line
 * code of overlapping stores (one branch per size class, taken only for
 * the larger ones), larger sizes in a loop of 64-byte blocks from an
 * aligned destination, and for REP_GOOD rep stosq/movsq from a
 * threshold, which beats the loop only once its start-up is paid.  The
 * ERMS class is Linux's memset_erms and memcpy_erms (routine_bodies):
 * measured, a size mix mispredicts any branch ahead of rep stosb.
 * GPR-only, no red zone: a set keeps the broadcast fill in rax itself
 * and gives back the byte with movzbl (the site passes it
 * zero-extended), a copy saves rax, and rdx only for fast strings.
 *
 * Each size class of a set stores its tail before its head, so that the
 * last store to the first byte has the plainest address: a load of that
 * byte right after the call (kernel/bench.sh's "first" shape) is
 * forwarded from it without waiting on the tail's address; a store's
 * data never waits on the destination either.  A copy of 17 to 64 bytes
 * goes head first, as memcpy_orig's tail does: tail first, a load of the
 * first byte right after the call took 2.0-2.3 times as long at 24 bytes
 * and 1.8 times at 48 (Intel family 6 model 0xcf), in line with
 * memcpy_orig head first.
 *
 * A copy site may be a memmove the compiler proved forwards-safe, so a
 * copy routine must be right when the destination is below an
 * overlapping source: that case (src - dst < len, unsigned, computed in
 * rax so that rsi stays independent of rdi) goes to move_fwd, whose
 * 16-byte blocks load before they store.  The fast paths then see
 * disjoint buffers, which their overlapping head and tail stores need.
 *
 * In a body, RET is the build's return and P(NAME) the start of a path:
 * under -fplugin-arg-repstos-kernel-paths a counter the kernel test
 * prints (emit_path), else nothing.
 */

/* rep stosq/movsq from this many bytes (the loop below it):
 * kernel/bench.sh on Intel family 6 model 0xcf had the loop ahead at
 * 511 bytes and rep stosq at 1024 and up
 * (bench/results/intel-06-cf/kernel-routines.txt). */
#define K_REP_STOSQ_FROM	"1024"
#define K_REP_MOVSQ_FROM	"1024"


/* How a set returns: rdi at the end, rcx 0, rax the fill byte again. */
#define SET_END	"\tadd %rcx, %rdi\n\txor %ecx, %ecx\n\tmovzbl %al, %eax\n\tRET\n"

/* Sizes 0 to 64 of a set, rax the fill byte broadcast, each class
 * reached by branches not taken where it can be (a taken branch costs
 * more) and returning in place; over 64 on to label 7.  Testing for
 * over 64 first (one taken branch there, not three) made 65 to 256
 * bytes 4 KiB aligned level with memset_orig from 0.92-0.95, but the
 * mix of distribution D mispredicted it: 0.95-0.97 of 6.1's REP_GOOD
 * memset, from 1.04 (Intel family 6 model 0xcf).  A mix is what a
 * kernel runs, so this order stays. */
static const char set_head[] =
	"\timul .Lrk_ones(%rip), %rax\n"
	"\tcmp $16, %rcx\n\tja 5f\n"
	"\tcmp $8, %ecx\n\tjae 2f\n"
	"\tcmp $4, %ecx\n\tjae 3f\n"
	"\ttest %ecx, %ecx\n\tjz 4f\n"
	/* 1 to 3: the last, the one at n / 2 and the first; rdi + n is
	 * rdi + 2 * (n / 2) + the bit shr leaves in CF */
	"P(1_3)\n\tmov %al, -1(%rdi,%rcx)\n\tshr %ecx\n"
	"\tmov %al, (%rdi,%rcx)\n\tmov %al, (%rdi)\n"
	"\tlea (%rdi,%rcx,2), %rdi\n\tadc $0, %rdi\n"
	"\txor %ecx, %ecx\n\tmovzbl %al, %eax\n\tRET\n"
	"4:\nP(0)\n\tmovzbl %al, %eax\n\tRET\n"
	"3:\nP(4_7)\n\tmov %eax, -4(%rdi,%rcx)\n\tmov %eax, (%rdi)\n" SET_END
	"2:\nP(8_16)\n\tmov %rax, -8(%rdi,%rcx)\n\tmov %rax, (%rdi)\n" SET_END
	"5:\tcmp $32, %rcx\n\tja 6f\n"
	"\tmov %rax, -16(%rdi,%rcx)\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tmov %rax, (%rdi)\n\tmov %rax, 8(%rdi)\n"
	"P(17_32)\n" SET_END
	"6:\tcmp $64, %rcx\n\tja 7f\n"
	"\tmov %rax, -32(%rdi,%rcx)\n\tmov %rax, -24(%rdi,%rcx)\n"
	"\tmov %rax, -16(%rdi,%rcx)\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tmov %rax, (%rdi)\n\tmov %rax, 8(%rdi)\n"
	"\tmov %rax, 16(%rdi)\n\tmov %rax, 24(%rdi)\n"
	"P(33_64)\n" SET_END;

/* Over 64 (label 7, or 10 past a threshold's test): the last 32 bytes
 * and the first 8, then 64-byte blocks from the first 8-byte boundary
 * past dst while one fits before the last 64 bytes, and one 32-byte
 * block if the last 32 are not reached: as few stores as Linux's
 * memset_orig makes, without its loops over the last quadwords and
 * bytes. */
static const char set_loop[] =
	"7:\n10:\nP(loop)\n"
	"\tmov %rax, -32(%rdi,%rcx)\n\tmov %rax, -24(%rdi,%rcx)\n"
	"\tmov %rax, -16(%rdi,%rcx)\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tmov %rax, (%rdi)\n"
	"\tlea -64(%rdi,%rcx), %rcx\n\tadd $8, %rdi\n\tand $-8, %rdi\n"
	"\tcmp %rcx, %rdi\n\tjae 12f\n"
	"11:\tmov %rax, (%rdi)\n\tmov %rax, 8(%rdi)\n"
	"\tmov %rax, 16(%rdi)\n\tmov %rax, 24(%rdi)\n"
	"\tmov %rax, 32(%rdi)\n\tmov %rax, 40(%rdi)\n"
	"\tmov %rax, 48(%rdi)\n\tmov %rax, 56(%rdi)\n"
	"\tadd $64, %rdi\n\tcmp %rcx, %rdi\n\tjb 11b\n"
	"12:\tadd $32, %rcx\n\tcmp %rcx, %rdi\n\tjae 13f\n"
	"\tmov %rax, (%rdi)\n\tmov %rax, 8(%rdi)\n"
	"\tmov %rax, 16(%rdi)\n\tmov %rax, 24(%rdi)\n"
	"13:\tlea 32(%rcx), %rdi\n\txor %ecx, %ecx\n\tmovzbl %al, %eax\n\tRET\n";

/* REP_GOOD, from the threshold: the first 32 bytes and the last 8,
 * then rep stosq from the first 32-byte boundary past dst to the last
 * whole quadword before the end. */
static const char set_big_rep_good[] =
	"7:\tcmp $" K_REP_STOSQ_FROM ", %rcx\n\tjb 10f\n"
	"P(rep)\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tmov %rax, (%rdi)\n\tmov %rax, 8(%rdi)\n"
	"\tmov %rax, 16(%rdi)\n\tmov %rax, 24(%rdi)\n"
	"\tpush %rdx\n\tlea (%rdi,%rcx), %rdx\n"
	"\tadd $32, %rdi\n\tand $-32, %rdi\n"
	"\tmov %rdx, %rcx\n\tsub %rdi, %rcx\n\tshr $3, %rcx\n\trep stosq\n"
	"\tmov %rdx, %rdi\n\tpop %rdx\n\tmovzbl %al, %eax\n\tRET\n";

/* How a copy returns: rdi, rsi at the ends, rcx 0, rax as it was. */
#define COPY_END "\tadd %rcx, %rdi\n\tadd %rcx, %rsi\n\txor %ecx, %ecx\n" \
		 "\tpop %rax\n\tRET\n"

/* A destination below an overlapping source (label 12 is the class's
 * forwards-safe path); then sizes 0 to 64 of a copy, rax saved, laid
 * out as the set's.  Each size class copies one register at a time:
 * the buffers are disjoint here. */
static const char copy_head[] =
	"\tpush %rax\n"
	"\tmov %rsi, %rax\n\tsub %rdi, %rax\n\tcmp %rcx, %rax\n\tjb 12f\n"
	"\tcmp $16, %rcx\n\tja 5f\n"
	"\tcmp $8, %ecx\n\tjae 2f\n"
	"\tcmp $4, %ecx\n\tjae 3f\n"
	"\ttest %ecx, %ecx\n\tjz 4f\n"
	"P(1_3)\n\tmovzbl -1(%rsi,%rcx), %eax\n\tmov %al, -1(%rdi,%rcx)\n"
	"\tshr %ecx\n"
	"\tmovzbl (%rsi,%rcx), %eax\n\tmov %al, (%rdi,%rcx)\n"
	"\tmovzbl (%rsi), %eax\n\tmov %al, (%rdi)\n"
	"\tsetc %al\n\tmovzbl %al, %eax\n"
	"\tlea (%rdi,%rcx,2), %rdi\n\tlea (%rsi,%rcx,2), %rsi\n"
	"\tadd %rax, %rdi\n\tadd %rax, %rsi\n"
	"\txor %ecx, %ecx\n\tpop %rax\n\tRET\n"
	"4:\nP(0)\n\tpop %rax\n\tRET\n"
	"3:\nP(4_7)\n\tmov -4(%rsi,%rcx), %eax\n\tmov %eax, -4(%rdi,%rcx)\n"
	"\tmov (%rsi), %eax\n\tmov %eax, (%rdi)\n" COPY_END
	"2:\nP(8_16)\n\tmov -8(%rsi,%rcx), %rax\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n" COPY_END
	"5:\tcmp $64, %rcx\n\tja 7f\n"
	"\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n"
	"\tmov 8(%rsi), %rax\n\tmov %rax, 8(%rdi)\n"
	"\tmov -16(%rsi,%rcx), %rax\n\tmov %rax, -16(%rdi,%rcx)\n"
	"\tmov -8(%rsi,%rcx), %rax\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tcmp $32, %rcx\n\tja 6f\n"
	"P(17_32)\n" COPY_END
	"6:\tmov -32(%rsi,%rcx), %rax\n\tmov %rax, -32(%rdi,%rcx)\n"
	"\tmov -24(%rsi,%rcx), %rax\n\tmov %rax, -24(%rdi,%rcx)\n"
	"\tmov 16(%rsi), %rax\n\tmov %rax, 16(%rdi)\n"
	"\tmov 24(%rsi), %rax\n\tmov %rax, 24(%rdi)\n"
	"P(33_64)\n" COPY_END;

/* Over 64, as the set's loop but with the blocks on the destination's
 * own 8-byte grid, not the memory's, as memcpy_orig's are: a reader of
 * the copy's words then finds each in one store, which forwards (on the
 * memory's grid, at +3, make bench-kernel's read shape had memcpy_orig
 * up to 1.6 times faster at 65 to 256 bytes); rsi moves as rdi does. */
static const char copy_loop[] =
	"7:\n10:\nP(loop)\n"
	"\tmov -32(%rsi,%rcx), %rax\n\tmov %rax, -32(%rdi,%rcx)\n"
	"\tmov -24(%rsi,%rcx), %rax\n\tmov %rax, -24(%rdi,%rcx)\n"
	"\tmov -16(%rsi,%rcx), %rax\n\tmov %rax, -16(%rdi,%rcx)\n"
	"\tmov -8(%rsi,%rcx), %rax\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n"
	"\tlea -64(%rdi,%rcx), %rcx\n\tadd $8, %rdi\n\tadd $8, %rsi\n"
	"\tcmp %rcx, %rdi\n\tjae 14f\n"
	"11:\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n"
	"\tmov 8(%rsi), %rax\n\tmov %rax, 8(%rdi)\n"
	"\tmov 16(%rsi), %rax\n\tmov %rax, 16(%rdi)\n"
	"\tmov 24(%rsi), %rax\n\tmov %rax, 24(%rdi)\n"
	"\tmov 32(%rsi), %rax\n\tmov %rax, 32(%rdi)\n"
	"\tmov 40(%rsi), %rax\n\tmov %rax, 40(%rdi)\n"
	"\tmov 48(%rsi), %rax\n\tmov %rax, 48(%rdi)\n"
	"\tmov 56(%rsi), %rax\n\tmov %rax, 56(%rdi)\n"
	"\tadd $64, %rsi\n\tadd $64, %rdi\n\tcmp %rcx, %rdi\n\tjb 11b\n"
	"14:\tadd $32, %rcx\n\tcmp %rcx, %rdi\n\tjae 13f\n"
	"\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n"
	"\tmov 8(%rsi), %rax\n\tmov %rax, 8(%rdi)\n"
	"\tmov 16(%rsi), %rax\n\tmov %rax, 16(%rdi)\n"
	"\tmov 24(%rsi), %rax\n\tmov %rax, 24(%rdi)\n"
	/* on to the ends: rdi + (end - rdi), rsi by as much */
	"13:\tadd $32, %rcx\n\tsub %rdi, %rcx\n\tadd %rcx, %rdi\n\tadd %rcx, %rsi\n"
	"\txor %ecx, %ecx\n\tpop %rax\n\tRET\n";

static const char copy_fwd[] =
	"12:\tpop %rax\nP(fwd)\n\tjmp __repstos_k_move_fwd\n";

/* REP_GOOD, from the threshold and only where source and destination
 * lie alike on the 8-byte grid: rep movsq from a source off the
 * destination's grid took 1.4 to 2.3 times the loop's time at 1 KiB to
 * 8 KiB (kernel/bench.sh, Intel family 6 model 0xcf, +3 and random
 * placements), where Linux's memcpy_orig runs its loop. */
static const char copy_big_rep_good[] =
	"7:\tcmp $" K_REP_MOVSQ_FROM ", %rcx\n\tjb 10f\n"
	"\tmov %esi, %eax\n\tsub %edi, %eax\n\ttest $7, %al\n\tjnz 10f\n"
	"P(rep)\n\tmov -8(%rsi,%rcx), %rax\n\tmov %rax, -8(%rdi,%rcx)\n"
	"\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n"
	"\tmov 8(%rsi), %rax\n\tmov %rax, 8(%rdi)\n"
	"\tmov 16(%rsi), %rax\n\tmov %rax, 16(%rdi)\n"
	"\tmov 24(%rsi), %rax\n\tmov %rax, 24(%rdi)\n"
	"\tpush %rdx\n\tlea (%rdi,%rcx), %rdx\n\tmov %rdi, %rax\n"
	"\tadd $32, %rdi\n\tand $-32, %rdi\n\tsub %rdi, %rax\n\tsub %rax, %rsi\n"
	"\tmov %rdx, %rcx\n\tsub %rdi, %rcx\n\tshr $3, %rcx\n\trep movsq\n"
	"\tmov %rdx, %rcx\n\tsub %rdi, %rcx\n\tadd %rcx, %rsi\n"
	"\tmov %rdx, %rdi\n\txor %ecx, %ecx\n\tpop %rdx\n\tpop %rax\n\tRET\n";

/* The routines built from those parts, in order. */
static const char *const routine_parts[][5] = {
	{ "set_rep_good", set_head, set_big_rep_good, set_loop, "" },
	{ "set_orig", set_head, set_loop, "", "" },
	{ "copy_rep_good", copy_head, copy_big_rep_good, copy_loop, copy_fwd },
	{ "copy_orig", copy_head, copy_loop, copy_fwd, "" },
};

/* The routines of one piece.  Each preserves every register but its
 * operands (rdi, rcx, and rsi for copies) and flags. */
static const char *const routine_bodies[][2] = {
	/* ERMS: Linux's own memset_erms and memcpy_erms, which nothing
	 * measured beats there: a branch-free start the size mix cannot
	 * mispredict.  rep movsb is right for a destination below an
	 * overlapping source too. */
	{ "set_erms", "P(rep)\n\trep stosb\n\tRET\n" },
	{ "copy_erms", "P(rep)\n\trep movsb\n\tRET\n" },
	/* Forwards, for a destination below an overlapping source: each
	 * 16-byte block is loaded before it is stored. */
	{ "move_fwd",
	  "\tpush %rax\n\tpush %rdx\n\tcmp $16, %rcx\n\tjb 2f\n"
	  "P(16)\n"
	  "1:\tmov (%rsi), %rax\n\tmov 8(%rsi), %rdx\n"
	  "\tmov %rax, (%rdi)\n\tmov %rdx, 8(%rdi)\n"
	  "\tadd $16, %rsi\n\tadd $16, %rdi\n\tsub $16, %rcx\n"
	  "\tcmp $16, %rcx\n\tjae 1b\n"
	  "2:\ttest %rcx, %rcx\n\tjz 3f\n"
	  "P(1)\n"
	  "4:\tmov (%rsi), %al\n\tmov %al, (%rdi)\n\tinc %rsi\n\tinc %rdi\n"
	  "\tdec %rcx\n\tjnz 4b\n"
	  "3:\tpop %rdx\n\tpop %rax\n\tRET\n" },
	/* Backwards, for a destination inside the source's tail: rdi,
	 * rsi end where they began. */
	{ "move_back",
	  "\tpush %rax\n\tadd %rcx, %rsi\n\tadd %rcx, %rdi\n"
	  "1:\tcmp $8, %rcx\n\tjb 2f\n"
	  "P(8)\n\tsub $8, %rsi\n\tsub $8, %rdi\n"
	  "\tmov (%rsi), %rax\n\tmov %rax, (%rdi)\n\tsub $8, %rcx\n"
	  "\tjmp 1b\n"
	  "2:\ttest %rcx, %rcx\n\tjz 3f\n"
	  "P(1)\n\tdec %rsi\n\tdec %rdi\n"
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

/*
 * P(path) of routine: with kernel_paths, one more on the path's counter
 * (in .data), the flags kept (a path may start between a compare and
 * its branch), and a note of type K_NOTE_PATH that the kernel test
 * walks: s32 offset to the counter, then "routine:path".  Counters cost
 * a shared read-modify-write per call, so only a test build has them.
 */
static void emit_path(FILE *f, const char *routine, const char *path,
		      size_t len)
{
	unsigned descsz = 4 + strlen(routine) + 1 + len + 1;

	if (!kernel_paths)
		return;
	fprintf(f, "\tpushfq\n\tincq .Lrkp_%s_%.*s(%%rip)\n\tpopfq\n"
		"\t.pushsection .data\n\t.balign 8\n.Lrkp_%s_%.*s:\n"
		"\t.quad 0\n\t.popsection\n"
		"\t.pushsection .note.repstos,\"a\",@note\n\t.balign 4\n"
		"\t.long 8, %u, %d\n\t.asciz \"repstos\"\n"
		"\t.long .Lrkp_%s_%.*s - .\n\t.asciz \"%s:%.*s\"\n"
		"\t.balign 4\n\t.popsection\n",
		routine, (int)len, path, routine, (int)len, path, descsz,
		K_NOTE_PATH, routine, (int)len, path, routine, (int)len, path);
}

/* body, with RET and P(...) filled in */
static void emit_body(FILE *f, const char *name, const char *body)
{
	const char *ret = ret_spelling();

	for (const char *p = body; *p; p++) {
		if (!strncmp(p, "RET\n", 4)) {
			fprintf(f, "\t%s\n", ret);
			p += 3;
		} else if (!strncmp(p, "P(", 2)) {
			size_t len = strcspn(p + 2, ")");

			emit_path(f, name, p + 2, len);
			p += 2 + len + 1;	/* at the newline */
		} else {
			fputc(*p, f);
		}
	}
}

/* Each routine is 16-byte aligned with 16 bytes of NOPs before it: the
 * padding call-depth tracking (retbleed=stuff) writes its accounting
 * thunk into, as for the kernel's own functions (FUNCTION_PADDING),
 * without which it warns once and does not account the call. */
static void emit_function(FILE *f, const char *name, const char *const *body,
			  size_t pieces, bool global)
{
	fprintf(f, "\t.pushsection .noinstr.text,\"ax\",@progbits\n"
		"\t.p2align 4, 0x90\n\t.skip 16, 0x90\n");
	if (global)
		fprintf(f, "\t.globl __repstos_k_%s\n", name);
	fprintf(f, "\t.type __repstos_k_%s, @function\n__repstos_k_%s:\n",
		name, name);
	for (size_t i = 0; i < pieces; i++)
		emit_body(f, name, body[i]);
	fprintf(f, "\t.size __repstos_k_%s, .-__repstos_k_%s\n\t.popsection\n",
		name, name);
	emit_noendbr(f, name);
}

static void emit_routines(FILE *f, bool global)
{
	char name[32], body[200];
	const char *piece = body;

	fprintf(f, "# repstos kernel routines\n"
		"\t.pushsection .rodata,\"a\",@progbits\n\t.balign 8\n"
		".Lrk_ones:\n\t.quad 0x0101010101010101\n\t.popsection\n");
	for (size_t i = 0; i < ARRAY_SIZE(routine_parts); i++)
		emit_function(f, routine_parts[i][0], &routine_parts[i][1], 4,
			      global);
	for (size_t i = 0; i < ARRAY_SIZE(routine_bodies); i++)
		emit_function(f, routine_bodies[i][0], &routine_bodies[i][1],
			      1, global);
	for (size_t i = 0; i < ARRAY_SIZE(move_classes); i++) {
		snprintf(name, sizeof(name), "move_%s", move_classes[i]);
		snprintf(body, sizeof(body), "\tpush %%rax\n\tmov %%rdi, %%rax\n"
			 "\tsub %%rsi, %%rax\n\tcmp %%rcx, %%rax\n\tpop %%rax\n"
			 "\tjae 1f\nP(back)\n\tjmp __repstos_k_move_back\n"
			 "1:\nP(copy)\n\tjmp __repstos_k_copy_%s\n",
			 move_classes[i]);
		emit_function(f, name, &piece, 1, global);
	}
}

static void finish_unit(void *gcc_data, void *user_data)
{
	if (ix86_cmodel != CM_KERNEL || !asm_out_file || seen_error())
		return;
	if ((unit_is_module ? unit_sites != 0 : unit_defines_start_kernel) &&
	    ktree_usable())
		emit_routines(asm_out_file, !unit_is_module);
	if (unit_sites)
		fprintf(asm_out_file, "\t.pushsection .note.repstos,\"a\","
			"@note\n\t.balign 4\n\t.long 8, 0, %d\n"
			"\t.asciz \"repstos\"\n\t.popsection\n", K_NOTE_END);
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
