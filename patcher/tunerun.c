// SPDX-License-Identifier: MIT
/*
 * tunerun.c - `repstos tune --run`: the program's own wall clock as the
 * arbiter.  The sites of the given modules are put in groups; for one
 * group at a time every form this CPU runs is pinned on the group's
 * sites (a size profile of pins, given to COMMAND through
 * REPSTOS_PROFILE_USE) and COMMAND timed against the group unpinned,
 * round by round; a form is kept only when a second, separate set of
 * rounds confirms it faster beyond the noise, so that the profile
 * written never makes the program slower than it is without one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "patcher.h"
#include "policy/profile.h"

#define MAX_ROUNDS	99
#define MAX_CONFIGS	(REPSTOS_PIN_FORMS + 1)	/* the baseline, each form */
#define P_LEVEL		0.05

/* One FILE: its sites, what each gets without new pins, the pins now. */
struct run_mod {
	struct rs_elf f;
	struct rs_table t;
	struct rs_choice c;	/* this CPU's, with --profile's rows */
	uint64_t hash;
	int *base;		/* per entry: its form without new pins */
	unsigned char *pin;	/* per entry: the assignment being run */
	unsigned char *given;	/* per entry: --profile's pins (or 0) */
	bool open, loaded;
};

/* A group's class: the dominant size class of its profiled calls, or: */
#define CLS_UNKNOWN	-2	/* size unknown to the compiler */
#define CLS_KNOWN	-1	/* a constant or a proven range */

struct group {
	size_t mod;
	int family, cls;
	bool may_inline, narrow;
	size_t *site;		/* entries */
	size_t n;
	int cand[REPSTOS_PIN_FORMS];	/* the forms tried, bar the baseline */
	unsigned ncand;
	int winner;		/* -1: the baseline kept */
};

struct search {
	const struct rs_run_opts *o;
	struct run_mod *mod;
	size_t nmod;
	struct group *g;
	size_t ng;
	char dir[4096], path[4096 + 16]; /* the private folder, the profile
					  * in it */
	int devnull;
	uint64_t seed;
	FILE *out;
};

/* ---- loading ---------------------------------------------------------- */

/* Does the module's start-up read REPSTOS_PROFILE_USE?  The shared
 * runtime's does (the module needs librepstos.so.0), and of the
 * archives librepstos-full.a's, whose report names the profile sites
 * were chosen with; librepstos.a reads none, and has no such words. */
static bool needs_shared_runtime(const struct rs_elf *f)
{
	return rs_dynamic_has(f, DT_NEEDED, 0, "librepstos.so.0");
}

/* And does it read pins?  librepstos-full.a from before them reads a
 * profile of pins as of an unknown version, ignores it, and every form
 * would time the same: its start-up lacks the words it says of a
 * pinned site.  (The shared runtime is the one installed at run time.) */
static bool reads_pins(const struct rs_elf *f)
{
	static const char mark[] = "pinned by the size profile";

	return needs_shared_runtime(f) ||
	       memmem(f->img, f->size, mark, sizeof(mark) - 1);
}

static bool reads_profiles(const struct rs_elf *f)
{
	static const char mark[] = "; sites chosen with the profile ";

	return needs_shared_runtime(f) ||
	       memmem(f->img, f->size, mark, sizeof(mark) - 1);
}

/* Why pins could not take effect in the module, or NULL. */
static const char *unusable(struct run_mod *m)
{
	struct repstos_module_info mi;
	const char *why;

	if (m->f.rel)
		return "an object file: give the executable or shared object "
		       "it goes into";
	if (m->t.absent || !m->t.n)
		return RS_NO_SITES;
	if (rs_module_read(&m->f, &mi, &why))
		return why;
	if (mi.flags & REPSTOS_MOD_STATIC)
		return "patched ahead of time (repstos patch): the runtime "
		       "keeps its sites, pins cannot take effect";
	if (!reads_profiles(&m->f))
		return "linked with librepstos.a, which reads no profile: pins "
		       "cannot take effect (link librepstos-full.a or the "
		       "shared runtime)";
	if (!reads_pins(&m->f))
		return "linked with a librepstos-full.a from before pinned "
		       "forms, which would ignore them: relink it with this "
		       "release's";
	return NULL;
}

static int load_mod(struct run_mod *m, const char *path, const char *profile)
{
	const char *why;
	size_t i, n;

	if (rs_elf_open(&m->f, path))
		return -1;
	m->open = true;
	if (rs_kernel_file(&m->f)) {
		rs_err(path, "a kernel image: tune --run is for programs");
		return -1;
	}
	if (rs_table_load(&m->f, &m->t))
		return -1;
	m->loaded = true;
	if ((why = unusable(m))) {
		rs_err(path, "%s", why);
		return -1;
	}
	if (rs_choice_cpu(&m->c, path, "native") ||
	    (profile && rs_choice_profile(&m->c, &m->f, &m->t, profile)))
		return -1;
	m->hash = rs_table_hash(&m->t);
	n = m->t.n;
	m->base = calloc(n, sizeof(*m->base));
	m->pin = calloc(n, 1);
	m->given = calloc(n, 1);
	if (!m->base || !m->pin || !m->given) {
		rs_err(path, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct rs_site *s = &m->t.site[i];

		if (m->c.pin)
			m->given[s->entry] = m->pin[s->entry] = m->c.pin[s->entry];
		m->base[s->entry] = s->known ? rs_choice_site(&m->c, s).form : -1;
	}
	return 0;
}

static void free_mod(struct run_mod *m)
{
	free(m->base);
	free(m->pin);
	free(m->given);
	if (m->loaded) {
		rs_choice_free(&m->c);
		rs_table_free(&m->t);
	}
	if (m->open)
		rs_elf_close(&m->f);
}

/* ---- the groups ------------------------------------------------------- */

/* The class of the most calls of a profiled site, else by its size. */
static int site_class(const struct run_mod *m, const struct rs_site *s)
{
	const unsigned long long *h = m->c.hist ? m->c.hist[s->entry] : NULL;
	unsigned c, top = 0;

	if (h && repstos_profile_calls(h)) {
		for (c = 1; c < REPSTOS_NCLASS; c++)
			if (h[c] > h[top])
				top = c;
		return (int)top;
	}
	return repstos_site_kind(&s->e) == REPSTOS_SIZE_UNKNOWN ? CLS_UNKNOWN :
	       CLS_KNOWN;
}

static void group_key(const struct run_mod *m, size_t mod,
		      const struct rs_site *s, struct group *k)
{
	const struct repstos_family *f = repstos_family_of(s->e.op);

	memset(k, 0, sizeof(*k));
	k->mod = mod;
	k->family = f->id;
	k->cls = site_class(m, s);
	k->may_inline = repstos_family_inline_ok(f, s->e.op);
	k->narrow = repstos_version_narrow(s->e.version);
	k->winner = -1;
}

static bool same_key(const struct group *a, const struct group *b)
{
	return a->mod == b->mod && a->family == b->family &&
	       a->cls == b->cls && a->may_inline == b->may_inline &&
	       a->narrow == b->narrow;
}

/* Modules in order given; then set before copy; sites of unknown size
 * first, then those of known size, then by size class. */
static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	if (a->mod != b->mod)
		return a->mod < b->mod ? -1 : 1;
	if (a->family != b->family)
		return a->family - b->family;
	if (a->cls != b->cls)
		return a->cls - b->cls;
	if (a->may_inline != b->may_inline)
		return b->may_inline - a->may_inline;
	return a->narrow - b->narrow;
}

static struct group *group_of(struct search *se, const struct group *k)
{
	struct group *g;
	size_t i;

	for (i = 0; i < se->ng; i++)
		if (same_key(&se->g[i], k))
			return &se->g[i];
	g = realloc(se->g, (se->ng + 1) * sizeof(*g));
	if (!g)
		return NULL;
	se->g = g;
	g[se->ng] = *k;
	return &g[se->ng++];
}

static int add_site(struct group *g, size_t entry)
{
	size_t *s = realloc(g->site, (g->n + 1) * sizeof(*s));

	if (!s)
		return -1;
	g->site = s;
	g->site[g->n++] = entry;
	return 0;
}

static const struct rs_site *site_at(const struct run_mod *m, size_t entry)
{
	return &m->t.site[entry];	/* entries are the table's order */
}

/* What form v pinned gives site entry: -1 where the pin would not apply. */
static int pinned_form(const struct run_mod *m, const struct group *g,
		       size_t entry, int v)
{
	return repstos_policy_pinned(&m->c.mods, m->c.cpu,
				     &site_at(m, entry)->e,
				     REPSTOS_PIN(g->family, v));
}

/* Does pinning v do what pinning w (or, w < 0, no new pin) does? */
static bool same_effect(const struct run_mod *m, const struct group *g,
			int v, int w)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		size_t e = g->site[i];
		int a = pinned_form(m, g, e, v);
		int b = w < 0 ? m->base[e] : pinned_form(m, g, e, w);

		if (a != b)
			return false;
	}
	return true;
}

/* The forms to try: those this CPU runs that every site of the group
 * may take and that change what some site runs, each effect once. */
static void candidates(const struct run_mod *m, struct group *g)
{
	const struct repstos_family *f = &repstos_families[g->family];
	unsigned k;
	size_t i;
	int v;

	for (v = 0; v < f->nvariants; v++) {
		bool ok = true;

		for (i = 0; ok && i < g->n; i++)
			ok = pinned_form(m, g, g->site[i], v) >= 0;
		if (!ok || same_effect(m, g, v, -1))
			continue;
		for (k = 0; ok && k < g->ncand; k++)
			ok = !same_effect(m, g, v, g->cand[k]);
		if (ok)
			g->cand[g->ncand++] = v;
	}
}

static int make_groups(struct search *se)
{
	struct group k, *g;
	size_t i, j;

	for (i = 0; i < se->nmod; i++) {
		struct run_mod *m = &se->mod[i];

		for (j = 0; j < m->t.n; j++) {
			const struct rs_site *s = &m->t.site[j];

			if (!s->known)
				continue;
			group_key(m, i, s, &k);
			if (!(g = group_of(se, &k)) || add_site(g, s->entry))
				return -1;
		}
	}
	qsort(se->g, se->ng, sizeof(*se->g), cmp_group);
	for (i = 0; i < se->ng; i++)
		candidates(&se->mod[se->g[i].mod], &se->g[i]);
	return 0;
}

static void describe_group(const struct search *se, const struct group *g,
			   char *buf, size_t len)
{
	const struct repstos_family *f = &repstos_families[g->family];
	char cls[48];

	if (g->cls == CLS_UNKNOWN)
		snprintf(cls, sizeof(cls), "of unknown size");
	else if (g->cls == CLS_KNOWN)
		snprintf(cls, sizeof(cls), "of known size");
	else
		snprintf(cls, sizeof(cls), "profiled mostly at %llu..%llu bytes",
			 (unsigned long long)repstos_class_lo((unsigned)g->cls),
			 (unsigned long long)repstos_class_hi((unsigned)g->cls));
	snprintf(buf, len, "%s: %s%s sites %s%s (%zu)", se->mod[g->mod].f.path,
		 f->name, g->family == REPSTOS_FAMILY_COPY && !g->may_inline ?
		 " (move)" : "", cls, g->narrow ? ", older entries" : "", g->n);
}

/* ---- interruption -------------------------------------------------------- */

/*
 * Ctrl-C (SIGINT to the process group), SIGTERM and SIGHUP remove the
 * private folder and its profile, then end the tool by the same signal,
 * so that its parent sees how it ended.  The profiles are written with
 * the signals held (text_write), so that no temporary of a write is
 * ever left: one that comes meanwhile is taken once the file is whole.
 * A signal the tool was started with ignored (nohup) stays ignored.
 */
static const int stops[] = { SIGHUP, SIGINT, SIGTERM };
#define NSTOPS	(sizeof(stops) / sizeof(stops[0]))
static struct sigaction stops_before[NSTOPS];
static const struct search *volatile stops_for;	/* its folder to remove */
static pid_t stops_pid;		/* not a child between fork and exec */

static void stop_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NSTOPS; i++)
		sigaddset(set, stops[i]);
}

static void hold_stops(int how)
{
	sigset_t set;

	stop_set(&set);
	sigprocmask(how, &set, NULL);
}

/* Async-signal-safe calls only.  SA_RESETHAND has made the action the
 * default again: the signal raised here ends the tool once the handler
 * returns and unblocks it. */
static void on_stop(int sig)
{
	const struct search *se = stops_for;
	int e = errno;

	if (se && getpid() == stops_pid) {
		unlink(se->path);
		rmdir(se->dir);
	}
	raise(sig);
	errno = e;
}

static void catch_stops(const struct search *se)
{
	struct sigaction sa = { .sa_handler = on_stop,
				.sa_flags = SA_RESETHAND };
	size_t i;

	stop_set(&sa.sa_mask);
	stops_for = se;
	stops_pid = getpid();
	for (i = 0; i < NSTOPS; i++)
		if (!sigaction(stops[i], NULL, &stops_before[i]) &&
		    stops_before[i].sa_handler != SIG_IGN)
			sigaction(stops[i], &sa, NULL);
}

static void release_stops(void)
{
	size_t i;

	for (i = 0; i < NSTOPS; i++)
		if (stops_before[i].sa_handler != SIG_IGN)
			sigaction(stops[i], &stops_before[i], NULL);
	stops_for = NULL;
}

/* rs_text_write with the signals held: 0, or -1 with errno. */
static int text_write(const char *path, const char *text, size_t len)
{
	int r, e;

	hold_stops(SIG_BLOCK);
	r = rs_text_write(path, text, len, 0600);
	e = errno;
	hold_stops(SIG_UNBLOCK);
	errno = e;
	return r;
}

/* ---- profiles --------------------------------------------------------- */

static bool any_pin(const struct run_mod *m)
{
	size_t i;

	for (i = 0; i < m->t.n; i++)
		if (m->pin[i])
			return true;
	return false;
}

static size_t section_room(const struct run_mod *m)
{
	size_t n = REPSTOS_PROFILE_HEAD_MAX + REPSTOS_PROFILE_END_LEN, i;

	for (i = 0; i < m->t.n; i++) {
		if (m->c.hist && repstos_profile_calls(m->c.hist[i]))
			n += repstos_profile_site_len((unsigned)i, m->c.hist[i]);
		if (m->pin[i])
			n += repstos_profile_pin_len((unsigned)i, m->pin[i]);
	}
	return n;
}

/* A module's section: --profile's counts and the pins of the
 * assignment; version 3 only where it has pins. */
static int put_section(const struct run_mod *m, char *buf, unsigned len,
		       unsigned *at)
{
	int r = repstos_profile_head(buf, len, at, any_pin(m) ?
				     REPSTOS_PROFILE_VERSION :
				     REPSTOS_PROFILE_VERSION_COUNTS, m->hash,
				     (unsigned)m->t.n, m->f.path);
	size_t i;

	for (i = 0; !r && i < m->t.n; i++)
		if (m->c.hist && repstos_profile_calls(m->c.hist[i]))
			r = repstos_profile_site(buf, len, at, (unsigned)i,
						 m->c.hist[i]);
	for (i = 0; !r && i < m->t.n; i++)
		if (m->pin[i])
			r = repstos_profile_pin(buf, len, at, (unsigned)i,
						m->pin[i]);
	return r ? r : repstos_profile_end(buf, len, at, m->hash);
}

/* The whole assignment as a profile's text (malloc'd), or NULL. */
static char *profile_text(const struct search *se, size_t *len)
{
	size_t room = 1, i;
	unsigned at = 0;
	char *buf;

	for (i = 0; i < se->nmod; i++)
		room += section_room(&se->mod[i]);
	if (room >= ~0u || !(buf = malloc(room)))
		return NULL;
	for (i = 0; i < se->nmod; i++)
		if (put_section(&se->mod[i], buf, (unsigned)room, &at)) {
			free(buf);
			return NULL;
		}
	*len = at;
	return buf;
}

/* The assignment into the private folder's profile, for the next run. */
static int put_assignment(const struct search *se)
{
	size_t len;
	char *text = profile_text(se, &len);
	int r;

	if (!text)
		return -1;
	r = text_write(se->path, text, len);
	free(text);
	return r;
}

/* ---- the output -------------------------------------------------------- */

/* text at path, 0600 (rs_text_write): 0, or -1 after one line. */
static int write_output(const char *path, const char *text, size_t len)
{
	const char *why = rs_text_refused(path);

	if (why) {
		rs_err(path, "profile not written: %s", why);
		return -1;
	}
	if (text_write(path, text, len)) {
		rs_err(path, "profile not written: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- running COMMAND --------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* COMMAND once under the profile now in place: its wall time, or -1
 * after one line saying how it failed (what, the assignment's words).
 * debug >= 0: run under REPSTOS_DEBUG=2, its standard error there. */
static double run_once(const struct search *se, const char *what, int debug)
{
	double t0, t;
	int status;
	pid_t pid;

	fflush(NULL);
	t0 = now();
	pid = fork();
	if (pid == 0) {
		dup2(se->devnull, STDOUT_FILENO);
		if (debug >= 0 && (dup2(debug, STDERR_FILENO) < 0 ||
				   setenv("REPSTOS_DEBUG", "2", 1)))
			_exit(127);
		execl("/bin/sh", "sh", "-c", se->o->command, (char *)NULL);
		_exit(127);
	}
	if (pid < 0) {
		fprintf(stderr, "repstos: tune --run: cannot fork: %s\n",
			strerror(errno));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	t = now() - t0;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return t;
	fprintf(stderr, "repstos: tune --run: the command %s %d under %s: "
		"every form is correct, so that is a bug or a flaky command; "
		"no profile written\n", WIFEXITED(status) ? "exited" :
		"was killed by signal", WIFEXITED(status) ? WEXITSTATUS(status) :
		WTERMSIG(status), what);
	return -1;
}

/* The group pinned to v (or, v < 0, as it was), in place for the next
 * run. */
static int assign(struct search *se, const struct group *g, int v)
{
	struct run_mod *m = &se->mod[g->mod];
	size_t i;

	for (i = 0; i < g->n; i++)
		m->pin[g->site[i]] = v < 0 ? m->given[g->site[i]] :
				     REPSTOS_PIN(g->family, v);
	if (!put_assignment(se))
		return 0;
	fprintf(stderr, "repstos: tune --run: cannot write %s: %s\n", se->path,
		strerror(errno));
	return -1;
}

static const char *form_name(const struct group *g, int v)
{
	return v < 0 ? "baseline" :
	       repstos_family_name(&repstos_families[g->family], v);
}

/* Config c of the group (0 the baseline, k the k-th candidate) once. */
static double run_config(struct search *se, const struct group *g, unsigned c)
{
	int v = c ? g->cand[c - 1] : -1;
	char what[300];

	snprintf(what, sizeof(what), "%s pinned on %s", form_name(g, v),
		 se->mod[g->mod].f.path);
	if (assign(se, g, v))
		return -1;
	return run_once(se, c ? what : "the baseline (no new pin)", -1);
}

/* ---- do pins reach the command? ---------------------------------------- */

/*
 * A command can run none of the pins it is given: it drops
 * REPSTOS_PROFILE_USE or sets REPSTOS_PATCH=0 or REPSTOS_VARIANT, runs
 * another build, or the program does not take the module.  Then every
 * candidate times the baseline, and one may be pinned by chance.  So
 * before the search COMMAND runs once for each module with candidates,
 * every site that may take a pin pinned to its no-profile form (it runs
 * what the baseline runs), under REPSTOS_DEBUG=2: the runtime's line of
 * each of the module's first DEBUG_SHOWN sites says "pinned by the size
 * profile" of a pin it took.  Each family searched needs one such line
 * where any of its pinned sites is among those shown.
 */
#define DEBUG_SHOWN	200	/* sites a module's REPSTOS_DEBUG=2 lines
				 * show, as the runtime's debug_site */

struct probe {
	unsigned char *pin;	/* per entry: the probe's pin, or 0 */
	bool want[REPSTOS_NFAMILY];	/* a family searched, shown pinned */
	bool seen[REPSTOS_NFAMILY];	/* a line said one of it took its pin */
};

/* Site e's pin for the probe: its no-profile form if it may be pinned
 * to it, else the first form it may be; 0 where none. */
static unsigned char probe_pin(const struct run_mod *m, const struct group *g,
			       size_t e)
{
	const struct repstos_family *f = &repstos_families[g->family];
	int v, first = -1;

	for (v = 0; v < f->nvariants; v++) {
		int got = pinned_form(m, g, e, v);

		if (got >= 0 && got == m->base[e])
			return REPSTOS_PIN(g->family, v);
		if (got >= 0 && first < 0)
			first = v;
	}
	return first < 0 ? 0 : REPSTOS_PIN(g->family, first);
}

/* The probe's pins for module i; false where no group of it has a
 * candidate (it is never timed). */
static bool probe_pins(const struct search *se, size_t i, struct probe *p)
{
	const struct run_mod *m = &se->mod[i];
	bool timed = false;
	size_t k, j;

	for (k = 0; k < se->ng; k++) {
		const struct group *g = &se->g[k];

		if (g->mod != i)
			continue;
		timed |= g->ncand > 0;
		for (j = 0; j < g->n; j++) {
			size_t e = g->site[j];

			p->pin[e] = probe_pin(m, g, e);
			if (p->pin[e] && g->ncand && e < DEBUG_SHOWN)
				p->want[g->family] = true;
		}
	}
	return timed;
}

/* Module i's section alone, the probe's pins in it, at the profile's
 * path. */
static int put_probe(const struct search *se, size_t i, unsigned char *pin)
{
	struct run_mod *m = &se->mod[i];
	unsigned char *keep = m->pin;
	unsigned at = 0;
	size_t room;
	char *buf;
	int r = -1;

	m->pin = pin;
	room = section_room(m) + 1;
	if (room < ~0u && (buf = malloc(room))) {
		r = put_section(m, buf, (unsigned)room, &at) ? -1 :
		    text_write(se->path, buf, at);
		free(buf);
	}
	m->pin = keep;
	if (r)
		fprintf(stderr, "repstos: tune --run: cannot write %s: %s\n",
			se->path, strerror(errno));
	return r;
}

/* A file for the probe's standard error, in the private folder, its
 * name gone at once: nothing for an interruption to leave. */
static int debug_file(const struct search *se)
{
	char name[sizeof(se->dir) + 8];
	int fd;

	snprintf(name, sizeof(name), "%s/debug", se->dir);
	hold_stops(SIG_BLOCK);
	fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		unlink(name);
	hold_stops(SIG_UNBLOCK);
	if (fd < 0)
		fprintf(stderr, "repstos: tune --run: cannot make %s: %s\n",
			name, strerror(errno));
	return fd;
}

/* The site a runtime's REPSTOS_DEBUG=2 line says took its pin, or -1. */
static long pinned_site(const char *line)
{
	static const char mark[] = " (pinned by the size profile)\n";
	const char *at = NULL, *p = line;
	size_t len = strlen(line);

	if (strncmp(line, "repstos: ", 9) || len < sizeof(mark) ||
	    strcmp(line + len - (sizeof(mark) - 1), mark))
		return -1;
	while ((p = strstr(p, ": site ")))	/* the last: after the name */
		at = p++;
	return at ? strtol(at + 7, NULL, 10) : -1;
}

/* What the probe's lines (in fd) say: p->seen. */
static void read_probe(const struct run_mod *m, int fd, struct probe *p)
{
	FILE *f = lseek(fd, 0, SEEK_SET) ? NULL : fdopen(dup(fd), "r");
	char *line = NULL;
	size_t cap = 0;
	long e;

	while (f && getline(&line, &cap, f) > 0)
		if ((e = pinned_site(line)) >= 0 && (size_t)e < m->t.n &&
		    p->pin[e])
			p->seen[repstos_family_of(site_at(m, (size_t)e)->e.op)->id] =
				true;
	free(line);
	if (f)
		fclose(f);
}

/* The name of a family searched whose pins no line showed taken, or
 * "" where no site searched is shown and no line showed any pin; NULL
 * where the pins reach the command. */
static const char *unseen_family(const struct probe *p)
{
	bool want = false, seen = false;
	int f;

	for (f = 0; f < REPSTOS_NFAMILY; f++) {
		if (p->want[f] && !p->seen[f])
			return repstos_families[f].name;
		want |= p->want[f];
		seen |= p->seen[f];
	}
	return want || seen ? NULL : "";
}

static int probe_run(struct search *se, size_t i, struct probe *p)
{
	const char *fam;
	double t;
	int fd;

	if (put_probe(se, i, p->pin) || (fd = debug_file(se)) < 0)
		return -1;
	t = run_once(se, "the check that pins reach it (each site pinned to "
		     "its no-profile form)", fd);
	if (t >= 0)
		read_probe(&se->mod[i], fd, p);
	close(fd);
	if (t < 0)
		return -1;
	if (!(fam = unseen_family(p)))
		return 0;
	fprintf(stderr, "repstos: tune --run: %s: no %s%ssite took its pin in "
		"a run with every site pinned (under REPSTOS_DEBUG=2 none was "
		"\"pinned by the size profile\"): the command must run this "
		"file, keep REPSTOS_PROFILE_USE, REPSTOS_DEBUG and its standard "
		"error, and set no REPSTOS_PATCH or REPSTOS_VARIANT; no profile "
		"written\n", se->mod[i].f.path, fam, *fam ? " " : "");
	return -1;
}

/* Do module i's pins take effect in COMMAND?  0, or -1 said why. */
static int pins_reach(struct search *se, size_t i)
{
	struct probe p = { .pin = calloc(se->mod[i].t.n + 1, 1) };
	int r = 0;

	if (!p.pin) {
		fprintf(stderr, "repstos: tune --run: out of memory\n");
		return -1;
	}
	if (probe_pins(se, i, &p))
		r = probe_run(se, i, &p);
	free(p.pin);
	return r;
}

/* ---- the numbers ------------------------------------------------------- */

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A fresh order of n configurations for one round (Fisher-Yates, from
 * a fixed seed: the same runs give the same order). */
static void shuffle(struct search *se, unsigned *order, unsigned n)
{
	unsigned i, j, t;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		j = (unsigned)(next_rand(&se->seed) % i);
		t = order[i - 1], order[i - 1] = order[j], order[j] = t;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double least(const double *v, unsigned n)
{
	double m = v[0];
	unsigned i;

	for (i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static double most(const double *v, unsigned n)
{
	double m = v[0];
	unsigned i;

	for (i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

static double magnitude(double x)
{
	return x < 0 ? -x : x;
}

static int cmp_abs(const void *a, const void *b)
{
	double x = magnitude(*(const double *)a);
	double y = magnitude(*(const double *)b);

	return x < y ? -1 : x > y;
}

/*
 * Wilcoxon's signed-rank test, one-sided and exact: the chance, were
 * the candidate no faster, of a rank sum of the rounds it won at least
 * this large.  d: n differences, positive where the candidate won;
 * zeros dropped, ties given their mean rank (ranks doubled to stay
 * whole numbers), and the null distribution counted over all 2^m signs.
 */
static double signed_rank_p(const double *d, unsigned n)
{
	static double ways[MAX_ROUNDS * (MAX_ROUNDS + 1) + 1];
	double a[MAX_ROUNDS], total = 1, hit = 0;
	unsigned rank2[MAX_ROUNDS], m = 0, i, j, k, w = 0, top = 0, s;

	for (i = 0; i < n; i++)
		if (d[i] != 0)
			a[m++] = d[i];
	qsort(a, m, sizeof(*a), cmp_abs);
	for (i = 0; i < m; i = j) {
		for (j = i; j < m && magnitude(a[j]) == magnitude(a[i]); j++)
			;
		for (k = i; k < j; k++)
			rank2[k] = i + 1 + j;	/* 2 * the mean of i+1..j */
	}
	for (i = 0; i < m; i++)
		w += a[i] > 0 ? rank2[i] : 0;
	memset(ways, 0, sizeof(ways));
	ways[0] = 1;
	for (i = 0; i < m; i++) {
		top += rank2[i];
		for (s = top + 1; s-- > rank2[i];)
			ways[s] += ways[s - rank2[i]];
		total *= 2;
	}
	for (s = w; s <= top; s++)
		hit += ways[s];
	return hit / total;
}

/* ---- the search --------------------------------------------------------- */

struct screening {
	double t[MAX_CONFIGS][MAX_ROUNDS];	/* seconds, by config, round */
	double ratio[MAX_CONFIGS];		/* median of the rounds' ratios */
};

/* Every configuration of the group once a round, in a fresh order. */
static int screen(struct search *se, const struct group *g,
		  struct screening *sc)
{
	unsigned order[MAX_CONFIGS], n = g->ncand + 1, r, i, c;
	double ratios[MAX_ROUNDS];

	for (r = 0; r < se->o->rounds; r++) {
		shuffle(se, order, n);
		for (i = 0; i < n; i++)
			if ((sc->t[order[i]][r] = run_config(se, g, order[i])) < 0)
				return -1;
	}
	for (c = 0; c < n; c++) {
		for (r = 0; r < se->o->rounds; r++)
			ratios[r] = sc->t[c][r] / sc->t[0][r];
		sc->ratio[c] = median(ratios, se->o->rounds);
	}
	return 0;
}

static void report_screen(const struct search *se, const struct group *g,
			  const struct screening *sc)
{
	unsigned n = se->o->rounds, c;

	fprintf(se->out, "  %-16s %10s  %23s  %s\n", "form", "median s",
		"min..max s", "ratio");
	for (c = 0; c <= g->ncand; c++) {
		int v = c ? g->cand[c - 1] : -1;

		fprintf(se->out, "  %-16s %10.4f  %11.4f..%-10.4f  %.3f\n",
			form_name(g, v),
			median(sc->t[c], n), least(sc->t[c], n),
			most(sc->t[c], n), sc->ratio[c]);
	}
}

/* The candidate of the lowest median ratio (config number), or 0. */
static unsigned best_config(const struct group *g, const struct screening *sc)
{
	unsigned c, best = 0;

	for (c = 1; c <= g->ncand; c++)
		if (sc->ratio[c] < sc->ratio[best])
			best = c;
	return best;
}

/* Fresh rounds of the baseline against config c alone, each first in
 * turn: the screening chose c as the fastest of many, and a test on
 * the rounds it was chosen from would favour it.  1 accepted, 0 not,
 * -1 a failed run. */
static int confirm(struct search *se, const struct group *g, unsigned c)
{
	double d[MAX_ROUNDS], ratio[MAX_ROUNDS], tb, tc, p, med;
	unsigned n = se->o->rounds, r;
	int ok;

	for (r = 0; r < n; r++) {
		if (r % 2) {
			tc = run_config(se, g, c);
			tb = tc < 0 ? -1 : run_config(se, g, 0);
		} else {
			tb = run_config(se, g, 0);
			tc = tb < 0 ? -1 : run_config(se, g, c);
		}
		if (tb < 0 || tc < 0)
			return -1;
		d[r] = (tb - tc) / tb;	/* the share of the time saved */
		ratio[r] = tc / tb;
	}
	p = signed_rank_p(d, n);
	med = median(ratio, n);
	ok = p < P_LEVEL && med <= 1 - se->o->min_gain / 100.0;
	fprintf(se->out, "  confirm %s against the baseline, %u rounds: median "
		"ratio %.3f, p %.4f: %s\n", form_name(g, g->cand[c - 1]), n, med,
		p, ok ? "faster beyond the noise" : "not shown faster");
	return ok;
}

/* What the group's sites run unpinned: one form, or "as chosen per
 * site" where they differ. */
static const char *base_text(const struct run_mod *m, const struct group *g)
{
	int v = m->base[g->site[0]];
	size_t i;

	for (i = 1; i < g->n; i++)
		if (m->base[g->site[i]] != v)
			return "as chosen per site";
	return form_name(g, v);
}

/* One group: its winner (fixed for the groups after it), or none. */
static int tune_group(struct search *se, struct group *g, unsigned index)
{
	static struct screening sc;
	char what[4200];
	unsigned c;
	int r;

	describe_group(se, g, what, sizeof(what));
	fprintf(se->out, "group %u: %s; baseline (no new pin): %s\n",
		index + 1, what, base_text(&se->mod[g->mod], g));
	if (!g->ncand) {
		fprintf(se->out, "  no other form to try: keeps its no-profile "
			"form\n");
		return 0;
	}
	if (screen(se, g, &sc))
		return -1;
	report_screen(se, g, &sc);
	c = best_config(g, &sc);
	if (!c || sc.ratio[c] > 1 - se->o->min_gain / 100.0) {
		fprintf(se->out, "  no form %u%% faster at the median: keeps its "
			"no-profile form\n", se->o->min_gain);
		return assign(se, g, -1);
	}
	if ((r = confirm(se, g, c)) < 0)
		return -1;
	g->winner = r ? g->cand[c - 1] : -1;
	fprintf(se->out, "  decision: %s\n", r ? form_name(g, g->winner) :
		"keeps its no-profile form");
	return assign(se, g, g->winner);
}

static int search(struct search *se)
{
	size_t i;

	if (assign(se, &se->g[0], -1) ||
	    run_once(se, "the baseline (no new pin)", -1) < 0)	/* warm up */
		return -1;
	for (i = 0; i < se->nmod; i++)
		if (pins_reach(se, i))
			return -1;
	for (i = 0; i < se->ng; i++)
		if (tune_group(se, &se->g[i], (unsigned)i))
			return -1;
	return 0;
}

/* ---- the command -------------------------------------------------------- */

/* A folder of our own (0700) for the profile each run is given, by an
 * absolute path: COMMAND may change directory before the runtime reads
 * REPSTOS_PROFILE_USE. */
static int make_dir(struct search *se)
{
	const char *tmp = getenv("TMPDIR");
	char cwd[4096] = "";

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (*tmp != '/' && !getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "repstos: tune --run: TMPDIR %s is relative, "
			"and the current directory unknown: %s\n", tmp,
			strerror(errno));
		return -1;
	}
	errno = ENAMETOOLONG;
	if (snprintf(se->dir, sizeof(se->dir), "%s%s%s/repstos-run.XXXXXX",
		     cwd, *cwd ? "/" : "", tmp) >= (int)sizeof(se->dir) ||
	    !mkdtemp(se->dir)) {
		fprintf(stderr, "repstos: tune --run: cannot make a folder in "
			"%s: %s\n", tmp, strerror(errno));
		return -1;
	}
	snprintf(se->path, sizeof(se->path), "%s/profile", se->dir);
	return 0;
}

/* The folder made, and the handlers that remove it set, with the
 * signals held meanwhile: no moment has one without the other. */
static int private_dir(struct search *se)
{
	int r;

	hold_stops(SIG_BLOCK);
	r = make_dir(se);
	if (!r)
		catch_stops(se);
	hold_stops(SIG_UNBLOCK);
	return r;
}

static void remove_dir(const struct search *se)
{
	hold_stops(SIG_BLOCK);
	unlink(se->path);
	rmdir(se->dir);
	release_stops();
	hold_stops(SIG_UNBLOCK);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is module i a file given before it (by another name, too)?  Its
 * sections would be written twice and its groups searched twice. */
static bool given_twice(const struct search *se, size_t i)
{
	const struct stat *a = &se->mod[i].f.st, *b;
	size_t j;

	for (j = 0; j < i; j++) {
		b = &se->mod[j].f.st;
		if (same_file(a, b)) {
			rs_err(se->mod[i].f.path, "given twice (as %s too)",
			       se->mod[j].f.path);
			return true;
		}
	}
	return false;
}

/* Is the output a file read (a FILE, --profile), by any name or through
 * a link?  The profile would be renamed over it: said in one line. */
static bool output_read(const char *out, const char *in)
{
	struct stat o, lo, i;

	if (!in || lstat(out, &lo) || stat(in, &i))
		return false;	/* no output yet; an input load_mod reports */
	if (same_file(&lo, &i))
		rs_err(out, "profile not written: the same file as %s, which "
		       "tune --run reads", in);
	else if (!stat(out, &o) && same_file(&o, &i))
		rs_err(out, "profile not written: a symbolic link to %s, which "
		       "tune --run reads", in);
	else
		return false;
	return true;
}

static bool output_is_input(const struct rs_run_opts *o, char **files,
			    int nfiles)
{
	int i;

	for (i = 0; i < nfiles; i++)
		if (output_read(o->output, files[i]))
			return true;
	return output_read(o->output, o->profile);
}

static int load_all(struct search *se, char **files, int nfiles)
{
	int i;

	se->mod = calloc((size_t)nfiles, sizeof(*se->mod));
	if (!se->mod)
		return -1;
	se->nmod = (size_t)nfiles;
	for (i = 0; i < nfiles; i++)
		if (load_mod(&se->mod[i], files[i], se->o->profile) ||
		    given_twice(se, (size_t)i))
			return -1;
	return make_groups(se);
}

static int summary(const struct search *se)
{
	size_t i, pinned = 0, len;
	char *text;
	int r;

	for (i = 0; i < se->ng; i++)
		pinned += se->g[i].winner >= 0;
	fprintf(se->out, "%zu of %zu group%s pinned\n", pinned, se->ng,
		rs_plural(se->ng));
	if (!(text = profile_text(se, &len))) {
		fprintf(stderr, "repstos: tune --run: out of memory\n");
		return -1;
	}
	r = write_output(se->o->output, text, len);
	free(text);
	if (!r)
		fprintf(se->out, "wrote %s\n", se->o->output);
	return r;
}

int rs_tune_run(const struct rs_run_opts *o, char **files, int nfiles,
		FILE *out)
{
	struct search se = { .o = o, .out = out, .devnull = -1,
			     .seed = 0x9e3779b97f4a7c15ull };
	const char *why;
	int r = RS_EXIT_BAD;
	size_t i;

	if (output_is_input(o, files, nfiles))
		return RS_EXIT_BAD;
	if ((why = rs_text_refused(o->output))) {
		rs_err(o->output, "profile not written: %s", why);
		return RS_EXIT_BAD;
	}
	if (load_all(&se, files, nfiles))
		goto out;
	if (!se.ng) {
		fprintf(stderr, "repstos: tune --run: no site the runtime "
			"chooses a form for\n");
		goto out;
	}
	se.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (se.devnull < 0 || private_dir(&se))
		goto out;
	/* the runtime's own choice is what is tuned: nothing forced, nothing
	 * recorded (a recording site calls the profiling routine) */
	unsetenv("REPSTOS_VARIANT");
	unsetenv("REPSTOS_PROFILE");
	/* REPSTOS_PATCH=0 leaves every site calling its stub: no pin runs */
	unsetenv("REPSTOS_PATCH");
	/* the forms and the baseline are this CPU's, as --cpu=native's */
	unsetenv("REPSTOS_CPU");
	setenv("REPSTOS_PROFILE_USE", se.path, 1);
	if (!search(&se) && !summary(&se))
		r = RS_EXIT_OK;
	remove_dir(&se);
out:
	if (se.devnull >= 0)
		close(se.devnull);
	for (i = 0; i < se.ng; i++)
		free(se.g[i].site);
	free(se.g);
	for (i = 0; se.mod && i < se.nmod; i++)
		free_mod(&se.mod[i]);
	free(se.mod);
	return r;
}
