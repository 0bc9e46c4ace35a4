// SPDX-License-Identifier: MIT
/*
 * dump.c - `repstos dump`: one line per site, objdump-like; --json for
 * programs (one object per site and a summary), --stats for counts.
 */
#include <string.h>

#include "patcher.h"

enum size_class { SC_UNKNOWN, SC_16, SC_64, SC_256, SC_2K, SC_BIG, SC_COUNT };

static const char *const sc_names[SC_COUNT] = {
	"unknown", "0-16", "17-64", "65-256", "257-2048", "2049+",
};

static const char *const form_names[] = {
	[RS_FORM_BAD] = "bad",
	[RS_FORM_STUB] = "stub",
	[RS_FORM_CALL] = "call",
	[RS_FORM_INLINE] = "inline",
};

/* Size class by the largest size the compiler allowed. */
static enum size_class size_class(const struct repstos_site *e)
{
	if (e->size_kind == REPSTOS_SIZE_UNKNOWN || e->size_kind >= REPSTOS_SIZE_KIND_COUNT)
		return SC_UNKNOWN;
	if (e->size_max <= 16)
		return SC_16;
	if (e->size_max <= 64)
		return SC_64;
	if (e->size_max <= 256)
		return SC_256;
	if (e->size_max <= 2048)
		return SC_2K;
	return SC_BIG;
}

struct stats {
	size_t sites, unresolved;
	size_t op[REPSTOS_OP_COUNT + 1];	/* last: unknown op */
	size_t form[4];
	size_t variant[REPSTOS_VARIANT_COUNT];
	size_t sc[SC_COUNT];
};

static const char *op_name(unsigned op)
{
	return op < REPSTOS_OP_COUNT ? rs_op_names[op] : "?";
}

static void size_text(const struct repstos_site *e, char *buf, size_t len)
{
	switch (e->size_kind) {
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
	if (s->form == RS_FORM_CALL)
		return s->variant >= 0 ? rs_variant_names[s->variant] : "routine?";
	return form_names[s->form];
}

static void hex_bytes(const uint8_t *p, size_t n, char *buf, bool spaces)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		sprintf(buf + strlen(buf), "%s%02x", spaces && i ? " " : "", p[i]);
}

static void json_str(FILE *out, const char *s)
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
	char src[300];

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
	fprintf(out, "%16llx  %s+0x%llx  %s  %s  %s  %s  %s  %s  %s%s%s\n",
		(unsigned long long)s->addr, f->sec[s->sec].name,
		(unsigned long long)s->off, st->where, src, op_name(s->e.op),
		st->size, st->bytes, st->disasm, form_text(s),
		s->target_name ? " " : "", s->target_name ? s->target_name : "");
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
		json_str(out, s->bad);
		fprintf(out, ", \"version\": %u}", s->e.version);
		return;
	}
	p = rs_sec_bytes(f, s->sec, s->off, s->e.len);
	hex_bytes(p, s->e.len, hex, false);
	fprintf(out, "\"address\": \"0x%llx\", \"section\": ",
		(unsigned long long)s->addr);
	json_str(out, f->sec[s->sec].name);
	fprintf(out, ", \"offset\": %llu, \"function\": ", (unsigned long long)s->off);
	if (s->func) {
		json_str(out, s->func->name);
		fprintf(out, ", \"function_offset\": %llu",
			(unsigned long long)(s->off - (s->func->value -
						       rs_sec_start(f, s->sec))));
	} else {
		fputs("null, \"function_offset\": null", out);
	}
	fputs(", \"file\": ", out);
	if (st->file) {
		json_str(out, st->file);
		fprintf(out, ", \"line\": %d", st->line);
	} else {
		fputs("null, \"line\": null", out);
	}
	fprintf(out, ", \"op\": \"%s\", \"size_kind\": \"%s\", \"size_min\": %u, \"size_max\": %u, \"len\": %u, \"bytes\": \"%s\", \"disasm\": ",
		op_name(s->e.op),
		s->e.size_kind < REPSTOS_SIZE_KIND_COUNT ? rs_size_names[s->e.size_kind] : "?",
		s->e.size_min, s->e.size_max, s->e.len, hex);
	json_str(out, st->disasm);
	fprintf(out, ", \"form\": \"%s\", \"variant\": ", form_names[s->form]);
	if (s->form == RS_FORM_CALL || s->form == RS_FORM_INLINE)
		json_str(out, form_text(s));
	else
		fputs("null", out);
	fputs(", \"target\": ", out);
	if (s->target_name)
		json_str(out, s->target_name);
	else
		fputs("null", out);
	if (s->form == RS_FORM_BAD) {
		fputs(", \"problem\": ", out);
		json_str(out, s->form_why);
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
	if (s->variant >= 0)
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
	for (i = RS_FORM_STUB; i <= RS_FORM_INLINE; i++)
		fprintf(out, " %s %zu", form_names[i], st->form[i]);
	fprintf(out, " bad %zu unresolved %zu\nvariant:", st->form[RS_FORM_BAD],
		st->unresolved);
	for (i = 0; i < REPSTOS_VARIANT_COUNT; i++)
		fprintf(out, " %s %zu", rs_variant_names[i], st->variant[i]);
	fprintf(out, "\nsize:");
	for (i = 0; i < SC_COUNT; i++)
		fprintf(out, " %s %zu", sc_names[i], st->sc[i]);
	fputc('\n', out);
}

static void json_counts(FILE *out, const char *key, const char *const *names,
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
	json_counts(out, "op", rs_op_names, st->op, REPSTOS_OP_COUNT);
	json_counts(out, "form", form_names, st->form, 4);
	json_counts(out, "variant", rs_variant_names, st->variant,
		    REPSTOS_VARIANT_COUNT);
	json_counts(out, "size_class", sc_names, st->sc, SC_COUNT);
	fputs(", \"module\": ", out);
	if (f->rel || rs_module_read(f, &mi, &why)) {
		fputs("null", out);
	} else {
		fprintf(out, "{\"static\": %s, \"profile\": ",
			mi.flags & REPSTOS_MOD_STATIC ? "true" : "false");
		mi.profile[sizeof(mi.profile) - 1] = '\0';
		json_str(out, mi.profile);
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

static const char *type_name(const struct rs_elf *f)
{
	if (f->rel)
		return "object";
	if (f->eh.e_type == ET_EXEC)
		return "executable";
	return has_interp(f) ? "pie" : "shared";
}

int rs_dump(struct rs_elf *f, FILE *out, const struct rs_dump_opts *o)
{
	bool json = o->json, stats = o->stats;
	static struct site_text st;
	struct stats sum = { 0 };
	struct rs_lines *l = NULL;
	struct rs_table t;
	char mod[128];
	size_t i;

	if (rs_table_load(f, &t))
		return RS_EXIT_BAD;
	/* JSON stays JSON for its reader: no sites, no module record. */
	if (t.absent && (!json || o->require_sites))
		return rs_no_table(f, o->require_sites, out);
	if (json || !stats)
		l = rs_lines_open(f);
	module_text(f, mod, sizeof(mod));
	if (json) {
		fputs("{\"file\": ", out);
		json_str(out, f->path);
		fprintf(out, ", \"type\": \"%s\", \"sites\": [", type_name(f));
	} else {
		fprintf(out, "%s: %s, %zu sites, %s\n", f->path, type_name(f),
			t.n, mod);
	}
	for (i = 0; i < t.n; i++) {
		const struct rs_site *s = &t.site[i];

		count(&sum, s);
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
	rs_lines_close(l);
	rs_table_free(&t);
	return RS_EXIT_OK;
}
