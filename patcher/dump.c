// SPDX-License-Identifier: MIT
/*
 * dump.c - `repstos dump`: one line per site, objdump-like; --json for
 * programs (one object per site and a summary), --stats for counts.
 */
#include <string.h>

#include "patcher.h"
#include "policy/profile.h"

enum size_class { SC_UNKNOWN, SC_16, SC_64, SC_256, SC_2K, SC_BIG, SC_COUNT };

const char *const rs_size_class_names[RS_SC_COUNT] = {
	"unknown", "0-16", "17-64", "65-256", "257-2048", "2049+",
};
_Static_assert(SC_COUNT == RS_SC_COUNT, "rs_size_class_names");

static const char *const form_names[] = {
	[REPSTOS_FORM_BAD] = "bad",
	[REPSTOS_FORM_STUB] = "stub",
	[REPSTOS_FORM_CALL] = "call",
	[REPSTOS_FORM_INLINE] = "inline",
};

/* Size class by the largest size the compiler allowed. */
unsigned rs_size_class(unsigned kind, uint32_t size_max)
{
	if (kind == REPSTOS_SIZE_UNKNOWN || kind >= REPSTOS_SIZE_KIND_COUNT)
		return SC_UNKNOWN;
	if (size_max <= 16)
		return SC_16;
	if (size_max <= 64)
		return SC_64;
	if (size_max <= 256)
		return SC_256;
	if (size_max <= 2048)
		return SC_2K;
	return SC_BIG;
}

static enum size_class size_class(const struct repstos_site *e)
{
	return rs_size_class(repstos_site_kind(e), e->size_max);
}

struct stats {
	size_t sites, unresolved;
	size_t op[REPSTOS_OP_COUNT + 1];	/* last: unknown op */
	size_t form[4];
	size_t variant[REPSTOS_VARIANT_COUNT];
	size_t copy_variant[REPSTOS_COPY_VARIANT_COUNT];
	size_t copies;		/* sites of a copy op */
	size_t sc[SC_COUNT];
};

static const char *op_name(unsigned op)
{
	return op < REPSTOS_OP_COUNT ? rs_op_names[op] : "?";
}

static void size_text(const struct repstos_site *e, char *buf, size_t len)
{
	switch (repstos_site_kind(e)) {
	case REPSTOS_SIZE_CONST:
		snprintf(buf, len, "size=%u", e->size_min);
		break;
	case REPSTOS_SIZE_BOUNDED:
		if (e->size_max == REPSTOS_SIZE_SAT)
			snprintf(buf, len, "size=%u..", e->size_min);
		else
			snprintf(buf, len, "size=%u..%u", e->size_min, e->size_max);
		break;
	default:
		snprintf(buf, len, "size=?");
	}
}

/* What the site runs, in words: "stub", a variant name, "inline". */
static const char *form_text(const struct rs_site *s)
{
	if (s->form == REPSTOS_FORM_CALL)
		return rs_variant_text(s->e.op, s->variant);
	return form_names[s->form];
}

static void hex_bytes(const uint8_t *p, size_t n, char *buf, bool spaces)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		sprintf(buf + strlen(buf), "%s%02x", spaces && i ? " " : "", p[i]);
}

void rs_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

struct site_text {
	char where[256];
	char bytes[3 * 256];
	char disasm[1024];
	char size[48];
	const char *file;
	int line;
};

static void describe(struct rs_elf *f, struct rs_lines *l,
		     const struct rs_site *s, struct site_text *st)
{
	const uint8_t *p = rs_sec_bytes(f, s->sec, s->off, s->e.len);

	rs_where(f, s->sec, s->off, st->where, sizeof(st->where));
	size_text(&s->e, st->size, sizeof(st->size));
	hex_bytes(p, s->e.len, st->bytes, true);
	rs_disasm(p, s->e.len, s->addr, st->disasm, sizeof(st->disasm));
	st->file = NULL;
	st->line = 0;
	rs_lines_find(l, s->sec, s->off, &st->file, &st->line);
}

static void text_site(struct rs_elf *f, FILE *out, const struct rs_site *s,
		      const struct site_text *st)
{
	char src[300], op[32];

	if (!s->known) {
		fprintf(out, "%16s  %s+0x%llx  entry %zu: %s\n", "?",
			f->sec[s->tsec].name, (unsigned long long)s->toff,
			s->entry, s->bad);
		return;
	}
	if (st->file)
		snprintf(src, sizeof(src), "%s:%d", st->file, st->line);
	else
		snprintf(src, sizeof(src), "-");
	/* a narrow site (an older plugin's) says so: its forms are few */
	if (repstos_version_narrow(s->e.version))
		snprintf(op, sizeof(op), "%s/v%u", op_name(s->e.op), s->e.version);
	else
		snprintf(op, sizeof(op), "%s%s", op_name(s->e.op),
			 repstos_site_use(&s->e) & REPSTOS_USE_READ ? "+read" : "");
	fprintf(out, "%16llx  %s+0x%llx  %s  %s  %s  %s  %s  %s  %s%s%s\n",
		(unsigned long long)s->addr, f->sec[s->sec].name,
		(unsigned long long)s->off, st->where, src, op,
		st->size, st->bytes, st->disasm, form_text(s),
		s->target_name ? " " : "", s->target_name ? s->target_name : "");
}

/* "size_min": N, "size_max": N, with null for what is not known: both
 * for an unknown size, the top of a bounded one that saturated. */
static void json_sizes(FILE *out, const struct repstos_site *e)
{
	if (repstos_site_kind(e) != REPSTOS_SIZE_CONST &&
	    repstos_site_kind(e) != REPSTOS_SIZE_BOUNDED) {
		fputs("\"size_min\": null, \"size_max\": null", out);
		return;
	}
	fprintf(out, "\"size_min\": %u, \"size_max\": ", e->size_min);
	if (e->size_max == REPSTOS_SIZE_SAT)
		fputs("null", out);
	else
		fprintf(out, "%u", e->size_max);
}

static void json_site(struct rs_elf *f, FILE *out, const struct rs_site *s,
		      const struct site_text *st, bool first)
{
	const uint8_t *p;
	char hex[2 * 256 + 1];

	fprintf(out, "%s\n    {\"entry\": %zu, ", first ? "" : ",", s->entry);
	if (!s->known) {
		fprintf(out, "\"table_offset\": %llu, \"error\": ",
			(unsigned long long)s->toff);
		rs_json_str(out, s->bad);
		fprintf(out, ", \"version\": %u}", s->e.version);
		return;
	}
	p = rs_sec_bytes(f, s->sec, s->off, s->e.len);
	hex_bytes(p, s->e.len, hex, false);
	fprintf(out, "\"address\": \"0x%llx\", \"section\": ",
		(unsigned long long)s->addr);
	rs_json_str(out, f->sec[s->sec].name);
	fprintf(out, ", \"offset\": %llu, \"function\": ", (unsigned long long)s->off);
	if (s->func) {
		rs_json_str(out, s->func->name);
		fprintf(out, ", \"function_offset\": %llu",
			(unsigned long long)(s->off - (s->func->value -
						       rs_sec_start(f, s->sec))));
	} else {
		fputs("null, \"function_offset\": null", out);
	}
	fputs(", \"file\": ", out);
	if (st->file) {
		rs_json_str(out, st->file);
		fprintf(out, ", \"line\": %d", st->line);
	} else {
		fputs("null, \"line\": null", out);
	}
	fprintf(out, ", \"op\": \"%s\", \"version\": %u, \"size_kind\": \"%s\", ",
		op_name(s->e.op), s->e.version,
		repstos_site_kind(&s->e) < REPSTOS_SIZE_KIND_COUNT ?
		rs_size_names[repstos_site_kind(&s->e)] : "?");
	fprintf(out, "\"use\": %s, ", repstos_site_use(&s->e) & REPSTOS_USE_READ ?
		"\"read\"" : "null");
	json_sizes(out, &s->e);
	fprintf(out, ", \"len\": %u, \"bytes\": \"%s\", \"disasm\": ", s->e.len, hex);
	rs_json_str(out, st->disasm);
	fprintf(out, ", \"form\": \"%s\", \"variant\": ", form_names[s->form]);
	if (s->form == REPSTOS_FORM_CALL || s->form == REPSTOS_FORM_INLINE)
		rs_json_str(out, form_text(s));
	else
		fputs("null", out);
	fputs(", \"target\": ", out);
	if (s->target_name)
		rs_json_str(out, s->target_name);
	else
		fputs("null", out);
	if (s->form == REPSTOS_FORM_BAD) {
		fputs(", \"problem\": ", out);
		rs_json_str(out, s->form_why);
	}
	fputc('}', out);
}

static void count(struct stats *st, const struct rs_site *s)
{
	st->sites++;
	if (!s->known) {
		st->unresolved++;
		return;
	}
	st->op[s->e.op < REPSTOS_OP_COUNT ? s->e.op : REPSTOS_OP_COUNT]++;
	st->form[s->form]++;
	if (repstos_op_is_copy(s->e.op))
		st->copies++;
	if (s->variant >= 0 && repstos_op_is_copy(s->e.op))
		st->copy_variant[s->variant]++;
	else if (s->variant >= 0)
		st->variant[s->variant]++;
	st->sc[size_class(&s->e)]++;
}

static void module_text(struct rs_elf *f, char *buf, size_t len)
{
	struct repstos_module_info mi;
	const char *why;

	if (f->rel)
		snprintf(buf, len, "object (no module record)");
	else if (rs_module_read(f, &mi, &why))
		snprintf(buf, len, "%s", why);
	else if (mi.flags & REPSTOS_MOD_STATIC)
		snprintf(buf, len, "static (%.15s)", mi.profile);
	else
		snprintf(buf, len, "patched at run time");
}

static void text_stats(FILE *out, const struct stats *st)
{
	int i;

	fprintf(out, "op:");
	for (i = 0; i < REPSTOS_OP_COUNT; i++)
		fprintf(out, " %s %zu", rs_op_names[i], st->op[i]);
	if (st->op[REPSTOS_OP_COUNT])
		fprintf(out, " ? %zu", st->op[REPSTOS_OP_COUNT]);
	fprintf(out, "\nform:");
	for (i = REPSTOS_FORM_STUB; i <= REPSTOS_FORM_INLINE; i++)
		fprintf(out, " %s %zu", form_names[i], st->form[i]);
	fprintf(out, " bad %zu unresolved %zu\nvariant:", st->form[REPSTOS_FORM_BAD],
		st->unresolved);
	for (i = 0; i < REPSTOS_VARIANT_COUNT; i++)
		fprintf(out, " %s %zu", rs_variant_names[i], st->variant[i]);
	/* Only where there are copies: the line memset-only files had
	 * stays as it was. */
	if (st->copies) {
		fprintf(out, "\ncopy variant:");
		for (i = 0; i < REPSTOS_COPY_VARIANT_COUNT; i++)
			fprintf(out, " %s %zu", repstos_copy_variant_names[i],
				st->copy_variant[i]);
	}
	fprintf(out, "\nsize:");
	for (i = 0; i < SC_COUNT; i++)
		fprintf(out, " %s %zu", rs_size_class_names[i], st->sc[i]);
	fputc('\n', out);
}

void rs_json_counts(FILE *out, const char *key, const char *const *names,
		    const size_t *n, int count)
{
	int i;

	fprintf(out, ", \"%s\": {", key);
	for (i = 0; i < count; i++)
		fprintf(out, "%s\"%s\": %zu", i ? ", " : "", names[i], n[i]);
	fputc('}', out);
}

static void json_summary(struct rs_elf *f, FILE *out, const struct stats *st)
{
	struct repstos_module_info mi;
	const char *why;

	fprintf(out, "\n  ],\n  \"summary\": {\"sites\": %zu, \"unresolved\": %zu",
		st->sites, st->unresolved);
	rs_json_counts(out, "op", rs_op_names, st->op, REPSTOS_OP_COUNT);
	rs_json_counts(out, "form", form_names, st->form, 4);
	rs_json_counts(out, "variant", rs_variant_names, st->variant,
		    REPSTOS_VARIANT_COUNT);
	rs_json_counts(out, "copy_variant", repstos_copy_variant_names,
		    st->copy_variant, REPSTOS_COPY_VARIANT_COUNT);
	rs_json_counts(out, "size_class", rs_size_class_names, st->sc, SC_COUNT);
	fputs(", \"module\": ", out);
	if (f->rel || rs_module_read(f, &mi, &why)) {
		fputs("null", out);
	} else {
		fprintf(out, "{\"static\": %s, \"profile\": ",
			mi.flags & REPSTOS_MOD_STATIC ? "true" : "false");
		mi.profile[sizeof(mi.profile) - 1] = '\0';
		rs_json_str(out, mi.profile);
		fputc('}', out);
	}
	fputs("}\n}\n", out);
}

/* A PIE is an ET_DYN with an interpreter. */
static bool has_interp(const struct rs_elf *f)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(f->elf, i, &ph) && ph.p_type == PT_INTERP)
			return true;
	return false;
}

/* A PIE without an interpreter is a static PIE: the linker marks every
 * PIE with DF_1_PIE, which no shared object has. */
static bool is_pie(const struct rs_elf *f)
{
	return rs_dynamic_has(f, DT_FLAGS_1, DF_1_PIE, NULL);
}

const char *rs_type_name(const struct rs_elf *f)
{
	if (f->rel)
		return "object";
	if (f->eh.e_type == ET_EXEC)
		return "executable";
	if (has_interp(f))
		return "pie";
	return is_pie(f) ? "static-pie" : "shared";
}

int rs_dump(struct rs_elf *f, FILE *out, const struct rs_dump_opts *o)
{
	bool json = o->json, stats = o->stats;
	static struct site_text st;
	struct stats sum = { 0 };
	struct rs_lines *l = NULL;
	struct rs_table t;
	char mod[128];
	size_t i, guessed = 0;

	if (rs_kernel_file(f))
		return rs_kernel_dump(f, out, o);
	if (rs_table_load(f, &t))
		return RS_EXIT_BAD;
	/* JSON stays JSON for its reader: no sites, no module record. */
	if (t.absent && (!json || o->require_sites))
		return rs_no_table(f, o->require_sites, out);
	if (json || !stats)
		l = rs_lines_open(f);
	module_text(f, mod, sizeof(mod));
	if (json) {
		if (o->json_array && !o->json_first)
			fputs(",\n", out);
		fprintf(out, "{\"schema\": %d, \"file\": ", RS_JSON_SCHEMA);
		rs_json_str(out, f->path);
		fprintf(out, ", \"type\": \"%s\", \"sites\": [", rs_type_name(f));
	} else {
		fprintf(out, "%s: %s, %zu site%s, %s\n", f->path,
			rs_type_name(f), t.n, rs_plural(t.n), mod);
	}
	for (i = 0; i < t.n; i++) {
		const struct rs_site *s = &t.site[i];

		count(&sum, s);
		guessed += s->known && s->guessed;
		if (stats && !json)
			continue;
		if (s->known)
			describe(f, l, s, &st);
		if (json)
			json_site(f, out, s, &st, i == 0);
		else
			text_site(f, out, s, &st);
	}
	if (json)
		json_summary(f, out, &sum);
	else if (stats)
		text_stats(out, &sum);
	/* what the ? after a target's name means, where one is shown */
	if (guessed && !json && !stats)
		fprintf(out, "(?: no symbol names the call target, a stripped "
			"file's: it was known by its first instructions, as "
			"this tool's own copy of that routine begins)\n");
	rs_lines_close(l);
	rs_table_free(&t);
	return RS_EXIT_OK;
}

/* ---- dump --profile ----------------------------------------------------- */

static void class_text(unsigned c, char *buf, size_t len)
{
	unsigned long long lo = repstos_class_lo(c), hi = repstos_class_hi(c);

	if (c == REPSTOS_NCLASS - 1)
		snprintf(buf, len, "%llu+", lo);
	else if (lo == hi)
		snprintf(buf, len, "%llu", lo);
	else
		snprintf(buf, len, "%llu..%llu", lo, hi);
}

/* The class that holds the pct-th percentile of the calls. */
static unsigned percentile(const unsigned long long *h,
			   unsigned long long calls, unsigned pct)
{
	unsigned __int128 cum = 0;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS - 1; c++) {
		cum += h[c];
		if (cum * 100 >= (unsigned __int128)calls * pct)
			break;
	}
	return c;
}

/* "top 16..31 (80%)  p50 16..31  p90 32..63": where the calls fell. */
static void hist_text(const unsigned long long *h, unsigned long long calls,
		      char *buf, size_t len)
{
	char top[32], p50[32], p90[32];
	unsigned c, t = 0;

	for (c = 1; c < REPSTOS_NCLASS; c++)
		if (h[c] > h[t])
			t = c;
	class_text(t, top, sizeof(top));
	class_text(percentile(h, calls, 50), p50, sizeof(p50));
	class_text(percentile(h, calls, 90), p90, sizeof(p90));
	snprintf(buf, len, "top %s (%.0f%%)  p50 %s  p90 %s", top,
		 100.0 * (double)h[t] / (double)calls, p50, p90);
}

/* Mean ns per call of form v over the profile's calls of a site of op,
 * as the choice expects it (its changes of size class included); < 0:
 * unknown. */
static double mean_ns(const struct rs_choice *c, unsigned op, int v,
		      const unsigned long long *h, unsigned long long calls)
{
	unsigned long long w = repstos_policy_expected(rs_choice_table(c, op),
						       v, h);

	return w == ~0ull ? -1 : (double)w / 100.0 / (double)calls;
}

/* The chosen form against its family's module routine; adds to *saved
 * (ns). */
static void gain_text(const struct rs_choice *c, unsigned op, int v,
		      const unsigned long long *h, unsigned long long calls,
		      double *saved, char *buf, size_t len)
{
	int module = rs_choice_module(c, op);
	double m = mean_ns(c, op, module, h, calls);
	double x = mean_ns(c, op, v, h, calls);

	if (x < 0 && v == repstos_family_of(op)->range_form) {
		snprintf(buf, len, "gain ? (%s: sizes over 16..63, which no "
			 "cost table times)", rs_variant_text(op, v));
		return;
	}
	if (m < 0 || x < 0) {
		snprintf(buf, len, "gain ? (no cost for %s)",
			 rs_variant_text(op, m < 0 ? module : v));
		return;
	}
	*saved += (m - x) * (double)calls;
	snprintf(buf, len, "gain %.2f ns/call (%s %.2f, %s %.2f)", m - x,
		 rs_variant_text(op, module), m, rs_variant_text(op, v), x);
}

/* The variant s gets in a linked file whose routines are rt (NULL: an
 * object, which links its routines later): the choice, or in a file from
 * before it the module routine (*older: the symbol it lacks). */
static int site_variant(const struct rs_choice *c, const struct rs_routine *rt,
			const struct rs_site *s, struct repstos_decision d,
			const char **older)
{
	int r = rs_routine_of(s->e.op, d.form);

	*older = NULL;
	if (!rt || d.in_place || r < 0 || r >= RS_NROUTINES ||
	    !(*older = rs_choice_older(c, rt, s, &r)))
		return d.form;
	return rs_choice_module_for(c, s);
}

static void profile_site(struct rs_elf *f, FILE *out, const struct rs_site *s,
			 const struct site_text *st, const struct rs_choice *c,
			 const struct rs_routine *rt, double *saved)
{
	const unsigned long long *h = c->hist[s->entry];
	unsigned long long calls = repstos_profile_calls(h);
	struct repstos_decision d = rs_choice_site(c, s);
	const char *older;
	int v = site_variant(c, rt, s, d, &older);
	char sizes[128], gain[128], src[300] = "-";

	if (st->file)
		snprintf(src, sizeof(src), "%s:%d", st->file, st->line);
	fprintf(out, "%5zu  %s  %s  %s  %s  calls %llu", s->entry, st->where,
		src, op_name(s->e.op), st->size, calls);
	if (d.why == REPSTOS_WHY_PINNED) {
		fprintf(out, "  now %s  chosen %s (pinned)\n", form_text(s),
			rs_variant_text(s->e.op, v));
		return;
	}
	if (!calls) {
		fprintf(out, "  now %s  chosen %s (no calls)\n", form_text(s),
			rs_variant_text(s->e.op, v));
		return;
	}
	hist_text(h, calls, sizes, sizeof(sizes));
	if (rs_choice_costs(c, s->e.op))
		gain_text(c, s->e.op, v, h, calls, saved, gain, sizeof(gain));
	else
		snprintf(gain, sizeof(gain), "gain ? (no cost table)");
	if (older)
		snprintf(gain, sizeof(gain), "(%s is not in this file: linked "
			 "with an older librepstos.a)", older);
	fprintf(out, "  %s  now %s  chosen %s  %s\n", sizes, form_text(s),
		rs_variant_text(s->e.op, v), gain);
}

static void profile_head(struct rs_elf *f, FILE *out, const struct rs_table *t,
			 const struct rs_choice *c, const char *cpu,
			 const char *profile)
{
	unsigned long long calls = 0;
	char mod[128];
	size_t i;

	for (i = 0; i < t->n; i++)
		calls += repstos_profile_calls(c->hist[i]);
	module_text(f, mod, sizeof(mod));
	fprintf(out, "%s: %s, %zu site%s, %s, table %016llx\n", f->path,
		rs_type_name(f), t->n, rs_plural(t->n), mod,
		(unsigned long long)rs_table_hash(t));
	fprintf(out, "profile %s: %u section%s, ", profile, c->sections,
		rs_plural(c->sections));
	if (c->pins)
		fprintf(out, "%u site%s pinned, ", c->pins,
			rs_plural(c->pins));
	fprintf(out, "%llu call%s; --cpu=%s: %s, "
		"module routine %s%s, copy routine %s%s\n", calls,
		rs_plural(calls), cpu,
		c->tuning.source,
		rs_variant_names[c->mods.fam[REPSTOS_FAMILY_SET].variant],
		rs_choice_costs(c, REPSTOS_OP_MEMSET) ? "" : " (no cost table: "
		"forms by the policy's rule)",
		repstos_copy_variant_names[c->mods.fam[REPSTOS_FAMILY_COPY].variant],
		rs_choice_costs(c, REPSTOS_OP_COPY) ? "" : " (no copy cost table)");
}

int rs_dump_profile(struct rs_elf *f, FILE *out, const char *cpu,
		    const char *profile)
{
	static struct site_text st;
	struct rs_choice c;
	struct rs_lines *l;
	struct rs_table t;
	double saved = 0;
	size_t i;

	if (rs_choice_cpu(&c, f->path, cpu) || rs_table_load(f, &t))
		return RS_EXIT_BAD;
	if (rs_choice_forced(&c) || rs_choice_profile(&c, f, &t, profile)) {
		if (rs_choice_forced(&c))
			rs_err(f->path, "--cpu=%s forces one routine: give a CPU",
			       cpu);
		rs_table_free(&t);
		return RS_EXIT_BAD;
	}
	profile_head(f, out, &t, &c, cpu, profile);
	l = rs_lines_open(f);
	for (i = 0; i < t.n; i++) {
		const struct rs_site *s = &t.site[i];

		if (!s->known) {
			fprintf(out, "%5zu  ?  %s\n", s->entry, s->bad);
			continue;
		}
		describe(f, l, s, &st);
		profile_site(f, out, s, &st, &c, f->rel ? NULL : t.routine,
			     &saved);
	}
	if (rs_choice_costs(&c, REPSTOS_OP_MEMSET) ||
	    rs_choice_costs(&c, REPSTOS_OP_COPY))
		fprintf(out, "predicted: %.0f ns saved over the profiled calls "
			"against %s at every set site and %s at every copy "
			"site\n", saved,
			rs_variant_names[c.mods.fam[REPSTOS_FAMILY_SET].variant],
			repstos_copy_variant_names[c.mods.fam[REPSTOS_FAMILY_COPY].variant]);
	rs_lines_close(l);
	rs_choice_free(&c);
	rs_table_free(&t);
	return RS_EXIT_OK;
}
