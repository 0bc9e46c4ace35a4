// SPDX-License-Identifier: MIT
/*
 * fuzz.c - libFuzzer target.  Each input goes, as an ELF image in
 * memory, to check, to dump three times (as text, as --stats and as
 * --json) and to patch --dry-run (--cpu=erms, inline or native, by the
 * input's size); and, as text, to the size-profile parser the runtime
 * runs at start-up (repstos_profile_parse, for a module of 4 sites).
 * Whatever the bytes, every call must return: a crash, a hang or a
 * sanitizer report is a bug.  Besides libFuzzer's byte mutations,
 * section headers get other types and flags (LLVMFuzzerCustomMutator).
 */
#include <stdlib.h>
#include <string.h>

#include "patcher.h"
#include "policy/profile.h"

static FILE *sink;

static void one(const uint8_t *data, size_t size, int what)
{
	static const char *const cpus[] = { "erms", "inline", "native" };
	static const struct rs_dump_opts text = { 0 };
	static const struct rs_dump_opts stats = { .stats = true };
	static const struct rs_dump_opts json = { .json = true, .stats = true };
	struct rs_patch_opts o = { .dry_run = true };
	struct rs_elf f;
	uint8_t *img;

	/* A fresh private copy each time: patch edits its image. */
	img = malloc(size ? size : 1);
	if (!img)
		return;
	memcpy(img, data, size);
	if (!rs_elf_mem(&f, "fuzz", img, size)) {
		switch (what) {
		case 0:
			rs_check(&f, sink, false, false);
			break;
		case 1:
			rs_dump(&f, sink, &text);
			rs_dump(&f, sink, &stats);
			rs_dump(&f, sink, &json);
			break;
		default:
			o.cpu = cpus[size % 3];
			rs_patch(&f, &o, sink);
		}
	}
	rs_elf_close(&f);
	free(img);
}

/* The bytes as a profile of a module of 4 sites, table hash 0. */
static void profile(const uint8_t *data, size_t size)
{
	static unsigned long long hist[4][REPSTOS_NCLASS];
	struct repstos_profile p = { .hash = 0, .nsites = 4, .hist = hist };
	char *text = malloc(size + 1);

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = 0;
	repstos_profile_parse(text, size, &p);
	free(text);
}

/*
 * The types and flags a section header may be given.  Byte mutations
 * seldom land a whole sh_type, yet a section of a type its readers did
 * not expect (a .notes of SHT_NOBITS, whose bytes are nowhere) is what
 * such readers trip on.
 */
static const uint32_t sh_types[] = {
	SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_DYNAMIC,
	SHT_NOTE, SHT_NOBITS, SHT_REL, SHT_DYNSYM, SHT_GROUP, SHT_SYMTAB_SHNDX,
};
static const uint64_t sh_flags[] = { SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR };

/* Give one section header of an ELF64 image another type, or flip one
 * of its flags; false when the image has no headers to change. */
static bool retype(uint8_t *data, size_t size, unsigned r)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	uint64_t at;

	if (size < sizeof(eh) || memcmp(data, ELFMAG, SELFMAG) ||
	    data[EI_CLASS] != ELFCLASS64)
		return false;
	memcpy(&eh, data, sizeof(eh));
	if (eh.e_shentsize != sizeof(sh) || eh.e_shnum < 2 ||
	    eh.e_shoff > size || (size - eh.e_shoff) / sizeof(sh) < eh.e_shnum)
		return false;
	at = eh.e_shoff + (1 + r % (eh.e_shnum - 1u)) * sizeof(sh);
	r /= eh.e_shnum;
	memcpy(&sh, data + at, sizeof(sh));
	if (r % 2)
		sh.sh_type = sh_types[r / 2 % (sizeof(sh_types) / sizeof(*sh_types))];
	else
		sh.sh_flags ^= sh_flags[r / 2 % 3];
	memcpy(data + at, &sh, sizeof(sh));
	return true;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

/* One mutation in four changes a section header; the rest are
 * libFuzzer's. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
			       unsigned seed)
{
	unsigned r = seed * 1103515245u + 12345u;

	if (r >> 30 == 0 && retype(data, size, r & 0x3fffffff))
		return size;
	return LLVMFuzzerMutate(data, size, max);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int what;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		rs_decode_init();
		rs_err_quiet = true;
	}
	for (what = 0; what < 3; what++)
		one(data, size, what);
	profile(data, size);
	return 0;
}
