// SPDX-License-Identifier: MIT
/*
 * patch.c - `repstos patch`: rewrite every site for one CPU profile.
 *
 * Changes are planned as bytes at file offsets, and output.c writes the
 * input with them into place: nothing is re-laid out, a failure leaves
 * the target as it was, and a second run with the same profile finds
 * nothing to change.
 *
 * Executables and shared objects: sites become `call <routine>` or
 * inline (`rep stosb`; `rep movsb` in copy sites whose op allows it), as
 * the runtime would write them for the profile, and the module record is marked static so the runtime
 * leaves the module alone.  Objects: a call that becomes inline loses its
 * relocation (R_X86_64_NONE, kept as a slot for a later patch back), a
 * call to a variant has its relocation retargeted, and a routine symbol
 * the object lacks is added as an undefined hidden global by appending a
 * grown .symtab and .strtab at the end of the file.
 */
#include <stdlib.h>
#include <string.h>

#include "patcher.h"
#include "policy/policy.h"
#include "policy/sitecode.h"

struct plan {
	struct rs_elf *f;
	const struct rs_patch_opts *o;
	FILE *out;
	struct rs_choice choice;
	/* executables: the routines, checked against the loaded code */
	const struct rs_routine *routine;
	/* objects: routine symbol indexes, new ones appended; both by
	 * routine number (rs_routines[]), set and copy alike */
	long symidx[RS_NROUTINES];
	size_t nadd;
	int add[RS_NROUTINES];
	uint8_t *tail;
	size_t tail_len;
	struct rs_edit *edit;
	size_t nedit, edit_cap;
	bool oom;
	size_t changed;		/* sites */
	bool record;		/* the module record changes */
};

/* Record a change; the image itself stays as read. */
static void put(struct plan *p, uint64_t off, const void *b, size_t len)
{
	struct rs_edit *e;

	if (p->nedit == p->edit_cap) {
		size_t cap = p->edit_cap ? 2 * p->edit_cap : 1024;
		struct rs_edit *n = realloc(p->edit, cap * sizeof(*n));

		if (!n) {
			p->oom = true;
			return;
		}
		p->edit = n;
		p->edit_cap = cap;
	}
	e = &p->edit[p->nedit++];
	e->off = off;
	e->len = len;
	memcpy(e->b, b, len);
}

/*
 * Where each wanted routine (a number in rs_routines[]) is: an address
 * the loaded code agrees with, or a symbol index in a .o.
 */
static int find_routine(struct plan *p, int v)
{
	const struct rs_routine *rt = &p->routine[v];
	const struct rs_sym *s;

	if (!p->f->rel) {
		if (!rt->have) {
			rs_err(p->f->path, "no symbol %s (stripped, or not linked with librepstos.a): cannot patch sites to call it",
			       rt->name);
			return -1;
		}
		if (rt->bad) {
			rs_err(p->f->path, "symbol %s (0x%llx) is not the routine: %s: cannot patch sites to call it",
			       rt->name, (unsigned long long)rt->addr, rt->bad);
			return -1;
		}
		return 0;
	}
	if (p->symidx[v] >= 0)
		return 0;
	s = rs_sym_by_name(p->f, rs_routines[v].sym);
	if (s) {
		p->symidx[v] = s->index;
	} else {
		p->symidx[v] = p->f->nsym + p->nadd;
		p->add[p->nadd++] = v;
	}
	return 0;
}

static void put_rela(struct plan *p, size_t sec, const struct rs_rela *r,
		     uint64_t info, int64_t addend)
{
	const GElf_Shdr *rsh = &p->f->sec[p->f->sec[sec].rela].sh;
	uint64_t q = rsh->sh_offset + r->index * sizeof(Elf64_Rela);

	put(p, q + offsetof(Elf64_Rela, r_info), &info, 8);
	put(p, q + offsetof(Elf64_Rela, r_addend), &addend, 8);
}

/* A form in words: "inline" in place; a call by its variant's name,
 * where "inline" is the called form (a move site's). */
static const char *form_text(unsigned op, bool inl, int variant)
{
	if (inl)
		return "inline";
	if (variant == (repstos_op_is_copy(op) ? REPSTOS_COPY_VARIANT_INLINE :
						 REPSTOS_VARIANT_INLINE))
		return "call inline";
	return rs_variant_text(op, variant);
}

static const char *current_text(const struct rs_site *s)
{
	if (s->form == REPSTOS_FORM_STUB)
		return "stub";
	return form_text(s->e.op, s->form == REPSTOS_FORM_INLINE, s->variant);
}

/* Rewrite one site in the image, inline or calling routine v; -1 when it
 * cannot be done. */
static int patch_site(struct plan *p, const struct rs_site *s, bool inl,
		      int v)
{
	struct rs_elf *f = p->f;
	const uint8_t *at = rs_sec_bytes(f, s->sec, s->off, s->e.len);
	uint8_t want[REPSTOS_SITE_MAX_LEN];
	const struct rs_rela *r = NULL;
	struct rs_relas *rs;
	uint64_t info = 0;
	int64_t addend = 0;
	bool reloc_ok = true;
	int bad;

	if (!inl && find_routine(p, v))
		return -1;
	if (f->rel) {
		if (rs_relas(f, s->sec, &rs))
			return -1;
		r = rs_rela_at(rs, s->off + REPSTOS_CALL_REL32);
		if (!inl) {
			info = ELF64_R_INFO(p->symidx[v], R_X86_64_PLT32);
			addend = -4;
		}
		if (r)
			reloc_ok = GELF_R_INFO(r->sym, r->type) == info &&
				   r->addend == addend;
		else if (!inl) {
			char where[256];

			rs_where(f, s->sec, s->off, where, sizeof(where));
			rs_err(f->path, "%s: no relocation slot to make this site a call",
			       where);
			return -1;
		}
	}
	/*
	 * The runtime's own encoder, so both write exactly the same bytes.
	 * In a .o the rel32 is the relocation's business: 0 in place.
	 */
	if (inl)
		bad = repstos_encode_inline(want, s->e.len, s->e.op);
	else
		bad = repstos_encode_call(want, s->e.len, s->addr,
					  f->rel ? s->addr + REPSTOS_CALL_LEN :
					  p->routine[v].addr);
	if (bad) {
		rs_err(f->path, "cannot encode a %u-byte %s site %s", s->e.len,
		       rs_op_names[s->e.op], inl ? "inline" : rs_routines[v].sym);
		return -1;
	}
	if (!memcmp(want, at, s->e.len) && reloc_ok)
		return 0;
	p->changed++;
	if (p->o->dry_run) {
		char where[256];

		rs_where(f, s->sec, s->off, where, sizeof(where));
		fprintf(p->out, "%s: %s: %s -> %s\n", f->path, where,
			current_text(s),
			form_text(s->e.op, inl, rs_routines[v].variant));
	}
	put(p, at - f->img, want, s->e.len);
	if (r && !reloc_ok)
		put_rela(p, s->sec, r, info, addend);
	return 0;
}

static void put_shdr_place(struct plan *p, size_t sec, uint64_t off,
			   uint64_t size)
{
	uint64_t q = p->f->eh.e_shoff + sec * sizeof(Elf64_Shdr);

	put(p, q + offsetof(Elf64_Shdr, sh_offset), &off, 8);
	put(p, q + offsetof(Elf64_Shdr, sh_size), &size, 8);
}

/*
 * Append the grown string and symbol tables after the end of the file
 * and point their section headers there.  The new symbols are globals,
 * so they go after every local and sh_info (first global) is unchanged.
 */
static int add_symbols(struct plan *p)
{
	struct rs_elf *f = p->f;
	const GElf_Shdr *sym = &f->sec[f->symtab].sh;
	size_t strsec = sym->sh_link, xsec = 0, i, names = 0, strsz, symsz, xsz = 0;
	const GElf_Shdr *str = &f->sec[strsec].sh;
	uint64_t stroff, symoff, xoff = 0, end;

	if (!p->nadd)
		return 0;
	/* Past 65279 sections, symbols' section indexes live in a side table
	 * that grows with the symbol table (a zero for an undefined one). */
	for (i = 1; i < f->nsec; i++)
		if (f->sec[i].sh.sh_type == SHT_SYMTAB_SHNDX &&
		    f->sec[i].sh.sh_link == f->symtab)
			xsec = i;
	if (str->sh_type != SHT_STRTAB) {
		rs_err(f->path, "symbol table's string table is not SHT_STRTAB");
		return -1;
	}
	if (xsec && f->sec[xsec].sh.sh_size != f->nsym * 4) {
		rs_err(f->path, "SHT_SYMTAB_SHNDX size does not match the symbol table");
		return -1;
	}
	for (i = 0; i < p->nadd; i++)
		names += strlen(rs_routines[p->add[i]].sym) + 1;
	strsz = str->sh_size + names;
	symsz = (f->nsym + p->nadd) * sizeof(Elf64_Sym);
	stroff = (f->size + 7) & ~7ull;
	symoff = (stroff + strsz + 7) & ~7ull;
	end = symoff + symsz;
	if (xsec) {
		xoff = end;
		xsz = (f->nsym + p->nadd) * 4;
		end += xsz;
	}
	p->tail_len = end - f->size;
	p->tail = calloc(1, p->tail_len);
	if (!p->tail) {
		rs_err(f->path, "out of memory");
		return -1;
	}
	memcpy(p->tail + stroff - f->size, f->img + str->sh_offset, str->sh_size);
	memcpy(p->tail + symoff - f->size, f->img + sym->sh_offset,
	       f->nsym * sizeof(Elf64_Sym));
	if (xsec)
		memcpy(p->tail + xoff - f->size,
		       f->img + f->sec[xsec].sh.sh_offset, f->nsym * 4);
	names = str->sh_size;
	for (i = 0; i < p->nadd; i++) {
		const char *name = rs_routines[p->add[i]].sym;
		Elf64_Sym ns = {
			.st_name = names,
			.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE),
			.st_other = STV_HIDDEN,
			.st_shndx = SHN_UNDEF,
		};

		memcpy(p->tail + stroff - f->size + names, name, strlen(name) + 1);
		names += strlen(name) + 1;
		memcpy(p->tail + symoff - f->size + (f->nsym + i) * sizeof(ns),
		       &ns, sizeof(ns));
	}
	put_shdr_place(p, strsec, stroff, strsz);
	put_shdr_place(p, f->symtab, symoff, symsz);
	if (xsec)
		put_shdr_place(p, xsec, xoff, xsz);
	return 0;
}

/* Mark the module static with the profile name, so the runtime keeps it. */
static int mark_static(struct plan *p)
{
	struct rs_elf *f = p->f;
	struct repstos_module_info mi, was;
	const char *why;

	if (f->rel)
		return 0;
	if (rs_module_read(f, &mi, &why)) {
		rs_err(f->path, "%s", why);
		return -1;
	}
	was = mi;
	mi.flags |= REPSTOS_MOD_STATIC;
	memset(mi.profile, 0, sizeof(mi.profile));
	strncpy(mi.profile, p->o->cpu, sizeof(mi.profile) - 1);
	if (!memcmp(&mi, &was, sizeof(mi)))
		return 0;
	p->record = true;
	if (p->o->dry_run)
		fprintf(p->out, "%s: %s: mark static, profile %s\n", f->path,
			REPSTOS_MODULE_SECTION, mi.profile);
	/* Only the two fields that change, each where the contract puts it. */
	put(p, f->sec[f->module].sh.sh_offset + REPSTOS_MODULE_FLAGS_OFF,
	    &mi.flags, sizeof(mi.flags));
	put(p, f->sec[f->module].sh.sh_offset + REPSTOS_MODULE_PROFILE_OFF,
	    mi.profile, sizeof(mi.profile));
	return 0;
}

static int cmp_edit(const void *a, const void *b)
{
	const struct rs_edit *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The input with the edits and the tail, in place or to -o. */
static int write_file(struct plan *p, const char *dst)
{
	struct rs_output w = {
		.f = p->f, .edit = p->edit, .nedit = p->nedit,
		.tail = p->tail, .tail_len = p->tail_len,
	};

	if (p->nedit)	/* qsort's base must not be NULL, even for 0 */
		qsort(p->edit, p->nedit, sizeof(*p->edit), cmp_edit);
	return rs_output_write(&w, dst, p->o->force);
}

/* No site table: nothing to patch, but -o still gets its copy, so that
 * a post-pass over a whole build leaves every output it names. */
static int patch_no_table(struct plan *p)
{
	const struct rs_patch_opts *o = p->o;

	if (o->require_sites || !o->output || o->dry_run)
		return rs_no_table(p->f, o->require_sites, p->out);
	if (write_file(p, o->output))
		return RS_EXIT_BAD;
	fprintf(p->out, "%s: %s, copied -> %s\n", p->f->path, RS_NO_SITES,
		o->output);
	return RS_EXIT_OK;
}

static int plan_sites(struct plan *p, const struct rs_table *t)
{
	const char *missing = NULL, *gone;
	size_t i, older = 0;

	for (i = 0; i < t->n; i++) {
		const struct rs_site *s = &t->site[i];
		struct repstos_decision d = rs_choice_site(&p->choice, s);
		bool inl = d.in_place;
		int r = rs_routine_of(s->e.op, d.form);

		if (r < 0 || r >= RS_NROUTINES || r == rs_stub_of(s->e.op)) {
			rs_err(p->f->path, "policy chose no variant for entry %zu", i);
			return -1;
		}
		if (!inl && !p->f->rel &&
		    (gone = rs_choice_older(&p->choice, p->routine, s, &r))) {
			older++;
			missing = gone;
		}
		if (patch_site(p, s, inl, r))
			return -1;
	}
	if (older)
		fprintf(p->o->dry_run ? p->out : stderr, "%s: note: %zu site%s "
			"get%s the module routine: %s is not in this file "
			"(linked with an older librepstos.a)\n", p->f->path,
			older, older == 1 ? "" : "s", older == 1 ? "s" : "",
			missing);
	return 0;
}

/* Copy sites in the table, and the --cpu name's meaning for them, said
 * once: a set routine's name gives them this CPU's copy routine. */
static void copy_notes(struct plan *p, const struct rs_table *t)
{
	const struct rs_choice *c = &p->choice;
	FILE *to = p->o->dry_run ? p->out : stderr;
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->site[i].known && repstos_op_is_copy(t->site[i].e.op);
	if (!n)
		return;
	if (c->native_other && !c->mods.fam[REPSTOS_FAMILY_COPY].forced)
		fprintf(to, "%s: note: %s is no copy routine: %zu copy site%s "
			"get%s this CPU's choice, %s\n", p->f->path, p->o->cpu,
			n, n == 1 ? "" : "s", n == 1 ? "s" : "",
			repstos_copy_variant_names[c->mods.fam[REPSTOS_FAMILY_COPY].variant]);
}

/* --profile: each site's form from the sizes it saw, by this CPU's
 * costs; a forced routine has nothing to choose. */
static int with_profile(struct plan *p, const struct rs_table *t)
{
	const struct rs_choice *c = &p->choice;

	if (rs_choice_forced(c)) {
		rs_err(p->f->path, "--profile chooses per site from a CPU's "
		       "costs; --cpu=%s gives every site one routine", p->o->cpu);
		return -1;
	}
	if (rs_choice_profile(&p->choice, p->f, t, p->o->profile))
		return -1;
	if (!rs_choice_costs(c, REPSTOS_OP_MEMSET) &&
	    !rs_choice_costs(c, REPSTOS_OP_COPY) && !c->pins)
		fprintf(stderr, "repstos: note: no cost table for --cpu=%s "
			"(repstos tune measures one): the profile changes "
			"nothing\n", p->o->cpu);
	return 0;
}

int rs_patch(struct rs_elf *f, const struct rs_patch_opts *o, FILE *out)
{
	struct plan p = { .f = f, .o = o, .out = out };
	struct rs_table t;
	unsigned problems;
	int ret = RS_EXIT_BAD, v;
	char why[4200];

	for (v = 0; v < RS_NROUTINES; v++)
		p.symidx[v] = -1;
	if (strlen(o->cpu) >= sizeof(((struct repstos_module_info *)0)->profile)) {
		rs_err(f->path, "profile name '%s' is too long", o->cpu);
		return RS_EXIT_BAD;
	}
	if (rs_choice_cpu(&p.choice, f->path, o->cpu))
		return RS_EXIT_BAD;
	if (rs_table_load(f, &t)) {
		rs_choice_free(&p.choice);
		return RS_EXIT_BAD;
	}
	if (t.absent) {
		ret = patch_no_table(&p);
		rs_choice_free(&p.choice);
		return ret;
	}
	p.routine = t.routine;
	if (o->profile && with_profile(&p, &t))
		goto out;
	/* The fuzz target mutes what would go to stderr. */
	problems = rs_check_table(f, &t, rs_err_quiet ? out : stderr);
	if (problems) {
		rs_err(f->path, "%u problem%s: not patching", problems,
		       problems == 1 ? "" : "s");
		ret = RS_EXIT_PROBLEM;
		goto out;
	}
	copy_notes(&p, &t);
	if (plan_sites(&p, &t) || add_symbols(&p) || mark_static(&p))
		goto out;
	if (p.oom) {
		rs_err(f->path, "out of memory");
		goto out;
	}
	ret = RS_EXIT_OK;
	snprintf(why, sizeof(why), "%s%s%s", o->cpu,
		 o->profile ? ", profile " : "", o->profile ? o->profile : "");
	if (o->dry_run) {
		fprintf(out, "%s: would change %zu of %zu site%s%s (%s)\n",
			f->path, p.changed, t.n, rs_plural(t.n),
			p.record ? " and the module record" : "", why);
	} else if (!p.changed && !p.record && !o->output) {
		fprintf(out, "%s: nothing to change (%s)\n", f->path, why);
	} else if (write_file(&p, o->output)) {
		ret = RS_EXIT_BAD;
	} else {
		fprintf(out, "%s: patched %zu of %zu site%s%s (%s)%s%s\n",
			f->path, p.changed, t.n, rs_plural(t.n),
			p.record ? ", marked static" : "",
			why, o->output ? " -> " : "",
			o->output ? o->output : "");
	}
out:
	free(p.edit);
	free(p.tail);
	rs_table_free(&t);
	rs_choice_free(&p.choice);
	return ret;
}
