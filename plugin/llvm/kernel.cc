// SPDX-License-Identifier: MIT
/*
 * kernel.cc - the pass's kernel mode, -mllvm -repstos-kernel: the GCC
 * plugin's kernel mode (plugin/kernel.c) from clang.  Each call that
 * becomes a site becomes the same asm, entries and note, written by the
 * same C (plugin/ktext.c) for the same tree (plugin/ktree.c), so that
 * `repstos check` and `dump` and the kernel test read a clang kernel as
 * they read a GCC one.  What is LLVM's own here:
 *
 *  - the tree is read from the compile's command line (/proc/self/cmdline):
 *    an IR module does not know the -I directories its unit was
 *    preprocessed with, and clang runs cc1 in the driver's process (or
 *    spawns one with the same -I and -D words); -DMODULE says a module
 *    unit, as the preprocessor's MODULE says it to the GCC plugin;
 *  - the user-access window is the same stac/clac analysis over the
 *    IR's blocks, reading each inline asm's text;
 *  - the routines are module-level asm, which LLVM writes before the
 *    functions, and the note that ends the unit's notes is a global in
 *    .note.repstos, which it writes after them (the kernel test walks a
 *    module's notes from its own label to that end note);
 *  - ASM_CALL_CONSTRAINT: where the unit names rsp as a register
 *    variable (the kernel's current_stack_pointer, which clang records
 *    as llvm.named.register.rsp), the site reads and writes it as clang
 *    writes the kernel's own asm calls, so that the frame is set up
 *    before it in frame-pointer builds.
 */
#include "repstos-llvm.h"

#include <fstream>
#include <mutex>

using namespace llvm;

/* ---- The unit's command line ------------------------------------------ */

struct unit_words {
	std::vector<std::string> dirs;	/* -I and -isystem, in order */
	bool module = false;		/* -DMODULE */
};

/* The word after a flag spelt apart ("-I" "dir") or joined ("-Idir"). */
static bool flag_value(const std::vector<std::string> &argv, size_t *i,
		       const char *flag, std::string *value)
{
	const std::string &a = argv[*i];
	size_t n = strlen(flag);

	if (a.compare(0, n, flag))
		return false;
	if (a.size() > n) {
		*value = a.substr(n);
		return true;
	}
	if (*i + 1 >= argv.size())
		return false;
	*value = argv[++*i];
	return true;
}

static unit_words read_unit_words(void)
{
	std::ifstream in("/proc/self/cmdline", std::ios::binary);
	std::vector<std::string> argv;
	std::string word, v;
	unit_words w;

	while (std::getline(in, word, '\0'))
		argv.push_back(word);
	for (size_t i = 0; i < argv.size(); i++) {
		if (flag_value(argv, &i, "-isystem", &v) ||
		    flag_value(argv, &i, "-I", &v))
			w.dirs.push_back(v);
		else if (flag_value(argv, &i, "-D", &v))
			w.module |= v == "MODULE" || !v.compare(0, 7, "MODULE=");
		else if (flag_value(argv, &i, "-U", &v) && v == "MODULE")
			w.module = false;
	}
	return w;
}

static const unit_words &unit(void)
{
	static const unit_words w = read_unit_words();

	return w;
}

/* ---- The tree --------------------------------------------------------- */

static const struct ktree &tree(void)
{
	static struct ktree kt;
	static std::once_flag once;

	std::call_once(once, [] {
		std::vector<const char *> dirs;

		for (const std::string &d : unit().dirs)
			dirs.push_back(d.c_str());
		dirs.push_back(nullptr);
		ktree_read(&kt, dirs.data());
	});
	return kt;
}

/* The unit's struct alt_instr, where its code uses one, against the
 * tree's: the GCC plugin's cross-check, by size (the IR keeps no field
 * names, nor a type no code uses).  "" when they agree. */
static std::string layout_mismatch(const Module &m)
{
	StructType *t = StructType::getTypeByName(m.getContext(),
						  "struct.alt_instr");

	if (!t || t->isOpaque() ||
	    m.getDataLayout().getTypeAllocSize(t) == tree().alt_size)
		return "";
	return "repstos: this unit's 'struct alt_instr' is not the " +
	       std::to_string(tree().alt_size) + "-byte one of " +
	       tree().header + ", which kernel mode writes: it knows Linux "
	       "5.13 to 7.x (12 bytes to 6.2, 's32 instr_offset, s32 "
	       "repl_offset, u16 cpuid, u8 instrlen, u8 replacementlen'; 14 "
	       "bytes from 6.3, 'u32 ft_flags' for 'cpuid')";
}

/* Can kernel mode write for m's tree?  If not, one error says why. */
static bool tree_usable(const Module &m)
{
	static std::atomic<bool> said;
	std::string why = tree().error ? "" : layout_mismatch(m);
	char *msg;

	if (!tree().error && why.empty())
		return true;
	if (!said.exchange(true)) {
		if (why.empty()) {
			msg = ktree_error_text(&tree());
			why = msg;
			free(msg);
		}
		m.getContext().emitError(why);
	}
	return false;
}

bool kernel_code_model(const Module &m)
{
	return m.getCodeModel() && *m.getCodeModel() == CodeModel::Kernel;
}

/* ---- Where sites may go ----------------------------------------------- */

/* i's asm text, or null where i is no inline asm. */
static const char *asm_text(const Instruction &i)
{
	const CallBase *cb = dyn_cast<CallBase>(&i);
	const InlineAsm *as = cb ? dyn_cast<InlineAsm>(cb->getCalledOperand())
				 : nullptr;

	return as ? as->getAsmString().c_str() : nullptr;
}

/* The window's state after i, from open before it. */
static bool ac_after(const Instruction &i, bool open)
{
	const char *text = asm_text(i);

	return text ? kac_after(text, open) : open;
}

/*
 * The blocks the window may be open on entry to: a forward
 * may-analysis over the CFG to its fixed point, closed at the entry (no
 * function is entered or left with it open: objtool holds the kernel to
 * that).  A site goes only where the window is closed on every path,
 * which is what objtool checks of a call.
 */
static std::set<const BasicBlock *> open_blocks(const Function &f)
{
	std::set<const BasicBlock *> open_in;
	bool changed = true;

	while (changed) {
		changed = false;
		for (const BasicBlock &bb : f) {
			bool open = open_in.count(&bb);

			for (const Instruction &i : bb)
				open = ac_after(i, open);
			if (!open)
				continue;
			for (const BasicBlock *s : successors(&bb))
				changed |= open_in.insert(s).second;
		}
	}
	return open_in;
}

/* May the user-access window be open at call?  The analysis is made
 * once per function, for functions that open it at all. */
static bool in_uaccess_window(const CallInst *call)
{
	static const Function *seen;
	static std::set<const BasicBlock *> open_in;
	const Function *f = call->getFunction();
	const BasicBlock *bb = call->getParent();
	bool open;

	if (seen != f) {
		bool any = false;

		seen = f;
		for (const Instruction &i : instructions(f))
			any |= asm_text(i) && kac_effect(asm_text(i)) == KAC_OPEN;
		open_in = any ? open_blocks(*f) : std::set<const BasicBlock *>();
	}
	open = open_in.count(bb);
	for (const Instruction &i : *bb) {
		if (&i == call)
			break;
		open = ac_after(i, open);
	}
	return open;
}

const char *kernel_conflict(const struct candidate *c)
{
	const Function &f = *c->call->getFunction();
	const Module &m = *f.getParent();
	const char *why;

	why = kconflict_unit(kernel_code_model(m),
			     !kernel_code_model(m) || tree_usable(m),
			     m.getSourceFileName().c_str());
	if (!why)
		why = kconflict_function(f.hasSection() ?
					 f.getSection().data() : nullptr,
					 c->objsz != nullptr);
	if (!why && in_uaccess_window(c->call))
		why = kconflict_uaccess;
	return why;
}

/* ---- The site --------------------------------------------------------- */

/*
 * The site: rdi = dst, rcx = len and rax = the fill byte (an input
 * only: the routines give it back), or rsi = src, as the GCC plugin's
 * kernel_build_site(); rdi, rcx (and rsi) come back advanced.  Returns
 * rdi after it, dst + len.
 */
Value *kernel_site(IRBuilder<> &b, const struct candidate *c, Value *len,
		   Value *third)
{
	const Function &f = *c->call->getFunction();
	Module *m = c->call->getModule();
	bool copy = repstos_op_is_copy(c->op);
	MDNode *rsp = nullptr;
	struct ksite s = { c->op, c->kind, c->min, c->max,
			   f.getCallingConv() == CallingConv::X86_INTR,
			   kernel_options().inline_bit, "${:uid}" };
	std::string cons = copy ? "={di},={cx},={si}" : "={di},={cx}";
	std::vector<Type *> outs = { c->dst->getType(), b.getInt64Ty() };
	std::vector<Value *> args = { c->dst, len, third };
	std::vector<Type *> ins;
	char *text = ksite_text(&tree(), &s);
	FunctionType *ty;
	CallInst *site;

	if (copy)
		outs.push_back(third->getType());
	if (m->getNamedMetadata("llvm.named.register.rsp")) {
		rsp = MDNode::get(m->getContext(),
				  MDString::get(m->getContext(), "rsp"));
		outs.push_back(b.getInt64Ty());
		cons += ",={rsp}";
	}
	cons += copy ? ",0,1,2" : ",0,1,{ax}";
	if (rsp) {
		args.push_back(b.CreateIntrinsic(Intrinsic::read_register,
			{ b.getInt64Ty() },
			{ MetadataAsValue::get(m->getContext(), rsp) }));
		cons += ",{rsp}";
	}
	cons += ",~{memory},~{dirflag},~{fpsr},~{flags}";
	for (Value *a : args)
		ins.push_back(a->getType());
	ty = FunctionType::get(StructType::get(m->getContext(), outs), ins,
			       false);
	site = b.CreateCall(ty, InlineAsm::get(ty, text, cons, true, false,
					       InlineAsm::AD_ATT), args);
	free(text);
	site->addFnAttr(Attribute::NoUnwind);
	site->setDebugLoc(c->call->getDebugLoc());
	if (rsp)
		b.CreateIntrinsic(Intrinsic::write_register, { b.getInt64Ty() },
				  { MetadataAsValue::get(m->getContext(), rsp),
				    b.CreateExtractValue(site, outs.size() - 1) });
	return b.CreateExtractValue(site, 0);
}

/* ---- The end of the unit ---------------------------------------------- */

/* The first function defined in m, or start_kernel when m defines it:
 * what its RET and SLS read from. */
static const Function *unit_function(const Module &m, bool *start_kernel)
{
	const Function *sk = m.getFunction("start_kernel");

	*start_kernel = sk && !sk->isDeclaration();
	if (*start_kernel)
		return sk;
	for (const Function &f : m)
		if (!f.isDeclaration())
			return &f;
	return nullptr;
}

/* The routines, as the build spells RET, with NOENDBR annotations
 * under IBT (one error where the tree names no section for them). */
static void add_routines(Module &m, const Function &f, bool global)
{
	const Metadata *thunk = m.getModuleFlag("function_return_thunk_extern");
	const Metadata *ibt = m.getModuleFlag("cf-protection-branch");
	struct kroutines r = {
		global,
		kret(f.hasFnAttribute(Attribute::FnRetThunkExtern) ||
		     (thunk && !mdconst::extract<ConstantInt>(thunk)->isZero()),
		     feature_on(f, "harden-sls-ret")),
		ibt && !mdconst::extract<ConstantInt>(ibt)->isZero(),
		kernel_options().paths
	};
	char *text;

	if (r.ibt && !tree().annotate)
		m.getContext().emitError(ktree_no_annotate);
	text = kroutines_text(&tree(), &r);
	m.appendModuleInlineAsm(text);
	free(text);
}

/* The note that ends the unit's notes (kend_note_text's bytes): a
 * global, since LLVM writes globals after the functions, and module
 * asm before them. */
static void add_end_note(Module &m)
{
	LLVMContext &ctx = m.getContext();
	Type *i32 = Type::getInt32Ty(ctx);
	Constant *fields[] = {
		ConstantInt::get(i32, 8), ConstantInt::get(i32, 0),
		ConstantInt::get(i32, K_NOTE_END),
		ConstantDataArray::getString(ctx, "repstos", true),
	};
	Constant *note = ConstantStruct::getAnon(fields);
	GlobalVariable *g = new GlobalVariable(m, note->getType(), true,
		GlobalValue::PrivateLinkage, note, ".Lrepstos_end_note");

	g->setSection(".note.repstos");
	g->setAlignment(Align(4));
	appendToCompilerUsed(m, { g });
}

/* The routines where the unit is vmlinux's start_kernel's or a module
 * unit with sites, the end note after any sites; the tree is asked
 * (and its error given) only then, as the GCC plugin asks it. */
void kernel_finish(Module &m, unsigned sites)
{
	bool start_kernel;
	const Function *f = unit_function(m, &start_kernel);
	bool routines = unit().module ? sites != 0 : start_kernel;

	if (!kernel_code_model(m) || !f || (!routines && !sites) ||
	    !tree_usable(m))
		return;
	if (routines)
		add_routines(m, *f, !unit().module);
	if (sites)
		add_end_note(m);
}
