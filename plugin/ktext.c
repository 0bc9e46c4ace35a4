// SPDX-License-Identifier: MIT
/*
 * ktext.c - the text kernel mode writes, the same from GCC and clang
 * (kmode.h): each site as an entry group in the kernel's own
 * .altinstructions, which apply_alternatives() patches at boot (the
 * module loader for a module), in the priority list of 6.1's
 * __clear_user():
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
 * Beside each site, a note in .note.repstos (name "repstos", type 1):
 * s32 offset to the site's first alt_instr, u8 op, u8 size kind, u8
 * entry count, u8 the entries' size (12 or 14: their layout), u32 min,
 * u32 max; the kernel links .note.* into its .notes, and `repstos dump`
 * and the kernel test read it.  It points at the table, not the text:
 * objtool's IBT check takes a data reference to an instruction for a
 * branch target.  A unit's notes end in a type 2 note.
 *
 * Then the routines (below), which a unit writes at its end, and where
 * no site may go, which each compiler asks of its own code.
 *
 * Plain C: compiled into the GCC plugin and the LLVM pass alike.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmode.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- Where sites may go --------------------------------------------- */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/*
 * Not -mcmodel=kernel: the vDSO, boot or purgatory code, which the
 * routines cannot serve.  arch/x86/kernel/alternative.c: the patcher
 * itself, which writes text while it runs (text_poke_early() copies
 * with memcpy, and would rewrite its own site mid-copy).
 */
const char *kconflict_unit(bool kcmodel, bool tree_ok, const char *source)
{
	if (!kcmodel)
		return "kernel mode: not -mcmodel=kernel (vDSO, boot or "
		       "purgatory code)";
	if (!tree_ok)
		return "kernel mode: unknown struct alt_instr";
	if (source && ends_with(source, "arch/x86/kernel/alternative.c"))
		return "kernel mode: the alternatives patcher itself";
	return NULL;
}

/*
 * Functions in .head.text (__head: run once from the identity map
 * before the kernel is at its link address) never run patched.  The
 * kernel has no __chk_fail for a _chk form's check.
 */
const char *kconflict_function(const char *section, bool chk_form)
{
	if (section && !strcmp(section, ".head.text"))
		return "kernel mode: .head.text runs before patching only";
	if (chk_form)
		return "kernel mode: a _chk form (the kernel has no __chk_fail)";
	return NULL;
}

const char kconflict_uaccess[] =
	"kernel mode: in a user-access window (stac/clac)";

/*
 * What an asm does to EFLAGS.AC, the user-access window: the kernel
 * spells stac and clac as bytes (__ASM_STAC, __ASM_CLAC in smap.h), and
 * smap_restore() pops the flags user_access_save() pushed, which may
 * open it again.  Text that may open it counts as opening ("stac" also
 * matches "stack": a site less, never one too many).
 */
enum kac_effect kac_effect(const char *text)
{
	if (strstr(text, "0x0f,0x01,0xcb") || strstr(text, "stac") ||
	    strstr(text, "popf"))
		return KAC_OPEN;
	if (strstr(text, "0x0f,0x01,0xca") || strstr(text, "clac"))
		return KAC_CLOSE;
	return KAC_KEEP;
}

bool kac_after(const char *text, bool open)
{
	switch (kac_effect(text)) {
	case KAC_OPEN:
		return true;
	case KAC_CLOSE:
		return false;
	default:
		return open;
	}
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
	if (vasprintf(&more, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (asprintf(&joined, "%s%s", *buf, more) < 0)
		abort();
	free(*buf);
	free(more);
	*buf = joined;
}

/* One alt_instr, ALT_NOT(feature), in the tree's layout, and its
 * replacement `call fn`. */
static void alt_entry(const struct ktree *t, char **head, char **repl, int n,
		      unsigned feature, const char *fn)
{
	append(head, "\t.long .Lrk%%= - .\n\t.long .Lrk%%=_r%d - .\n"
	       "\t%s %#x\n\t.byte .Lrk%%=_e - .Lrk%%=\n"
	       "\t.byte .Lrk%%=_r%de - .Lrk%%=_r%d\n", n,
	       t->alt_size == 14 ? ".long" : ".word", feature | t->alt_not,
	       n, n);
	append(repl, ".Lrk%%=_r%d:\n\tcall %s\n.Lrk%%=_r%de:\n", n, fn, n);
}

/* The bit whose presence keeps a site of op inline. */
static unsigned fast_bit(const struct ktree *t, const struct ksite *s)
{
	if (s->inline_bit >= 0)
		return s->inline_bit;
	return !repstos_op_is_copy(s->op) && t->fsrs ? t->fsrs : t->fsrm;
}

/* text with every %= (GCC's spelling, which the text is written in)
 * spelt uid instead; text is freed. */
static char *spell_uid(char *text, const char *uid)
{
	char *out = strdup(""), *p = text, *at;

	if (!strcmp(uid, "%="))
		return text;
	while ((at = strstr(p, "%="))) {
		append(&out, "%.*s%s", (int)(at - p), p, uid);
		p = at + 2;
	}
	append(&out, "%s", p);
	free(text);
	return out;
}

char *ksite_text(const struct ktree *t, const struct ksite *s)
{
	enum repstos_op op = s->op;
	const char *fam = op_family(op);
	bool inl = op != REPSTOS_OP_MOVE;
	char *text = strdup(s->cld ? "cld\n.Lrk%=:\n" : ".Lrk%=:\n");
	char *head = strdup(""), *repl = strdup("");
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
		alt_entry(t, &head, &repl, ++n, fast_bit(t, s), fn);
	}
	snprintf(fn, sizeof(fn), "__repstos_k_%s_rep_good", fam);
	alt_entry(t, &head, &repl, ++n, t->erms, fn);
	snprintf(fn, sizeof(fn), "__repstos_k_%s_orig", fam);
	alt_entry(t, &head, &repl, ++n, t->rep_good, fn);

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
	       K_NOTE_SITE, (int)op, (int)s->kind, n, (int)t->alt_size, s->min,
	       s->max);
	free(head);
	free(repl);
	return spell_uid(text, s->uid);
}

#define K_STR(x)	#x
#define K_XSTR(x)	K_STR(x)

const char kend_note_text[] =
	"\t.pushsection .note.repstos,\"a\",@note\n\t.balign 4\n"
	"\t.long 8, 0, " K_XSTR(K_NOTE_END) "\n\t.asciz \"repstos\"\n"
	"\t.popsection\n";

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

const char *kret(bool thunk_extern, bool harden_sls)
{
	if (thunk_extern)
		return "jmp __x86_return_thunk";
	if (harden_sls)
		return "ret\n\tint3";
	return "ret";
}

/* What the routines are written for, while kroutines_text() runs. */
struct kwriter {
	FILE *f;
	const struct ktree *t;
	const struct kroutines *r;
};

/* Under IBT: called directly only, never through a pointer; as the
 * kernel's ANNOTATE_NOENDBR says of such code, in the section the tree's
 * objtool reads, so that taking the address (the kernel test compares
 * it) is no objtool warning.  A tree that names none is the caller's
 * error to give (ktree_no_annotate). */
static void emit_noendbr(const struct kwriter *w, const char *name)
{
	const struct ktree *t = w->t;

	if (!w->r->ibt || !t->annotate)
		return;
	if (!strcmp(t->annotate, ".discard.annotate_insn"))
		fprintf(w->f, "\t.pushsection .discard.annotate_insn,\"M\","
			"@progbits,8\n\t.long __repstos_k_%s - ., %d\n"
			"\t.popsection\n", name, t->noendbr_type);
	else
		fprintf(w->f, "\t.pushsection %s\n\t.quad __repstos_k_%s\n"
			"\t.popsection\n", t->annotate, name);
}

/*
 * P(path) of routine: with paths, one more on the path's counter (in
 * .data), the flags kept (a path may start between a compare and its
 * branch), and a note of type K_NOTE_PATH that the kernel test walks:
 * s32 offset to the counter, then "routine:path".  Counters cost a
 * shared read-modify-write per call, so only a test build has them.
 */
static void emit_path(const struct kwriter *w, const char *routine,
		      const char *path, size_t len)
{
	unsigned descsz = 4 + strlen(routine) + 1 + len + 1;

	if (!w->r->paths)
		return;
	fprintf(w->f, "\tpushfq\n\tincq .Lrkp_%s_%.*s(%%rip)\n\tpopfq\n"
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
static void emit_body(const struct kwriter *w, const char *name,
		      const char *body)
{
	for (const char *p = body; *p; p++) {
		if (!strncmp(p, "RET\n", 4)) {
			fprintf(w->f, "\t%s\n", w->r->ret);
			p += 3;
		} else if (!strncmp(p, "P(", 2)) {
			size_t len = strcspn(p + 2, ")");

			emit_path(w, name, p + 2, len);
			p += 2 + len + 1;	/* at the newline */
		} else {
			fputc(*p, w->f);
		}
	}
}

/* Each routine is 16-byte aligned with 16 bytes of NOPs before it: the
 * padding call-depth tracking (retbleed=stuff) writes its accounting
 * thunk into, as for the kernel's own functions (FUNCTION_PADDING),
 * without which it warns once and does not account the call. */
static void emit_function(const struct kwriter *w, const char *name,
			  const char *const *body, size_t pieces)
{
	fprintf(w->f, "\t.pushsection .noinstr.text,\"ax\",@progbits\n"
		"\t.p2align 4, 0x90\n\t.skip 16, 0x90\n");
	if (w->r->global)
		fprintf(w->f, "\t.globl __repstos_k_%s\n", name);
	fprintf(w->f, "\t.type __repstos_k_%s, @function\n__repstos_k_%s:\n",
		name, name);
	for (size_t i = 0; i < pieces; i++)
		emit_body(w, name, body[i]);
	fprintf(w->f, "\t.size __repstos_k_%s, .-__repstos_k_%s\n"
		"\t.popsection\n", name, name);
	emit_noendbr(w, name);
}

char *kroutines_text(const struct ktree *t, const struct kroutines *r)
{
	char name[32], body[200], *text = NULL;
	const char *piece = body;
	size_t size;
	struct kwriter w = { open_memstream(&text, &size), t, r };

	if (!w.f)
		abort();
	fprintf(w.f, "# repstos kernel routines\n"
		"\t.pushsection .rodata,\"a\",@progbits\n\t.balign 8\n"
		".Lrk_ones:\n\t.quad 0x0101010101010101\n\t.popsection\n");
	for (size_t i = 0; i < ARRAY_SIZE(routine_parts); i++)
		emit_function(&w, routine_parts[i][0], &routine_parts[i][1], 4);
	for (size_t i = 0; i < ARRAY_SIZE(routine_bodies); i++)
		emit_function(&w, routine_bodies[i][0], &routine_bodies[i][1],
			      1);
	for (size_t i = 0; i < ARRAY_SIZE(move_classes); i++) {
		snprintf(name, sizeof(name), "move_%s", move_classes[i]);
		snprintf(body, sizeof(body), "\tpush %%rax\n\tmov %%rdi, %%rax\n"
			 "\tsub %%rsi, %%rax\n\tcmp %%rcx, %%rax\n\tpop %%rax\n"
			 "\tjae 1f\nP(back)\n\tjmp __repstos_k_move_back\n"
			 "1:\nP(copy)\n\tjmp __repstos_k_copy_%s\n",
			 move_classes[i]);
		emit_function(&w, name, &piece, 1);
	}
	fclose(w.f);
	return text;
}
