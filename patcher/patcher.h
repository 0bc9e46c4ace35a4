/* SPDX-License-Identifier: MIT */
/*
 * patcher.h - the `repstos` ELF tool's internal interfaces.
 *
 * Layout follows objtool: elf.c reads the file into memory and indexes
 * sections, symbols and relocations; sites.c walks the site table and
 * resolves every entry to a place in the text; decode.c classifies the
 * bytes at a site with Capstone; check.c, patch.c and dump.c are the
 * subcommands; lines.c maps sites to source lines with libdw.
 *
 * Everything works on an in-memory image of the file, so the fuzz
 * target runs the same code on a buffer, and patch only ever writes a
 * complete new file.
 */
#ifndef PATCHER_H
#define PATCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <gelf.h>

#include "repstos_site.h"
#include "policy/policy.h"
#include "policy/sitecode.h"

/* Exit codes of every subcommand. */
#define RS_EXIT_OK	0
#define RS_EXIT_PROBLEM	1
#define RS_EXIT_BAD	2

struct rs_sec {
	const char *name;
	GElf_Shdr sh;
	size_t rela;		/* index of the SHT_RELA section for it, or 0 */
};

struct rs_sym {
	const char *name;
	uint64_t value;		/* st_value */
	uint64_t size;
	size_t index;		/* index in its symbol table */
	unsigned shndx;
	unsigned char type, bind;
};

struct rs_func {
	unsigned shndx;
	uint64_t start, end;	/* offsets in section shndx */
	const struct rs_sym *sym;
};

struct rs_rela {
	uint64_t offset;
	int64_t addend;
	uint32_t type;
	uint32_t sym;
	size_t index;		/* index in its SHT_RELA section */
};

/* The relocations of one section, sorted by offset, loaded on demand. */
struct rs_relas {
	bool loaded;
	size_t n;
	struct rs_rela *r;
};

struct rs_elf {
	const char *path;
	uint8_t *img;		/* the whole file, private to us */
	size_t size;
	bool mapped;		/* img is our private mapping, to unmap */
	int fd;			/* the file read, or -1 (an image in memory) */
	struct stat st;		/* and its fstat */
	Elf *elf;
	GElf_Ehdr eh;
	bool rel;		/* ET_REL: sites are still relocations */

	size_t nsec;
	struct rs_sec *sec;
	struct rs_relas *relas;	/* per section */

	size_t symtab;		/* section of the symbol table used, or 0 */
	bool full_symtab;	/* .symtab, not only .dynsym */
	size_t nsym;
	struct rs_sym *sym;	/* index == symbol table index */
	size_t nfunc;
	struct rs_func *func;	/* functions with a size, by (shndx, start) */

	size_t module;		/* repstos_module section, or 0 */
};

extern bool rs_err_quiet;	/* the fuzz target mutes messages */
void rs_err(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* elf.c */
const char *rs_file_kind(mode_t mode);
int rs_elf_open(struct rs_elf *f, const char *path);
int rs_elf_mem(struct rs_elf *f, const char *path, uint8_t *img, size_t size);
void rs_elf_close(struct rs_elf *f);
const uint8_t *rs_sec_bytes(const struct rs_elf *f, size_t sec, uint64_t off,
			    uint64_t len);
uint64_t rs_sec_start(const struct rs_elf *f, size_t sec);
int rs_addr_sec(const struct rs_elf *f, uint64_t addr, uint64_t len, size_t *sec);
bool rs_addr_loaded_code(const struct rs_elf *f, size_t sec, uint64_t addr,
			 uint64_t len);
bool rs_dynamic_has(const struct rs_elf *f, int64_t tag, uint64_t bits,
		    const char *name);
const struct rs_sym *rs_func_at(const struct rs_elf *f, size_t sec, uint64_t off);
const struct rs_sym *rs_sym_by_name(const struct rs_elf *f, const char *name);
int rs_relas(struct rs_elf *f, size_t sec, struct rs_relas **out);
const struct rs_rela *rs_rela_at(const struct rs_relas *rs, uint64_t off);
void rs_where(const struct rs_elf *f, size_t sec, uint64_t off, char *buf,
	      size_t len);

/* decode.c */
int rs_decode_init(void);
void rs_decode_fini(void);
/* Decode len bytes at addr of a site doing op: REPSTOS_FORM_CALL and
 * *target, or REPSTOS_FORM_INLINE, or REPSTOS_FORM_BAD and a reason in
 * *why. */
enum repstos_form rs_decode_site(const uint8_t *p, size_t len, uint64_t addr,
				 unsigned op, uint64_t *target,
				 const char **why);
/* Text of the instructions in p[0..len), "; "-separated. */
void rs_disasm(const uint8_t *p, size_t len, uint64_t addr, char *buf,
	       size_t size);
bool rs_decode_same_start(const uint8_t *p, size_t len, const void *ref,
			  unsigned n);

/*
 * routines.c: the stubs and routines a file's sites may call, set and copy
 * alike, in one numbering: the set variants, their stub, the copy
 * variants, the copy stub.
 */
enum {
	RS_STUB = REPSTOS_VARIANT_COUNT,
	RS_COPY0,
	RS_COPY_STUB = RS_COPY0 + REPSTOS_COPY_VARIANT_COUNT,
	RS_NROUTINES
};

struct rs_routine_def {
	const char *sym;	/* its symbol */
	const void *own;	/* this tool's own copy (librepstos-core.a) */
	bool copy;		/* called by copy sites */
	int variant;		/* number in its family's list; -1: the stub */
};

extern const struct rs_routine_def rs_routines[RS_NROUTINES];

/* Routine number of variant v of a site doing op, and of op's stub. */
int rs_routine_of(unsigned op, int v);
int rs_stub_of(unsigned op);
/* By symbol name: a routine number, or -1. */
int rs_routine_by_sym(const char *name);
/* Variant v of op's family in words ("routine?" when v < 0). */
const char *rs_variant_text(unsigned op, int v);

struct rs_routine {
	const char *name;	/* its symbol */
	bool have;		/* defined in the symbol table */
	uint64_t addr;		/* there */
	const char *bad;	/* have, but the code there is not it: why */
	bool seen;		/* stripped file: found by its bytes ... */
	uint64_t seen_addr;	/* ... here (sites call few targets) */
};

void rs_routines_find(const struct rs_elf *f, struct rs_routine *rt);
int rs_routine_by_bytes(const struct rs_elf *f, uint64_t addr);

/* sites.c */
struct rs_site {
	size_t entry;		/* index over all table sections */
	size_t tsec;		/* table section and offset of the entry */
	uint64_t toff;
	struct repstos_site e;	/* the entry as stored */
	bool known;		/* version known and location resolved */
	const char *bad;	/* why the entry could not be resolved */
	size_t sec;		/* the site's section and offset */
	uint64_t off;
	uint64_t addr;		/* run-time address (section-relative in a .o) */
	const struct rs_sym *func;
	enum repstos_form form;
	int variant;		/* CALL/INLINE forms: the variant, in the list
				 * of the site's op (set or copy) */
	uint64_t target;	/* call forms: target address (not in a .o) */
	const char *target_name;
	const char *form_why;	/* RS_FORM_BAD: the reason */
	bool guessed;		/* stripped file: form told by the target's shape */
	const struct rs_rela *call_rel;	/* .o: relocation of the rel32 */
};

struct rs_table {
	size_t n;
	struct rs_site *site;
	bool absent;		/* the file has no site table at all */
	struct rs_routine routine[RS_NROUTINES];	/* not in a .o */
};

/* What check, dump and patch say of a file without a site table. */
#define RS_NO_SITES	"no sites (no " REPSTOS_SITES_SECTION " section)"

/* Variant names: the runtime's own table (repstos_families). */
#define rs_variant_names repstos_variant_names
/* the runtime's (sitecode.h), one table for both */
#define rs_op_names repstos_op_names
#define rs_size_names repstos_size_kind_names

int rs_table_load(struct rs_elf *f, struct rs_table *t);
void rs_table_free(struct rs_table *t);
int rs_no_table(const struct rs_elf *f, bool require, FILE *out);
/* The module record: 0 and *mi, -1 when absent, -2 when malformed
 * (*why says how). */
int rs_module_read(const struct rs_elf *f, struct repstos_module_info *mi,
		   const char **why);

/* Linux images built with -fplugin-arg-repstos-kernel: kernel.c reads
 * them (kernel.h), kdump.c and kcheck.c are the commands. */
struct rs_dump_opts;
bool rs_kernel_file(struct rs_elf *f);
int rs_kernel_dump(struct rs_elf *f, FILE *out, const struct rs_dump_opts *o);
int rs_kernel_check(struct rs_elf *f, FILE *out, bool quiet);

/* lines.c */
struct rs_lines;
struct rs_lines *rs_lines_open(struct rs_elf *f);
bool rs_lines_find(struct rs_lines *l, size_t sec, uint64_t off,
		   const char **file, int *line);
void rs_lines_close(struct rs_lines *l);

/* The subcommands, on a loaded file; they return an RS_EXIT_* code. */
/* quiet: nothing for a clean file (else "FILE: clean"), nor for one
 * with no sites */
int rs_check(struct rs_elf *f, FILE *out, bool require_sites, bool quiet);
unsigned rs_check_table(struct rs_elf *f, const struct rs_table *t, FILE *out);

/* dump --json's "schema": 2 since sizes not known are null and several
 * files make an array of objects (1 had no key, and 4294967295). */
#define RS_JSON_SCHEMA	2

struct rs_dump_opts {
	bool json, stats;
	bool require_sites;	/* no site table is unusable input */
	bool json_array;	/* one of several files' objects in an array */
	bool json_first;	/* the array's first: no comma before it */
};
int rs_dump(struct rs_elf *f, FILE *out, const struct rs_dump_opts *o);
/* What both dumps share: a JSON string, a JSON object of counts by
 * name, the file's type in words, and size classes by the largest size
 * the compiler allowed. */
void rs_json_str(FILE *out, const char *s);
void rs_json_counts(FILE *out, const char *key, const char *const *names,
		    const size_t *n, int count);
const char *rs_type_name(const struct rs_elf *f);
#define RS_SC_COUNT	6
extern const char *const rs_size_class_names[RS_SC_COUNT];
unsigned rs_size_class(unsigned kind, uint32_t size_max);

struct rs_patch_opts {
	const char *cpu;	/* profile name */
	const char *profile;	/* --profile: a size profile, or NULL */
	const char *output;	/* -o, or NULL for in place */
	bool dry_run;
	bool require_sites;
	bool force;		/* in place: read-only, or other hard links */
};
int rs_patch(struct rs_elf *f, const struct rs_patch_opts *o, FILE *out);
int rs_dump_profile(struct rs_elf *f, FILE *out, const char *cpu,
		    const char *profile);

/* tunerun.c: `repstos tune --run`, COMMAND timed with forms pinned on
 * groups of FILE's sites, the pins that won written as a profile. */
#define RS_RUN_ROUNDS		7	/* --rounds by default */
#define RS_RUN_MIN_ROUNDS	5	/* the fewest a signed-rank test at
					 * p < 0.05 can ever decide on */
#define RS_RUN_MAX_ROUNDS	99
#define RS_RUN_MIN_GAIN		1	/* --min-gain: percent, at the median */
struct rs_run_opts {
	const char *command;	/* run by sh -c */
	const char *profile;	/* --profile: counts (and pins) to start
				 * from, or NULL */
	const char *output;	/* -o: the profile written */
	unsigned rounds, min_gain;
};
int rs_tune_run(const struct rs_run_opts *o, char **files, int nfiles,
		FILE *out);

/* choice.c: the form each site gets, from a --cpu name and a profile. */
struct rs_choice {
	/* each family's routine for sites of unknown size, and whether
	 * --cpu named it (forced on every site of the family) */
	struct repstos_modules mods;
	/* --cpu named a routine of one family only: the other family's
	 * sites get this CPU's choice, which the output says */
	bool native_other;
	const struct repstos_cpu *cpu;
	struct repstos_cpu native;
	struct repstos_tuning tuning;	/* the policy's, or this machine's file */
	unsigned long long (*hist)[REPSTOS_NCLASS]; /* per entry, or NULL */
	unsigned char *pin;		/* per entry (REPSTOS_PIN), or NULL */
	unsigned sections;		/* the profile's for this file */
	unsigned pins;			/* its sites pinned */
};

/* Did --cpu name a routine (of any family)? */
static inline bool rs_choice_forced(const struct rs_choice *c)
{
	int f;

	for (f = 0; f < REPSTOS_NFAMILY; f++)
		if (c->mods.fam[f].forced)
			return true;
	return false;
}

/* c from --cpu=name (messages name file): 0, or -1 after one line. */
int rs_choice_cpu(struct rs_choice *c, const char *file, const char *name);
/* Is name a PROFILE --cpu takes: a routine, native or a CPU? */
bool rs_cpu_known(const char *name);

/* What follows a count in the tool's lines: "1 site", "2 sites". */
static inline const char *rs_plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}
/* The profile at path for f's table into c: 0, or -1 after one line
 * (unreadable, corrupt, of another build, or one the table rules out). */
int rs_choice_profile(struct rs_choice *c, const struct rs_elf *f,
		      const struct rs_table *t, const char *path);
/* The cost table, and the module routine, of op's family (set or
 * copy); does the tuning have that table (without one a profile changes
 * nothing for the family)? */
const struct repstos_costs *rs_choice_table(const struct rs_choice *c,
					    unsigned op);
int rs_choice_module(const struct rs_choice *c, unsigned op);
bool rs_choice_costs(const struct rs_choice *c, unsigned op);
/* What a site gets: the runtime's decision (repstos_policy_site),
 * profile and pin and all; its form is a variant of its family, and
 * rs_routine_of() gives the routine a call of it calls. */
struct repstos_decision rs_choice_site(const struct rs_choice *c,
				       const struct rs_site *s);
/* The module routine of s's family, as s's entry may call it (narrow
 * entries: the family's SSE-only one). */
int rs_choice_module_for(const struct rs_choice *c, const struct rs_site *s);
/*
 * A linked file from before a routine the policy now gives (a profiled
 * site over 16..63 gets avx512_plain, which an older librepstos.a has
 * not), rt its routines: the site keeps its family's module routine, as
 * the file's own start-up would give it, unless the routine was forced.
 * The symbol of routine *r when the file lacks it (and *r the module
 * routine's), else NULL.  patch and dump --profile alike.
 */
const char *rs_choice_older(const struct rs_choice *c,
			    const struct rs_routine *rt,
			    const struct rs_site *s, int *r);
void rs_choice_free(struct rs_choice *c);
/* What the runtime's repstos_table_hash gives for this table. */
uint64_t rs_table_hash(const struct rs_table *t);

/* output.c: patch's new file is the input with a few bytes changed. */
struct rs_edit {
	uint64_t off;
	uint8_t len;
	uint8_t b[23];
};

struct rs_output {
	const struct rs_elf *f;		/* the input, as read */
	const struct rs_edit *edit;	/* sorted by offset, none overlapping */
	size_t nedit;
	const uint8_t *tail;		/* appended at the input's end */
	size_t tail_len;
};

/* Write it in place (out NULL) or to out; 0, or -1 said why. */
int rs_output_write(const struct rs_output *w, const char *out, bool force);

/* The tool's text files (a tuning file, a profile): why one may not be
 * written at path (NULL: it may), and writing one whole or not at all
 * (0, or -1 with errno). */
const char *rs_text_refused(const char *path);
int rs_text_write(const char *path, const char *text, size_t len, mode_t mode);

#endif
