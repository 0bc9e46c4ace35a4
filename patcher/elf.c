// SPDX-License-Identifier: MIT
/*
 * elf.c - read an x86-64 ELF file into memory and index what the tool
 * needs: section headers, one symbol table, functions by address and,
 * in a relocatable object, relocations by offset.
 *
 * Every header field that leads to other bytes is checked against the
 * file size here, once, so the rest of the tool can index the image
 * without re-checking and a corrupt file ends in one message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "patcher.h"

bool rs_err_quiet;

/*
 * libelf's reason for its last failure, or ours when it has none: a
 * check of our own failed, or libelf found nothing wrong, and
 * elf_errmsg(-1) would say "no error".
 */
static const char *elf_why(const char *ours)
{
	int e = elf_errno();

	return e ? elf_errmsg(e) : ours;
}

void rs_err(const char *path, const char *fmt, ...)
{
	va_list ap;

	if (rs_err_quiet)
		return;
	fprintf(stderr, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* What a file that is not a regular file is, for messages. */
const char *rs_file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return S_ISREG(mode) ? "a regular file" : "not a regular file";
}

/*
 * Open a regular file, and only that.  stat first, so a device is never
 * opened at all (opening one can act: a tape rewinds, a watchdog arms);
 * O_NONBLOCK, so a FIFO swapped in meanwhile cannot block us in open();
 * fstat after, so what was checked is what was opened.
 */
static int open_regular(const char *path, struct stat *st)
{
	int fd;

	if (stat(path, st) == 0 && !S_ISREG(st->st_mode)) {
		rs_err(path, "not a regular file (%s)", rs_file_kind(st->st_mode));
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		rs_err(path, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		rs_err(path, "not a regular file (%s)", rs_file_kind(st->st_mode));
		close(fd);
		return -1;
	}
	return fd;
}

int rs_elf_open(struct rs_elf *f, const char *path)
{
	struct stat st;
	uint8_t *img;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	fd = open_regular(path, &st);
	if (fd < 0)
		return -1;
	if (st.st_size == 0) {
		rs_err(path, "empty file, not an ELF file");
		close(fd);
		return -1;
	}
	/*
	 * A private mapping, only ever read (libelf may want it writable):
	 * patch plans its changes as offsets and writes a new file, so no
	 * page is copied on write and the input is never touched.
	 */
	img = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED) {
		rs_err(path, "cannot map: %s", strerror(errno));
		close(fd);
		return -1;
	}
	ret = rs_elf_mem(f, path, img, st.st_size);
	/* patch copies the input from this descriptor: the path may name
	 * another file by then. */
	f->fd = fd;
	f->st = st;
	f->mapped = true;
	if (ret)
		rs_elf_close(f);
	return ret;
}

static int check_ident(const char *path, const uint8_t *img, size_t size)
{
	if (size < EI_NIDENT || memcmp(img, ELFMAG, SELFMAG)) {
		rs_err(path, "not an ELF file");
		return -1;
	}
	if (img[EI_CLASS] != ELFCLASS64) {
		rs_err(path, "%s ELF: only 64-bit x86-64 is supported",
		       img[EI_CLASS] == ELFCLASS32 ? "32-bit" : "unknown-class");
		return -1;
	}
	if (img[EI_DATA] != ELFDATA2LSB) {
		rs_err(path, "%s ELF: only little-endian x86-64 is supported",
		       img[EI_DATA] == ELFDATA2MSB ? "big-endian" : "unknown-endian");
		return -1;
	}
	if (size < sizeof(Elf64_Ehdr)) {
		rs_err(path, "truncated ELF header");
		return -1;
	}
	return 0;
}

static int check_ehdr(struct rs_elf *f)
{
	const GElf_Ehdr *eh = &f->eh;

	if (eh->e_machine != EM_X86_64) {
		rs_err(f->path, "not x86-64 (e_machine %u)", eh->e_machine);
		return -1;
	}
	if (eh->e_type != ET_REL && eh->e_type != ET_EXEC &&
	    eh->e_type != ET_DYN) {
		rs_err(f->path, "unsupported ELF type %u (not an object, executable or shared object)",
		       eh->e_type);
		return -1;
	}
	if (eh->e_shoff == 0) {
		rs_err(f->path, "no section headers");
		return -1;
	}
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > f->size) {
		rs_err(f->path, "corrupt section header table");
		return -1;
	}
	f->rel = eh->e_type == ET_REL;
	return 0;
}

static int read_sections(struct rs_elf *f)
{
	size_t shstrndx, i;

	if (elf_getshdrnum(f->elf, &f->nsec) || f->nsec == 0) {
		rs_err(f->path, "corrupt section header table: %s",
		       elf_why("no sections (e_shnum 0, and no count in section 0)"));
		return -1;
	}
	if (elf_getshdrstrndx(f->elf, &shstrndx)) {
		rs_err(f->path, "corrupt section header table: %s",
		       elf_why("cannot read the index of the section name table"));
		return -1;
	}
	if (f->nsec > (f->size - f->eh.e_shoff) / sizeof(Elf64_Shdr)) {
		rs_err(f->path, "section header table out of bounds (truncated file?)");
		return -1;
	}
	f->sec = calloc(f->nsec, sizeof(*f->sec));
	f->relas = calloc(f->nsec, sizeof(*f->relas));
	if (!f->sec || !f->relas) {
		rs_err(f->path, "out of memory");
		return -1;
	}
	for (i = 0; i < f->nsec; i++) {
		struct rs_sec *s = &f->sec[i];
		Elf_Scn *scn = elf_getscn(f->elf, i);

		if (!scn || !gelf_getshdr(scn, &s->sh)) {
			rs_err(f->path, "section %zu: bad header: %s", i,
			       elf_why("cannot read it"));
			return -1;
		}
		s->name = elf_strptr(f->elf, shstrndx, s->sh.sh_name);
		if (!s->name)
			s->name = "<bad name>";
		if (s->sh.sh_type != SHT_NOBITS &&
		    (s->sh.sh_offset > f->size ||
		     s->sh.sh_size > f->size - s->sh.sh_offset)) {
			rs_err(f->path, "section %zu (%s) out of bounds", i, s->name);
			return -1;
		}
	}
	for (i = 1; i < f->nsec; i++) {
		const GElf_Shdr *sh = &f->sec[i].sh;

		/* Dynamic relocations (.rela.dyn) apply to no one section. */
		if (sh->sh_type != SHT_RELA || (!f->rel && sh->sh_info == 0))
			continue;
		if (sh->sh_info == 0 || sh->sh_info >= f->nsec ||
		    sh->sh_link >= f->nsec) {
			rs_err(f->path, "section %zu (%s): bad sh_info/sh_link",
			       i, f->sec[i].name);
			return -1;
		}
		if (!(sh->sh_flags & SHF_ALLOC))
			f->sec[sh->sh_info].rela = i;
	}
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct rs_func *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Prefer the global name of aliases: it is what people grep for. */
	return (y->sym->bind == STB_GLOBAL) - (x->sym->bind == STB_GLOBAL);
}

uint64_t rs_sec_start(const struct rs_elf *f, size_t sec)
{
	return f->rel ? 0 : f->sec[sec].sh.sh_addr;
}

static void index_funcs(struct rs_elf *f)
{
	size_t i;

	for (i = 0; i < f->nsym; i++) {
		const struct rs_sym *s = &f->sym[i];
		struct rs_func *fn;

		if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) ||
		    s->size == 0 || s->shndx == SHN_UNDEF || s->shndx >= f->nsec)
			continue;
		if (s->value < rs_sec_start(f, s->shndx))
			continue;
		fn = &f->func[f->nfunc++];
		fn->shndx = s->shndx;
		fn->start = s->value - rs_sec_start(f, s->shndx);
		fn->end = fn->start + s->size;
		if (fn->end < fn->start)
			fn->end = UINT64_MAX;
		fn->sym = s;
	}
	qsort(f->func, f->nfunc, sizeof(*f->func), cmp_func);
}

static int read_symbols(struct rs_elf *f)
{
	size_t i, which = 0, n;
	Elf_Data *d;

	for (i = 1; i < f->nsec; i++) {
		if (f->sec[i].sh.sh_type == SHT_SYMTAB) {
			which = i;
			break;
		}
		if (f->sec[i].sh.sh_type == SHT_DYNSYM && !which)
			which = i;
	}
	if (!which)
		return 0;	/* stripped: checks that need symbols are skipped */
	if (f->sec[which].sh.sh_link >= f->nsec) {
		rs_err(f->path, "symbol table: bad string table link");
		return -1;
	}
	if (f->sec[which].sh.sh_entsize != sizeof(Elf64_Sym)) {
		rs_err(f->path, "corrupt symbol table %s: entry size %llu, not %zu",
		       f->sec[which].name,
		       (unsigned long long)f->sec[which].sh.sh_entsize,
		       sizeof(Elf64_Sym));
		return -1;
	}
	d = elf_getdata(elf_getscn(f->elf, which), NULL);
	if (!d) {
		rs_err(f->path, "corrupt symbol table %s: %s", f->sec[which].name,
		       elf_why("cannot read its contents"));
		return -1;
	}
	n = d->d_size / sizeof(Elf64_Sym);
	f->symtab = which;
	f->full_symtab = f->sec[which].sh.sh_type == SHT_SYMTAB;
	f->sym = calloc(n ? n : 1, sizeof(*f->sym));
	f->func = calloc(n ? n : 1, sizeof(*f->func));
	if (!f->sym || !f->func) {
		rs_err(f->path, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct rs_sym *s = &f->sym[i];
		GElf_Sym gs;

		if (!gelf_getsym(d, i, &gs)) {
			rs_err(f->path, "corrupt symbol %zu", i);
			return -1;
		}
		s->name = elf_strptr(f->elf, f->sec[which].sh.sh_link, gs.st_name);
		if (!s->name)
			s->name = "";
		s->value = gs.st_value;
		s->size = gs.st_size;
		s->index = i;
		s->shndx = gs.st_shndx;
		s->type = GELF_ST_TYPE(gs.st_info);
		s->bind = GELF_ST_BIND(gs.st_info);
	}
	f->nsym = n;
	index_funcs(f);
	return 0;
}

int rs_elf_mem(struct rs_elf *f, const char *path, uint8_t *img, size_t size)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = path;
	f->img = img;
	f->size = size;
	if (check_ident(path, img, size))
		return -1;
	elf_version(EV_CURRENT);
	elf_errno();	/* forget an earlier file's error: elf_why() reports */
	f->elf = elf_memory((char *)img, size);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF ||
	    !gelf_getehdr(f->elf, &f->eh)) {
		rs_err(path, "corrupt ELF header: %s",
		       elf_why("libelf does not read it as an ELF file"));
		return -1;
	}
	if (check_ehdr(f) || read_sections(f) || read_symbols(f))
		return -1;
	for (i = 1; i < f->nsec; i++)
		if (!strcmp(f->sec[i].name, REPSTOS_MODULE_SECTION))
			f->module = i;
	return 0;
}

void rs_elf_close(struct rs_elf *f)
{
	size_t i;

	if (f->relas)
		for (i = 0; i < f->nsec; i++)
			free(f->relas[i].r);
	free(f->relas);
	free(f->sec);
	free(f->sym);
	free(f->func);
	if (f->elf)
		elf_end(f->elf);
	if (f->mapped)
		munmap(f->img, f->size);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->elf = NULL;
	f->relas = NULL;
	f->sec = NULL;
	f->sym = NULL;
	f->func = NULL;
	f->mapped = false;
}

/* Bytes [off, off+len) of a section with contents, or NULL. */
const uint8_t *rs_sec_bytes(const struct rs_elf *f, size_t sec, uint64_t off,
			    uint64_t len)
{
	const GElf_Shdr *sh;

	if (sec == 0 || sec >= f->nsec)
		return NULL;
	sh = &f->sec[sec].sh;
	if (sh->sh_type == SHT_NOBITS || off > sh->sh_size ||
	    len > sh->sh_size - off)
		return NULL;
	return f->img + sh->sh_offset + off;
}

/*
 * The allocated section holding [addr, addr+len) at run time.  1 and
 * *sec when found; 0 when none.  Linear: executables have a few dozen
 * sections and objects never get here.
 */
int rs_addr_sec(const struct rs_elf *f, uint64_t addr, uint64_t len, size_t *sec)
{
	size_t i;

	for (i = 1; i < f->nsec; i++) {
		const GElf_Shdr *sh = &f->sec[i].sh;

		if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_type == SHT_NOBITS)
			continue;
		if (addr >= sh->sh_addr && addr - sh->sh_addr <= sh->sh_size &&
		    len <= sh->sh_size - (addr - sh->sh_addr)) {
			*sec = i;
			return 1;
		}
	}
	return 0;
}

/*
 * Has the dynamic section an entry of tag `tag` whose value has every bit
 * of `bits` (bits 0: any value), or, with `name`, one naming that string?
 * DT_FLAGS_1 and DF_1_PIE; DT_NEEDED and a library's name.
 */
bool rs_dynamic_has(const struct rs_elf *f, int64_t tag, uint64_t bits,
		    const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn d;
	Elf_Data *data;
	const char *s;
	size_t i;

	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getdyn(data, (int)i, &d) || d.d_tag != tag ||
			    (d.d_un.d_val & bits) != bits)
				continue;
			if (!name || ((s = elf_strptr(f->elf, sh.sh_link,
						      d.d_un.d_val)) &&
				      !strcmp(s, name)))
				return true;
		}
	}
	return false;
}

/*
 * Does the loader map [addr, addr+len) of section sec as code, from the
 * same file bytes the section holds?  Then what the tool reads there is
 * what would run.
 */
bool rs_addr_loaded_code(const struct rs_elf *f, size_t sec, uint64_t addr,
			 uint64_t len)
{
	const GElf_Shdr *sh = &f->sec[sec].sh;
	uint64_t off = sh->sh_offset + (addr - sh->sh_addr);
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || addr < ph.p_vaddr ||
		    addr - ph.p_vaddr > ph.p_filesz ||
		    len > ph.p_filesz - (addr - ph.p_vaddr))
			continue;
		if (ph.p_offset + (addr - ph.p_vaddr) == off)
			return true;
	}
	return false;
}

/* The function symbol containing offset off of section sec, or NULL. */
const struct rs_sym *rs_func_at(const struct rs_elf *f, size_t sec, uint64_t off)
{
	size_t lo = 0, hi = f->nfunc, k, back;

	/* First entry past (sec, off). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rs_func *m = &f->func[mid];

		if (m->shndx < sec || (m->shndx == sec && m->start <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Walk back over a few: nested or overlapping symbols are rare. */
	for (k = lo, back = 0; k > 0 && back < 16; k--, back++) {
		const struct rs_func *m = &f->func[k - 1];

		if (m->shndx != sec)
			break;
		if (off < m->end) {
			/* Aliases sort global first; take the first of equals. */
			while (k > 1 && f->func[k - 2].shndx == sec &&
			       f->func[k - 2].start == m->start &&
			       f->func[k - 2].end == m->end)
				m = &f->func[--k - 1];
			return m->sym;
		}
	}
	return NULL;
}

const struct rs_sym *rs_sym_by_name(const struct rs_elf *f, const char *name)
{
	const struct rs_sym *undef = NULL;
	size_t i;

	for (i = 1; i < f->nsym; i++) {
		if (strcmp(f->sym[i].name, name))
			continue;
		if (f->sym[i].shndx != SHN_UNDEF)
			return &f->sym[i];
		undef = &f->sym[i];
	}
	return undef;
}

static int cmp_rela(const void *a, const void *b)
{
	const struct rs_rela *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The relocations against section sec, sorted by offset. */
int rs_relas(struct rs_elf *f, size_t sec, struct rs_relas **out)
{
	struct rs_relas *rs = &f->relas[sec];
	size_t rsec = f->sec[sec].rela, i, n;
	Elf_Data *d;

	*out = rs;
	if (rs->loaded)
		return 0;
	rs->loaded = true;
	if (!rsec)
		return 0;
	if (f->sec[rsec].sh.sh_link != f->symtab || !f->symtab ||
	    f->sec[rsec].sh.sh_entsize != sizeof(Elf64_Rela)) {
		rs_err(f->path, "%s: relocations not against the symbol table",
		       f->sec[rsec].name);
		return -1;
	}
	d = elf_getdata(elf_getscn(f->elf, rsec), NULL);
	if (!d) {
		rs_err(f->path, "%s: %s", f->sec[rsec].name,
		       elf_why("cannot read the relocations"));
		return -1;
	}
	n = d->d_size / sizeof(Elf64_Rela);
	rs->r = calloc(n ? n : 1, sizeof(*rs->r));
	if (!rs->r) {
		rs_err(f->path, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		GElf_Rela gr;

		if (!gelf_getrela(d, i, &gr)) {
			rs_err(f->path, "%s: corrupt relocation %zu",
			       f->sec[rsec].name, i);
			return -1;
		}
		if (GELF_R_SYM(gr.r_info) >= f->nsym) {
			rs_err(f->path, "%s: relocation %zu: symbol %lu out of range",
			       f->sec[rsec].name, i,
			       (unsigned long)GELF_R_SYM(gr.r_info));
			return -1;
		}
		rs->r[i].offset = gr.r_offset;
		rs->r[i].addend = gr.r_addend;
		rs->r[i].type = GELF_R_TYPE(gr.r_info);
		rs->r[i].sym = GELF_R_SYM(gr.r_info);
		rs->r[i].index = i;
	}
	rs->n = n;
	qsort(rs->r, n, sizeof(*rs->r), cmp_rela);
	return 0;
}

/* The relocation at exactly offset off, or NULL. */
const struct rs_rela *rs_rela_at(const struct rs_relas *rs, uint64_t off)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->r[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < rs->n && rs->r[lo].offset == off)
		return &rs->r[lo];
	return NULL;
}

/* "function+0xoff", or "section+0xoff" outside every function. */
void rs_where(const struct rs_elf *f, size_t sec, uint64_t off, char *buf,
	      size_t len)
{
	const struct rs_sym *fn = rs_func_at(f, sec, off);

	if (fn)
		snprintf(buf, len, "%s+0x%llx", fn->name,
			 (unsigned long long)(off - (fn->value - rs_sec_start(f, sec))));
	else if (sec && sec < f->nsec)
		snprintf(buf, len, "%s+0x%llx", f->sec[sec].name,
			 (unsigned long long)off);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)off);
}
