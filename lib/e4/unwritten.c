/*
 * unwritten.c --- unwritten extents: list the leaf extents of one inode or
 * of every inode with their unwritten flag, and mark a range of a file's
 * blocks unwritten or written, through libext2fs's extent API.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "e4_int.h"

/* Kernel fs/ext4/ext4_extents.h: EXT_INIT_MAX_LEN, EXT_UNWRITTEN_MAX_LEN. */
#define UW_INIT_MAX_LEN		32768U
#define UW_UNWRITTEN_MAX_LEN	32767U
#define UW_MAX_LBLK		0xffffffffULL	/* first lblk past the map */

static unsigned int max_len(int unwritten)
{
	return unwritten ? UW_UNWRITTEN_MAX_LEN : UW_INIT_MAX_LEN;
}

static void count_extent(struct e4_extent_totals *t,
			 const struct e4_extent_rec *r, int *file_has_uw)
{
	if (!t)
		return;
	t->extents++;
	t->blocks += r->len;
	if (r->unwritten) {
		t->unwritten_extents++;
		t->unwritten_blocks += r->len;
		if (!*file_has_uw)
			t->files_unwritten++;
		*file_has_uw = 1;
	}
}

/*
 * Walk the leaf extents of @ino (@inode is its inode or NULL) in lblk
 * order.  Returns 0, E4_ERR_EXT_ABORTED when the callback stopped the walk,
 * or the libext2fs error.
 */
static errcode_t walk_inode(ext2_filsys fs, ext2_ino_t ino,
			    struct ext2_inode *inode, int flags,
			    e4_extent_func func, void *priv,
			    struct e4_extent_totals *totals)
{
	ext2_extent_handle_t handle;
	struct ext2fs_extent ext;
	struct ext2_extent_info info;
	struct e4_extent_rec rec;
	int has_uw = 0, op = EXT2_EXTENT_ROOT;
	errcode_t retval;

	retval = ext2fs_extent_open2(fs, ino, inode, &handle);
	if (retval)
		return retval;
	if (totals)
		totals->files++;
	while (1) {
		retval = ext2fs_extent_get(handle, op, &ext);
		op = EXT2_EXTENT_NEXT;
		if (retval == EXT2_ET_EXTENT_NO_NEXT) {
			retval = 0;
			break;
		}
		if (retval)
			break;
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			continue;
		if (ext.e_len == 0)
			continue;	/* empty root: no extents */
		memset(&rec, 0, sizeof(rec));
		rec.ino = ino;
		rec.lblk = ext.e_lblk;
		rec.pblk = ext.e_pblk;
		rec.len = ext.e_len;
		rec.unwritten = !!(ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT);
		ext2fs_extent_get_info(handle, &info);
		rec.depth = info.max_depth;
		count_extent(totals, &rec, &has_uw);
		if (!func || ((flags & E4_EXT_UNWRITTEN_ONLY) &&
			      !rec.unwritten))
			continue;
		if (func(fs, &rec, priv)) {
			retval = E4_ERR_EXT_ABORTED;
			break;
		}
	}
	ext2fs_extent_free(handle);
	return retval;
}

/* A block-mapped walk: the run being built, reported when it ends. */
struct bm_walk {
	ext2_filsys		fs;
	e4_extent_func		func;
	void			*priv;
	struct e4_extent_totals	*totals;
	struct e4_extent_rec	rec;	/* len 0: none */
	int			aborted;
};

static int bm_flush(struct bm_walk *w)
{
	int has_uw = 0;

	if (!w->rec.len)
		return 0;
	count_extent(w->totals, &w->rec, &has_uw);
	if (w->func && w->func(w->fs, &w->rec, w->priv))
		w->aborted = 1;
	w->rec.len = 0;
	return w->aborted;
}

static int bm_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		 blk64_t ref_blk, int ref_offset, void *priv)
{
	struct bm_walk *w = priv;
	struct e4_extent_rec *r = &w->rec;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0)
		return 0;	/* indirect blocks: metadata */
	if (r->len && r->lblk + r->len == (blk64_t)blockcnt &&
	    r->pblk + r->len == *blocknr) {
		r->len++;
		return 0;
	}
	if (bm_flush(w))
		return BLOCK_ABORT;
	r->lblk = (blk64_t)blockcnt;
	r->pblk = *blocknr;
	r->len = 1;
	return 0;
}

/*
 * Walk the data blocks of the block-mapped inode @ino (@inode its inode)
 * in lblk order (ext2fs_block_iterate3(), BLOCK_FLAG_DATA_ONLY: indirect
 * blocks are not reported), one record per run of logically and
 * physically contiguous blocks, initialized (a block map has no unwritten
 * state: every mapped block reads as its contents).  Returns as
 * walk_inode().
 */
static errcode_t walk_blockmap(ext2_filsys fs, ext2_ino_t ino,
			       struct ext2_inode *inode, e4_extent_func func,
			       void *priv, struct e4_extent_totals *totals)
{
	struct bm_walk w;
	errcode_t retval;

	memset(&w, 0, sizeof(w));
	w.fs = fs;
	w.func = func;
	w.priv = priv;
	w.totals = totals;
	w.rec.ino = ino;
	w.rec.block_mapped = 1;
	if (totals)
		totals->files++;
	if (!ext2fs_inode_has_valid_blocks2(fs, inode))
		return 0;	/* fast symlink, device: no blocks */
	retval = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY |
				       BLOCK_FLAG_DATA_ONLY, NULL, bm_cb, &w);
	if (!retval && !w.aborted)
		bm_flush(&w);
	if (w.aborted)
		return E4_ERR_EXT_ABORTED;
	return retval;
}

/*
 * Inodes whose blocks the kernel reads by themselves (ext4_get_journal_inode,
 * quota, resize and orphan file): their extents must stay written.
 */
/* Common checks on an inode number; reads the inode into @inode. */
static errcode_t get_inode(ext2_filsys fs, ext2_ino_t ino,
			   struct ext2_inode *inode)
{
	return e4_read_inode(fs, ino, inode, sizeof(*inode));
}

errcode_t e4_inode_extents(ext2_filsys fs, ext2_ino_t ino, int flags,
			   e4_extent_func func, void *priv,
			   struct e4_extent_totals *totals)
{
	struct ext2_inode inode;
	errcode_t retval;

	e4_error_tables_init();
	retval = get_inode(fs, ino, &inode);
	if (retval)
		return retval;
	if (inode.i_flags & EXT4_INLINE_DATA_FL)
		return E4_ERR_INLINE_DATA;
	if (!(inode.i_flags & EXT4_EXTENTS_FL))
		return E4_ERR_NOT_EXTENT_INODE;
	return walk_inode(fs, ino, &inode, flags, func, priv, totals);
}

errcode_t e4_fs_extents(ext2_filsys fs, int flags, e4_extent_func func,
			void *priv, struct e4_extent_totals *totals)
{
	ext2_inode_scan scan = NULL;
	struct ext2_inode *inode = NULL;
	struct e4_extent_rec rec;
	int isize = EXT2_INODE_SIZE(fs->super);
	ext2_ino_t ino;
	errcode_t retval;

	e4_error_tables_init();
	if (!fs->inode_map) {
		retval = ext2fs_read_inode_bitmap(fs);
		if (retval)
			return retval;
	}
	retval = ext2fs_get_memzero(isize, &inode);
	if (retval)
		return retval;
	retval = ext2fs_open_inode_scan(fs, 0, &scan);
	if (retval)
		goto out;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	while (1) {
		retval = ext2fs_get_next_inode_full(scan, &ino, inode, isize);
		if (retval == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (retval == EXT2_ET_INODE_CSUM_INVALID ||
		    retval == EXT2_ET_INODE_IS_GARBAGE) {
			if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
				continue;
			goto bad_inode;
		}
		if (retval)
			goto out;
		if (!ino)
			break;
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino) ||
		    (inode->i_flags & EXT4_INLINE_DATA_FL))
			continue;
		if (inode->i_flags & EXT4_EXTENTS_FL)
			retval = walk_inode(fs, ino, inode, flags, func, priv,
					    totals);
		else if ((flags & E4_EXT_BLOCK_MAPPED) &&
			 !(flags & E4_EXT_UNWRITTEN_ONLY))
			retval = walk_blockmap(fs, ino, inode, func, priv,
					       totals);
		else
			continue;
		if (retval == E4_ERR_EXT_ABORTED)
			goto out;
		if (!retval)
			continue;
bad_inode:
		if (totals)
			totals->bad_inodes++;
		memset(&rec, 0, sizeof(rec));
		rec.ino = ino;
		rec.error = retval;
		retval = 0;
		if (func && func(fs, &rec, priv)) {
			retval = E4_ERR_EXT_ABORTED;
			goto out;
		}
	}
	retval = 0;
out:
	if (scan)
		ext2fs_close_inode_scan(scan);
	ext2fs_free_mem(&inode);
	return retval;
}

/* ---- marking ranges ---------------------------------------------------- */

struct plan_ext {
	blk64_t	lblk;
	blk64_t	pblk;
	blk64_t	len;
	int	unwritten;
};

/* The part [*@a, *@b) of @e inside [@lblk, @end) (lblks) that a mark
 * to @to_uw changes; 0 when there is none. */
static int plan_clip(const struct plan_ext *e, int to_uw, blk64_t lblk,
		     blk64_t end, blk64_t *a, blk64_t *b)
{
	if (e->unwritten == to_uw || e->lblk + e->len <= lblk ||
	    e->lblk >= end)
		return 0;
	*a = e->lblk > lblk ? e->lblk : lblk;
	*b = e->lblk + e->len < end ? e->lblk + e->len : end;
	return 1;
}

struct plan {
	struct plan_ext	*v;
	size_t		n, cap;
	blk64_t		last_end;	/* first lblk past the last extent */
};

static int plan_add(ext2_filsys fs EXT2FS_ATTR((unused)),
		    const struct e4_extent_rec *r, void *priv)
{
	struct plan *p = priv;
	struct plan_ext *nv;

	if (r->lblk + r->len > p->last_end)
		p->last_end = r->lblk + r->len;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		nv = realloc(p->v, p->cap * sizeof(*nv));
		if (!nv)
			return 1;
		p->v = nv;
	}
	p->v[p->n].lblk = r->lblk;
	p->v[p->n].pblk = r->pblk;
	p->v[p->n].len = r->len;
	p->v[p->n].unwritten = r->unwritten;
	p->n++;
	return 0;
}

/*
 * Check the request against the extent list and fill @res with what would
 * change.  Returns 0 or the E4_ERR_* the request fails with.
 */
static errcode_t plan_check(ext2_filsys fs, const struct ext2_inode *inode,
			    const struct plan *p, blk64_t lblk, blk64_t len,
			    int flags, struct e4_mark_result *res)
{
	int to_uw = !!(flags & E4_MARK_UNWRITTEN);
	blk64_t end = lblk + len, pos = lblk, a, b, eof;
	size_t i;

	/*
	 * The file ends at i_size rounded up to a block; unwritten extents
	 * may lie past it (fallocate KEEP_SIZE), initialized ones may not
	 * (e2fsck pass1 check_blocks(): last_init_lblock vs i_size).
	 */
	eof = (EXT2_I_SIZE(inode) + fs->blocksize - 1) / fs->blocksize;
	if (to_uw && p->last_end > eof)
		eof = p->last_end;
	if (end > eof)
		return E4_ERR_PAST_EOF;
	for (i = 0; i < p->n; i++) {
		const struct plan_ext *e = &p->v[i];

		if (e->lblk + e->len <= lblk)
			continue;
		if (e->lblk >= end)
			break;
		a = e->lblk > lblk ? e->lblk : lblk;
		b = e->lblk + e->len < end ? e->lblk + e->len : end;
		if (a > pos) {
			if (!(flags & E4_MARK_SKIP_HOLES))
				return E4_ERR_HOLE_IN_RANGE;
			res->hole_blocks += a - pos;
		}
		pos = b;
		if (e->unwritten == to_uw) {
			res->unchanged_blocks += b - a;
			continue;
		}
		res->extents_changed++;
		res->blocks_changed += b - a;
		if (!to_uw && !(flags & E4_MARK_KEEP_CONTENTS))
			res->blocks_zeroed += b - a;
	}
	if (pos < end) {
		if (!(flags & E4_MARK_SKIP_HOLES))
			return E4_ERR_HOLE_IN_RANGE;
		res->hole_blocks += end - pos;
	}
	return 0;
}

/*
 * Zero fs blocks [pblk, pblk+count); the caller has flushed fs->io.
 * Short runs are written as zero blocks.  Long ones go to
 * io_channel_zeroout() (BLKZEROOUT on a device, a punched or zeroed range
 * in an image file), which in e2fsprogs 1.47 leaves unix_io's block cache
 * stale; so its first ZERO_DIRECT blocks are then written again in one
 * write of more than unix_io's WRITE_DIRECT_SIZE (4) blocks, which drops
 * that cache.  Without zeroout, plain writes.
 */
#define ZERO_DIRECT	8
static errcode_t zero_blocks(ext2_filsys fs, blk64_t pblk, blk64_t count)
{
	errcode_t retval = EXT2_ET_UNIMPLEMENTED;
	char *buf;
	blk64_t n, chunk = 256;

	if (count > ZERO_DIRECT)
		retval = io_channel_zeroout(fs->io, pblk, count);
	if (retval && retval != EXT2_ET_UNIMPLEMENTED &&
	    retval != EXT2_ET_OP_NOT_SUPPORTED)
		return retval;
	if (!retval)
		count = ZERO_DIRECT;
	if (chunk > count)	/* a 4-block extent needs no 256-block buffer */
		chunk = count;
	retval = ext2fs_get_memzero((size_t)fs->blocksize * chunk, &buf);
	if (retval)
		return retval;
	while (count) {
		n = count < chunk ? count : chunk;
		retval = io_channel_write_blk64(fs->io, pblk, (int)n, buf);
		if (retval)
			break;
		pblk += n;
		count -= n;
	}
	ext2fs_free_mem(&buf);
	return retval;
}

/*
 * Convert [a, b) of the leaf extent @e to @to_uw: it becomes up to three
 * parts, [e->lblk, a) and [b, end) keeping the old flag and [a, b) with the
 * new one, cut into pieces of at most max_len(@to_uw) blocks.  The first
 * part replaces @e; the others are inserted after it (libext2fs splits
 * full nodes, allocating blocks).
 */
static errcode_t convert_one(ext2_extent_handle_t h,
			     const struct plan_ext *e, blk64_t a, blk64_t b,
			     int to_uw)
{
	struct ext2fs_extent x;
	blk64_t end = e->lblk + e->len, pos, n;
	int first = 1;
	errcode_t retval;

	retval = extent_goto_start(h, e->lblk, &x);
	if (retval)
		return retval;
	if (a > e->lblk) {
		set_ext(&x, e->lblk, e->pblk, a - e->lblk, e->unwritten);
		retval = ext2fs_extent_replace(h, 0, &x);
		if (retval)
			return retval;
		first = 0;
	}
	for (pos = a; pos < b; pos += n) {
		n = b - pos;
		if (n > max_len(to_uw))
			n = max_len(to_uw);
		set_ext(&x, pos, e->pblk + (pos - e->lblk), n, to_uw);
		if (first)
			retval = ext2fs_extent_replace(h, 0, &x);
		else
			retval = ext2fs_extent_insert(h,
						EXT2_EXTENT_INSERT_AFTER, &x);
		if (retval)
			return retval;
		first = 0;
	}
	if (b < end) {
		set_ext(&x, b, e->pblk + (b - e->lblk), end - b, e->unwritten);
		retval = ext2fs_extent_insert(h, EXT2_EXTENT_INSERT_AFTER, &x);
		if (retval)
			return retval;
	}
	return ext2fs_extent_fix_parents(h);
}

static int mergeable(const struct ext2fs_extent *x,
		     const struct ext2fs_extent *y)
{
	int xu = !!(x->e_flags & EXT2_EXTENT_FLAGS_UNINIT);
	int yu = !!(y->e_flags & EXT2_EXTENT_FLAGS_UNINIT);

	/* Kernel fs/ext4/extents.c ext4_can_extents_be_merged(). */
	return xu == yu && x->e_lblk + x->e_len == y->e_lblk &&
		x->e_pblk + x->e_len == y->e_pblk &&
		x->e_len + y->e_len <= max_len(xu);
}

/*
 * Merge neighbours in the same leaf node, for every left neighbour from
 * the extent holding (or preceding) @from to the last one starting before
 * @to, as the kernel's ext4_ext_try_to_merge() does (it never merges
 * across leaves either).
 */
static errcode_t merge_range(ext2_extent_handle_t h, blk64_t from,
			     blk64_t to, uint64_t *merged)
{
	struct ext2fs_extent cur, nxt;
	errcode_t retval;

	retval = ext2fs_extent_goto2(h, 0, from);
	if (retval && retval != EXT2_ET_EXTENT_NOT_FOUND)
		return retval;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &cur);
	if (retval)
		return retval;
	while (cur.e_lblk < to) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, &nxt);
		if (retval == EXT2_ET_EXTENT_NO_NEXT) {
			/* first extent of the next leaf, if any */
			retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_LEAF,
						   &cur);
			if (retval == EXT2_ET_EXTENT_NO_NEXT)
				return 0;
			if (retval)
				return retval;
			continue;
		}
		if (retval)
			return retval;
		if (!mergeable(&cur, &nxt)) {
			cur = nxt;
			continue;
		}
		/* Delete the right one (never the first of its node, so no
		 * index changes), then widen the left one. */
		retval = ext2fs_extent_delete(h, 0);
		if (retval)
			return retval;
		cur.e_len += nxt.e_len;
		retval = extent_goto_start(h, cur.e_lblk, &nxt);
		if (retval)
			return retval;
		retval = ext2fs_extent_replace(h, 0, &cur);
		if (retval)
			return retval;
		(*merged)++;
	}
	return 0;
}

/* e4_block_owner_check() on the parts of @p that a mark to @to_uw of
 * [@lblk, @end) changes. */
static errcode_t check_owner(ext2_filsys fs, ext2_ino_t ino,
			     const struct plan *p, blk64_t lblk, blk64_t end,
			     int to_uw, struct e4_block_conflict *c)
{
	struct e4_block_run *runs;
	blk64_t a, b;
	size_t i, n = 0;
	errcode_t retval;

	retval = ext2fs_get_array(p->n ? p->n : 1, sizeof(*runs), &runs);
	if (retval)
		return retval;
	for (i = 0; i < p->n; i++) {
		const struct plan_ext *e = &p->v[i];

		if (!plan_clip(e, to_uw, lblk, end, &a, &b))
			continue;
		runs[n].lblk = a;
		runs[n].pblk = e->pblk + (a - e->lblk);
		runs[n].len = b - a;
		n++;
	}
	retval = e4_block_owner_check(fs, ino, runs, n, 0, c);
	ext2fs_free_mem(&runs);
	return retval;
}

errcode_t e4_mark_range(ext2_filsys fs, e4_journal_t j, ext2_ino_t ino,
			blk64_t lblk, blk64_t len, int flags,
			struct e4_mark_result *res)
{
	struct e4_txn *txn = NULL;
	struct e4_mark_result dummy;
	struct ext2_inode inode;
	struct plan p;
	ext2_extent_handle_t h = NULL;
	int to_uw = !!(flags & E4_MARK_UNWRITTEN);
	blk64_t end = lblk + len, a, b;
	errcode_t retval;
	size_t i;

	e4_error_tables_init();
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	memset(&p, 0, sizeof(p));
	retval = get_inode(fs, ino, &inode);
	if (retval)
		return retval;
	if (e4_inode_kind(fs, ino) != E4_INO_FILE)
		return E4_ERR_RESERVED_INODE;
	if (!LINUX_S_ISREG(inode.i_mode))
		return E4_ERR_NOT_REGULAR;
	if (inode.i_flags & EXT4_INLINE_DATA_FL)
		return E4_ERR_INLINE_DATA;
	if (!(inode.i_flags & EXT4_EXTENTS_FL))
		return E4_ERR_NOT_EXTENT_INODE;
	if (ext2fs_has_feature_bigalloc(fs->super))
		return E4_ERR_BIGALLOC;
	if (len == 0 || lblk >= UW_MAX_LBLK || len > UW_MAX_LBLK - lblk)
		return E4_ERR_RANGE;

	/* Pass 1: read every leaf extent and validate; writes nothing. */
	retval = walk_inode(fs, ino, &inode, 0, plan_add, &p, NULL);
	if (retval == E4_ERR_EXT_ABORTED)
		retval = EXT2_ET_NO_MEMORY;
	if (!retval)
		retval = plan_check(fs, &inode, &p, lblk, len, flags, res);
	/* Extents are data: every block whose state changes (zeroed, or
	 * made readable or unreadable) must be this file's alone, in the
	 * fs and no metadata (block_owner.c); a dry run says the same. */
	if (!retval && res->extents_changed)
		retval = check_owner(fs, ino, &p, lblk, end, to_uw,
				     &res->conflict);
	if (retval || (flags & E4_MARK_DRY_RUN) || !res->extents_changed)
		goto out;
	if (!(fs->flags & EXT2_FLAG_RW)) {
		retval = EXT2_ET_RO_FILSYS;
		goto out;
	}

	/*
	 * Pass 2: zero what becomes readable, before it becomes so.  Dirty
	 * cached blocks go out first, so none lands on the zeros later.
	 */
	if (!to_uw && !(flags & E4_MARK_KEEP_CONTENTS)) {
		retval = io_channel_flush(fs->io);
		if (retval)
			goto out;
	}
	for (i = 0; i < p.n && !to_uw && !(flags & E4_MARK_KEEP_CONTENTS);
	     i++) {
		const struct plan_ext *e = &p.v[i];

		if (!plan_clip(e, to_uw, lblk, end, &a, &b))
			continue;
		retval = zero_blocks(fs, e->pblk + (a - e->lblk), b - a);
		if (retval)
			goto out;
	}
	if (!to_uw && !(flags & E4_MARK_KEEP_CONTENTS)) {
		retval = io_channel_flush(fs->io);
		if (retval)
			goto out;
	}

	/*
	 * Pass 3: flip the flags, extent by extent, then merge; with a
	 * journal as one transaction.
	 */
	if (!fs->block_map) {
		retval = ext2fs_read_block_bitmap(fs);
		if (retval)
			goto out;
	}
	if (j) {
		retval = e4_txn_begin(fs, j, &txn);
		if (retval)
			goto out;
	}
	retval = ext2fs_extent_open2(fs, ino, NULL, &h);
	if (retval)
		goto out;
	for (i = 0; i < p.n; i++) {
		const struct plan_ext *e = &p.v[i];

		if (!plan_clip(e, to_uw, lblk, end, &a, &b))
			continue;
		retval = convert_one(h, e, a, b, to_uw);
		if (retval)
			goto out;
	}
	retval = merge_range(h, lblk ? lblk - 1 : 0, end, &res->merges);
out:
	if (h)
		ext2fs_extent_free(h);
	if (txn && retval)
		e4_txn_abort(txn);
	else if (txn) {
		retval = e4_txn_commit(txn, &res->txn);
		res->journaled = !retval;
	}
	free(p.v);
	return retval;
}
