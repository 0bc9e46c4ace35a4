// SPDX-License-Identifier: MIT
/*
 * options.cc - the pass's options, -mllvm -repstos-KEY[=VALUE] (the GCC
 * plugin's -fplugin-arg-repstos-KEY, which repstos-cc turns into these),
 * and how they travel with the code through LTO.
 *
 * They are LLVM cl::opts, which clang parses before it loads a pass
 * plugin: the plugin must be loaded early too (-Xclang -load).  lld
 * parses the link's -mllvm before it loads the plugin, so an LTO link
 * cannot be given them at all: a pre-link compile records its options
 * on each function it compiled (OPTIONS_ATTR, record_options), and the
 * link's pass reads each function's (options_for).
 */
#include "repstos-llvm.h"

#include <map>
#include <mutex>

using namespace llvm;

static cl::opt<bool> opt_copy("repstos-copy",
	cl::desc("repstos: memcpy, mempcpy and memmove become sites too"));
static cl::opt<std::string> opt_max_size("repstos-max-size",
	cl::desc("repstos: leave calls whose size may exceed N"));
static cl::opt<std::string> opt_min_const("repstos-min-const",
	cl::desc("repstos: smallest constant size of a site (auto: what the "
		 "backend does not expand)"));
static cl::list<std::string> opt_clear("repstos-clear", cl::CommaSeparated,
	cl::desc("repstos: (ptr, len) clear helpers"));
static cl::list<std::string> opt_memset("repstos-memset", cl::CommaSeparated,
	cl::desc("repstos: (ptr, c, len) memset helpers"));
static cl::list<std::string> opt_copy_fn("repstos-copy-fn", cl::CommaSeparated,
	cl::desc("repstos: (dst, src, len) memcpy helpers"));
static cl::list<std::string> opt_move_fn("repstos-move-fn", cl::CommaSeparated,
	cl::desc("repstos: (dst, src, len) memmove helpers"));
static cl::opt<bool> opt_kernel("repstos-kernel",
	cl::desc("repstos: kernel mode, Linux's own .altinstructions"));
static cl::opt<bool> opt_kernel_paths("repstos-kernel-paths",
	cl::desc("repstos: kernel mode's routines count their paths"));
static cl::opt<std::string> opt_kernel_inline_bit("repstos-kernel-inline-bit",
	cl::desc("repstos: kernel mode keys the inline form on feature bit N"));

/* Why the command line's options are bad, or "" (options_check). */
static std::string bad;

/* One -repstos-KEY=VALUE number (auto too for min-const); a bad one is
 * noted in bad and taken as unset. */
static unsigned long long number(const char *key, const std::string &v,
				 unsigned long long unset, bool or_auto)
{
	unsigned long long n;

	if (v.empty() || (or_auto && v == "auto"))
		return unset;
	if (!StringRef(v).getAsInteger(0, n))
		return n;
	if (bad.empty())
		bad = "repstos: bad value '" + v + "' for -repstos-" + key +
		      ": expected a non-negative integer" +
		      (or_auto ? " or 'auto'" : "");
	return unset;
}

/* Every name a C identifier, else noted in bad. */
static std::vector<std::string> names(const char *key,
				      const std::vector<std::string> &v)
{
	for (const std::string &n : v) {
		bool ok = !n.empty() && !isdigit((unsigned char)n[0]);

		for (char ch : n)
			ok &= isalnum((unsigned char)ch) || ch == '_';
		if (!ok && bad.empty())
			bad = "repstos: bad value '" + n + "' for -repstos-" +
			      key + ": expected comma-separated function names";
	}
	return v;
}

static struct options read_command_line(void)
{
	struct options o;

	o.copy = opt_copy || opt_kernel;	/* kernel mode: copies too */
	o.max_size = number("max-size", opt_max_size, MAX_SIZE_NONE, false);
	o.min_const = number("min-const", opt_min_const, MIN_CONST_AUTO, true);
	o.clear = names("clear", opt_clear);
	o.memset = names("memset", opt_memset);
	o.copy_fn = names("copy-fn", opt_copy_fn);
	o.move_fn = names("move-fn", opt_move_fn);
	return o;
}

/* The command line's options, read once: a static initialised on first
 * use, which C++ makes safe when lld runs ThinLTO backends (and so this
 * pass) in several threads at once. */
static const struct options &command_line(void)
{
	static const struct options o = read_command_line();

	return o;
}

/* The inline bit: a feature number, word * 32 + bit, or -1 unset. */
static int inline_bit(const std::string &v)
{
	unsigned long long n;

	if (v.empty() && opt_kernel_inline_bit.getNumOccurrences() == 0)
		return -1;
	if (!StringRef(v).getAsInteger(0, n) && n < K_FEATURE_LIMIT)
		return n;
	if (bad.empty())
		bad = "repstos: bad value '" + v + "' for -repstos-kernel-inline-"
		      "bit: expected an x86 feature bit number (word * 32 + bit)";
	return -1;
}

const struct kernel_options &kernel_options(void)
{
	static const struct kernel_options k = {
		opt_kernel, opt_kernel_paths, inline_bit(opt_kernel_inline_bit)
	};

	return k;
}

bool options_check(LLVMContext &ctx)
{
	command_line();
	kernel_options();
	if (bad.empty())
		return true;
	ctx.emitError(bad);
	return false;
}

/* ---- Through LTO ------------------------------------------------------- */

static std::string join(const std::vector<std::string> &v)
{
	std::string s;

	for (const std::string &n : v)
		s += (s.empty() ? "" : ",") + n;
	return s;
}

/* The options as OPTIONS_ATTR holds them: "KEY=VALUE;..." */
static std::string encode(const struct options &o)
{
	return "copy=" + std::to_string(o.copy) +
	       ";max-size=" + std::to_string(o.max_size) +
	       ";min-const=" + std::to_string(o.min_const) +
	       ";clear=" + join(o.clear) + ";memset=" + join(o.memset) +
	       ";copy-fn=" + join(o.copy_fn) + ";move-fn=" + join(o.move_fn);
}

static std::vector<std::string> split_names(StringRef s)
{
	SmallVector<StringRef, 4> parts;
	std::vector<std::string> v;

	s.split(parts, ',', -1, false);
	for (StringRef p : parts)
		v.push_back(p.str());
	return v;
}

/* encode()'s text back; what it does not hold stays as unset. */
static struct options decode(StringRef s)
{
	SmallVector<StringRef, 8> fields;
	struct options o;

	s.split(fields, ';');
	for (StringRef f : fields) {
		auto [key, value] = f.split('=');

		if (key == "copy")
			o.copy = value == "1";
		else if (key == "max-size")
			value.getAsInteger(10, o.max_size);
		else if (key == "min-const")
			value.getAsInteger(10, o.min_const);
		else if (key == "clear")
			o.clear = split_names(value);
		else if (key == "memset")
			o.memset = split_names(value);
		else if (key == "copy-fn")
			o.copy_fn = split_names(value);
		else if (key == "move-fn")
			o.move_fn = split_names(value);
	}
	return o;
}

/* Each recorded text decoded once, for every thread (a map's elements
 * stay where they are as it grows: the reference returned stays good). */
const struct options &options_for(const Function &f)
{
	static std::map<std::string, struct options> seen;
	static std::mutex lock;
	Attribute a = f.getFnAttribute(OPTIONS_ATTR);
	std::string s;

	if (!a.isStringAttribute())
		return command_line();
	s = a.getValueAsString().str();
	std::lock_guard<std::mutex> hold(lock);
	auto it = seen.find(s);
	if (it == seen.end())
		it = seen.emplace(s, decode(s)).first;
	return it->second;
}

bool record_options(Module &m)
{
	std::string s = encode(command_line());
	bool changed = false;

	for (Function &f : m) {
		if (f.isDeclaration())
			continue;
		f.addFnAttr(OPTIONS_ATTR, s);
		changed = true;
	}
	return changed;
}
