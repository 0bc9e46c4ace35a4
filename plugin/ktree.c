// SPDX-License-Identifier: MIT
/*
 * ktree.c - what kernel mode must know of the kernel tree a unit is built
 * in, read once from the tree's own headers: the layout of its struct
 * alt_instr and where ALT_NOT lives, the feature bits, how it declares
 * .altinstructions, and the section its objtool reads annotations from.
 *
 * The source of truth is the tree, not the unit: every kernel unit is
 * compiled with -I<tree>/arch/x86/include and -I<tree>/include, so the
 * headers the unit would get for <asm/alternative.h> and <linux/objtool.h>
 * are found the way the preprocessor finds them, by the -I directories in
 * order, whether or not the unit includes them.  A unit that never sees
 * struct alt_instr gets the same answer as one that does.  The layouts:
 *
 *	5.13 to 6.2	12 bytes: s32 instr_offset, s32 repl_offset,
 *			u16 cpuid, u8 instrlen, u8 replacementlen;
 *			ALT_NOT is bit 15 of cpuid (ALTINSTR_FLAG_INV)
 *	6.3 onwards	14 bytes: s32 instr_offset, s32 repl_offset,
 *			u32 ft_flags (cpuid:16, flags:16), u8 instrlen,
 *			u8 replacementlen; ALT_NOT is flag bit 0 (1 << 16),
 *			spelt BIT(0) in 6.3, (1 << 0) since
 *
 * The struct must read exactly as one of these (comments and spacing
 * aside); anything else is a kernel kernel mode does not know, and the
 * unit gets one error that names the range.
 *
 * Plain C, in the GCC plugin and the LLVM pass alike (kmode.h): each
 * gives the unit's -I directories as its compiler knows them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmode.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* a + b + c, malloc'd */
static char *join3(const char *a, const char *b, const char *c)
{
	char *s;

	if (asprintf(&s, "%s%s%s", a, b, c) < 0)
		abort();
	return s;
}

/* Comments, spaces and tabs out, newlines kept, a newline at each end:
 * "#define ALT_FLAGS_SHIFT\t\t16 /+ x +/" becomes the line
 * "#defineALT_FLAGS_SHIFT16", which is all a test here needs. */
static char *squeeze(const char *text)
{
	char *out = malloc(strlen(text) + 3), *o = out;

	if (!out)
		abort();

	*o++ = '\n';
	for (const char *p = text; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			if (!end)
				break;
			p = end + 1;
		} else if (p[0] == '/' && p[1] == '/') {
			while (p[1] && p[1] != '\n')
				p++;
		} else if (*p != ' ' && *p != '\t' && *p != '\r') {
			*o++ = *p;
		}
	}
	*o++ = '\n';
	*o = 0;
	return out;
}

/* The whole file, squeezed; NULL when it cannot be read. */
static char *read_squeezed(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf, *out;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	if (!(buf = malloc(n + 1)))
		abort();
	n = fread(buf, 1, n, f);
	buf[n] = 0;
	fclose(f);
	out = squeeze(buf);
	free(buf);
	return out;
}

static bool has_line(const char *text, const char *line)
{
	char *want = join3("\n", line, "\n");
	bool found = strstr(text, want) != NULL;

	free(want);
	return found;
}

/* The text with its newlines out too, for a struct spread over lines. */
static bool has_flat(const char *text, const char *what)
{
	char *flat = strdup(text), *o = flat;
	bool found;

	for (const char *p = text; *p; p++)
		if (*p != '\n' && *p != '\\')
			*o++ = *p;
	*o = 0;
	found = strstr(flat, what) != NULL;
	free(flat);
	return found;
}

/* "#define NAME (W*32+B)" of a squeezed cpufeatures.h: W * 32 + B, or
 * -1 when the tree does not define NAME. */
static int feature_bit(const char *text, const char *name)
{
	char *want = join3("\n#define", name, "(");
	const char *p = strstr(text, want);
	unsigned w, b;
	int bit = -1;

	if (p && sscanf(p + strlen(want), "%u*32+%u)", &w, &b) == 2 &&
	    w < 2048 && b < 32)
		bit = w * 32 + b;
	free(want);
	return bit;
}

/* The directories searched, and the tree being read. */
static const char *const *search;
static struct ktree kt;

/* The first -I (or -isystem) directory holding rel, joined to it. */
static char *find_on_path(const char *rel)
{
	for (const char *const *d = search; d && *d; d++) {
		char *path = join3(*d, "/", rel);

		if (access(path, R_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

static const char *const struct_12 =
	"structalt_instr{s32instr_offset;s32repl_offset;u16cpuid;"
	"u8instrlen;u8replacementlen;}__packed;";
static const char *const struct_14 =
	"structalt_instr{s32instr_offset;s32repl_offset;union{struct{"
	"u32cpuid:16;u32flags:16;};u32ft_flags;};u8instrlen;"
	"u8replacementlen;}__packed;";

/* struct alt_instr, ALT_NOT and the section's flags of alternative.h. */
static const char *read_alternative(const char *text)
{
	if (has_flat(text, struct_12) &&
	    has_line(text, "#defineALTINSTR_FLAG_INV(1<<15)")) {
		kt.alt_size = 12;
		kt.alt_not = 1u << 15;
	} else if (has_flat(text, struct_14) &&
		   has_line(text, "#defineALT_FLAGS_SHIFT16") &&
		   (has_line(text, "#defineALT_FLAG_NOT(1<<0)") ||
		    has_line(text, "#defineALT_FLAG_NOTBIT(0)"))) {	/* 6.3 */
		kt.alt_size = 14;
		kt.alt_not = 1u << 16;
	} else {
		return "its struct alt_instr or ALT_NOT is neither layout "
		       "kernel mode knows";
	}
	/* ALTINSTR_ENTRY's .pushsection, in C (quotes escaped) or asm. */
	if (strstr(text, ".altinstructions,\\\"aM\\\",@progbits,") ||
	    strstr(text, ".altinstructions,\"aM\",@progbits,"))
		kt.alt_merge = true;
	else if (!strstr(text, ".altinstructions,\\\"a\\\"") &&
		 !strstr(text, ".altinstructions,\"a\""))
		return "it declares .altinstructions with flags kernel mode "
		       "does not know";
	return NULL;
}

static const char *read_features(const char *text)
{
	int rep_good = feature_bit(text, "X86_FEATURE_REP_GOOD");
	int erms = feature_bit(text, "X86_FEATURE_ERMS");
	int fsrm = feature_bit(text, "X86_FEATURE_FSRM");
	int fsrs = feature_bit(text, "X86_FEATURE_FSRS");

	if (rep_good < 0 || erms < 0 || fsrm < 0)
		return "its cpufeatures.h lacks REP_GOOD, ERMS or FSRM";
	kt.rep_good = rep_good;
	kt.erms = erms;
	kt.fsrm = fsrm;
	kt.fsrs = fsrs > 0 ? fsrs : 0;
	return NULL;
}

/* objtool's annotation section: .discard.annotate_insn (6.14 on), with
 * the NOENDBR type of objtool_types.h, or .discard.noendbr before. */
static void read_annotations(void)
{
	static const char *const files[] = { "linux/annotate.h",
					     "linux/objtool.h" };
	char *path, *text;
	const char *p;

	for (size_t i = 0; i < ARRAY_SIZE(files) && !kt.annotate; i++) {
		if (!(path = find_on_path(files[i])))
			continue;
		text = read_squeezed(path);
		if (text && strstr(text, ".discard.annotate_insn"))
			kt.annotate = ".discard.annotate_insn";
		else if (text && strstr(text, ".discard.noendbr"))
			kt.annotate = ".discard.noendbr";
		free(text);
		free(path);
	}
	if (!kt.annotate || strcmp(kt.annotate, ".discard.annotate_insn"))
		return;
	path = find_on_path("linux/objtool_types.h");
	text = path ? read_squeezed(path) : NULL;
	p = text ? strstr(text, "\n#defineANNOTYPE_NOENDBR") : NULL;
	kt.noendbr_type = p ? atoi(p + strlen("\n#defineANNOTYPE_NOENDBR")) : 0;
	if (!kt.noendbr_type)
		kt.annotate = NULL;
	free(text);
	free(path);
}

void ktree_read(struct ktree *t, const char *const *dirs)
{
	char *alt, *feat;
	char *a, *f;

	search = dirs;
	memset(&kt, 0, sizeof(kt));
	alt = find_on_path("asm/alternative.h");
	feat = find_on_path("asm/cpufeatures.h");
	a = alt ? read_squeezed(alt) : NULL;
	f = feat ? read_squeezed(feat) : NULL;
	if (!a)
		kt.error = "no asm/alternative.h in its -I directories";
	else if (!f)
		kt.error = "no asm/cpufeatures.h in its -I directories";
	else if (!(kt.error = read_alternative(a)))
		kt.error = read_features(f);
	kt.header = alt ? alt : "asm/alternative.h";
	read_annotations();
	free(a);
	free(f);
	free(feat);
	*t = kt;
	search = NULL;
}

char *ktree_error_text(const struct ktree *t)
{
	char *s;

	if (asprintf(&s, "repstos: kernel mode cannot build for this kernel: "
		     "%s (%s): it knows Linux 5.13 to 7.x, the 12-byte 'struct "
		     "alt_instr' of 5.13 to 6.2 and the 14-byte one of 6.3 "
		     "onwards", t->error, t->header) < 0)
		abort();
	return s;
}

const char ktree_no_annotate[] =
	"repstos: kernel mode cannot tell which section the objtool of this "
	"kernel reads 'ANNOTATE_NOENDBR' from: no 'linux/objtool.h' naming "
	"'.discard.noendbr' or '.discard.annotate_insn' in the '-I' directories";
