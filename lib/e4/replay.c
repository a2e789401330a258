/*
 * replay.c --- write a replay plan (plan.c: each fs block once, its newest
 * surviving copy) to the file system, then mark the journal empty and the
 * fs recovered as e2fsck does; reload an open fs after replay.
 *
 * Source: fs/jbd2/recovery.c PASS_REPLAY and
 * jbd2_journal_recover() (Linux 6.x); e2fsck/journal.c
 * recover_ext3_journal(), e2fsck_journal_release(),
 * e2fsck_check_ext3_journal() (e2fsprogs 1.47) for the superblocks.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4.h"

#define CHUNK_BYTES	(8U << 20)	/* journal read / fs write batch */

/* qsort_r() helper: indexes into the winners, by fs block. */
static int cmp_idx_fsblk(const void *a, const void *b, void *arg)
{
	const struct e4_copy *w = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return w[x].fsblk < w[y].fsblk ? -1 : w[x].fsblk > w[y].fsblk;
}

/*
 * Writeback hint: when the fs lives in a regular file or block device we
 * can open by name, each batch's range is handed to sync_file_range(2)
 * (SYNC_FILE_RANGE_WRITE: start writeback, do not wait) so that the disk
 * writes overlap with reading the next batch instead of all waiting for
 * the final flush.  Best effort: -1 when not possible.
 */
static int wb_open(ext2_filsys fs)
{
	if (!fs->device_name)
		return -1;
	return open(fs->device_name, O_RDONLY | O_CLOEXEC);
}

static void wb_start(int fd, blk64_t blk, size_t count, unsigned int bs)
{
	if (fd >= 0)
		(void)sync_file_range(fd, (off64_t)blk * bs,
				      (off64_t)count * bs,
				      SYNC_FILE_RANGE_WRITE);
}

/* Write the winners, reading the log in order and writing sorted runs. */
static errcode_t write_blocks(const struct e4_plan *p,
			      struct e4_replay_result *res)
{
	e4_journal_t j = p->j;
	ext2_filsys fs = j->fs;
	const struct e4_copy *w = p->final;
	size_t nw = p->nfinal;
	unsigned int bs = j->blocksize;
	blk64_t cap = CHUNK_BYTES / bs, lo, hi;
	unsigned char *rbuf = NULL, *wbuf = NULL;
	size_t *idx = NULL, a, b, i, m;
	errcode_t retval;
	int wb = wb_open(fs);

	if (cap > j->real_len)	/* a batch never spans more */
		cap = j->real_len;
	lo = hi = nw ? w[0].jblk : 0;
	for (i = 1; i < nw; i++) {
		if (w[i].jblk < lo)
			lo = w[i].jblk;
		if (w[i].jblk > hi)
			hi = w[i].jblk;
	}
	if (cap > hi - lo + 1)	/* ... nor more than all the copies */
		cap = hi - lo + 1;
	if (!cap)
		cap = 1;
	retval = ext2fs_get_mem(cap * bs, &rbuf);
	if (!retval)
		retval = ext2fs_get_mem(cap * bs, &wbuf);
	if (!retval)
		retval = ext2fs_get_array(cap, sizeof(*idx), &idx);
	if (retval)
		goto out;

	for (a = 0; a < nw; a = b) {
		blk64_t first = w[a].jblk, span;

		/* One batch: increasing jblocks (no wrap) within cap. */
		for (b = a + 1; b < nw; b++)
			if (w[b].jblk <= w[b - 1].jblk ||
			    w[b].jblk - first >= cap)
				break;
		span = w[b - 1].jblk - first + 1;
		retval = e4_journal_read(j, first, span, rbuf);
		res->nreads++;
		if (retval)
			goto out;
		m = b - a;
		for (i = 0; i < m; i++)
			idx[i] = a + i;
		qsort_r(idx, m, sizeof(*idx), cmp_idx_fsblk, (void *)w);
		for (i = 0; i < m; i++) {
			const struct e4_copy *c = &w[idx[i]];
			unsigned char *d = wbuf + i * bs;

			memcpy(d, rbuf + (c->jblk - first) * bs, bs);
			e4_jblock_unescape(d, c->flags & E4_COPY_ESCAPED);
		}
		for (i = 0; i < m; ) {
			blk64_t start = w[idx[i]].fsblk;
			size_t r = 1;

			while (i + r < m &&
			       w[idx[i + r]].fsblk == start + r)
				r++;
			retval = io_channel_write_blk64(fs->io, start, (int)r,
							wbuf + i * bs);
			res->nwrites++;
			if (retval)
				goto out;
			wb_start(wb, start, r, bs);
			i += r;
		}
	}
out:
	if (wb >= 0)
		close(wb);
	ext2fs_free_mem(&rbuf);
	ext2fs_free_mem(&wbuf);
	ext2fs_free_mem(&idx);
	return retval;
}

/*
 * Read (@write 0) or write the 1 KiB primary superblock by a byte-count
 * transfer, as libext2fs writes it: unix_io serves those from the disk,
 * never from its block cache (which can still hold the superblock's block
 * as replay wrote it).
 */
static errcode_t sb_io(ext2_filsys fs, unsigned char *buf, int write)
{
	errcode_t retval, r2;

	retval = io_channel_set_blksize(fs->io, SUPERBLOCK_OFFSET);
	if (!retval)
		retval = write ?
			io_channel_write_blk64(fs->io, 1, -SUPERBLOCK_SIZE,
					       buf) :
			io_channel_read_blk64(fs->io, 1, -SUPERBLOCK_SIZE, buf);
	r2 = io_channel_set_blksize(fs->io, (int)fs->blocksize);
	if (!retval && write)
		retval = io_channel_flush(fs->io);
	return retval ? retval : r2;
}

/* Superblock field offsets (bytes) used on the raw copy. */
#define SB_MAGIC		0x38	/* le16 */
#define SB_STATE		0x3A	/* le16 */
#define SB_FEATURE_INCOMPAT	0x60	/* le32 */
#define SB_FEATURE_RO_COMPAT	0x64	/* le32 */
#define SB_CHECKSUM		0x3FC	/* le32: crc32c(~0) of the bytes before */

static void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

/* Set the checksum of raw superblock @buf if it says metadata_csum. */
static void sb_csum(unsigned char *buf)
{
	if (e4_le32(buf + SB_FEATURE_RO_COMPAT) &
	    EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		put_le32(buf + SB_CHECKSUM,
			 e4_crc32c(~0U, buf, SB_CHECKSUM));
}

/*
 * Can libext2fs go on with the replayed superblock @sb in place of
 * fs->super?  Only when the fields it computes the layout from (and
 * divides by) are unchanged; a log may carry any superblock (an online
 * resize, or garbage: fuzz_jreplay made one with s_blocks_per_group 0).
 */
static int sb_same_layout(ext2_filsys fs, struct ext2_super_block *sb)
{
	struct ext2_super_block *o = fs->super;
	uint32_t keep = ~(uint32_t)EXT3_FEATURE_INCOMPAT_RECOVER;

	return sb->s_magic == EXT2_SUPER_MAGIC &&
		sb->s_log_block_size == o->s_log_block_size &&
		sb->s_log_cluster_size == o->s_log_cluster_size &&
		sb->s_blocks_per_group == o->s_blocks_per_group &&
		sb->s_clusters_per_group == o->s_clusters_per_group &&
		sb->s_inodes_per_group == o->s_inodes_per_group &&
		sb->s_inodes_count == o->s_inodes_count &&
		sb->s_first_data_block == o->s_first_data_block &&
		ext2fs_blocks_count(sb) == ext2fs_blocks_count(o) &&
		sb->s_desc_size == o->s_desc_size &&
		sb->s_inode_size == o->s_inode_size &&
		sb->s_first_meta_bg == o->s_first_meta_bg &&
		sb->s_reserved_gdt_blocks == o->s_reserved_gdt_blocks &&
		(sb->s_feature_incompat & keep) ==
			(o->s_feature_incompat & keep) &&
		sb->s_feature_ro_compat == o->s_feature_ro_compat &&
		sb->s_feature_compat == o->s_feature_compat;
}

/*
 * Load raw superblock @buf into fs->super when its layout is the same;
 * drop fs->orig_super (without it libext2fs writes the superblock in one
 * 1 KiB write, not one per changed field: an interruption never leaves a
 * superblock failing its checksum).  Returns 0 or E4_ERR_SB_LAYOUT.
 */
static errcode_t sb_load(ext2_filsys fs, const unsigned char *buf)
{
	struct ext2_super_block sb;

	memcpy(&sb, buf, SUPERBLOCK_SIZE);
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_super(&sb);
#endif
	ext2fs_free_mem(&fs->orig_super);
	if (!sb_same_layout(fs, &sb))
		return E4_ERR_SB_LAYOUT;
	memcpy(fs->super, &sb, SUPERBLOCK_SIZE);
	return 0;
}

errcode_t e4_super_set_recover(ext2_filsys fs)
{
	unsigned char sbuf[SUPERBLOCK_SIZE];
	errcode_t retval;

	retval = sb_io(fs, sbuf, 0);
	if (retval)
		return retval;
	if (e4_le16(sbuf + SB_MAGIC) != EXT2_SUPER_MAGIC)
		return EXT2_ET_BAD_MAGIC;
	put_le32(sbuf + SB_FEATURE_INCOMPAT,
		 e4_le32(sbuf + SB_FEATURE_INCOMPAT) |
		 EXT3_FEATURE_INCOMPAT_RECOVER);
	sb_csum(sbuf);
	return sb_io(fs, sbuf, 1);
}

errcode_t e4_journal_replay(e4_journal_t j, struct e4_jscan *scan,
			    struct e4_replay_result *res)
{
	struct e4_plan *p;
	errcode_t retval;

	if (!(j->flags & E4_JOURNAL_RW) || !(j->fs->flags & EXT2_FLAG_RW))
		return E4_ERR_READ_ONLY;
	retval = e4_plan_build(j, scan, &p);
	if (!retval)
		retval = e4_plan_replay(p, res);
	else
		e4_plan_result(scan, NULL, res);
	e4_plan_free(p);
	return retval;
}

errcode_t e4_plan_replay(const struct e4_plan *p,
			 struct e4_replay_result *res)
{
	return e4_plan_replay_fc(p, NULL, res);
}

errcode_t e4_plan_replay_fc(const struct e4_plan *p,
			    struct e4_fc_state *fcst,
			    struct e4_replay_result *res)
{
	e4_journal_t j = p->j;
	ext2_filsys fs = j->fs;
	unsigned char sbuf[SUPERBLOCK_SIZE];
	errcode_t retval;
	uint16_t state;
	int errno_set;

	e4_plan_result(p->scan, p, res);
	if (!(j->flags & E4_JOURNAL_RW) || !(fs->flags & EXT2_FLAG_RW))
		return E4_ERR_READ_ONLY;
	if (p->scan->fail)
		return p->scan->fail;

	/* 1. the blocks, flushed; then the fast commits' (fc_state.c) */
	retval = write_blocks(p, res);
	if (!retval)
		retval = io_channel_flush(fs->io);
	if (!retval && fcst)
		retval = e4_fc_state_write(fcst, fs->io);
	if (retval)
		goto out;

	/*
	 * 2. the fs superblock as replay left it, with the journal's error
	 * state carried over but needs_recovery still set: an interruption
	 * from here on leaves an image that a rerun replays again (the
	 * replay is idempotent) or, after 3, finds with an empty log.  The
	 * superblock is changed as raw bytes: the log may have replaced it
	 * with one libext2fs cannot work with.
	 */
	retval = sb_io(fs, sbuf, 0);
	if (retval)
		goto out;
	state = e4_le16(sbuf + SB_STATE);
	errno_set = j->jsb.errno_ != 0;
	if (errno_set || p->scan->has_failed_commit) {
		state |= EXT2_ERROR_FS;
		res->fs_error = 1;
	}
	if (res->nbad_csum || res->nbad_block) {
		state &= ~EXT2_VALID_FS;
		res->fs_not_valid = 1;
	}
	put_le16(sbuf + SB_STATE, state);
	sb_csum(sbuf);
	retval = sb_io(fs, sbuf, 1);
	if (retval)
		goto out;

	/* 3. the journal superblock: log empty, next tid */
	e4_put_be32(j->sb + JSB_START, 0);
	e4_put_be32(j->sb + JSB_SEQUENCE, res->new_sequence);
	e4_put_be32(j->sb + JSB_ERRNO, 0);
	retval = e4_journal_write_sb(j);
	if (retval)
		goto out;

	/* 4. only now: recovered */
	put_le32(sbuf + SB_FEATURE_INCOMPAT,
		 e4_le32(sbuf + SB_FEATURE_INCOMPAT) &
		 ~(uint32_t)EXT3_FEATURE_INCOMPAT_RECOVER);
	sb_csum(sbuf);
	retval = sb_io(fs, sbuf, 1);
	if (retval)
		goto out;

	/*
	 * In memory: nothing dirty (a close must not write the old
	 * superblock back), the replayed superblock if libext2fs can use
	 * it; later flushes write the primary superblock only.
	 */
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_CHANGED);
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_SUPER_ONLY;
	res->sb_layout_changed = sb_load(fs, sbuf) != 0;
out:
	return retval;
}

errcode_t e4_fs_reload(ext2_filsys fs)
{
	unsigned char sbuf[SUPERBLOCK_SIZE];
	blk64_t blk;
	dgrp_t i;
	errcode_t retval;

	retval = sb_io(fs, sbuf, 0);
	if (!retval)
		retval = sb_load(fs, sbuf);
	if (retval)
		return retval;
	for (i = 0; i < fs->desc_blocks; i++) {
		blk = ext2fs_descriptor_block_loc2(fs,
					fs->super->s_first_data_block, i);
		retval = io_channel_read_blk64(fs->io, blk, 1,
				(char *)fs->group_desc + (size_t)i *
				fs->blocksize);
		if (retval)
			return retval;
	}
	ext2fs_flush_icache(fs);
	if (fs->block_map) {
		ext2fs_free_block_bitmap(fs->block_map);
		fs->block_map = NULL;
	}
	if (fs->inode_map) {
		ext2fs_free_inode_bitmap(fs->inode_map);
		fs->inode_map = NULL;
	}
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
		       EXT2_FLAG_IB_DIRTY);
	/* as the kernel after recovery: later flushes leave the backup
	 * superblocks and descriptors alone */
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_SUPER_ONLY;
	return 0;
}
