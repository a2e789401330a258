/*
 * orphan.c --- the kernel's orphan cleanup after the journal replay, as
 * the mount runs it (fs/ext4/orphan.c ext4_orphan_cleanup() and
 * ext4_process_orphan(); fs/ext4/ialloc.c ext4_orphan_get()): the
 * s_last_orphan chain (linked through i_dtime), then the entries of the
 * orphan_file blocks.  An orphan with no links is freed with its blocks,
 * extent tree blocks and xattr block (ext4_evict_inode()); one with
 * links is truncated to i_size (ext4_truncate()).  Done through
 * libext2fs on an open fs.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "e4.h"
#include "e4_int.h"

#define ORPHAN_TAIL_MAGIC	0x0b10ca04

/* Remember the first problem met, and count them all. */
static void problem(struct e4_orphan_result *res, ext2_ino_t ino,
		    const char *what)
{
	if (!res->nproblems++) {
		res->problem_ino = ino;
		snprintf(res->problem, sizeof(res->problem), "%s", what);
	}
}

static errcode_t add_ent(struct e4_orphan_result *res,
			 const struct e4_orphan_ent *e)
{
	errcode_t retval;

	if (res->nents == res->cap) {
		size_t cap = res->cap ? res->cap * 2 : 16;

		retval = ext2fs_resize_array(sizeof(*res->ents), res->cap,
					     cap, &res->ents);
		if (retval)
			return retval;
		res->cap = cap;
	}
	res->ents[res->nents++] = *e;
	return 0;
}

/* ext4_can_truncate(): what a linked orphan must be. */
static int can_truncate(ext2_filsys fs, struct ext2_inode *inode)
{
	if (LINUX_S_ISREG(inode->i_mode) || LINUX_S_ISDIR(inode->i_mode))
		return 1;
	if (LINUX_S_ISLNK(inode->i_mode))
		return ext2fs_inode_data_blocks2(fs, inode) ||
			(inode->i_flags & EXT4_EXTENTS_FL);
	return 0;
}

/*
 * ext4_orphan_get(): @ino is a valid orphan (in range, bit set in the
 * inode bitmap, readable, truncatable when linked, next orphan in
 * range).  Returns 0 and the inode, or a problem (recorded) and -1.
 */
static int orphan_get(ext2_filsys fs, ext2_ino_t ino,
		      struct ext2_inode_large *inode, int chain,
		      struct e4_orphan_result *res)
{
	char msg[96];

	if (ino > fs->super->s_inodes_count ||
	    (ino < EXT2_FIRST_INODE(fs->super) && ino != EXT2_ROOT_INO)) {
		snprintf(msg, sizeof(msg), "orphan inode %u out of range "
			 "(1-%u)", ino, fs->super->s_inodes_count);
		problem(res, ino, msg);
		return -1;
	}
	if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino)) {
		snprintf(msg, sizeof(msg), "orphan inode %u is not in use "
			 "(a loop in the chain, or a freed inode)", ino);
		problem(res, ino, msg);
		return -1;
	}
	memset(inode, 0, sizeof(*inode));
	if (ext2fs_read_inode_full(fs, ino, EXT2_INODE(inode),
				   sizeof(*inode))) {
		snprintf(msg, sizeof(msg), "orphan inode %u unreadable", ino);
		problem(res, ino, msg);
		return -1;
	}
	if (inode->i_links_count && !can_truncate(fs, EXT2_INODE(inode))) {
		snprintf(msg, sizeof(msg), "orphan inode %u has links and "
			 "cannot be truncated (mode 0%o)", ino,
			 inode->i_mode);
		problem(res, ino, msg);
		return -1;
	}
	if (chain && inode->i_dtime > fs->super->s_inodes_count) {
		snprintf(msg, sizeof(msg), "orphan inode %u: next orphan %u "
			 "out of range", ino, inode->i_dtime);
		problem(res, ino, msg);
		return -1;
	}
	return 0;
}

/* ext4_block_truncate_page(): zero the tail of the block holding EOF. */
static errcode_t zero_tail(ext2_filsys fs, ext2_ino_t ino,
			   struct ext2_inode_large *inode, uint64_t size)
{
	unsigned int off = size % fs->blocksize;
	blk64_t pblk = 0;
	int flags = 0;
	char *buf;
	errcode_t retval;

	if (!off || !ext2fs_inode_has_valid_blocks2(fs, EXT2_INODE(inode)))
		return 0;
	retval = ext2fs_bmap2(fs, ino, EXT2_INODE(inode), NULL, 0,
			      size / fs->blocksize, &flags, &pblk);
	if (retval || !pblk || (flags & BMAP_RET_UNINIT))
		return retval;
	retval = ext2fs_get_mem(fs->blocksize, &buf);
	if (retval)
		return retval;
	retval = io_channel_read_blk64(fs->io, pblk, 1, buf);
	if (!retval) {
		memset(buf + off, 0, fs->blocksize - off);
		retval = io_channel_write_blk64(fs->io, pblk, 1, buf);
	}
	ext2fs_free_mem(&buf);
	return retval;
}

/* ext4_xattr_delete_inode(): drop the inode's reference to its block. */
static errcode_t drop_xattr_block(ext2_filsys fs,
				  struct ext2_inode_large *inode,
				  uint64_t *freed)
{
	blk64_t blk = ext2fs_file_acl_block(fs, EXT2_INODE(inode));
	__u32 count = 0;
	errcode_t retval;

	if (!blk)
		return 0;
	if (blk >= ext2fs_blocks_count(fs->super) ||
	    blk < fs->super->s_first_data_block)
		return 0;
	retval = ext2fs_adjust_ea_refcount3(fs, blk, NULL, -1, &count, 0);
	if (retval)
		return retval;
	if (!count) {
		ext2fs_block_alloc_stats2(fs, blk, -1);
		(*freed)++;
	}
	ext2fs_file_acl_block_set(fs, EXT2_INODE(inode), 0);
	return 0;
}

/* The extent tree blocks of @inode, with their contents. */
struct tree_save {
	size_t		n, cap;
	blk64_t		*blk;
	char		*data;
	unsigned int	bs;
};

static int save_meta(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		     blk64_t ref_blk EXT2FS_ATTR((unused)),
		     int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct tree_save *t = priv;

	if (blockcnt >= 0)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;

		if (ext2fs_resize_array(sizeof(*t->blk), t->cap, cap,
					&t->blk) ||
		    ext2fs_resize_array(t->bs, t->cap, cap, &t->data))
			return BLOCK_ABORT;
		t->cap = cap;
	}
	if (io_channel_read_blk64(fs->io, *blocknr, 1,
				  t->data + t->n * t->bs))
		return BLOCK_ABORT;
	t->blk[t->n++] = *blocknr;
	return 0;
}

/*
 * The kernel frees emptied extent tree blocks with EXT4_FREE_BLOCKS_FORGET:
 * their on-disk contents stay as they were before the truncate, where
 * ext2fs_punch() rewrote them.  Put them back once freed.
 */
static errcode_t restore_meta(ext2_filsys fs, struct tree_save *t)
{
	errcode_t retval = 0;
	size_t i;

	for (i = 0; !retval && i < t->n; i++)
		if (!ext2fs_test_block_bitmap2(fs->block_map, t->blk[i]))
			retval = io_channel_write_blk64(fs->io, t->blk[i], 1,
						t->data + i * t->bs);
	return retval;
}

static void tree_free(struct tree_save *t)
{
	ext2fs_free_mem(&t->blk);
	ext2fs_free_mem(&t->data);
}

/*
 * ext4_process_orphan(): truncate a linked orphan to i_size, free one
 * with no links (evict), and take it off its list (@chain: s_last_orphan
 * becomes its next; else the orphan_file entry is cleared by the caller).
 */
static errcode_t process(ext2_filsys fs, ext2_ino_t ino,
			 struct ext2_inode_large *inode, int chain,
			 uint32_t now, struct e4_orphan_result *res)
{
	struct e4_orphan_ent e;
	struct tree_save t;
	__u32 iblock[EXT2_N_BLOCKS];
	int extents = (inode->i_flags & EXT4_EXTENTS_FL) &&
		ext2fs_inode_has_valid_blocks2(fs, EXT2_INODE(inode));
	uint64_t size = EXT2_I_SIZE(inode), before, after;
	blk64_t start;
	errcode_t retval = 0;

	memset(&e, 0, sizeof(e));
	memset(&t, 0, sizeof(t));
	t.bs = fs->blocksize;
	memcpy(iblock, inode->i_block, sizeof(iblock));
	if (extents) {
		retval = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY,
					       NULL, save_meta, &t);
		if (retval)
			goto out;
	}
	e.ino = ino;
	e.from_file = !chain;
	e.links = inode->i_links_count;
	e.size = size;
	before = ext2fs_get_stat_i_blocks(fs, EXT2_INODE(inode));
	if (chain)
		fs->super->s_last_orphan = inode->i_dtime;
	if (inode->i_links_count) {
		start = (size + fs->blocksize - 1) / fs->blocksize;
		retval = zero_tail(fs, ino, inode, size);
		if (!retval &&
		    ext2fs_inode_has_valid_blocks2(fs, EXT2_INODE(inode)))
			retval = ext2fs_punch(fs, ino, EXT2_INODE(inode), NULL,
					      start, ~0ULL);
		if (retval)
			goto out;
		if (chain)
			inode->i_dtime = 0;
		inode->i_mtime = inode->i_ctime = now;
		inode->i_mtime_extra = inode->i_ctime_extra = 0;
	} else {
		if (ext2fs_inode_has_valid_blocks2(fs, EXT2_INODE(inode)))
			retval = ext2fs_punch(fs, ino, EXT2_INODE(inode), NULL,
					      0, ~0ULL);
		if (!retval)
			retval = drop_xattr_block(fs, inode, &e.xattr_freed);
		if (!retval)
			retval = ext2fs_inode_size_set(fs, EXT2_INODE(inode),
						       0);
		if (retval)
			goto out;
		if (extents) {
			/* ext4_ext_remove_space(): a leaf root's removed
			 * slots zeroed (ext4_ext_rm_leaf()), an index
			 * root's left (ext4_ext_rm_idx()); depth 0 */
			struct ext3_extent_header *eh = (void *)iblock;

			if (!eh->eh_depth)
				memset(iblock + 3, 0, sizeof(iblock) - 12);
			eh->eh_entries = 0;
			eh->eh_depth = 0;
			memcpy(inode->i_block, iblock, sizeof(iblock));
		}
		inode->i_dtime = inode->i_mtime = inode->i_ctime = now;
		inode->i_mtime_extra = inode->i_ctime_extra = 0;
		e.freed_inode = 1;
	}
	after = ext2fs_get_stat_i_blocks(fs, EXT2_INODE(inode));
	e.blocks_freed = (before - after) * 512 / fs->blocksize +
		e.xattr_freed;
	retval = ext2fs_write_inode_full(fs, ino, EXT2_INODE(inode),
					 sizeof(*inode));
	if (!retval)
		retval = restore_meta(fs, &t);
	if (retval)
		goto out;
	if (e.freed_inode)
		ext2fs_inode_alloc_stats2(fs, ino, -1,
					  LINUX_S_ISDIR(inode->i_mode));
	res->blocks_freed += e.blocks_freed;
	if (e.freed_inode)
		res->freed++;
	else
		res->truncated++;
	retval = add_ent(res, &e);
out:
	tree_free(&t);
	return retval;
}

/* The s_last_orphan chain, as the kernel's while loop walks it. */
static errcode_t do_chain(ext2_filsys fs, uint32_t now,
			  struct e4_orphan_result *res)
{
	struct ext2_inode_large inode;
	uint64_t steps = 0;
	errcode_t retval;

	while (fs->super->s_last_orphan) {
		ext2_ino_t ino = fs->super->s_last_orphan;

		/* The kernel's walk ends (each step frees an inode or
		 * zeroes a next pointer); this bound only guards it. */
		if (++steps > 2ULL * fs->super->s_inodes_count + 2) {
			problem(res, ino, "orphan chain does not end");
			fs->super->s_last_orphan = 0;
			break;
		}
		if (orphan_get(fs, ino, &inode, 1, res)) {
			fs->super->s_last_orphan = 0;
			break;
		}
		retval = process(fs, ino, &inode, 1, now, res);
		if (retval)
			return retval;
	}
	ext2fs_mark_super_dirty(fs);
	return 0;
}

/* The orphan_file blocks: every nonzero entry, then the entry cleared. */
static errcode_t do_file(ext2_filsys fs, uint32_t now,
			 struct e4_orphan_result *res)
{
	ext2_ino_t oino = fs->super->s_orphan_file_inum;
	struct ext2_inode_large oinode, inode;
	int per = ext2fs_inodes_per_orphan_block(fs);
	blk64_t nblocks, lblk, pblk;
	struct ext4_orphan_block_tail *tail;
	__u32 *ent;
	char *buf = NULL, msg[96];
	int i, dirty;
	errcode_t retval;

	if (!oino || oino > fs->super->s_inodes_count) {
		problem(res, oino, "orphan_file inode out of range");
		return 0;
	}
	memset(&oinode, 0, sizeof(oinode));
	retval = ext2fs_read_inode_full(fs, oino, EXT2_INODE(&oinode),
					sizeof(oinode));
	if (retval)
		return retval;
	nblocks = EXT2_I_SIZE(&oinode) / fs->blocksize;
	retval = ext2fs_get_mem(fs->blocksize, &buf);
	if (retval)
		return retval;
	for (lblk = 0; lblk < nblocks; lblk++) {
		pblk = 0;
		retval = ext2fs_bmap2(fs, oino, EXT2_INODE(&oinode), NULL, 0,
				      lblk, NULL, &pblk);
		if (retval || !pblk)
			break;
		retval = io_channel_read_blk64(fs->io, pblk, 1, buf);
		if (retval)
			break;
		tail = ext2fs_orphan_block_tail(fs, buf);
		if (ext2fs_le32_to_cpu(tail->ob_magic) != ORPHAN_TAIL_MAGIC) {
			/* the kernel's mount fails here: leave it alone */
			snprintf(msg, sizeof(msg), "orphan_file block %llu: "
				 "bad magic", (unsigned long long)lblk);
			problem(res, oino, msg);
			res->file_bad = 1;
			break;
		}
		ent = (__u32 *)buf;
		dirty = 0;
		for (i = 0; i < per; i++) {
			ext2_ino_t ino = ext2fs_le32_to_cpu(ent[i]);

			if (!ino)
				continue;
			if (orphan_get(fs, ino, &inode, 0, res))
				continue;
			retval = process(fs, ino, &inode, 0, now, res);
			if (retval)
				goto out;
			ent[i] = 0;
			dirty = 1;
		}
		if (!dirty)
			continue;
		retval = ext2fs_orphan_file_block_csum_set(fs, oino, pblk,
							   buf);
		if (!retval)
			retval = io_channel_write_blk64(fs->io, pblk, 1, buf);
		if (retval)
			break;
	}
out:
	ext2fs_free_mem(&buf);
	return retval;
}

errcode_t e4_orphan_cleanup(ext2_filsys fs, uint32_t now,
			    struct e4_orphan_result *res)
{
	int has_file;
	errcode_t retval;

	memset(res, 0, sizeof(*res));
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	has_file = ext2fs_has_feature_orphan_file(fs->super) &&
		fs->super->s_orphan_file_inum;
	res->chain_head = fs->super->s_last_orphan;
	if (!fs->super->s_last_orphan && !has_file)
		return 0;
	if (fs->super->s_state & EXT2_ERROR_FS) {
		/* "Errors on filesystem, clearing orphan list." */
		if (fs->super->s_last_orphan) {
			res->errors_cleared = 1;
			fs->super->s_last_orphan = 0;
			ext2fs_mark_super_dirty(fs);
		}
		return 0;
	}
	retval = ext2fs_read_bitmaps(fs);
	if (retval)
		return retval;
	retval = do_chain(fs, now, res);
	if (!retval && has_file)
		retval = do_file(fs, now, res);
	if (retval)
		return retval;
	if (res->nproblems) {
		/* ext4_error(): the fs is marked as having errors */
		fs->super->s_state |= EXT2_ERROR_FS;
		fs->super->s_error_count++;
		ext2fs_mark_super_dirty(fs);
	}
	if (ext2fs_has_feature_orphan_present(fs->super) && !res->file_bad &&
	    !res->nproblems) {
		/* the umount after the cleanup: the orphan file is empty */
		ext2fs_clear_feature_orphan_present(fs->super);
		ext2fs_mark_super_dirty(fs);
	}
	return 0;
}

void e4_orphan_result_free(struct e4_orphan_result *res)
{
	if (!res)
		return;
	ext2fs_free_mem(&res->ents);
	res->nents = res->cap = 0;
}

errcode_t e4_orphan_preview(ext2_filsys fs, const struct e4_plan *plan,
			    struct e4_fc_state *fcst, uint32_t now,
			    struct e4_orphan_result *res)
{
	unsigned int bs = fs->blocksize;
	struct e4_state map;
	e4_overlay_t ov = NULL;
	io_channel io = NULL;
	struct e4_cow *cow = NULL;
	ext2_filsys st = NULL;
	errcode_t retval;

	memset(res, 0, sizeof(*res));
	memset(&map, 0, sizeof(map));
	retval = e4_state_init(plan, &map);
	if (!retval)
		retval = e4_state_seek(&map, plan->ntx);
	if (!retval)
		retval = e4_overlay_create(fs->io, plan->j->io, bs,
					   ext2fs_blocks_count(fs->super),
					   &map, &ov);
	if (!retval)
		retval = e4_overlay_io_manager->open(e4_overlay_name(ov), 0,
						     &io);
	if (!retval)
		retval = io_channel_set_blksize(io, (int)bs);
	if (!retval)
		retval = e4_cow_create(io, bs, &cow);
	if (!retval && fcst) {
		io_channel cio = NULL;

		retval = e4_cow_io_manager->open(e4_cow_name(cow),
						 IO_FLAG_RW, &cio);
		if (!retval)
			retval = e4_fc_state_write(fcst, cio);
		if (cio)
			io_channel_close(cio);
	}
	if (!retval)
		retval = ext2fs_open2(e4_cow_name(cow), "", EXT2_FLAG_RW |
				      EXT2_FLAG_64BITS |
				      EXT2_FLAG_IGNORE_CSUM_ERRORS |
				      EXT2_FLAG_SKIP_MMP, 0, 0,
				      e4_cow_io_manager, &st);
	if (!retval) {
		st->flags |= EXT2_FLAG_MASTER_SB_ONLY;
		retval = e4_orphan_cleanup(st, now, res);
	}
	if (!retval && ov && e4_overlay_error(ov))
		retval = e4_overlay_error(ov);
	if (st) {
		st->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_IB_DIRTY |
			       EXT2_FLAG_BB_DIRTY);
		ext2fs_free(st);
	}
	e4_cow_free(cow);
	if (io)
		io_channel_close(io);
	e4_overlay_free(ov);
	e4_state_free(&map);
	return retval;
}

/* The replayed superblock is one no open can follow (the fs as the replay
 * left it, not a failure of the cleanup itself). */
static int sb_unusable(errcode_t retval)
{
	switch (retval) {
	case E4_ERR_SB_LAYOUT:
	case EXT2_ET_BAD_MAGIC:
	case EXT2_ET_CORRUPT_SUPERBLOCK:
	case EXT2_ET_SB_CSUM_INVALID:
	case EXT2_ET_UNSUPP_FEATURE:
	case EXT2_ET_RO_UNSUPP_FEATURE:
	case EXT2_ET_REV_TOO_HIGH:
	case EXT2_ET_GDESC_BAD_BLOCK_MAP:
	case EXT2_ET_GDESC_BAD_INODE_MAP:
	case EXT2_ET_GDESC_BAD_INODE_TABLE:
	case EXT2_ET_BAD_DESC_SIZE:
		return 1;
	}
	return 0;
}

errcode_t e4_orphan_mount(ext2_filsys fs, const struct e4_plan *plan,
			  struct e4_fc_state *fcst, uint32_t now,
			  unsigned int flags, struct e4_orphan_result *res,
			  errcode_t *sb_err)
{
	errcode_t retval;

	e4_error_tables_init();
	memset(res, 0, sizeof(*res));
	*sb_err = 0;
	if (flags & E4_ORPHAN_PREVIEW)
		retval = e4_orphan_preview(fs, plan, fcst, now, res);
	else
		retval = e4_fs_reload(fs);	/* the replay wrote in place */
	if (sb_unusable(retval)) {
		/* the kernel's mount, reading it next, fails there too */
		*sb_err = retval;
		return 0;
	}
	if (flags & E4_ORPHAN_PREVIEW)
		return retval;
	if (!retval)
		retval = e4_orphan_cleanup(fs, now, res);
	fs->flags &= ~EXT2_FLAG_SUPER_ONLY;
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	/* nothing cleaned, nothing written */
	if (!retval && (fs->flags & (EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
				     EXT2_FLAG_IB_DIRTY)))
		retval = ext2fs_flush(fs);
	return retval;
}
