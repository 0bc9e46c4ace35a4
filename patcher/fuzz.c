// SPDX-License-Identifier: MIT
/*
 * fuzz.c - libFuzzer target.  Each input goes, as an ELF image in
 * memory, to check, to dump twice (as text, and as --json --stats) and
 * to patch --dry-run (--cpu=erms, inline or native, by the input's
 * size); and, as text, to the size-profile parser the runtime runs at
 * start-up (repstos_profile_parse, for a module of 4 sites).  Whatever
 * the bytes, every call must return: a crash, a hang or a sanitizer
 * report is a bug.
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
