// SPDX-License-Identifier: MIT
/*
 * check.c - `repstos check`: every table entry against the contract.
 *
 * One line per problem, "file: function+0xoff: what is wrong", so the
 * output greps and diffs like compiler diagnostics.  Only entries are
 * looked at: a `rep stos` GCC inlined on its own is not in the table and
 * is not a site.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "patcher.h"

struct ctx {
	struct rs_elf *f;
	FILE *out;
	unsigned problems;
};

static void problem_at(struct ctx *c, const char *where, const char *fmt,
		       va_list ap)
{
	fprintf(c->out, "%s: %s: ", c->f->path, where);
	vfprintf(c->out, fmt, ap);
	fputc('\n', c->out);
	c->problems++;
}

static void problem(struct ctx *c, const struct rs_site *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct ctx *c, const struct rs_site *s, const char *fmt, ...)
{
	char where[256];
	va_list ap;

	if (!s)
		snprintf(where, sizeof(where), "%s", REPSTOS_MODULE_SECTION);
	else if (s->known)
		rs_where(c->f, s->sec, s->off, where, sizeof(where));
	else
		snprintf(where, sizeof(where), "%s+0x%llx",
			 c->f->sec[s->tsec].name, (unsigned long long)s->toff);
	va_start(ap, fmt);
	problem_at(c, where, fmt, ap);
	va_end(ap);
}

static void routine_problem(struct ctx *c, const struct rs_routine *rt,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void routine_problem(struct ctx *c, const struct rs_routine *rt,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problem_at(c, rt->name, fmt, ap);
	va_end(ap);
}

static void check_entry_fields(struct ctx *c, const struct rs_site *s)
{
	const struct repstos_site *e = &s->e;

	if (e->op >= REPSTOS_OP_COUNT)
		problem(c, s, "entry %zu: unknown op %u", s->entry, e->op);
	if (!repstos_site_kind_known(e))
		problem(c, s, "entry %zu: unknown size kind or use 0x%02x (version %u)",
			s->entry, e->kind, e->version);
	if (e->size_min > e->size_max)
		problem(c, s, "entry %zu: size_min %u > size_max %u", s->entry,
			e->size_min, e->size_max);
	if (repstos_site_kind(e) == REPSTOS_SIZE_CONST && e->size_min != e->size_max)
		problem(c, s, "entry %zu: constant size but size_min %u != size_max %u",
			s->entry, e->size_min, e->size_max);
}

/* Where the site is; false when it is not in code at all, and nothing
 * more about it is worth saying. */
static bool check_place(struct ctx *c, const struct rs_site *s)
{
	const struct rs_elf *f = c->f;
	const struct rs_sec *sec = &f->sec[s->sec];
	const struct rs_sec *tab = &f->sec[s->tsec];
	uint64_t start;

	if (!(sec->sh.sh_flags & SHF_EXECINSTR)) {
		problem(c, s, "entry %zu: site is in non-executable section %s",
			s->entry, sec->name);
		return false;
	}
	/* --gc-sections keeps or drops an entry with the section it links to. */
	if (f->rel && (tab->sh.sh_flags & SHF_LINK_ORDER) &&
	    tab->sh.sh_link != s->sec)
		problem(c, s, "entry %zu: table section is linked to section %u, the site is in %s",
			s->entry, tab->sh.sh_link, sec->name);
	if (!f->full_symtab || !f->nfunc)
		return true;
	if (!s->func) {
		problem(c, s, "entry %zu: site is outside any function", s->entry);
		return true;
	}
	start = s->func->value - rs_sec_start(f, s->sec);
	if (s->off + s->e.len > start + s->func->size)
		problem(c, s, "entry %zu: site crosses the end of %s", s->entry,
			s->func->name);
	return true;
}

static void check_form(struct ctx *c, const struct rs_site *s)
{
	const uint8_t *p;
	char hex[3 * 16 + 4];
	size_t i, n;

	/* rep movsb copies forwards: wrong where the destination lies in
	 * the source's tail, which only a move may have. */
	if (s->form == REPSTOS_FORM_INLINE &&
	    !repstos_family_inline_ok(repstos_family_of(s->e.op), s->e.op))
		problem(c, s, "entry %zu: a move site is rep movsb inline, "
			"but its regions may overlap backwards", s->entry);
	/* A narrow site keeps every vector register but its declared ones
	 * (repstos_site.h, "The vector state"). */
	if (s->form == REPSTOS_FORM_CALL && s->variant >= 0 &&
	    repstos_version_narrow(s->e.version) &&
	    repstos_family_narrow(repstos_family_of(s->e.op), s->variant) !=
	    s->variant)
		problem(c, s, "entry %zu: a version %u site calls %s, which "
			"may change vector registers it keeps", s->entry,
			s->e.version, rs_variant_text(s->e.op, s->variant));
	if (s->form != REPSTOS_FORM_BAD)
		return;
	p = rs_sec_bytes(c->f, s->sec, s->off, s->e.len);
	n = s->e.len < 16 ? s->e.len : 16;
	for (i = 0; i < n; i++)
		sprintf(hex + (i ? 3 * i - 1 : 0), "%s%02x", i ? " " : "", p[i]);
	if (s->e.len > n)
		strcat(hex, " ..");
	if (s->target_name && s->target_name[0])
		problem(c, s, "entry %zu: %s (%s) [%s]", s->entry, s->form_why,
			s->target_name, hex);
	else
		problem(c, s, "entry %zu: %s [%s]", s->entry, s->form_why, hex);
}

static const struct rs_site *sort_base;

static int cmp_place(const void *a, const void *b)
{
	const struct rs_site *x = &sort_base[*(const size_t *)a];
	const struct rs_site *y = &sort_base[*(const size_t *)b];

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static void check_overlaps(struct ctx *c, const struct rs_table *t)
{
	size_t *ord, n = 0, i;

	ord = malloc((t->n ? t->n : 1) * sizeof(*ord));
	if (!ord) {
		problem(c, NULL, "out of memory for the overlap check");
		return;
	}
	for (i = 0; i < t->n; i++)
		if (t->site[i].known)
			ord[n++] = i;
	sort_base = t->site;
	qsort(ord, n, sizeof(*ord), cmp_place);
	for (i = 1; i < n; i++) {
		const struct rs_site *a = &t->site[ord[i - 1]];
		const struct rs_site *b = &t->site[ord[i]];

		if (a->sec != b->sec || a->off + a->e.len <= b->off)
			continue;
		if (a->off == b->off)
			problem(c, b, "entry %zu: same site as entry %zu",
				b->entry, a->entry);
		else
			problem(c, b, "entry %zu: overlaps the site of entry %zu",
				b->entry, a->entry);
	}
	free(ord);
}

static void check_module(struct ctx *c)
{
	struct repstos_module_info mi;
	const char *why;

	if (c->f->rel)
		return;		/* the record comes with librepstos.a at link time */
	if (rs_module_read(c->f, &mi, &why))
		problem(c, NULL, "%s", why);
}

/*
 * A routine's symbol the loaded code does not agree with: patch would
 * write calls to it, and the runtime leaves such calls alone.
 */
static void check_routines(struct ctx *c, const struct rs_table *t)
{
	int r;

	for (r = 0; r < RS_NROUTINES; r++)
		if (t->routine[r].have && t->routine[r].bad)
			routine_problem(c, &t->routine[r],
					"symbol value 0x%llx is not the routine: %s",
					(unsigned long long)t->routine[r].addr,
					t->routine[r].bad);
}

/* Every problem of a loaded table, printed to out; returns their count. */
unsigned rs_check_table(struct rs_elf *f, const struct rs_table *t, FILE *out)
{
	struct ctx c = { .f = f, .out = out };
	size_t i;

	check_module(&c);
	check_routines(&c, t);
	for (i = 0; i < t->n; i++) {
		const struct rs_site *s = &t->site[i];

		if (!s->known) {
			if (!repstos_version_known(s->e.version))
				problem(&c, s, "entry %zu: %s %u", s->entry,
					s->bad, s->e.version);
			else
				problem(&c, s, "entry %zu: %s", s->entry, s->bad);
			continue;
		}
		check_entry_fields(&c, s);
		if (check_place(&c, s))
			check_form(&c, s);
	}
	check_overlaps(&c, t);
	return c.problems;
}

int rs_check(struct rs_elf *f, FILE *out, bool require_sites, bool quiet)
{
	struct rs_table t;
	unsigned n;

	if (rs_kernel_file(f))
		return rs_kernel_check(f, out, quiet);
	if (rs_table_load(f, &t))
		return RS_EXIT_BAD;
	if (t.absent)
		return quiet && !require_sites ? RS_EXIT_OK :
		       rs_no_table(f, require_sites, out);
	n = rs_check_table(f, &t, out);
	if (!n && !quiet)
		fprintf(out, "%s: clean, %zu site%s\n", f->path, t.n,
			rs_plural(t.n));
	rs_table_free(&t);
	return n ? RS_EXIT_PROBLEM : RS_EXIT_OK;
}
