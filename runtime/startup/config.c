// SPDX-License-Identifier: MIT
/*
 * config.c - what the process chose, once, at the first module's
 * start-up (the CPU, REPSTOS_VARIANT, REPSTOS_PATCH, the tuning file,
 * all under the AT_SECURE rules), and what the start-up says of a
 * module (REPSTOS_DEBUG).
 */
#define _GNU_SOURCE
#include "startup.h"

STARTUP_FN void warn(const char *fmt, const char *arg)
{
	fprintf(stderr, "repstos: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/*
 * REPSTOS_VARIANT=name picks the routine of that name in every family
 * that has one this CPU can run ("avx2": 32-byte vectors for sets and
 * copies alike); a family without it keeps the policy's choice.
 */
static void read_variant(struct config *c)
{
	const char *v = secure_getenv("REPSTOS_VARIANT");
	int f, n, named = 0, forced = 0;

	for (f = 0; f < REPSTOS_NFAMILY; f++)
		c->mods.fam[f].variant = tab->tuning.fam[f].variant;
	c->why = tab->tuning.source;
	if (!v || !*v || !strcmp(v, "auto"))
		return;
	for (f = 0; f < REPSTOS_NFAMILY; f++) {
		n = repstos_family_by_name(&repstos_families[f], v);
		if (n < 0)
			continue;
		named = 1;
		if (!repstos_family_runs(&repstos_families[f], &cpu, n))
			continue;
		c->mods.fam[f].variant = n;
		c->mods.fam[f].forced = forced = 1;
	}
	if (!named)
		warn("unknown REPSTOS_VARIANT '%s', using auto", v);
	else if (!forced)
		warn("REPSTOS_VARIANT '%s' needs instructions this CPU lacks, "
		     "using auto", v);
	if (c->mods.fam[REPSTOS_FAMILY_SET].forced)
		c->why = "forced by REPSTOS_VARIANT";
}

/* REPSTOS_PATCH: its words, the first three for ROUTE_AUTO, then one
 * for each route in the order of enum route. */
static void read_route(struct config *c)
{
	static const char words[][9] = { "", "1", "auto", "mem", "mprotect", "0" };
	const char *v = secure_getenv("REPSTOS_PATCH");
	unsigned i;

	c->route = ROUTE_AUTO;
	if (!v)
		return;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(v, words[i])) {
			c->route = i < 3 ? ROUTE_AUTO : (enum route)(i - 2);
			return;
		}
	warn("unknown REPSTOS_PATCH '%s', using auto", v);
}

/* The tuning file repstos_tune() wrote, if there is one for this CPU
 * (runtime/policy/tuning.c reads it; one open() when there is none).  A
 * set-user-ID or otherwise secure program says nothing about it: what
 * it could say about a file its user cannot read is an oracle.  Where
 * the reader is not linked (librepstos.a: -DREPSTOS_TUNING_FILE is not
 * given) the policy's numbers are used, no file is looked at, and with
 * REPSTOS_DEBUG one line says so of a file that is there. */
static void read_tuning(struct config *c)
{
	const char *path = repstos_tuning_path();
#if REPSTOS_TUNING_FILE
	int other, r;

	r = repstos_tuning_load(path, &cpu, &tab->tuning, &other);
	if (r < 0 && !getauxval(AT_SECURE))
		warn("%s: malformed tuning file, ignored", path);
	else if (other && c->debug)
		warn("%s: tuning file is for another CPU, ignored", path);
#else
	repstos_policy_tuning(&cpu, &tab->tuning);
	if (c->debug && *path && !access(path, F_OK))
		warn("%s: tuning file not read: " NOT_LINKED, path);
#endif
}

/*
 * REPSTOS_CPU=profile: choose as the policy would on that CPU (its
 * vendor, family and model), with only the features both it and this
 * CPU have, so no routine this CPU lacks can be chosen.  For trying a
 * deployment's choice here, and for the tests.
 */
static void read_cpu(void)
{
	const char *name = secure_getenv("REPSTOS_CPU");

	if (repstos_cpu_as(&cpu, name))
		warn("unknown REPSTOS_CPU '%s', using this CPU", name);
}

/* Every REPSTOS_* variable is read with secure_getenv(): in a secure
 * execution (set-user-ID, file capabilities: AT_SECURE) the user who
 * starts the program does not choose what it runs or which file it
 * opens, as glibc treats its own variables; such a program runs as if
 * none were set, records nothing, and reads only the profiles installed
 * by root. */
STARTUP_FN void read_config(struct config *c)
{
	const char *d = secure_getenv("REPSTOS_DEBUG");
	const char *r = secure_getenv("REPSTOS_PROFILE");
	int f;

	c->debug = !d || !*d || !strcmp(d, "0") ? 0 : !strcmp(d, "2") ? 2 : 1;
	read_cpu();
	read_tuning(c);
	for (f = 0; f < REPSTOS_NFAMILY; f++)
		c->cost_forms[f] = repstos_cost_forms(&tab->tuning.fam[f].costs);
	read_variant(c);
	read_route(c);
	c->record = r && *r ? r : NULL;
}


/* ---- reporting -------------------------------------------------------- */

/* The module's file, or the program's. */
STARTUP_FN const char *module_name(const struct module *mod)
{
	Dl_info info;

	if (dladdr((const void *)mod->info, &info) && info.dli_fname &&
	    *info.dli_fname)
		return info.dli_fname;
	return program_invocation_name;
}

/* Why each route that was tried said no. */
static void report_refusals(const struct writer *w, FILE *f)
{
	int e = w->mprotect_errno;

	if (w->mem_errno)
		fprintf(f, " (/proc/self/mem: %s)", strerror(w->mem_errno));
	if (w->rie)
		fprintf(f, " (mprotect: under READ_IMPLIES_EXEC its window "
			"would be writable and executable)");
	else if (w->noprobe)
		fprintf(f, " (mprotect: no page of this start-up's file to "
			"probe first)");
	else if (w->crowded == EINVAL)	/* both routes, see crowded */
		fprintf(f, " (another thread shares the address space)");
	else if (w->crowded > 0)
		fprintf(f, " (cannot tell if single-threaded: %s)",
			strerror(w->crowded));
	else if (e)
		fprintf(f, " (mprotect: %s)", strerror(e));
	if (w->beside)
		fprintf(f, " (mprotect: %u on the pages of its own window's "
			"code)", w->beside);
}

/* What follows a count: "1 site", "2 sites". */
static const char *plural(unsigned n)
{
	return n == 1 ? "" : "s";
}

/* Sites calling a routine this CPU lacks are rewritten if text can be
 * written; if not, they stay, and that routine runs "vec" instead. */
static void report_static(const struct module *mod, FILE *f)
{
	unsigned stay = mod->stats->lacking - mod->stats->rescued;
	unsigned left = mod->stats->sites - mod->stats->rescued;

	fprintf(f, "statically patched for '%.16s' by repstos patch: %u site%s "
		"left as %s", (const char *)mod->info->profile, left,
		plural(left), left == 1 ? "it is" : "they are");
	if (mod->stats->rescued)
		fprintf(f, ", %u calling a routine this CPU lacks rewritten",
			mod->stats->rescued);
	if (!stay)
		return;
	fprintf(f, ", %u of them calling a routine this CPU lacks, which "
		"runs vec in its place", stay);
	if (cfg.route == ROUTE_OFF) {
		fprintf(f, ": text patching off (REPSTOS_PATCH=0)");
	} else {
		fprintf(f, ": writing text refused");
		report_refusals(&mod->writer, f);
	}
}

static void report_outcome(const struct module *mod, FILE *f)
{
	const struct repstos_stats *st = mod->stats;

	switch (st->status) {
	case REPSTOS_ST_STATIC:
		report_static(mod, f);
		break;
	case REPSTOS_ST_DISABLED:
		fprintf(f, "text patching off (REPSTOS_PATCH=0): %u site%s "
			"call%s the stub", st->sites, plural(st->sites),
			st->sites == 1 ? "s" : "");
		break;
	case REPSTOS_ST_REFUSED:
		fprintf(f, "%u site%s, none patched: writing text refused",
			st->sites, plural(st->sites));
		report_refusals(&mod->writer, f);
		fprintf(f, "; sites stay stub calls");
		break;
	default:
		fprintf(f, "%u site%s: %u patched, %u kept, %u fixed, %u "
			"skipped; %u page%s", st->sites, plural(st->sites),
			st->patched, st->kept, st->fixed, st->skipped,
			st->pages, plural(st->pages));
		if (*st->method)
			fprintf(f, " via %s", st->method);
		if (mod->writer.unwritten)
			report_refusals(&mod->writer, f);
		fprintf(f, " in %llu us (patching %llu us)", st->nsec / 1000,
			st->patch_nsec / 1000);
	}
	if (HIST(mod))
		fprintf(f, "; sites chosen with the profile %s",
			mod->profile ? mod->profile : "installed");
	if (mod->narrow[0] || mod->narrow[1])
		fprintf(f, "; sites from an older plugin (entry version 1 or 2) "
			"and the stub get SSE or rep forms only");
	if (RECORDING(mod))
		fprintf(f, "; recording sizes to %s", cfg.record);
}

STARTUP_FN void report(const struct module *mod)
{
	char feats[128];

	repstos_feature_names(cpu.features, feats, sizeof(feats));
	fprintf(stderr, "repstos: %s: cpu %s family 0x%x model 0x%x [%s]; "
		"variant %s (%s), copy %s%s; ", module_name(mod),
		cpu.vendor == REPSTOS_VENDOR_INTEL ? "intel" :
		cpu.vendor == REPSTOS_VENDOR_AMD ? "amd" : "other",
		cpu.family, cpu.model, feats,
		repstos_variant_names[cfg.mods.fam[REPSTOS_FAMILY_SET].variant],
		cfg.why,
		repstos_copy_variant_names[cfg.mods.fam[REPSTOS_FAMILY_COPY].variant],
		cfg.mods.fam[REPSTOS_FAMILY_COPY].forced ? " (forced)" : "");
	report_outcome(mod, stderr);
	if (!mod->fam[0].choice && !mod->fam[1].choice)
		fprintf(stderr, "; start-up shared");
	fputc('\n', stderr);
}
