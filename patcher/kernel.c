// SPDX-License-Identifier: MIT
/*
 * kernel.c - read the kernel-mode sites of a Linux image built with
 * -fplugin-arg-repstos-kernel (vmlinux, a .ko or one object): the notes,
 * the whole alt_instr table, which entries lie on which site, and what
 * apply_alternatives() leaves there on each class of CPU.  In vmlinux
 * the offsets are resolved; in a .ko or .o they are still relocations,
 * read through rs_relas().  kcheck.c and kdump.c are the commands.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* The CPU classes a dump shows, by the features each has. */
static const struct {
	unsigned n;
	unsigned feat[4];
} classes[K_NCLASS] = {
	{ 4, { K_FSRS, K_FSRM, K_ERMS, K_REP_GOOD } },
	{ 3, { K_FSRM, K_ERMS, K_REP_GOOD } },
	{ 2, { K_ERMS, K_REP_GOOD } },
	{ 1, { K_REP_GOOD } },
	{ 0, { 0 } },
};

const char *const k_class_names[K_NCLASS] = {
	"fsrs", "fsrm", "erms", "rep_good", "none"
};

int k_class_has(unsigned cls, unsigned feat)
{
	if (feat == K_ALWAYS)
		return 1;
	if (feat != K_FSRS && feat != K_FSRM && feat != K_ERMS &&
	    feat != K_REP_GOOD)
		return -1;
	for (unsigned i = 0; i < classes[cls].n; i++)
		if (classes[cls].feat[i] == feat)
			return 1;
	return 0;
}

/* A section of that name with bytes in the file: one of SHT_NOBITS (a
 * .notes in .bss's clothing) holds no notes, and is no one's business. */
static size_t sec_by_name(const struct rs_elf *f, const char *name)
{
	for (size_t i = 1; i < f->nsec; i++)
		if (f->sec[i].name && !strcmp(f->sec[i].name, name) &&
		    f->sec[i].sh.sh_type != SHT_NOBITS)
			return i;
	return 0;
}

/* The notes section: .notes in vmlinux, .note.repstos before the link. */
static size_t notes_sec(const struct rs_elf *f)
{
	size_t s = sec_by_name(f, ".note.repstos");

	return s ? s : sec_by_name(f, ".notes");
}

/*
 * Where the 32-bit PC-relative field at `at` points: the field's address
 * plus its value plus bias (4 for a call's rel32, which counts from the
 * next instruction).  In a relocatable file, from its relocation.
 */
static int field_target(struct rs_elf *f, struct kloc at, int64_t bias,
			struct kloc *to)
{
	const uint8_t *p = rs_sec_bytes(f, at.sec, at.off, 4);
	int32_t v;
	uint64_t addr;

	memset(to, 0, sizeof(*to));
	if (!p)
		return -1;
	if (f->rel) {
		struct rs_relas *rs;
		const struct rs_rela *r;
		const struct rs_sym *s;

		if (rs_relas(f, at.sec, &rs) || !(r = rs_rela_at(rs, at.off)))
			return -1;
		if (r->type != R_X86_64_PC32 && r->type != R_X86_64_PLT32)
			return -1;
		s = &f->sym[r->sym];
		to->sym = s->name;
		to->sec = s->shndx < f->nsec ? s->shndx : 0;
		to->off = s->value + r->addend + bias;
		return 0;
	}
	memcpy(&v, p, 4);
	addr = rs_sec_start(f, at.sec) + at.off + v + bias;
	if (!rs_addr_sec(f, addr, 1, &to->sec))
		return -1;
	to->off = addr - rs_sec_start(f, to->sec);
	return 0;
}

/* The name of what the call at `at` calls ("" when unknown): in a
 * relocatable file its rel32 is still a relocation, so from that. */
static const char *call_target(struct rs_elf *f, struct kloc at)
{
	const struct rs_sym *fn;
	struct kloc to;

	at.off += REPSTOS_CALL_REL32;
	if (field_target(f, at, 4, &to))
		return "";
	if (to.sym && *to.sym && to.sym[0] != '.')
		return to.sym;
	fn = to.sec ? rs_func_at(f, to.sec, to.off) : NULL;
	if (fn && fn->value - rs_sec_start(f, to.sec) == to.off)
		return fn->name;
	return "";
}

void k_form_at(struct rs_elf *f, struct kloc at, char *buf, size_t len)
{
	const uint8_t *p = rs_sec_bytes(f, at.sec, at.off, K_SITE_LEN);
	enum repstos_form form = REPSTOS_FORM_BAD;
	const char *t;
	int copy = 0;

	if (p)
		form = repstos_decode_any(p, K_SITE_LEN, 0, &copy, NULL);
	if (form == REPSTOS_FORM_INLINE) {
		snprintf(buf, len, "%s", copy ? "rep_movsb" : "rep_stosb");
		return;
	}
	if (form != REPSTOS_FORM_CALL) {
		snprintf(buf, len, "?");
		return;
	}
	t = call_target(f, at);
	if (!strncmp(t, K_PREFIX, strlen(K_PREFIX)))
		snprintf(buf, len, "%s", t + strlen(K_PREFIX));
	else
		snprintf(buf, len, "call:%s", *t ? t : "?");
}

/* The offset of the next site note at or after *off, advancing *off
 * past it; false at the end. */
static bool next_note(const struct rs_elf *f, size_t ns, uint64_t *off,
		      uint64_t *at)
{
	uint64_t size = f->sec[ns].sh.sh_size;

	while (*off + 12 <= size) {
		const uint8_t *h = rs_sec_bytes(f, ns, *off, 12);
		const uint8_t *name = rs_sec_bytes(f, ns, *off + 12, 8);
		uint32_t namesz, descsz, type;

		if (!h)
			return false;
		memcpy(&namesz, h, 4);
		memcpy(&descsz, h + 4, 4);
		memcpy(&type, h + 8, 4);
		*at = *off;
		*off += 12 + ((namesz + 3ull) & ~3ull) + ((descsz + 3ull) & ~3ull);
		if (namesz == 8 && type == K_NOTE_SITE && descsz == 16 &&
		    name && !memcmp(name, "repstos", 8))
			return true;
	}
	return false;
}

static int read_note_site(struct rs_elf *f, struct kloc note, struct ksite *s)
{
	const uint8_t *d = rs_sec_bytes(f, note.sec, note.off + 20, 16);
	struct kloc alt;

	memset(s, 0, sizeof(*s));
	s->note = note;
	s->first = K_NONE;
	if (!d)
		return -1;
	s->op = d[4];
	s->kind = d[5];
	s->entries = d[6];
	/* the first notes had 1 there, and the 12-byte layout */
	s->alt_size = d[7] == 1 ? K_ALT_OLD : d[7];
	if (s->alt_size != K_ALT_OLD && s->alt_size != K_ALT_NEW)
		return -1;
	memcpy(&s->min, d + 8, 4);
	memcpy(&s->max, d + 12, 4);
	note.off += 20;
	if (field_target(f, note, 0, &s->alt))
		return -1;
	alt = s->alt;
	return field_target(f, alt, 0, &s->site);
}

/* Every site note of the file, in k->site. */
static int load_notes(struct rs_elf *f, struct kfile *k)
{
	size_t ns = notes_sec(f), cap = 0;
	uint64_t off = 0, at;

	if (!ns)
		return -1;
	while (next_note(f, ns, &off, &at)) {
		struct kloc note = { ns, at, NULL };

		if (k->n == cap) {
			struct ksite *more;

			cap = cap ? 2 * cap : 256;
			more = realloc(k->site, cap * sizeof(*more));
			if (!more)
				return -1;
			k->site = more;
		}
		if (read_note_site(f, note, &k->site[k->n])) {
			k->bad++;
			continue;
		}
		if (!k->alt_size)
			k->alt_size = k->site[k->n].alt_size;
		k->mixed += k->site[k->n].alt_size != k->alt_size;
		k->n++;
	}
	return k->n || k->bad ? 0 : -1;
}

static void read_alt(struct rs_elf *f, struct kloc at, unsigned size,
		     struct kalt *a)
{
	const uint8_t *p = rs_sec_bytes(f, at.sec, at.off, size);
	struct kloc repl = at;
	uint16_t word[2];

	memset(a, 0, sizeof(*a));
	a->at = at;
	a->site = K_NONE;
	memcpy(word, p + 8, size - 10);
	if (size == K_ALT_OLD) {
		a->feature = word[0] & ~K_ALT_NOT_OLD;
		a->not = word[0] & K_ALT_NOT_OLD;
	} else {
		a->feature = word[0];
		a->not = word[1] & K_FLAG_NOT;
		a->flags = word[1] & ~K_FLAG_NOT;
	}
	a->ilen = p[size - 2];
	a->rlen = p[size - 1];
	repl.off += 4;
	a->ok = !field_target(f, at, 0, &a->instr) &&
		!field_target(f, repl, 0, &a->repl);
}

/* Every entry of every .altinstructions with bytes, in k->alt: by
 * section and offset, which is the order apply_alternatives() takes. */
static int load_alts(struct rs_elf *f, struct kfile *k)
{
	unsigned size = k->alt_size ? k->alt_size : K_ALT_OLD;
	size_t n = 0, i;

	for (i = 1; i < f->nsec; i++)
		if (!strcmp(f->sec[i].name, ".altinstructions") &&
		    f->sec[i].sh.sh_type != SHT_NOBITS)
			n += f->sec[i].sh.sh_size / size;
	k->alt = calloc(n ? n : 1, sizeof(*k->alt));
	if (!k->alt)
		return -1;
	for (i = 1; i < f->nsec; i++) {
		const GElf_Shdr *sh = &f->sec[i].sh;

		if (strcmp(f->sec[i].name, ".altinstructions") ||
		    sh->sh_type == SHT_NOBITS)
			continue;
		k->ragged += sh->sh_size % size != 0 ||
			     (sh->sh_entsize && sh->sh_entsize != size);
		for (uint64_t off = 0; off + size <= sh->sh_size; off += size) {
			struct kloc at = { i, off, NULL };

			read_alt(f, at, size, &k->alt[k->nalt++]);
		}
	}
	return 0;
}

/* The entry at loc, or K_NONE: k->alt is sorted by place. */
static size_t alt_at(const struct kfile *k, struct kloc loc)
{
	size_t lo = 0, hi = k->nalt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kloc *m = &k->alt[mid].at;

		if (m->sec < loc.sec || (m->sec == loc.sec && m->off < loc.off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k->nalt && k->alt[lo].at.sec == loc.sec &&
	    k->alt[lo].at.off == loc.off)
		return lo;
	return K_NONE;
}

const struct kalt *k_entry(const struct kfile *k, const struct ksite *s,
			   unsigned j)
{
	size_t i = s->first + j;

	if (s->first == K_NONE || i >= k->nalt || k->alt[i].at.sec != s->alt.sec)
		return NULL;
	return &k->alt[i];
}

static const struct kalt *sort_alt;

static int cmp_loc(const void *a, const void *b)
{
	const struct kalt *x = &sort_alt[*(const size_t *)a];
	const struct kalt *y = &sort_alt[*(const size_t *)b];

	if (x->instr.sec != y->instr.sec)
		return x->instr.sec < y->instr.sec ? -1 : 1;
	if (x->instr.off != y->instr.off)
		return x->instr.off < y->instr.off ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* k->byloc: the resolved entries by the place they patch. */
static int index_alts(struct kfile *k)
{
	k->byloc = malloc((k->nalt ? k->nalt : 1) * sizeof(*k->byloc));
	if (!k->byloc)
		return -1;
	for (size_t i = 0; i < k->nalt; i++)
		if (k->alt[i].ok)
			k->byloc[k->nloc++] = i;
	sort_alt = k->alt;
	qsort(k->byloc, k->nloc, sizeof(*k->byloc), cmp_loc);
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

size_t k_on_site(const struct kfile *k, size_t i, size_t **out)
{
	struct kloc s = k->site[i].site;
	/* an entry up to 255 bytes long may start before the site */
	uint64_t from = s.off > 255 ? s.off - 255 : 0;
	size_t lo = 0, hi = k->nloc, n = 0;

	*out = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kloc *m = &k->alt[k->byloc[mid]].instr;

		if (m->sec < s.sec || (m->sec == s.sec && m->off < from))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j < k->nloc; j++) {
		const struct kalt *a = &k->alt[k->byloc[j]];
		size_t *more;

		if (a->instr.sec != s.sec || a->instr.off >= s.off + K_SITE_LEN)
			break;
		if (a->instr.off + (a->ilen ? a->ilen : 1) <= s.off)
			continue;
		more = realloc(*out, (n + 1) * sizeof(**out));
		if (!more)
			break;
		*out = more;
		(*out)[n++] = k->byloc[j];
	}
	if (n)
		qsort(*out, n, sizeof(**out), cmp_size);
	return n;
}

/* Which entries the notes name, and which lie on a site. */
static void mark(struct kfile *k)
{
	for (size_t i = 0; i < k->n; i++) {
		struct ksite *s = &k->site[i];
		size_t *on, n;

		s->first = alt_at(k, s->alt);
		for (unsigned j = 0; j < s->entries; j++)
			if (k_entry(k, s, j))
				k->alt[s->first + j].named++;
		n = k_on_site(k, i, &on);
		for (size_t j = 0; j < n; j++)
			if (k->alt[on[j]].site == K_NONE)
				k->alt[on[j]].site = i;
		free(on);
	}
}

int k_load(struct rs_elf *f, struct kfile *k)
{
	memset(k, 0, sizeof(*k));
	if (load_notes(f, k) || load_alts(f, k) || index_alts(k)) {
		k_free(k);
		return -1;
	}
	mark(k);
	return 0;
}

void k_free(struct kfile *k)
{
	free(k->site);
	free(k->alt);
	free(k->byloc);
	memset(k, 0, sizeof(*k));
}

/*
 * apply_alternatives() walks the table in order and writes each entry
 * whose condition holds, so the last such entry on the site wins.  An
 * entry on a feature the classes do not model leaves the answer open
 * ("?" after the form); one that holds but starts elsewhere writes over
 * part of the site ("?").
 */
void k_form_for(struct rs_elf *f, const struct kfile *k, size_t i,
		unsigned cls, char *buf, size_t len)
{
	struct kloc at = k->site[i].site;
	bool open = false, torn = false;
	size_t *on, n = k_on_site(k, i, &on);

	for (size_t j = 0; j < n; j++) {
		const struct kalt *a = &k->alt[on[j]];
		int has = a->flags ? -1 : k_class_has(cls, a->feature);

		if (has < 0) {
			open = true;
		} else if (has != a->not) {
			torn = a->instr.off != k->site[i].site.off;
			if (!torn)
				at = a->repl;
		}
	}
	free(on);
	if (torn) {
		snprintf(buf, len, "?");
		return;
	}
	k_form_at(f, at, buf, len);
	if (open && strlen(buf) + 1 < len)
		strcat(buf, "?");
}

/* Does the file hold kernel-mode sites?  A note is enough. */
bool rs_kernel_file(struct rs_elf *f)
{
	size_t ns = notes_sec(f);
	uint64_t off = 0, at;

	return ns && next_note(f, ns, &off, &at);
}
