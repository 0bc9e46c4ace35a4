// SPDX-License-Identifier: MIT
/*
 * output.c - put patch's new file where it belongs, the way install(1)
 * and sed -i should: a temporary file beside the target, renamed over
 * it, so that the target is the old file or the new one, never half of
 * either.
 *
 * In place the new file takes over what the old one had: owner, group,
 * mode with its setuid and setgid bits, and every extended attribute
 * (file capabilities, ACLs); what cannot be kept stops the patch.  A
 * symbolic link is followed: its target gets the new file and the link
 * stays.  A file with other hard links is refused, since a rename would
 * patch one name and leave the others; --force writes the changed bytes
 * through the shared inode instead.  A read-only file also wants
 * --force.  Devices, FIFOs and sockets are never replaced.
 *
 * -o makes a new file: the input's permission bits, and its setuid
 * (setgid) bit only when the new file has the input's owner (group), as
 * cp(1) does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "patcher.h"

static int write_all(int fd, const uint8_t *b, size_t n, uint64_t off)
{
	while (n) {
		ssize_t k = pwrite(fd, b, n, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/*
 * The input's bytes into fd: in the kernel when it can, else by write.
 * From the descriptor read, not the path, which may name another file
 * by now.
 */
static int copy_input(const struct rs_elf *f, int fd)
{
	loff_t ioff = 0, ooff = 0;
	ssize_t k = 0;

	if (f->fd >= 0) {
		while ((uint64_t)ioff < f->size) {
			k = copy_file_range(f->fd, &ioff, fd, &ooff,
					    f->size - ioff, 0);
			if (k <= 0)
				break;
		}
		if ((uint64_t)ioff == f->size)
			return 0;
	}
	return write_all(fd, f->img, f->size, 0);
}

/*
 * The edits, one pwrite per page they touch: the page's span is taken
 * from the image and the edits laid over it.  A site every few hundred
 * bytes makes one write per page, not one per site.  The edits are
 * sorted and do not overlap, so no span overlaps another: the image's
 * bytes outside the spans written so far are still the input's, even
 * when the input itself is being written (write_through).
 */
static int write_edits(const struct rs_output *w, int fd)
{
	static uint8_t span[8192];
	const struct rs_edit *e = w->edit;
	size_t i = 0, j;

	while (i < w->nedit) {
		uint64_t start = e[i].off, end = start + e[i].len;

		for (j = i + 1; j < w->nedit && e[j].off / 4096 == start / 4096; j++)
			if (e[j].off + e[j].len > end)
				end = e[j].off + e[j].len;
		memcpy(span, w->f->img + start, end - start);
		for (; i < j; i++)
			memcpy(span + (e[i].off - start), e[i].b, e[i].len);
		if (write_all(fd, span, end - start, start))
			return -1;
	}
	return 0;
}

/* A file's extended attributes, to set again on the new file. */
struct xattrs {
	char *names;		/* NUL-separated, as flistxattr gives them */
	size_t len;
	char **val;		/* one per name */
	size_t *vlen;
	size_t n;
};

static void xattrs_free(struct xattrs *x)
{
	size_t i;

	for (i = 0; x->val && i < x->n; i++)
		free(x->val[i]);
	free(x->val);
	free(x->vlen);
	free(x->names);
	memset(x, 0, sizeof(*x));
}

/* One attribute's value into *v (which xattrs_free frees). */
static int xattr_value(int fd, const char *name, char **v, size_t *len)
{
	ssize_t k = fgetxattr(fd, name, NULL, 0);

	if (k < 0)
		return -1;
	*v = malloc(k ? (size_t)k : 1);
	if (!*v)
		return -1;
	k = fgetxattr(fd, name, *v, (size_t)k);
	if (k < 0)
		return -1;
	*len = (size_t)k;
	return 0;
}

/* Every extended attribute of fd: 0, or -1 with errno.  A file system
 * without them has none. */
static int xattrs_read(int fd, struct xattrs *x)
{
	ssize_t k = flistxattr(fd, NULL, 0);
	const char *name;
	size_t i;

	memset(x, 0, sizeof(*x));
	if (k < 0)
		return errno == ENOTSUP ? 0 : -1;
	x->names = malloc(k ? (size_t)k : 1);
	if (!x->names)
		return -1;
	k = flistxattr(fd, x->names, (size_t)k);
	if (k < 0)
		return -1;
	x->len = (size_t)k;
	for (name = x->names; name < x->names + x->len; name += strlen(name) + 1)
		x->n++;
	x->val = calloc(x->n ? x->n : 1, sizeof(*x->val));
	x->vlen = calloc(x->n ? x->n : 1, sizeof(*x->vlen));
	if (!x->val || !x->vlen) {
		x->n = 0;
		return -1;
	}
	for (name = x->names, i = 0; i < x->n; name += strlen(name) + 1, i++)
		if (xattr_value(fd, name, &x->val[i], &x->vlen[i]))
			return -1;
	return 0;
}

/*
 * What the old file had, onto fd.  The order matters: chown clears the
 * setuid and setgid bits and the file capabilities, so the mode comes
 * after it and the attributes last.
 */
static int keep_all(const char *dst, int fd, const struct stat *st,
		    const struct xattrs *x)
{
	const char *name = x->names;
	size_t i;

	if (fchown(fd, st->st_uid, st->st_gid)) {
		rs_err(dst, "cannot keep owner %u and group %u: %s",
		       (unsigned)st->st_uid, (unsigned)st->st_gid, strerror(errno));
		return -1;
	}
	if (fchmod(fd, st->st_mode & 07777)) {
		rs_err(dst, "cannot keep mode %04o: %s",
		       (unsigned)(st->st_mode & 07777), strerror(errno));
		return -1;
	}
	for (i = 0; i < x->n; i++, name += strlen(name) + 1) {
		if (fsetxattr(fd, name, x->val[i], x->vlen[i], 0)) {
			rs_err(dst, "cannot keep extended attribute %s: %s",
			       name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* -o: the input's mode, setuid and setgid only with its owner and group. */
static int keep_mode(const char *dst, int fd, const struct stat *in)
{
	mode_t mode = in->st_mode & 07777;
	struct stat now;

	if (fstat(fd, &now) == 0) {
		if (now.st_uid != in->st_uid)
			mode &= ~S_ISUID;
		if (now.st_gid != in->st_gid)
			mode &= ~S_ISGID;
	} else {
		mode &= ~(mode_t)(S_ISUID | S_ISGID);
	}
	if (fchmod(fd, mode)) {
		rs_err(dst, "cannot set mode %04o: %s", (unsigned)mode,
		       strerror(errno));
		return -1;
	}
	return 0;
}

static int keep_attrs(const struct rs_output *w, const char *dst, int fd,
		      bool in_place)
{
	struct xattrs x;
	int ret;

	if (!in_place)
		return keep_mode(dst, fd, &w->f->st);
	if (xattrs_read(w->f->fd, &x)) {
		rs_err(dst, "cannot read its extended attributes: %s",
		       strerror(errno));
		xattrs_free(&x);
		return -1;
	}
	ret = keep_all(dst, fd, &w->f->st, &x);
	xattrs_free(&x);
	return ret;
}

/* The whole new file into a temporary beside real, then renamed over
 * it.  The temporary file goes on every error. */
static int replace(const struct rs_output *w, const char *dst,
		   const char *real, bool in_place)
{
	char *dir = strdup(real), *tmp = NULL;
	int fd = -1, ret = -1;

	if (!dir || asprintf(&tmp, "%s/.repstos.XXXXXX", dirname(dir)) < 0) {
		rs_err(dst, "out of memory");
		tmp = NULL;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		rs_err(dst, "cannot create a temporary file: %s", strerror(errno));
		goto out;
	}
	if (copy_input(w->f, fd) || write_edits(w, fd) ||
	    write_all(fd, w->tail, w->tail_len, w->f->size)) {
		rs_err(dst, "cannot write: %s", strerror(errno));
		goto out;
	}
	if (keep_attrs(w, dst, fd, in_place))
		goto out;
	ret = close(fd);
	fd = -1;
	if (ret) {
		rs_err(dst, "cannot write: %s", strerror(errno));
		goto out;
	}
	ret = rename(tmp, real);
	if (ret)
		rs_err(dst, "cannot rename into place: %s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (ret && tmp)
		unlink(tmp);
	free(tmp);
	free(dir);
	return ret;
}

/* The edits' bytes as they are now, in one buffer, in edit order. */
static uint8_t *save_old(const struct rs_output *w)
{
	size_t i, n = 0;
	uint8_t *old, *p;

	for (i = 0; i < w->nedit; i++)
		n += w->edit[i].len;
	old = p = malloc(n ? n : 1);
	if (!old)
		return NULL;
	for (i = 0; i < w->nedit; p += w->edit[i].len, i++)
		memcpy(p, w->f->img + w->edit[i].off, w->edit[i].len);
	return old;
}

/* Put the saved bytes back (old NULL: none was written yet), the size,
 * and what keep_all keeps, as they were; nonzero when that failed too. */
static int restore_old(const struct rs_output *w, const char *dst, int fd,
		       const uint8_t *old, const struct xattrs *x)
{
	int ret = 0;
	size_t i;

	for (i = 0; old && i < w->nedit; old += w->edit[i].len, i++)
		ret |= write_all(fd, old, w->edit[i].len, w->edit[i].off);
	ret |= ftruncate(fd, (off_t)w->f->size);
	return ret | keep_all(dst, fd, &w->f->st, x);
}

/* A failed write_through: one line, saying in which state it left it. */
static void write_failed(const struct rs_output *w, const char *dst, int fd,
			 const uint8_t *old, const struct xattrs *x)
{
	int e = errno;

	if (restore_old(w, dst, fd, old, x))
		rs_err(dst, "cannot write: %s; putting the old bytes back failed too: damaged",
		       strerror(e));
	else
		rs_err(dst, "cannot write: %s: left as it was", strerror(e));
}

/*
 * --force, a file with other hard links: the changed bytes go into its
 * own inode, so that every name sees them.  A rename is atomic, this is
 * not: every edit's old bytes are saved first and a failed write puts
 * them back, so that an error leaves the file as it was (a crash in the
 * middle could not be undone).  The tail goes first, beyond the end,
 * where nothing reads it yet.  Writing drops file capabilities (and,
 * without CAP_FSETID, the setuid and setgid bits): keep_all puts them
 * back.
 */
static int write_through(const struct rs_output *w, const char *dst,
			 const char *real)
{
	const struct rs_elf *f = w->f;
	uint8_t *old = NULL;
	struct xattrs x;
	struct stat st;
	int fd, ret = -1;

	memset(&x, 0, sizeof(x));
	fd = open(real, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		rs_err(dst, "cannot open for writing: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || st.st_dev != f->st.st_dev ||
	    st.st_ino != f->st.st_ino) {
		rs_err(dst, "changed since it was read: not writing it");
		goto out;
	}
	old = save_old(w);
	if (!old || xattrs_read(f->fd, &x)) {
		rs_err(dst, "cannot save what it has: %s", strerror(errno));
		goto out;
	}
	if (write_all(fd, w->tail, w->tail_len, f->size)) {
		write_failed(w, dst, fd, NULL, &x);
		goto out;
	}
	if (write_edits(w, fd)) {
		write_failed(w, dst, fd, old, &x);
		goto out;
	}
	ret = keep_all(dst, fd, &f->st, &x);
	if (ret)
		write_failed(w, dst, fd, old, &x);
out:
	close(fd);
	xattrs_free(&x);
	free(old);
	return ret;
}

/*
 * The file a write to dst lands in: symbolic links followed, so that a
 * link stays a link and its target gets the new file.  NULL, said why,
 * when it is not to be replaced: not a regular file, or a link to
 * nothing.  *exists, and *st when it does.
 */
static char *resolve(const char *dst, struct stat *st, bool *exists)
{
	char *real;

	*exists = stat(dst, st) == 0;
	if (!*exists && errno != ENOENT) {
		rs_err(dst, "cannot stat: %s", strerror(errno));
		return NULL;
	}
	if (!*exists && lstat(dst, st) == 0) {
		rs_err(dst, "symbolic link to nothing: not writing through it");
		return NULL;
	}
	if (*exists && !S_ISREG(st->st_mode)) {
		rs_err(dst, "not a regular file (%s): not replacing it",
		       rs_file_kind(st->st_mode));
		return NULL;
	}
	real = *exists ? realpath(dst, NULL) : strdup(dst);
	if (!real)
		rs_err(dst, "cannot resolve: %s", strerror(errno));
	return real;
}

/* In place, two cases want --force: a file nobody may write, and one
 * with other names, which a rename would leave unpatched. */
static int refuse_in_place(const char *dst, const struct stat *st, bool force)
{
	if (force)
		return 0;
	if (!(st->st_mode & 0222)) {
		rs_err(dst, "read-only (mode %04o): not patched without --force",
		       (unsigned)(st->st_mode & 07777));
		return -1;
	}
	if (st->st_nlink > 1) {
		rs_err(dst, "%lu hard links: a new file would leave the other names unpatched; --force writes through all of them",
		       (unsigned long)st->st_nlink);
		return -1;
	}
	return 0;
}

int rs_output_write(const struct rs_output *w, const char *out, bool force)
{
	const struct rs_elf *f = w->f;
	const char *dst = out ? out : f->path;
	bool exists, in_place;
	struct stat st;
	char *real;
	int ret = -1;

	real = resolve(dst, &st, &exists);
	if (!real)
		return -1;
	in_place = exists && st.st_dev == f->st.st_dev &&
		   st.st_ino == f->st.st_ino;
	if (!in_place && !out)
		rs_err(dst, "changed since it was read: not replacing it");
	else if (!in_place)
		ret = replace(w, dst, real, false);
	else if (!refuse_in_place(dst, &st, force))
		ret = st.st_nlink > 1 ? write_through(w, dst, real) :
					replace(w, dst, real, true);
	free(real);
	return ret;
}

/* ---- the tool's text files: a tuning file, a profile ---------------- */

/*
 * Why a text file of the tool's may not be written at path, or NULL:
 * where one is, a regular file of one link, never followed if a
 * symbolic link (a root-run tool writes where it was told, not where a
 * link planted there points), in a folder that can be written.
 */
const char *rs_text_refused(const char *path)
{
	char dir[4096], *slash;
	struct stat st;

	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode))
			return "a symbolic link: not followed";
		if (!S_ISREG(st.st_mode))
			return "not a regular file";
		if (st.st_nlink != 1)
			return "the file has other hard links";
	} else if (errno != ENOENT) {
		return strerror(errno);
	}
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return strerror(ENAMETOOLONG);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	if (access(slash ? dir : ".", W_OK))
		return strerror(errno);
	return NULL;
}

/*
 * text at path, as mode: a new file made beside it (O_EXCL, never a
 * link), filled, synced and renamed over it, so that a reader sees the
 * old file or the new one and no link planted meanwhile is followed.
 * 0, or -1 with errno, nothing left behind.
 */
int rs_text_write(const char *path, const char *text, size_t len, mode_t mode)
{
	char tmp[4096 + 24];
	int fd, e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (write_all(fd, (const uint8_t *)text, len, 0) || fsync(fd)) {
		e = errno ? errno : EIO;
		close(fd);
		goto fail;
	}
	if (close(fd) || rename(tmp, path)) {
		e = errno;
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	errno = e;
	return -1;
}
