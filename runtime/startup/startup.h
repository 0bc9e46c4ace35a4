/* SPDX-License-Identifier: MIT */
/*
 * startup.h - what the start-up's files share (config.c, write.c,
 * decide.c, patch.c, attach.c): the start-up patcher, before main (or before a dlopen()ed
 * module's own code runs), pick a routine per site and rewrite the site.
 *
 * One module at a time, as its constructor (module.c) hands it over
 * (__repstos_attach); what the process chose (the CPU, the environment,
 * the tuning file) is read once, by the first.  Linked into each module
 * from librepstos.a, or once a process in librepstos.so.0 (abi.h).
 * Size profiles (REPSTOS_PROFILE, REPSTOS_PROFILE_USE and installed
 * ones) are compiled in with -DREPSTOS_PROFILES and the tuning file's
 * reader with -DREPSTOS_TUNING_FILE: in the shared runtime and
 * librepstos-full.a, not in librepstos.a (runtime.mk).
 *
 * Writing code keeps W^X at every moment.  Two routes, tried in order:
 *
 *  1. pwrite() to /proc/self/mem, where that is the proc file system's
 *     (a tmpfs on /proc with a regular file there takes nothing).  The
 *     kernel writes through to the private copy of the page as a
 *     debugger would; the page is never writable in this process's page
 *     tables and never stops being executable, so code sharing a page
 *     with a site (this file's own, libc's in a static binary, the PLT)
 *     runs on undisturbed.  The copy is done within the one system call
 *     (no signal handler of this thread sees half of it), but in place:
 *     another thread fetching a call while its rel32 is half written
 *     would jump anywhere, so as for route 2 the process must be alone.
 *  2. mprotect(): the pages go read-write (not executable), the bytes
 *     are copied, the pages go read-execute.  Nothing on them may run
 *     meanwhile, so that window is one assembly routine (__repstos_poke,
 *     poke.S), which blocks every signal, and it is never opened on a
 *     page that holds a byte of that routine (the sites there stay
 *     calls to the stub); and a probe first checks, on a page of this
 *     start-up's own file that nothing executes (a read-only segment's),
 *     that a written page may become executable again (SELinux execmod
 *     says no): only then is real code touched.  Not under
 *     READ_IMPLIES_EXEC, where the read-write window would come back
 *     executable too.
 *
 * Alone means no other thread, by glibc's word or the count under
 * /proc/self/task (crowded), not by a system call such as unshare(2)
 * that a seccomp allow-list may kill the process for.  A process with
 * threads, or one that cannot tell, writes nothing.
 *
 * If both are refused, sites stay calls to the stub, which goes to the
 * chosen routine through its family's choice byte (dispatch.S): correct,
 * per CPU, a few instructions slower.  Where text can be written the
 * stub's own jump is rewritten too, straight to that routine.
 */
#ifndef REPSTOS_STARTUP_H
#define REPSTOS_STARTUP_H

/* The functions the files share: static where startup.c takes them as
 * one unit, so that the compiler may inline them as in one file. */
#ifdef REPSTOS_STARTUP_UNITY
#define STARTUP_FN static
#else
#define STARTUP_FN
#endif

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
#include "abi.h"

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
#define PINS(mod)	((mod)->pin)
#define RECORDING(mod)	((mod)->record)
#else
#define HIST(mod)	((unsigned long long (*)[REPSTOS_NCLASS])NULL)
#define PINS(mod)	((unsigned char *)NULL)
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
	int crowded;		/* ... because it may not be alone (EINVAL),
				 * or cannot tell (why): crowded() */
	int rie;		/* ... because of READ_IMPLIES_EXEC */
	int noprobe;		/* ... because no page could be probed */
	unsigned beside;	/* sites it left: on the window's own pages */
	enum route allowed;
	uintptr_t page_mask;
	uintptr_t last_page;	/* last page counted in stats->pages */
	unsigned unwritten;	/* sites no route could write */
};

/* One family of a module's sites, as its dispatch record describes it
 * (abi.h): the stub, its jump, its byte, its routines by variant. */
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
		struct {	/* in the description's order (abi.h) */
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
#if REPSTOS_PROFILES
	/* last, so that a start-up without profiles lays out the rest as
	 * before */
	unsigned char *pin;	/* the installed profile's pins, or NULL */
#endif
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

#if REPSTOS_PROFILES
/* The forms of the rows of counts profiled sites had, while one module's
 * sites are walked (decide.c, row_choice). */
#define ROW_PICKS 1024
struct row_pick {
	unsigned long long h[REPSTOS_NCLASS];
	unsigned char key;	/* kind + 1; 0: empty */
	unsigned char v;
};
extern struct row_pick *row_picks;
#endif

/* The process's: set by the first module's start-up (patch.c). */
extern struct repstos_cpu cpu;
extern struct config cfg;
extern struct tables *tab;	/* set once configured */
extern unsigned attached;	/* modules started and not yet gone */

/* what the process chose, and what it says (config.c) */
STARTUP_FN const char *module_name(const struct module *mod);
STARTUP_FN void read_config(struct config *c);
STARTUP_FN void report(const struct module *mod);
STARTUP_FN void warn(const char *fmt, const char *arg);

/* writing text, W^X (write.c) */
STARTUP_FN int crowded(void);
STARTUP_FN void add_to_run(struct module *mod, struct run *r, uintptr_t at,
		       const uint8_t *bytes, unsigned len, int rescue);
STARTUP_FN void flush_run(struct module *mod, struct run *r);
STARTUP_FN int write_text(struct writer *w, uintptr_t at, const void *src,
		      size_t n, int *beside);

/* each site's form (decide.c) */
STARTUP_FN struct repstos_decision choice(const struct module *mod,
					  const struct repstos_family *f,
					  const struct repstos_site *e);
STARTUP_FN void find_narrow(struct module *mod);
STARTUP_FN int module_variant(const struct module *mod, enum repstos_family_id f);
STARTUP_FN void patch_site(struct module *mod, struct run *r,
			   const struct repstos_site *e);
STARTUP_FN uintptr_t routine_of(const struct module *mod,
			       const struct repstos_family *f, int v);
STARTUP_FN int site_form(const struct module *mod, const struct repstos_family *f,
			 const struct repstos_site *e, enum repstos_form *form,
			 uintptr_t *target);
STARTUP_FN uintptr_t stub_of(const struct module *mod,
			     const struct repstos_family *f);
STARTUP_FN int unrunnable(const struct module *mod,
			  const struct repstos_family *f, uintptr_t target);

/* recording sizes, the runs, the start-up of a module (patch.c) */
STARTUP_FN int configure(void);
STARTUP_FN void not_recorded(const char *path, const char *name, const char *why);
STARTUP_FN void patch_sites(struct module *mod);
STARTUP_FN void start(struct module *mod);
STARTUP_FN void unconfigure(void);

/* taking a module over (attach.c) */
STARTUP_FN int take(struct module *mod, const struct repstos_module_desc *d);

#endif
