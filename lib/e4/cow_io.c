/*
 * cow_io.c --- the "e4cow" io_manager: a copy-on-write layer stacked on a
 * channel it is given.  Reads come from the lower channel unless the
 * block was written; a write copies the (whole) block into memory first
 * and changes only that copy.  The lower channel is never written, so a
 * read-only view (the overlay's state S_k, an image opened read-only) can
 * be opened read-write with libext2fs and changed in memory: the fast-
 * commit replay of a replayed state runs this way (fc_state.c).
 *
 * Channel naming: libext2fs opens channels by name, so the channel's name
 * is "e4cow:0x<address of the struct e4_cow>", checked against a magic
 * number on open: no global registry (as overlay_io.c and mem_io.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4_int.h"

#define E4_COW_MAGIC	0x4534434f57ULL
#define NBUCKETS	256

struct cow_blk {
	blk64_t		blk;		/* in units of cow->unit bytes */
	unsigned char	*data;
	struct cow_blk	*next;		/* hash chain */
	size_t		order;		/* position in cow->list */
};

struct e4_cow {
	uint64_t	magic;
	io_channel	lower;		/* not owned */
	unsigned int	unit;		/* bytes: the fs block size */
	struct cow_blk	*bucket[NBUCKETS];
	struct cow_blk	**list;		/* written blocks, first-write order */
	size_t		n, alloc;
	uint64_t	nreads, nwrites;
	char		name[40];
};

static struct cow_blk *cow_find(struct e4_cow *c, blk64_t blk)
{
	struct cow_blk *b;

	for (b = c->bucket[blk % NBUCKETS]; b; b = b->next)
		if (b->blk == blk)
			return b;
	return NULL;
}

/*
 * Read @count units starting at unit @blk from the lower channel into @buf,
 * whatever block size the lower channel has at the moment.
 */
static errcode_t lower_read(struct e4_cow *c, blk64_t blk, size_t count,
			    void *buf)
{
	io_channel lo = c->lower;
	uint64_t off = blk * c->unit, len = (uint64_t)count * c->unit;
	unsigned int lbs;
	unsigned char *tmp = NULL;
	uint64_t first, last;
	errcode_t retval;

	if (!lo)
		return EXT2_ET_OP_NOT_SUPPORTED;	/* detached */
	lbs = (unsigned int)lo->block_size;
	if (lbs && off % lbs == 0 && len % lbs == 0)
		return io_channel_read_blk64(lo, off / lbs, (int)(len / lbs),
					     buf);
	/* An odd lower block size: read the enclosing lower blocks. */
	first = off / lbs;
	last = (off + len + lbs - 1) / lbs;
	retval = ext2fs_get_mem((last - first) * lbs, &tmp);
	if (retval)
		return retval;
	retval = io_channel_read_blk64(lo, first, (int)(last - first), tmp);
	if (!retval)
		memcpy(buf, tmp + (off - first * lbs), len);
	ext2fs_free_mem(&tmp);
	return retval;
}

/* The in-memory copy of unit @blk, made from the lower channel if new. */
static errcode_t cow_get(struct e4_cow *c, blk64_t blk, struct cow_blk **ret)
{
	struct cow_blk *b = cow_find(c, blk);
	errcode_t retval;

	if (b) {
		*ret = b;
		return 0;
	}
	if (c->n == c->alloc) {
		size_t na = c->alloc ? c->alloc * 2 : 64;

		retval = ext2fs_resize_mem(c->alloc * sizeof(*c->list),
					   na * sizeof(*c->list), &c->list);
		if (retval)
			return retval;
		c->alloc = na;
	}
	retval = ext2fs_get_memzero(sizeof(*b), &b);
	if (retval)
		return retval;
	retval = ext2fs_get_mem(c->unit, &b->data);
	if (!retval)
		retval = lower_read(c, blk, 1, b->data);
	if (retval) {
		ext2fs_free_mem(&b->data);
		ext2fs_free_mem(&b);
		return retval;
	}
	b->blk = blk;
	b->order = c->n;
	b->next = c->bucket[blk % NBUCKETS];
	c->bucket[blk % NBUCKETS] = b;
	c->list[c->n++] = b;
	*ret = b;
	return 0;
}

errcode_t e4_cow_create(io_channel lower, unsigned int unit,
			struct e4_cow **ret)
{
	struct e4_cow *c;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (!lower || unit < 1024 || (unit & (unit - 1)))
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_memzero(sizeof(*c), &c);
	if (retval)
		return retval;
	c->magic = E4_COW_MAGIC;
	c->lower = lower;
	c->unit = unit;
	snprintf(c->name, sizeof(c->name), "e4cow:%p", (void *)c);
	*ret = c;
	return 0;
}

void e4_cow_free(struct e4_cow *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		ext2fs_free_mem(&c->list[i]->data);
		ext2fs_free_mem(&c->list[i]);
	}
	ext2fs_free_mem(&c->list);
	c->magic = 0;
	ext2fs_free_mem(&c);
}

void e4_cow_detach(struct e4_cow *c)
{
	if (c)
		c->lower = NULL;
}

const char *e4_cow_name(const struct e4_cow *c)
{
	return c->name;
}

size_t e4_cow_count(const struct e4_cow *c)
{
	return c->n;
}

const void *e4_cow_block(const struct e4_cow *c, size_t i, blk64_t *blk)
{
	if (i >= c->n)
		return NULL;
	*blk = c->list[i]->blk;
	return c->list[i]->data;
}

/* ---- the io_manager --------------------------------------------------- */

static errcode_t cow_open(const char *name, int flags, io_channel *channel)
{
	struct e4_cow *c = NULL;
	void *ptr = NULL;

	(void)flags;
	if (!name || sscanf(name, "e4cow:%p", &ptr) != 1 || !ptr)
		return EXT2_ET_BAD_DEVICE_NAME;
	c = ptr;
	if (c->magic != E4_COW_MAGIC)
		return EXT2_ET_BAD_DEVICE_NAME;
	return e4_chan_new(e4_cow_io_manager, name, c, channel);
}

static errcode_t cow_close(io_channel io)
{
	e4_chan_put(io);
	return 0;
}

static errcode_t cow_set_blksize(io_channel io, int blksize)
{
	io->block_size = blksize;
	return 0;
}

/* libext2fs convention: a negative count is a byte count. */
static uint64_t span(io_channel io, int count)
{
	return count < 0 ? (uint64_t)-(int64_t)count :
		(uint64_t)count * io->block_size;
}

static errcode_t cow_read64(io_channel io, unsigned long long block,
			    int count, void *data)
{
	struct e4_cow *c = io->private_data;
	uint64_t off = block * (uint64_t)io->block_size, len = span(io, count);
	uint64_t u0, u1, u, from, to;
	unsigned char *out = data;
	unsigned char *tmp = NULL;
	errcode_t retval;

	c->nreads++;
	if (!len)
		return 0;
	u0 = off / c->unit;
	u1 = (off + len - 1) / c->unit;
	if (off % c->unit == 0 && len % c->unit == 0) {
		retval = lower_read(c, u0, (size_t)(u1 - u0 + 1), data);
	} else {
		retval = ext2fs_get_mem((u1 - u0 + 1) * c->unit, &tmp);
		if (retval)
			return retval;
		retval = lower_read(c, u0, (size_t)(u1 - u0 + 1), tmp);
		if (!retval)
			memcpy(data, tmp + (off - u0 * c->unit), len);
		ext2fs_free_mem(&tmp);
	}
	if (retval || !c->n)
		return retval;
	for (u = u0; u <= u1; u++) {
		struct cow_blk *b = cow_find(c, u);

		if (!b)
			continue;
		from = u * c->unit > off ? u * c->unit : off;
		to = (u + 1) * c->unit < off + len ? (u + 1) * c->unit :
			off + len;
		memcpy(out + (from - off), b->data + (from - u * c->unit),
		       to - from);
	}
	return 0;
}

static errcode_t cow_write_bytes(struct e4_cow *c, uint64_t off,
				 uint64_t len, const void *data)
{
	const unsigned char *in = data;
	uint64_t u, from, to;
	struct cow_blk *b;
	errcode_t retval;

	c->nwrites++;
	for (u = off / c->unit; len && u <= (off + len - 1) / c->unit; u++) {
		retval = cow_get(c, u, &b);
		if (retval)
			return retval;
		from = u * c->unit > off ? u * c->unit : off;
		to = (u + 1) * c->unit < off + len ? (u + 1) * c->unit :
			off + len;
		memcpy(b->data + (from - u * c->unit), in + (from - off),
		       to - from);
	}
	return 0;
}

static errcode_t cow_write64(io_channel io, unsigned long long block,
			     int count, const void *data)
{
	return cow_write_bytes(io->private_data,
			       block * (uint64_t)io->block_size,
			       span(io, count), data);
}

static errcode_t cow_read(io_channel io, unsigned long block, int count,
			  void *data)
{
	return cow_read64(io, block, count, data);
}

static errcode_t cow_write(io_channel io, unsigned long block, int count,
			   const void *data)
{
	return cow_write64(io, block, count, data);
}

static errcode_t cow_write_byte(io_channel io, unsigned long offset,
				int count, const void *data)
{
	if (count < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	return cow_write_bytes(io->private_data, offset, (uint64_t)count,
			       data);
}

static errcode_t cow_zeroout(io_channel io, unsigned long long block,
			     unsigned long long count)
{
	struct e4_cow *c = io->private_data;
	uint64_t off = block * (uint64_t)io->block_size;
	uint64_t len = count * (uint64_t)io->block_size, n;
	unsigned char *zero = NULL;
	errcode_t retval;

	retval = ext2fs_get_memzero(c->unit, &zero);
	for (; !retval && len; off += n, len -= n) {
		n = c->unit - off % c->unit;
		if (n > len)
			n = len;
		retval = cow_write_bytes(c, off, n, zero);
	}
	ext2fs_free_mem(&zero);
	return retval;
}

static errcode_t cow_flush(io_channel io)
{
	(void)io;
	return 0;
}

static errcode_t cow_set_option(io_channel io, const char *option,
				const char *arg)
{
	(void)io;
	(void)option;
	(void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static struct struct_io_manager cow_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4tools copy-on-write I/O manager",
	.open		= cow_open,
	.close		= cow_close,
	.set_blksize	= cow_set_blksize,
	.read_blk	= cow_read,
	.write_blk	= cow_write,
	.flush		= cow_flush,
	.write_byte	= cow_write_byte,
	.set_option	= cow_set_option,
	.read_blk64	= cow_read64,
	.write_blk64	= cow_write64,
	.zeroout	= cow_zeroout,
};

io_manager e4_cow_io_manager = &cow_manager;
