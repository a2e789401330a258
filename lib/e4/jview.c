/*
 * jview.c --- a read-only view of journal blocks straight from the page
 * cache: when the journal's channel is libext2fs's plain unix_io on a
 * regular file, windows of the file are mapped
 * (mmap(2), MAP_SHARED, PROT_READ) and a caller gets a pointer to the
 * logged copies instead of a copy of them; otherwise, or for a range a
 * window cannot serve, the blocks are read through the channel
 * (e4_journal_read()) into the caller's buffer, as before.
 *
 * Why: a replay that checks every tag checksum before its first write
 * reads the log twice; each read through pread(2) is a page-cache copy
 * (the largest part of the replay's time).  Through a mapping the check
 * reads the page cache in place.  (The replay's own read stays a pread:
 * writing straight from the mapping measured no faster, bench/README.)
 *
 * Safety: a fault on a mapping whose page cannot be read is SIGBUS, not
 * an error.  A file that shrinks under the view (truncated while read)
 * would be one: its size is checked by fstat(2) before every use, and a
 * change is E4_ERR_CHANGED_SIZE from then on (size_same()); a truncation
 * landing while a caller reads the mapping (between that check and the
 * end of its use: most of a scan's time is checksums of mapped pages)
 * faults, so the mapped bytes are used only inside e4_jview_apply(),
 * under a SIGBUS handler (jv_bus(): a fault inside the range the calling
 * thread is reading jumps back out, and the view fails with
 * E4_ERR_CHANGED_SIZE; any other SIGBUS goes to the handler installed
 * before, or kills the process as without libe4).  The handler is
 * process-wide, put back in place by every view that maps (documented
 * in e4.h: a handler a caller installed since is chained); a caller that
 * blocks SIGBUS gets what the kernel does then.  A block device is never
 * mapped.  Every window is populated with MADV_POPULATE_READ first,
 * which returns the read error instead (Linux 5.14); when it is not
 * there, or fails once, the view gives up its mapping and every later
 * read goes through the channel, which reports the error as every other
 * read does.  (A page the kernel reclaims between the population and its
 * use is read again on the fault; only a device failing in that moment,
 * on a block it has just read, would still raise SIGBUS.  The window in
 * use is one 8 MiB window per view, one view per checking thread.)  The
 * view is used only on a channel whose writes are its own (unix_io,
 * flushed when the view opens): a stacked channel (undo, fault
 * injection, overlay, capture) keeps its reads.  The mapping is checked
 * against the channel once: the journal superblock's block and the
 * file's last whole block must read the same both ways (a channel opened
 * with an offset= option maps elsewhere: the view then stays off;
 * no_offset() says why two blocks are enough).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4_int.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22	/* Linux 5.14 uapi */
#endif

#define JVIEW_WINDOW	(8U << 20)	/* bytes mapped at a time: bounds
					 * the file pages counted in RSS */

struct e4_jview {
	e4_journal_t	j;
	int		fd;		/* -1: every request reads through
					 * the channel */
	int		own_fd;		/* close fd with the view */
	int		fallback;	/* may read through the channel */
	int		nomap;		/* mapping given up (no
					 * MADV_POPULATE_READ, or a window
					 * it could not populate) */
	int		pinned;		/* pointers into win handed out since
					 * the last e4_jview_unpin() */
	int		changed;	/* the file changed size: every
					 * request fails */
	off_t		size;		/* bytes in the file or device */
	long		pagesize;
	unsigned char	*win;		/* the window mapped, or NULL */
	off_t		wstart;		/* its first byte in the file */
	size_t		wlen;
};

/*
 * The SIGBUS guard of e4_jview_apply(): the range of the mapping the
 * calling thread is reading and where to jump back to.  One per thread
 * (a checking thread each), set only around the caller's function.
 */
struct jv_guard {
	sigjmp_buf		env;
	const unsigned char	*lo, *hi;
};

static __thread struct jv_guard *volatile jv_cur;
static struct sigaction jv_prev;	/* the SIGBUS handler before ours */
static pthread_mutex_t jv_lock = PTHREAD_MUTEX_INITIALIZER;

static void jv_bus(int sig, siginfo_t *si, void *uc)
{
	struct jv_guard *g = jv_cur;

	if (g && (const unsigned char *)si->si_addr >= g->lo &&
	    (const unsigned char *)si->si_addr < g->hi) {
		jv_cur = NULL;
		siglongjmp(g->env, 1);
	}
	/* Not a read of ours: as if we were not here. */
	if (jv_prev.sa_flags & SA_SIGINFO) {
		jv_prev.sa_sigaction(sig, si, uc);
	} else if (jv_prev.sa_handler == SIG_DFL ||
		   jv_prev.sa_handler == SIG_IGN) {
		/* the faulting access runs again and meets the default */
		signal(SIGBUS, SIG_DFL);
	} else {
		jv_prev.sa_handler(sig);
	}
}

/*
 * Make jv_bus() the SIGBUS handler, the one in place kept as jv_prev for
 * what is not ours: at every view that maps, so a handler a caller
 * installed since (a test framework's, say) is chained, not lost.
 * 1 if jv_bus() is in place.
 */
static int jv_install(void)
{
	struct sigaction sa, cur;
	int ok = 0;

	pthread_mutex_lock(&jv_lock);
	if (!sigaction(SIGBUS, NULL, &cur)) {
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == jv_bus) {
			ok = 1;
		} else {
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = jv_bus;
			/* NODEFER: a jump out of the handler leaves SIGBUS
			 * unblocked */
			sa.sa_flags = SA_SIGINFO | SA_NODEFER;
			sigemptyset(&sa.sa_mask);
			jv_prev = cur;
			ok = !sigaction(SIGBUS, &sa, NULL);
		}
	}
	pthread_mutex_unlock(&jv_lock);
	return ok;
}

/* The physical run at @jblk: its first byte and how many jblocks follow
 * contiguously on the channel (at most @want). */
static errcode_t phys_run(e4_journal_t j, blk64_t jblk, blk64_t want,
			  off_t *off, blk64_t *len)
{
	blk64_t pblk, p2, n;
	errcode_t retval;

	retval = e4_journal_bmap(j, jblk, &pblk);
	if (retval)
		return retval;
	for (n = 1; n < want; n++)
		if (e4_journal_bmap(j, jblk + n, &p2) || p2 != pblk + n)
			break;
	*off = (off_t)pblk * j->blocksize;
	*len = n;
	return 0;
}

static void unmap_window(struct e4_jview *v)
{
	if (v->win)
		munmap(v->win, v->wlen);
	v->win = NULL;
	v->wlen = 0;
}

/* Map a window holding [@off, @off + @len): 0, or -1 (not mapped). */
static int map_window(struct e4_jview *v, off_t off, size_t len)
{
	off_t start = off - off % v->pagesize;
	size_t wlen = JVIEW_WINDOW;
	void *m;

	if (off + (off_t)len > v->size)
		return -1;
	if ((size_t)(off + len - start) > wlen)
		wlen = off + len - start;
	wlen = (wlen + v->pagesize - 1) / v->pagesize * v->pagesize;
	if (start + (off_t)wlen > v->size)
		wlen = v->size - start;	/* mmap rounds the tail page */
	unmap_window(v);
	m = mmap(NULL, wlen, PROT_READ, MAP_SHARED, v->fd, start);
	if (m == MAP_FAILED)
		return -1;
	if (madvise(m, wlen, MADV_POPULATE_READ)) {
		/* EINVAL: no MADV_POPULATE_READ, so no safe mapping at all;
		 * any other error (EIO, EFAULT, ENOMEM, EHWPOISON): a page
		 * of the window cannot be read, and every later window
		 * holding it would read it again (on a failing disk each
		 * try may take seconds).  Either way the view gives up its
		 * mapping: the channel reads the rest and reports the
		 * error where the read fails, as without the view. */
		munmap(m, wlen);
		v->nomap = 1;
		return -1;
	}
	v->win = m;
	v->wstart = start;
	v->wlen = wlen;
	return 0;
}

/*
 * Is the file still as big as when the view opened?  A regular file can
 * shrink under the view (truncated by another process while it is read):
 * a page of the mapping past the new end is SIGBUS, not an error.  So
 * before every use (each e4_jview_get() served by the mapping) fstat(2)
 * compares the size; once it differs the view gives up its mapping for
 * good and every later request fails with E4_ERR_CHANGED_SIZE: the
 * journal is not read from a file another process is changing.  (A
 * truncation landing while the caller reads the pointers is the SIGBUS
 * that e4_jview_apply() catches.)
 */
static int size_same(struct e4_jview *v)
{
	struct stat st;

	if (v->nomap)
		return 0;
	if (!fstat(v->fd, &st) && S_ISREG(st.st_mode) && st.st_size == v->size)
		return 1;
	v->nomap = 1;
	v->changed = 1;
	return 0;
}

/* The mapped bytes [@off, @off + @len), or NULL. */
static const unsigned char *mapped(struct e4_jview *v, off_t off, size_t len)
{
	if (v->fd < 0 || v->nomap || !size_same(v))
		return NULL;
	if (!v->win || off < v->wstart ||
	    off + (off_t)len > v->wstart + (off_t)v->wlen) {
		/* a caller still holds pointers into this window */
		if (v->pinned || map_window(v, off, len))
			return NULL;
	}
	v->pinned = 1;
	return v->win + (off - v->wstart);
}

/* May @j's reads come from a mapping of the file its channel names? */
static int mappable(e4_journal_t j)
{
	return j->io && j->io->manager == unix_io_manager && j->io->name &&
		j->io->block_size == (int)j->blocksize;
}

/*
 * Does the channel read the file from its first byte, as the mapping
 * does?  A channel opened with an offset= option (a name "FILE?offset=N"
 * or io_options given to ext2fs_open2()) reads byte N + b for b: the
 * journal superblock matching both ways rules out 0 < N < a block (the
 * superblock would be periodic with period N: its magic would repeat in
 * its zero tail), and the last whole block of the file read through the
 * channel rules out N > the bytes past it (less than a block): that read
 * runs past the end (EXT2_ET_SHORT_READ).  A file holding another copy
 * of the journal at N passes the first test; it fails this one.
 */
static int no_offset(struct e4_jview *v)
{
	unsigned int bs = v->j->blocksize;
	blk64_t last = v->size / bs;
	unsigned char *buf;
	int same;

	/* (the file's bytes read by pread(2): a window mapped there would
	 * populate megabytes of the file's tail for one block) */
	if (!last || ext2fs_get_mem(2 * bs, &buf))
		return 0;
	same = !io_channel_read_blk64(v->j->io, last - 1, 1, buf) &&
		pread(v->fd, buf + bs, bs, (off_t)(last - 1) * bs) ==
			(ssize_t)bs &&
		!memcmp(buf, buf + bs, bs);
	ext2fs_free_mem(&buf);
	return same;
}

struct sb_cmp {
	e4_journal_t	j;
	int		same;
};

/* e4_jview_apply() function: is @d the journal superblock's block? */
static void sb_same(void *arg, const unsigned char *d)
{
	struct sb_cmp *c = arg;

	c->same = !memcmp(d, c->j->sb, c->j->blocksize);
}

errcode_t e4_jview_open(e4_journal_t j, struct e4_jview **ret)
{
	struct e4_jview *v;
	struct sb_cmp same;
	struct stat st;
	errcode_t retval;

	*ret = NULL;
	retval = ext2fs_get_memzero(sizeof(*v), &v);
	if (retval)
		return retval;
	v->j = j;
	v->fd = -1;
	v->fallback = 1;
	v->pagesize = sysconf(_SC_PAGESIZE);
	if (v->pagesize <= 0)
		v->pagesize = 4096;
	*ret = v;
	if (getenv("E4_NO_MMAP") || !mappable(j) || io_channel_flush(j->io))
		return 0;
	/* No guard, no mapping: a truncation would kill the process. */
	if (!jv_install())
		return 0;
	v->fd = open(j->io->name, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0)
		return 0;
	v->own_fd = 1;
	/* A regular file only: its size is what fstat(2) says, checked
	 * before every use (size_same()); a block device's reads stay on
	 * the channel. */
	if (fstat(v->fd, &st) || !S_ISREG(st.st_mode))
		goto off;
	v->size = st.st_size;
	if (v->size <= 0)
		goto off;
	/* the same bytes both ways, or the mapping is not the channel's */
	same.j = j;
	same.same = 0;
	if (e4_jview_apply(v, j->sb_jblk, 1, NULL, sb_same, &same) ||
	    !same.same)
		goto off;
	if (!no_offset(v))
		goto off;
	return 0;
off:
	unmap_window(v);
	close(v->fd);
	v->fd = -1;
	v->own_fd = 0;
	return 0;
}

errcode_t e4_jview_dup(const struct e4_jview *v, struct e4_jview **ret)
{
	struct e4_jview *d;
	errcode_t retval;

	*ret = NULL;
	if (v->fd < 0)
		return EXT2_ET_OP_NOT_SUPPORTED;
	retval = ext2fs_get_memzero(sizeof(*d), &d);
	if (retval)
		return retval;
	d->j = v->j;
	d->fd = v->fd;
	d->nomap = v->nomap;
	d->changed = v->changed;
	d->size = v->size;
	d->pagesize = v->pagesize;
	*ret = d;
	return 0;
}

int e4_jview_mapped(const struct e4_jview *v)
{
	return v && v->fd >= 0 && !v->nomap;
}

errcode_t e4_jview_get(struct e4_jview *v, blk64_t jblk, blk64_t count,
		       unsigned char *buf, const unsigned char **data)
{
	unsigned int bs = v->j->blocksize;
	const unsigned char *m;
	blk64_t len;
	off_t off;

	*data = NULL;
	if (v->changed || (v->fd >= 0 && !v->nomap && !size_same(v)))
		return E4_ERR_CHANGED_SIZE;
	if (e4_jview_mapped(v) && count &&
	    !phys_run(v->j, jblk, count, &off, &len) && len == count &&
	    count <= JVIEW_WINDOW / bs) {
		m = mapped(v, off, count * bs);
		if (m) {
			*data = m;
			return 0;
		}
	}
	if (!v->fallback || !buf)
		return EXT2_ET_OP_NOT_SUPPORTED;
	*data = buf;
	return e4_journal_read(v->j, jblk, count, buf);
}

int e4_jview_changed(const struct e4_jview *v)
{
	return v && v->changed;
}

errcode_t e4_jview_apply(struct e4_jview *v, blk64_t jblk, blk64_t count,
			 unsigned char *buf, e4_jview_fn fn, void *arg)
{
	const unsigned char *d;
	struct jv_guard g;
	errcode_t retval;

	e4_jview_unpin(v);
	retval = e4_jview_get(v, jblk, count, buf, &d);
	if (retval)
		return retval;
	if (d == buf) {		/* read through the channel: ours */
		fn(arg, d);
		return 0;
	}
	g.lo = d;
	g.hi = d + count * v->j->blocksize;
	if (sigsetjmp(g.env, 0)) {
		/* SIGBUS in [lo, hi): the file shrank under the read */
		e4_jview_unpin(v);
		unmap_window(v);
		v->nomap = 1;
		v->changed = 1;
		return E4_ERR_CHANGED_SIZE;
	}
	jv_cur = &g;
	fn(arg, d);
	jv_cur = NULL;
	e4_jview_unpin(v);
	return 0;
}

void e4_jview_unpin(struct e4_jview *v)
{
	if (v)
		v->pinned = 0;
}

void e4_jview_close(struct e4_jview *v)
{
	if (!v)
		return;
	unmap_window(v);
	if (v->own_fd && v->fd >= 0)
		close(v->fd);
	ext2fs_free_mem(&v);
}
