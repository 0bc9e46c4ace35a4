// SPDX-License-Identifier: MIT
/*
 * pass.cc - the pass, its options and its place in the pipeline.
 *
 * "repstos" is a module pass (it numbers the functions it links sites
 * in).  For each function it collects the candidates, judges each with
 * the size ranges LazyValueInfo proves and the target's vector width
 * (TargetTransformInfo), remarks on each and rewrites those that become
 * sites.
 *
 * Where it runs: last, after every IR optimisation of the pipeline that
 * produces code (register_pipeline), so that it sees the calls as the
 * backend will, with the sizes inlining and propagation left, and so
 * that no pass after it copies a site into another function (the link
 * is per function).  In an LTO build that is the link, not the compile:
 * the pre-link pipelines of -flto and -flto=thin only write bitcode, and
 * a site made there would be judged before cross-module inlining, and
 * copied by it into other functions and modules.
 */
#include "repstos-llvm.h"

#include <atomic>
#include <mutex>
#include <set>

using namespace llvm;

/* ---- The pass --------------------------------------------------------- */

/* Is the module x86-64 LP64 code the pass writes for: user space, or
 * in kernel mode the kernel?  Elsewhere nothing is made, said once: a
 * user-space site in -mcmodel=kernel code would call a runtime the
 * kernel does not have.  In kernel mode the 32-bit vDSO (built with the
 * kernel's flags, under CONFIG_WERROR) is left as it is without a word,
 * as the GCC plugin leaves it; other 64-bit code models get no sites
 * (kernel_conflict says why in a remark). */
static bool target_ok(const Module &m)
{
	static std::atomic<bool> warned;
	Triple t(m.getTargetTriple());
	const char *why = nullptr;

	if (t.getArch() != Triple::x86_64 || t.getEnvironment() == Triple::GNUX32)
		why = "the target is not x86-64 LP64";
	else if (kernel_code_model(m) && !kernel_options().on)
		why = "-mcmodel=kernel: kernel code gets sites in kernel mode "
		      "only (-mllvm -repstos-kernel)";
	if (!why)
		return true;
	if (kernel_options().on)
		return false;
	if (!warned.exchange(true))
		errs() << "warning: repstos: " << why << " ("
		       << m.getTargetTriple() << "): no sites are made\n";
	return false;
}

/* Kernel mode in a pre-link compile: the sites would have to be made
 * by the link, which has no -I directories to read the tree from, so
 * kernel mode makes none under LTO (CONFIG_LTO_CLANG), said once. */
static void kernel_lto_warning(void)
{
	static std::atomic<bool> warned;

	if (!warned.exchange(true))
		errs() << "warning: repstos: kernel mode under LTO is not "
			  "written: no sites are made\n";
}

/* Judge every candidate of f first (ranges see the code as the
 * optimisers left it), then rewrite; returns the sites made. */
static unsigned run_on(Function &f, unsigned fn, FunctionAnalysisManager &fam)
{
	SmallVector<candidate, 8> found;
	auto &tti = fam.getResult<TargetIRAnalysis>(f);
	auto &ore = fam.getResult<OptimizationRemarkEmitterAnalysis>(f);
	LazyValueInfo *lvi = nullptr;
	unsigned sites = 0;

	for (Instruction &i : instructions(f)) {
		CallInst *call = dyn_cast<CallInst>(&i);
		candidate c;

		if (call && classify(call, &c))
			found.push_back(c);
	}
	if (found.empty())
		return 0;
	if (!f.hasOptNone())
		lvi = &fam.getResult<LazyValueAnalysis>(f);
	for (candidate &c : found) {
		settle_op(&c);
		settle_size(&c, lvi);
		judge(&c, tti);
		c.read_back = c.why_not.empty() && read_back(&c);
		remark(&c, ore);
	}
	for (candidate &c : found) {
		if (!c.why_not.empty())
			continue;
		rewrite(&c, fn);
		sites++;
	}
	return sites;
}

static bool pre_link(const Module &m);

struct repstos_pass : PassInfoMixin<repstos_pass> {
	bool link;	/* a link's pipeline: never a pre-link one */

	repstos_pass(bool link) : link(link) {}
	PreservedAnalyses run(Module &m, ModuleAnalysisManager &mam)
	{
		auto &fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(m)
				.getManager();
		unsigned fn = 0, sites = 0, made;
		bool changed = false;

		if (getenv("REPSTOS_LLVM_TRACE"))
			errs() << "repstos: " << m.getName() << (link ? " link" :
				  pre_link(m) ? " pre-link" : " compile") << "\n";
		if (!options_check(m.getContext()))
			return PreservedAnalyses::all();
		if (!link && pre_link(m) && kernel_options().on) {
			kernel_lto_warning();
			return PreservedAnalyses::all();
		}
		if (!link && pre_link(m))
			return record_options(m) ? PreservedAnalyses::none() :
						   PreservedAnalyses::all();
		if (!target_ok(m))
			return PreservedAnalyses::all();
		for (Function &f : m) {
			if (f.isDeclaration())
				continue;
			if ((made = run_on(f, fn, fam))) {
				fam.invalidate(f, PreservedAnalyses::none());
				changed = true;
				sites += made;
			}
			fn++;
		}
		if (kernel_options().on) {
			kernel_finish(m, sites);
			changed = true;
		}
		return changed ? PreservedAnalyses::none() :
				 PreservedAnalyses::all();
	}
	static bool isRequired() { return true; }
};

/* ---- The pipeline ----------------------------------------------------- */

/*
 * The modules this process compiles from source: PipelineStart runs in
 * the pipelines of a compile (-c, with or without -flto, which LLVM 16
 * builds with buildPerModuleDefaultPipeline and the two *PreLink ones)
 * and not in the post-link ones (buildThinLTODefaultPipeline, the full
 * LTO one).  A compile whose module carries EnableSplitLTOUnit, the
 * flag clang sets on every -flto and -flto=thin unit before running its
 * pipeline, is a pre-link one: it writes bitcode for the link to
 * optimise, and makes no sites.
 */
static std::set<const Module *> compiled;
static std::mutex compiled_lock;	/* lld runs backends in threads */

struct mark_pass : PassInfoMixin<mark_pass> {
	PreservedAnalyses run(Module &m, ModuleAnalysisManager &)
	{
		std::lock_guard<std::mutex> hold(compiled_lock);

		compiled.insert(&m);
		return PreservedAnalyses::all();
	}
	static bool isRequired() { return true; }
};

static bool pre_link(const Module &m)
{
	std::lock_guard<std::mutex> hold(compiled_lock);

	return compiled.count(&m) && m.getModuleFlag("EnableSplitLTOUnit");
}

/* The pass where it runs: after the last IR optimisation of a compile
 * (OptimizerLast; at -O0 too), of a ThinLTO backend (OptimizerLast of
 * its post-link pipeline) and of a full LTO link
 * (FullLinkTimeOptimizationLast); not in a pre-link compile. */
static void register_pipeline(PassBuilder &pb)
{
	pb.registerPipelineStartEPCallback(
		[](ModulePassManager &mpm, OptimizationLevel) {
			mpm.addPass(mark_pass());
		});
	pb.registerOptimizerLastEPCallback(
		[](ModulePassManager &mpm, OptimizationLevel) {
			mpm.addPass(repstos_pass(false));
		});
	pb.registerFullLinkTimeOptimizationLastEPCallback(
		[](ModulePassManager &mpm, OptimizationLevel) {
			mpm.addPass(repstos_pass(true));
		});
	/* opt -passes=repstos: wherever opt is told */
	pb.registerPipelineParsingCallback(
		[](StringRef name, ModulePassManager &mpm,
		   ArrayRef<PassBuilder::PipelineElement>) {
			if (name != "repstos")
				return false;
			mpm.addPass(repstos_pass(true));
			return true;
		});
}

/* What repstos-cc reads from the file: the LLVM it loads into. */
__attribute__((used)) static const char built_for[] =
	"repstos plugin built for LLVM " LLVM_VERSION_STRING;

extern "C" LLVM_ATTRIBUTE_WEAK __attribute__((visibility("default")))
PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return { LLVM_PLUGIN_API_VERSION, "repstos", "1", register_pipeline };
}
