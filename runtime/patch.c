// SPDX-License-Identifier: MIT
/*
 * patch.c - the start-up patcher: before main (or before a dlopen()ed
 * module's own code runs), pick a routine per site and rewrite the site.
 *
 * Writing code keeps W^X at every moment.  Two routes, tried in order:
 *
 *  1. pwrite() to /proc/self/mem.  The kernel writes through to the
 *     private copy of the page as a debugger would; the page is never
 *     writable in this process's page tables and never stops being
 *     executable, so code sharing a page with a site (this file's own,
 *     libc's in a static binary, the PLT) runs on undisturbed.
 *  2. mprotect(): the page goes read-write (not executable), the bytes
 *     are copied, the page goes read-execute.  Nothing on the page may
 *     run meanwhile, so that window is one assembly routine on pages of
 *     its own (__repstos_poke in variants.S), which blocks every signal
 *     and opens only if no other task shares the address space; and a
 *     probe on a page of its own first checks that a written page may
 *     become executable again (SELinux execmod says no): only then is
 *     real code touched.  A process with threads, or one that cannot
 *     tell, never takes this route.
 *
 * If both are refused, sites stay calls to the stub, which jumps to the
 * chosen routine: correct, per CPU, one indirect jump slower.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "policy.h"
#include "profrun.h"
#include "routines.h"
#include "sitecode.h"

#define HIDDEN __attribute__((visibility("hidden")))

extern const struct repstos_site REPSTOS_SITES_START[] HIDDEN __attribute__((weak));
extern const struct repstos_site REPSTOS_SITES_STOP[] HIDDEN __attribute__((weak));
extern const volatile struct repstos_module_info REPSTOS_MODULE_SYMBOL HIDDEN;

/*
 * The dispatch page (dispatch.S), alone on its page: the stub's target,
 * set before any site is rewritten (until then __repstos_original,
 * correct on every x86-64); and the bytes that let "avx2", "avx512" run
 * (each runs "vec" at 0), so a site that calls one runs anywhere even
 * when its text stays as it is (a file `repstos patch` fixed for a
 * richer CPU, with text patching off or refused).  Read-only once set:
 * seal_dispatch().
 */
static int seal_errno;		/* why the page stayed writable, or 0 */
extern char __repstos_probe_page[] HIDDEN;
long __repstos_poke(void *page, size_t plen, void *dst, const void *src,
		    size_t n) HIDDEN;

enum route { ROUTE_AUTO, ROUTE_MEM, ROUTE_MPROTECT, ROUTE_OFF };

struct config {
	struct repstos_tuning tuning;	/* policy, or the tuning file */
	int forced;			/* REPSTOS_VARIANT named a variant */
	int debug;			/* REPSTOS_DEBUG=1 */
	enum route route;		/* REPSTOS_PATCH */
	enum repstos_variant variant;	/* the module-wide choice */
	enum repstos_copy_variant copy_variant; /* the same for copy sites */
	int copy_forced;		/* REPSTOS_VARIANT named a copy variant */
	const char *why;
	unsigned long long (*hist)[REPSTOS_NCLASS]; /* an installed profile's
					 * calls per site and class, or NULL */
	const char *profile;		/* its file */
	const char *record;		/* REPSTOS_PROFILE: recording to it */
	unsigned cost_forms;		/* repstos_cost_forms(&tuning.costs) */
};

/* Where the sites of one run go: the mem file, or the mprotect route. */
struct writer {
	int fd;			/* /proc/self/mem, or -1 */
	int mem_errno;		/* why the mem route failed, or 0 */
	int mprotect_ok;	/* probe passed */
	int mprotect_errno;	/* why the mprotect route failed, or 0 */
	int crowded;		/* ... because it may not be alone: see alone() */
	enum route allowed;
	uintptr_t page_mask;
	uintptr_t last_page;	/* last page counted in stats.pages */
	unsigned unwritten;	/* sites no route could write */
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
static struct repstos_stats stats = { .method = "" };
static struct config cfg;
static struct writer writer = { .fd = -1 };

static const char *module_name(void);

static void warn(const char *fmt, const char *arg)
{
	fprintf(stderr, "repstos: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* REPSTOS_VARIANT=name picks the copy routine of that name too, where
 * there is one this CPU can run; copy sites keep the policy's otherwise. */
static void read_copy_variant(struct config *c, const char *v)
{
	int n = v ? repstos_copy_variant_by_name(v) : -1;

	c->copy_variant = (enum repstos_copy_variant)c->tuning.copy_variant;
	if (n >= 0 && repstos_policy_copy_supported(&cpu, n)) {
		c->copy_variant = (enum repstos_copy_variant)n;
		c->copy_forced = 1;
	}
}

static void read_variant(struct config *c)
{
	const char *v = secure_getenv("REPSTOS_VARIANT");
	int n;

	c->variant = (enum repstos_variant)c->tuning.variant;
	c->why = c->tuning.source;
	if (!v || !*v || !strcmp(v, "auto"))
		v = NULL;
	read_copy_variant(c, v);
	if (!v)
		return;
	n = repstos_variant_by_name(v);
	if (n < 0 && c->copy_forced)
		return;			/* a copy routine's name only */
	if (n < 0) {
		warn("unknown REPSTOS_VARIANT '%s', using auto", v);
		return;
	}
	if (!repstos_policy_supported(&cpu, (enum repstos_variant)n)) {
		warn("REPSTOS_VARIANT '%s' needs instructions this CPU lacks, "
		     "using auto", v);
		return;
	}
	c->variant = (enum repstos_variant)n;
	c->forced = 1;
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
 * (runtime/policy.c reads it; one open() when there is none).  A
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
static void read_profile(struct config *c)
{
	const char *why = NULL;

	if (repstos_sites_begin() == repstos_sites_end())
		return;
	if (repstos_prof_load(repstos_sites_begin(), repstos_sites_end(),
			      &c->hist, &c->profile, &why) < 0 && c->debug)
		fprintf(stderr, "repstos: %s: profile %s ignored: %s\n",
			module_name(), c->profile, why);
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

	c->debug = d && *d && strcmp(d, "0");
	read_cpu();
	read_tuning(c);
	c->cost_forms = repstos_cost_forms(&c->tuning.costs);
	read_variant(c);
	read_route(c);
	read_profile(c);
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

/* Can a written page of this module become executable again?  Ask on a
 * page nothing executes before asking on one that matters. */
static int probe_mprotect(struct writer *w)
{
	long r;

	if (w->mprotect_ok || w->mprotect_errno)
		return w->mprotect_ok;
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

static void count_pages(struct writer *w, uintptr_t lo, uintptr_t hi)
{
	uintptr_t p;

	for (p = lo & ~w->page_mask; p < hi; p += w->page_mask + 1)
		if (p != w->last_page) {
			stats.pages++;
			w->last_page = p;
		}
}

static void flush_run(struct writer *w, struct run *r)
{
	if (!r->nsites)
		return;
	if (write_text(w, r->lo, r->buf, r->hi - r->lo) == 0) {
		stats.patched += r->nsites;
		stats.rescued += r->nrescues;
		count_pages(w, r->lo, r->hi);
	} else {
		stats.skipped += r->nsites;
		w->unwritten += r->nsites;
		stats.error = w->mprotect_errno ? w->mprotect_errno : w->mem_errno;
	}
	r->nsites = 0;
	r->nrescues = 0;
}

/* Add a site's new bytes to the run, starting a new run if it does not
 * follow the last site closely enough. */
static void add_to_run(struct writer *w, struct run *r, uintptr_t at,
		       const uint8_t *bytes, unsigned len, int rescue)
{
	if (r->nsites && (at < r->hi || at + len - r->lo > RUN_MAX))
		flush_run(w, r);
	if (!r->nsites)
		r->lo = r->hi = at;
	memcpy(r->buf + (r->hi - r->lo), (const void *)r->hi, at - r->hi);
	memcpy(r->buf + (at - r->lo), bytes, len);
	r->hi = at + len;
	r->nsites++;
	r->nrescues += rescue;
}

/* ---- deciding --------------------------------------------------------- */

/* Is target a routine a site of op may call? */
static int is_routine(unsigned op, uintptr_t target)
{
	if (repstos_op_is_copy(op))
		return repstos_copy_variant_by_routine((const void *)target) >= 0;
	return repstos_variant_by_routine((const void *)target) >= 0;
}

/* The stub a site of op calls as the compiler left it. */
static uintptr_t stub_of(unsigned op)
{
	return repstos_op_is_copy(op) ? (uintptr_t)__repstos_copy_stub :
					(uintptr_t)__repstos_stub;
}

/*
 * With a cost table, the policy's form for a site of known size depends
 * only on the size classes its range spans, and finding it weighs every
 * form over those classes: 10,000 bounded sites took 4.5 ms at start-up
 * on the Zen 4.  A program has many sites and few ranges, so each range
 * is asked once.  0: not asked yet, else the variant + 1.
 */
static unsigned char picks[REPSTOS_NCLASS][REPSTOS_NCLASS];

/* The policy's form for a site, from its installed profile if any. */
static enum repstos_variant site_choice(const struct repstos_site *e)
{
	const unsigned long long *h = NULL;
	unsigned char *pick;

	if (cfg.hist)
		h = cfg.hist[e - repstos_sites_begin()];
	if (h || cfg.forced || e->size_kind == REPSTOS_SIZE_UNKNOWN ||
	    !cfg.cost_forms)
		return repstos_policy_site_profiled(&cfg.tuning, cfg.variant,
						    cfg.forced, e, h);
	pick = &picks[repstos_size_class(e->size_min)]
		     [repstos_size_class(e->size_max)];
	if (!*pick)
		*pick = 1 + (unsigned char)repstos_policy_site_tuned(&cfg.tuning,
						cfg.variant, 0, e);
	return (enum repstos_variant)(*pick - 1);
}

/* The bytes a site should have; 0, or -1 if the entry cannot be used.
 * While recording, every site calls the profiling routine. */
/* A copy site's: inline rep movsb only where the op allows it (a move
 * site whose choice is "inline" calls its overlap-checking routine). */
static int wanted_copy_bytes(const struct repstos_site *e, uintptr_t at,
			     uint8_t *out)
{
	enum repstos_copy_variant v = repstos_policy_copy_site(&cfg.tuning,
						cfg.copy_variant, cfg.copy_forced, e);

	if (repstos_copy_form_inline(v, e->op))
		return repstos_encode_inline(out, e->len, e->op);
	return repstos_encode_call(out, e->len, at,
				   (uintptr_t)repstos_copy_variant_routine(v));
}

static int wanted_bytes(const struct repstos_site *e, uintptr_t at,
			uint8_t *out)
{
	enum repstos_variant v;

	/* Copy sites are not profiled (yet): they get their routine. */
	if (repstos_op_is_copy(e->op))
		return wanted_copy_bytes(e, at, out);
	if (cfg.record)
		return repstos_encode_call(out, e->len, at,
					   (uintptr_t)__repstos_profile);
	v = site_choice(e);
	if (v == REPSTOS_VARIANT_INLINE)
		return repstos_encode_inline(out, e->len, e->op);
	return repstos_encode_call(out, e->len, at,
				   (uintptr_t)repstos_variant_routine(v));
}

/* A call of a routine this CPU cannot run: a file patched ahead of time
 * for another machine (`repstos patch --cpu=zen5` run on a CPU without
 * AVX-512).  Such a site is rewritten whoever chose it. */
static int unrunnable(unsigned op, uintptr_t target)
{
	int v;

	if (repstos_op_is_copy(op)) {
		v = repstos_copy_variant_by_routine((const void *)target);
		return v >= 0 && !repstos_policy_copy_supported(&cpu, v);
	}
	v = repstos_variant_by_routine((const void *)target);
	return v >= 0 && !repstos_policy_supported(&cpu, v);
}

/* What the site holds: 0, *form and *target (of a call), or -1 when it
 * is none of the forms this runtime writes and must be left alone. */
static int site_form(const struct repstos_site *e, enum repstos_form *form,
		     uintptr_t *target)
{
	uintptr_t at = repstos_site_addr(e);

	if (e->op >= REPSTOS_OP_COUNT || e->version != repstos_op_version(e->op))
		return -1;
	*target = 0;
	*form = repstos_decode((const uint8_t *)at, e->len, at, e->op, target);
	if (*form == REPSTOS_FORM_BAD ||
	    (*form == REPSTOS_FORM_CALL && *target != stub_of(e->op) &&
	     !is_routine(e->op, *target)))
		return -1;
	/* rep movsb in a move site copies forwards blindly: not ours */
	if (*form == REPSTOS_FORM_INLINE && !repstos_copy_inline_ok(e->op) &&
	    repstos_op_is_copy(e->op))
		return -1;
	return 0;
}

static void patch_site(struct writer *w, struct run *r,
		       const struct repstos_site *e)
{
	int rescue;

	uintptr_t at = repstos_site_addr(e), target = 0;
	uint8_t want[REPSTOS_SITE_MAX_LEN];
	enum repstos_form form;

	if (site_form(e, &form, &target)) {
		stats.skipped++;
		return;
	}
	/* Only the compiler's form is ours to change: anything else was
	 * chosen by `repstos patch`, and stays, unless it cannot run here
	 * (or the sizes it sees are being recorded). */
	rescue = form == REPSTOS_FORM_CALL && unrunnable(e->op, target);
	stats.lacking += rescue;
	if (!rescue && (!cfg.record || repstos_op_is_copy(e->op)) &&
	    (form != REPSTOS_FORM_CALL || target != stub_of(e->op))) {
		stats.fixed++;
		return;
	}
	if (wanted_bytes(e, at, want) < 0) {
		stats.skipped++;
		return;
	}
	if (!memcmp(want, (const void *)at, e->len)) {
		stats.kept++;
		return;
	}
	add_to_run(w, r, at, want, e->len, rescue);
}

/* ---- recording sizes (REPSTOS_PROFILE) -------------------------------- */

/* What a profiled site goes on to run: what it would run unprofiled. */
static void *profiled_routine(const struct repstos_site *e,
			      enum repstos_form form, uintptr_t target)
{
	if (form == REPSTOS_FORM_INLINE)
		return repstos_variant_routine(REPSTOS_VARIANT_INLINE);
	if (target != (uintptr_t)__repstos_stub && !unrunnable(e->op, target))
		return (void *)target;
	return repstos_variant_routine(site_choice(e));
}

/* Give every site the runtime may rewrite a slot, before any calls the
 * profiling routine. */
static void start_recording(void)
{
	const struct repstos_site *b = repstos_sites_begin();
	const struct repstos_site *end = repstos_sites_end(), *e;
	enum repstos_form form;
	uintptr_t target;

	if (repstos_prof_begin(cfg.record, stats.sites)) {
		warn("cannot record a profile: %s", strerror(errno));
		cfg.record = NULL;
		return;
	}
	for (e = b; e < end; e++)
		if (!repstos_op_is_copy(e->op) && !site_form(e, &form, &target))
			repstos_prof_site((unsigned)(e - b), repstos_site_addr(e),
					  profiled_routine(e, form, target));
	repstos_prof_ready(repstos_variant_routine(cfg.variant),
			   repstos_table_hash(b, end), module_name());
}

static const char *route_name(const struct writer *w)
{
	if (w->mprotect_ok)
		return "mprotect";
	if (w->mem_errno)
		return "";
	return "/proc/self/mem";
}

static void patch_sites(void)
{
	static struct run run;
	struct writer *w = &writer;
	const struct repstos_site *e;

	w->allowed = cfg.route;
	w->page_mask = getauxval(AT_PAGESZ) ? getauxval(AT_PAGESZ) - 1 : 4095;
	w->last_page = ~(uintptr_t)0;
	for (e = repstos_sites_begin(); e < repstos_sites_end(); e++)
		patch_site(w, &run, e);
	flush_run(w, &run);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	stats.status = w->unwritten && !stats.patched ? REPSTOS_ST_REFUSED :
							 REPSTOS_ST_PATCHED;
	stats.method = stats.patched ? route_name(w) : "";
}

/* ---- reporting -------------------------------------------------------- */

static const char *module_name(void)
{
	Dl_info info;

	if (dladdr((void *)&cpu, &info) && info.dli_fname && *info.dli_fname)
		return info.dli_fname;
	return program_invocation_name;
}

/* Why each route that was tried said no. */
static void report_refusals(FILE *f)
{
	int e = writer.mprotect_errno;

	if (writer.mem_errno)
		fprintf(f, " (/proc/self/mem: %s)", strerror(writer.mem_errno));
	if (writer.crowded && e == EINVAL)
		fprintf(f, " (mprotect: another thread shares the address space)");
	else if (writer.crowded)
		fprintf(f, " (mprotect: cannot tell if single-threaded: %s)",
			strerror(e));
	else if (e)
		fprintf(f, " (mprotect: %s)", strerror(e));
}

/* Sites calling a routine this CPU lacks are rewritten if text can be
 * written; if not, they stay, and that routine runs "vec" instead. */
static void report_static(FILE *f)
{
	unsigned stay = stats.lacking - stats.rescued;

	fprintf(f, "statically patched for '%.16s' by repstos patch: %u sites "
		"left as they are", (const char *)REPSTOS_MODULE_SYMBOL.profile,
		stats.sites - stats.rescued);
	if (stats.rescued)
		fprintf(f, ", %u calling a routine this CPU lacks rewritten",
			stats.rescued);
	if (!stay)
		return;
	fprintf(f, ", %u of them calling a routine this CPU lacks, which "
		"runs vec in its place", stay);
	if (cfg.route == ROUTE_OFF) {
		fprintf(f, ": text patching off (REPSTOS_PATCH=0)");
	} else {
		fprintf(f, ": writing text refused");
		report_refusals(f);
	}
}

static void report_outcome(FILE *f)
{
	switch (stats.status) {
	case REPSTOS_ST_STATIC:
		report_static(f);
		break;
	case REPSTOS_ST_DISABLED:
		fprintf(f, "text patching off (REPSTOS_PATCH=0): %u sites call "
			"the stub", stats.sites);
		break;
	case REPSTOS_ST_REFUSED:
		fprintf(f, "%u sites, none patched: writing text refused", stats.sites);
		report_refusals(f);
		fprintf(f, "; sites stay stub calls");
		break;
	default:
		fprintf(f, "%u sites: %u patched, %u kept, %u fixed, %u skipped; "
			"%u pages", stats.sites, stats.patched, stats.kept,
			stats.fixed, stats.skipped, stats.pages);
		if (*stats.method)
			fprintf(f, " via %s", stats.method);
		if (writer.unwritten)
			report_refusals(f);
		fprintf(f, " in %llu us (patching %llu us)", stats.nsec / 1000,
			stats.patch_nsec / 1000);
	}
	if (cfg.hist)
		fprintf(f, "; sites chosen with the profile %s", cfg.profile);
	if (cfg.record)
		fprintf(f, "; recording sizes to %s", cfg.record);
}

static void report(void)
{
	char feats[128];

	repstos_feature_names(cpu.features, feats, sizeof(feats));
	fprintf(stderr, "repstos: %s: cpu %s family 0x%x model 0x%x [%s]; "
		"variant %s (%s), copy %s%s; ", module_name(),
		cpu.vendor == REPSTOS_VENDOR_INTEL ? "intel" :
		cpu.vendor == REPSTOS_VENDOR_AMD ? "amd" : "other",
		cpu.family, cpu.model, feats, repstos_variant_names[cfg.variant],
		cfg.why, repstos_copy_variant_names[cfg.copy_variant],
		cfg.copy_forced ? " (forced)" : "");
	report_outcome(stderr);
	if (seal_errno)
		fprintf(stderr, "; dispatch pointer left writable (%s)",
			strerror(seal_errno));
	fputc('\n', stderr);
}

/* ---- start-up --------------------------------------------------------- */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void set_routines(void)
{
	const struct repstos_tuning t = cfg.tuning;

	__atomic_store_n(&__repstos_vec_rep_min, t.vec_rep_min,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&__repstos_wide_rep_min, t.wide_rep_min,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&__repstos_copy_rep_min, t.copy_rep_min,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&__repstos_copy_nt_min, t.copy_nt_min,
			 __ATOMIC_RELAXED);
	repstos_routines_enable(&cpu);
	__atomic_store_n(&REPSTOS_TARGET_SYMBOL, cfg.record ?
			 (void *)__repstos_profile :
			 repstos_variant_routine(cfg.variant), __ATOMIC_RELEASE);
	/* The copy stub serves move sites too: every copy routine, "inline"'s
	 * called form included, handles overlap. */
	__atomic_store_n(&REPSTOS_COPY_TARGET_SYMBOL,
			 repstos_copy_variant_routine(cfg.copy_variant),
			 __ATOMIC_RELEASE);
}

/* Nothing may write the dispatch page again: as RELRO does for a
 * module's other pointers, but for values chosen at run time, so also
 * where the link has no RELRO and in static programs.  Taking write
 * permission away needs no permission, so a hardened policy that refuses
 * text writing does not stop this. */
static void seal_dispatch(void)
{
	uintptr_t page = (uintptr_t)__repstos_dispatch_page;

	if (getauxval(AT_PAGESZ) != REPSTOS_DISPATCH_PAGE || page % REPSTOS_DISPATCH_PAGE)
		seal_errno = EINVAL;
	else if (mprotect(__repstos_dispatch_page, REPSTOS_DISPATCH_PAGE, PROT_READ))
		seal_errno = errno;
}

static int is_static(void)
{
	return (REPSTOS_MODULE_SYMBOL.flags & REPSTOS_MOD_STATIC) != 0;
}

/* Priority 101, the first a program may use: the sites should be final
 * before any other constructor of this module calls one, which also keeps
 * Valgrind exact (it has translated no site yet). */
__attribute__((constructor(101))) static void repstos_init(void)
{
	unsigned long long t0 = now_ns();

	repstos_cpu_detect(&cpu);
	read_config(&cfg);
	stats.sites = (unsigned)(repstos_sites_end() - repstos_sites_begin());
	if (cfg.record && stats.sites)	/* the module has something to count */
		start_recording();
	else
		cfg.record = NULL;
	set_routines();
	seal_dispatch();
	if (cfg.route == ROUTE_OFF && !is_static()) {
		stats.status = REPSTOS_ST_DISABLED;
	} else {
		unsigned long long t1 = now_ns();

		/* A static file's sites are all someone else's choice: the
		 * walk only rescues calls of routines this CPU lacks (with
		 * text patching off, it only counts them). */
		patch_sites();
		stats.patch_nsec = now_ns() - t1;
		if (is_static() && !cfg.record)
			stats.status = REPSTOS_ST_STATIC;
	}
	stats.tuning = cfg.tuning.source;
	stats.nsec = now_ns() - t0;
	if (cfg.debug)
		report();
}

/* ---- the API (repstos.h) ---------------------------------------------- */

const struct repstos_cpu *repstos_cpu(void)
{
	return &cpu;
}

enum repstos_variant repstos_variant(void)
{
	return cfg.variant;
}

enum repstos_copy_variant repstos_copy_variant(void)
{
	return cfg.copy_variant;
}

enum repstos_variant repstos_site_variant(const struct repstos_site *e)
{
	return site_choice(e);
}

const struct repstos_site *repstos_sites_begin(void)
{
	return REPSTOS_SITES_START;
}

const struct repstos_site *repstos_sites_end(void)
{
	return REPSTOS_SITES_STOP ? REPSTOS_SITES_STOP : REPSTOS_SITES_START;
}

const struct repstos_stats *repstos_stats(void)
{
	return &stats;
}
