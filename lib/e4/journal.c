/*
 * journal.c --- find, map and open the journal of an ext4 file system:
 * the internal journal inode (extents or block map, through libext2fs) or
 * an external journal device; read, validate and write its superblock.
 *
 * Source: Documentation/filesystems/ext4/journal.rst ("External Journal");
 * e2fsprogs' on-disk conventions for journal_dev file systems.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <e2p/e2p.h>

#include "e4.h"

struct map_ctx {
	e4_journal_t	j;
	size_t		alloc;
	errcode_t	err;
};

/* Collect the data blocks of the journal inode as runs of jblocks. */
static int map_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		     blk64_t ref_blk, int ref_offset, void *priv)
{
	struct map_ctx *ctx = priv;
	e4_journal_t j = ctx->j;
	struct e4_jmap_run *r;

	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0)
		return 0;
	if (*blocknr == 0 || *blocknr >= ext2fs_blocks_count(fs->super)) {
		ctx->err = E4_ERR_JOURNAL_INODE;
		return BLOCK_ABORT;
	}
	if (j->nruns) {
		r = &j->runs[j->nruns - 1];
		if (r->jblk + r->len == (blk64_t)blockcnt &&
		    r->pblk + r->len == *blocknr) {
			r->len++;
			return 0;
		}
		/* A hole in the journal inode: the journal ends there. */
		if (r->jblk + r->len != (blk64_t)blockcnt)
			return BLOCK_ABORT;
	} else if (blockcnt != 0) {
		return BLOCK_ABORT;
	}
	if (j->nruns == ctx->alloc) {
		size_t n = ctx->alloc ? ctx->alloc * 2 : 16;
		errcode_t retval;

		retval = ext2fs_resize_mem(ctx->alloc * sizeof(*r),
					   n * sizeof(*r), &j->runs);
		if (retval) {
			ctx->err = retval;
			return BLOCK_ABORT;
		}
		ctx->alloc = n;
	}
	r = &j->runs[j->nruns++];
	r->jblk = blockcnt;
	r->pblk = *blocknr;
	r->len = 1;
	return 0;
}

static errcode_t open_internal(e4_journal_t j)
{
	ext2_filsys fs = j->fs;
	ext2_ino_t ino = fs->super->s_journal_inum;
	struct ext2_inode inode;
	struct map_ctx ctx = { .j = j };
	blk64_t isize_blks;
	errcode_t retval;

	if (!ino)
		return E4_ERR_NO_JOURNAL;
	if (ino > fs->super->s_inodes_count)
		return E4_ERR_JOURNAL_INODE;
	/* (a table outside the fs: libext2fs would hand back garbage) */
	retval = e4_read_inode(fs, ino, &inode, sizeof(inode));
	if (retval == E4_ERR_BAD_GROUP_DESC ||
	    retval == E4_ERR_BAD_INODE_NUMBER)
		return E4_ERR_JOURNAL_INODE;
	if (retval)
		return retval;
	if (!LINUX_S_ISREG(inode.i_mode) || !inode.i_links_count)
		return E4_ERR_JOURNAL_INODE;
	retval = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY |
				       BLOCK_FLAG_DATA_ONLY, NULL,
				       map_block, &ctx);
	if (retval)
		return retval;
	if (ctx.err)
		return ctx.err;
	if (!j->nruns)
		return E4_ERR_JOURNAL_INODE;
	j->real_len = j->runs[j->nruns - 1].jblk + j->runs[j->nruns - 1].len;
	/*
	 * The journal is as long as i_size says, not as its mapping
	 * (jbd2_journal_init_inode(): j_total_len = i_size >> blkbits);
	 * blocks mapped past i_size do not count, so a journal with
	 * i_size below s_maxlen fails "journal file too short".  The
	 * superblock, jblock 0, stays readable.
	 */
	isize_blks = EXT2_I_SIZE(&inode) / fs->blocksize;
	if (isize_blks < j->real_len)
		j->real_len = isize_blks ? isize_blks : 1;
	j->io = fs->io;
	j->sb_jblk = 0;
	return 0;
}

/* An ext2 superblock (at byte 1024 of a device) with the journal_dev
 * feature: an external journal device (e2fsprogs' mke2fs -O journal_dev). */
static int is_journal_dev_sb(const struct ext2_super_block *es)
{
	return ext2fs_le16_to_cpu(es->s_magic) == EXT2_SUPER_MAGIC &&
		(ext2fs_le32_to_cpu(es->s_feature_incompat) &
		 EXT3_FEATURE_INCOMPAT_JOURNAL_DEV);
}

static errcode_t open_external(e4_journal_t j, const char *path,
			       io_manager io, const char *io_name)
{
	ext2_filsys fs = j->fs;
	struct ext2_super_block *es;
	unsigned char *buf = NULL;
	errcode_t retval;
	int sb_blk;

	retval = ext2fs_get_mem(strlen(path) + 1, &j->dev_name);
	if (retval)
		return retval;
	strcpy(j->dev_name, path);
	if (!io)
		io = (j->flags & E4_JOURNAL_UNDO) && (j->flags & E4_JOURNAL_RW) ?
			undo_io_manager : unix_io_manager;
	/*
	 * Written, the device is opened exclusively (O_EXCL on a block
	 * device): a journal the kernel holds, as the external journal of a
	 * mounted fs (journal_path=), fails with EBUSY instead of being
	 * written under it.
	 */
	retval = io->open(io_name ? io_name : path,
			  (j->flags & E4_JOURNAL_RW) ?
			  IO_FLAG_RW | IO_FLAG_EXCLUSIVE : 0, &j->io);
	if (retval)
		return retval;
	j->external = 1;
	retval = io_channel_set_blksize(j->io, fs->blocksize);
	if (retval)
		return retval;
	retval = ext2fs_get_mem(fs->blocksize, &buf);
	if (retval)
		return retval;

	/* The journal device's own ext2 superblock, at byte 1024. */
	sb_blk = ext2fs_journal_sb_start(fs->blocksize);
	retval = io_channel_read_blk64(j->io, sb_blk - 1, 1, buf);
	if (retval)
		goto out;
	es = (struct ext2_super_block *)(buf + (sb_blk == 1 ? 1024 : 0));
	if (!is_journal_dev_sb(es)) {
		retval = E4_ERR_EXT_JOURNAL_NOT_DEV;
		goto out;
	}
	if (EXT2_BLOCK_SIZE(es) != (int)fs->blocksize) {
		retval = E4_ERR_JSB_BLOCKSIZE;
		goto out;
	}
	if (memcmp(es->s_uuid, fs->super->s_journal_uuid, 16)) {
		retval = E4_ERR_EXT_JOURNAL_UUID;
		goto out;
	}
	/* External journal blocks are device blocks; the journal superblock
	 * follows the device's ext2 superblock. */
	j->real_len = ext2fs_le32_to_cpu(es->s_blocks_count);
	j->sb_jblk = sb_blk;
out:
	ext2fs_free_mem(&buf);
	return retval;
}

/*
 * @fs is itself an external journal device (opened with
 * EXT2_FLAG_JOURNAL_DEV_OK: no file system, only the journal): its
 * journal superblock follows the device's ext2 superblock and the journal
 * spans the device, as open_external() finds it for a fs's journal.  The
 * channel is the fs's own, with one more reference.
 */
static errcode_t open_bare(e4_journal_t j)
{
	ext2_filsys fs = j->fs;
	errcode_t retval;

	retval = ext2fs_get_mem(strlen(fs->device_name) + 1, &j->dev_name);
	if (retval)
		return retval;
	strcpy(j->dev_name, fs->device_name);
	j->io = fs->io;
	j->io->refcount++;
	j->external = 1;
	j->real_len = ext2fs_blocks_count(fs->super);
	j->sb_jblk = ext2fs_journal_sb_start(fs->blocksize);
	return 0;
}

errcode_t e4_journal_open(ext2_filsys fs, const char *ext_dev, int flags,
			  e4_journal_t *ret)
{
	e4_error_tables_init();
	return e4_journal_open_io(fs, ext_dev, NULL, NULL, flags, ret);
}

errcode_t e4_journal_open_io(ext2_filsys fs, const char *ext_dev,
			     io_manager io, const char *io_name, int flags,
			     e4_journal_t *ret)
{
	e4_journal_t j;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (!ext2fs_has_feature_journal(fs->super) && !ext_dev &&
	    !ext2fs_has_feature_journal_dev(fs->super))
		return E4_ERR_NO_JOURNAL;
	if (!ext_dev && !fs->super->s_journal_inum &&
	    !e2p_is_null_uuid(fs->super->s_journal_uuid))
		return E4_ERR_EXT_JOURNAL_NEEDED;
	retval = ext2fs_get_memzero(sizeof(*j), &j);
	if (retval)
		return retval;
	j->fs = fs;
	j->flags = flags;
	j->blocksize = fs->blocksize;
	if (ext_dev)
		retval = open_external(j, ext_dev, io, io_name);
	else if (ext2fs_has_feature_journal_dev(fs->super))
		retval = open_bare(j);
	else
		retval = open_internal(j);
	if (retval)
		goto fail;
	retval = ext2fs_get_mem(j->blocksize, &j->sb);
	if (retval)
		goto fail;
	retval = e4_journal_read(j, j->sb_jblk, 1, j->sb);
	if (retval)
		goto fail;
	e4_jsb_decode(j->sb, &j->jsb);
	*ret = j;
	/* A journal whose superblock fails validation is still returned. */
	return e4_jsb_validate(j->sb, fs->blocksize, j->real_len);
fail:
	e4_journal_close(j);
	return retval;
}

/* The first @want jblocks of @io's size in @bs-byte blocks (the file or
 * device at @path), if it is smaller. */
static blk64_t clamp_to_size(const char *path, unsigned int bs, blk64_t want)
{
	blk64_t n;

	if (ext2fs_get_device_size2(path, (int)bs, &n) || n >= want)
		return want;
	return n;
}

/*
 * Decide what @j->io holds, as debugfs's logdump -f does (a jbd2
 * superblock at byte 0 first, then an ext2 superblock at byte 1024), and
 * set the journal's block size, superblock jblock and length.
 */
static errcode_t probe_file(e4_journal_t j, const char *path)
{
	unsigned char buf[1024];
	struct ext2_super_block *es = (struct ext2_super_block *)buf;
	struct e4_jsb s;
	errcode_t retval;
	unsigned int bs;

	retval = io_channel_set_blksize(j->io, 1024);
	if (retval)
		return retval;
	retval = io_channel_read_blk64(j->io, 0, 1, buf);
	if (retval == EXT2_ET_SHORT_READ)
		return E4_ERR_NOT_JOURNAL_FILE;
	if (retval)
		return retval;
	if (e4_be32(buf) == JBD2_MAGIC) {
		/* A raw journal: jblock 0 is its superblock. */
		e4_jsb_decode(buf, &s);
		bs = s.blocksize;
		if (bs < 1024 || bs > 65536 || (bs & (bs - 1)))
			return E4_ERR_JSB_BLOCKSIZE;
		j->file_kind = E4_JOURNAL_FILE_RAW;
		j->blocksize = bs;
		j->sb_jblk = 0;
		j->real_len = clamp_to_size(path, bs, ~(blk64_t)0);
		return 0;
	}
	retval = io_channel_read_blk64(j->io, 1, 1, buf);
	if (retval == EXT2_ET_SHORT_READ)
		return E4_ERR_NOT_JOURNAL_FILE;
	if (retval)
		return retval;
	if (ext2fs_le16_to_cpu(es->s_magic) != EXT2_SUPER_MAGIC)
		return E4_ERR_NOT_JOURNAL_FILE;
	if (!is_journal_dev_sb(es))
		return E4_ERR_JOURNAL_FILE_IS_FS;
	if (ext2fs_le32_to_cpu(es->s_log_block_size) >
	    EXT2_MAX_BLOCK_LOG_SIZE - EXT2_MIN_BLOCK_LOG_SIZE)
		return E4_ERR_JSB_BLOCKSIZE;
	bs = EXT2_BLOCK_SIZE(es);
	j->file_kind = E4_JOURNAL_FILE_DEV;
	j->blocksize = bs;
	j->sb_jblk = ext2fs_journal_sb_start((int)bs);
	j->real_len = clamp_to_size(path, bs, ext2fs_le32_to_cpu(
					    es->s_blocks_count));
	return 0;
}

errcode_t e4_journal_open_file(const char *path, io_manager io,
			       const char *io_name, int flags,
			       e4_journal_t *ret)
{
	e4_journal_t j;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (flags)	/* read-only: nothing to write it for */
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_memzero(sizeof(*j), &j);
	if (retval)
		return retval;
	j->external = 1;
	retval = ext2fs_get_mem(strlen(path) + 1, &j->dev_name);
	if (retval)
		goto fail;
	strcpy(j->dev_name, path);
	retval = (io ? io : unix_io_manager)->open(io_name ? io_name : path, 0,
						   &j->io);
	if (retval)
		goto fail;
	retval = probe_file(j, path);
	if (!retval)
		retval = io_channel_set_blksize(j->io, j->blocksize);
	if (!retval)
		retval = ext2fs_get_mem(j->blocksize, &j->sb);
	if (!retval)
		retval = e4_journal_read(j, j->sb_jblk, 1, j->sb);
	if (retval == EXT2_ET_SHORT_READ || retval == EXT2_ET_BAD_BLOCK_NUM)
		retval = E4_ERR_NOT_JOURNAL_FILE;	/* no superblock */
	if (retval)
		goto fail;
	e4_jsb_decode(j->sb, &j->jsb);
	*ret = j;
	/* As e4_journal_open(): a superblock failing validation is still
	 * returned. */
	return e4_jsb_validate(j->sb, j->blocksize, j->real_len);
fail:
	e4_journal_close(j);
	return retval;
}

errcode_t e4_journal_close(e4_journal_t j)
{
	errcode_t retval = 0;

	e4_error_tables_init();
	if (!j)
		return 0;
	if (j->external && j->io) {
		if (j->flags & E4_JOURNAL_RW)
			retval = io_channel_flush(j->io);
		io_channel_close(j->io);
	}
	ext2fs_free_mem(&j->runs);
	ext2fs_free_mem(&j->dev_name);
	ext2fs_free_mem(&j->sb);
	ext2fs_free_mem(&j);
	return retval;
}

/* The run holding @jblk (binary search), or NULL. */
static const struct e4_jmap_run *find_run(e4_journal_t j, blk64_t jblk)
{
	size_t lo = 0, hi = j->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct e4_jmap_run *r = &j->runs[mid];

		if (jblk < r->jblk)
			hi = mid;
		else if (jblk >= r->jblk + r->len)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

errcode_t e4_journal_bmap(e4_journal_t j, blk64_t jblk, blk64_t *pblk)
{
	const struct e4_jmap_run *r;

	if (jblk >= j->real_len)
		return EXT2_ET_BAD_BLOCK_NUM;
	if (j->external) {
		*pblk = jblk;
		return 0;
	}
	r = find_run(j, jblk);
	if (!r)
		return EXT2_ET_BAD_BLOCK_NUM;
	*pblk = r->pblk + (jblk - r->jblk);
	return 0;
}

/* Read (@write 0) or write @count jblocks at @jblk, run by run. */
static errcode_t journal_rw(e4_journal_t j, blk64_t jblk, blk64_t count,
			    void *buf, int write)
{
	unsigned char *p = buf;
	errcode_t retval;

	if (jblk + count > j->real_len || jblk + count < jblk)
		return EXT2_ET_BAD_BLOCK_NUM;
	if (j->external)
		return write ? io_channel_write_blk64(j->io, jblk, (int)count,
						      buf) :
			io_channel_read_blk64(j->io, jblk, (int)count, buf);
	while (count) {
		const struct e4_jmap_run *r = find_run(j, jblk);
		blk64_t n, pblk;

		if (!r)
			return EXT2_ET_BAD_BLOCK_NUM;
		n = r->jblk + r->len - jblk;
		if (n > count)
			n = count;
		if (n > (1U << 20) / 4)	/* keep each call's int count sane */
			n = (1U << 20) / 4;
		pblk = r->pblk + (jblk - r->jblk);
		retval = write ? io_channel_write_blk64(j->io, pblk, (int)n, p) :
			io_channel_read_blk64(j->io, pblk, (int)n, p);
		if (retval)
			return retval;
		p += n * j->blocksize;
		jblk += n;
		count -= n;
	}
	return 0;
}

errcode_t e4_journal_read(e4_journal_t j, blk64_t jblk, blk64_t count,
			  void *buf)
{
	return journal_rw(j, jblk, count, buf, 0);
}

errcode_t e4_journal_write(e4_journal_t j, blk64_t jblk, blk64_t count,
			   const void *buf)
{
	if (!(j->flags & E4_JOURNAL_RW))
		return E4_ERR_READ_ONLY;
	return journal_rw(j, jblk, count, (void *)buf, 1);
}

errcode_t e4_journal_write_sb(e4_journal_t j)
{
	blk64_t pblk;
	errcode_t retval;

	e4_error_tables_init();
	if (!(j->flags & E4_JOURNAL_RW))
		return E4_ERR_READ_ONLY;
	e4_jsb_set_csum(j->sb);
	retval = e4_journal_bmap(j, j->sb_jblk, &pblk);
	if (retval)
		return retval;
	retval = io_channel_write_blk64(j->io, pblk, 1, j->sb);
	if (retval)
		return retval;
	retval = io_channel_flush(j->io);
	e4_jsb_decode(j->sb, &j->jsb);
	return retval;
}
