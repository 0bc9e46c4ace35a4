// SPDX-License-Identifier: MIT
/*
 * profrun.c - size profiles in the runtime (runtime/startup/profrun.h).
 *
 * Recording: every site of the module calls __repstos_profile (a copy
 * site __repstos_copy_profile; record.S, record_copy.S), which counts
 * the call in its site's slot and calls the routine the site would run
 * otherwise.  The slots are set up here before any site is pointed at
 * the routine.  When the module goes (repstos_prof_end, from its
 * destructor: at exit, or at dlclose()) the counts are read (relaxed:
 * each is exact, the set is as of that moment) and written to the file
 * as one section, under an exclusive lock on it, so that the modules of
 * a process, and processes sharing the file, never interleave their
 * lines; profile.h says when a writer adds into the file's last section
 * or merges the file instead of appending.
 *
 * The slots are freed then only in a process that never had another
 * thread: at exit a thread may still be in a site, calling the routine
 * that reads them.  So a module unloaded in a process with threads
 * leaves them behind (its other state goes).
 *
 * The file is the user's to name, but it is written only where the user
 * alone decides what it is (prof_open): never through a symbolic link
 * someone else owns, never a file with another link or of another
 * owner, never in a folder others can write unless it is sticky and the
 * file the user's own.
 *
 * Nothing is recorded in a set-user-ID or otherwise AT_SECURE process:
 * the start-up patcher reads REPSTOS_PROFILE with secure_getenv().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/single_threaded.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "profrun.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* A site as registered, before the slots are sorted by address. */
struct key {
	uintptr_t ret;
	unsigned slot;
};

/* One module's recording; every recorder of the process on one list. */
struct repstos_recorder {
	struct repstos_recorder *next;
	char *path;		/* absolute */
	char *name;		/* the module's */
	uint64_t hash;
	unsigned nsites;	/* entries in the table */
	unsigned n;		/* sites registered */
	int written;		/* its section is in the file (or given up) */
	struct key *keys;	/* while registering */
	struct repstos_prof_slot *slot;	/* by registration (table) order */
	unsigned *order;	/* slot of the i-th registered, once sorted */
	uintptr_t *ret;		/* what the routine searches, once sorted */
	struct repstos_prof *prof;	/* the module's view of them */
};

static struct repstos_recorder *recorders;

static char *absolute(const char *path)
{
	char cwd[4096], *s;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)) || asprintf(&s, "%s/%s", cwd, path) < 0)
		return NULL;
	return s;
}

static void forget(struct repstos_recorder *rec)
{
	free(rec->path);
	free(rec->name);
	free(rec->keys);
	free(rec->slot);
	free(rec->order);
	free(rec->ret);
	free(rec);
}

struct repstos_recorder *repstos_prof_begin(const char *path, unsigned nsites)
{
	size_t n = nsites ? nsites : 1;
	struct repstos_recorder *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	rec->path = absolute(path);
	rec->nsites = nsites;
	rec->keys = calloc(n, sizeof(*rec->keys));
	rec->slot = calloc(n, sizeof(*rec->slot));
	rec->order = calloc(n, sizeof(*rec->order));
	if (rec->path && rec->keys && rec->slot && rec->order)
		return rec;
	forget(rec);
	if (!errno)
		errno = ENOMEM;
	return NULL;
}

void repstos_prof_site(struct repstos_recorder *rec, unsigned index,
		       uintptr_t site, void *routine)
{
	if (rec->n >= rec->nsites)
		return;
	/* a call form's return address; the rest of a long site is NOPs */
	rec->keys[rec->n].ret = site + REPSTOS_SITE_LEN;
	rec->keys[rec->n].slot = rec->n;
	rec->slot[rec->n].routine = routine;
	rec->slot[rec->n].index = index;
	rec->n++;
}

static int by_ret(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	return x->ret < y->ret ? -1 : x->ret > y->ret;
}

/*
 * pthread_atfork() is a wrapper in libc_nonshared.a whose object, on
 * Debian 12, lacks the IBT/SHSTK property: linking it took CET away from
 * every module (tests/runtime/cet.sh).  It only forwards to glibc's
 * exported __register_atfork() with the module's __dso_handle (so that
 * dlclose() drops the handler); so do we.
 */
extern int __register_atfork(void (*prepare)(void), void (*parent)(void),
			     void (*child)(void), void *dso_handle);
/* crtbegin's; weak for links without start files, where the handler then
 * stays for the life of the process, as in a static executable. */
extern void *__dso_handle __attribute__((weak));

/* A forked child starts its own counts: the parent writes its own. */
static void child_forgets(void)
{
	struct repstos_recorder *rec;
	unsigned i;

	for (rec = recorders; rec; rec = rec->next)
		for (i = 0; i < rec->n; i++)
			memset(rec->slot[i].hist, 0, sizeof(rec->slot[i].hist));
}

/*
 * Sort by return address for the routine's binary search.  The slots
 * move into address order; rec->order keeps where each registered site
 * went, so the section lists sites by table index.  Recorders go on the
 * list newest first: sections are written in the order the modules'
 * own destructors would run.
 */
int repstos_prof_ready(struct repstos_recorder *rec, struct repstos_prof *prof,
		       void *fallback, void *copy_fallback, uint64_t hash,
		       const char *name)
{
	struct repstos_prof_slot *sorted;
	uintptr_t *ret;
	unsigned i;

	rec->hash = hash;
	rec->name = strdup(name);
	qsort(rec->keys, rec->n, sizeof(*rec->keys), by_ret);
	ret = calloc(rec->n + 1, sizeof(*ret));
	sorted = calloc(rec->n + 1, sizeof(*sorted));
	if (!ret || !sorted || !rec->name) {
		free(ret);
		free(sorted);
		forget(rec);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < rec->n; i++) {
		ret[i] = rec->keys[i].ret;
		sorted[i] = rec->slot[rec->keys[i].slot];
		rec->order[rec->keys[i].slot] = i;
	}
	free(rec->keys);
	free(rec->slot);
	rec->keys = NULL;
	rec->slot = sorted;
	rec->ret = ret;
	rec->prof = prof;
	prof->ret = ret;
	prof->slot = sorted;
	prof->n = rec->n;
	prof->fallback = fallback;
	prof->copy_fallback = copy_fallback;
	if (!recorders)
		__register_atfork(NULL, NULL, child_forgets, &__dso_handle);
	rec->next = recorders;
	recorders = rec;
	return 0;
}

/* ---- the section ------------------------------------------------------ */

/* A site's counts as of now, for its line. */
struct row {
	unsigned index;
	unsigned long long hist[REPSTOS_NCLASS];
};

/* A slot's counts as of now. */
static void counts(const struct repstos_prof_slot *s, unsigned long long *h)
{
	unsigned c;

	for (c = 0; c < REPSTOS_NCLASS; c++)
		h[c] = __atomic_load_n(&s->hist[c], __ATOMIC_RELAXED);
}

/* The counts of the sites with calls, in table order, into *rows (NULL
 * when none has any); -1 when out of memory.  A site first called after
 * they were counted is left out: the set is as of that moment. */
static int snapshot(const struct repstos_recorder *rec, struct row **rows,
		    unsigned *n)
{
	unsigned long long h[REPSTOS_NCLASS];
	unsigned i, k = 0;

	*rows = NULL;
	*n = 0;
	for (i = 0; i < rec->n; i++) {
		counts(&rec->slot[rec->order[i]], h);
		k += repstos_profile_calls(h) != 0;
	}
	if (k && !(*rows = malloc(k * sizeof(**rows))))
		return -1;
	for (i = 0; i < rec->n && *n < k; i++) {
		struct row *r = &(*rows)[*n];

		counts(&rec->slot[rec->order[i]], r->hist);
		r->index = rec->slot[rec->order[i]].index;
		*n += repstos_profile_calls(r->hist) != 0;
	}
	return 0;
}

/* The section's text, in a buffer of its exact size (NULL: no memory);
 * *head_len: the length of its header line. */
static char *section(const struct repstos_recorder *rec, size_t *len,
		     size_t *head_len)
{
	char head[REPSTOS_PROFILE_HEAD_MAX];
	unsigned at = 0, size, i, n;
	struct row *rows;
	char *buf = NULL;
	int r;

	if (repstos_profile_head(head, sizeof(head), &at,
				 REPSTOS_PROFILE_VERSION_COUNTS, rec->hash,
				 rec->nsites, rec->name) ||
	    snapshot(rec, &rows, &n))
		return NULL;
	size = at + REPSTOS_PROFILE_END_LEN + 1;
	for (i = 0; i < n; i++)
		size += repstos_profile_site_len(rows[i].index, rows[i].hist);
	if ((buf = malloc(size))) {
		memcpy(buf, head, at);
		*head_len = at;
		for (i = 0, r = 0; !r && i < n; i++)
			r = repstos_profile_site(buf, size, &at, rows[i].index,
						 rows[i].hist);
		if (r || repstos_profile_end(buf, size, &at, rec->hash)) {
			free(buf);	/* cannot happen: size is exact */
			buf = NULL;
		}
	}
	free(rows);
	*len = at;
	return buf;
}

/* One module's section; one line on stderr if it cannot be written. */
static void write_section(struct repstos_recorder *rec)
{
	const char *why = "out of memory";
	size_t len, head_len;
	char *buf;
	int fd;

	rec->written = 1;
	buf = section(rec, &len, &head_len);
	if (buf && !(why = prof_open(rec->path, &fd))) {
		why = prof_store(fd, buf, len, head_len, rec->hash, rec->nsites);
		close(fd);	/* and the lock with it */
	}
	if (why)
		fprintf(stderr, "repstos: %s: profile of %s not written: %s\n",
			rec->path, rec->name, why);
	free(buf);
}

void repstos_prof_end(struct repstos_recorder *rec)
{
	struct repstos_recorder **p;

	if (!rec->written)
		write_section(rec);
	for (p = &recorders; *p; p = &(*p)->next)
		if (*p == rec) {
			*p = rec->next;
			break;
		}
	__atomic_store_n(&rec->prof->n, 0, __ATOMIC_RELEASE);
	/* A process that ever had another thread may have one in a site
	 * now, searching them (at exit; at dlclose() none can be in this
	 * module, but which of the two this is nobody tells).  Asked of
	 * glibc alone: this runs at every exit, and a system call more
	 * is one a seccomp allow-list may punish. */
	if (!__libc_single_threaded) {
		rec->ret = NULL;
		rec->slot = NULL;
	}
	forget(rec);
}

/*
 * Priority 101: the last destructor of the module holding the start-up.
 * The sections of modules whose own destructor has not ended their
 * recording (repstos_prof_end): with the shared runtime, modules built
 * before modules had one.
 */
__attribute__((destructor(101))) static void repstos_prof_write(void)
{
	struct repstos_recorder *rec;

	for (rec = recorders; rec; rec = rec->next)
		if (!rec->written)
			write_section(rec);
}

/* ---- an installed profile --------------------------------------------- */

/* "profiles" beside the tuning file, into dir, opened O_PATH; or -1.
 * Mostly there is none: one failed open a process (with the shared
 * runtime; one a module with librepstos.a), and no hashing of the table. */
static int profiles_dir(char *dir, size_t len)
{
	const char *t = repstos_tuning_path();
	const char *slash;

	if (!*t)
		return -1;		/* REPSTOS_TUNING="": no files at all */
	slash = strrchr(t, '/');
	static int absent;	/* a process looks once, for all its modules */
	int fd;

	if (snprintf(dir, len, "%.*sprofiles",
		     slash ? (int)(slash - t + 1) : 0, t) >= (int)len || absent)
		return -1;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	absent = fd < 0 && errno == ENOENT;
	return fd;
}

/* The whole of a regular file owned by root or the real user, NUL
 * terminated; NULL and *why otherwise. */
static char *slurp(int fd, size_t *len, const char **why)
{
	struct stat st;
	size_t n = 0;
	ssize_t k = 1;
	char *text;

	if ((*why = repstos_untrusted(fd, &st)))
		return NULL;
	if (st.st_size > REPSTOS_PROFILE_MAX) {
		*why = "over " REPSTOS_STR(REPSTOS_PROFILE_MAX_MIB)
		       " MiB, too large for a profile";
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		*why = "out of memory";
		return NULL;
	}
	while (n < (size_t)st.st_size && k > 0) {
		k = read(fd, text + n, (size_t)st.st_size - n);
		n += k > 0 ? (size_t)k : 0;
	}
	text[n] = 0;
	*len = n;
	return text;
}

/* The rows for this module from the text, checked against its table
 * (repstos_profile_accept): 1, or -1 with *why. */
static int rows_of(const char *text, size_t len, const struct repstos_site *b,
		   unsigned n, uint64_t hash, struct repstos_prof_rows *rows,
		   const char **why)
{
	static char msg[160];
	struct repstos_profile p = { .hash = hash, .nsites = n };

	if (repstos_profile_accept(text, len, b, sizeof(*b), &p, msg,
				   sizeof(msg)) < 0) {
		*why = msg;
		return -1;
	}
	rows->hist = p.hist;
	rows->pin = p.pin;
	return 1;
}

int repstos_prof_load(const struct repstos_site *begin,
		      const struct repstos_site *end,
		      struct repstos_prof_rows *rows, char **path,
		      const char **why)
{
	const char *use = secure_getenv("REPSTOS_PROFILE_USE");
	char installed[4096 + 32];
	uint64_t hash;
	char *text;
	size_t len;
	int fd, dir, r;

	*path = NULL;
	if (use && *use) {
		*path = strdup(use);	/* for the reports, as long as hist */
		fd = open(use, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			*why = strerror(errno);
			return -1;
		}
		hash = repstos_table_hash(begin, end);
	} else {
		dir = profiles_dir(installed, sizeof(installed) - 32);
		if (dir < 0)
			return 0;
		hash = repstos_table_hash(begin, end);
		len = strlen(installed);
		snprintf(installed + len, 32, "/%016llx", (unsigned long long)hash);
		fd = openat(dir, installed + len + 1, O_RDONLY | O_NONBLOCK |
			    O_CLOEXEC | O_NOCTTY);
		close(dir);
		if (fd < 0)
			return 0;
		*path = strdup(installed);	/* for the reports */
	}
	text = slurp(fd, &len, why);
	close(fd);
	if (!text)
		return -1;
	r = rows_of(text, len, begin, (unsigned)(end - begin), hash, rows, why);
	free(text);
	return r;
}
