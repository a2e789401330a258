/*
 * fault_io.c --- a fault-injecting io_manager that wraps another one: fail
 * the K-th read or write, return short reads, or abort on any write (to
 * prove read-only code never writes).  For tests and fuzzing.
 *
 * The channel name "e4fault:0x..." is the address of a struct e4_fault
 * (e4_fault_name()), which names the backing manager and device.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"

struct fault_chan {
	struct e4_fault	*f;
	io_channel	inner;
};

static errcode_t fault_open(const char *name, int flags, io_channel *ret)
{
	struct e4_fault *f = NULL;
	struct fault_chan *fc = NULL;
	io_channel io = NULL;
	errcode_t retval;

	if (!name || sscanf(name, "e4fault:%p", (void **)&f) != 1 || !f ||
	    !f->backing || !f->backing_name)
		return EXT2_ET_BAD_DEVICE_NAME;
	retval = ext2fs_get_memzero(sizeof(*io), &io);
	if (!retval)
		retval = ext2fs_get_memzero(sizeof(*fc), &fc);
	if (!retval)
		retval = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (retval)
		goto fail;
	strcpy(io->name, name);
	retval = f->backing->open(f->backing_name, flags, &fc->inner);
	if (retval)
		goto fail;
	fc->f = f;
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = e4_fault_io_manager;
	io->block_size = fc->inner->block_size;
	io->refcount = 1;
	io->flags = fc->inner->flags;
	io->private_data = fc;
	*ret = io;
	return 0;
fail:
	if (io)
		ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&fc);
	ext2fs_free_mem(&io);
	return retval;
}

static errcode_t fault_close(io_channel io)
{
	struct fault_chan *fc = io->private_data;
	errcode_t retval;

	if (--io->refcount > 0)
		return 0;
	retval = io_channel_close(fc->inner);
	ext2fs_free_mem(&fc);
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return retval;
}

static errcode_t fault_set_blksize(io_channel io, int blksize)
{
	struct fault_chan *fc = io->private_data;

	io->block_size = blksize;
	return io_channel_set_blksize(fc->inner, blksize);
}

/* Count a read; nonzero when this one must fail. */
static int read_fails(struct e4_fault *f)
{
	f->nreads++;
	return f->fail_read_at && f->nreads >= f->fail_read_at;
}

static int write_fails(struct e4_fault *f)
{
	f->nwrites++;
	if (f->flags & E4_FAULT_ABORT_ON_WRITE)
		abort();
	if (f->fail_write_at && f->nwrites >= f->fail_write_at)
		return 1;
	f->npassed++;
	return 0;
}

static errcode_t fault_read64(io_channel io, unsigned long long block,
			      int count, void *data)
{
	struct fault_chan *fc = io->private_data;
	struct e4_fault *f = fc->f;
	errcode_t retval;

	if (read_fails(f))
		return E4_ERR_IO_FAULT;
	retval = io_channel_read_blk64(fc->inner, block, count, data);
	if (!retval && f->short_read_at && f->nreads == f->short_read_at)
		return EXT2_ET_SHORT_READ;
	return retval;
}

static errcode_t fault_write64(io_channel io, unsigned long long block,
			       int count, const void *data)
{
	struct fault_chan *fc = io->private_data;

	if (write_fails(fc->f))
		return E4_ERR_IO_FAULT;
	return io_channel_write_blk64(fc->inner, block, count, data);
}

static errcode_t fault_read(io_channel io, unsigned long block, int count,
			    void *data)
{
	return fault_read64(io, block, count, data);
}

static errcode_t fault_write(io_channel io, unsigned long block, int count,
			     const void *data)
{
	return fault_write64(io, block, count, data);
}

static errcode_t fault_write_byte(io_channel io, unsigned long offset,
				  int count, const void *data)
{
	struct fault_chan *fc = io->private_data;

	if (write_fails(fc->f))
		return E4_ERR_IO_FAULT;
	return io_channel_write_byte(fc->inner, offset, count, data);
}

static errcode_t fault_flush(io_channel io)
{
	struct fault_chan *fc = io->private_data;

	return io_channel_flush(fc->inner);
}

static errcode_t fault_set_option(io_channel io, const char *option,
				  const char *arg)
{
	struct fault_chan *fc = io->private_data;

	if (!fc->inner->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return fc->inner->manager->set_option(fc->inner, option, arg);
}

static errcode_t fault_zeroout(io_channel io, unsigned long long block,
			       unsigned long long count)
{
	struct fault_chan *fc = io->private_data;

	if (write_fails(fc->f))
		return E4_ERR_IO_FAULT;
	return io_channel_zeroout(fc->inner, block, count);
}

static errcode_t fault_discard(io_channel io, unsigned long long block,
			       unsigned long long count)
{
	struct fault_chan *fc = io->private_data;

	if (write_fails(fc->f))
		return E4_ERR_IO_FAULT;
	return io_channel_discard(fc->inner, block, count);
}

static struct struct_io_manager fault_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4 fault-injecting I/O manager",
	.open		= fault_open,
	.close		= fault_close,
	.set_blksize	= fault_set_blksize,
	.read_blk	= fault_read,
	.write_blk	= fault_write,
	.flush		= fault_flush,
	.write_byte	= fault_write_byte,
	.set_option	= fault_set_option,
	.read_blk64	= fault_read64,
	.write_blk64	= fault_write64,
	.discard	= fault_discard,
	.zeroout	= fault_zeroout,
};

io_manager e4_fault_io_manager = &fault_manager;

int e4_fault_passed(io_channel io, uint64_t *n)
{
	struct fault_chan *fc;

	if (!io || io->manager != e4_fault_io_manager)
		return 0;
	fc = io->private_data;
	*n = fc->f->npassed;
	return 1;
}

void e4_fault_init(struct e4_fault *f, io_manager backing,
		   const char *backing_name)
{
	memset(f, 0, sizeof(*f));
	f->backing = backing;
	f->backing_name = backing_name;
	snprintf(f->name, sizeof(f->name), "e4fault:%p", (void *)f);
}
