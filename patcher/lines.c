// SPDX-License-Identifier: MIT
/*
 * lines.c - source file and line of a site, from DWARF by libdw.
 *
 * In an executable the line table holds run-time addresses.  In a .o it
 * holds zeros plus relocations, and every text section starts at 0, so
 * this file lays the allocated sections out at distinct addresses and
 * applies the debug sections' absolute relocations itself, on a private
 * copy of the image (libdw alone does not relocate, and libdwfl wants a
 * file on disk, which the fuzz target does not have).
 */
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>

#include "patcher.h"

struct rs_lines {
	const struct rs_elf *f;
	Dwarf *dw;
	Elf *elf;		/* .o: the relocated copy */
	uint8_t *copy;
	uint64_t *base;		/* .o: address given to each section */
};

static bool has_debug_info(const struct rs_elf *f)
{
	size_t i;

	for (i = 1; i < f->nsec; i++)
		if (!strcmp(f->sec[i].name, ".debug_info") &&
		    f->sec[i].sh.sh_type == SHT_PROGBITS)
			return true;
	return false;
}

static void store_le(uint8_t *p, uint64_t v, size_t width)
{
	memcpy(p, &v, width);	/* little-endian host and file */
}

/* Apply one debug section's absolute relocations in the copy. */
static void relocate_one(struct rs_lines *l, size_t rsec)
{
	const struct rs_elf *f = l->f;
	const GElf_Shdr *rsh = &f->sec[rsec].sh;
	const GElf_Shdr *tsh = &f->sec[rsh->sh_info].sh;
	size_t i, n = rsh->sh_size / sizeof(Elf64_Rela);
	uint8_t *target;

	/* A SHT_NOBITS target's offset is not bounded by the file (elf.c
	 * checks only sections with bytes): no pointer is made from it. */
	if (rsh->sh_entsize != sizeof(Elf64_Rela) || rsh->sh_link != f->symtab ||
	    tsh->sh_type == SHT_NOBITS)
		return;
	target = l->copy + tsh->sh_offset;
	for (i = 0; i < n; i++) {
		Elf64_Rela r;
		const struct rs_sym *s;
		uint64_t v;
		size_t width;

		memcpy(&r, l->copy + rsh->sh_offset + i * sizeof(r), sizeof(r));
		if (ELF64_R_SYM(r.r_info) >= f->nsym)
			continue;
		switch (ELF64_R_TYPE(r.r_info)) {
		case R_X86_64_64:
			width = 8;
			break;
		case R_X86_64_32:
		case R_X86_64_32S:
			width = 4;
			break;
		default:
			continue;
		}
		if (r.r_offset > tsh->sh_size || width > tsh->sh_size - r.r_offset)
			continue;
		s = &f->sym[ELF64_R_SYM(r.r_info)];
		v = s->value + (uint64_t)r.r_addend;
		if (s->shndx && s->shndx < f->nsec)
			v += l->base[s->shndx];
		store_le(target + r.r_offset, v, width);
	}
}

static int relocate(struct rs_lines *l)
{
	const struct rs_elf *f = l->f;
	uint64_t cursor = 0x1000;
	size_t i;

	l->copy = malloc(f->size);
	l->base = calloc(f->nsec, sizeof(*l->base));
	if (!l->copy || !l->base)
		return -1;
	memcpy(l->copy, f->img, f->size);
	for (i = 1; i < f->nsec; i++) {
		const GElf_Shdr *sh = &f->sec[i].sh;
		uint64_t align = sh->sh_addralign > 1 ? sh->sh_addralign : 1;

		if (!(sh->sh_flags & SHF_ALLOC))
			continue;
		if (align > 4096)
			align = 4096;
		cursor = (cursor + align - 1) & ~(align - 1);
		l->base[i] = cursor;
		/* Sizes are bounded by the file size, so this cannot wrap. */
		cursor += sh->sh_type == SHT_NOBITS ? 1 : sh->sh_size + 1;
	}
	for (i = 1; i < f->nsec; i++) {
		const struct rs_sec *s = &f->sec[i];

		if (s->sh.sh_type == SHT_RELA &&
		    !(f->sec[s->sh.sh_info].sh.sh_flags & SHF_ALLOC) &&
		    !strncmp(f->sec[s->sh.sh_info].name, ".debug", 6))
			relocate_one(l, i);
	}
	l->elf = elf_memory((char *)l->copy, f->size);
	return l->elf ? 0 : -1;
}

struct rs_lines *rs_lines_open(struct rs_elf *f)
{
	struct rs_lines *l;

	if (!has_debug_info(f))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->f = f;
	if (f->rel && (!f->symtab || relocate(l))) {
		rs_lines_close(l);
		return NULL;
	}
	l->dw = dwarf_begin_elf(l->elf ? l->elf : f->elf, DWARF_C_READ, NULL);
	if (!l->dw) {
		rs_lines_close(l);
		return NULL;
	}
	return l;
}

/* The CU holding addr: by .debug_aranges, else by walking the CUs. */
static bool find_cu(Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

bool rs_lines_find(struct rs_lines *l, size_t sec, uint64_t off,
		   const char **file, int *line)
{
	Dwarf_Addr addr;
	Dwarf_Line *dl;
	Dwarf_Die cu;

	if (!l)
		return false;
	addr = l->f->rel ? l->base[sec] + off : l->f->sec[sec].sh.sh_addr + off;
	if (!find_cu(l->dw, addr, &cu))
		return false;
	dl = dwarf_getsrc_die(&cu, addr);
	if (!dl || dwarf_lineno(dl, line))
		return false;
	*file = dwarf_linesrc(dl, NULL, NULL);
	return *file != NULL;
}

void rs_lines_close(struct rs_lines *l)
{
	if (!l)
		return;
	if (l->dw)
		dwarf_end(l->dw);
	if (l->elf)
		elf_end(l->elf);
	free(l->copy);
	free(l->base);
	free(l);
}
