/*
 * capture_io.c --- a capturing io_channel stacked on a real one ("under"):
 * every write is held in memory per fs block and nothing reaches the disk;
 * reads see the held blocks over the channel below.  Held blocks are kept
 * per fs block, so libext2fs's byte-sized superblock writes
 * (io_channel_set_blksize(1024)) work too.  txn.c puts one in place of
 * fs->io to collect a transaction's writes.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"

/* ---- held blocks: a hash of fs block -> index in v --------------------- */

static size_t hslot(const struct e4_capture *t, blk64_t blk)
{
	uint64_t h = blk * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> 20) & (t->hash_n - 1);
}

static struct e4_held *find_held(const struct e4_capture *t, blk64_t blk)
{
	size_t i;

	if (!t->hash_n)
		return NULL;
	for (i = hslot(t, blk); t->hash[i]; i = (i + 1) & (t->hash_n - 1))
		if (t->v[t->hash[i] - 1].blk == blk)
			return &t->v[t->hash[i] - 1];
	return NULL;
}

static errcode_t rehash(struct e4_capture *t, size_t n)
{
	size_t *h, i, k;
	errcode_t retval;

	retval = ext2fs_get_arrayzero(n, sizeof(*h), &h);
	if (retval)
		return retval;
	ext2fs_free_mem(&t->hash);
	t->hash = h;
	t->hash_n = n;
	for (i = 0; i < t->n; i++) {
		for (k = hslot(t, t->v[i].blk); h[k]; k = (k + 1) & (n - 1))
			;
		h[k] = i + 1;
	}
	return 0;
}

/* Read fs block @blk from @io whatever its current block size. */
static errcode_t read_fsblk(io_channel io, unsigned int bs, blk64_t blk,
			    void *buf)
{
	return e4_chan_pread(io, (uint64_t)blk * bs, bs, buf);
}

/* The held copy of @blk, made from the block on disk if new. */
static errcode_t hold(struct e4_capture *t, blk64_t blk, int whole,
		      struct e4_held **ret)
{
	unsigned int bs = t->blocksize;
	struct e4_held *h = find_held(t, blk);
	unsigned char *data;
	size_t k;
	errcode_t retval;

	if (h) {
		*ret = h;
		return 0;
	}
	if (t->n == t->cap_n) {
		size_t nc = t->cap_n ? 2 * t->cap_n : 64;

		retval = ext2fs_resize_array(sizeof(*t->v), t->cap_n, nc,
					     &t->v);
		if (retval)
			return retval;
		t->cap_n = nc;
	}
	if (2 * (t->n + 1) > t->hash_n) {
		retval = rehash(t, t->hash_n ? 2 * t->hash_n : 256);
		if (retval)
			return retval;
	}
	retval = ext2fs_get_mem(bs, &data);
	if (retval)
		return retval;
	if (!whole) {
		retval = read_fsblk(t->under, bs, blk, data);
		if (retval) {
			ext2fs_free_mem(&data);
			return retval;
		}
	}
	t->v[t->n].blk = blk;
	t->v[t->n].data = data;
	for (k = hslot(t, blk); t->hash[k]; k = (k + 1) & (t->hash_n - 1))
		;
	t->hash[k] = ++t->n;
	*ret = &t->v[t->n - 1];
	return 0;
}

/* ---- the capturing io_channel ------------------------------------------ */

static errcode_t cap_open(const char *name EXT2FS_ATTR((unused)),
			  int flags EXT2FS_ATTR((unused)),
			  io_channel *ret EXT2FS_ATTR((unused)))
{
	return EXT2_ET_UNIMPLEMENTED;	/* made by e4_capture_new() only */
}

/* The channel goes with its capture: e4_capture_free() releases both. */
static errcode_t cap_close(io_channel io)
{
	if (io->refcount > 1)
		io->refcount--;
	return 0;
}

static errcode_t cap_set_blksize(io_channel io, int blksize)
{
	struct e4_capture *t = io->private_data;

	io->block_size = blksize;
	return io_channel_set_blksize(t->under, blksize);
}

/* Bytes [*off, *off + *len) of a call of @count units of the channel. */
static errcode_t span(io_channel io, unsigned long long block, int count,
		      uint64_t *off, uint64_t *len)
{
	*off = (uint64_t)block * (unsigned int)io->block_size;
	*len = count < 0 ? (uint64_t)-(int64_t)count :
		(uint64_t)count * (unsigned int)io->block_size;
	return *len ? 0 : EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t cap_read64(io_channel io, unsigned long long block,
			    int count, void *data)
{
	struct e4_capture *t = io->private_data;
	unsigned int bs = t->blocksize;
	uint64_t off, len, b, end;
	errcode_t retval;

	retval = io_channel_read_blk64(t->under, block, count, data);
	if (retval || !t->n)
		return retval;
	span(io, block, count, &off, &len);
	end = off + len;
	for (b = off / bs; b * bs < end; b++) {
		const struct e4_held *h = find_held(t, b);
		uint64_t lo, hi;

		if (!h)
			continue;
		lo = b * bs > off ? b * bs : off;
		hi = (b + 1) * bs < end ? (b + 1) * bs : end;
		memcpy((unsigned char *)data + (lo - off),
		       h->data + (lo - b * bs), hi - lo);
	}
	return 0;
}

static errcode_t cap_write64(io_channel io, unsigned long long block,
			     int count, const void *data)
{
	struct e4_capture *t = io->private_data;
	unsigned int bs = t->blocksize;
	uint64_t off, len, b, end;
	errcode_t retval;

	retval = span(io, block, count, &off, &len);
	if (retval)
		return retval;
	end = off + len;
	for (b = off / bs; b * bs < end; b++) {
		uint64_t lo = b * bs > off ? b * bs : off;
		uint64_t hi = (b + 1) * bs < end ? (b + 1) * bs : end;
		struct e4_held *h;

		retval = hold(t, b, lo == b * bs && hi == (b + 1) * bs, &h);
		if (retval) {
			t->failed = 1;
			return retval;
		}
		memcpy(h->data + (lo - b * bs),
		       (const unsigned char *)data + (lo - off), hi - lo);
	}
	return 0;
}

static errcode_t cap_read(io_channel io, unsigned long block, int count,
			  void *data)
{
	return cap_read64(io, block, count, data);
}

static errcode_t cap_write(io_channel io, unsigned long block, int count,
			   const void *data)
{
	return cap_write64(io, block, count, data);
}

static errcode_t cap_flush(io_channel io EXT2FS_ATTR((unused)))
{
	return 0;	/* nothing reaches the disk before the commit */
}

static errcode_t cap_get_stats(io_channel io, io_stats *stats)
{
	struct e4_capture *t = io->private_data;

	if (!t->under->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return t->under->manager->get_stats(t->under, stats);
}

static struct struct_io_manager capture_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4 capturing I/O manager",
	.open		= cap_open,
	.close		= cap_close,
	.set_blksize	= cap_set_blksize,
	.read_blk	= cap_read,
	.write_blk	= cap_write,
	.flush		= cap_flush,
	.get_stats	= cap_get_stats,
	.read_blk64	= cap_read64,
	.write_blk64	= cap_write64,
	/* no write_byte, discard or zeroout: libext2fs falls back to
	 * whole-block writes, which are captured */
};

io_manager e4_capture_io_manager = &capture_manager;

errcode_t e4_capture_new(io_channel under, unsigned int blocksize,
			 struct e4_capture **ret)
{
	struct e4_capture *t = NULL;
	io_channel io = NULL;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (!under || blocksize < 1024 || (blocksize & (blocksize - 1)))
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_memzero(sizeof(*t), &t);
	if (!retval)
		retval = ext2fs_get_memzero(sizeof(*io), &io);
	if (!retval)
		retval = ext2fs_get_mem(sizeof("e4capture"), &io->name);
	if (retval) {
		ext2fs_free_mem(&io);
		ext2fs_free_mem(&t);
		return retval;
	}
	strcpy(io->name, "e4capture");
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = e4_capture_io_manager;
	io->block_size = under->block_size;
	io->refcount = 1;
	io->flags = under->flags;
	io->private_data = t;
	t->under = under;
	t->io = io;
	t->blocksize = blocksize;
	*ret = t;
	return 0;
}

void e4_capture_free(struct e4_capture *t)
{
	size_t i;

	if (!t)
		return;
	ext2fs_free_mem(&t->io->name);
	ext2fs_free_mem(&t->io);
	for (i = 0; i < t->n; i++)
		ext2fs_free_mem(&t->v[i].data);
	ext2fs_free_mem(&t->v);
	ext2fs_free_mem(&t->hash);
	ext2fs_free_mem(&t);
}

static int cmp_held(const void *a, const void *b)
{
	const struct e4_held *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

errcode_t e4_capture_drop_unchanged(struct e4_capture *t,
				    uint64_t *nunchanged)
{
	unsigned int bs = t->blocksize;
	unsigned char *buf;
	size_t i, k = 0;
	errcode_t retval;

	e4_error_tables_init();
	retval = ext2fs_get_mem(bs, &buf);
	if (retval)
		return retval;
	for (i = 0; i < t->n; i++) {
		retval = read_fsblk(t->under, bs, t->v[i].blk, buf);
		if (retval)
			break;
		if (!memcmp(buf, t->v[i].data, bs)) {
			ext2fs_free_mem(&t->v[i].data);
			(*nunchanged)++;
			continue;
		}
		t->v[k++] = t->v[i];
	}
	ext2fs_free_mem(&buf);
	if (retval) {
		/* keep what was kept and what was not looked at yet */
		memmove(t->v + k, t->v + i, (t->n - i) * sizeof(*t->v));
		t->n = k + (t->n - i);
		return retval;
	}
	t->n = k;
	ext2fs_free_mem(&t->hash);	/* no lookups from here on */
	t->hash_n = 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_held);
	return 0;
}

