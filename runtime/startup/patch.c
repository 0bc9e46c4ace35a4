// SPDX-License-Identifier: MIT
/*
 * patch.c - the start-up patcher: before main (or before a dlopen()ed
 * module's own code runs), pick a routine per site and rewrite the site.
 *
 * One module at a time, as its constructor (module.c) hands it over
 * (__repstos_attach); what the process chose (the CPU, the environment,
 * the tuning file) is read once, by the first.  Linked into each module
 * from librepstos.a, or once a process in librepstos.so.0 (module.h).
 * Size profiles (REPSTOS_PROFILE, REPSTOS_PROFILE_USE and installed
 * ones) are compiled in with -DREPSTOS_PROFILES and the tuning file's
 * reader with -DREPSTOS_TUNING_FILE: in the shared runtime and
 * librepstos-full.a, not in librepstos.a (runtime.mk).
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
 *  2. mprotect(): the pages go read-write (not executable), the bytes
 *     are copied, the pages go read-execute.  Nothing on them may run
 *     meanwhile, so that window is one assembly routine (__repstos_poke,
 *     poke.S), which blocks every signal and opens only if no other task
 *     shares the address space, and it is never opened on a page that
 *     holds a byte of that routine (the sites there stay calls to the
 *     stub); and a probe first checks, on a page of this start-up's own
 *     file that nothing executes (a read-only segment's), that a written
 *     page may become executable again (SELinux execmod says no): only
 *     then is real code touched.  A process with threads, or one that
 *     cannot tell, never takes this route, nor one under
 *     READ_IMPLIES_EXEC, where the read-write window would come back
 *     executable too.
 *
 * If both are refused, sites stay calls to the stub, which goes to the
 * chosen routine through its family's choice byte (dispatch.S): correct,
 * per CPU, a few instructions slower.  Where text can be written the
 * stub's own jump is rewritten too, straight to that routine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
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

#ifndef REPSTOS_PROFILES
#define REPSTOS_PROFILES 0
#endif
#ifndef REPSTOS_TUNING_FILE
#define REPSTOS_TUNING_FILE 0
#endif
/* A module's profile and recording, which only a start-up with size
 * profiles has: constant where it has none, so that none of their code
 * is left. */
#if REPSTOS_PROFILES
#define HIST(mod)	((mod)->hist)
#define RECORDING(mod)	((mod)->record)
#else
#define HIST(mod)	((unsigned long long (*)[REPSTOS_NCLASS])NULL)
#define RECORDING(mod)	0
#endif

/* What a module of librepstos.a says where a size profile or a tuning
 * file would be used: they are not linked (runtime.mk). */
#define NOT_LINKED "not linked into this module (librepstos.a: link " \
	"librepstos-full.a, or the shared runtime)"

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * The mprotect route's window (poke.S), and where it ends: no window is
 * opened on its pages.  The start-up's own, whichever module's sites it
 * writes.
 */
long __repstos_poke(void *page, size_t plen, void *dst, const void *src,
		    size_t n) HIDDEN;
extern const char __repstos_poke_end[] HIDDEN;
/* This start-up's own file's ELF header, where the linker maps it: its
 * program headers say which pages nothing executes (probe_page). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((weak)) HIDDEN;

enum route { ROUTE_AUTO, ROUTE_MEM, ROUTE_MPROTECT, ROUTE_OFF };

/* What the process chose, once, at the first module's start-up. */
struct config {
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

/* ... and the larger part of it: the numbers and cost tables (policy,
 * or the tuning file), and the policy's form per family, kind and
 * range of size classes, asked as modules are started (choice).  Set
 * once configured (configure: on the heap, unless size profiles are
 * linked). */
struct tables {
	struct repstos_tuning tuning;
	unsigned char picks[2][3][REPSTOS_NCLASS][REPSTOS_NCLASS];
};

/* Where the sites of one run go: the mem file, or the mprotect route. */
struct writer {
	int fd;			/* /proc/self/mem, or -1 */
	int mem_errno;		/* why the mem route failed, or 0 */
	int mprotect_ok;	/* probe passed */
	int mprotect_errno;	/* why the mprotect route failed, or 0 */
	int crowded;		/* ... because it may not be alone: see alone() */
	int rie;		/* ... because of READ_IMPLIES_EXEC */
	int noprobe;		/* ... because no page could be probed */
	unsigned beside;	/* sites it left: on the window's own pages */
	enum route allowed;
	uintptr_t page_mask;
	uintptr_t last_page;	/* last page counted in stats->pages */
	unsigned unwritten;	/* sites no route could write */
};

/* One family of a module's sites, as its dispatch record describes it
 * (module.h): the stub, its jump, its byte, its routines by variant. */
struct family {
	uintptr_t stub;		/* 0: the module has no such sites */
	uint8_t *jump;		/* the stub's jump; NULL: not ours to write */
	unsigned char *choice;	/* the byte its fallback reads; NULL: none */
	uintptr_t routine[REPSTOS_NFORM];	/* 0: not in the module */
	uintptr_t profile;	/* its profiling routine; 0: none */
	unsigned n;		/* routines it has */
	unsigned profile_choice; /* the byte that sends the fallback there */
};

/* A module, as it described itself, and what became of it. */
struct module {
	union {
		struct {	/* in the description's order (module.h) */
			const struct repstos_site *begin, *end;	/* its table */
			const volatile struct repstos_module_info *info;
			struct repstos_stats *stats;
			struct repstos_prof *prof; /* NULL: no profiling routines */
			const struct repstos_dispatch *dispatch, *dispatch_end;
			unsigned long long *vec_rep_min, *wide_rep_min;
			unsigned long long *short_rep_max;
			unsigned long long *copy_rep_min, *copy_nt_min;
			unsigned char *can_avx2, *can_avx512;
		};
		void *place[REPSTOS_DESC_PLACES];
	};
	struct family fam[REPSTOS_NFAMILY];
	unsigned long long (*hist)[REPSTOS_NCLASS]; /* an installed profile's
					 * calls per site and class, or NULL */
	char *profile;			/* its file (or NULL) */
	int record;			/* its sites call the profiling routine */
	struct repstos_recorder *rec;	/* ... and their counts */
	unsigned char narrow[REPSTOS_NFAMILY]; /* it has sites of the
					 * family of a narrow entry version */
	struct writer writer;
};
_Static_assert(sizeof(((struct module *)0)->place) ==
	       offsetof(struct module, can_avx512) + sizeof(void *),
	       "struct module's places are the description's");

/* A run: consecutive sites within one window, written in one go; its
 * buffer on the heap while one module's sites are walked, or, where
 * there is no memory, a few sites' worth on the stack (patch_sites). */
#define RUN_MAX 4096
struct run {
	uintptr_t lo, hi;	/* [lo, hi) mirrored in buf */
	unsigned nsites;
	unsigned nrescues;	/* of nsites: calls of a routine this CPU lacks */
	unsigned max;		/* bytes in buf */
	uint8_t *buf;
};

static struct repstos_cpu cpu;
static struct config cfg;
static struct tables *tab;	/* set once configured */
static unsigned attached;	/* modules started and not yet gone */

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
		c->mods.fam[f].variant = tab->tuning.fam[f].variant;
	c->why = tab->tuning.source;
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

/* REPSTOS_PATCH: its words, the first three for ROUTE_AUTO, then one
 * for each route in the order of enum route. */
static void read_route(struct config *c)
{
	static const char words[][9] = { "", "1", "auto", "mem", "mprotect", "0" };
	const char *v = secure_getenv("REPSTOS_PATCH");
	unsigned i;

	c->route = ROUTE_AUTO;
	for (i = 0; v && i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(v, words[i])) {
			c->route = i < 3 ? ROUTE_AUTO : (enum route)(i - 2);
			return;
		}
	if (v)
		warn("unknown REPSTOS_PATCH '%s', using auto", v);
}

/* The tuning file repstos_tune() wrote, if there is one for this CPU
 * (runtime/policy/policy.c reads it; one open() when there is none).  A
 * set-user-ID or otherwise secure program says nothing about it: what
 * it could say about a file its user cannot read is an oracle.  Where
 * the reader is not linked (librepstos.a: -DREPSTOS_TUNING_FILE is not
 * given) the policy's numbers are used, no file is looked at, and with
 * REPSTOS_DEBUG one line says so of a file that is there. */
static void read_tuning(struct config *c)
{
	const char *path = repstos_tuning_path();
#if REPSTOS_TUNING_FILE
	int other, r;

	r = repstos_tuning_load(path, &cpu, &tab->tuning, &other);
	if (r < 0 && !getauxval(AT_SECURE))
		warn("%s: malformed tuning file, ignored", path);
	else if (other && c->debug)
		warn("%s: tuning file is for another CPU, ignored", path);
#else
	repstos_policy_tuning(&cpu, &tab->tuning);
	if (c->debug && *path && !access(path, F_OK))
		warn("%s: tuning file not read: " NOT_LINKED, path);
#endif
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
		c->cost_forms[f] = repstos_cost_forms(&tab->tuning.fam[f].costs);
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
 * window would be writable and executable. */
static int read_implies_exec(void)
{
	int p = personality(0xffffffff);

	return p != -1 && (p & READ_IMPLIES_EXEC);
}

/*
 * A page of this start-up's own file that nothing executes, to probe
 * on: the one holding its ELF header, where the segment that maps it
 * (the one from file offset 0) is read-only, as linkers make it where
 * code is kept apart from the headers (ld's -z separate-code, its
 * default on x86-64; lld), and no other segment reaches into that page.
 * 0 when there is none (no ELF header mapped, program headers beyond
 * its page, a first segment that is executable or writable): the
 * mprotect route is not taken then.
 */
static uintptr_t probe_page(uintptr_t mask)
{
	const ElfW(Ehdr) *eh = &__ehdr_start;
	const ElfW(Phdr) *ph;
	uintptr_t page = (uintptr_t)eh, bias = 0;
	int first = 0;
	unsigned i;

	if (!eh || page & mask || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_phentsize != sizeof(*ph) ||
	    eh->e_phoff + (uintptr_t)eh->e_phnum * sizeof(*ph) > mask + 1)
		return 0;
	ph = (const void *)(page + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && !ph[i].p_offset) {
			bias = page - ph[i].p_vaddr;
			first = ph[i].p_flags == PF_R;
		}
	for (i = 0; first && i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset &&
		    ((bias + ph[i].p_vaddr) & ~mask) <= page)
			return 0;
	return first ? page : 0;
}

/* Can a written page of this module become executable again?  Ask on a
 * page nothing executes before asking on one that matters, and give it
 * back read-only.  Not at all where its window would be executable. */
static int probe_mprotect(struct writer *w)
{
	uintptr_t page;
	long r;

	if (w->mprotect_ok || w->mprotect_errno)
		return w->mprotect_ok;
	if (read_implies_exec()) {
		w->rie = 1;
		w->mprotect_errno = EPERM;
		return 0;
	}
	if (!(page = probe_page(w->page_mask))) {
		w->noprobe = 1;
		w->mprotect_errno = ENOENT;
		return 0;
	}
	if (!alone(w))
		return 0;
	r = __repstos_poke((void *)page, w->page_mask + 1, (void *)page,
			   (const void *)page, 1);
	if (r >= 0)
		mprotect((void *)page, w->page_mask + 1, PROT_READ);
	if (r == 0)
		w->mprotect_ok = 1;
	else
		w->mprotect_errno = (int)(r < 0 ? -r : r);
	return w->mprotect_ok;
}

/* Would the window [first, end) hold a byte of the window's own code? */
static int holds_poke(const struct writer *w, uintptr_t first, uintptr_t end)
{
	uintptr_t lo = (uintptr_t)__repstos_poke & ~w->page_mask;
	uintptr_t hi = (((uintptr_t)__repstos_poke_end - 1) | w->page_mask) + 1;

	return first < hi && end > lo;
}

static int write_mprotect(struct writer *w, uintptr_t at, const void *src,
			  size_t n, int *beside)
{
	uintptr_t first = at & ~w->page_mask;
	uintptr_t end = ((at + n - 1) | w->page_mask) + 1;
	long r;

	if (!probe_mprotect(w) || (*beside = holds_poke(w, first, end)))
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

/* 0 written; -1 not.  Where the mprotect route was the one left and
 * the window would have held its own code, *beside is set. */
static int write_text(struct writer *w, uintptr_t at, const void *src,
		      size_t n, int *beside)
{
	*beside = 0;
	if (w->allowed == ROUTE_OFF)
		return -1;
	if (w->allowed != ROUTE_MPROTECT && write_mem(w, at, src, n) == 0)
		return 0;
	if (w->allowed != ROUTE_MEM && write_mprotect(w, at, src, n, beside) == 0)
		return 0;
	return -1;
}

static void count_pages(struct module *mod, uintptr_t lo, uintptr_t hi)
{
	struct writer *w = &mod->writer;
	uintptr_t p;

	for (p = lo & ~w->page_mask; p < hi; p += w->page_mask + 1)
		if (p != w->last_page) {
			mod->stats->pages++;
			w->last_page = p;
		}
}

static void flush_run(struct module *mod, struct run *r)
{
	struct writer *w = &mod->writer;
	int beside;

	if (!r->nsites)
		return;
	if (write_text(w, r->lo, r->buf, r->hi - r->lo, &beside) == 0) {
		mod->stats->patched += r->nsites;
		mod->stats->rescued += r->nrescues;
		count_pages(mod, r->lo, r->hi);
	} else {
		mod->stats->skipped += r->nsites;
		w->unwritten += r->nsites;
		w->beside += beside ? r->nsites : 0;
		mod->stats->error = w->mprotect_errno ? w->mprotect_errno :
				    w->mem_errno ? w->mem_errno : EBUSY;
	}
	r->nsites = 0;
	r->nrescues = 0;
}

/* Add a site's new bytes to the run, starting a new run if it does not
 * follow the last site closely enough. */
static void add_to_run(struct module *mod, struct run *r, uintptr_t at,
		       const uint8_t *bytes, unsigned len, int rescue)
{
	if (r->nsites && (at < r->hi || at + len - r->lo > r->max))
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

/* The module's part of the family of a site of op. */
static struct family *family_of(const struct module *mod, unsigned op)
{
	return (struct family *)&mod->fam[repstos_family_of(op)->id];
}

/*
 * The module's own routines, by variant and back: a site calls a
 * routine of its module (a rel32 call reaches no further), so every
 * address here is the module's, as it described itself.
 */
static uintptr_t routine_of(const struct module *mod, unsigned op, int v)
{
	return family_of(mod, op)->routine[v];
}

static int variant_by_routine(const struct module *mod, unsigned op,
			      uintptr_t target)
{
	const struct family *f = family_of(mod, op);
	int v;

	for (v = 0; target && v < (int)f->n; v++)
		if (f->routine[v] == target)
			return v;
	return -1;
}

/* The stub a site of op calls as the compiler left it. */
static uintptr_t stub_of(const struct module *mod, unsigned op)
{
	return family_of(mod, op)->stub;
}

/* The policy's form for site e, from the profile row h (or NULL). */
static int policy_form(const struct repstos_modules *m,
		       const struct repstos_site *e, const unsigned long long *h)
{
#if REPSTOS_PROFILES
	return repstos_policy_form(&tab->tuning, m, e, h);
#else
	/* without the profile's part, which is not linked here */
	(void)h;
	return repstos_policy_form_sized(&tab->tuning, m, e);
#endif
}

#if REPSTOS_PROFILES
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
		p->v = (unsigned char)policy_form(m, e, h);
	}
	return p->v;
}
#endif

/*
 * The policy's form for a site (repstos_policy_form), a variant of its
 * family, from its installed profile if any: a row without calls
 * chooses as no profile does.  A copy site's "inline" is rep movsb in
 * place only where its op allows it (wanted_bytes); elsewhere it calls
 * the overlap-checking routine.
 *
 * With a cost table, the form for a site of known size depends only on
 * its family, its entry version and the size classes its range spans,
 * and finding it weighs every form over those classes: 10,000 bounded
 * sites took 4.5 ms at start-up on the Zen 4.  A program has many sites
 * and few ranges, so each range is asked once per family (set; copy;
 * move, which may not take rep movsb in place) and narrowness, for
 * every module of the process (tab->picks: 0 not asked yet, else the
 * variant + 1).
 */
static int choice(const struct module *mod, const struct repstos_site *e,
		  const char **why)
{
	const struct repstos_family *f = repstos_family_of(e->op);
	const unsigned long long *h = mod && HIST(mod) ? HIST(mod)[e - mod->begin] :
						  NULL;
	const struct repstos_modules *m = &cfg.mods;
	/* set; copy that may go inline; move that may not */
	unsigned kind = f->id == REPSTOS_FAMILY_SET ? 0 :
			repstos_family_inline_ok(f, e->op) ? 1 : 2;
	int narrow = repstos_version_narrow(e->version);
	int forced = m->fam[f->id].forced;
	unsigned char *pick;

#if REPSTOS_PROFILES
	if (h && !repstos_profile_calls(h))
		h = NULL;
#endif
	*why = h ? "the size profile's counts" :
	       forced ? "REPSTOS_VARIANT" :
	       e->size_kind == REPSTOS_SIZE_UNKNOWN ? "size unknown: the process's routine" :
	       !cfg.cost_forms[f->id] ? "the rule for this CPU (no cost table row)" :
	       "the cost table over the site's sizes";
#if REPSTOS_PROFILES
	if (h && row_picks && !forced)
		return row_choice(m, e, h, kind * 2 + (unsigned)narrow);
#endif
	if (h || forced || e->size_kind == REPSTOS_SIZE_UNKNOWN ||
	    !cfg.cost_forms[f->id])
		return policy_form(m, e, h);
	pick = &tab->picks[narrow][kind][repstos_size_class(e->size_min)]
			  [repstos_size_class(e->size_max)];
	if (!*pick)
		*pick = 1 + (unsigned char)policy_form(m, e, NULL);
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

	for (e = mod->begin; e < mod->end; e++)
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

	if (RECORDING(mod)) {
		*form = "the profiling routine", *why = "REPSTOS_PROFILE";
		return repstos_encode_call(out, e->len, at,
					   family_of(mod, e->op)->profile);
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
	unsigned i = (unsigned)(e - mod->begin), n;
	char size[48];
	Dl_info info;

	if (cfg.debug < 2)
		return;
	n = (unsigned)(mod->end - mod->begin);
	if (i == DEBUG_SITES)
		fprintf(stderr, "repstos: %s: %u more sites not shown (the first "
			"%u of a module are)\n", module_name(mod),
			n - DEBUG_SITES, DEBUG_SITES);
	if (i >= DEBUG_SITES)
		return;
	snprintf(size, sizeof(size), e->size_kind == REPSTOS_SIZE_CONST ?
		 "size %u" : e->size_kind == REPSTOS_SIZE_BOUNDED ?
		 "size %u..%u" : "size unknown", e->size_min, e->size_max);
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
	/* a site of a family the module has no stub of: not ours */
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
		mod->stats->skipped++;
		debug_site(mod, e, "left alone", "not a form this runtime writes");
		return;
	}
	/* Only the compiler's form is ours to change: anything else was
	 * chosen by `repstos patch`, and stays, unless it cannot run here
	 * (or the sizes it sees are being recorded). */
	rescue = form == REPSTOS_FORM_CALL && unrunnable(mod, e->op, target);
	mod->stats->lacking += rescue;
	if (!rescue && !RECORDING(mod) &&
	    (form != REPSTOS_FORM_CALL || target != stub_of(mod, e->op))) {
		mod->stats->fixed++;
		debug_site(mod, e, "kept", "fixed ahead of time by repstos patch");
		return;
	}
	if (wanted_bytes(mod, e, at, want, &chose, &why) < 0) {
		mod->stats->skipped++;
		debug_site(mod, e, "left alone", "no routine for its choice");
		return;
	}
	debug_site(mod, e, chose, rescue ? "the file's choice cannot run here" : why);
	if (!memcmp(want, (const void *)at, e->len)) {
		mod->stats->kept++;
		return;
	}
	add_to_run(mod, r, at, want, e->len, rescue);
}

/* ---- recording sizes (REPSTOS_PROFILE) -------------------------------- */

/* REPSTOS_PROFILE names path, and this module's sizes cannot be
 * recorded: one line, whatever REPSTOS_DEBUG says, as nothing will be
 * written at exit either. */
static void not_recorded(const char *path, const char *name, const char *why)
{
	fprintf(stderr, "repstos: %s: profile of %s not recorded: %s\n",
		path, name, why);
}

#if REPSTOS_PROFILES
/* The profile installed for this module, if there is one it can use. */
static void read_profile(struct module *mod)
{
	const char *why = NULL;

	if (mod->begin == mod->end)
		return;
	if (repstos_prof_load(mod->begin, mod->end, &mod->hist,
			      &mod->profile, &why) < 0 && cfg.debug)
		fprintf(stderr, "repstos: %s: profile %s ignored: %s\n",
			module_name(mod), mod->profile ? mod->profile : "?", why);
}

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

/* Give every site the runtime may rewrite a slot, before any calls the
 * profiling routine. */
static void start_recording(struct module *mod)
{
	const struct repstos_site *b = mod->begin, *end = mod->end, *e;
	struct repstos_recorder *rec;
	enum repstos_form form;
	uintptr_t target;

	rec = repstos_prof_begin(cfg.record, mod->stats->sites);
	if (!rec) {
		not_recorded(cfg.record, module_name(mod),
			     strerror(errno ? errno : ENOMEM));
		return;
	}
	mod->record = 1;
	for (e = b; e < end; e++)
		if (!site_form(mod, e, &form, &target))
			repstos_prof_site(rec, (unsigned)(e - b),
					  repstos_site_addr(e),
					  profiled_routine(mod, e, form, target));
	if (repstos_prof_ready(rec, mod->prof,
			       (void *)mod->fam[REPSTOS_FAMILY_SET].routine[
					module_variant(mod, REPSTOS_FAMILY_SET)],
			       (void *)mod->fam[REPSTOS_FAMILY_COPY].routine[
					module_variant(mod, REPSTOS_FAMILY_COPY)],
			       repstos_table_hash(b, end), module_name(mod))) {
		not_recorded(cfg.record, module_name(mod),
			     strerror(errno ? errno : ENOMEM));
		mod->record = 0;
		return;
	}
	mod->rec = rec;
}

/* Can this module's sites call a profiling routine of its own? */
static int can_record(const struct module *mod)
{
	int c;

	for (c = 0; c < 2; c++)
		if (mod->fam[c].stub && !mod->fam[c].profile)
			return 0;
	return mod->prof != NULL;
}
#endif

/* Where size profiles are not linked: one line for a profile asked
 * to be recorded, as where one cannot be. */
#define NO_PROFILES "size profiles " NOT_LINKED

static void read_profiles(struct module *mod)
{
#if REPSTOS_PROFILES
	read_profile(mod);
	if (cfg.record && mod->stats->sites) {	/* something to count */
		if (can_record(mod))
			start_recording(mod);
		else
			not_recorded(cfg.record, module_name(mod), NO_PROFILES);
	}
#else
	const char *use = secure_getenv("REPSTOS_PROFILE_USE");

	if (cfg.record && mod->stats->sites)
		not_recorded(cfg.record, module_name(mod), NO_PROFILES);
	if (use && *use && cfg.debug && mod->stats->sites)
		fprintf(stderr, "repstos: %s: profile %s ignored: %s\n",
			module_name(mod), use, NO_PROFILES);
#endif
}

static const char *route_name(const struct writer *w)
{
	if (w->mprotect_ok)
		return "mprotect";
	if (w->mem_errno)
		return "";
	return "/proc/self/mem";
}

/* What a family's stub goes on to: the routine every unknown site of
 * the family gets, or while recording the profiling routine; 0 for a
 * family the module has no stub or no such routine of.  *choice: the
 * byte that sends the stub's fallback there (dispatch.S). */
static uintptr_t stub_routine(const struct module *mod, int c, unsigned *choice)
{
	const struct family *f = &mod->fam[c];
	unsigned v = (unsigned)module_variant(mod, c);

	if (!f->stub || v >= f->n || !f->routine[v])
		return 0;
	*choice = RECORDING(mod) ? f->profile_choice : v;
	return RECORDING(mod) ? f->profile : f->routine[v];
}

/* Rewrite the stubs' jumps like sites, where text may be written: the
 * stubs then go straight to the routine, and no data is read on the
 * way.  Where it cannot be written the byte (set_choices) still says.
 * Not a stub without a byte: a shared-runtime module's goes on through
 * the GOT to the shared stub, read-only all the way, and rewriting it
 * would cost every module of the process one more write. */
static void patch_stubs(struct module *mod)
{
	uint8_t want[REPSTOS_CALL_LEN];
	unsigned choice;
	uintptr_t to, at;
	int c, beside;

	for (c = 0; c < 2; c++) {
		at = (uintptr_t)mod->fam[c].jump;
		if (!at || !mod->fam[c].choice || *(const uint8_t *)at != 0xe9 ||
		    !(to = stub_routine(mod, c, &choice)) ||
		    repstos_encode_call(want, REPSTOS_CALL_LEN, at, to))
			continue;
		want[0] = 0xe9;			/* jmp rel32 */
		write_text(&mod->writer, at, want, sizeof(want), &beside);
	}
}

static void patch_sites(struct module *mod)
{
	uint8_t small[4 * REPSTOS_SITE_MAX_LEN];
	struct run run = { .max = RUN_MAX };
	struct writer *w = &mod->writer;
	const struct repstos_site *e;

	w->fd = -1;
	w->allowed = cfg.route;
	w->page_mask = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) - 1 : 4095;
	w->last_page = ~(uintptr_t)0;
	if (!(run.buf = malloc(RUN_MAX)))
		run.buf = small, run.max = sizeof(small);
#if REPSTOS_PROFILES
	if (mod->hist)		/* none: every site is chosen without it */
		row_picks = calloc(ROW_PICKS, sizeof(*row_picks));
#endif
	for (e = mod->begin; e < mod->end; e++)
		patch_site(mod, &run, e);
#if REPSTOS_PROFILES
	free(row_picks);
	row_picks = NULL;
#endif
	flush_run(mod, &run);
	if (run.buf != small)
		free(run.buf);
	if (cfg.route != ROUTE_OFF && !(mod->info->flags & REPSTOS_MOD_STATIC))
		patch_stubs(mod);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	mod->stats->status = w->unwritten && !mod->stats->patched ?
			     REPSTOS_ST_REFUSED : REPSTOS_ST_PATCHED;
	mod->stats->method = mod->stats->patched ? route_name(w) : "";
}

/* ---- reporting -------------------------------------------------------- */

/* The module's file, or the program's. */
static const char *module_name(const struct module *mod)
{
	Dl_info info;

	if (dladdr((const void *)mod->info, &info) && info.dli_fname &&
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
	else if (w->noprobe)
		fprintf(f, " (mprotect: no page of this start-up's file to "
			"probe first)");
	else if (w->crowded && e == EINVAL)
		fprintf(f, " (mprotect: another thread shares the address space)");
	else if (w->crowded)
		fprintf(f, " (mprotect: cannot tell if single-threaded: %s)",
			strerror(e));
	else if (e)
		fprintf(f, " (mprotect: %s)", strerror(e));
	if (w->beside)
		fprintf(f, " (mprotect: %u on the pages of its own window's "
			"code)", w->beside);
}

/* Sites calling a routine this CPU lacks are rewritten if text can be
 * written; if not, they stay, and that routine runs "vec" instead. */
static void report_static(const struct module *mod, FILE *f)
{
	unsigned stay = mod->stats->lacking - mod->stats->rescued;

	fprintf(f, "statically patched for '%.16s' by repstos patch: %u sites "
		"left as they are", (const char *)mod->info->profile,
		mod->stats->sites - mod->stats->rescued);
	if (mod->stats->rescued)
		fprintf(f, ", %u calling a routine this CPU lacks rewritten",
			mod->stats->rescued);
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
	const struct repstos_stats *st = mod->stats;

	switch (st->status) {
	case REPSTOS_ST_STATIC:
		report_static(mod, f);
		break;
	case REPSTOS_ST_DISABLED:
		fprintf(f, "text patching off (REPSTOS_PATCH=0): %u sites call "
			"the stub", st->sites);
		break;
	case REPSTOS_ST_REFUSED:
		fprintf(f, "%u sites, none patched: writing text refused",
			st->sites);
		report_refusals(&mod->writer, f);
		fprintf(f, "; sites stay stub calls");
		break;
	default:
		fprintf(f, "%u sites: %u patched, %u kept, %u fixed, %u skipped; "
			"%u pages", st->sites, st->patched, st->kept,
			st->fixed, st->skipped, st->pages);
		if (*st->method)
			fprintf(f, " via %s", st->method);
		if (mod->writer.unwritten)
			report_refusals(&mod->writer, f);
		fprintf(f, " in %llu us (patching %llu us)", st->nsec / 1000,
			st->patch_nsec / 1000);
	}
	if (HIST(mod))
		fprintf(f, "; sites chosen with the profile %s",
			mod->profile ? mod->profile : "installed");
	if (mod->narrow[0] || mod->narrow[1])
		fprintf(f, "; sites from an older plugin (entry version 1 or 2) "
			"and the stub get SSE or rep forms only");
	if (RECORDING(mod))
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
		cpu.family, cpu.model, feats,
		repstos_variant_names[cfg.mods.fam[REPSTOS_FAMILY_SET].variant],
		cfg.why,
		repstos_copy_variant_names[cfg.mods.fam[REPSTOS_FAMILY_COPY].variant],
		cfg.mods.fam[REPSTOS_FAMILY_COPY].forced ? " (forced)" : "");
	report_outcome(mod, stderr);
	if (!mod->fam[0].choice && !mod->fam[1].choice)
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
	const struct repstos_tuning *t = &tab->tuning;

	__atomic_store_n(mod->vec_rep_min, t->vec_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(mod->wide_rep_min, t->wide_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(mod->copy_rep_min, t->copy_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(mod->copy_nt_min, t->copy_nt_min, __ATOMIC_RELAXED);
	if (mod->short_rep_max)	/* NULL: a module of ABI 2 */
		__atomic_store_n(mod->short_rep_max, t->short_rep_max,
				 __ATOMIC_RELAXED);
	repstos_routines_enable(&cpu, mod->can_avx2, mod->can_avx512);
}

/* The stubs' bytes, where their fallback reads one: which routine it
 * goes on to (the profiling routine while recording, the last of the
 * record).  The copy stub serves move sites too: every copy routine,
 * "inline"'s called form included, handles overlap. */
static void set_choices(const struct module *mod)
{
	unsigned choice;
	int c;

	for (c = 0; c < 2; c++)
		if (mod->fam[c].choice && stub_routine(mod, c, &choice))
			__atomic_store_n(mod->fam[c].choice, choice,
					 __ATOMIC_RELEASE);
}

static int is_static(const struct module *mod)
{
	return (mod->info->flags & REPSTOS_MOD_STATIC) != 0;
}

/* The process's choice: once, whichever module starts first; -1 where
 * there is no memory for it.  Kept while a module is attached, so that
 * with librepstos.a in a library loaded and unloaded over and over it
 * is gone with the library.  With size profiles linked it needs no
 * heap (a profile that cannot be recorded for want of memory still
 * says so, tests/policy/lost.sh); without, every module of the
 * archive would carry the tuning tables in its .bss. */
#if REPSTOS_PROFILES
static struct tables tables;
#endif

static int configure(void)
{
	if (tab)
		return 0;
#if REPSTOS_PROFILES
	memset(&tables, 0, sizeof(tables));
	tab = &tables;
#else
	if (!(tab = calloc(1, sizeof(*tab))))
		return -1;
#endif
	memset(&cfg, 0, sizeof(cfg));
	repstos_cpu_detect(&cpu);
	read_config(&cfg);
	return 0;
}

static void unconfigure(void)
{
#if !REPSTOS_PROFILES
	free(tab);
#endif
	tab = NULL;
}

static void start(struct module *mod)
{
	unsigned long long t0 = now_ns();

	mod->stats->sites = (unsigned)(mod->end - mod->begin);
	find_narrow(mod);
	read_profiles(mod);
	set_routines(mod);
	set_choices(mod);
	if (cfg.route == ROUTE_OFF && !is_static(mod)) {
		mod->stats->status = REPSTOS_ST_DISABLED;
	} else {
		unsigned long long t1 = now_ns();

		/* A static file's sites are all someone else's choice: the
		 * walk only rescues calls of routines this CPU lacks (with
		 * text patching off, it only counts them). */
		patch_sites(mod);
		mod->stats->patch_nsec = now_ns() - t1;
		if (is_static(mod) && !RECORDING(mod))
			mod->stats->status = REPSTOS_ST_STATIC;
	}
	mod->stats->tuning = tab->tuning.source;
	mod->stats->nsec = now_ns() - t0;
	if (cfg.debug)
		report(mod);
}

/* ---- what a module hands over ------------------------------------------ */

/* Its description (ABI 4, module.h): the families its dispatch records
 * name, and the rest.  0, or -1 when it is not one this start-up knows. */
static int take(struct module *mod, const struct repstos_module_desc *d)
{
	const struct repstos_dispatch *r;
	unsigned i, n;

	if (d->abi != REPSTOS_MODULE_ABI || d->size != sizeof(*d))
		return -1;
	for (i = 0; i < REPSTOS_DESC_PLACES; i++)
		mod->place[i] = repstos_rel_addr(&d->place[i]);
	for (r = mod->dispatch; r && r < mod->dispatch_end;
	     r = repstos_dispatch_next(r)) {
		struct family *f = &mod->fam[r->copy & 1];

		if (r->copy > 1)	/* a family newer than this start-up */
			continue;
		n = r->copy ? REPSTOS_COPY_VARIANT_COUNT : REPSTOS_VARIANT_COUNT;
		f->n = r->n < n ? r->n : n;	/* a newer module's extra
						 * routines: not known here */
		f->stub = (uintptr_t)repstos_rel_addr(&r->stub);
		f->jump = (uint8_t *)f->stub + r->jmp;
		f->choice = repstos_rel_addr(&r->choice);
		for (i = 0; i < f->n; i++)
			f->routine[i] = (uintptr_t)repstos_rel_addr(&r->routine[i]);
		f->profile = (uintptr_t)repstos_rel_addr(&r->routine[r->n]);
		f->profile_choice = r->n;
	}
	return mod->stats && mod->fam[0].stub + mod->fam[1].stub ? 0 : -1;
}

#ifdef REPSTOS_SHARED
/* The description of a module of ABI 2 or 3, as their constructors
 * built it (module.h): a module of the shared runtime from before ABI 4,
 * whose stubs jump through the GOT to the shared ones and are not ours
 * to rewrite.  One of ABI 2 (before short_rep_max) is the same up to it. */
static int take_v3(struct module *mod, const struct repstos_module_v3 *m)
{
	unsigned v;

	if (!((m->abi == 3 && m->size == sizeof(*m)) ||
	      (m->abi == 2 && m->size == offsetof(struct repstos_module_v3,
						  short_rep_max))) ||
	    !m->stats || !m->set_stub)
		return -1;
	mod->begin = m->begin;
	mod->end = m->end;
	mod->info = m->info;
	mod->stats = m->stats;
	mod->prof = m->prof;
	mod->vec_rep_min = m->vec_rep_min;
	mod->wide_rep_min = m->wide_rep_min;
	mod->short_rep_max = m->abi == 3 ? m->short_rep_max : NULL;
	mod->copy_rep_min = m->copy_rep_min;
	mod->copy_nt_min = m->copy_nt_min;
	mod->can_avx2 = m->can_avx2;
	mod->can_avx512 = m->can_avx512;
	mod->fam[0].stub = (uintptr_t)m->set_stub;
	mod->fam[0].profile = (uintptr_t)m->profile;
	mod->fam[0].n = REPSTOS_V3_VARIANTS;
	for (v = 0; v < REPSTOS_V3_VARIANTS; v++)
		mod->fam[0].routine[v] = (uintptr_t)m->set_routine[v];
	if (m->copy_stub) {
		mod->fam[1].stub = (uintptr_t)m->copy_stub;
		mod->fam[1].profile = (uintptr_t)m->copy_profile;
		mod->fam[1].n = REPSTOS_V3_COPY_VARIANTS;
		for (v = 0; v < REPSTOS_V3_COPY_VARIANTS; v++)
			mod->fam[1].routine[v] = (uintptr_t)m->copy_routine[v];
	}
	return 0;
}
#endif

/* Does the start-up know the module's description?  A module built
 * against a newer runtime than the shared one loaded keeps its sites
 * calling the stub: correct, one jump slower. */
static int take_any(struct module *mod, const void *desc)
{
#ifdef REPSTOS_SHARED
	const unsigned *abi = desc;

	if (*abi == 2 || *abi == 3)
		return take_v3(mod, desc);
#endif
	return take(mod, desc);
}

/* No memory even to start a module: its sites stay calls of the stub,
 * correct; a profile being recorded says what it misses.  Before the
 * configuration is read: REPSTOS_PROFILE as read_config() reads it. */
static void not_started(const struct module *mod)
{
#if REPSTOS_PROFILES
	const char *path = secure_getenv("REPSTOS_PROFILE");

	if (path && *path)
		not_recorded(path, module_name(mod), strerror(ENOMEM));
#endif
}

static void free_module(struct module *mod)
{
#if REPSTOS_PROFILES
	free(mod->hist);
	free(mod->profile);
#endif
	free(mod);
}

/*
 * A module's constructor (module.c) hands it over: run in the loader's
 * order, one at a time (the dynamic loader holds its lock through
 * constructors and destructors, dlopen()'s and dlclose()'s included).
 * The module stays known for the API calls below until its destructor
 * lets go (__repstos_detach).  Every module's state is on the heap, and
 * goes with it.
 */
void *__repstos_attach(const void *desc)
{
	struct module m = { .hist = NULL }, *mod;

	if (take_any(&m, desc))
		return NULL;
	if (!(mod = malloc(sizeof(*mod))) || configure()) {
		not_started(&m);
		free(mod);
		return NULL;
	}
	*mod = m;
	attached++;
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
#if REPSTOS_PROFILES
	if (mod->rec)
		repstos_prof_end(mod->rec);
#endif
	free_module(mod);
	if (!--attached)
		unconfigure();
}

/* ---- the API's backends (api.c) --------------------------------------- */

const struct repstos_cpu *__repstos_process_cpu(void)
{
	configure();
	return &cpu;
}

enum repstos_variant __repstos_process_variant(void)
{
	return configure() ? REPSTOS_VARIANT_ORIGINAL :
	       (enum repstos_variant)cfg.mods.fam[REPSTOS_FAMILY_SET].variant;
}

enum repstos_copy_variant __repstos_process_copy_variant(void)
{
	return configure() ? REPSTOS_COPY_VARIANT_ORIGINAL :
	       (enum repstos_copy_variant)cfg.mods.fam[REPSTOS_FAMILY_COPY].variant;
}

enum repstos_variant __repstos_module_site_variant(void *handle,
						   const struct repstos_site *e)
{
	const char *why;

	if (configure())
		return REPSTOS_VARIANT_ORIGINAL;
	return (enum repstos_variant)choice(handle, e, &why);
}
