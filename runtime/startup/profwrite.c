// SPDX-License-Identifier: MIT
/*
 * profwrite.c - where a size profile may be written, and adding a
 * module's section to it (profrun.c records the counts): the file is
 * the user's to name, but written only where the user alone decides
 * what it is, under an exclusive lock, merged down when it grows past
 * REPSTOS_PROFILE_MAX (profile.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "profrun.h"

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
const char *prof_open(const char *path, int *fd)
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
int prof_lock(int fd)
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
const char *prof_store(int fd, const char *sec, size_t len, size_t head_len,
			 uint64_t hash, unsigned nsites)
{
	int locked = prof_lock(fd);
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
