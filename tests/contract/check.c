// SPDX-License-Identifier: MIT
/*
 * check.c - does what a producer wrote agree with include/repstos_site.h?
 *
 *   check layout          the contract's numbers and names as C sees them
 *                         (tests/contract compares the test helpers' view)
 *   check sites FILE N    FILE, a relocatable object, has N site entries,
 *                         each laid out, relocated and encoded as the
 *                         header says
 *   check runtime FILE    FILE, the runtime's object, defines the empty
 *                         table section and the module record as the
 *                         header says
 *
 * It reads the object with libelf, not with the `repstos` tool: the tool
 * is a consumer of the contract, and this checks the producers.  The only
 * code it shares is the site decoder, runtime/policy/sitecode.c, whose bytes the
 * header defines.  Exit 0 when everything agrees, 1 with one line per
 * disagreement, 2 on a usage or I/O error.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "repstos_site.h"
#include "policy/sitecode.h"

static const char *path;
static unsigned problems;

static void problem(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s: ", path);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	problems++;
}

static void die(const char *what)
{
	fprintf(stderr, "check: %s: %s: %s\n", path, what, elf_errmsg(-1));
	exit(2);
}

/* ---- The object --------------------------------------------------------- */

struct obj {
	Elf *elf;
	size_t shstrndx;
	Elf_Scn *symtab;
};

static void obj_open(struct obj *o, const char *file)
{
	int fd;

	path = file;
	if (elf_version(EV_CURRENT) == EV_NONE)
		die("libelf");
	fd = open(file, O_RDONLY);
	if (fd < 0) {
		perror(file);
		exit(2);
	}
	o->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF)
		die("not an ELF file");
	if (elf_getshdrstrndx(o->elf, &o->shstrndx))
		die("section names");
	o->symtab = NULL;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(o->elf, s));) {
		GElf_Shdr sh;

		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB)
			o->symtab = s;
	}
	if (!o->symtab)
		die("no symbol table");
}

static const char *scn_name(const struct obj *o, Elf_Scn *s)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(s, &sh))
		die("section header");
	return elf_strptr(o->elf, o->shstrndx, sh.sh_name);
}

static const uint8_t *scn_bytes(Elf_Scn *s, size_t *size)
{
	Elf_Data *d = elf_getdata(s, NULL);

	if (!d)
		die("section data");
	*size = d->d_size;
	return d->d_buf;
}

static void sym_at(const struct obj *o, size_t i, GElf_Sym *sym,
		   const char **name)
{
	GElf_Shdr sh;

	if (!gelf_getsym(elf_getdata(o->symtab, NULL), (int)i, sym) ||
	    !gelf_getshdr(o->symtab, &sh))
		die("symbol");
	*name = elf_strptr(o->elf, sh.sh_link, sym->st_name);
}

static int sym_by_name(const struct obj *o, const char *want, GElf_Sym *sym)
{
	GElf_Shdr sh;
	const char *name;

	gelf_getshdr(o->symtab, &sh);
	for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
		sym_at(o, i, sym, &name);
		if (!strcmp(name, want))
			return 0;
	}
	return -1;
}

/* The relocations of section `target` in [off, off + len): how many, and
 * the first in *r. */
static unsigned relas_in(const struct obj *o, Elf_Scn *target, uint64_t off,
			 uint64_t len, GElf_Rela *r)
{
	size_t want = elf_ndxscn(target);
	unsigned n = 0;

	for (Elf_Scn *s = NULL; (s = elf_nextscn(o->elf, s));) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_info != want || !(d = elf_getdata(s, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela x;

			if (!gelf_getrela(d, (int)i, &x))
				die("relocation");
			if (x.r_offset < off || x.r_offset >= off + len)
				continue;
			if (!n++)
				*r = x;
		}
	}
	return n;
}

/* ---- The table section --------------------------------------------------- */

static void check_table_header(const struct obj *o, Elf_Scn *s)
{
	GElf_Shdr sh, link;

	gelf_getshdr(s, &sh);
	if (sh.sh_type != SHT_PROGBITS)
		problem("%s: type %u, not PROGBITS", REPSTOS_SITES_SECTION,
			sh.sh_type);
	if (sh.sh_flags != (SHF_ALLOC | SHF_LINK_ORDER))
		problem("%s: flags %#llx, not alloc + link-order",
			REPSTOS_SITES_SECTION, (unsigned long long)sh.sh_flags);
	if (sh.sh_addralign != REPSTOS_SITE_ALIGN)
		problem("%s: aligned to %llu, not %d", REPSTOS_SITES_SECTION,
			(unsigned long long)sh.sh_addralign, REPSTOS_SITE_ALIGN);
	if (sh.sh_size % REPSTOS_SITE_ENTRY_SIZE)
		problem("%s: size %llu is no multiple of %d",
			REPSTOS_SITES_SECTION, (unsigned long long)sh.sh_size,
			REPSTOS_SITE_ENTRY_SIZE);
	if (!gelf_getshdr(elf_getscn(o->elf, sh.sh_link), &link) ||
	    !(link.sh_flags & SHF_EXECINSTR))
		problem("%s: linked to section %u, which is not code",
			REPSTOS_SITES_SECTION, sh.sh_link);
}

/* The size fields say something possible for their kind. */
static void check_sizes(unsigned k, const struct repstos_site *e)
{
	if (!repstos_site_kind_known(e))
		problem("entry %u: kind byte 0x%02x", k, e->kind);
	else if (e->size_min > e->size_max)
		problem("entry %u: size %u..%u", k, e->size_min, e->size_max);
	else if (repstos_site_kind(e) == REPSTOS_SIZE_CONST && e->size_min != e->size_max)
		problem("entry %u: constant size %u..%u", k, e->size_min,
			e->size_max);
	else if (repstos_site_kind(e) == REPSTOS_SIZE_UNKNOWN &&
		 (e->size_min || e->size_max != REPSTOS_SIZE_SAT))
		problem("entry %u: unknown size %u..%u", k, e->size_min,
			e->size_max);
}

/* The site's bytes are the stub call in the contract's encoding, with
 * the relocation a hidden stub needs. */
static void check_site_code(const struct obj *o, unsigned k, Elf_Scn *text,
			    uint64_t off, unsigned len, unsigned op)
{
	const char *stub = repstos_op_is_copy(op) ?
		REPSTOS_STR(REPSTOS_COPY_STUB_SYMBOL) :
		REPSTOS_STR(REPSTOS_STUB_SYMBOL);
	const uint8_t *b;
	size_t size;
	uint64_t target;
	GElf_Rela r;
	GElf_Sym sym;
	const char *name;

	b = scn_bytes(text, &size);
	if (off > size || size - off < len) {
		problem("entry %u: site %#llx is outside its section", k,
			(unsigned long long)off);
		return;
	}
	if (repstos_decode(b + off, len, off, op, &target) != REPSTOS_FORM_CALL) {
		problem("entry %u: the bytes at %#llx are not the call form", k,
			(unsigned long long)off);
		return;
	}
	if (relas_in(o, text, off, len, &r) != 1 ||
	    r.r_offset != off + REPSTOS_CALL_REL32) {
		problem("entry %u: no single relocation at the call's rel32", k);
		return;
	}
	sym_at(o, GELF_R_SYM(r.r_info), &sym, &name);
	if ((GELF_R_TYPE(r.r_info) != R_X86_64_PLT32 &&
	     GELF_R_TYPE(r.r_info) != R_X86_64_PC32) ||
	    r.r_addend != -(REPSTOS_CALL_LEN - REPSTOS_CALL_REL32) ||
	    strcmp(name, stub))
		problem("entry %u: the call is not of %s", k, stub);
	else if (GELF_ST_VISIBILITY(sym.st_other) != STV_HIDDEN)
		problem("entry %u: %s is not hidden (a PLT would clobber r11)",
			k, name);
}

static void check_entry(const struct obj *o, Elf_Scn *table, unsigned k,
			uint64_t at, const struct repstos_site *e)
{
	GElf_Shdr sh;
	GElf_Rela r;
	GElf_Sym sym;
	const char *name;

	if (e->version != repstos_op_version(e->op))
		problem("entry %u: version %u for op %u", k, e->version, e->op);
	if (e->len != REPSTOS_SITE_LEN)
		problem("entry %u: length %u", k, e->len);
	if (e->op >= REPSTOS_OP_COUNT)
		problem("entry %u: op %u", k, e->op);
	check_sizes(k, e);
	/* One relocation, PC32 at the site field, into the linked code. */
	if (relas_in(o, table, at, REPSTOS_SITE_ENTRY_SIZE, &r) != 1 ||
	    r.r_offset != at + REPSTOS_ENTRY_SITE ||
	    GELF_R_TYPE(r.r_info) != R_X86_64_PC32) {
		problem("entry %u: not one PC32 relocation at the site field", k);
		return;
	}
	gelf_getshdr(table, &sh);
	sym_at(o, GELF_R_SYM(r.r_info), &sym, &name);
	if (sym.st_shndx != sh.sh_link) {
		problem("entry %u: site is not in the linked section", k);
		return;
	}
	check_site_code(o, k, elf_getscn(o->elf, sh.sh_link),
			sym.st_value + r.r_addend, e->len, e->op);
}

static int cmd_sites(const char *file, unsigned want)
{
	struct obj o;
	unsigned n = 0;

	obj_open(&o, file);
	for (Elf_Scn *s = NULL; (s = elf_nextscn(o.elf, s));) {
		const uint8_t *b;
		size_t size;

		if (strcmp(scn_name(&o, s), REPSTOS_SITES_SECTION))
			continue;
		check_table_header(&o, s);
		b = scn_bytes(s, &size);
		for (size_t at = 0; at + REPSTOS_SITE_ENTRY_SIZE <= size;
		     at += REPSTOS_SITE_ENTRY_SIZE, n++) {
			struct repstos_site e;

			memcpy(&e, b + at, sizeof(e));
			check_entry(&o, s, n, at, &e);
		}
	}
	if (n != want)
		problem("%u entries, the source has %u sites", n, want);
	printf("%s: %u entries, %u problems\n", file, n, problems);
	return problems ? 1 : 0;
}

/* ---- The runtime's own object ---------------------------------------------- */

static void check_record(const struct obj *o, Elf_Scn *s)
{
	const struct repstos_module_info zero = { .magic = REPSTOS_MODULE_MAGIC,
		.version = REPSTOS_MODULE_VERSION };
	const uint8_t *b;
	size_t size;
	GElf_Shdr sh;
	GElf_Sym sym;

	gelf_getshdr(s, &sh);
	b = scn_bytes(s, &size);
	if (sh.sh_flags != SHF_ALLOC || sh.sh_type != SHT_PROGBITS)
		problem("%s: not a read-only PROGBITS section",
			REPSTOS_MODULE_SECTION);
	if (size != REPSTOS_MODULE_SIZE || memcmp(b, &zero, sizeof(zero)))
		problem("%s: not the %d-byte record with magic and version",
			REPSTOS_MODULE_SECTION, REPSTOS_MODULE_SIZE);
	if (sym_by_name(o, REPSTOS_STR(REPSTOS_MODULE_SYMBOL), &sym) ||
	    sym.st_shndx != elf_ndxscn(s) || sym.st_value ||
	    sym.st_size != REPSTOS_MODULE_SIZE ||
	    GELF_ST_VISIBILITY(sym.st_other) != STV_HIDDEN)
		problem("%s: not a hidden %d-byte object at the record",
			REPSTOS_STR(REPSTOS_MODULE_SYMBOL), REPSTOS_MODULE_SIZE);
}

static int cmd_runtime(const char *file)
{
	struct obj o;
	unsigned tables = 0, records = 0;

	obj_open(&o, file);
	for (Elf_Scn *s = NULL; (s = elf_nextscn(o.elf, s));) {
		const char *name = scn_name(&o, s);

		if (!strcmp(name, REPSTOS_SITES_SECTION)) {
			GElf_Shdr sh;

			check_table_header(&o, s);
			gelf_getshdr(s, &sh);
			if (sh.sh_size)
				problem("%s: the runtime's table is not empty",
					REPSTOS_SITES_SECTION);
			tables++;
		} else if (!strcmp(name, REPSTOS_MODULE_SECTION)) {
			check_record(&o, s);
			records++;
		}
	}
	if (tables != 1 || records != 1)
		problem("%u table sections and %u module records, not one each",
			tables, records);
	printf("%s: runtime table and record, %u problems\n", file, problems);
	return problems ? 1 : 0;
}

/* ---- The contract as C sees it ---------------------------------------------- */

static int cmd_layout(void)
{
#define SHOW(name) printf("%s=%lld\n", #name, (long long)(name))
	printf("REPSTOS_SITES_SECTION=%s\n", REPSTOS_SITES_SECTION);
	SHOW(REPSTOS_SITE_ENTRY_SIZE);
	SHOW(REPSTOS_SITE_ALIGN);
	SHOW(REPSTOS_SITE_VERSION);
	SHOW(REPSTOS_COPY_VERSION);
	SHOW(REPSTOS_SITE_LEN);
	SHOW(REPSTOS_ENTRY_SITE);
	SHOW(REPSTOS_ENTRY_VERSION);
	SHOW(REPSTOS_ENTRY_LEN);
	SHOW(REPSTOS_ENTRY_OP);
	SHOW(REPSTOS_ENTRY_SIZE_KIND);
	SHOW(REPSTOS_ENTRY_SIZE_MIN);
	SHOW(REPSTOS_ENTRY_SIZE_MAX);
	printf("REPSTOS_MODULE_SECTION=%s\n", REPSTOS_MODULE_SECTION);
	SHOW(REPSTOS_MODULE_SIZE);
#undef SHOW
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "layout"))
		return cmd_layout();
	if (argc == 4 && !strcmp(argv[1], "sites"))
		return cmd_sites(argv[2], (unsigned)strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "runtime"))
		return cmd_runtime(argv[2]);
	fprintf(stderr, "usage: check layout | sites FILE.o N | runtime FILE.o\n");
	return 2;
}
