// SPDX-License-Identifier: MIT
/*
 * kernel.c - `repstos dump` and `repstos check` of a Linux image built
 * with -fplugin-arg-repstos-kernel: vmlinux, a .ko or one object.
 *
 * Such a file has no repstos site table.  Each site is a note in
 * .note.repstos (linked into vmlinux's .notes) naming the site's first
 * struct alt_instr in .altinstructions (plugin/kernel.c says the
 * layout); the entries say what apply_alternatives() writes there on
 * each CPU.  In vmlinux the offsets are resolved; in a .ko or .o they
 * are still relocations, read through rs_relas().
 */
#include <stdlib.h>
#include <string.h>

#include "patcher.h"

#define K_NOTE_SITE	1
#define K_ALT_SIZE	12
#define K_ALT_NOT	0x8000u
#define K_FSRM		(18 * 32 + 4)
#define K_ERMS		(9 * 32 + 9)
#define K_REP_GOOD	(3 * 32 + 16)
#define K_PREFIX	"__repstos_k_"

/* A place in the file: section and offset in it. */
struct kloc {
	size_t sec;
	uint64_t off;
	const char *sym;	/* ET_REL: the symbol a relocation names */
};

struct ksite {
	struct kloc note, alt, site;
	unsigned op, kind, entries;
	uint32_t min, max;
};

/* The CPU classes a dump shows, by the features each has. */
static const struct {
	const char *name;
	unsigned n;
	unsigned feat[3];
} classes[] = {
	{ "fsrm", 3, { K_FSRM, K_ERMS, K_REP_GOOD } },
	{ "erms", 2, { K_ERMS, K_REP_GOOD } },
	{ "rep_good", 1, { K_REP_GOOD } },
	{ "none", 0, { 0 } },
};

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

/* The name of what a call at `at` calls ("" when unknown). */
static const char *call_target(struct rs_elf *f, struct kloc at)
{
	const uint8_t *p = rs_sec_bytes(f, at.sec, at.off, 5);
	const struct rs_sym *fn;
	struct kloc to;

	if (!p || p[0] != 0xe8)
		return NULL;
	at.off++;
	if (field_target(f, at, 4, &to))
		return "";
	if (to.sym && *to.sym && to.sym[0] != '.')
		return to.sym;
	fn = to.sec ? rs_func_at(f, to.sec, to.off) : NULL;
	if (fn && fn->value - rs_sec_start(f, to.sec) == to.off)
		return fn->name;
	return "";
}

/* What n bytes at `at` are, in a few words: inline form or call. */
static void form_at(struct rs_elf *f, struct kloc at, char *buf, size_t len)
{
	const uint8_t *p = rs_sec_bytes(f, at.sec, at.off, 2);
	const char *t;

	if (p && p[0] == 0xf3 && (p[1] == 0xaa || p[1] == 0xa4)) {
		snprintf(buf, len, "%s", p[1] == 0xaa ? "rep_stosb" : "rep_movsb");
		return;
	}
	t = call_target(f, at);
	if (!t)
		snprintf(buf, len, "?");
	else if (!strncmp(t, K_PREFIX, strlen(K_PREFIX)))
		snprintf(buf, len, "%s", t + strlen(K_PREFIX));
	else
		snprintf(buf, len, "call:%s", *t ? t : "?");
}

static int read_note_site(struct rs_elf *f, struct kloc note, struct ksite *s)
{
	const uint8_t *d = rs_sec_bytes(f, note.sec, note.off + 20, 16);
	struct kloc alt;

	memset(s, 0, sizeof(*s));
	s->note = note;
	if (!d)
		return -1;
	s->op = d[4];
	s->kind = d[5];
	s->entries = d[6];
	memcpy(&s->min, d + 8, 4);
	memcpy(&s->max, d + 12, 4);
	note.off += 20;
	if (field_target(f, note, 0, &s->alt))
		return -1;
	alt = s->alt;
	return field_target(f, alt, 0, &s->site);
}

/* Every site note of the file, in *out; -1 on a file not ours. */
static int load_sites(struct rs_elf *f, struct ksite **out, size_t *n,
		      size_t *bad)
{
	size_t ns = notes_sec(f), cap = 0;
	uint64_t off = 0, size;

	*out = NULL;
	*n = *bad = 0;
	if (!ns)
		return -1;
	size = f->sec[ns].sh.sh_size;
	while (off + 12 <= size) {
		const uint8_t *h = rs_sec_bytes(f, ns, off, 12);
		uint32_t namesz, descsz, type;
		struct kloc at = { ns, off, NULL };

		if (!h)
			break;
		memcpy(&namesz, h, 4);
		memcpy(&descsz, h + 4, 4);
		memcpy(&type, h + 8, 4);
		if (namesz == 8 && type == K_NOTE_SITE && descsz == 16 &&
		    rs_sec_bytes(f, ns, off + 12, 8) &&
		    !memcmp(rs_sec_bytes(f, ns, off + 12, 8), "repstos", 8)) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				*out = realloc(*out, cap * sizeof(**out));
				if (!*out)
					return -1;
			}
			if (read_note_site(f, at, &(*out)[*n]))
				(*bad)++;
			else
				(*n)++;
		}
		off += 12 + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
	}
	return *n || *bad ? 0 : -1;
}

/* Does the file hold kernel-mode sites? */
bool rs_kernel_file(struct rs_elf *f)
{
	struct ksite *s;
	size_t n, bad;
	int r = load_sites(f, &s, &n, &bad);

	free(s);
	return r == 0;
}

static bool has_feature(unsigned cls, unsigned feat)
{
	for (unsigned i = 0; i < classes[cls].n; i++)
		if (classes[cls].feat[i] == feat)
			return true;
	return false;
}

/* The alt_instr j of site s: cpuid, lengths, replacement place. */
static int entry(struct rs_elf *f, const struct ksite *s, unsigned j,
		 uint16_t *cpuid, uint8_t *ilen, uint8_t *rlen,
		 struct kloc *repl, struct kloc *instr)
{
	struct kloc e = s->alt;
	const uint8_t *p;

	e.off += j * K_ALT_SIZE;
	p = rs_sec_bytes(f, e.sec, e.off, K_ALT_SIZE);
	if (!p)
		return -1;
	memcpy(cpuid, p + 8, 2);
	*ilen = p[10];
	*rlen = p[11];
	if (field_target(f, e, 0, instr))
		return -1;
	e.off += 4;
	return field_target(f, e, 0, repl);
}

/* What apply_alternatives() leaves at s on a CPU of class cls: the
 * last entry whose condition holds, else the original. */
static void form_for(struct rs_elf *f, const struct ksite *s, unsigned cls,
		     char *buf, size_t len)
{
	struct kloc at = s->site, repl, instr;
	uint16_t cpuid;
	uint8_t ilen, rlen;

	for (unsigned j = 0; j < s->entries; j++) {
		bool has;

		if (entry(f, s, j, &cpuid, &ilen, &rlen, &repl, &instr))
			continue;
		has = has_feature(cls, cpuid & ~K_ALT_NOT);
		if (has != !!(cpuid & K_ALT_NOT))
			at = repl;
	}
	form_at(f, at, buf, len);
}

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

int rs_kernel_dump(struct rs_elf *f, FILE *out)
{
	struct rs_lines *l = rs_lines_open(f);
	struct ksite *s;
	size_t n, bad;

	if (load_sites(f, &s, &n, &bad)) {
		rs_lines_close(l);
		return RS_EXIT_BAD;
	}
	fprintf(out, "%s: Linux kernel-mode sites: %zu (alternatives in "
		".altinstructions)\n", f->path, n);
	fprintf(out, "%-40s %-8s %-12s %-10s %-10s %-14s %-10s %s\n", "site",
		"op", "size", "fsrm", "erms", "rep_good", "none", "line");
	for (size_t i = 0; i < n; i++) {
		char where[128], size[32], form[4][48];
		const char *file = NULL;
		int line = 0;

		rs_where(f, s[i].site.sec, s[i].site.off, where, sizeof(where));
		size_text(&s[i], size, sizeof(size));
		for (unsigned c = 0; c < 4; c++)
			form_for(f, &s[i], c, form[c], sizeof(form[c]));
		rs_lines_find(l, s[i].site.sec, s[i].site.off, &file, &line);
		fprintf(out, "%-40s %-8s %-12s %-10s %-10s %-14s %-10s",
			where, op_text(s[i].op), size, form[0], form[1],
			form[2], form[3]);
		if (file)
			fprintf(out, " %s:%d", file, line);
		fputc('\n', out);
	}
	if (bad)
		fprintf(out, "%s: %zu site notes unreadable\n", f->path, bad);
	free(s);
	rs_lines_close(l);
	return bad ? RS_EXIT_PROBLEM : RS_EXIT_OK;
}

/* The routine family of an op: what its replacements must call. */
static const char *family(unsigned op)
{
	if (op == REPSTOS_OP_MOVE)
		return "move";
	return repstos_op_is_copy(op) ? "copy" : "set";
}

static unsigned problem(const struct rs_elf *f, const char *where,
			const char *what)
{
	printf("%s: %s: %s\n", f->path, where, what);
	return 1;
}

/* One site against the kernel's table and plugin/kernel.c's layout. */
static unsigned check_site(struct rs_elf *f, const struct ksite *s)
{
	static const char *const cls[] = { "erms", "rep_good", "orig" };
	bool inl = s->op != REPSTOS_OP_MOVE;
	unsigned want = inl ? 3 : 2, bad = 0;
	char where[128], form[48], expect[64];

	rs_where(f, s->site.sec, s->site.off, where, sizeof(where));
	if (s->op >= REPSTOS_OP_COUNT || s->kind >= REPSTOS_SIZE_KIND_COUNT)
		return problem(f, where, "unknown op or size kind in its note");
	if (s->entries != want)
		bad += problem(f, where, "wrong number of alt_instr entries");
	form_at(f, s->site, form, sizeof(form));
	snprintf(expect, sizeof(expect), "%s", !inl ? "move_erms" :
		 repstos_op_is_copy(s->op) ? "rep_movsb" : "rep_stosb");
	if (strcmp(form, expect))
		bad += problem(f, where, "the original is not the site's form");
	for (unsigned j = 0; j < s->entries && j < want; j++) {
		struct kloc repl, instr;
		uint16_t cpuid;
		uint8_t ilen, rlen;
		unsigned c = inl ? j : j + 1;

		if (entry(f, s, j, &cpuid, &ilen, &rlen, &repl, &instr)) {
			bad += problem(f, where, "an alt_instr is unreadable");
			continue;
		}
		if (instr.sec != s->site.sec || instr.off != s->site.off)
			bad += problem(f, where, "an alt_instr is of another site");
		if (ilen != 5 || rlen != 5)
			bad += problem(f, where, "an alt_instr length is not 5");
		if (!(cpuid & K_ALT_NOT) || (c > 0 && (cpuid & ~K_ALT_NOT) !=
					     (c == 1 ? K_ERMS : K_REP_GOOD)))
			bad += problem(f, where, "an alt_instr feature is out of "
				       "order (ALT_NOT inline bit, ERMS, REP_GOOD)");
		form_at(f, repl, form, sizeof(form));
		snprintf(expect, sizeof(expect), "%s_%s", family(s->op), cls[c]);
		if (strcmp(form, expect))
			bad += problem(f, where, "a replacement calls the wrong "
				       "routine");
	}
	return bad;
}

int rs_kernel_check(struct rs_elf *f, FILE *out, bool quiet)
{
	struct ksite *s;
	size_t n, bad;
	unsigned problems = 0;

	if (load_sites(f, &s, &n, &bad))
		return RS_EXIT_BAD;
	for (size_t i = 0; i < n; i++)
		problems += check_site(f, &s[i]);
	if (bad)
		problems += problem(f, "notes", "site notes unreadable");
	if (!problems && !quiet)
		fprintf(out, "%s: clean, %zu kernel-mode site%s\n", f->path, n,
			n == 1 ? "" : "s");
	free(s);
	return problems ? RS_EXIT_PROBLEM : RS_EXIT_OK;
}
