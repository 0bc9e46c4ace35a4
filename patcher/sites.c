// SPDX-License-Identifier: MIT
/*
 * sites.c - walk the site table and resolve every entry: where the site
 * is, which function holds it, and which contract form its bytes are.
 *
 * In an executable or shared object an entry's `site` field is an offset
 * from the field itself.  In a .o it is an R_X86_64_PC32 relocation
 * against the text section (site = S + A), and the call at the site is an
 * R_X86_64_PLT32 relocation whose symbol names the target.  A .o built
 * with SHF_LINK_ORDER entries has one table section per text section.
 */
#include <stdlib.h>
#include <string.h>

#include "patcher.h"

/* .o: the site is the PC32 relocation's S + A. */
static int locate_rel(struct rs_elf *f, struct rs_site *s)
{
	const struct rs_sym *sym;
	const struct rs_rela *r;
	struct rs_relas *rs;

	if (rs_relas(f, s->tsec, &rs))
		return -1;
	r = rs_rela_at(rs, s->toff);
	if (!r) {
		s->bad = "entry has no relocation for its site field";
		return 0;
	}
	if (r->type != R_X86_64_PC32) {
		s->bad = "site field relocation is not R_X86_64_PC32";
		return 0;
	}
	sym = &f->sym[r->sym];
	if (sym->shndx == SHN_UNDEF || sym->shndx >= f->nsec) {
		s->bad = "site field relocation is against an undefined symbol";
		return 0;
	}
	s->sec = sym->shndx;
	s->off = sym->value + (uint64_t)r->addend;
	s->addr = s->off;
	return 1;
}

/* Executable or shared object: the site is &field + field. */
static void locate_exec(struct rs_elf *f, struct rs_site *s)
{
	uint64_t field = f->sec[s->tsec].sh.sh_addr + s->toff;

	s->addr = field + (int64_t)s->e.site;
	if (!rs_addr_sec(f, s->addr, s->e.len, &s->sec)) {
		s->bad = "site address is outside every section";
		return;
	}
	s->off = s->addr - f->sec[s->sec].sh.sh_addr;
}

/*
 * The call goes to routine r (-1: none of ours); name is what to call it.
 * A set site calling a copy routine, or the other way, is no site.
 */
static void call_of(struct rs_site *s, int r, const char *name)
{
	s->target_name = name;
	if (r < 0) {
		s->form_why = "call target is not the stub or a variant routine";
		return;
	}
	if (rs_routines[r].copy != repstos_op_is_copy(s->e.op)) {
		s->form_why = rs_routines[r].copy ?
			"a set site calls a copy routine" :
			"a copy site calls a set routine";
		return;
	}
	s->form = rs_routines[r].variant < 0 ? REPSTOS_FORM_STUB :
					       REPSTOS_FORM_CALL;
	s->variant = rs_routines[r].variant;
}

/* .o: the call's target is the symbol of its PLT32/PC32 relocation. */
static int classify_call_rel(struct rs_elf *f, struct rs_site *s)
{
	const struct rs_rela *r;
	struct rs_relas *rs;
	const char *name;

	if (rs_relas(f, s->sec, &rs))
		return -1;
	r = rs_rela_at(rs, s->off + REPSTOS_CALL_REL32);
	s->call_rel = r;
	if (!r || r->type == R_X86_64_NONE) {
		s->form_why = "call without a relocation (target unknown)";
		return 0;
	}
	if ((r->type != R_X86_64_PLT32 && r->type != R_X86_64_PC32) ||
	    r->addend != -4) {
		s->form_why = "call relocation is not PLT32/PC32 with addend -4";
		return 0;
	}
	name = f->sym[r->sym].name;
	call_of(s, rs_routine_by_sym(name), name);
	return 0;
}

/*
 * A stripped file keeps only .dynsym, where hidden routines never are.
 * Then the stub and the routines are known by their bytes: what the
 * target starts with, compared with this tool's own copies.
 */
static void classify_guess(struct rs_elf *f, struct rs_site *s,
			   struct rs_routine *rt)
{
#define X_GUESS(e, name, sym, needs)	#sym "?",
	static const char *const guessed[RS_NROUTINES] = {
		REPSTOS_VARIANTS(X_GUESS)
		[RS_STUB] = REPSTOS_STR(REPSTOS_STUB_SYMBOL) "?",
		REPSTOS_COPY_VARIANTS(X_GUESS)
		[RS_COPY_STUB] = REPSTOS_STR(REPSTOS_COPY_STUB_SYMBOL) "?",
	};
#undef X_GUESS
	int r;

	s->guessed = true;
	/* Comparing bytes decodes up to every routine's start: once per
	 * target, not once per site (10,000 sites took 15x as long). */
	for (r = 0; r < RS_NROUTINES; r++)
		if (rt[r].seen && rt[r].seen_addr == s->target)
			break;
	if (r == RS_NROUTINES && (r = rs_routine_by_bytes(f, s->target)) >= 0) {
		rt[r].seen = true;
		rt[r].seen_addr = s->target;
	}
	if (r < 0)
		s->form_why = "call target does not look like the stub or a routine";
	else
		call_of(s, r, guessed[r]);
}

static void classify_call_exec(struct rs_elf *f, struct rs_site *s,
			       struct rs_routine *rt)
{
	const struct rs_sym *fn;
	const char *bad = NULL;
	size_t sec;
	int r;

	for (r = 0; r < RS_NROUTINES; r++) {
		if (!rt[r].have || s->target != rt[r].addr)
			continue;
		if (!rt[r].bad) {
			call_of(s, r, rt[r].name);
			return;
		}
		bad = s->target_name = rt[r].name;
	}
	if (bad) {
		s->form_why = "call target's symbol does not hold the routine";
		return;
	}
	if (!rt[rs_stub_of(s->e.op)].have && !f->full_symtab) {
		classify_guess(f, s, rt);
		return;
	}
	s->form_why = "call target is not the stub or a variant routine";
	if (!rs_addr_sec(f, s->target, 1, &sec))
		return;
	if (!strncmp(f->sec[sec].name, ".plt", 4))
		s->form_why = "call goes through the PLT (lazy binding clobbers r11)";
	fn = rs_func_at(f, sec, s->target - f->sec[sec].sh.sh_addr);
	if (fn)
		s->target_name = fn->name;
}

static int resolve(struct rs_elf *f, struct rs_site *s,
		   struct rs_routine *rt)
{
	const uint8_t *p;
	enum repstos_form form;
	int r;

	s->variant = -1;
	if (!repstos_version_known(s->e.version)) {
		s->bad = "unknown entry version";
		return 0;
	}
	/* (an op unknown to both is check's to report) */
	if (s->e.op < REPSTOS_OP_COUNT &&
	    !repstos_version_fits(s->e.version, s->e.op)) {
		s->bad = "op of the other entry version";
		return 0;
	}
	if (s->e.len < REPSTOS_SITE_LEN) {
		s->bad = "site length below 5";
		return 0;
	}
	if (f->rel) {
		r = locate_rel(f, s);
		if (r <= 0)
			return r;
	} else {
		locate_exec(f, s);
		if (s->bad)
			return 0;
	}
	p = rs_sec_bytes(f, s->sec, s->off, s->e.len);
	if (!p) {
		s->bad = "site bytes are outside its section";
		return 0;
	}
	s->known = true;
	s->func = rs_func_at(f, s->sec, s->off);
	form = rs_decode_site(p, s->e.len, s->addr, s->e.op, &s->target,
			      &s->form_why);
	if (form == REPSTOS_FORM_INLINE) {
		s->form = REPSTOS_FORM_INLINE;
		s->variant = repstos_op_is_copy(s->e.op) ?
			     REPSTOS_COPY_VARIANT_INLINE : REPSTOS_VARIANT_INLINE;
	} else if (form == REPSTOS_FORM_CALL && f->rel) {
		return classify_call_rel(f, s);
	} else if (form == REPSTOS_FORM_CALL) {
		classify_call_exec(f, s, rt);
	}
	return 0;
}

static bool is_table(const struct rs_sec *s)
{
	return !strcmp(s->name, REPSTOS_SITES_SECTION) &&
	       s->sh.sh_type == SHT_PROGBITS;
}

int rs_table_load(struct rs_elf *f, struct rs_table *t)
{
	size_t i, n = 0, k = 0, ntab = 0;

	memset(t, 0, sizeof(*t));
	for (i = 1; i < f->nsec; i++) {
		const struct rs_sec *s = &f->sec[i];

		if (!is_table(s))
			continue;
		ntab++;
		if (s->sh.sh_size % REPSTOS_SITE_ENTRY_SIZE) {
			rs_err(f->path, "malformed %s section: size %llu is not a multiple of %d",
			       s->name, (unsigned long long)s->sh.sh_size,
			       REPSTOS_SITE_ENTRY_SIZE);
			return -1;
		}
		n += s->sh.sh_size / REPSTOS_SITE_ENTRY_SIZE;
	}
	if (!ntab) {
		t->absent = true;
		return 0;
	}
	t->site = calloc(n ? n : 1, sizeof(*t->site));
	if (!t->site) {
		rs_err(f->path, "out of memory");
		return -1;
	}
	t->n = n;
	if (!f->rel)
		rs_routines_find(f, t->routine);
	for (i = 1; i < f->nsec; i++) {
		uint64_t off;

		if (!is_table(&f->sec[i]))
			continue;
		for (off = 0; off < f->sec[i].sh.sh_size;
		     off += REPSTOS_SITE_ENTRY_SIZE, k++) {
			struct rs_site *s = &t->site[k];

			s->entry = k;
			s->tsec = i;
			s->toff = off;
			memcpy(&s->e, rs_sec_bytes(f, i, off, sizeof(s->e)),
			       sizeof(s->e));
			if (resolve(f, s, t->routine)) {
				rs_table_free(t);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * A file with no site table: a build's post-pass meets many (a program
 * with no memset, a -fsanitize=thread build the plugin leaves alone),
 * so it is one line and success, unless sites were required.
 */
int rs_no_table(const struct rs_elf *f, bool require, FILE *out)
{
	if (require) {
		rs_err(f->path, "no %s section: not built with repstos",
		       REPSTOS_SITES_SECTION);
		return RS_EXIT_BAD;
	}
	fprintf(out, "%s: %s\n", f->path, RS_NO_SITES);
	return RS_EXIT_OK;
}

void rs_table_free(struct rs_table *t)
{
	free(t->site);
	t->site = NULL;
	t->n = 0;
}

int rs_module_read(const struct rs_elf *f, struct repstos_module_info *mi,
		   const char **why)
{
	const uint8_t *p;

	if (!f->module) {
		*why = "no " REPSTOS_MODULE_SECTION " record (not linked with librepstos.a?)";
		return -1;
	}
	p = rs_sec_bytes(f, f->module, 0, sizeof(*mi));
	if (!p || f->sec[f->module].sh.sh_size != sizeof(*mi)) {
		*why = "malformed " REPSTOS_MODULE_SECTION " record: size is not "
		       REPSTOS_STR(REPSTOS_MODULE_SIZE);
		return -2;
	}
	memcpy(mi, p, sizeof(*mi));
	if (memcmp(mi->magic, REPSTOS_MODULE_MAGIC, sizeof(mi->magic))) {
		*why = "malformed " REPSTOS_MODULE_SECTION " record: bad magic";
		return -2;
	}
	if (mi->version != REPSTOS_MODULE_VERSION) {
		*why = "unknown " REPSTOS_MODULE_SECTION " record version";
		return -2;
	}
	return 0;
}
