// SPDX-License-Identifier: MIT
/*
 * kdump.c - `repstos dump` of a kernel-mode image: one line per site
 * with what apply_alternatives() leaves there on each class of CPU, or
 * the counts (--stats), or both as JSON (--json), as dump.c does for a
 * site table.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

struct kstats {
	size_t op[REPSTOS_OP_COUNT + 1];	/* last: unknown op */
	size_t sc[RS_SC_COUNT];
	size_t inl[K_NCLASS];	/* sites inline on each class */
};

/* One site in words, as every form of the dump shows it. */
struct ktext {
	char where[128], size[32], form[K_NCLASS][48];
	const char *file;
	int line;
};

static const char *op_text(unsigned op)
{
	return op < REPSTOS_OP_COUNT ? rs_op_names[op] : "?";
}

static void size_text(const struct ksite *s, char *buf, size_t len)
{
	if (s->kind == REPSTOS_SIZE_CONST)
		snprintf(buf, len, "%u", s->min);
	else if (s->kind == REPSTOS_SIZE_BOUNDED)
		snprintf(buf, len, "%u..%u", s->min, s->max);
	else
		snprintf(buf, len, "unknown");
}

static void describe(struct rs_elf *f, const struct kfile *k,
		     struct rs_lines *l, size_t i, struct ktext *t)
{
	const struct ksite *s = &k->site[i];

	rs_where(f, s->site.sec, s->site.off, t->where, sizeof(t->where));
	size_text(s, t->size, sizeof(t->size));
	for (unsigned c = 0; c < K_NCLASS; c++)
		k_form_for(f, k, i, c, t->form[c], sizeof(t->form[c]));
	t->file = NULL;
	t->line = 0;
	rs_lines_find(l, s->site.sec, s->site.off, &t->file, &t->line);
}

static bool is_inline(const char *form)
{
	return !strcmp(form, "rep_stosb") || !strcmp(form, "rep_movsb");
}

static void count(struct kstats *st, const struct ksite *s,
		  const struct ktext *t)
{
	st->op[s->op < REPSTOS_OP_COUNT ? s->op : REPSTOS_OP_COUNT]++;
	st->sc[rs_size_class(s->kind, s->max)]++;
	for (unsigned c = 0; c < K_NCLASS; c++)
		st->inl[c] += is_inline(t->form[c]);
}

static void text_site(FILE *out, const struct ksite *s, const struct ktext *t)
{
	fprintf(out, "%-40s %-8s %-12s %-10s %-10s %-10s %-14s %-10s", t->where,
		op_text(s->op), t->size, t->form[0], t->form[1], t->form[2],
		t->form[3], t->form[4]);
	if (t->file)
		fprintf(out, " %s:%d", t->file, t->line);
	fputc('\n', out);
}

static void text_stats(FILE *out, const struct kstats *st)
{
	fprintf(out, "op:");
	for (int i = 0; i < REPSTOS_OP_COUNT; i++)
		fprintf(out, " %s %zu", rs_op_names[i], st->op[i]);
	if (st->op[REPSTOS_OP_COUNT])
		fprintf(out, " ? %zu", st->op[REPSTOS_OP_COUNT]);
	fprintf(out, "\nsize:");
	for (int i = 0; i < RS_SC_COUNT; i++)
		fprintf(out, " %s %zu", rs_size_class_names[i], st->sc[i]);
	fprintf(out, "\ninline:");
	for (unsigned c = 0; c < K_NCLASS; c++)
		fprintf(out, " %s %zu", k_class_names[c], st->inl[c]);
	fputc('\n', out);
}

static void json_site(struct rs_elf *f, FILE *out, const struct ksite *s,
		      const struct ktext *t, bool first)
{
	const struct rs_sym *fn = rs_func_at(f, s->site.sec, s->site.off);

	fprintf(out, "%s\n    {\"site\": ", first ? "" : ",");
	rs_json_str(out, t->where);
	fprintf(out, ", \"address\": \"0x%llx\", \"section\": ",
		(unsigned long long)(rs_sec_start(f, s->site.sec) + s->site.off));
	rs_json_str(out, f->sec[s->site.sec].name);
	fprintf(out, ", \"offset\": %llu, \"function\": ",
		(unsigned long long)s->site.off);
	if (fn) {
		rs_json_str(out, fn->name);
		fprintf(out, ", \"function_offset\": %llu", (unsigned long long)
			(s->site.off - (fn->value - rs_sec_start(f, s->site.sec))));
	} else {
		fputs("null, \"function_offset\": null", out);
	}
	fputs(", \"file\": ", out);
	if (t->file) {
		rs_json_str(out, t->file);
		fprintf(out, ", \"line\": %d", t->line);
	} else {
		fputs("null, \"line\": null", out);
	}
	fprintf(out, ", \"op\": \"%s\", \"size_kind\": \"%s\", ", op_text(s->op),
		s->kind < REPSTOS_SIZE_KIND_COUNT ? rs_size_names[s->kind] : "?");
	if (s->kind == REPSTOS_SIZE_CONST || s->kind == REPSTOS_SIZE_BOUNDED)
		fprintf(out, "\"size_min\": %u, \"size_max\": %u", s->min, s->max);
	else
		fputs("\"size_min\": null, \"size_max\": null", out);
	fprintf(out, ", \"entries\": %u, \"forms\": {", s->entries);
	for (unsigned c = 0; c < K_NCLASS; c++) {
		fprintf(out, "%s\"%s\": ", c ? ", " : "", k_class_names[c]);
		rs_json_str(out, t->form[c]);
	}
	fputs("}}", out);
}

static void json_summary(FILE *out, const struct kfile *k,
			 const struct kstats *st)
{
	fprintf(out, "\n  ],\n  \"summary\": {\"sites\": %zu, \"unreadable\": %zu",
		k->n, k->bad);
	rs_json_counts(out, "op", rs_op_names, st->op, REPSTOS_OP_COUNT);
	rs_json_counts(out, "size_class", rs_size_class_names, st->sc,
		       RS_SC_COUNT);
	rs_json_counts(out, "inline", k_class_names, st->inl, K_NCLASS);
	fputs("}\n}\n", out);
}

static void head(struct rs_elf *f, FILE *out, const struct rs_dump_opts *o,
		 const struct kfile *k)
{
	if (!o->json) {
		fprintf(out, "%s: Linux kernel-mode sites: %zu (alternatives in "
			".altinstructions, %u-byte entries)\n", f->path, k->n,
			k->alt_size);
		if (!o->stats)
			fprintf(out, "%-40s %-8s %-12s %-10s %-10s %-10s %-14s "
				"%-10s %s\n", "site", "op", "size", "fsrs", "fsrm",
				"erms", "rep_good", "none", "line");
		return;
	}
	if (o->json_array && !o->json_first)
		fputs(",\n", out);
	fprintf(out, "{\"schema\": %d, \"file\": ", RS_JSON_SCHEMA);
	rs_json_str(out, f->path);
	fprintf(out, ", \"type\": \"%s\", \"mode\": \"kernel\", "
		"\"alt_instr_size\": %u, \"sites\": [", rs_type_name(f),
		k->alt_size);
}

int rs_kernel_dump(struct rs_elf *f, FILE *out, const struct rs_dump_opts *o)
{
	static struct ktext t;
	struct kstats st;
	struct rs_lines *l;
	struct kfile k;
	size_t bad;

	if (k_load(f, &k)) {
		rs_err(f->path, "cannot read its kernel-mode sites (out of memory)");
		return RS_EXIT_BAD;
	}
	/* the counts need no source lines, which take the longest */
	l = o->json || !o->stats ? rs_lines_open(f) : NULL;
	memset(&st, 0, sizeof(st));
	head(f, out, o, &k);
	for (size_t i = 0; i < k.n; i++) {
		describe(f, &k, l, i, &t);
		count(&st, &k.site[i], &t);
		if (o->json)
			json_site(f, out, &k.site[i], &t, i == 0);
		else if (!o->stats)
			text_site(out, &k.site[i], &t);
	}
	if (o->json)
		json_summary(out, &k, &st);
	else if (o->stats)
		text_stats(out, &st);
	if (k.bad && !o->json)
		fprintf(out, "%s: %zu site notes unreadable\n", f->path, k.bad);
	bad = k.bad;
	rs_lines_close(l);
	k_free(&k);
	return bad ? RS_EXIT_PROBLEM : RS_EXIT_OK;
}
