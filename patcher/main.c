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
#include <unistd.h>

#include "patcher.h"
#include "policy/policy.h"
#include "tune.h"
#include "routines/routines.h"

#ifndef REPSTOS_VERSION
#define REPSTOS_VERSION "unknown"
#endif

/* Each command's synopsis, as usage and `repstos CMD --help` print it. */
static const char check_synopsis[] =
	"repstos check [-q] [--require-sites] FILE...";
static const char patch_synopsis[] =
	"repstos patch --cpu=PROFILE [--profile=SIZES] [--dry-run] [--require-sites]\n"
	"                     [--force] FILE [-o OUT]";
static const char dump_synopsis[] =
	"repstos dump [--json | --stats] [--require-sites] FILE...\n"
	"       repstos dump --profile=SIZES [--cpu=PROFILE] FILE...";
static const char tune_synopsis[] =
	"repstos tune [--report | TUNING-FILE]\n"
	"       repstos tune --run=COMMAND [--rounds=N] [--min-gain=PCT]\n"
	"                    [--profile=SIZES] -o OUT FILE...";

static void usage(FILE *out)
{
	unsigned i;
	int v;

	fprintf(out, "usage: %s\n       %s\n       %s\n       %s\n"
		"       repstos --version | --help | help COMMAND\n\n",
		check_synopsis, patch_synopsis, dump_synopsis, tune_synopsis);
	fprintf(out,
		"FILE: an x86-64 ELF object, executable, PIE or shared object;\n"
		"  without a site table it has \"no sites\" (exit 0), or with\n"
		"  --require-sites, is unusable input (exit 2).\n"
		"check says \"FILE: clean\" for each clean file (-q: nothing).\n"
		"dump --json of several files prints a JSON array of their objects.\n"
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
	fprintf(out, "tune --run: time COMMAND (sh -c) with each form pinned on "
		"each group of\n  FILE's sites, and write to OUT a size profile "
		"of the pins that made it\n  faster beyond the noise (N rounds, "
		"default %u; PCT, default %u).\n", RS_RUN_ROUNDS, RS_RUN_MIN_GAIN);
	fprintf(out, "Exit: 0 clean, 1 problems found, 2 unusable input or usage.\n");
}

static void version(void)
{
	printf("repstos %s\n", REPSTOS_VERSION);
}

/* A usage error: one line, and where to read more (GNU's form). */
static int bad_usage(const char *cmd, const char *msg)
{
	fprintf(stderr, "repstos%s%s: %s\nTry 'repstos%s%s --help' for more "
		"information.\n", cmd ? " " : "", cmd ? cmd : "", msg,
		cmd ? " " : "", cmd ? cmd : "");
	return RS_EXIT_BAD;
}

/*
 * What every command's options share, through getopt_long: --help and
 * --version, one line for an unknown option or a missing argument (not
 * getopt's own message and then the usage), and no option given twice,
 * which would otherwise let the last silently win.
 */
#define OPT_HELP	0x100
#define OPT_VERSION	0x101
#define COMMON_OPTS	{ "help", no_argument, NULL, OPT_HELP }, \
			{ "version", no_argument, NULL, OPT_VERSION }

struct opt_state {
	const char *cmd, *synopsis;
	char seen[0x102];
	int rc;			/* the exit status once next_opt says done */
};

static const char *opt_name(const struct option *opts, int c)
{
	for (; opts->name; opts++)
		if (opts->val == c)
			return opts->name;
	return "?";
}

/* The next option's code; -1 at the end; OPT_DONE when the command is
 * over (help or version printed, or a usage error): exit with st->rc. */
#define OPT_DONE	-2
static int next_opt(struct opt_state *st, int argc, char **argv,
		    const char *shorts, const struct option *opts)
{
	char msg[160];
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shorts, opts, NULL);
	if (c == -1)
		return -1;
	st->rc = RS_EXIT_OK;
	if (c == OPT_HELP) {
		printf("usage: %s\n(repstos --help says what each word means)\n",
		       st->synopsis);
		return OPT_DONE;
	}
	if (c == OPT_VERSION) {
		version();
		return OPT_DONE;
	}
	if (c == '?' || c == ':') {
		snprintf(msg, sizeof(msg), "%s '%s'", c == ':' ?
			 "option needs an argument:" : "unknown option",
			 argv[optind - 1]);
		st->rc = bad_usage(st->cmd, msg);
		return OPT_DONE;
	}
	if (c >= 0 && c < (int)sizeof(st->seen) && st->seen[c]++) {
		snprintf(msg, sizeof(msg), "option '--%s' given twice",
			 opt_name(opts, c));
		st->rc = bad_usage(st->cmd, msg);
		return OPT_DONE;
	}
	return c;
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

/* Whether the tuning file can be written, before a second of measuring
 * (rs_text_refused): 1, or 0 said why. */
static int tune_target_ok(const char *path)
{
	const char *why;

	make_parent(path);
	if ((why = rs_text_refused(path))) {
		fprintf(stderr, "repstos: tune: %s: %s\n", path, why);
		return 0;
	}
	return 1;
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
/* A number of --rounds or --min-gain, lo..hi: 0 and *v, or -1. */
static int count_arg(const char *s, unsigned lo, unsigned hi, unsigned *v)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || n < lo || n > hi)
		return -1;
	*v = (unsigned)n;
	return 0;
}

/* tune --run's options, checked: 0, or the exit status. */
static int run_args(struct rs_run_opts *ro, const char *rounds,
		    const char *gain, int nfiles)
{
	char msg[128];

	if (!ro->command || !*ro->command)
		return bad_usage("tune", "--run needs a COMMAND");
	if (!ro->output)
		return bad_usage("tune", "--run needs -o OUT, where the "
				 "profile goes");
	if (!nfiles)
		return bad_usage("tune", "--run needs the FILEs whose sites "
				 "are tuned");
	snprintf(msg, sizeof(msg), "--rounds: %u to %u (fewer can never show "
		 "a form faster at p < 0.05)", RS_RUN_MIN_ROUNDS,
		 RS_RUN_MAX_ROUNDS);
	if (rounds && count_arg(rounds, RS_RUN_MIN_ROUNDS, RS_RUN_MAX_ROUNDS,
				&ro->rounds))
		return bad_usage("tune", msg);
	if (gain && count_arg(gain, 0, 99, &ro->min_gain))
		return bad_usage("tune", "--min-gain: a percentage, 0 to 99");
	return 0;
}

/* One of tune's options: --report, or --run and the options of --run
 * alone. */
static void tune_opt(int o, bool *report, struct rs_run_opts *ro,
		     const char **rounds, const char **gain)
{
	if (o == 'r')
		*report = true;
	else if (o == 'R')
		ro->command = optarg;
	else if (o == 'n')
		*rounds = optarg;
	else if (o == 'g')
		*gain = optarg;
	else if (o == 'p')
		ro->profile = optarg;
	else
		ro->output = optarg;
}

static int cmd_tune_run(struct rs_run_opts *ro, const char *rounds,
			const char *gain, int argc, char **argv)
{
	int r = run_args(ro, rounds, gain, argc - optind);

	return r ? r : rs_tune_run(ro, argv + optind, argc - optind, stdout);
}

static int cmd_tune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "report", no_argument, NULL, 'r' },
		{ "run", required_argument, NULL, 'R' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "min-gain", required_argument, NULL, 'g' },
		{ "profile", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		COMMON_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct opt_state os = { .cmd = "tune", .synopsis = tune_synopsis };
	struct rs_run_opts ro = { .rounds = RS_RUN_ROUNDS,
				  .min_gain = RS_RUN_MIN_GAIN };
	const char *path, *rounds = NULL, *gain = NULL;
	char text[REPSTOS_TUNING_MAX];
	struct repstos_tuning t;
	struct repstos_cpu cpu;
	unsigned hw_features;
	bool report = false, run_opt = false;
	int o;

	while ((o = next_opt(&os, argc, argv, ":o:", opts)) != -1) {
		if (o == OPT_DONE)
			return os.rc;
		run_opt |= o != 'r' && o != 'R';
		tune_opt(o, &report, &ro, &rounds, &gain);
	}
	if (ro.command && report)
		return bad_usage("tune", "--run and --report do not go together");
	if (ro.command)
		return cmd_tune_run(&ro, rounds, gain, argc, argv);
	if (run_opt)
		return bad_usage("tune", "--rounds, --min-gain, --profile and -o "
				 "go with --run");
	if (argc - optind > 1 || (report && argc > optind))
		return bad_usage("tune", "--report, or at most one TUNING-FILE");
	path = argc > optind ? argv[optind] : repstos_tuning_path();
	if (!report && *path && !tune_target_ok(path))
		return RS_EXIT_BAD;
	repstos_cpu_detect(&cpu);
	hw_features = cpu.features;
	if (repstos_cpu_as(&cpu, getenv("REPSTOS_CPU")) < 0)
		fprintf(stderr, "repstos: unknown REPSTOS_CPU '%s', using this CPU\n",
			getenv("REPSTOS_CPU"));
	repstos_routines_enable(&cpu, hw_features, &__repstos_can_avx2,
				&__repstos_can_avx512);
	if (repstos_tune(stdout, &cpu, &t)) {
		fprintf(stderr, "repstos: tune: cannot measure (out of memory)\n");
		return RS_EXIT_BAD;
	}
	if (report) {
		if (repstos_tune_use(stdout, &cpu, &t)) {
			fprintf(stderr, "repstos: tune: cannot measure (out of memory)\n");
			return RS_EXIT_BAD;
		}
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
	/* the runtime of every user reads it */
	if (rs_text_write(path, text, strlen(text), 0644)) {
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
		{ "quiet", no_argument, NULL, 'q' },
		COMMON_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct opt_state os = { .cmd = "check", .synopsis = check_synopsis };
	bool require_sites = false, quiet = false;
	int c, i, worst = RS_EXIT_OK;

	while ((c = next_opt(&os, argc, argv, ":q", opts)) != -1) {
		if (c == OPT_DONE)
			return os.rc;
		if (c == 'r')
			require_sites = true;
		else
			quiet = true;
	}
	if (optind >= argc)
		return bad_usage("check", "no FILE");
	for (i = optind; i < argc; i++) {
		struct rs_elf f;
		int r = RS_EXIT_BAD;

		if (!rs_elf_open(&f, argv[i])) {
			r = rs_check(&f, stdout, require_sites, quiet);
			rs_elf_close(&f);
		}
		if (r > worst)
			worst = r;
	}
	return worst;
}

/* One file of a dump: its table, or (profile) its sites' sizes. */
static int dump_one(const char *path, const struct rs_dump_opts *o,
		    const char *profile, const char *cpu)
{
	struct rs_elf f;
	int r;

	if (rs_elf_open(&f, path))
		return RS_EXIT_BAD;
	if (profile)
		r = rs_dump_profile(&f, stdout, cpu ? cpu : "native", profile);
	else
		r = rs_dump(&f, stdout, o);
	rs_elf_close(&f);
	return r;
}

static int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },
		{ "require-sites", no_argument, NULL, 'r' },
		{ "profile", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'c' },
		COMMON_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct opt_state os = { .cmd = "dump", .synopsis = dump_synopsis };
	struct rs_dump_opts o = { 0 };
	const char *profile = NULL, *cpu = NULL;
	int c, i, printed = 0, worst = RS_EXIT_OK;

	while ((c = next_opt(&os, argc, argv, ":", opts)) != -1) {
		if (c == OPT_DONE)
			return os.rc;
		if (c == 'j')
			o.json = true;
		else if (c == 's')
			o.stats = true;
		else if (c == 'r')
			o.require_sites = true;
		else if (c == 'p')
			profile = optarg;
		else
			cpu = optarg;
	}
	if (optind >= argc)
		return bad_usage("dump", "no FILE");
	if (o.json && o.stats)
		return bad_usage("dump", "--json already holds the --stats counts");
	if (cpu && !profile)
		return bad_usage("dump", "--cpu goes with --profile");
	if (profile && (o.json || o.stats))
		return bad_usage("dump", "--profile shows text only");
	/* several files' JSON is one document: an array of their objects */
	o.json_array = o.json && argc - optind > 1;
	if (o.json_array)
		fputs("[", stdout);
	for (i = optind; i < argc; i++) {
		int r;

		o.json_first = !printed;
		r = dump_one(argv[i], &o, profile, cpu);
		/* a file that failed printed nothing (rs_dump says why first) */
		printed += r != RS_EXIT_BAD;
		if (r > worst)
			worst = r;
	}
	if (o.json_array)
		fputs("]\n", stdout);
	return worst;
}

/* `patch --cpu FILE`: getopt took FILE for the profile, so the command
 * has no FILE, and its profile is none. */
static int bad_cpu_word(const char *word)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "no FILE: --cpu took '%.64s' for its "
		 "PROFILE, which is none (--cpu=PROFILE FILE)", word);
	return bad_usage("patch", msg);
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
		COMMON_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct opt_state os = { .cmd = "patch", .synopsis = patch_synopsis };
	struct rs_patch_opts o = { 0 };
	struct rs_elf f;
	int c, r;

	while ((c = next_opt(&os, argc, argv, ":o:n", opts)) != -1) {
		if (c == OPT_DONE)
			return os.rc;
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
		else
			o.force = true;
	}
	if (!o.cpu)
		return bad_usage("patch", "--cpu=PROFILE is required");
	if (optind == argc && !rs_cpu_known(o.cpu))
		return bad_cpu_word(o.cpu);
	if (optind + 1 != argc)
		return bad_usage("patch", "exactly one FILE");
	if (o.dry_run && o.output)
		return bad_usage("patch", "--dry-run writes nothing: no -o");
	if (rs_elf_open(&f, argv[optind]))
		return RS_EXIT_BAD;
	r = rs_patch(&f, &o, stdout);
	rs_elf_close(&f);
	return r;
}

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "check", cmd_check },
	{ "patch", cmd_patch },
	{ "dump", cmd_dump },
	{ "tune", cmd_tune },
};

static const struct command *command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* `repstos help [COMMAND]`: the whole usage, or the command's own. */
static int help(int argc, char **argv)
{
	char *args[] = { argv[2], "--help", NULL };

	if (argc < 3) {
		usage(stdout);
		return RS_EXIT_OK;
	}
	if (argc > 3 || !command(argv[2]))
		return bad_usage(NULL, "help takes one of check, patch, dump, tune");
	optind = 1;
	return command(argv[2])->run(2, args);
}

/* The first word is no command: name it. */
static int unknown_command(const char *word)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "unknown %s '%.64s' (the commands: check, "
		 "patch, dump, tune)", *word == '-' ? "option" : "command",
		 word);
	return bad_usage(NULL, msg);
}

int main(int argc, char **argv)
{
	const struct command *c;
	int r;

	if (argc < 2)
		return bad_usage(NULL, "no command (check, patch, dump, tune)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return RS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		version();
		return RS_EXIT_OK;
	}
	c = command(argv[1]);
	if (!c && strcmp(argv[1], "help"))
		return unknown_command(argv[1]);
	if (rs_decode_init()) {
		fprintf(stderr, "repstos: cannot initialize Capstone\n");
		return RS_EXIT_BAD;
	}
	/* Subcommand options: getopt starts after the command word. */
	optind = 1;
	r = c ? c->run(argc - 1, argv + 1) : help(argc, argv);
	if (fflush(stdout) && r == RS_EXIT_OK)
		r = RS_EXIT_BAD;
	rs_decode_fini();
	return r;
}
