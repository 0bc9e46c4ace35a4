// SPDX-License-Identifier: MIT
/*
 * write.c - writing a module's text with W^X at every moment: the
 * /proc/self/mem route, the mprotect route with its probe and window
 * (startup.h says both), and the runs of sites each writes in one go.
 */
#define _GNU_SOURCE
#include <linux/magic.h>
#include <sys/single_threaded.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include "startup.h"

/* ---- the proc file system --------------------------------------------- */

/* A file of the proc file system, or -1 (errno EMEDIUMTYPE where what
 * is there is not known to be one: a tmpfs on /proc with a regular file
 * at the name, whose word on the process would mean nothing, and into
 * which "writing text" would write nothing). */
static int open_proc(const char *path, int flags)
{
	struct statfs fs;
	int fd = open(path, flags | O_CLOEXEC);

	if (fd >= 0 && (fstatfs(fd, &fs) || fs.f_type != PROC_SUPER_MAGIC)) {
		close(fd);
		errno = EMEDIUMTYPE;
		fd = -1;
	}
	return fd;
}

/* ---- writing ---------------------------------------------------------- */

static int write_mem(struct writer *w, uintptr_t at, const void *src,
		     size_t n)
{
	ssize_t done;

	if (w->fd < 0 && !w->mem_errno) {
		w->fd = open_proc("/proc/self/mem", O_RDWR);
		if (w->fd < 0)
			w->mem_errno = errno;
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

/*
 * Is this process alone in its address space?  0, EINVAL where another
 * thread shares it, or why it cannot tell.  Both routes write pages
 * another thread could be running: the mprotect route takes away their
 * exec for a moment, and /proc/self/mem writes in place, where a thread
 * fetching a call while its rel32 is half written jumps anywhere.
 * Which pages another thread runs cannot be known, so there must be
 * none.  glibc's word that no thread was ever created settles it with
 * no system call; where one was, the kernel's count of those left does:
 * /proc/self/task links to each, besides "." and "..".  Where neither
 * tells (no proc file system), the sites stay stub calls and the stubs'
 * byte (set_choices) sends them to the process's routine.  Neither sees
 * a task cloned with CLONE_VM by hand, outside pthread_create() and the
 * thread group, nor a vfork parent (repstos(7) says so); unshare(CLONE_VM)
 * would, but a seccomp allow-list may kill the process for asking.
 * Asked once a module: alone, only this thread could start another.
 */
STARTUP_FN int crowded(void)
{
	struct stat st;
	int fd, e;

	if (__libc_single_threaded)
		return 0;
	fd = open_proc("/proc/self/task", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return errno;
	e = fstat(fd, &st) || st.st_nlink < 3 ? EIO :
	    st.st_nlink > 3 ? EINVAL : 0;
	close(fd);
	return e;
}

/* 0 written; -1 not.  Where the mprotect route was the one left and
 * the window would have held its own code, *beside is set. */
STARTUP_FN int write_text(struct writer *w, uintptr_t at, const void *src,
		      size_t n, int *beside)
{
	*beside = 0;
	if (w->allowed == ROUTE_OFF || w->crowded)
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

STARTUP_FN void flush_run(struct module *mod, struct run *r)
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
STARTUP_FN void add_to_run(struct module *mod, struct run *r, uintptr_t at,
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
