// SPDX-License-Identifier: MIT
/*
 * rewrite.cc - a candidate made a site: the call replaced by the inline
 * asm the GCC plugin emits (rewrite() in plugin/), byte for byte once
 * assembled: `call __repstos_stub` (or __repstos_copy_stub) and a
 * SHF_LINK_ORDER entry in the site table, from the contract's
 * REPSTOS_SITE_IN / REPSTOS_COPY_SITE_IN.  rdi, rcx and rax (a copy:
 * rsi) are tied in/out operands; the asm has side effects, clobbers
 * memory, the flags and REPSTOS_SITE_CLOBBERS (REPSTOS_COPY_CLOBBERS),
 * in AVX code the vector file as well (the vector-state rule of
 * repstos_site.h).  The function gets noredzone: the `call` in the asm
 * writes below rsp, which no constraint can tell LLVM.
 *
 * Before the site of a _chk form goes FORTIFY's length check, as the
 * GCC plugin emits it.  read_back() gives the entry's use mark, as the
 * GCC plugin's does.
 */
#include "repstos-llvm.h"

#include <set>

using namespace llvm;

/* ---- The use mark ----------------------------------------------------- */

/* How far read_back looks: instructions and blocks after the site. */
#define USE_INSNS	64
#define USE_BLOCKS	16

/* Does i load from the object c writes?  Same underlying object: an
 * alloca, a global, or the pointer the destination was derived from. */
static bool loads_from(const Instruction &i, const Value *obj)
{
	const LoadInst *ld = dyn_cast<LoadInst>(&i);

	return ld && getUnderlyingObject(ld->getPointerOperand()) == obj;
}

/* Does control leave the function's own code at i (a call out, a
 * return), where the bytes may go cold or to another routine? */
static bool leaves(const Instruction &i)
{
	const CallBase *cb = dyn_cast<CallBase>(&i);

	if (isa<ReturnInst>(i) || isa<UnreachableInst>(i))
		return true;
	return cb && !isa<DbgInfoIntrinsic>(cb) &&
	       !cb->isLifetimeStartOrEnd();
}

/*
 * Are some of the bytes c writes loaded soon after it, before the
 * function calls out or returns?  Looks USE_INSNS instructions along
 * the block of the site and up to USE_BLOCKS blocks after it.
 */
bool read_back(const struct candidate *c)
{
	const Value *obj = getUnderlyingObject(c->dst);
	SmallVector<const BasicBlock *, USE_BLOCKS> todo;
	std::set<const BasicBlock *> seen;
	unsigned insns = 0;
	const Instruction *from = c->call->getNextNode();

	todo.push_back(c->call->getParent());
	while (!todo.empty() && seen.size() < USE_BLOCKS) {
		const BasicBlock *bb = todo.pop_back_val();
		bool stopped = false;

		if (!from && !seen.insert(bb).second)
			continue;
		for (const Instruction *i = from ? from : &bb->front(); i;
		     i = i->getNextNode()) {
			if (++insns > USE_INSNS)
				return false;
			if (loads_from(*i, obj))
				return true;
			if (leaves(*i)) {
				stopped = true;
				break;
			}
		}
		if (from)
			seen.insert(bb);
		from = nullptr;
		if (!stopped)
			for (const BasicBlock *s : successors(bb))
				todo.push_back(s);
	}
	return false;
}

/* ---- The site --------------------------------------------------------- */

static const char *const site_clobbers[] = { REPSTOS_SITE_CLOBBERS };
static const char *const copy_clobbers[] = { REPSTOS_COPY_CLOBBERS };
static const char *const avx_clobbers[] = { REPSTOS_SITE_CLOBBERS_AVX };
static const char *const avx512_clobbers[] = { REPSTOS_SITE_CLOBBERS_AVX512 };

/* The site's constraint string: its operands, then every clobber once,
 * the registers of the contract's lists as ~{reg}.  clang adds
 * ~{dirflag},~{fpsr},~{flags} to every x86 asm ("cc" is ~{flags}). */
static std::string constraints(const struct candidate *c)
{
	const Function &f = *c->call->getFunction();
	bool copy = repstos_op_is_copy(c->op);
	std::string s = copy ? "={di},={cx},={si},0,1,2" :
			       "={di},={cx},={ax},0,1,2";
	std::set<std::string> done;
	auto add = [&](const char *const *regs, size_t n) {
		for (size_t i = 0; i < n; i++)
			if (done.insert(regs[i]).second)
				s += std::string(",~{") + regs[i] + "}";
	};

	s += ",~{memory},~{dirflag},~{fpsr},~{flags}";
	if (copy)
		add(copy_clobbers, std::size(copy_clobbers));
	else
		add(site_clobbers, std::size(site_clobbers));
	if (feature_on(f, "avx"))
		add(avx_clobbers, std::size(avx_clobbers));
	if (feature_on(f, "avx512f"))
		add(avx512_clobbers, std::size(avx512_clobbers));
	return s;
}

/* The link's definition, made by the first site that names it. */
#define LINK_DEF	".ifndef %s%u; %s%u:; .endif; "

/* The asm text of one site: the contract's REPSTOS_SITE_IN (or
 * REPSTOS_COPY_SITE_IN) after its link's definition.  GCC's %= is
 * LLVM's ${:uid}; the fields go in as printf conversions. */
static std::string site_text(const struct candidate *c, unsigned fn)
{
	int kind = (int)c->kind | (c->read_back ? REPSTOS_USE_READ : 0);
	char buf[1024];

	if (repstos_op_is_copy(c->op))
		snprintf(buf, sizeof(buf), LINK_DEF REPSTOS_STR(
				REPSTOS_COPY_SITE_IN(.Lrepstos_site${:uid},
						     %s%u, %d, %d, %llu, %llu)),
			 LINK_FN, fn, LINK_FN, fn, LINK_FN, fn, (int)c->op,
			 kind, c->min, c->max);
	else
		snprintf(buf, sizeof(buf), LINK_DEF REPSTOS_STR(
				REPSTOS_SITE_IN(.Lrepstos_site${:uid},
						%s%u, %d, %d, %llu, %llu)),
			 LINK_FN, fn, LINK_FN, fn, LINK_FN, fn, (int)c->op,
			 kind, c->min, c->max);
	return buf;
}

/* The fill byte zero-extended to 64 bits, as the site wants it in rax. */
static Value *fill_value(IRBuilder<> &b, const struct candidate *c)
{
	if (!c->fill)
		return b.getInt64(0);
	if (ConstantInt *k = dyn_cast<ConstantInt>(c->fill))
		return b.getInt64(k->getZExtValue() & 0xff);
	return b.CreateZExt(b.CreateTrunc(c->fill, b.getInt8Ty()),
			    b.getInt64Ty());
}

/*
 * FORTIFY: `if (len > objsz) __chk_fail ();` before the site of a _chk
 * form, so that an overflow still ends in glibc's "buffer overflow
 * detected", unless the size is proven in bounds (or the object's size
 * unknown: all ones).
 */
static void fortify_check(const struct candidate *c, Value *len)
{
	ConstantInt *objsz = dyn_cast_or_null<ConstantInt>(c->objsz);
	Module *m = c->call->getModule();
	Instruction *then;
	MDBuilder md(m->getContext());
	FunctionCallee fail;
	CallInst *call;
	IRBuilder<> b(c->call);
	Value *bad;

	if (!c->objsz || (objsz && objsz->isMinusOne()))
		return;
	if (objsz && c->kind != REPSTOS_SIZE_UNKNOWN &&
	    c->max != REPSTOS_SIZE_SAT && c->max <= objsz->getZExtValue())
		return;
	bad = b.CreateICmpUGT(len, b.CreateZExtOrTrunc(c->objsz,
						       len->getType()));
	then = SplitBlockAndInsertIfThen(bad, c->call, true,
					 md.createBranchWeights(1, 1 << 20));
	fail = m->getOrInsertFunction("__chk_fail", b.getVoidTy());
	b.SetInsertPoint(then);
	call = b.CreateCall(fail);
	call->setDoesNotReturn();
	call->setDoesNotThrow();
	call->setDebugLoc(c->call->getDebugLoc());
}

/* The user-space site of c before b's point; returns rdi after it. */
static Value *user_site(IRBuilder<> &b, const struct candidate *c,
			unsigned fn, Value *len, Value *third)
{
	Type *ptr = c->dst->getType(), *i64 = b.getInt64Ty();
	StructType *out = StructType::get(ptr, i64, third->getType());
	FunctionType *ty = FunctionType::get(out, { ptr, i64, third->getType() },
					     false);
	InlineAsm *as = InlineAsm::get(ty, site_text(c, fn), constraints(c),
				       true, false, InlineAsm::AD_ATT);
	CallInst *site = b.CreateCall(ty, as, { c->dst, len, third });

	site->addFnAttr(Attribute::NoUnwind);
	site->setDebugLoc(c->call->getDebugLoc());
	return b.CreateExtractValue(site, 0);
}

/* c's call replaced by its site (kernel mode's, or user space's). */
void rewrite(struct candidate *c, unsigned fn)
{
	CallInst *call = c->call;
	IRBuilder<> b(call);
	Function *f = call->getFunction();
	Value *len = b.CreateZExtOrTrunc(c->len, b.getInt64Ty());
	Value *third, *end;

	fortify_check(c, len);
	b.SetInsertPoint(call);
	third = repstos_op_is_copy(c->op) ? c->src : fill_value(b, c);
	end = kernel_options().on ? kernel_site(b, c, len, third) :
				    user_site(b, c, fn, len, third);
	if (!call->use_empty())
		call->replaceAllUsesWith(c->returns_end ? end : c->dst);
	call->eraseFromParent();
	f->addFnAttr(Attribute::NoRedZone);
}
