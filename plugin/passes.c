// SPDX-License-Identifier: MIT
/*
 * passes.c - the plugin's two passes and their registration.
 *
 *  - "repstos", a GIMPLE pass after "optimized" (it runs at every -O
 *    level, after the sanitizer passes): repstos_execute() collects the
 *    calls that survived optimisation, judges each with the value ranges
 *    the optimisers left, and rewrites those that become sites;
 *  - "repstos_link", an RTL pass just before "final": link_sections()
 *    links each site's table entry to its text section (see LINK_FN),
 *    once the hot and cold blocks have their sections.
 *
 * The red zone: a `call` inside an asm writes its return address below
 * rsp, over the 128 bytes a leaf function may keep live locals in, and
 * no asm operand can tell GCC so.  The plugin compiles the unit as with
 * -mno-red-zone (set in plugin_init, before the target options are
 * processed, so every function and every target attribute inherits it).
 */
#include "plugin.h"

/* The two symbols GCC looks up; everything else is hidden (plugin.mk). */
#define PLUGIN_EXPORT __attribute__((visibility("default")))

PLUGIN_EXPORT int plugin_is_GPL_compatible;

/* Per-unit counts for the verbose summary. */
static unsigned n_sites, n_left;

/* ---- The GIMPLE pass: the sites ------------------------------------ */

static bool target_ok(void)
{
	static bool warned;

	if (TARGET_64BIT && TARGET_LP64)
		return true;
	/* The kernel builds its 32-bit vDSO with KCFLAGS too: left as it
	 * is without a word, as kernel_conflict() leaves the 64-bit one,
	 * for CONFIG_WERROR makes a warning fail the build. */
	if (kernel_mode)
		return false;
	if (!warned)
		warning(0, "repstos: the target is not x86-64 LP64 "
			"(%<-m32%> or %<-mx32%>): no sites are made");
	warned = true;
	return false;
}

/* Collect every candidate first: range queries must see the CFG as the
 * optimisers left it, before the FORTIFY checks split blocks. */
static bool collect(vec<candidate> *found)
{
	basic_block bb;
	bool split = false;

	FOR_EACH_BB_FN(bb, cfun) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi); gsi_next(&gsi)) {
			struct candidate c;

			split |= split_result_copy(gsi_stmt(gsi));
			if (!classify(gsi_stmt(gsi), &c))
				continue;
			found->safe_push(c);
		}
	}
	return split;
}

static unsigned int repstos_execute(void)
{
	auto_vec<candidate> found;
	bool ranger = false, new_calls, sites = false;
	unsigned i;
	candidate *c;

	/* a split result copy's virtual operands are renamed below */
	new_calls = collect(&found);
	if (found.is_empty() && !new_calls)
		return 0;

	if (optimize) {
		calculate_dominance_info(CDI_DOMINATORS);
		enable_ranger(cfun);
		ranger = true;
	}
	FOR_EACH_VEC_ELT(found, i, c) {
		settle_op(c);
		settle_size(c);
		judge(c);
		c->read_back = !*c->why_not && read_back(c);
		remark(c);
	}
	if (ranger)
		disable_ranger(cfun);

	FOR_EACH_VEC_ELT(found, i, c) {
		if (*c->why_not) {
			n_left++;
			continue;
		}
		new_calls |= rewrite(c);
		sites = true;
		n_sites++;
	}
	if (!sites && !new_calls)
		return 0;

	/* A target attribute node streamed in by LTO from a unit compiled
	 * without the plugin may still allow the red zone. */
	target_flags |= MASK_NO_RED_ZONE;

	free_dominance_info(CDI_DOMINATORS);
	cgraph_edge::rebuild_edges();
	if (!new_calls)
		return 0;
	mark_virtual_operands_for_renaming(cfun);
	return TODO_update_ssa_only_virtuals | TODO_cleanup_cfg;
}

static const pass_data repstos_pass_data = {
	GIMPLE_PASS,			/* type */
	"repstos",			/* name */
	OPTGROUP_NONE,			/* optinfo_flags */
	TV_NONE,			/* tv_id */
	PROP_ssa | PROP_cfg,		/* properties_required */
	0,				/* properties_provided */
	0,				/* properties_destroyed */
	0,				/* todo_flags_start */
	0,				/* todo_flags_finish */
};

class repstos_pass : public gimple_opt_pass {
public:
	repstos_pass(gcc::context *ctx)
		: gimple_opt_pass(repstos_pass_data, ctx) {}
	bool gate(function *) final override { return target_ok(); }
	unsigned int execute(function *) final override
	{
		return repstos_execute();
	}
};

/* ---- The RTL pass: links, at the end -------------------------------- */

/* Each text section that has sites, numbered in the order first met. */
static hash_map<nofree_ptr_hash<section>, unsigned> *link_numbers;

static unsigned link_number(section *sec)
{
	bool existed;
	unsigned *n;

	if (!link_numbers)
		link_numbers = new hash_map<nofree_ptr_hash<section>, unsigned>;
	n = &link_numbers->get_or_insert(sec, &existed);
	if (!existed)
		*n = link_numbers->elements() - 1;
	return *n;
}

/* The site's template with its function's link renamed to number n, or
 * NULL when it is not a site's. */
static const char *linked_template(const char *t, unsigned n)
{
	size_t fn = strlen(LINK_FN);
	char *out = XNEWVEC(char, strlen(t) + 3 * 16 + 1), *o = out;
	const char *p = t, *q, *ret;

	if (!strstr(t, LINK_FN))
		return NULL;
	while ((q = strstr(p, LINK_FN))) {
		memcpy(o, p, q - p);
		o += q - p;
		o += sprintf(o, "%s%u", LINK, n);
		for (p = q + fn; ISDIGIT(*p); p++)
			;
	}
	strcpy(o, p);
	ret = ggc_strdup(out);
	XDELETEVEC(out);
	return ret;
}

/* Every ASM_OPERANDS of the insn carries the template; final reads the
 * first, but they are kept alike. */
static void set_template(rtx body, const char *t)
{
	if (GET_CODE(body) == PARALLEL) {
		for (int i = 0; i < XVECLEN(body, 0); i++)
			set_template(XVECEXP(body, 0, i), t);
	} else if (GET_CODE(body) == SET &&
		   GET_CODE(SET_SRC(body)) == ASM_OPERANDS) {
		ASM_OPERANDS_TEMPLATE(SET_SRC(body)) = t;
	} else if (GET_CODE(body) == ASM_OPERANDS) {
		ASM_OPERANDS_TEMPLATE(body) = t;
	}
}

/*
 * The section final will put the function's code in, before and after
 * its switch of text section (NOTE_INSN_SWITCH_TEXT_SECTIONS): asked of
 * current_function_section as final's assemble_start_function sets it
 * up, from the partition of the first block.
 */
static section *text_section_of(bool cold)
{
	bool saved = in_cold_section_p;
	section *sec;

	in_cold_section_p = cold;
	sec = current_function_section();
	in_cold_section_p = saved;
	return sec;
}

static bool first_block_cold(void)
{
	return crtl->has_bb_partition &&
	       BB_PARTITION(ENTRY_BLOCK_PTR_FOR_FN(cfun)->next_bb) ==
			BB_COLD_PARTITION;
}

static unsigned int link_sections(void)
{
	bool cold = first_block_cold();

	for (rtx_insn *insn = get_insns(); insn; insn = NEXT_INSN(insn)) {
		rtx asmop;
		const char *t;

		if (NOTE_P(insn) &&
		    NOTE_KIND(insn) == NOTE_INSN_SWITCH_TEXT_SECTIONS)
			cold = !cold;
		if (!NONJUMP_INSN_P(insn))
			continue;
		asmop = extract_asm_operands(PATTERN(insn));
		if (!asmop || !strstr(ASM_OPERANDS_TEMPLATE(asmop), LINK_FN))
			continue;
		t = linked_template(ASM_OPERANDS_TEMPLATE(asmop),
				    link_number(text_section_of(cold)));
		set_template(PATTERN(insn), t);
	}
	return 0;
}

static const pass_data link_pass_data = {
	RTL_PASS,			/* type */
	"repstos_link",			/* name */
	OPTGROUP_NONE,			/* optinfo_flags */
	TV_NONE,			/* tv_id */
	0,				/* properties_required */
	0,				/* properties_provided */
	0,				/* properties_destroyed */
	0,				/* todo_flags_start */
	0,				/* todo_flags_finish */
};

class link_pass : public rtl_opt_pass {
public:
	link_pass(gcc::context *ctx) : rtl_opt_pass(link_pass_data, ctx) {}
	bool gate(function *) final override { return target_ok(); }
	unsigned int execute(function *) final override
	{
		return link_sections();
	}
};

/* ---- Registration --------------------------------------------------- */

static void repstos_finish_unit(void *gcc_data, void *user_data)
{
	if (opt.verbose)
		inform(UNKNOWN_LOCATION, "repstos: %s: %u site%s, %u call%s "
		       "left alone", main_input_filename ?
		       main_input_filename : "<unit>", n_sites,
		       n_sites == 1 ? "" : "s", n_left, n_left == 1 ? "" : "s");
}

/* Put pass next to the first instance of the pass named ref (GCC
 * registers it there and then). */
static void add_pass(const char *plugin, opt_pass *pass, const char *ref,
		     enum pass_positioning_ops pos)
{
	struct register_pass_info where = { pass, ref, 1, pos };

	register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, NULL, &where);
}

/* What repstos-cc reads from the file (gcc-compat.h says why). */
__attribute__((used)) static const char built_for[] = COMPAT_BUILT_FOR;

PLUGIN_EXPORT int plugin_init(struct plugin_name_args *info,
		struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("repstos: plugin %qs was built for GCC %s, this is "
		      "GCC %s: rebuild it with this GCC (%<make%> in the "
		      "repstos tree)", info->full_name,
		      gcc_version.basever, version->basever);
		return 1;
	}
	if (!parse_args(info))
		return 1;

	/* Before option override: every function and target attribute
	 * of the unit inherits it (see the top comment).  The kernel has
	 * no red zone, and its vDSO must stay as built. */
	if (kernel_mode)
		kernel_register(info->base_name);
	else
		target_flags |= MASK_NO_RED_ZONE;

	register_callback(info->base_name, PLUGIN_INFO, NULL,
			  &repstos_plugin_info);
	add_pass(info->base_name, new repstos_pass(g), "optimized",
		 PASS_POS_INSERT_AFTER);
	add_pass(info->base_name, new link_pass(g), "final",
		 PASS_POS_INSERT_BEFORE);
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)check_ggc_roots);
	register_callback(info->base_name, PLUGIN_FINISH_UNIT,
			  repstos_finish_unit, NULL);
	return 0;
}
