// SPDX-License-Identifier: MIT
/*
 * profile.c - the size profile's text (runtime/policy/profile.h): writing a
 * section, reading a file of them, and the table hash that keys them.
 * Plain code with no state: the runtime writes, reads and merges
 * profiles with it, `repstos` reads them, so both read the same file the
 * same way; and what a pin gives a site, which only a reader of
 * profiles asks (so that a start-up without them carries none of it).
 */
#include <stdlib.h>
#include <string.h>
#include "profile.h"

uint64_t repstos_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t repstos_table_hash(const struct repstos_site *begin,
			    const struct repstos_site *end)
{
	return repstos_hash(REPSTOS_HASH_INIT, begin,
			    (size_t)(end - begin) * sizeof(*begin));
}

unsigned long long repstos_profile_calls(const unsigned long long *hist)
{
	unsigned long long sum = 0;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		sum = sum + hist[c] < sum ? ~0ull : sum + hist[c];
	return sum;
}

/* ---- writing ---------------------------------------------------------- */

int repstos_profile_head(char *buf, unsigned len, unsigned *at, int version,
			 uint64_t hash, unsigned nsites, const char *name)
{
	char safe[REPSTOS_PROFILE_NAME_MAX + 1];
	size_t i;

	/* one line whatever the path holds */
	for (i = 0; name[i] && i < REPSTOS_PROFILE_NAME_MAX; i++)
		safe[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ?
			  '?' : name[i];
	safe[i] = 0;
	return repstos_text_put(buf, len, at,
				"profile %d table %016llx sites %u name %s\n",
				version, (unsigned long long)hash,
				nsites, i ? safe : "?");
}

int repstos_profile_site(char *buf, unsigned len, unsigned *at, unsigned index,
			 const unsigned long long *hist)
{
	unsigned c;
	int r;

	r = repstos_text_put(buf, len, at, "site %u %llu", index,
			     repstos_profile_calls(hist));
	for (c = 0; !r && c < REPSTOS_NCLASS; c++)
		r = repstos_text_put(buf, len, at, " %llu", hist[c]);
	return r ? r : repstos_text_put(buf, len, at, "\n");
}

/* The family and form names of a pin. */
static const char *pin_family(unsigned char pin)
{
	return repstos_families[repstos_pin_family(pin)].name;
}

static const char *pin_form(unsigned char pin)
{
	return repstos_family_name(&repstos_families[repstos_pin_family(pin)],
				   repstos_pin_form(pin));
}

int repstos_profile_pin(char *buf, unsigned len, unsigned *at, unsigned index,
			unsigned char pin)
{
	return repstos_text_put(buf, len, at, "pin %u %s %s\n", index,
				pin_family(pin), pin_form(pin));
}

int repstos_profile_end(char *buf, unsigned len, unsigned *at, uint64_t hash)
{
	return repstos_text_put(buf, len, at, "end %016llx\n",
				(unsigned long long)hash);
}

/* ---- reading ---------------------------------------------------------- */

/* The section being read. */
struct section {
	int open;
	int mine;		/* for the module asked about */
	unsigned long long hash, nsites, version;
	long long last;		/* last site index seen, -1 before any */
	long long last_pin;	/* the same for pins */
};

static const char *fail(struct repstos_profile *p, const char *why)
{
	p->why = why;
	return NULL;
}

/* A hash: exactly 16 lowercase hex digits. */
static const char *hash_at(const char *q, unsigned long long *h)
{
	if (strspn(q, "0123456789abcdef") != 16)
		return NULL;
	return repstos_text_number(q, 16, h);
}

/* "profile 1 table HASH sites N name MODULE" after "profile". */
static const char *head_line(const char *q, struct section *s,
			     struct repstos_profile *p)
{
	if (!(q = repstos_text_number(q, 10, &s->version)))
		return fail(p, "bad profile version");
	if (s->version < 1 || s->version > REPSTOS_PROFILE_VERSION)
		return fail(p, "unknown profile version");
	if (!(q = repstos_text_word(q, "table")) || !(q = hash_at(q, &s->hash)))
		return fail(p, "bad table hash");
	if (!(q = repstos_text_word(q, "sites")) ||
	    !(q = repstos_text_number(q, 10, &s->nsites)) || s->nsites > ~0u)
		return fail(p, "bad site count");
	if (!(q = repstos_text_word(q, "name")))
		return fail(p, "no module name");
	s->open = 1;
	s->mine = s->hash == p->hash;
	s->last = s->last_pin = -1;
	if (s->mine && s->nsites != p->nsites)
		return fail(p, "the table hash is this module's, the site "
			    "count is not");
	return q + strcspn(q, "\n");
}

/* "site INDEX CALLS H0 .. H21" after "site". */
static const char *site_line(const char *q, struct section *s,
			     struct repstos_profile *p)
{
	unsigned long long idx, calls, h[REPSTOS_NCLASS], sum = 0;
	unsigned c;

	if (!(q = repstos_text_number(q, 10, &idx)) || idx >= s->nsites)
		return fail(p, "bad site index");
	if ((long long)idx <= s->last)
		return fail(p, "site indexes out of order");
	if (!(q = repstos_text_number(q, 10, &calls)))
		return fail(p, "bad call count");
	for (c = 0; c < REPSTOS_NCLASS; c++) {
		if (!(q = repstos_text_number(q, 10, &h[c])))
			return fail(p, "bad or missing class count");
		if (sum + h[c] < sum)
			return fail(p, "counts overflow");
		sum += h[c];
	}
	if (sum != calls)
		return fail(p, "class counts do not add up to the calls");
	s->last = (long long)idx;
	for (c = 0; s->mine && p->hist && c < REPSTOS_NCLASS; c++) {
		unsigned long long *t = &p->hist[idx][c];

		*t = *t + h[c] < *t ? ~0ull : *t + h[c];
	}
	return q;
}

/* The family named by the word at *q, its end in *q; or NULL. */
static const struct repstos_family *family_word(const char **q)
{
	size_t n = strcspn(*q, " \t\n");
	int f;

	for (f = 0; f < REPSTOS_NFAMILY; f++)
		if (strlen(repstos_families[f].name) == n &&
		    !memcmp(*q, repstos_families[f].name, n)) {
			*q = repstos_text_blank(*q + n);
			return &repstos_families[f];
		}
	return NULL;
}

/* The variant of f named by the word at *q, its end in *q; or -1. */
static int form_word(const struct repstos_family *f, const char **q)
{
	size_t n = strcspn(*q, " \t\n");
	const char *name;
	int v;

	for (v = 0; (name = repstos_family_name(f, v)); v++)
		if (strlen(name) == n && !memcmp(*q, name, n)) {
			*q = repstos_text_blank(*q + n);
			return v;
		}
	return -1;
}

/* "pin INDEX FAMILY FORM" after "pin". */
static const char *pin_line(const char *q, struct section *s,
			    struct repstos_profile *p)
{
	const struct repstos_family *f;
	unsigned long long idx;
	int v;

	if (s->version < 3)
		return fail(p, "a pin in a section of version 1 or 2");
	if (!(q = repstos_text_number(q, 10, &idx)) || idx >= s->nsites)
		return fail(p, "bad pinned site index");
	if ((long long)idx <= s->last_pin)
		return fail(p, "pinned site indexes out of order");
	if (!(f = family_word(&q)))
		return fail(p, "a pin of an unknown family");
	if ((v = form_word(f, &q)) < 0)
		return fail(p, "a pin of a form its family does not have");
	s->last_pin = (long long)idx;
	if (s->mine && p->pin) {
		p->pins += !p->pin[idx];
		p->pin[idx] = REPSTOS_PIN(f->id, v);
	}
	return q;
}

/* "end HASH" after "end". */
static const char *end_line(const char *q, struct section *s,
			    struct repstos_profile *p)
{
	unsigned long long h;

	if (!(q = hash_at(q, &h)) || h != s->hash)
		return fail(p, "end line names another table");
	s->open = 0;
	if (s->mine)
		p->sections++;
	else
		p->others++;
	return q;
}

/* One line; returns where it ends (at its '\n'), or NULL. */
static const char *line(const char *q, struct section *s,
			struct repstos_profile *p)
{
	const char *r;

	if (!s->open) {
		if (*q == '\n' || *q == '#')
			return q + strcspn(q, "\n");
		if ((r = repstos_text_word(q, "profile")))
			return head_line(r, s, p);
		return fail(p, "not a profile line");
	}
	if ((r = repstos_text_word(q, "site")))
		return site_line(r, s, p);
	if ((r = repstos_text_word(q, "pin")))
		return pin_line(r, s, p);
	if ((r = repstos_text_word(q, "end")))
		return end_line(r, s, p);
	return fail(p, "a section's line is none of 'site', 'pin', 'end'");
}

int repstos_profile_parse(const char *text, size_t len,
			  struct repstos_profile *p)
{
	struct section s = { 0 };
	const char *q = text, *end = text + len, *nul;

	p->sections = p->others = p->pins = 0;
	p->line = 0;
	p->why = NULL;
	if ((nul = memchr(text, 0, len))) {
		while (nul > text)
			p->line += *--nul == '\n';
		p->line++;
		p->why = "a NUL byte: not a profile";
		return -1;
	}
	while (q < end) {
		p->line++;
		if (!memchr(q, '\n', (size_t)(end - q))) {
			p->why = "last line unfinished (truncated?)";
			return -1;
		}
		q = line(q, &s, p);
		if (!q)
			return -1;
		if (*q != '\n') {
			p->why = "unexpected text at the end of the line";
			return -1;
		}
		q++;
	}
	if (s.open) {
		p->why = "last section unfinished (truncated?)";
		return -1;
	}
	return p->sections ? 1 : 0;
}

/* ---- pins ------------------------------------------------------------- */

/*
 * A pin is a form the program's own wall clock chose
 * (`repstos tune --run`), so it wins over any weighing; but not over
 * REPSTOS_VARIANT (a forced variant is the user's word, and what every
 * test of a variant relies on), never the inline form where the op may
 * not take it (rep movsb copies forwards blindly), and never a routine
 * the CPU lacks: there the site chooses as if unpinned, as a profile's
 * weighing never picks such a form either.
 */
int repstos_policy_pinned(const struct repstos_modules *m,
			  const struct repstos_cpu *cpu,
			  const struct repstos_site *e, unsigned char pinned)
{
	const struct repstos_family *f = repstos_family_of(e->op);
	int pin = repstos_pin_form(pinned);

	if (pin < 0 || repstos_pin_family(pinned) != (int)f->id || !cpu ||
	    m->fam[f->id].forced || !repstos_family_runs(f, cpu, pin) ||
	    (pin == f->inline_form && !repstos_family_inline_ok(f, e->op)))
		return -1;
	return repstos_version_narrow(e->version) ? repstos_family_narrow(f, pin) :
	       pin;
}

/* ---- merging ---------------------------------------------------------- */

static unsigned digits(unsigned long long v)
{
	unsigned n = 1;

	for (; v >= 10; v /= 10)
		n++;
	return n;
}

/* "site " INDEX " " CALLS, " " and a count per class, "\n". */
unsigned repstos_profile_site_len(unsigned index,
				  const unsigned long long *hist)
{
	unsigned n = 7 + digits(index) + digits(repstos_profile_calls(hist)), c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		n += 1 + digits(hist[c]);
	return n;
}

/* "pin " INDEX " " FAMILY " " FORM "\n". */
unsigned repstos_profile_pin_len(unsigned index, unsigned char pin)
{
	return 7 + digits(index) + (unsigned)strlen(pin_family(pin)) +
	       (unsigned)strlen(pin_form(pin));
}

/* A table of a merge: the header line of its first section in the text,
 * and every section's counts summed, by site index. */
struct table {
	unsigned long long hash;
	const char *head;
	size_t head_len;		/* '\n' included */
	unsigned long long (*hist)[REPSTOS_NCLASS];
	unsigned char *pin;		/* each site's last pin, or 0 */
	unsigned pins;			/* sites pinned */
	size_t rows, room;		/* rows: the highest index seen + 1 */
};

struct merge {
	struct table *t;
	size_t n, room;
};

/* The table of this hash, added (with its header line) if new. */
static struct table *table_of(struct merge *m, unsigned long long hash,
			      const char *head, size_t head_len)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->t[i].hash == hash)
			return &m->t[i];
	if (m->n == m->room) {
		size_t room = m->room ? 2 * m->room : 8;
		struct table *t = realloc(m->t, room * sizeof(*t));

		if (!t)
			return NULL;
		m->t = t;
		m->room = room;
	}
	memset(&m->t[m->n], 0, sizeof(m->t[m->n]));
	m->t[m->n].hash = hash;
	m->t[m->n].head = head;
	m->t[m->n].head_len = head_len;
	return &m->t[m->n++];
}

/* Room in t for the row of site idx, zeroed; 0, or -1. */
static int row_room(struct table *t, unsigned long long idx)
{
	size_t room = t->room ? t->room : 16;
	unsigned long long (*hist)[REPSTOS_NCLASS];
	unsigned char *pin;

	if (idx < t->room)
		return 0;
	while (room <= idx)
		room *= 2;
	hist = realloc(t->hist, room * sizeof(*hist));
	if (!hist)
		return -1;
	t->hist = hist;
	pin = realloc(t->pin, room);
	if (!pin)
		return -1;
	t->pin = pin;
	memset(hist + t->room, 0, (room - t->room) * sizeof(*hist));
	memset(pin + t->room, 0, room - t->room);
	t->room = room;
	return 0;
}

/* A pin line of a table, into it: 0, or -1. */
static int merge_pin(struct table *t, const char *r)
{
	const struct repstos_family *f;
	unsigned long long v;
	int form;

	r = repstos_text_number(r, 10, &v);
	f = family_word(&r);
	form = form_word(f, &r);
	if (row_room(t, v))
		return -1;
	if (v >= t->rows)
		t->rows = (size_t)v + 1;
	t->pins += !t->pin[v];
	t->pin[v] = REPSTOS_PIN(f->id, form);
	return 0;
}

/* A line of text already found well formed, into m: 0, or -1. */
static int merge_line(struct merge *m, struct table **cur, const char *q,
		      size_t len)
{
	unsigned long long v, calls, h[REPSTOS_NCLASS];
	const char *r;
	unsigned c;

	if ((r = repstos_text_word(q, "profile"))) {
		r = repstos_text_word(repstos_text_number(r, 10, &v), "table");
		repstos_text_number(r, 16, &v);
		*cur = table_of(m, v, q, len);
		return *cur ? 0 : -1;
	}
	if ((r = repstos_text_word(q, "pin")))
		return merge_pin(*cur, r);
	if (!(r = repstos_text_word(q, "site")))
		return 0;	/* "end", a blank line or a comment */
	r = repstos_text_number(repstos_text_number(r, 10, &v), 10, &calls);
	for (c = 0; c < REPSTOS_NCLASS; c++)
		r = repstos_text_number(r, 10, &h[c]);
	if (row_room(*cur, v))
		return -1;
	if (v >= (*cur)->rows)
		(*cur)->rows = (size_t)v + 1;
	for (c = 0; c < REPSTOS_NCLASS; c++) {
		unsigned long long *t = &(*cur)->hist[v][c];

		*t = *t + h[c] < *t ? ~0ull : *t + h[c];
	}
	return 0;
}

/* "profile N", the head line's start: N 3 where the table has pins,
 * else the first section's own. */
#define VERSION_AT 8	/* strlen("profile ") */
static size_t version_len(const struct table *t)
{
	return VERSION_AT + strspn(t->head + VERSION_AT, "0123456789");
}

static size_t head_len(const struct table *t)
{
	return t->pins ? 9 + t->head_len - version_len(t) : t->head_len;
}

static unsigned put_head(char *out, const struct table *t)
{
	size_t skip = version_len(t);

	if (!t->pins) {
		memcpy(out, t->head, t->head_len);
		return (unsigned)t->head_len;
	}
	memcpy(out, "profile 3", 9);
	memcpy(out + 9, t->head + skip, t->head_len - skip);
	return (unsigned)head_len(t);
}

/* A table's site lines, then its pin lines: their length; put_rows
 * writes them (0, or -1 when they do not fit). */
static size_t rows_len(const struct table *t)
{
	size_t n = 0, k;

	for (k = 0; k < t->rows; k++) {
		if (repstos_profile_calls(t->hist[k]))
			n += repstos_profile_site_len((unsigned)k, t->hist[k]);
		if (t->pin[k])
			n += repstos_profile_pin_len((unsigned)k, t->pin[k]);
	}
	return n;
}

static int put_rows(char *out, unsigned len, unsigned *at,
		    const struct table *t)
{
	size_t k;
	int r = 0;

	for (k = 0; !r && k < t->rows; k++)
		if (repstos_profile_calls(t->hist[k]))
			r = repstos_profile_site(out, len, at, (unsigned)k,
						 t->hist[k]);
	for (k = 0; !r && k < t->rows; k++)
		if (t->pin[k])
			r = repstos_profile_pin(out, len, at, (unsigned)k,
						t->pin[k]);
	return r;
}

/* The merged text of m, into a buffer of its exact size. */
static char *merged_text(const struct merge *m, size_t *len)
{
	size_t n = 1, i;	/* the NUL repstos_text_put writes */
	unsigned at = 0;
	char *out;
	int r = 0;

	for (i = 0; i < m->n; i++)
		n += head_len(&m->t[i]) + REPSTOS_PROFILE_END_LEN +
		     rows_len(&m->t[i]);
	if (n >= ~0u || !(out = malloc(n)))
		return NULL;
	for (i = 0; !r && i < m->n; i++) {
		const struct table *t = &m->t[i];

		at += put_head(out + at, t);
		r = put_rows(out, (unsigned)n, &at, t);
		if (!r)
			r = repstos_profile_end(out, (unsigned)n, &at, t->hash);
	}
	if (r) {		/* cannot happen: n is exact */
		free(out);
		return NULL;
	}
	*len = at;
	return out;
}

int repstos_profile_merge(const char *text, size_t len, char **out,
			  size_t *out_len, struct repstos_profile *p)
{
	struct merge m = { NULL, 0, 0 };
	struct table *cur = NULL;
	const char *q, *end = text + len, *nl;
	int r = 0;
	size_t i;

	p->hist = NULL;		/* only checked: no module of its own */
	if (repstos_profile_parse(text, len, p) < 0)
		return -1;
	for (q = text; !r && q < end; q = nl + 1) {
		nl = memchr(q, '\n', (size_t)(end - q));
		r = merge_line(&m, &cur, q, (size_t)(nl - q) + 1);
	}
	*out = r ? NULL : merged_text(&m, out_len);
	for (i = 0; i < m.n; i++) {
		free(m.t[i].hist);
		free(m.t[i].pin);
	}
	free(m.t);
	return *out ? 0 : -2;
}
