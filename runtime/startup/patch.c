// SPDX-License-Identifier: MIT
/*
 * patch.c - the start-up patcher: before main (or before a dlopen()ed
 * module's own code runs), pick a routine per site and rewrite the site.
 *
 * One module at a time, as its constructor (module.c) hands it over
 * (__repstos_attach); what the process chose (the CPU, the environment,
 * the tuning file) is read once, by the first.  Linked into each module
 * from librepstos.a, or once a process in librepstos.so.0 (module.h).
 *
 * Writing code keeps W^X at every moment.  Two routes, tried in order:
 *
 *  1. pwrite() to /proc/self/mem.  The kernel writes through to the
 *     private copy of the page as a debugger would; the page is never
 *     writable in this process's page tables and never stops being
 *     executable, so code sharing a page with a site (this file's own,
 *     libc's in a static binary, the PLT) runs on undisturbed.  Unlike
 *     route 2 it does not ask whether other threads run, and need not:
 *     the copy is done within the one system call (no signal handler of
 *     this thread sees half of it), and what it copies are the sites of
 *     the module being started, from the module's first constructor,
 *     before any code of the module has run or could have been handed
 *     to anyone (the loader initialises a library's dependencies before
 *     it, and dlopen() returns it only after its constructors).  Only a
 *     thread that calls into a module the loader has not initialised
 *     yet - started by an earlier library's constructor, calling the
 *     executable - could meet a site half written; that breaks what the
 *     loader promises any module, whose data would not be set up either.
 *  2. mprotect(): the page goes read-write (not executable), the bytes
 *     are copied, the page goes read-execute.  Nothing on the page may
 *     run meanwhile, so that window is one assembly routine on pages of
 *     its own (__repstos_poke), which blocks every signal
 *     and opens only if no other task shares the address space; and a
 *     probe on a page of its own first checks that a written page may
 *     become executable again (SELinux execmod says no): only then is
 *     real code touched.  A process with threads, or one that cannot
 *     tell, never takes this route, nor one under READ_IMPLIES_EXEC,
 *     where the read-write window would come back executable too.
 *
 * If both are refused, sites stay calls to the stub, which jumps to the
 * chosen routine: correct, per CPU, one indirect jump slower.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>
#include "policy/policy.h"
#include "profrun.h"
#include "routines/routines.h"
#include "policy/sitecode.h"
#include "module/module.h"

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * The text writer's isolated pages (__repstos_poke, __repstos_probe_page): the mprotect route's
 * window, and the page it probes first.  The start-up's own, whichever
 * module's sites it writes.
 */
extern char __repstos_probe_page[] HIDDEN;
long __repstos_poke(void *page, size_t plen, void *dst, const void *src,
		    size_t n) HIDDEN;

enum route { ROUTE_AUTO, ROUTE_MEM, ROUTE_MPROTECT, ROUTE_OFF };

/* What the process chose, once, at the first module's start-up. */
struct config {
	struct repstos_tuning tuning;	/* policy, or the tuning file */
	/* each family's module-wide choice, and whether REPSTOS_VARIANT
	 * forced it */
	struct repstos_modules mods;
	int debug;			/* REPSTOS_DEBUG: 1, or 2 (each site) */
	enum route route;		/* REPSTOS_PATCH */
	const char *why;
	const char *record;		/* REPSTOS_PROFILE: recording to it */
	unsigned cost_forms[REPSTOS_NFAMILY]; /* repstos_cost_forms() of
					 * each family's table */
};

/* Where the sites of one run go: the mem file, or the mprotect route. */
struct writer {
	int fd;			/* /proc/self/mem, or -1 */
	int mem_errno;		/* why the mem route failed, or 0 */
	int mprotect_ok;	/* probe passed */
	int mprotect_errno;	/* why the mprotect route failed, or 0 */
	int crowded;		/* ... because it may not be alone: see alone() */
	int rie;		/* ... because of READ_IMPLIES_EXEC */
	enum route allowed;
	uintptr_t page_mask;
	uintptr_t last_page;	/* last page counted in stats->pages */
	unsigned unwritten;	/* sites no route could write */
};

/* A module, as it described itself (module.h), and what became of it. */
struct module {
	struct repstos_module m;
	unsigned long long (*hist)[REPSTOS_NCLASS]; /* an installed profile's
					 * calls per site and class, or NULL */
	char *profile;			/* its file (or NULL) */
	int record;			/* its sites call the profiling routine */
	struct repstos_recorder *rec;	/* ... and their counts */
	int seal_errno;			/* why its dispatch page stayed
					 * writable, or 0 */
	unsigned char narrow[REPSTOS_NFAMILY]; /* it has sites of the
					 * family of a narrow entry version */
	struct writer writer;
};

/* A run: consecutive sites within one window, written in one go. */
#define RUN_MAX 4096
struct run {
	uintptr_t lo, hi;	/* [lo, hi) mirrored in buf */
	unsigned nsites;
	unsigned nrescues;	/* of nsites: calls of a routine this CPU lacks */
	uint8_t buf[RUN_MAX];
};

static struct repstos_cpu cpu;
static struct config cfg;
static int configured;		/* cpu and cfg are set */

static const char *module_name(const struct module *mod);

static void warn(const char *fmt, const char *arg)
{
	fprintf(stderr, "repstos: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/*
 * REPSTOS_VARIANT=name picks the routine of that name in every family
 * that has one this CPU can run ("avx2": 32-byte vectors for sets and
 * copies alike); a family without it keeps the policy's choice.
 */
static void read_variant(struct config *c)
{
	const char *v = secure_getenv("REPSTOS_VARIANT");
	int f, n, named = 0, forced = 0;

	for (f = 0; f < REPSTOS_NFAMILY; f++)
		c->mods.fam[f].variant = c->tuning.fam[f].variant;
	c->why = c->tuning.source;
	if (!v || !*v || !strcmp(v, "auto"))
		return;
	for (f = 0; f < REPSTOS_NFAMILY; f++) {
		n = repstos_family_by_name(&repstos_families[f], v);
		if (n < 0)
			continue;
		named = 1;
		if (!repstos_family_runs(&repstos_families[f], &cpu, n))
			continue;
		c->mods.fam[f].variant = n;
		c->mods.fam[f].forced = forced = 1;
	}
	if (!named)
		warn("unknown REPSTOS_VARIANT '%s', using auto", v);
	else if (!forced)
		warn("REPSTOS_VARIANT '%s' needs instructions this CPU lacks, "
		     "using auto", v);
	if (c->mods.fam[REPSTOS_FAMILY_SET].forced)
		c->why = "forced by REPSTOS_VARIANT";
}

static void read_route(struct config *c)
{
	const char *v = secure_getenv("REPSTOS_PATCH");

	c->route = ROUTE_AUTO;
	if (!v || !*v || !strcmp(v, "1") || !strcmp(v, "auto"))
		return;
	if (!strcmp(v, "0"))
		c->route = ROUTE_OFF;
	else if (!strcmp(v, "mem"))
		c->route = ROUTE_MEM;
	else if (!strcmp(v, "mprotect"))
		c->route = ROUTE_MPROTECT;
	else
		warn("unknown REPSTOS_PATCH '%s', using auto", v);
}

/* The tuning file repstos_tune() wrote, if there is one for this CPU
 * (repstos_tuning_load reads it; one open() when there is none).  A
 * set-user-ID or otherwise secure program says nothing about it: what
 * it could say about a file its user cannot read is an oracle. */
static void read_tuning(struct config *c)
{
	const char *path = repstos_tuning_path();
	int other, r;

	r = repstos_tuning_load(path, &cpu, &c->tuning, &other);
	if (r < 0 && !getauxval(AT_SECURE))
		warn("%s: malformed tuning file, ignored", path);
	else if (other && c->debug)
		warn("%s: tuning file is for another CPU, ignored", path);
}

/*
 * REPSTOS_CPU=profile: choose as the policy would on that CPU (its
 * vendor, family and model), with only the features both it and this
 * CPU have, so no routine this CPU lacks can be chosen.  For trying a
 * deployment's choice here, and for the tests.
 */
static void read_cpu(void)
{
	const char *name = secure_getenv("REPSTOS_CPU");

	if (repstos_cpu_as(&cpu, name))
		warn("unknown REPSTOS_CPU '%s', using this CPU", name);
}

/* The profile installed for this module, if there is one it can use. */
static void read_profile(struct module *mod)
{
	const char *why = NULL;

	if (mod->m.begin == mod->m.end)
		return;
	if (repstos_prof_load(mod->m.begin, mod->m.end, &mod->hist,
			      &mod->profile, &why) < 0 && cfg.debug)
		fprintf(stderr, "repstos: %s: profile %s ignored: %s\n",
			module_name(mod), mod->profile ? mod->profile : "?", why);
}

/* Every REPSTOS_* variable is read with secure_getenv(): in a secure
 * execution (set-user-ID, file capabilities: AT_SECURE) the user who
 * starts the program does not choose what it runs or which file it
 * opens, as glibc treats its own variables; such a program runs as if
 * none were set, records nothing, and reads only the profiles installed
 * by root. */
static void read_config(struct config *c)
{
	const char *d = secure_getenv("REPSTOS_DEBUG");
	const char *r = secure_getenv("REPSTOS_PROFILE");
	int f;

	c->debug = !d || !*d || !strcmp(d, "0") ? 0 : !strcmp(d, "2") ? 2 : 1;
	read_cpu();
	read_tuning(c);
	for (f = 0; f < REPSTOS_NFAMILY; f++)
		c->cost_forms[f] = repstos_cost_forms(&c->tuning.fam[f].costs);
	read_variant(c);
	read_route(c);
	c->record = r && *r ? r : NULL;
}

/* ---- writing ---------------------------------------------------------- */

static int write_mem(struct writer *w, uintptr_t at, const void *src,
		     size_t n)
{
	ssize_t done;

	if (w->fd < 0 && !w->mem_errno) {
		w->fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		if (w->fd < 0)
			w->mem_errno = errno ? errno : EIO;
	}
	if (w->fd < 0)
		return -1;
	done = pwrite(w->fd, src, n, (off_t)at);
	if (done == (ssize_t)n)
		return 0;
	w->mem_errno = done < 0 ? errno : EIO;
	close(w->fd);
	w->fd = -1;
	return -1;
}

/* Is this process alone in its address space, no other thread and no
 * vfork parent?  unshare(CLONE_VM) fails with EINVAL if another task
 * shares it and changes nothing if none does (kernel/fork.c,
 * check_unshare_flags); a seccomp filter's EPERM means "cannot tell".
 * Asked here for the report; __repstos_poke asks again, with signals
 * blocked, where it counts. */
static int alone(struct writer *w)
{
	if (!unshare(CLONE_VM))
		return 1;
	w->mprotect_errno = errno ? errno : EINVAL;
	w->crowded = 1;
	return 0;
}

/* Does a protection asked with read access come back executable too?
 * Under the personality READ_IMPLIES_EXEC it does (mprotect(2) adds
 * PROT_EXEC wherever the mapping may execute): the mprotect route's
 * window would be writable and executable, and a sealed dispatch page
 * data that runs. */
static int read_implies_exec(void)
{
	int p = personality(0xffffffff);

	return p != -1 && (p & READ_IMPLIES_EXEC);
}

/* Can a written page of this module become executable again?  Ask on a
 * page nothing executes before asking on one that matters.  Not at all
 * where its window would be executable. */
static int probe_mprotect(struct writer *w)
{
	long r;

	if (w->mprotect_ok || w->mprotect_errno)
		return w->mprotect_ok;
	if (read_implies_exec()) {
		w->rie = 1;
		w->mprotect_errno = EPERM;
		return 0;
	}
	if (!alone(w))
		return 0;
	r = __repstos_poke(__repstos_probe_page, w->page_mask + 1,
			   __repstos_probe_page, __repstos_probe_page, 1);
	if (r == 0)
		w->mprotect_ok = 1;
	else
		w->mprotect_errno = (int)(r < 0 ? -r : r);
	return w->mprotect_ok;
}

static int write_mprotect(struct writer *w, uintptr_t at, const void *src,
			  size_t n)
{
	uintptr_t first = at & ~w->page_mask;
	uintptr_t end = ((at + n - 1) | w->page_mask) + 1;
	long r;

	if (!probe_mprotect(w))
		return -1;
	r = __repstos_poke((void *)first, end - first, (void *)at, src, n);
	if (r == 0)
		return 0;
	/* r > 0 cannot happen after a good probe short of a policy change
	 * mid-run; the range then stays read-write, and there is nothing
	 * better to do than say so. */
	w->mprotect_errno = (int)(r < 0 ? -r : r);
	if (r > 0)
		warn("text left writable after mprotect failed: %s",
		     strerror((int)r));
	return -1;
}

static int write_text(struct writer *w, uintptr_t at, const void *src,
		      size_t n)
{
	if (w->allowed == ROUTE_OFF)
		return -1;
	if (w->allowed != ROUTE_MPROTECT && write_mem(w, at, src, n) == 0)
		return 0;
	if (w->allowed != ROUTE_MEM && write_mprotect(w, at, src, n) == 0)
		return 0;
	return -1;
}

static void count_pages(struct module *mod, uintptr_t lo, uintptr_t hi)
{
	struct writer *w = &mod->writer;
	uintptr_t p;

	for (p = lo & ~w->page_mask; p < hi; p += w->page_mask + 1)
		if (p != w->last_page) {
			mod->m.stats->pages++;
			w->last_page = p;
		}
}

static void flush_run(struct module *mod, struct run *r)
{
	struct writer *w = &mod->writer;

	if (!r->nsites)
		return;
	if (write_text(w, r->lo, r->buf, r->hi - r->lo) == 0) {
		mod->m.stats->patched += r->nsites;
		mod->m.stats->rescued += r->nrescues;
		count_pages(mod, r->lo, r->hi);
	} else {
		mod->m.stats->skipped += r->nsites;
		w->unwritten += r->nsites;
		mod->m.stats->error = w->mprotect_errno ? w->mprotect_errno : w->mem_errno;
	}
	r->nsites = 0;
	r->nrescues = 0;
}

/* Add a site's new bytes to the run, starting a new run if it does not
 * follow the last site closely enough. */
static void add_to_run(struct module *mod, struct run *r, uintptr_t at,
		       const uint8_t *bytes, unsigned len, int rescue)
{
	if (r->nsites && (at < r->hi || at + len - r->lo > RUN_MAX))
		flush_run(mod, r);
	if (!r->nsites)
		r->lo = r->hi = at;
	memcpy(r->buf + (r->hi - r->lo), (const void *)r->hi, at - r->hi);
	memcpy(r->buf + (at - r->lo), bytes, len);
	r->hi = at + len;
	r->nsites++;
	r->nrescues += rescue;
}

/* ---- deciding --------------------------------------------------------- */

/*
 * The module's own routines, by variant and back: a site calls a
 * routine of its module (a rel32 call reaches no further), so every
 * address here is the module's, as it described itself.
 */
static void *const *routines_of(const struct module *mod,
				const struct repstos_family *f)
{
	return f->id == REPSTOS_FAMILY_COPY ? mod->m.copy_routine :
					      mod->m.set_routine;
}

static uintptr_t routine_of(const struct module *mod, unsigned op, int v)
{
	return (uintptr_t)routines_of(mod, repstos_family_of(op))[v];
}

static int variant_by_routine(const struct module *mod, unsigned op,
			      uintptr_t target)
{
	const struct repstos_family *f = repstos_family_of(op);
	void *const *r = routines_of(mod, f);
	int v;

	for (v = 0; target && v < f->nvariants; v++)
		if ((uintptr_t)r[v] == target)
			return v;
	return -1;
}

/* The stub a site of op calls as the compiler left it. */
static uintptr_t stub_of(const struct module *mod, unsigned op)
{
	return (uintptr_t)(repstos_family_of(op)->id == REPSTOS_FAMILY_COPY ?
			   mod->m.copy_stub : mod->m.set_stub);
}

/*
 * With a cost table, the policy's form for a site of known size depends
 * only on its family, its entry version and the size classes its range
 * spans, and finding it weighs every form over those classes: 10,000
 * bounded sites took 4.5 ms at start-up on the Zen 4.  A program has
 * many sites and few ranges, so each range is asked once per family
 * (set; copy; move, which may not take rep movsb in place) and
 * narrowness, for every module of the process.  0: not asked yet, else
 * the variant + 1.
 */
static unsigned char picks[2][3][REPSTOS_NCLASS][REPSTOS_NCLASS];

/*
 * The same for a site with calls in an installed profile: its form
 * depends on its family (and op: copy or move), its narrowness and its
 * row of counts, not on its range, and weighing every form over a row
 * took 100,000 profiled sites 172 ms at start-up on the Zen 4, against
 * 5.7 ms without the profile (and 10 ms with this table).  Many sites see the very same counts (a
 * call or two of one size), so each row is weighed once: a direct-mapped
 * table, found by a mix of the counts and compared whole, kept while one
 * module's sites are walked (patch_sites) and only when it has a profile.
 */
#define ROW_PICKS 1024
struct row_pick {
	unsigned long long h[REPSTOS_NCLASS];
	unsigned char key;	/* kind + 1; 0: empty */
	unsigned char v;
};
static struct row_pick *row_picks;

static int row_choice(const struct repstos_modules *m,
		      const struct repstos_site *e,
		      const unsigned long long *h, unsigned kind)
{
	unsigned long long mix = kind;
	struct row_pick *p;
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		mix = (mix ^ h[c]) * 0x100000001b3ull;
	p = &row_picks[(mix ^ mix >> 29) % ROW_PICKS];
	if (p->key != kind + 1 || memcmp(p->h, h, sizeof(p->h))) {
		memcpy(p->h, h, sizeof(p->h));
		p->key = (unsigned char)(kind + 1);
		p->v = (unsigned char)repstos_policy_form(&cfg.tuning, m, e, h);
	}
	return p->v;
}

/* The policy's form for a site (repstos_policy_form), a variant of its
 * family, from its installed profile if any: a row without calls chooses
 * as no profile does.  A copy site's "inline" is rep movsb in place
 * only where its op allows it (wanted_bytes); elsewhere it calls the
 * overlap-checking routine. */
static int choice(const struct module *mod, const struct repstos_site *e,
		  const char **why)
{
	const struct repstos_family *f = repstos_family_of(e->op);
	const unsigned long long *h = mod->hist ? mod->hist[e - mod->m.begin] :
						  NULL;
	const struct repstos_modules *m = &cfg.mods;
	int forced = m->fam[f->id].forced;
	/* set; copy that may go inline; move that may not */
	unsigned kind = f->id == REPSTOS_FAMILY_SET ? 0 :
			repstos_family_inline_ok(f, e->op) ? 1 : 2;
	int narrow = repstos_version_narrow(e->version);
	unsigned char *pick;

	if (h && !repstos_profile_calls(h))
		h = NULL;
	*why = h ? "the size profile's counts" :
	       forced ? "REPSTOS_VARIANT" :
	       e->size_kind == REPSTOS_SIZE_UNKNOWN ? "size unknown: the process's routine" :
	       !cfg.cost_forms[f->id] ? "the rule for this CPU (no cost table row)" :
	       "the cost table over the site's sizes";
	if (h && row_picks && !forced)
		return row_choice(m, e, h, kind * 2 + (unsigned)narrow);
	if (h || forced || e->size_kind == REPSTOS_SIZE_UNKNOWN ||
	    !cfg.cost_forms[f->id])
		return repstos_policy_form(&cfg.tuning, m, e, h);
	pick = &picks[narrow][kind][repstos_size_class(e->size_min)]
		     [repstos_size_class(e->size_max)];
	if (!*pick)
		*pick = 1 + (unsigned char)repstos_policy_form(&cfg.tuning, m,
							       e, NULL);
	return *pick - 1;
}

/* The process's routine for sites of unknown size, as this module's
 * stubs may call it: a stub serves every site of its family, narrow
 * ones too. */
static int module_variant(const struct module *mod, enum repstos_family_id f)
{
	int v = cfg.mods.fam[f].variant;

	return mod->narrow[f] ? repstos_family_narrow(&repstos_families[f], v) : v;
}

/* Note which families have sites of a narrow entry version. */
static void find_narrow(struct module *mod)
{
	const struct repstos_site *e;

	for (e = mod->m.begin; e < mod->m.end; e++)
		if (repstos_version_narrow(e->version))
			mod->narrow[repstos_family_of(e->op)->id] = 1;
}

/* The bytes a site should have; 0, or -1 if the entry cannot be used.
 * While recording, every site calls its family's profiling routine. */
static int wanted_bytes(const struct module *mod, const struct repstos_site *e,
			uintptr_t at, uint8_t *out, const char **form,
			const char **why)
{
	const struct repstos_family *f = repstos_family_of(e->op);
	uintptr_t target;
	int v;

	if (mod->record) {
		*form = "the profiling routine", *why = "REPSTOS_PROFILE";
		return repstos_encode_call(out, e->len, at,
				(uintptr_t)(f->id == REPSTOS_FAMILY_COPY ?
					    mod->m.copy_profile : mod->m.profile));
	}
	v = choice(mod, e, why);
	*form = repstos_family_name(f, v);
	if (v == f->inline_form && repstos_family_inline_ok(f, e->op)) {
		*form = f->inline_name;
		return repstos_encode_inline(out, e->len, e->op);
	}
	target = routine_of(mod, e->op, v);
	return target ? repstos_encode_call(out, e->len, at, target) : -1;
}

/* REPSTOS_DEBUG=2: a site's line, the first DEBUG_SITES of a module. */
#define DEBUG_SITES 200
static void debug_site(struct module *mod, const struct repstos_site *e,
		       const char *form, const char *why)
{
	uintptr_t at = repstos_site_addr(e);
	unsigned i = (unsigned)(e - mod->m.begin), n;
	char size[48];
	Dl_info info;

	if (cfg.debug < 2)
		return;
	n = (unsigned)(mod->m.end - mod->m.begin);
	if (i == DEBUG_SITES)
		fprintf(stderr, "repstos: %s: %u more sites not shown (the first "
			"%u of a module are)\n", module_name(mod),
			n - DEBUG_SITES, DEBUG_SITES);
	if (i >= DEBUG_SITES)
		return;
	if (e->size_kind == REPSTOS_SIZE_CONST)
		snprintf(size, sizeof(size), "size %u", e->size_min);
	else if (e->size_kind == REPSTOS_SIZE_BOUNDED)
		snprintf(size, sizeof(size), "size %u..%u", e->size_min,
			 e->size_max);
	else
		snprintf(size, sizeof(size), "size unknown");
	if (!dladdr((const void *)at, &info))
		memset(&info, 0, sizeof(info));
	fprintf(stderr, "repstos: %s+0x%lx", module_name(mod),
		(unsigned long)(at - (uintptr_t)info.dli_fbase));
	if (info.dli_sname)
		fprintf(stderr, " (%s+0x%lx)", info.dli_sname,
			(unsigned long)(at - (uintptr_t)info.dli_saddr));
	fprintf(stderr, ": site %u, %s, %s: %s (%s)\n", i,
		e->op < REPSTOS_OP_COUNT ? repstos_op_names[e->op] : "?", size,
		form, why);
}

/* A call of a routine this CPU cannot run: a file patched ahead of time
 * for another machine (`repstos patch --cpu=zen5` run on a CPU without
 * AVX-512).  Such a site is rewritten whoever chose it. */
static int unrunnable(const struct module *mod, unsigned op, uintptr_t target)
{
	int v = variant_by_routine(mod, op, target);

	return v >= 0 && !repstos_family_runs(repstos_family_of(op), &cpu, v);
}

/* What the site holds: 0, *form and *target (of a call), or -1 when it
 * is none of the forms this runtime writes and must be left alone. */
static int site_form(const struct module *mod, const struct repstos_site *e,
		     enum repstos_form *form, uintptr_t *target)
{
	uintptr_t at = repstos_site_addr(e);

	if (e->op >= REPSTOS_OP_COUNT || !repstos_version_fits(e->version, e->op))
		return -1;
	/* a copy site in a module without copy routines: not ours */
	if (!stub_of(mod, e->op))
		return -1;
	*target = 0;
	*form = repstos_decode((const uint8_t *)at, e->len, at, e->op, target);
	if (*form == REPSTOS_FORM_BAD ||
	    (*form == REPSTOS_FORM_CALL && *target != stub_of(mod, e->op) &&
	     variant_by_routine(mod, e->op, *target) < 0))
		return -1;
	/* rep movsb in a move site copies forwards blindly: not ours */
	if (*form == REPSTOS_FORM_INLINE &&
	    !repstos_family_inline_ok(repstos_family_of(e->op), e->op))
		return -1;
	return 0;
}

static void patch_site(struct module *mod, struct run *r,
		       const struct repstos_site *e)
{
	int rescue;

	uintptr_t at = repstos_site_addr(e), target = 0;
	uint8_t want[REPSTOS_SITE_MAX_LEN];
	enum repstos_form form;

	const char *chose = NULL, *why = NULL;

	if (site_form(mod, e, &form, &target)) {
		mod->m.stats->skipped++;
		debug_site(mod, e, "left alone", "not a form this runtime writes");
		return;
	}
	/* Only the compiler's form is ours to change: anything else was
	 * chosen by `repstos patch`, and stays, unless it cannot run here
	 * (or the sizes it sees are being recorded). */
	rescue = form == REPSTOS_FORM_CALL && unrunnable(mod, e->op, target);
	mod->m.stats->lacking += rescue;
	if (!rescue && !mod->record &&
	    (form != REPSTOS_FORM_CALL || target != stub_of(mod, e->op))) {
		mod->m.stats->fixed++;
		debug_site(mod, e, "kept", "fixed ahead of time by repstos patch");
		return;
	}
	if (wanted_bytes(mod, e, at, want, &chose, &why) < 0) {
		mod->m.stats->skipped++;
		debug_site(mod, e, "left alone", "no routine for its choice");
		return;
	}
	debug_site(mod, e, chose, rescue ? "the file's choice cannot run here" : why);
	if (!memcmp(want, (const void *)at, e->len)) {
		mod->m.stats->kept++;
		return;
	}
	add_to_run(mod, r, at, want, e->len, rescue);
}

/* ---- recording sizes (REPSTOS_PROFILE) -------------------------------- */

/* What a profiled site goes on to run: what it would run unprofiled
 * (for the inline form, its called form: rep stosb, or for a copy site
 * rep movsb after the overlap check, which every copy op may take). */
static void *profiled_routine(const struct module *mod,
			      const struct repstos_site *e,
			      enum repstos_form form, uintptr_t target)
{
	if (form == REPSTOS_FORM_INLINE)
		return (void *)routine_of(mod, e->op, REPSTOS_VARIANT_INLINE);
	if (target != stub_of(mod, e->op) && !unrunnable(mod, e->op, target))
		return (void *)target;
	const char *why;

	return (void *)routine_of(mod, e->op, choice(mod, e, &why));
}

/* REPSTOS_PROFILE names path, and this module's sizes cannot be
 * recorded: one line, whatever REPSTOS_DEBUG says, as nothing will be
 * written at exit either. */
static void not_recorded(const char *path, const char *name, int e)
{
	fprintf(stderr, "repstos: %s: profile of %s not recorded: %s\n",
		path, name, strerror(e ? e : ENOMEM));
}

/* Give every site the runtime may rewrite a slot, before any calls the
 * profiling routine. */
static void start_recording(struct module *mod)
{
	const struct repstos_site *b = mod->m.begin, *end = mod->m.end, *e;
	struct repstos_recorder *rec;
	enum repstos_form form;
	uintptr_t target;

	rec = repstos_prof_begin(cfg.record, mod->m.stats->sites);
	if (!rec) {
		not_recorded(cfg.record, module_name(mod), errno);
		return;
	}
	mod->record = 1;
	for (e = b; e < end; e++)
		if (!site_form(mod, e, &form, &target))
			repstos_prof_site(rec, (unsigned)(e - b),
					  repstos_site_addr(e),
					  profiled_routine(mod, e, form, target));
	if (repstos_prof_ready(rec, mod->m.prof,
			       mod->m.set_routine[module_variant(mod, REPSTOS_FAMILY_SET)],
			       mod->m.copy_routine[module_variant(mod, REPSTOS_FAMILY_COPY)],
			       repstos_table_hash(b, end), module_name(mod))) {
		not_recorded(cfg.record, module_name(mod), errno);
		mod->record = 0;
		return;
	}
	mod->rec = rec;
}

static const char *route_name(const struct writer *w)
{
	if (w->mprotect_ok)
		return "mprotect";
	if (w->mem_errno)
		return "";
	return "/proc/self/mem";
}

static void patch_sites(struct module *mod)
{
	static struct run run;
	struct writer *w = &mod->writer;
	const struct repstos_site *e;

	w->fd = -1;
	w->allowed = cfg.route;
	w->page_mask = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) - 1 : 4095;
	w->last_page = ~(uintptr_t)0;
	if (mod->hist)		/* none: every site is chosen without it */
		row_picks = calloc(ROW_PICKS, sizeof(*row_picks));
	for (e = mod->m.begin; e < mod->m.end; e++)
		patch_site(mod, &run, e);
	free(row_picks);
	row_picks = NULL;
	flush_run(mod, &run);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	mod->m.stats->status = w->unwritten && !mod->m.stats->patched ?
			     REPSTOS_ST_REFUSED : REPSTOS_ST_PATCHED;
	mod->m.stats->method = mod->m.stats->patched ? route_name(w) : "";
}

/* ---- reporting -------------------------------------------------------- */

/* The module's file, or the program's. */
static const char *module_name(const struct module *mod)
{
	Dl_info info;

	if (dladdr((const void *)mod->m.info, &info) && info.dli_fname &&
	    *info.dli_fname)
		return info.dli_fname;
	return program_invocation_name;
}

/* Why each route that was tried said no. */
static void report_refusals(const struct writer *w, FILE *f)
{
	int e = w->mprotect_errno;

	if (w->mem_errno)
		fprintf(f, " (/proc/self/mem: %s)", strerror(w->mem_errno));
	if (w->rie)
		fprintf(f, " (mprotect: under READ_IMPLIES_EXEC its window "
			"would be writable and executable)");
	else if (w->crowded && e == EINVAL)
		fprintf(f, " (mprotect: another thread shares the address space)");
	else if (w->crowded)
		fprintf(f, " (mprotect: cannot tell if single-threaded: %s)",
			strerror(e));
	else if (e)
		fprintf(f, " (mprotect: %s)", strerror(e));
}

/* Sites calling a routine this CPU lacks are rewritten if text can be
 * written; if not, they stay, and that routine runs "vec" instead. */
static void report_static(const struct module *mod, FILE *f)
{
	unsigned stay = mod->m.stats->lacking - mod->m.stats->rescued;

	fprintf(f, "statically patched for '%.16s' by repstos patch: %u sites "
		"left as they are", (const char *)mod->m.info->profile,
		mod->m.stats->sites - mod->m.stats->rescued);
	if (mod->m.stats->rescued)
		fprintf(f, ", %u calling a routine this CPU lacks rewritten",
			mod->m.stats->rescued);
	if (!stay)
		return;
	fprintf(f, ", %u of them calling a routine this CPU lacks, which "
		"runs vec in its place", stay);
	if (cfg.route == ROUTE_OFF) {
		fprintf(f, ": text patching off (REPSTOS_PATCH=0)");
	} else {
		fprintf(f, ": writing text refused");
		report_refusals(&mod->writer, f);
	}
}

static void report_outcome(const struct module *mod, FILE *f)
{
	switch (mod->m.stats->status) {
	case REPSTOS_ST_STATIC:
		report_static(mod, f);
		break;
	case REPSTOS_ST_DISABLED:
		fprintf(f, "text patching off (REPSTOS_PATCH=0): %u sites call "
			"the stub", mod->m.stats->sites);
		break;
	case REPSTOS_ST_REFUSED:
		fprintf(f, "%u sites, none patched: writing text refused",
			mod->m.stats->sites);
		report_refusals(&mod->writer, f);
		fprintf(f, "; sites stay stub calls");
		break;
	default:
		fprintf(f, "%u sites: %u patched, %u kept, %u fixed, %u skipped; "
			"%u pages", mod->m.stats->sites, mod->m.stats->patched, mod->m.stats->kept,
			mod->m.stats->fixed, mod->m.stats->skipped, mod->m.stats->pages);
		if (*mod->m.stats->method)
			fprintf(f, " via %s", mod->m.stats->method);
		if (mod->writer.unwritten)
			report_refusals(&mod->writer, f);
		fprintf(f, " in %llu us (patching %llu us)", mod->m.stats->nsec / 1000,
			mod->m.stats->patch_nsec / 1000);
	}
	if (mod->hist)
		fprintf(f, "; sites chosen with the profile %s",
			mod->profile ? mod->profile : "installed");
	if (mod->narrow[0] || mod->narrow[1])
		fprintf(f, "; sites from an older plugin (entry version 1 or 2) "
			"and the stub get SSE or rep forms only");
	if (mod->record)
		fprintf(f, "; recording sizes to %s", cfg.record);
}

static void report(const struct module *mod)
{
	char feats[128];

	repstos_feature_names(cpu.features, feats, sizeof(feats));
	fprintf(stderr, "repstos: %s: cpu %s family 0x%x model 0x%x [%s]; "
		"variant %s (%s), copy %s%s; ", module_name(mod),
		cpu.vendor == REPSTOS_VENDOR_INTEL ? "intel" :
		cpu.vendor == REPSTOS_VENDOR_AMD ? "amd" : "other",
		cpu.family, cpu.model, feats, repstos_variant_names[cfg.mods.fam[REPSTOS_FAMILY_SET].variant],
		cfg.why, repstos_copy_variant_names[cfg.mods.fam[REPSTOS_FAMILY_COPY].variant],
		cfg.mods.fam[REPSTOS_FAMILY_COPY].forced ? " (forced)" : "");
	report_outcome(mod, stderr);
	if (mod->seal_errno)
		fprintf(stderr, "; dispatch pointer left writable (%s)",
			strerror(mod->seal_errno));
	if (!mod->m.dispatch_page)
		fprintf(stderr, "; start-up shared");
	fputc('\n', stderr);
}

/* ---- start-up --------------------------------------------------------- */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* What the module's routines read: the thresholds and what this CPU can
 * run.  Before any site is pointed at them. */
static void set_routines(const struct module *mod)
{
	const struct repstos_module *m = &mod->m;
	const struct repstos_tuning t = cfg.tuning;

	__atomic_store_n(m->vec_rep_min, t.vec_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(m->wide_rep_min, t.wide_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(m->copy_rep_min, t.copy_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(m->copy_nt_min, t.copy_nt_min, __ATOMIC_RELAXED);
	if (m->short_rep_max)	/* NULL: a module of ABI 2 */
		__atomic_store_n(m->short_rep_max, t.short_rep_max,
				 __ATOMIC_RELAXED);
	repstos_routines_enable(&cpu, m->can_avx2, m->can_avx512);
}

/* The stubs' targets, on a module's own dispatch page: while recording,
 * the profiling routines.  The copy stub serves move sites too: every
 * copy routine, "inline"'s called form included, handles overlap. */
static void set_targets(const struct module *mod)
{
	const struct repstos_module *m = &mod->m;
	void *copy = m->copy_routine[module_variant(mod, REPSTOS_FAMILY_COPY)];

	__atomic_store_n(m->set_target, mod->record ? m->profile :
			 m->set_routine[module_variant(mod, REPSTOS_FAMILY_SET)],
			 __ATOMIC_RELEASE);
	if (m->copy_target && copy)
		__atomic_store_n(m->copy_target, mod->record ? m->copy_profile :
				 copy, __ATOMIC_RELEASE);
}

/* mprotect(page, PROT_READ) that does not come back executable: under
 * READ_IMPLIES_EXEC the personality is dropped for the one call and put
 * back, with signals blocked so that no handler runs without it (it is
 * the calling thread's own: no other thread sees the change).  Where it
 * cannot be dropped the page is left as it is, rather than made data
 * that runs.  0, or -1 and errno. */
static int read_only(void *page, size_t len)
{
	int p = personality(0xffffffff), r, e;
	sigset_t all, old;

	if (p == -1 || !(p & READ_IMPLIES_EXEC))
		return mprotect(page, len, PROT_READ);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = personality((unsigned)p & ~READ_IMPLIES_EXEC) == -1 ? -1 :
	    mprotect(page, len, PROT_READ);
	e = errno;
	personality((unsigned)p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return r;
}

/* Nothing may write the dispatch page again: as RELRO does for a
 * module's other pointers, but for values chosen at run time, so also
 * where the link has no RELRO and in static programs.  Taking write
 * permission away needs no permission, so a hardened policy that refuses
 * text writing does not stop this. */
static void seal_dispatch(struct module *mod)
{
	char *page = mod->m.dispatch_page;

	if (getauxval(AT_PAGESZ) != REPSTOS_DISPATCH_PAGE || (uintptr_t)page % REPSTOS_DISPATCH_PAGE)
		mod->seal_errno = EINVAL;
	else if (read_only(page, REPSTOS_DISPATCH_PAGE))
		mod->seal_errno = errno;
}

static int is_static(const struct module *mod)
{
	return (mod->m.info->flags & REPSTOS_MOD_STATIC) != 0;
}

/* The process's choice: once, whichever module starts first. */
static void configure(void)
{
	if (configured)
		return;
	repstos_cpu_detect(&cpu);
	read_config(&cfg);
	configured = 1;
}

/* Does the start-up know the module's description?  A module built
 * against a newer runtime than the shared one loaded keeps its sites
 * calling the stub: correct, one jump slower.  One of ABI 2 (before
 * short_rep_max) is known too: its description is the same up to it. */
static int known(const struct repstos_module *m)
{
	return ((m->abi == REPSTOS_MODULE_ABI && m->size == sizeof(*m)) ||
		(m->abi == 2 && m->size == offsetof(struct repstos_module,
						    short_rep_max))) &&
	       m->stats && m->set_stub;
}

static void start(struct module *mod)
{
	unsigned long long t0 = now_ns();

	configure();
	mod->m.stats->sites = (unsigned)(mod->m.end - mod->m.begin);
	find_narrow(mod);
	read_profile(mod);
	if (cfg.record && mod->m.stats->sites) /* something to count */
		start_recording(mod);
	set_routines(mod);
	if (mod->m.dispatch_page) {
		set_targets(mod);
		seal_dispatch(mod);
	}
	if (cfg.route == ROUTE_OFF && !is_static(mod)) {
		mod->m.stats->status = REPSTOS_ST_DISABLED;
	} else {
		unsigned long long t1 = now_ns();

		/* A static file's sites are all someone else's choice: the
		 * walk only rescues calls of routines this CPU lacks (with
		 * text patching off, it only counts them). */
		patch_sites(mod);
		mod->m.stats->patch_nsec = now_ns() - t1;
		if (is_static(mod) && !mod->record)
			mod->m.stats->status = REPSTOS_ST_STATIC;
	}
	mod->m.stats->tuning = cfg.tuning.source;
	mod->m.stats->nsec = now_ns() - t0;
	if (cfg.debug)
		report(mod);
}

/*
 * The first module's description needs no heap: with librepstos.a the
 * only one this start-up ever has (so unloading the module leaves none
 * of it behind, whatever the process does), with the shared runtime its
 * own.  The others' are allocated, and freed when they go.
 */
static struct module first;
static int first_taken;

static struct module *new_module(void)
{
	if (first_taken)
		return calloc(1, sizeof(struct module));
	first_taken = 1;
	return &first;
}

static void free_module(struct module *mod)
{
	free(mod->hist);
	free(mod->profile);
	if (mod != &first) {
		free(mod);
		return;
	}
	memset(&first, 0, sizeof(first));
	first_taken = 0;
}

/* No memory even to start a module: its sites stay calls of the stub,
 * correct; a profile being recorded says what it misses.  Before the
 * configuration is read: REPSTOS_PROFILE as read_config() reads it. */
static void not_started(const struct repstos_module *m)
{
	const char *path = secure_getenv("REPSTOS_PROFILE");
	Dl_info info;

	if (path && *path)
		not_recorded(path, dladdr((const void *)m->info, &info) &&
			     info.dli_fname ? info.dli_fname : "?", ENOMEM);
}

/*
 * A module's constructor (module.c) hands it over: run in the loader's
 * order, one at a time (the dynamic loader holds its lock through
 * constructors and destructors, dlopen()'s and dlclose()'s included).
 * The module stays known for the API calls below until its destructor
 * lets go (__repstos_detach).
 */
void *__repstos_attach(const struct repstos_module *m)
{
	struct module *mod;

	if (!known(m))
		return NULL;
	if (!(mod = new_module())) {
		not_started(m);
		return NULL;
	}
	memcpy(&mod->m, m, m->size);
	start(mod);
	return mod;
}

/* The module goes (its last destructor, at exit or dlclose()): its
 * section is written and its state freed.  Its sites are not touched:
 * at exit other threads may still call them, and they stay correct. */
void __repstos_detach(void *handle)
{
	struct module *mod = handle;

	if (!mod)
		return;
	if (mod->rec)
		repstos_prof_end(mod->rec);
	free_module(mod);
}

/* ---- the API's backends (api.c) --------------------------------------- */

const struct repstos_cpu *__repstos_process_cpu(void)
{
	configure();
	return &cpu;
}

enum repstos_variant __repstos_process_variant(void)
{
	configure();
	return cfg.mods.fam[REPSTOS_FAMILY_SET].variant;
}

enum repstos_copy_variant __repstos_process_copy_variant(void)
{
	configure();
	return cfg.mods.fam[REPSTOS_FAMILY_COPY].variant;
}

enum repstos_variant __repstos_module_site_variant(void *handle,
						   const struct repstos_site *e)
{
	struct module none = { .hist = NULL };
	const char *why;

	configure();
	return (enum repstos_variant)choice(handle ? handle : &none, e, &why);
}
