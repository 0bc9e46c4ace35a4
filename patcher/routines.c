// SPDX-License-Identifier: MIT
/*
 * routines.c - where a file's stub and routines are, and whether the
 * bytes there really are them.
 *
 * The symbol table says where they are, but the loader never reads it:
 * with a value changed there, patch wrote calls into whatever was at the
 * new address, check agreed because it asked the same table, and the
 * program crashed.  So an address is believed only when the loader maps
 * it as code (an executable PT_LOAD segment, from the same file bytes as
 * the section) and what is there starts as this tool's own copy of the
 * same routine starts: endbr64, which every entry has, then the next
 * four instructions.  One is not enough: routines that fall back to
 * another on a CPU without their extension all start by testing a flag;
 * the branch after it tells them apart, by its distance to the routine
 * it falls back to (the routines share one section, so distances are
 * fixed when set.S is assembled).  The copy is the one librepstos.a
 * gives the tool for `repstos tune`.
 */
#include <string.h>

#include "patcher.h"
#include "repstos.h"

/* endbr64 and the instructions after it, at most this many bytes. */
#define RS_ROUTINE_INSNS	5
#define RS_ROUTINE_BYTES	(4 + 4 * 15)

#define X_SET(e, name, sym, needs)					\
	[REPSTOS_VARIANT_##e] = { #sym, (const void *)sym, false,	\
				  REPSTOS_VARIANT_##e },
#define X_COPY(e, name, sym, needs)					\
	[RS_COPY0 + REPSTOS_COPY_VARIANT_##e] = { #sym, (const void *)sym, \
		true, REPSTOS_COPY_VARIANT_##e },
const struct rs_routine_def rs_routines[RS_NROUTINES] = {
	REPSTOS_VARIANTS(X_SET)
	[RS_STUB] = { REPSTOS_STR(REPSTOS_STUB_SYMBOL),
		      (const void *)REPSTOS_STUB_SYMBOL, false, -1 },
	REPSTOS_COPY_VARIANTS(X_COPY)
	[RS_COPY_STUB] = { REPSTOS_STR(REPSTOS_COPY_STUB_SYMBOL),
			   (const void *)REPSTOS_COPY_STUB_SYMBOL, true, -1 },
};
#undef X_SET
#undef X_COPY

int rs_routine_of(unsigned op, int v)
{
	return repstos_op_is_copy(op) ? RS_COPY0 + v : v;
}

int rs_stub_of(unsigned op)
{
	return repstos_op_is_copy(op) ? RS_COPY_STUB : RS_STUB;
}

int rs_routine_by_sym(const char *name)
{
	int r;

	for (r = 0; r < RS_NROUTINES; r++)
		if (!strcmp(name, rs_routines[r].sym))
			return r;
	return -1;
}

const char *rs_variant_text(unsigned op, int v)
{
	const char *name = repstos_family_name(repstos_family_of(op), v);

	return name ? name : "routine?";
}

/*
 * Why the code at addr is not routine r as the loader would run it, or
 * NULL when it is.
 */
static const char *not_routine(const struct rs_elf *f, uint64_t addr, int r)
{
	const struct rs_sec *s;
	const uint8_t *p;
	size_t sec;
	uint64_t len;

	if (!rs_addr_sec(f, addr, 1, &sec))
		return "outside every section";
	s = &f->sec[sec];
	if (!(s->sh.sh_flags & SHF_EXECINSTR))
		return "not in code";
	if (!strncmp(s->name, ".plt", 4))
		return "a PLT entry";
	len = s->sh.sh_size - (addr - s->sh.sh_addr);
	if (len > RS_ROUTINE_BYTES)
		len = RS_ROUTINE_BYTES;
	if (!rs_addr_loaded_code(f, sec, addr, len))
		return "not where the loader maps code";
	p = rs_sec_bytes(f, sec, addr - s->sh.sh_addr, len);
	if (!rs_decode_same_start(p, len, rs_routines[r].own, RS_ROUTINE_INSNS))
		return "the code there does not start as the routine does";
	return NULL;
}

/* The stub and the routines by the symbol table, each checked. */
void rs_routines_find(const struct rs_elf *f, struct rs_routine *rt)
{
	const struct rs_sym *s;
	int r;

	for (r = 0; r < RS_NROUTINES; r++) {
		memset(&rt[r], 0, sizeof(rt[r]));
		rt[r].name = rs_routines[r].sym;
		s = rs_sym_by_name(f, rt[r].name);
		if (!s || s->shndx == SHN_UNDEF)
			continue;
		rt[r].have = true;
		rt[r].addr = s->value;
		if (s->type != STT_FUNC)
			rt[r].bad = "not a function symbol";
		else
			rt[r].bad = not_routine(f, s->value, r);
	}
}

/* A stripped file: which routine (or stub) the code at addr is, by
 * its bytes alone; -1 when none. */
int rs_routine_by_bytes(const struct rs_elf *f, uint64_t addr)
{
	int r;

	for (r = 0; r < RS_NROUTINES; r++)
		if (!not_routine(f, addr, r))
			return r;
	return -1;
}
