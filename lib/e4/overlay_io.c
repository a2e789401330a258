/*
 * overlay_io.c --- the "e4overlay" io_manager: a read-only io_channel
 * stacked on a backing channel it is given (the fs's own fs->io, a mem_io
 * channel, a write-log device), serving the fs blocks of a replayed state
 * (plan.c's struct e4_state) from their logged copies on a source channel
 * (the journal's, unescaped) and every other byte from the backing
 * channel.  With the map of state S_k, libext2fs reads the image as if
 * committed transactions T1..Tk had been replayed, without copying or
 * writing it.  The overlay knows no jbd2 rule (plan.c decides which copy
 * serves a block) and no other io_manager: it never opens anything.
 *
 * Channel naming: libext2fs opens channels by name, so the overlay's name
 * is "e4overlay:0x<address of the overlay>", checked against a magic
 * number on open: no global registry.  Modelled on the way e2fsprogs'
 * undo_io/test_io stack on a backing channel (own code).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4_int.h"

#define E4_OVERLAY_MAGIC	0x4534f564c4159ULL

struct e4_overlay {
	uint64_t		magic;
	io_channel		backing;	/* the image; not owned */
	io_channel		src;		/* the copies; not owned */
	unsigned int		blocksize;	/* fs block size, bytes */
	const struct e4_state	*st;		/* the map; not owned */
	uint64_t		limit;		/* bytes of the image; 0: ? */
	errcode_t		io_error;	/* first failed read below */
	char			name[48];
};

#define OVL_CACHE	64	/* single-block reads kept per channel */

struct ovl_priv {
	e4_overlay_t	ov;
	unsigned char	*tmp;		/* one fs block */
	/*
	 * The last single fs-block reads, direct mapped by block number:
	 * libext2fs reads an inode table block once per inode of it, and
	 * the overlay has no block cache below.  Valid for the state
	 * (st->k) they were read in.
	 */
	unsigned char	*cache;		/* OVL_CACHE blocks */
	blk64_t		cblk[OVL_CACHE];	/* block + 1; 0 empty */
	size_t		ck;		/* st->k of the cached blocks */
};

errcode_t e4_chan_pread(io_channel io, uint64_t off, uint64_t len, void *buf)
{
	uint64_t bs = (unsigned int)io->block_size, first, n;
	unsigned char *b;
	errcode_t retval;

	e4_error_tables_init();
	if (!len)
		return 0;
	if (!bs)
		return EXT2_ET_INVALID_ARGUMENT;
	if (off % bs == 0 && len % bs == 0 && len / bs <= INT_MAX)
		return io_channel_read_blk64(io, off / bs, (int)(len / bs),
					     buf);
	if (off % bs == 0 && len <= INT_MAX)
		return io_channel_read_blk64(io, off / bs, -(int)len, buf);
	/* Not aligned to the channel's blocks: read the blocks around. */
	first = off / bs;
	n = (off + len - 1) / bs - first + 1;
	if (n > INT_MAX / bs)
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_mem(n * bs, &b);
	if (retval)
		return retval;
	retval = io_channel_read_blk64(io, first, (int)n, b);
	if (!retval)
		memcpy(buf, b + (off - first * bs), len);
	ext2fs_free_mem(&b);
	return retval;
}

errcode_t e4_overlay_create(io_channel backing, io_channel src,
			    unsigned int blocksize, blk64_t nblocks,
			    const struct e4_state *st, e4_overlay_t *ret)
{
	e4_overlay_t ov;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (!backing || (st && st->n && !src) || blocksize < 1024 ||
	    (blocksize & (blocksize - 1)))
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_memzero(sizeof(*ov), &ov);
	if (retval)
		return retval;
	ov->magic = E4_OVERLAY_MAGIC;
	ov->backing = backing;
	ov->src = src;
	ov->blocksize = blocksize;
	ov->limit = (uint64_t)nblocks * blocksize;
	ov->st = st;
	snprintf(ov->name, sizeof(ov->name), "e4overlay:%p", (void *)ov);
	*ret = ov;
	return 0;
}

void e4_overlay_free(e4_overlay_t ov)
{
	if (!ov)
		return;
	ov->magic = 0;
	ext2fs_free_mem(&ov);
}

const char *e4_overlay_name(e4_overlay_t ov)
{
	return ov->name;
}

errcode_t e4_overlay_error(e4_overlay_t ov)
{
	return ov->io_error;
}

/* Keep the first error of a read the image should have served. */
static errcode_t note(e4_overlay_t ov, errcode_t err)
{
	if (err && !ov->io_error)
		ov->io_error = err;
	return err;
}

/* Read @run copies starting at @e (contiguous on the source) into @d. */
static errcode_t read_copies(e4_overlay_t ov, const struct e4_copy *e,
			     size_t run, unsigned char *d)
{
	uint64_t bs = ov->blocksize;
	size_t x;
	errcode_t retval;

	retval = e4_chan_pread(ov->src, e->src_blk * bs, run * bs, d);
	if (retval)
		return note(ov, retval);
	for (x = 0; x < run; x++)
		e4_jblock_unescape(d + x * bs, e[x].flags & E4_COPY_ESCAPED);
	return 0;
}

/* ---- the io_manager --------------------------------------------------- */

static errcode_t ovl_open(const char *name, int flags, io_channel *channel)
{
	io_channel io = NULL;
	struct ovl_priv *priv = NULL;
	e4_overlay_t ov = NULL;
	void *ptr = NULL;
	errcode_t retval;

	if (!name || sscanf(name, "e4overlay:%p", &ptr) != 1 || !ptr)
		return EXT2_ET_BAD_DEVICE_NAME;
	ov = ptr;
	if (ov->magic != E4_OVERLAY_MAGIC)
		return EXT2_ET_BAD_DEVICE_NAME;
	if (flags & IO_FLAG_RW)
		return E4_ERR_READ_ONLY;
	retval = ext2fs_get_memzero(sizeof(*priv), &priv);
	if (retval)
		return retval;
	priv->ov = ov;
	retval = ext2fs_get_mem(ov->blocksize, &priv->tmp);
	if (!retval)
		retval = ext2fs_get_mem((size_t)OVL_CACHE * ov->blocksize,
					&priv->cache);
	if (!retval)
		retval = e4_chan_new(e4_overlay_io_manager, name, priv, &io);
	if (!retval) {
		*channel = io;
		return 0;
	}
	ext2fs_free_mem(&priv->tmp);
	ext2fs_free_mem(&priv->cache);
	ext2fs_free_mem(&priv);
	return retval;
}

static errcode_t ovl_close(io_channel channel)
{
	struct ovl_priv *priv = channel->private_data;

	if (e4_chan_put(channel)) {
		ext2fs_free_mem(&priv->tmp);
		ext2fs_free_mem(&priv->cache);
		ext2fs_free_mem(&priv);
	}
	return 0;
}

static errcode_t ovl_set_blksize(io_channel channel, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	channel->block_size = blksize;	/* the backing channel keeps its own */
	return 0;
}

/* Bytes [@off, @off + @len) of the image below; a failure inside the
 * image is kept (not a garbage pointer past the end). */
static errcode_t backing_read(e4_overlay_t ov, uint64_t off, uint64_t len,
			      void *buf)
{
	errcode_t retval = e4_chan_pread(ov->backing, off, len, buf);

	if (retval && (!ov->limit || off + len <= ov->limit))
		note(ov, retval);
	return retval;
}

/*
 * The image's bytes with the state's copies over them: the gaps between
 * mapped blocks from the image, mapped blocks from their copies only (a
 * block the map covers is not read below).
 */
static errcode_t ovl_read_map(io_channel channel, unsigned long long block,
			     int count, void *data)
{
	struct ovl_priv *priv = channel->private_data;
	e4_overlay_t ov = priv->ov;
	const struct e4_state *st = ov->st;
	uint64_t off, size, end, pos, bs = ov->blocksize;
	unsigned char *out = data;
	size_t lo, n = st ? st->n : 0;
	errcode_t retval;

	size = count < 0 ? (uint64_t)-(int64_t)count :
		(uint64_t)count * channel->block_size;
	off = block * (uint64_t)channel->block_size;
	if (!n || !size)
		return backing_read(ov, off, size, data);
	end = off + size;
	/* First map entry at or after the fs block holding @off. */
	lo = e4_state_find(st, off / bs);
	for (pos = off; pos < end; ) {
		const struct e4_copy *e = lo < n ? &st->ents[lo] : NULL;
		uint64_t bstart = e && e->fsblk < end / bs + 1 ?
			e->fsblk * bs : end, to;
		size_t run = 1;

		if (bstart > end)
			bstart = end;
		if (bstart > pos) {	/* a gap: the image */
			retval = backing_read(ov, pos, bstart - pos,
					      out + (pos - off));
			if (retval)
				return retval;
			pos = bstart;
			continue;
		}
		/* Whole blocks whose copies are contiguous: one read. */
		if (bstart == pos) {
			while (lo + run < n &&
			       st->ents[lo + run].fsblk == e->fsblk + run &&
			       st->ents[lo + run].src_blk == e->src_blk + run &&
			       bstart + (run + 1) * bs <= end)
				run++;
		}
		if (bstart == pos && bstart + run * bs <= end) {
			retval = read_copies(ov, e, run, out + (pos - off));
			if (retval)
				return retval;
			pos += run * bs;
			lo += run;
			continue;
		}
		/* Part of a block: its copy, the part wanted. */
		retval = read_copies(ov, e, 1, priv->tmp);
		if (retval)
			return retval;
		to = bstart + bs < end ? bstart + bs : end;
		memcpy(out + (pos - off), priv->tmp + (pos - bstart), to - pos);
		pos = to;
		lo++;
	}
	return 0;
}

static errcode_t ovl_read_blk64(io_channel channel, unsigned long long block,
				int count, void *data)
{
	struct ovl_priv *priv = channel->private_data;
	e4_overlay_t ov = priv->ov;
	size_t k = ov->st ? ov->st->k : 0, x;
	unsigned char *c;
	errcode_t retval;

	if (count != 1 || (unsigned int)channel->block_size != ov->blocksize)
		return ovl_read_map(channel, block, count, data);
	if (priv->ck != k) {	/* another state: forget */
		memset(priv->cblk, 0, sizeof(priv->cblk));
		priv->ck = k;
	}
	x = block % OVL_CACHE;
	c = priv->cache + x * ov->blocksize;
	if (priv->cblk[x] != block + 1) {
		retval = ovl_read_map(channel, block, 1, c);
		if (retval) {
			priv->cblk[x] = 0;
			return retval;
		}
		priv->cblk[x] = block + 1;
	}
	memcpy(data, c, ov->blocksize);
	return 0;
}

static errcode_t ovl_read_blk(io_channel channel, unsigned long block,
			      int count, void *data)
{
	return ovl_read_blk64(channel, block, count, data);
}

static errcode_t ovl_get_stats(io_channel channel, io_stats *stats)
{
	struct ovl_priv *priv = channel->private_data;
	io_channel b = priv->ov->backing;

	if (b->manager->get_stats)
		return b->manager->get_stats(b, stats);
	return EXT2_ET_UNIMPLEMENTED;
}

static struct struct_io_manager struct_overlay_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4tools overlay I/O manager",
	.open		= ovl_open,
	.close		= ovl_close,
	.set_blksize	= ovl_set_blksize,
	.read_blk	= ovl_read_blk,
	.write_blk	= e4_ro_write_blk,
	.flush		= e4_ro_flush,
	.write_byte	= e4_ro_write_byte,
	.set_option	= e4_ro_set_option,
	.get_stats	= ovl_get_stats,
	.read_blk64	= ovl_read_blk64,
	.write_blk64	= e4_ro_write_blk64,
};

io_manager e4_overlay_io_manager = &struct_overlay_manager;

errcode_t e4_overlay_open_fs(e4_overlay_t ov, int flags, ext2_filsys *ret)
{
	e4_error_tables_init();
	return ext2fs_open2(ov->name, "", (flags & ~EXT2_FLAG_RW) |
			    EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS,
			    0, 0, e4_overlay_io_manager, ret);
}
