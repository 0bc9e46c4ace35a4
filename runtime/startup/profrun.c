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
 * alone decides what it is (open_profile): never through a symbolic link
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

	if (repstos_profile_head(head, sizeof(head), &at, rec->hash,
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

/* ---- where it may be written ------------------------------------------ */

/* One step down from the folder dir: name, a folder, or a symbolic link
 * to one that root or the effective user owns.  The new folder opened
 * O_PATH, -1 (errno), or -2 for someone else's link. */
static int step(int dir, const char *name)
{
	struct stat st;
	int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);

	if (fd >= 0 || (errno != ENOTDIR && errno != ELOOP))
		return fd;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISLNK(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return -2;
	return openat(dir, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The folder holding the absolute path's last name (*base), walked a
 * name at a time, so that no link planted by someone else on the way
 * steers the file elsewhere; -1 and *why. */
static int open_folder(const char *path, const char **base, const char **why)
{
	char name[NAME_MAX + 1];
	const char *p = path, *slash;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next;
	size_t n;

	while (fd >= 0 && (slash = strchr(p, '/'))) {
		n = (size_t)(slash - p);
		p = slash + 1;
		if (!n)
			continue;
		if (n > NAME_MAX) {
			close(fd);
			*why = strerror(ENAMETOOLONG);
			return -1;
		}
		memcpy(name, slash - n, n);
		name[n] = 0;
		next = step(fd, name);
		close(fd);
		fd = next;
	}
	if (fd == -2)
		*why = "a symbolic link on the way is another user's";
	else if (fd < 0)
		*why = strerror(errno);
	*base = p;
	return fd;
}

/* May others write in the folder (owned by another, or group or world
 * writable)?  Then only a sticky one will do, and in it only a file of
 * the user's own. */
static int shared_folder(const struct stat *dir)
{
	return (dir->st_uid != 0 && dir->st_uid != geteuid()) ||
	       (dir->st_mode & (S_IWGRP | S_IWOTH));
}

/* Why an open file may not take the profile, or NULL. */
static const char *refused(int fd, int shared)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return "not a regular file";
	if (st.st_nlink != 1)
		return "the file has other hard links";
	if (st.st_uid == geteuid())
		return NULL;
	if (shared)
		return "not the user's own file, in a folder others can write";
	return st.st_uid ? "owned by neither the user nor root" : NULL;
}

/* The profile, open for appending (and reading back, to merge): an
 * existing file of the user's own
 * (or root's, where only they may write the folder), or a new one made
 * 0600 and only if no name was there (O_EXCL).  Never waits (a FIFO).
 * 0 and *fd, or why not. */
static const char *open_profile(const char *path, int *fd)
{
	const int flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
			  O_CLOEXEC | O_NOCTTY;
	const char *base, *why = NULL;
	struct stat dir_st;
	int dir, e, shared;

	dir = open_folder(path, &base, &why);
	if (dir < 0)
		return why;
	if (fstat(dir, &dir_st)) {
		e = errno;
		close(dir);
		return strerror(e);
	}
	shared = shared_folder(&dir_st);
	if (shared && !(dir_st.st_mode & S_ISVTX)) {
		close(dir);
		return "in a folder others can write that is not sticky";
	}
	*fd = openat(dir, base, flags);
	if (*fd < 0 && errno == ENOENT) {
		*fd = openat(dir, base, flags | O_CREAT | O_EXCL, 0600);
		if (*fd < 0 && errno == EEXIST)	/* made meanwhile */
			*fd = openat(dir, base, flags);
	}
	e = errno;
	close(dir);
	if (*fd < 0)
		return e == ELOOP ? "a symbolic link" : strerror(e);
	if ((why = refused(*fd, shared)))
		close(*fd);
	return why;
}

/* ---- adding it to the file -------------------------------------------- */

/* The lock every writer takes, waiting for one that is merging at most
 * 2 s: 1 held, 0 where the file system has no locks (then the section
 * is only appended, in one write(), as before there were any), -1 not
 * had. */
static int lock(int fd)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 200; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 1;
		if (errno != EWOULDBLOCK)
			return 0;
		nanosleep(&pause, NULL);
	}
	return -1;
}

/* Does the line at p (n bytes to the buffer's end) start a section? */
static int is_head(const char *p, size_t n)
{
	return n > 8 && !memcmp(p, "profile ", 8);
}

/* The last section's start in buf, which holds the file's last n bytes
 * (all of it when whole); NULL when it begins before buf. */
static const char *last_head(const char *buf, size_t n, int whole)
{
	size_t i;

	for (i = n; i-- > 1;)
		if (buf[i - 1] == '\n' && is_head(buf + i, n - i))
			return buf + i;
	return whole && is_head(buf, n) ? buf : NULL;
}

/* Where the file's last section starts when it is the same module's and
 * build's as sec (its header line, head_len bytes, and end line are
 * sec's), else -1.  Reads back from the end, twice as far each time. */
static off_t same_tail(int fd, off_t size, const char *sec, size_t len,
		       size_t head_len)
{
	char end[REPSTOS_PROFILE_END_LEN], *buf = NULL, *b;
	size_t want = 4096, n;
	const char *h = NULL;
	off_t at = -1;

	if (size < (off_t)(head_len + sizeof(end)) ||
	    pread(fd, end, sizeof(end), size - (off_t)sizeof(end)) !=
	    sizeof(end) || memcmp(end, sec + len - sizeof(end), sizeof(end)))
		return -1;
	for (;;) {
		n = (off_t)want < size ? want : (size_t)size;
		if (!(b = realloc(buf, n)))
			break;
		buf = b;
		if (pread(fd, buf, n, size - (off_t)n) != (ssize_t)n)
			break;
		if ((h = last_head(buf, n, (off_t)n == size)) ||
		    (off_t)n == size || n >= REPSTOS_PROFILE_MAX)
			break;
		want *= 2;
	}
	if (h && (size_t)(buf + n - h) >= head_len && !memcmp(h, sec, head_len))
		at = size - (off_t)n + (h - buf);
	free(buf);
	return at;
}

/* The file from offset at to its end merged with sec, written back in
 * its place: NULL, or why not. */
static const char *merge_into(int fd, off_t at, off_t size, const char *sec,
			      size_t len, uint64_t hash, unsigned nsites)
{
	struct repstos_profile p = { .hash = hash, .nsites = nsites };
	size_t old = (size_t)(size - at), out_len;
	const char *why = NULL;
	char *text, *out;
	int r;

	if (size - at > 4 * (off_t)REPSTOS_PROFILE_MAX)
		return "too large to merge";
	if (!(text = malloc(old + len)))
		return "out of memory";
	if (pread(fd, text, old, at) != (ssize_t)old) {
		free(text);
		return "cannot read it back to merge";
	}
	memcpy(text + old, sec, len);
	r = repstos_profile_merge(text, old + len, &out, &out_len, &p);
	free(text);
	if (r)
		return r == -2 ? "out of memory" : "malformed, cannot merge";
	if (at + (off_t)out_len > (off_t)REPSTOS_PROFILE_MAX)
		why = "over the size limit even merged";
	/* pwrite() ignores the offset where O_APPEND is set */
	else if (fcntl(fd, F_SETFL, O_NONBLOCK) ||
		 pwrite(fd, out, out_len, at) != (ssize_t)out_len ||
		 ftruncate(fd, at + (off_t)out_len))
		why = strerror(errno);
	free(out);
	return why;
}

/* sec into the open file, under its lock: into the last section if that
 * is the same module's and build's, merged with the whole file if the
 * file would pass REPSTOS_PROFILE_MAX, else appended.  NULL or why not. */
static const char *store(int fd, const char *sec, size_t len, size_t head_len,
			 uint64_t hash, unsigned nsites)
{
	int locked = lock(fd);
	struct stat st;
	ssize_t n;
	off_t at;

	if (locked < 0)
		return "locked by another process for 2 s";
	if (fstat(fd, &st))
		return strerror(errno);
	at = locked ? same_tail(fd, st.st_size, sec, len, head_len) : -1;
	if (at >= 0)
		return merge_into(fd, at, st.st_size, sec, len, hash, nsites);
	if (st.st_size + (off_t)len > (off_t)REPSTOS_PROFILE_MAX)
		return locked ? merge_into(fd, 0, st.st_size, sec, len, hash,
					   nsites) :
				"over the size limit, and no lock to merge under";
	n = write(fd, sec, len);
	if (n < 0)
		return strerror(errno);
	return n == (ssize_t)len ? NULL : "short write (disk full?)";
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
	if (buf && !(why = open_profile(rec->path, &fd))) {
		why = store(fd, buf, len, head_len, rec->hash, rec->nsites);
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
	 * glibc, not of the kernel: unshare(), which patch.c asks, is a
	 * call a seccomp filter may punish, and this runs at every exit. */
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

/* The rows for this module from the text, checked against its table:
 * 1, or -1 with *why (malformed, no section for it, or one that does
 * not fit its table). */
static int rows_of(const char *text, size_t len, const struct repstos_site *b,
		   unsigned n, uint64_t hash,
		   unsigned long long (**hist)[REPSTOS_NCLASS], const char **why)
{
	static char msg[128];
	struct repstos_profile p = { .hash = hash, .nsites = n };
	unsigned i;
	int r;

	p.hist = calloc(n ? n : 1, sizeof(*p.hist));
	if (!p.hist) {
		*why = "out of memory";
		return -1;
	}
	r = repstos_profile_parse(text, len, &p);
	if (r < 0)
		snprintf(msg, sizeof(msg), "line %u: %s", p.line, p.why);
	else if (r == 0)
		snprintf(msg, sizeof(msg), "no section for table %016llx: "
			 "a profile of another build", (unsigned long long)hash);
	for (i = 0; r > 0 && i < n; i++)
		if (repstos_profile_fits(&b[i], p.hist[i])) {
			snprintf(msg, sizeof(msg), "site %u saw sizes its table "
				 "entry rules out: not this build's", i);
			r = 0;
		}
	if (r <= 0) {
		free(p.hist);
		*why = msg;
		return -1;
	}
	*hist = p.hist;
	return 1;
}

int repstos_prof_load(const struct repstos_site *begin,
		      const struct repstos_site *end,
		      unsigned long long (**hist)[REPSTOS_NCLASS],
		      char **path, const char **why)
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
	r = rows_of(text, len, begin, (unsigned)(end - begin), hash, hist, why);
	free(text);
	return r;
}
