/* SPDX-License-Identifier: MIT */
/*
 * repstos-llvm.h - what the parts of the LLVM pass plugin share: LLVM's
 * headers (the one file that reads them), the site contract, the
 * options, the candidate each call becomes, and each part's entry
 * points.  The pass's work on a function, in order:
 *
 *	classify		which calls are candidates: the llvm.memset,
 *				llvm.memcpy and llvm.memmove intrinsics and
 *				the libcalls by name
 *	settle_op, settle_size	what is known of their op and size
 *	judge			whether each becomes a site: not where the
 *				backend would expand it inline
 *	read_back		whether its bytes are loaded soon after
 *	remark			-Rpass=repstos / -Rpass-missed=repstos
 *	rewrite			the site: the GCC plugin's asm, text,
 *				constraints and clobbers
 *
 * register_pipeline (pass.cc) says where in the pipeline it runs.
 */
#ifndef REPSTOS_LLVM_H
#define REPSTOS_LLVM_H

#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/Analysis/LazyValueInfo.h>
#include <llvm/Analysis/OptimizationRemarkEmitter.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <atomic>
#include <set>
#include <string>

/* The contract header is C; its C11 static assertions read as C++ ones. */
#define _Static_assert static_assert
#include "repstos_site.h"
#undef _Static_assert
/* Kernel mode's plain C, shared with the GCC plugin. */
#include "../kmode.h"

/* ---- Options (-mllvm -repstos-KEY[=VALUE]) ---------------------------- */

/* Sentinels: min-const left to the backend's line, no max-size. */
#define MIN_CONST_AUTO	(~0ULL)
#define MAX_SIZE_NONE	(~0ULL)

struct options {
	bool copy = false;	/* copy sites for the copy libcalls */
	unsigned long long max_size = MAX_SIZE_NONE;
	unsigned long long min_const = MIN_CONST_AUTO;
	std::vector<std::string> clear, memset, copy_fn, move_fn;
};

/* Kernel mode's options (-mllvm -repstos-kernel, -repstos-kernel-paths,
 * -repstos-kernel-inline-bit=N): the command line's, for every
 * function; kernel mode is not written for LTO. */
struct kernel_options {
	bool on;
	bool paths;		/* the routines count their paths */
	int inline_bit;		/* the bit that keeps a site inline, or -1 */
};

const struct kernel_options &kernel_options(void);

/* The attribute a pre-link compile records its options in (options.cc). */
#define OPTIONS_ATTR	"repstos-options"

/* Are the command line's options good?  If not, one error (the compile
 * fails) names the first bad one, and the pass makes nothing. */
bool options_check(llvm::LLVMContext &ctx);
/* The options for f's calls: those its pre-link compile recorded, else
 * the command line's. */
const struct options &options_for(const llvm::Function &f);
/* Record the command line's options on every function of m. */
bool record_options(llvm::Module &m);

/* ---- A candidate ------------------------------------------------------ */

/* One call the pass looked at and what it found out about it. */
struct candidate {
	llvm::CallInst *call;
	const char *what;	/* name used in remarks */
	bool intrinsic;		/* llvm.mem*: the backend may expand it */
	bool is_volatile;
	llvm::Value *dst;
	llvm::Value *src;	/* copies: the source, else null */
	llvm::Value *fill;	/* null: zero */
	llvm::Value *len;
	llvm::Value *objsz;	/* _chk forms: the object size, else null */
	bool returns_dst;	/* memset, memcpy, memmove (and helpers) return dst */
	bool returns_end;	/* mempcpy returns dst + len */
	enum repstos_op op;
	enum repstos_size_kind kind;
	unsigned long long min, max;
	std::string why_not;	/* reason to leave it alone, or "" */
	const char *fwd;	/* MOVE_FWD: the rule that proved it */
	bool read_back;		/* REPSTOS_USE_READ */
};

/* Fill c from the call, or return false if it is not one of ours. */
bool classify(llvm::CallInst *call, struct candidate *c);
/* A zeroing memset becomes ZERO, a memmove proven forwards MOVE_FWD. */
void settle_op(struct candidate *c);
/* What is known of the size: constant, a range, or nothing. */
void settle_size(struct candidate *c, llvm::LazyValueInfo *lvi);
/* Decide whether c becomes a site; say why not in c->why_not. */
void judge(struct candidate *c, const llvm::TargetTransformInfo &tti);
/* The -Rpass=repstos (or -Rpass-missed=repstos) remark on c. */
void remark(const struct candidate *c, llvm::OptimizationRemarkEmitter &ore);

/* Are some of the bytes c writes loaded after it (REPSTOS_USE_READ)? */
bool read_back(const struct candidate *c);

/* ---- The site --------------------------------------------------------- */

/*
 * The link sites share (REPSTOS_ENTRY_IN): a label in their function's
 * text section, defined by the first site there, one per function (the
 * number the pass gives it).  The GCC plugin links per text section,
 * renamed just before final; an IR pass does not know the sections
 * (-ffunction-sections is not in the IR), but every instruction of a
 * function lands in the function's section, and nothing copies one into
 * another function after this pass.
 */
#define LINK_FN		".Lrepstos_link_f"

/* Replace c->call by a site in function number fn. */
void rewrite(struct candidate *c, unsigned fn);

/* Does f's target-features attribute turn feature ("avx") on? */
bool feature_on(const llvm::Function &f, llvm::StringRef feature);

/* Why no site may be made in f at all (a sanitizer, no SSE), or null. */
const char *function_conflict(const llvm::Function &f);

/* ---- Kernel mode (kernel.cc) ------------------------------------------ */

/* Is m -mcmodel=kernel code? */
bool kernel_code_model(const llvm::Module &m);
/* Why no kernel-mode site may replace c's call, or null. */
const char *kernel_conflict(const struct candidate *c);
/* The kernel-mode site of c before b's point; returns rdi after it. */
llvm::Value *kernel_site(llvm::IRBuilder<> &b, const struct candidate *c,
			 llvm::Value *len, llvm::Value *third);
/* The routines and the end note a unit of sites sites carries. */
void kernel_finish(llvm::Module &m, unsigned sites);

#endif /* REPSTOS_LLVM_H */
