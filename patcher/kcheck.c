// SPDX-License-Identifier: MIT
/*
 * kcheck.c - `repstos check` of a kernel-mode image: each site's notes
 * and alt_instr entries against plugin/kernel.c's layout, and the whole
 * table against the notes, since apply_alternatives() applies every
 * entry, named or not.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* The routine family of an op: what its replacements must call. */
static const char *family(unsigned op)
{
	if (op == REPSTOS_OP_MOVE)
		return "move";
	return repstos_op_is_copy(op) ? "copy" : "set";
}

static unsigned problem(const struct rs_elf *f, FILE *out, const char *where,
			const char *what)
{
	fprintf(out, "%s: %s: %s\n", f->path, where, what);
	return 1;
}

/* One named entry j of site s, c its class in the plugin's order. */
static unsigned check_entry(struct rs_elf *f, FILE *out, const struct ksite *s,
			    const struct kalt *a, unsigned c, const char *where)
{
	static const char *const cls[] = { "erms", "rep_good", "orig" };
	char form[48], expect[64];
	unsigned bad = 0;

	if (!a || !a->ok)
		return problem(f, out, where, "an alt_instr is unreadable");
	if (a->instr.sec != s->site.sec || a->instr.off != s->site.off)
		bad += problem(f, out, where, "an alt_instr is of another site");
	if (a->ilen != K_SITE_LEN || a->rlen != K_SITE_LEN)
		bad += problem(f, out, where, "an alt_instr length is not 5");
	if (!a->not || (c > 0 && a->feature != (c == 1 ? K_ERMS : K_REP_GOOD)))
		bad += problem(f, out, where, "an alt_instr feature is out of "
			       "order (ALT_NOT inline bit, ERMS, REP_GOOD)");
	if (a->flags)
		bad += problem(f, out, where, "an alt_instr has a flag kernel "
			       "mode never sets (ALT_NOT is its one flag)");
	k_form_at(f, a->repl, form, sizeof(form));
	snprintf(expect, sizeof(expect), "%s_%s", family(s->op), cls[c]);
	if (strcmp(form, expect))
		bad += problem(f, out, where, "a replacement calls the wrong routine");
	return bad;
}

/* One site against the kernel's table and plugin/kernel.c's layout. */
static unsigned check_site(struct rs_elf *f, FILE *out, const struct kfile *k,
			   const struct ksite *s)
{
	bool inl = s->op != REPSTOS_OP_MOVE;
	unsigned want = inl ? 3 : 2, bad = 0;
	char where[128], form[48];
	const char *expect;

	rs_where(f, s->site.sec, s->site.off, where, sizeof(where));
	if (s->op >= REPSTOS_OP_COUNT || s->kind >= REPSTOS_SIZE_KIND_COUNT)
		return problem(f, out, where, "unknown op or size kind in its note");
	if (s->entries != want)
		bad += problem(f, out, where, "wrong number of alt_instr entries");
	k_form_at(f, s->site, form, sizeof(form));
	expect = !inl ? "move_erms" :
		 repstos_op_is_copy(s->op) ? "rep_movsb" : "rep_stosb";
	if (strcmp(form, expect))
		bad += problem(f, out, where, "the original is not the site's form");
	if (s->first == K_NONE)
		return bad + problem(f, out, where, "its note names no entry of "
				     ".altinstructions");
	for (unsigned j = 0; j < s->entries && j < want; j++)
		bad += check_entry(f, out, s, k_entry(k, s, j), inl ? j : j + 1,
				   where);
	return bad;
}

/* Entries on a site that no note names: apply_alternatives() writes
 * them all the same, so the site may run anything. */
static unsigned check_unnamed(struct rs_elf *f, FILE *out,
			      const struct kfile *k)
{
	unsigned bad = 0;

	for (size_t i = 0; i < k->nalt; i++) {
		const struct kalt *a = &k->alt[i];
		const struct ksite *s;
		char where[128], form[48], what[160];

		if (a->site == K_NONE || a->named)
			continue;
		s = &k->site[a->site];
		rs_where(f, s->site.sec, s->site.off, where, sizeof(where));
		k_form_at(f, a->repl, form, sizeof(form));
		snprintf(what, sizeof(what), "an alt_instr no note names "
			 "patches it (feature %u*32+%u%s%s, replacement %s)",
			 a->feature / 32u, a->feature % 32u,
			 a->not ? ", ALT_NOT" : "",
			 a->flags ? ", other flags" : "", form);
		bad += problem(f, out, where, what);
	}
	return bad;
}

static const struct ksite *sort_site;

static int cmp_site(const void *a, const void *b)
{
	const struct kloc *x = &sort_site[*(const size_t *)a].site;
	const struct kloc *y = &sort_site[*(const size_t *)b].site;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/* Notes naming one site, or sites that overlap: one line a group. */
static unsigned check_notes(struct rs_elf *f, FILE *out, const struct kfile *k)
{
	size_t *by = malloc((k->n ? k->n : 1) * sizeof(*by)), i, j;
	unsigned bad = 0;

	if (!by)
		return problem(f, out, "notes", "out of memory");
	for (i = 0; i < k->n; i++)
		by[i] = i;
	sort_site = k->site;
	qsort(by, k->n, sizeof(*by), cmp_site);
	for (i = 0; i < k->n; i = j) {
		const struct kloc *s = &k->site[by[i]].site;
		uint64_t end = s->off + K_SITE_LEN;
		bool same = true;
		char where[128], what[64];

		for (j = i + 1; j < k->n; j++) {
			const struct kloc *t = &k->site[by[j]].site;

			if (t->sec != s->sec || t->off >= end)
				break;
			same &= t->off == s->off;
			if (t->off + K_SITE_LEN > end)
				end = t->off + K_SITE_LEN;
		}
		if (j - i < 2)
			continue;
		rs_where(f, s->sec, s->off, where, sizeof(where));
		snprintf(what, sizeof(what), "%zu notes name %s", j - i,
			 same ? "this site" : "overlapping sites from here");
		bad += problem(f, out, where, what);
	}
	free(by);
	return bad;
}

int rs_kernel_check(struct rs_elf *f, FILE *out, bool quiet)
{
	struct kfile k;
	unsigned problems = 0;

	if (k_load(f, &k)) {
		rs_err(f->path, "cannot read its kernel-mode sites (out of memory)");
		return RS_EXIT_BAD;
	}
	if (k.ragged) {
		char what[160];

		snprintf(what, sizeof(what), "not a whole number of %u-byte "
			 "alt_instr entries, the layout its notes record (%s)",
			 k.alt_size, k.alt_size == K_ALT_OLD ?
			 "Linux 5.13 to 6.2" : "Linux 6.3 onwards");
		problems += problem(f, out, ".altinstructions", what);
	}
	if (k.mixed)
		problems += problem(f, out, "notes", "they record both alt_instr "
				    "layouts (12 and 14 bytes)");
	for (size_t i = 0; i < k.n; i++)
		problems += check_site(f, out, &k, &k.site[i]);
	problems += check_unnamed(f, out, &k);
	problems += check_notes(f, out, &k);
	if (k.bad)
		problems += problem(f, out, "notes", "site notes unreadable");
	if (!problems && !quiet)
		fprintf(out, "%s: clean, %zu kernel-mode site%s\n", f->path, k.n,
			rs_plural(k.n));
	k_free(&k);
	return problems ? RS_EXIT_PROBLEM : RS_EXIT_OK;
}
