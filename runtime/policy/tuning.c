// SPDX-License-Identifier: MIT
/*
 * tuning.c - the tuning file (policy.h): what `repstos tune` measured on
 * this machine, written and read as text, and found and trusted as the
 * start-up of every program must (no stdio scanning, one open() when
 * there is no file, nobody else's file).  Its lines are data: a table
 * of number words, and each family's words from its descriptor.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "policy.h"

int repstos_text_put(char *buf, unsigned len, unsigned *at,
		     const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n < 0 || (unsigned)n >= len - *at)
		return -1;
	*at += (unsigned)n;
	return 0;
}

/* A number line: its word, the family whose line it follows, and the
 * field it sets, of `size` bytes, at most `max`. */
struct number_word {
	const char *word;
	enum repstos_family_id family;
	size_t off, size;
	unsigned long long max;
};

#define NUMBER(w, fam, field)						\
	{ w, fam, offsetof(struct repstos_tuning, field),		\
	  sizeof(((struct repstos_tuning *)0)->field),			\
	  sizeof(((struct repstos_tuning *)0)->field) < 8 ? 0xffffffffull : ~0ull }
static const struct number_word numbers[] = {
	NUMBER("vec_rep_min", REPSTOS_FAMILY_SET, vec_rep_min),
	NUMBER("wide_rep_min", REPSTOS_FAMILY_SET, wide_rep_min),
	NUMBER("short_rep_max", REPSTOS_FAMILY_SET, short_rep_max),
	NUMBER("inline_min", REPSTOS_FAMILY_SET, fam[REPSTOS_FAMILY_SET].inline_min),
};
#undef NUMBER
#define NNUMBERS (sizeof(numbers) / sizeof(numbers[0]))

static unsigned long long number_get(const struct repstos_tuning *t,
				     const struct number_word *w)
{
	const char *at = (const char *)t + w->off;
	unsigned u;
	unsigned long long ull;

	if (w->size == sizeof(u)) {
		memcpy(&u, at, sizeof(u));
		return u;
	}
	memcpy(&ull, at, sizeof(ull));
	return ull;
}

static void number_set(struct repstos_tuning *t, const struct number_word *w,
		       unsigned long long v)
{
	char *at = (char *)t + w->off;
	unsigned u = (unsigned)v;

	if (w->size == sizeof(u))
		memcpy(at, &u, sizeof(u));
	else
		memcpy(at, &v, sizeof(v));
}

/* A family's table as tuning-file lines: a cost line per form it has,
 * then a change line per form whose change cost it has, then a
 * use_extra line per form whose read-back cost it has. */
static int put_table(char *buf, unsigned len, unsigned *at,
		     const struct repstos_family *f, const struct repstos_costs *k)
{
	unsigned c;
	int v, r = 0;

	for (v = 0; !r && v < REPSTOS_NFORM; v++) {
		if (!repstos_cost_known(k, v))
			continue;
		r = repstos_text_put(buf, len, at, "%s %s", f->cost_word,
				     repstos_family_name(f, v));
		for (c = 0; !r && c < REPSTOS_NCLASS; c++)
			r = repstos_text_put(buf, len, at, " %u", k->cns[v][c]);
		if (!r)
			r = repstos_text_put(buf, len, at, "\n");
	}
	for (v = 0; !r && v < REPSTOS_NFORM; v++)
		if (k->change_known >> v & 1)
			r = repstos_text_put(buf, len, at, "%s %s %u\n",
					     f->change_word,
					     repstos_family_name(f, v), k->change[v]);
	for (v = 0; !r && v < REPSTOS_NFORM; v++)
		if (k->use_known >> v & 1)
			r = repstos_text_put(buf, len, at, "%s %s %u\n",
					     f->use_word,
					     repstos_family_name(f, v), k->use_extra[v]);
	return r;
}

/* Variant v's name, or for one that is no variant the narrow form's,
 * correct on every x86-64. */
static const char *routine_name(const struct repstos_family *f, int v)
{
	const char *name = repstos_family_name(f, v);

	return name ? name : repstos_family_name(f, f->narrow_form);
}

/* A family's lines: its module and read routines, its numbers, its
 * table. */
static int put_family(char *buf, unsigned len, unsigned *at,
		      const struct repstos_family *f,
		      const struct repstos_tuning *t)
{
	const struct repstos_family_tuning *ft = &t->fam[f->id];
	unsigned i;
	int r;

	r = repstos_text_put(buf, len, at, "%s %s\n%s %s\n", f->variant_word,
			     routine_name(f, ft->variant), f->read_word,
			     routine_name(f, ft->read_variant));
	for (i = 0; !r && i < NNUMBERS; i++)
		if (numbers[i].family == f->id)
			r = repstos_text_put(buf, len, at, "%s %llu\n",
					     numbers[i].word,
					     number_get(t, &numbers[i]));
	return r ? r : put_table(buf, len, at, f, &t->fam[f->id].costs);
}

int repstos_tuning_format(char *buf, unsigned len, const struct repstos_cpu *cpu,
			  const struct repstos_tuning *t)
{
	unsigned at = 0;
	int f, r;

	r = repstos_text_put(buf, len, &at,
		"# repstos tuning (repstos_tune): applies only to this cpu\n"
		"cpu %x %x %x %x %x\n",
		cpu->vendor, cpu->family, cpu->model, cpu->stepping,
		cpu->features);
	for (f = 0; !r && f < REPSTOS_NFAMILY; f++)
		r = put_family(buf, len, &at, &repstos_families[f], t);
	return r ? -1 : (int)at;
}

/* Parsing without stdio's sscanf: it runs in every program's start-up. */
const char *repstos_text_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

const char *repstos_text_word(const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && (p[n] == ' ' || p[n] == '\t') ?
		repstos_text_blank(p + n) : NULL;
}

const char *repstos_text_number(const char *p, int base, unsigned long long *v)
{
	const char *s = p;

	*v = 0;
	for (;; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else
			break;
		/* one that does not fit is not a number we wrote; checked
		 * without a division, which a 100,000-line profile would pay
		 * at every digit */
		if (__builtin_mul_overflow(*v, (unsigned)base, v) ||
		    __builtin_add_overflow(*v, d, v))
			return NULL;
	}
	return p == s ? NULL : repstos_text_blank(p);
}

/* The variant of f whose name starts p (followed by a blank or the end
 * of the line), or -1. */
static int name_at(const char *p, const struct repstos_family *f)
{
	char name[32];		/* longer than any variant name */
	size_t n = strcspn(p, " \t\n");

	if (n >= sizeof(name))
		return -1;
	memcpy(name, p, n);
	name[n] = 0;
	return repstos_family_by_name(f, name);
}

/* A cost line's REPSTOS_NCLASS numbers after the name, each 1..2^32-1. */
static const char *costs_at(const char *p, unsigned (*cns)[REPSTOS_NCLASS])
{
	unsigned long long v;
	unsigned c;

	p = repstos_text_blank(p + strcspn(p, " \t\n"));
	for (c = 0; c < REPSTOS_NCLASS; c++) {
		p = repstos_text_number(p, 10, &v);
		if (!p || !v || v > 0xffffffffu)
			return NULL;
		(*cns)[c] = (unsigned)v;
	}
	return p;
}

/* A change or use_extra line's number after the name, 0..2^32-1. */
static const char *change_at(const char *p, unsigned *change)
{
	unsigned long long v;

	p = repstos_text_blank(p + strcspn(p, " \t\n"));
	if (!(p = repstos_text_number(p, 10, &v)) || v > 0xffffffffu)
		return NULL;
	*change = (unsigned)v;
	return p;
}
/*
 * A family's line at p (its variant, cost, change, read or use word)
 * into n: *q past the line's value, or NULL when it is malformed.
 * Returns the family's number, with *what 0 (variant), 1 (cost), 2
 * (change), 3 (read) or 4 (use); -1 when p starts no family's line.
 */
static int family_line(const char *p, struct repstos_tuning *n,
		       const char **q, int *what)
{
	int id, v;

	for (id = 0; id < REPSTOS_NFAMILY; id++) {
		const struct repstos_family *f = &repstos_families[id];
		struct repstos_family_tuning *ft = &n->fam[id];
		const char *words[5] = { f->variant_word, f->cost_word,
					 f->change_word, f->read_word,
					 f->use_word };

		for (*what = 0; *what < 5; ++*what) {
			if (!(*q = repstos_text_word(p, words[*what])))
				continue;
			if ((v = name_at(*q, f)) < 0)
				*q = NULL;
			else if (*what == 0)
				ft->variant = v, *q += strlen(f->names[v]);
			else if (*what == 3)
				ft->read_variant = v, *q += strlen(f->names[v]);
			else if (*what == 1)
				*q = costs_at(*q, &ft->costs.cns[v]);
			else if (*what == 4) {
				if ((*q = change_at(*q, &ft->costs.use_extra[v])))
					ft->costs.use_known |= 1u << v;
			} else if ((*q = change_at(*q, &ft->costs.change[v])))
				ft->costs.change_known |= 1u << v;
			return id;
		}
	}
	return -1;
}

/* A number line at p into n: *q past its number, or NULL when it is
 * malformed; 0 when p starts none. */
static int number_line(const char *p, struct repstos_tuning *n, const char **q)
{
	unsigned long long v;
	unsigned i;

	for (i = 0; i < NNUMBERS; i++) {
		if (!(*q = repstos_text_word(p, numbers[i].word)))
			continue;
		if ((*q = repstos_text_number(*q, 10, &v)) && v <= numbers[i].max)
			number_set(n, &numbers[i], v);
		else
			*q = NULL;
		return 1;
	}
	return 0;
}

/* The cpu line at p: 1 when it names cpu, 0 another, -1 malformed. */
static int cpu_line(const char *q, const struct repstos_cpu *cpu)
{
	const unsigned want[5] = { cpu->vendor, cpu->family, cpu->model,
				   cpu->stepping, cpu->features };
	unsigned long long v;
	int i;

	for (i = 0; i < 5; i++) {
		if (!(q = repstos_text_number(q, 16, &v)))
			return -1;
		if (v != want[i])
			return 0;
	}
	return 1;
}

int repstos_tuning_parse(const char *text, const struct repstos_cpu *cpu,
			 struct repstos_tuning *t)
{
	struct repstos_tuning n = *t;
	const char *p = text, *q;
	int have_cpu = 0, have_table[REPSTOS_NFAMILY] = { 0 }, id, what, r;

	for (id = 0; id < REPSTOS_NFAMILY; id++)
		memset(&n.fam[id].costs, 0, sizeof(n.fam[id].costs));
	while (*p) {
		p = repstos_text_blank(p);
		if ((q = repstos_text_word(p, "cpu"))) {
			if ((r = cpu_line(q, cpu)) <= 0)
				return r;
			have_cpu = 1;
		} else if ((id = family_line(p, &n, &q, &what)) >= 0) {
			if (!q)
				return -1;
			have_table[id] |= what == 1 || what == 2 || what == 4;
		} else if (number_line(p, &n, &q)) {
			if (!q)
				return -1;
		} else if (*p == '#' || *p == '\n') {
			q = p;
		} else {
			return -1;
		}
		/* a last line with no newline was cut (or is being written) */
		if (!(q = strchr(q, '\n')))
			return -1;
		p = q + 1;
	}
	if (!have_cpu)
		return -1;
	for (id = 0; id < REPSTOS_NFAMILY; id++) {
		const struct repstos_family *f = &repstos_families[id];

		if (!repstos_family_runs(f, cpu, n.fam[id].variant) ||
		    !repstos_family_runs(f, cpu, n.fam[id].read_variant))
			return -1;
		if (!have_table[id])	/* the policy's table stays */
			n.fam[id].costs = t->fam[id].costs;
		repstos_costs_drop(f, cpu, &n.fam[id].costs);
	}
	n.source = "tuning file";
	*t = n;
	return 1;
}

/* Not in a secure execution (set-user-ID...): there the user may not
 * name a file for the program to open. */
const char *repstos_tuning_path(void)
{
	const char *path = secure_getenv("REPSTOS_TUNING");

	return path ? path : "/etc/repstos/tuning";
}

/* Only a regular file, so that no path (a FIFO, a device) can make
 * start-up wait or act; only root's or the real user's, so that nobody
 * else's file steers the program. */
const char *repstos_untrusted(int fd, struct stat *st)
{
	if (fstat(fd, st) || !S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != 0 && st->st_uid != getuid())
		return "owned by neither root nor the user";
	return NULL;
}

/* Plain system calls, one open() when there is no file: this runs in
 * every module's start-up.  O_NONBLOCK: opening a FIFO must not wait
 * for a writer before trusted() turns it away.  A file is read whole or
 * not at all: one that does not fit in the buffer is malformed, not cut
 * (a line cut at the end once read "variant avx512_split" as
 * "variant avx512"), and so is one holding a NUL. */
int repstos_tuning_load(const char *path, const struct repstos_cpu *cpu,
			struct repstos_tuning *t, int *other)
{
	char text[REPSTOS_TUNING_MAX];
	struct stat st;
	ssize_t n = 0, k = 1;
	int fd, r;

	repstos_policy_tuning(cpu, t);
	*other = 0;
	if (!path || !*path)
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (repstos_untrusted(fd, &st)) {
		close(fd);
		return 0;
	}
	/* one byte more than fits: to see that it does not */
	while (k > 0 && n < (ssize_t)sizeof(text)) {
		k = read(fd, text + n, sizeof(text) - (size_t)n);
		n += k > 0 ? k : 0;
	}
	close(fd);
	if (n <= 0)
		return 0;
	if (n == (ssize_t)sizeof(text) || memchr(text, 0, (size_t)n))
		return -1;
	text[n] = 0;
	r = repstos_tuning_parse(text, cpu, t);
	*other = r == 0;
	return r;
}

