// SPDX-License-Identifier: MIT
/*
 * classify.cc - which calls the pass takes for candidates, what it
 * knows of each (op, size), whether each becomes a site, and the remark
 * that says so.  The calls it finds, once the optimisers are done:
 *
 *   llvm.memset				a memset, bzero or a loop
 *						LLVM made one of
 *   memset, bzero, explicit_bzero		libcalls by name, and
 *						their _chk forms (FORTIFY)
 *   -mllvm -repstos-clear=f,g			user (ptr, len) clear helpers
 *   -mllvm -repstos-memset=h			user (ptr, c, len) helpers
 *
 * and, as copy sites, the copies: llvm.memcpy, llvm.memmove and the
 * memcpy, mempcpy and memmove libcalls with -mllvm -repstos-copy, user
 * helpers named by -repstos-copy-fn= and -repstos-move-fn=.
 *
 * An intrinsic of constant size may be expanded inline by the backend
 * (SelectionDAG), and a site in its place would be a regression: judge()
 * leaves alone every one it expands, by the backend's own rule, which
 * backend_inlines() restates (its comment gives the rule and where it
 * was measured).  A libcall (-fno-builtin has none: those calls carry
 * nobuiltin and are not candidates) is a call at every size.
 */
#include "repstos-llvm.h"

using namespace llvm;

/* ---- Finding the calls ------------------------------------------------ */

static bool name_in(StringRef name, const std::vector<std::string> &names)
{
	for (const std::string &n : names)
		if (name == n)
			return true;
	return false;
}

/* A call by name with the shape expected: (ptr, [int,] int), or for
 * copies (ptr, ptr, int). */
static bool shaped_like(const CallInst *call, unsigned nargs, int src)
{
	if (call->arg_size() != nargs ||
	    !call->getArgOperand(0)->getType()->isPointerTy())
		return false;
	for (unsigned i = 1; i < nargs; i++) {
		Type *t = call->getArgOperand(i)->getType();

		if ((int)i == src ? !t->isPointerTy() : !t->isIntegerTy())
			return false;
	}
	return true;
}

/* The libcalls and helpers known by name: fill, len, src are argument
 * numbers, -1 where the call has none. */
struct shape {
	const char *name;			/* or one of names */
	std::vector<std::string> options::*names;
	unsigned nargs;
	enum repstos_op op;
	int fill, len, src, objsz;
	bool returns_dst, returns_end;
	bool builtin;				/* a C library function */
};

static const struct shape shapes[] = {
	{ "memset", nullptr, 3, REPSTOS_OP_MEMSET, 1, 2, -1, -1, true, false,
	  true },
	{ "__memset_chk", nullptr, 4, REPSTOS_OP_MEMSET, 1, 2, -1, 3, true,
	  false, true },
	{ "bzero", nullptr, 2, REPSTOS_OP_ZERO, -1, 1, -1, -1, false, false,
	  true },
	{ "explicit_bzero", &options::clear, 2, REPSTOS_OP_CLEAR, -1, 1, -1,
	  -1, false, false, false },
	{ "__explicit_bzero_chk", nullptr, 3, REPSTOS_OP_CLEAR, -1, 1, -1, 2,
	  false, false, false },
	{ nullptr, &options::memset, 3, REPSTOS_OP_MEMSET, 1, 2, -1, -1,
	  false, false, false },
	{ "memcpy", nullptr, 3, REPSTOS_OP_COPY, -1, 2, 1, -1, true, false,
	  true },
	{ "__memcpy_chk", nullptr, 4, REPSTOS_OP_COPY, -1, 2, 1, 3, true,
	  false, true },
	{ "mempcpy", nullptr, 3, REPSTOS_OP_COPY, -1, 2, 1, -1, false, true,
	  true },
	{ "__mempcpy_chk", nullptr, 4, REPSTOS_OP_COPY, -1, 2, 1, 3, false,
	  true, true },
	{ "memmove", nullptr, 3, REPSTOS_OP_MOVE, -1, 2, 1, -1, true, false,
	  true },
	{ "__memmove_chk", nullptr, 4, REPSTOS_OP_MOVE, -1, 2, 1, 3, true,
	  false, true },
	{ nullptr, &options::copy_fn, 3, REPSTOS_OP_COPY, -1, 2, 1, -1, false,
	  false, false },
	{ nullptr, &options::move_fn, 3, REPSTOS_OP_MOVE, -1, 2, 1, -1, false,
	  false, false },
};

static bool matches(const CallInst *call, StringRef name,
		    const struct shape *sh)
{
	const struct options &o = options_for(*call->getFunction());

	if (!(sh->name && name == sh->name) &&
	    !(sh->names && name_in(name, o.*sh->names)))
		return false;
	if (sh->builtin && repstos_op_is_copy(sh->op) && !o.copy)
		return false;
	/* -fno-builtin, -ffreestanding: the program wants the call */
	if (sh->builtin && call->isNoBuiltin())
		return false;
	return shaped_like(call, sh->nargs, sh->src);
}

static Value *arg_or_null(CallInst *call, int i)
{
	return i < 0 ? nullptr : call->getArgOperand(i);
}

static bool classify_libcall(CallInst *call, struct candidate *c)
{
	Function *fn = call->getCalledFunction();

	if (!fn || !fn->isDeclaration())
		return false;	/* through a pointer, or defined here */
	for (const struct shape &sh : shapes) {
		if (!matches(call, fn->getName(), &sh))
			continue;
		c->what = sh.name && fn->getName() == sh.name ? sh.name :
			  fn->getName().data();
		c->dst = call->getArgOperand(0);
		c->src = arg_or_null(call, sh.src);
		c->fill = arg_or_null(call, sh.fill);
		c->len = arg_or_null(call, sh.len);
		c->objsz = arg_or_null(call, sh.objsz);
		c->op = sh.op;
		/* a user helper that returns a pointer returns its
		 * destination, as the GCC plugin takes it */
		c->returns_dst = sh.returns_dst ||
			(!sh.builtin && call->getType()->isPointerTy());
		c->returns_end = sh.returns_end;
		return true;
	}
	return false;
}

/* llvm.memset, llvm.memcpy, llvm.memmove; not their .inline forms,
 * which the program asked to have expanded. */
static bool classify_intrinsic(CallInst *call, struct candidate *c)
{
	MemIntrinsic *mi = dyn_cast<MemIntrinsic>(call);

	if (!mi)
		return false;
	switch (mi->getIntrinsicID()) {
	case Intrinsic::memset:
		c->what = "memset";
		c->op = REPSTOS_OP_MEMSET;
		c->fill = cast<MemSetInst>(mi)->getValue();
		break;
	case Intrinsic::memcpy:
		if (!options_for(*call->getFunction()).copy)
			return false;
		c->what = "memcpy";
		c->op = REPSTOS_OP_COPY;
		c->src = cast<MemTransferInst>(mi)->getSource();
		break;
	case Intrinsic::memmove:
		if (!options_for(*call->getFunction()).copy)
			return false;
		c->what = "memmove";
		c->op = REPSTOS_OP_MOVE;
		c->src = cast<MemTransferInst>(mi)->getSource();
		break;
	default:
		return false;
	}
	c->intrinsic = true;
	c->is_volatile = mi->isVolatile();
	c->dst = mi->getDest();
	c->len = mi->getLength();
	return true;
}

bool classify(CallInst *call, struct candidate *c)
{
	*c = candidate();
	c->call = call;
	if (call->getFunctionType()->isVarArg())
		return false;
	return classify_intrinsic(call, c) || classify_libcall(call, c);
}

/* ---- Op and size ------------------------------------------------------ */

/*
 * May this memmove copy forwards, as `rep movsb` does?  The GCC plugin's
 * two rules, on LLVM's view of the pointers: one base with both offsets
 * constant, the destination's at or below the source's; or two distinct
 * identified objects (allocas, globals, noalias arguments: an access
 * through a pointer stays inside the object it was made from).  At -O0
 * the base is a load of the pointer's stack slot: same_value.
 */
/* Are a and b one value?  At -O0 a pointer is loaded from its stack
 * slot afresh at each use: two loads of one slot in one block, with
 * nothing between them that may write memory, load one value. */
static bool same_value(Value *a, Value *b)
{
	LoadInst *la = dyn_cast<LoadInst>(a), *lb = dyn_cast<LoadInst>(b);

	if (a == b)
		return true;
	if (!la || !lb || la->getPointerOperand() != lb->getPointerOperand() ||
	    la->getParent() != lb->getParent() || la->isVolatile() ||
	    lb->isVolatile())
		return false;
	if (lb->comesBefore(la))
		std::swap(la, lb);
	for (Instruction *i = la->getNextNode(); i != lb; i = i->getNextNode())
		if (i->mayWriteToMemory())
			return false;
	return true;
}

static const char *forward_safe(Value *dst, Value *src, const DataLayout &dl)
{
	int64_t doff = 0, soff = 0;
	Value *d = GetPointerBaseWithConstantOffset(dst, doff, dl);
	Value *s = GetPointerBaseWithConstantOffset(src, soff, dl);
	const Value *du, *su;

	if (same_value(d, s))
		return doff <= soff ?
			"destination at or before the source in one object" :
			nullptr;
	du = getUnderlyingObject(dst);
	su = getUnderlyingObject(src);
	if (du != su && isIdentifiedObject(du) && isIdentifiedObject(su) &&
	    !isa<Argument>(du) && !isa<Argument>(su))
		return "distinct objects";
	return nullptr;
}

void settle_op(struct candidate *c)
{
	ConstantInt *k = dyn_cast_or_null<ConstantInt>(c->fill);

	if (c->op == REPSTOS_OP_MEMSET && k && (k->getZExtValue() & 0xff) == 0)
		c->op = REPSTOS_OP_ZERO;
	if (c->op == REPSTOS_OP_MOVE) {
		c->fwd = forward_safe(c->dst, c->src,
				      c->call->getModule()->getDataLayout());
		if (c->fwd)
			c->op = REPSTOS_OP_MOVE_FWD;
	}
}

static unsigned long long saturate(const APInt &v)
{
	return v.ugt(REPSTOS_SIZE_SAT) ? REPSTOS_SIZE_SAT : v.getZExtValue();
}

/* Constant, or the range LazyValueInfo proves at the call (conditions
 * that dominate it included, as GCC's ranger sees them). */
void settle_size(struct candidate *c, LazyValueInfo *lvi)
{
	ConstantInt *k = dyn_cast<ConstantInt>(c->len);
	ConstantRange r(c->len->getType()->getIntegerBitWidth(), true);

	c->kind = REPSTOS_SIZE_UNKNOWN;
	c->min = 0;
	c->max = REPSTOS_SIZE_SAT;
	if (k) {
		c->kind = REPSTOS_SIZE_CONST;
		c->min = c->max = saturate(k->getValue());
		return;
	}
	if (lvi)
		r = lvi->getConstantRange(c->len, c->call, false);
	if (r.isFullSet() || r.isEmptySet())
		return;
	c->min = saturate(r.getUnsignedMin());
	c->max = saturate(r.getUnsignedMax());
	if (c->min == 0 && c->max == REPSTOS_SIZE_SAT)
		return;
	c->kind = c->min == c->max ? REPSTOS_SIZE_CONST : REPSTOS_SIZE_BOUNDED;
}

/* ---- The backend's line ----------------------------------------------- */

/* The stores SelectionDAG would spend on n bytes (findOptimalMemOpLowering
 * restated): the widest type that fits, vectors of w bytes from 16 up,
 * else 8 or 4, then smaller pieces, or where overlap is allowed (not for
 * memmove) one more store of the same type ending at the last byte.  It
 * stops counting past limit. */
static unsigned stores_for(unsigned long long n, unsigned w, bool overlap,
			   unsigned limit)
{
	unsigned vt, ops = 0;

	if (n >= 64 && w >= 64)
		vt = 64;
	else if (n >= 32 && w >= 32)
		vt = 32;
	else if (n >= 16 && w >= 16)
		vt = 16;
	else
		vt = n >= 8 ? 8 : 4;
	while (n && ops <= limit) {
		unsigned long long piece = vt;

		while (piece > n) {
			unsigned next = vt > 8 ? 8 : vt / 2;

			if (ops && overlap && next < n) {
				piece = n;
			} else {
				vt = next;
				piece = next;
			}
		}
		ops++;
		n -= piece;
	}
	return ops;
}

/* Does a feature string ("+avx,+avx2,-avx512f,...") turn feature on?
 * The last mention wins. */
bool feature_on(const Function &f, StringRef feature)
{
	StringRef all = f.getFnAttribute("target-features").getValueAsString();
	bool on = false;

	while (!all.empty()) {
		auto [one, rest] = all.split(',');

		if (one.size() > 1 && one.substr(1) == feature)
			on = one[0] == '+';
		all = rest;
	}
	return on;
}

/*
 * Would the x86-64 backend of LLVM 16 expand this intrinsic inline?
 * Its rule, from SelectionDAG::getMemset/getMemcpy/getMemmove and
 * X86SelectionDAGInfo, and measured against clang-16's own output by
 * tests/plugin/llvm.sh (every size 0..600 at -O0, -O1, -O2, -Os, -Oz,
 * -march=x86-64-v3 and v4; plugin/llvm/README.md has the table):
 *  - a non-constant size is a call (the size range does not matter);
 *  - -O0 (optnone: FastISel): memset is always a call, memcpy is
 *    inline up to 32 bytes, memmove as below;
 *  - otherwise constant sizes become stores, the widest vectors the
 *    function prefers (16 bytes, 32 with AVX, 64 with AVX-512 where
 *    512-bit vectors are preferred; none under noimplicitfloat), up to
 *    16 stores for memset, 8 for memcpy and memmove, halved where the
 *    function is optimised for size; then memset up to 128 bytes with
 *    a destination aligned to 4 is `rep stos`, memcpy up to 128 bytes
 *    `rep movs` with both aligned to 4 or on an ERMS CPU.
 */
static bool backend_inlines(const struct candidate *c,
			    const TargetTransformInfo &tti)
{
	const Function &f = *c->call->getFunction();
	MemIntrinsic *mi = cast<MemIntrinsic>(c->call);
	bool set = c->op == REPSTOS_OP_MEMSET || c->op == REPSTOS_OP_ZERO;
	bool optsize = f.hasOptSize();
	unsigned long long n = cast<ConstantInt>(c->len)->getZExtValue();
	unsigned w = 8, limit, align;

	if (f.hasOptNone()) {
		if (set)
			return false;
		if (c->op == REPSTOS_OP_COPY)
			return n <= 32;
	}
	if (!f.hasFnAttribute(Attribute::NoImplicitFloat))
		w = std::max(8u, (unsigned)(tti.getRegisterBitWidth(
			TargetTransformInfo::RGK_FixedWidthVector)
						.getFixedValue() / 8));
	limit = set ? (optsize ? 8 : 16) : (optsize ? 4 : 8);
	if (stores_for(n, w, !c->is_volatile && c->op != REPSTOS_OP_MOVE &&
		       c->op != REPSTOS_OP_MOVE_FWD, limit) <= limit)
		return true;
	if (n > 128 || (c->op != REPSTOS_OP_COPY && !set))
		return false;
	align = mi->getDestAlign().valueOrOne().value();
	if (c->op == REPSTOS_OP_COPY) {
		if (feature_on(f, "ermsb"))
			return true;
		align = std::min(align, (unsigned)cast<MemTransferInst>(mi)
				 ->getSourceAlign().valueOrOne().value());
	}
	return align >= 4;
}

/* ---- Judging ---------------------------------------------------------- */

const char *function_conflict(const Function &f)
{
	if (f.hasFnAttribute(Attribute::SanitizeAddress) ||
	    f.hasFnAttribute(Attribute::SanitizeHWAddress))
		return "the address sanitizer checks it: not yet with clang";
	if (f.hasFnAttribute(Attribute::SanitizeThread))
		return "-fsanitize=thread intercepts it";
	if (f.hasFnAttribute(Attribute::SanitizeMemory))
		return "-fsanitize=memory intercepts it";
	/* a kernel-mode site clobbers no vector register */
	if (!kernel_options().on && f.hasFnAttribute("target-features") &&
	    !feature_on(f, "sse"))
		return "the site needs xmm0, which a function without SSE lacks";
	return nullptr;
}

static void leave(struct candidate *c, const Twine &why)
{
	c->why_not = why.str();
}

void judge(struct candidate *c, const TargetTransformInfo &tti)
{
	const struct options &o = options_for(*c->call->getFunction());
	const char *conflict = function_conflict(*c->call->getFunction());
	unsigned long long floor = o.min_const;

	if (!conflict && kernel_options().on)
		conflict = kernel_conflict(c);
	if (conflict)
		leave(c, conflict);
	else if (c->dst->getType()->getPointerAddressSpace() ||
		 (c->src && c->src->getType()->getPointerAddressSpace()))
		leave(c, "a pointer of another address space (__seg_gs, "
			 "__seg_fs): the site's string ops use ds");
	else if (c->is_volatile)
		leave(c, "a volatile intrinsic: the backend's to lower");
	else if (!c->call->use_empty() && !c->returns_dst && !c->returns_end)
		leave(c, "its non-pointer return value is used");
	else if (c->intrinsic && isa<ConstantInt>(c->len) &&
		 floor == MIN_CONST_AUTO && backend_inlines(c, tti))
		leave(c, "constant size: the backend expands it inline");
	else if (c->intrinsic && isa<ConstantInt>(c->len) &&
		 floor != MIN_CONST_AUTO && c->min < floor)
		leave(c, "constant size below min-const=" + Twine(floor));
	else if (c->kind != REPSTOS_SIZE_UNKNOWN && c->max > o.max_size)
		leave(c, "size may reach " + Twine(c->max) + ", above max-size=" +
			 Twine(o.max_size));
}

/* ---- Remarks ---------------------------------------------------------- */

static std::string describe_size(const struct candidate *c)
{
	switch (c->kind) {
	case REPSTOS_SIZE_CONST:
		return "size " + std::to_string(c->min);
	case REPSTOS_SIZE_BOUNDED:
		if (c->min && c->max >= REPSTOS_SIZE_SAT)
			return "size unknown, at least " + std::to_string(c->min);
		if (c->min)
			return "size unknown, " + std::to_string(c->min) +
			       " to " + std::to_string(c->max);
		return "size unknown, at most " + std::to_string(c->max);
	default:
		return "size unknown";
	}
}

void remark(const struct candidate *c, OptimizationRemarkEmitter &ore)
{
	std::string size = describe_size(c);

	if (!c->why_not.empty()) {
		ore.emit([&] {
			return OptimizationRemarkMissed("repstos", "Left", c->call)
				<< c->what << " left alone (" << size << "; "
				<< c->why_not << ")";
		});
		return;
	}
	ore.emit([&] {
		OptimizationRemark r("repstos", "Site", c->call);

		r << c->what << " rewritten (" << size;
		if (c->fwd)
			r << "; copies forwards: " << c->fwd;
		if (c->read_back)
			r << "; read back";
		return r << ")";
	});
}
