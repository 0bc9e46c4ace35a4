/* SPDX-License-Identifier: MIT */
/*
 * plugin.h - what the parts of the repstos GCC plugin share: the GCC
 * headers, the site contract, the options, the candidate each call
 * becomes, and each part's entry points.  The plugin's work, in the
 * order a unit meets it:
 *
 *	parse_args		the -fplugin-arg-repstos-* options
 *	repstos_execute		the GIMPLE pass after "optimized":
 *	  classify		  which calls are candidates, and what
 *	  settle_op, settle_size  is known of their op and size,
 *	  judge			  whether each becomes a site,
 *	  read_back		  whether its bytes are read back,
 *	  remark		  the verbose note,
 *	  rewrite		  the site asm and its checks (FORTIFY,
 *				  ASan), or kernel_build_site in kernel mode
 *	link_sections		the RTL pass before "final": each site's
 *				table entry linked to its text section
 *
 * plugin_init registers both passes.  The site user space gets is
 * defined in include/repstos_site.h; kernel mode's in kernel_build_site.
 */
#ifndef REPSTOS_PLUGIN_H
#define REPSTOS_PLUGIN_H

#include "gcc-compat.h"

/* The contract header is C; its C11 static assertions read as C++ ones. */
#define _Static_assert static_assert
#include "repstos_site.h"
#undef _Static_assert
#include "kmode.h"

/* ---- Options -------------------------------------------------------- */

/* Sentinels for the numeric options: min-const=auto, no max-size. */
#define MIN_CONST_AUTO	(~0ULL)
#define MAX_SIZE_NONE	(~0ULL)

struct plugin_options {
	bool verbose;
	bool copy;		/* copy sites for the copy builtins */
	unsigned long long min_const;
	unsigned long long max_size;
	vec<const char *> clear_names;
	vec<const char *> memset_names;
	vec<const char *> copy_names;
	vec<const char *> move_names;
};

extern struct plugin_options opt;
extern struct plugin_info repstos_plugin_info;

/* Every -fplugin-arg-repstos-KEY[=VALUE] into opt (kernel mode's by
 * kernel_option); false, with a GCC error each, on a bad one. */
bool parse_args(const struct plugin_name_args *info);

/* ---- A candidate ---------------------------------------------------- */

/* One call the pass looked at and what it found out about it: a call,
 * or an aggregate copy or clear that RTL expansion turns into one. */
struct candidate {
	gimple *stmt;		/* the gcall, or the aggregate's gassign */
	tree fndecl;		/* the function it calls (aggregates: GCC's
				 * libcall, memcpy or memset) */
	bool aggregate;		/* an aggregate copy or clear, no call yet */
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

/* Fill c from the statement (a call, or an aggregate copy or clear GCC
 * would expand into a call), or return false if it is not one of ours. */
bool classify(gimple *stmt, struct candidate *c);
/* Split `g = f ()`, a struct returned through a temporary GCC copies,
 * into the call and an aggregate copy classify() takes; true if so. */
bool split_result_copy(gimple *stmt);
/* A zeroing memset becomes ZERO, a memmove proven forwards MOVE_FWD. */
void settle_op(struct candidate *c);
/* What the compiler knows of the size: constant, a range, or nothing. */
void settle_size(struct candidate *c);
/* Decide whether c becomes a site; say why not in c->why_not. */
void judge(struct candidate *c);
/* The verbose note on c (-fplugin-arg-repstos-verbose). */
void remark(const struct candidate *c);

/* Are some of the bytes c writes loaded after it (REPSTOS_USE_READ)? */
bool read_back(const struct candidate *c);

/* ---- The site ------------------------------------------------------- */

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

/* A list of register names, as asm clobbers take them. */
struct reg_list {
	const char *const *regs;
	size_t n;
};

#define REG_LIST(a)	{ a, ARRAY_SIZE(a) }

/* The registers a user-space site of c clobbers here, into lists[3]. */
unsigned site_clobber_lists(const struct candidate *c,
			    struct reg_list *lists);

/* The operands and clobbers of a site's asm as they are built, and the
 * two outputs every site has: rdi and rcx. */
struct site_operands {
	vec<tree, va_gc> *in, *out, *clob;
	tree d, n;
};

tree asm_operand(const char *constraint, tree value);
tree asm_clobber(const char *reg);
/* rdi = dst, rcx = len and the clobbers every site has, into ops. */
void site_begin(struct site_operands *ops, tree dst, tree len);
/* The volatile asm of text (freed) and ops; *end is its rdi output. */
gasm *site_finish(struct site_operands *ops, char *text, tree *end);

/* Replace c->stmt by a site; true if new calls were added. */
bool rewrite(struct candidate *c);

/* The checks' functions, for PLUGIN_REGISTER_GGC_ROOTS. */
extern const struct ggc_root_tab check_ggc_roots[];

/* ---- Kernel mode ---------------------------------------------------- */

extern bool kernel_mode;

/* Parse one -fplugin-arg-repstos-KEY[=VALUE]; false if KEY is not a
 * kernel-mode option.  Clears *ok on a bad value. */
bool kernel_option(const char *key, const char *value, bool *ok);

/* Register kernel mode's callbacks (alt_instr check, routines). */
void kernel_register(const char *plugin_name);

/* Why no site may replace c's call here, or NULL. */
const char *kernel_conflict(const struct candidate *c);

/* The site asm for c: rdi = dst, rcx = len and rax = fill, or rsi =
 * src for copies; *end is rdi after it (dst + len). */
gasm *kernel_build_site(const struct candidate *c, tree len, tree fill,
			tree *end);

/* What kernel mode must know of the tree the unit is built in, read
 * once from its headers (struct ktree: kmode.h). */
const struct ktree *ktree(void);
/* Is the tree one kernel mode knows?  If not, one GCC error says why. */
bool ktree_usable(void);

#endif /* REPSTOS_PLUGIN_H */
