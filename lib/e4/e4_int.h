/*
 * e4_int.h --- small helpers several libe4 files share (sorting, growing
 * arrays, comparing fs block numbers).  Private to libe4.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_INT_H
#define E4_INT_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"

/* qsort() that accepts an empty (NULL) array. */
static inline void xsort(void *a, size_t n, size_t sz,
			 int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(a, n, sz, cmp);
}

/*
 * Make room for @want elements of @sz bytes in the array at *@pptr (a
 * pointer to the array pointer), which holds *@alloc: doubling from 16.
 * Returns 0 or EXT2_ET_NO_MEMORY (the array is unchanged).
 */
static inline errcode_t grow(void *pptr, size_t *alloc, size_t want,
			     size_t sz)
{
	size_t na;
	errcode_t retval;

	if (want <= *alloc)
		return 0;
	na = *alloc ? *alloc : 16;
	while (na < want)
		na *= 2;
	retval = ext2fs_resize_mem(*alloc * sz, na * sz, pptr);
	if (retval)
		return retval;
	*alloc = na;
	return 0;
}

/*
 * Put extent handle @h on the leaf extent that starts at lblk @lblk (fs
 * blocks) and read it into *@x.  Returns 0, EXT2_ET_EXTENT_NOT_FOUND when
 * no leaf extent starts there, or libext2fs's extent errors.
 */
static inline errcode_t extent_goto_start(ext2_extent_handle_t h,
					  blk64_t lblk, struct ext2fs_extent *x)
{
	errcode_t retval;

	retval = ext2fs_extent_goto2(h, 0, lblk);
	if (!retval)
		retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, x);
	if (!retval && x->e_lblk != lblk)
		retval = EXT2_ET_EXTENT_NOT_FOUND;
	return retval;
}

/* Fill *@x as a leaf extent of @len fs blocks from @lblk to @pblk,
 * unwritten when @unwritten (for ext2fs_extent_replace/insert). */
static inline void set_ext(struct ext2fs_extent *x, blk64_t lblk,
			   blk64_t pblk, blk64_t len, int unwritten)
{
	memset(x, 0, sizeof(*x));
	x->e_lblk = lblk;
	x->e_pblk = pblk;
	x->e_len = (__u32)len;
	x->e_flags = unwritten ? EXT2_EXTENT_FLAGS_UNINIT : 0;
}

/* qsort()/bsearch() order of blk64_t values. */
static inline int blk_cmp(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

/* qsort()/bsearch() order of ext2_ino_t values. */
static inline int ino_cmp(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

/* An inode to name and where its path goes (e4_resolve_paths()). */
struct e4_path_req {
	ext2_ino_t	ino;
	char		**path;	/* set to "/dir/name" (ext2fs_free_mem())
				 * when found; left alone if already set */
};

/*
 * e4_resolve_paths() (inode.c) - name the inodes of @req (sorted here by
 * ino) in @fs: one inode scan, every live directory's entries looked up
 * in @req; an inode with several names gets the first found.  Best
 * effort: what cannot be read or allocated stays unnamed.
 */
void e4_resolve_paths(ext2_filsys fs, struct e4_path_req *req, size_t n);

/* ---- common.c ----------------------------------------------------------- */

/*
 * Size-versioned structures the caller allocates (struct e4_replay_result,
 * e4_order_opts): a size_t "size" first, set by their e4_*_init() to the
 * size the caller was compiled with.  E4_STRUCT_SIZE_MAX bounds a size
 * field read from an uninitialized struct.
 */
#define E4_STRUCT_SIZE_MAX	4096
/* The first release's sizes (0.1.0: up to its last member); they never
 * change, whatever is added at the end later. */
#define E4_REPLAY_RESULT_SIZE0	(offsetof(struct e4_replay_result, \
					  sb_layout_changed) + sizeof(int))
#define E4_ORDER_OPTS_SIZE0	(offsetof(struct e4_order_opts, \
					  image_is_s0) + sizeof(int))

/* e4_struct_size_ok() - the size rule for a caller's struct of @size
 * bytes whose first release was @size0 bytes: 0 when it may be used,
 * E4_ERR_STRUCT_UNINIT for 0 (a zeroed struct), E4_ERR_STRUCT_SIZE below
 * @size0 or above E4_STRUCT_SIZE_MAX. */
errcode_t e4_struct_size_ok(size_t size, size_t size0);

/* e4_struct_init() - zero the caller's @size bytes at @user, then copy in
 * the first min(@size, @ksize) bytes of @defaults (this libe4's struct of
 * @ksize bytes, defaults set), and store @size in its size field.  Returns
 * e4_struct_size_ok()'s code (nothing written unless 0). */
errcode_t e4_struct_init(void *user, size_t size, size_t size0,
			 const void *defaults, size_t ksize);

/* e4_struct_in() - an input struct: *@k (@ksize bytes, defaults set) takes
 * the members the caller's @user knows (min of its size field and
 * @ksize); a larger @user is accepted only when the bytes this libe4 does
 * not know are zero (as the kernel's copy_struct_from_user()).  @k's size
 * field stays @ksize.  Returns 0, E4_ERR_STRUCT_UNINIT or
 * E4_ERR_STRUCT_SIZE (*@k untouched). */
errcode_t e4_struct_in(void *k, size_t ksize, const void *user,
		       size_t size0);

/* e4_struct_out() - an output struct: the caller's @user gets the first
 * min(its size field, @ksize) bytes of @k, its size field kept; bytes
 * past @ksize (a newer caller's members) are left as its init set them. */
void e4_struct_out(void *user, const void *k, size_t ksize);

/* e4_replay_progress_in() - the caller's progress callback and its
 * argument (the in members of struct e4_replay_result) into this libe4's
 * @k, when @user's size holds them; else none. */
void e4_replay_progress_in(struct e4_replay_result *k,
			   const struct e4_replay_result *user);

/* e4_vadd_warning() - format a warning into the next of the @max slots
 * of @width bytes at @slots (*@n used so far); a report keeps the first
 * @max.  Lines are cut at @width - 1 bytes. */
void e4_vadd_warning(char *slots, size_t width, int max, int *n,
		     const char *fmt, va_list ap);


/* e4_chan_new() - a channel of @mgr named @name (copied) with @priv as
 * its private data, block size 1024, one reference.  Returns 0 or
 * EXT2_ET_NO_MEMORY. */
errcode_t e4_chan_new(io_manager mgr, const char *name, void *priv,
		      io_channel *ret);

/* e4_chan_put() - drop a reference to @io; at the last one free the
 * channel (not its private data) and return 1, else 0. */
int e4_chan_put(io_channel io);

/* Read-only io_managers' entries: writes fail with E4_ERR_READ_ONLY,
 * flush does nothing, options are refused (EXT2_ET_INVALID_ARGUMENT). */
errcode_t e4_ro_write_blk64(io_channel channel, unsigned long long block,
			    int count, const void *data);
errcode_t e4_ro_write_blk(io_channel channel, unsigned long block,
			  int count, const void *data);
errcode_t e4_ro_write_byte(io_channel channel, unsigned long offset,
			   int count, const void *data);
errcode_t e4_ro_flush(io_channel channel);
errcode_t e4_ro_set_option(io_channel channel, const char *option,
			   const char *arg);

/* ---- jview.c: journal blocks read in place from the page cache -------- */

struct e4_jview;

/*
 * e4_jview_open() - a view of @j's jblocks: mapped from the file or block
 * device its channel names when the channel is plain unix_io (flushed
 * here) and the mapping reads the journal superblock and the file's last
 * whole block as the channel does (no offset= option on the channel);
 * otherwise every request reads through the channel.  E4_NO_MMAP in the
 * environment keeps the view off (tests of the channel path).  Returns 0
 * (*@ret set, e4_jview_close()) or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_jview_open(e4_journal_t j, struct e4_jview **ret);

/*
 * e4_jview_dup() - a second view on the same mapping file for another
 * thread, which never reads through the channel (io_channels are not
 * thread-safe): its e4_jview_get() returns EXT2_ET_OP_NOT_SUPPORTED for
 * what the mapping cannot serve.  Closed before the view it came from.
 * Returns 0, EXT2_ET_OP_NOT_SUPPORTED (@v has no file) or
 * EXT2_ET_NO_MEMORY.
 */
errcode_t e4_jview_dup(const struct e4_jview *v, struct e4_jview **ret);

/* e4_jview_mapped() - 1 when @v reads from a mapping. */
int e4_jview_mapped(const struct e4_jview *v);

/*
 * e4_jview_get() - *@data: @count consecutive jblocks from @jblk, valid
 * until e4_jview_unpin(@v): in the mapping when they lie in one physical
 * run and in the window mapped (which moves only when nothing is
 * pinned), else read into @buf (@count jblocks of room; NULL: no read).
 * Read-only either way.  Mapped bytes may fault (SIGBUS) if the file is
 * truncated meanwhile: read them only inside e4_jview_apply().  Returns
 * 0, E4_ERR_CHANGED_SIZE (the file's size is not what it was when the
 * view opened), EXT2_ET_OP_NOT_SUPPORTED (not mapped and no read
 * allowed) or e4_journal_read()'s errors.
 */
errcode_t e4_jview_get(struct e4_jview *v, blk64_t jblk, blk64_t count,
		       unsigned char *buf, const unsigned char **data);

/*
 * e4_jview_apply() - call @fn(@arg, data) on @count consecutive jblocks
 * from @jblk, the only safe use of mapped bytes: in the mapping as
 * e4_jview_get() serves them, under jview.c's SIGBUS guard (a file
 * truncated while @fn reads it: @fn stops where the fault hit, the view
 * gives up its mapping, E4_ERR_CHANGED_SIZE), else read into @buf (NULL:
 * no read).  @fn must not keep the pointer, and may be cut short at any
 * load of it (no locks taken, nothing allocated while it reads).
 * Returns 0, E4_ERR_CHANGED_SIZE (the file changed size: now or at an
 * earlier request), EXT2_ET_OP_NOT_SUPPORTED or e4_journal_read()'s
 * errors.  Thread-safe on distinct views (e4_jview_dup()).
 */
typedef void (*e4_jview_fn)(void *arg, const unsigned char *data);
errcode_t e4_jview_apply(struct e4_jview *v, blk64_t jblk, blk64_t count,
			 unsigned char *buf, e4_jview_fn fn, void *arg);

/* e4_jview_changed() - 1 once @v saw its file change size (every later
 * request fails with E4_ERR_CHANGED_SIZE). */
int e4_jview_changed(const struct e4_jview *v);

/* e4_jview_unpin() - the caller holds no pointer from @v any more: the
 * window may move. */
void e4_jview_unpin(struct e4_jview *v);

/* e4_jview_close() - unmap and free @v (NULL: nothing). */
void e4_jview_close(struct e4_jview *v);

/*
 * e4_wlog_dev_take_error() - the first error reading LOG or BASE (not a
 * read past the device's end) that @d met since the last call, cleared;
 * 0 if none.  A caller whose reader turns an I/O error into a verdict
 * (the journal scan: "jblock unreadable, recovery fails") asks it after
 * each such read, so a read error of the inputs stops the check instead.
 */
struct e4_wlog_dev;
errcode_t e4_wlog_dev_take_error(struct e4_wlog_dev *d);

/* ---- wlog_check.c: the per-commit hook of the reorder check ------------- */

/* A commit write whose transaction recovery at that write replays. */
struct e4_wlog_commit {
	uint32_t		tid;
	int64_t			commit_entry;	/* the commit write */
	e4_journal_t		j;	/* the device's journal there */
	const struct e4_jscan	*scan;	/* its scan */
	const struct e4_jtrans	*t;	/* the transaction in it */
};

typedef errcode_t (*e4_wlog_commit_fn)(void *priv,
				       const struct e4_wlog_commit *cm);

/*
 * e4_wlog_check_hooks() - e4_wlog_check_newblk() that also hands each
 * replayable commit write to @cfn (NULL: none), before its new blocks go
 * to @fn; both get @priv.  The device's point is at the commit write and
 * must not be moved by @cfn (its drop set may change if restored).  Same
 * returns, plus what the callbacks return.
 */
errcode_t e4_wlog_check_hooks(e4_wlog_dev_t d,
			      const struct e4_wlog_check_opts *o,
			      e4_wlog_newblk_fn fn, e4_wlog_commit_fn cfn,
			      void *priv, struct e4_wlog_report **ret);

/*
 * e4_wlog_dev_base_spb() - log sectors per fs block of BASE: its
 * superblock read through @d at point -1 (BASE; the point is left
 * there, with whatever drop set is in place).  0, an error of the open,
 * or EXT2_ET_INVALID_ARGUMENT when the fs block is smaller than a log
 * sector (wlog_io.c).
 */
errcode_t e4_wlog_dev_base_spb(e4_wlog_dev_t d, uint64_t *spb);

/* ---- wlog.c: the FLUSH index of a write log ------------------------------ */

/*
 * e4_wlog_flushes() - the entries of @log that carry FLUSH, ascending,
 * into a new array *@ret of *@n (NULL, 0: none; free with
 * ext2fs_free_mem()).  Returns 0 or EXT2_ET_NO_MEMORY.
 * e4_wlog_flush_next() - the first of them after entry @after, or
 * INT64_MAX; e4_wlog_flush_prev() - the last before entry @entry, or -1.
 * O(log n): the one search of wlog_check.c, wlog_reorder.c.
 */
errcode_t e4_wlog_flushes(const struct e4_wlog *log, int64_t **ret,
			  size_t *n);
int64_t e4_wlog_flush_next(const int64_t *fl, size_t n, int64_t after);
int64_t e4_wlog_flush_prev(const int64_t *fl, size_t n, int64_t entry);
/* e4_wlog_flush_count() - how many of them lie in (@after, @upto]. */
size_t e4_wlog_flush_count(const int64_t *fl, size_t n, int64_t after,
			   int64_t upto);

/*
 * e4_journal_scan_resume() - e4_journal_scan(@j, 0, 0, @ret), reusing
 * @prev, a scan of @pj (the same journal at an earlier state of its
 * device): when the caller knows that no journal block @prev walked from
 * its start to its last committed transaction's commit block has changed
 * since, the committed transactions of @prev from @j's s_sequence on are
 * copied (their tags and revokes as read then) and the walk goes on after
 * the last one's commit block (fs/jbd2/recovery.c do_one_pass(): the scan
 * reads each block once, in order, its state at a commit boundary being
 * just the next jblock, the next tid and the last commit time).  Falls
 * back to a full scan unless the two journals have the same layout,
 * features, uuid and log area, @j's s_start is the first block of one of
 * @prev's committed transactions with s_sequence its tid, and @prev ended
 * normally (no event, no failure, no upto, no pending checksum).  @pj or
 * @prev NULL: a full scan.  Returns e4_journal_scan()'s values.
 */
errcode_t e4_journal_scan_resume(e4_journal_t j, e4_journal_t pj,
				 const struct e4_jscan *prev,
				 struct e4_jscan **ret);

#endif /* E4_INT_H */
