// SPDX-License-Identifier: MIT
/*
 * main.c - `repstos check|patch|dump|tune`: argument parsing and exit
 * codes.
 *
 * Exit 0: done, clean.  1: problems found (check), or patch refused
 * because check found problems.  2: unusable input or usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "patcher.h"
#include "../runtime/policy.h"
#include "../runtime/tune.h"
#include "../runtime/routines.h"

static void usage(FILE *out)
{
	unsigned i;
	int v;

	fprintf(out,
		"usage: repstos check [--require-sites] FILE...\n"
		"       repstos patch --cpu=PROFILE [--profile=SIZES] [--dry-run] [--require-sites]\n"
		"                     [--force] FILE [-o OUT]\n"
		"       repstos dump [--json] [--stats] [--require-sites] FILE\n"
		"       repstos dump --profile=SIZES [--cpu=PROFILE] FILE\n"
		"       repstos tune [--report | TUNING-FILE]\n"
		"\n"
		"FILE: an x86-64 ELF object, executable, PIE or shared object;\n"
		"  without a site table it has \"no sites\" (exit 0), or with\n"
		"  --require-sites, is unusable input (exit 2).\n"
		"patch FILE keeps its owner, group, mode and extended attributes,\n"
		"  follows a symbolic link, and needs --force for a read-only file\n"
		"  or one with other hard links (written through their inode).\n"
		"PROFILE: a variant for every site:");
	for (v = 0; v < REPSTOS_VARIANT_COUNT; v++)
		fprintf(out, " %s", rs_variant_names[v]);
	fprintf(out, ";\n  native (what the runtime would choose on this CPU); or a CPU:");
	for (i = 0; repstos_cpu_profile_name(i); i++)
		fprintf(out, " %s", repstos_cpu_profile_name(i));
	fprintf(out, "\n  Copy sites: the copy routine of that name if there is "
		"one, else the\n  CPU's (this one's for a routine); rep movsb "
		"never in a move site\n  the compiler did not prove "
		"forwards-safe.\n");
	fprintf(out, "SIZES: a size profile the runtime wrote under "
		"REPSTOS_PROFILE=SIZES.\n");
	fprintf(out, "TUNING-FILE: where the runtime and --cpu=native read this "
		"machine's\n  measurements (default $REPSTOS_TUNING, else %s).\n",
		"/etc/repstos/tuning");
	fprintf(out, "Exit: 0 clean, 1 problems found, 2 unusable input or usage.\n");
}

static int bad_usage(const char *msg)
{
	fprintf(stderr, "repstos: %s\n", msg);
	usage(stderr);
	return RS_EXIT_BAD;
}

/* The default file's directory may not exist yet. */
static void make_parent(const char *path)
{
	char dir[4096];
	char *slash;

	if (strlen(path) >= sizeof(dir))
		return;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755);
	}
}

/*
 * Time the routines here and record what the runtime should use; with
 * --report, print this CPU's cost table and write nothing.  One CPU is
 * measured, printed and written: this one as REPSTOS_CPU presents it,
 * as the runtime sees it.  The file is keyed to that CPU, so a runtime
 * that sees another (REPSTOS_CPU set otherwise, or not at all) ignores a
 * measurement that was not of what it runs; the tool's --cpu=native,
 * which ignores REPSTOS_CPU, likewise.
 */
static int cmd_tune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "report", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	char text[REPSTOS_TUNING_MAX];
	struct repstos_tuning t;
	struct repstos_cpu cpu;
	const char *path;
	int o, report = 0;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o != 'r')
			return bad_usage("tune: unknown option");
		report = 1;
	}
	if (argc - optind > 1 || (report && argc > optind))
		return bad_usage("tune takes --report, or at most one file");
	path = argc > optind ? argv[optind] : repstos_tuning_path();
	repstos_cpu_detect(&cpu);
	if (repstos_cpu_as(&cpu, getenv("REPSTOS_CPU")) < 0)
		fprintf(stderr, "repstos: unknown REPSTOS_CPU '%s', using this CPU\n",
			getenv("REPSTOS_CPU"));
	repstos_routines_enable(&cpu, &__repstos_can_avx2, &__repstos_can_avx512);
	if (repstos_tune(stdout, &cpu, &t)) {
		fprintf(stderr, "repstos: tune: cannot measure (out of memory)\n");
		return RS_EXIT_BAD;
	}
	if (report) {
		repstos_tune_print_costs(stdout, &cpu, &t);
		return RS_EXIT_OK;
	}
	if (repstos_tuning_format(text, sizeof(text), &cpu, &t) < 0) {
		fprintf(stderr, "repstos: tune: result does not fit\n");
		return RS_EXIT_BAD;
	}
	fputs(text, stdout);
	if (!*path)
		return RS_EXIT_OK;
	make_parent(path);
	if (repstos_tune_write(path, &cpu, &t)) {
		fprintf(stderr, "repstos: %s: %s\n", path, strerror(errno));
		return RS_EXIT_BAD;
	}
	printf("wrote %s\n", path);
	return RS_EXIT_OK;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "require-sites", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	bool require_sites = false;
	int c, i, worst = RS_EXIT_OK;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			require_sites = true;
		else
			return bad_usage("check: unknown option");
	}
	if (optind >= argc)
		return bad_usage("check: no FILE");
	for (i = optind; i < argc; i++) {
		struct rs_elf f;
		int r = RS_EXIT_BAD;

		if (!rs_elf_open(&f, argv[i])) {
			r = rs_check(&f, stdout, require_sites);
			rs_elf_close(&f);
		}
		if (r > worst)
			worst = r;
	}
	return worst;
}

static int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },
		{ "require-sites", no_argument, NULL, 'r' },
		{ "profile", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct rs_dump_opts o = { 0 };
	const char *profile = NULL, *cpu = NULL;
	struct rs_elf f;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			o.json = true;
		else if (c == 's')
			o.stats = true;
		else if (c == 'r')
			o.require_sites = true;
		else if (c == 'p')
			profile = optarg;
		else if (c == 'c')
			cpu = optarg;
		else
			return bad_usage("dump: unknown option");
	}
	if (optind + 1 != argc)
		return bad_usage("dump: exactly one FILE");
	if (cpu && !profile)
		return bad_usage("dump: --cpu goes with --profile");
	if (profile && (o.json || o.stats))
		return bad_usage("dump: --profile shows text only");
	if (rs_elf_open(&f, argv[optind]))
		return RS_EXIT_BAD;
	if (profile)
		r = rs_dump_profile(&f, stdout, cpu ? cpu : "native", profile);
	else
		r = rs_dump(&f, stdout, &o);
	rs_elf_close(&f);
	return r;
}

static int cmd_patch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "profile", required_argument, NULL, 'p' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "require-sites", no_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct rs_patch_opts o = { 0 };
	struct rs_elf f;
	int c, r;

	while ((c = getopt_long(argc, argv, "o:n", opts, NULL)) != -1) {
		if (c == 'c')
			o.cpu = optarg;
		else if (c == 'p')
			o.profile = optarg;
		else if (c == 'n')
			o.dry_run = true;
		else if (c == 'o')
			o.output = optarg;
		else if (c == 'r')
			o.require_sites = true;
		else if (c == 'f')
			o.force = true;
		else
			return bad_usage("patch: unknown option");
	}
	if (!o.cpu)
		return bad_usage("patch: --cpu=PROFILE is required");
	if (optind + 1 != argc)
		return bad_usage("patch: exactly one FILE");
	if (rs_elf_open(&f, argv[optind]))
		return RS_EXIT_BAD;
	r = rs_patch(&f, &o, stdout);
	rs_elf_close(&f);
	return r;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int r;

	if (argc < 2)
		return bad_usage("no command");
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return RS_EXIT_OK;
	}
	if (rs_decode_init()) {
		fprintf(stderr, "repstos: cannot initialize Capstone\n");
		return RS_EXIT_BAD;
	}
	/* Subcommand options: getopt starts after the command word. */
	argc--;
	argv++;
	optind = 1;
	if (!strcmp(cmd, "check"))
		r = cmd_check(argc, argv);
	else if (!strcmp(cmd, "dump"))
		r = cmd_dump(argc, argv);
	else if (!strcmp(cmd, "patch"))
		r = cmd_patch(argc, argv);
	else if (!strcmp(cmd, "tune"))
		r = cmd_tune(argc, argv);
	else
		r = bad_usage("unknown command (check, patch, dump, tune)");
	if (fflush(stdout) && r == RS_EXIT_OK)
		r = RS_EXIT_BAD;
	rs_decode_fini();
	return r;
}
