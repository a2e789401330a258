/*
 * mem_io.c --- a memory-backed io_manager for tests and fuzzing: a whole
 * image in memory, copy-on-write over a read-only template, so a harness
 * can reset it between runs by dropping the written pages.
 *
 * libext2fs opens io managers by name, so the channel name carries the
 * image: "e4mem:0x..." is the address of a struct e4_memimg, made with
 * e4_memimg_name().  No global state.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4_int.h"

#define MEM_PAGE	4096U

struct mem_chan {
	struct e4_memimg *img;
};

static unsigned char *page_for_write(struct e4_memimg *m, uint64_t pg)
{
	uint64_t off = pg * MEM_PAGE;
	size_t n;

	if (m->pages[pg])
		return m->pages[pg];
	m->pages[pg] = malloc(MEM_PAGE);
	if (!m->pages[pg])
		return NULL;
	memset(m->pages[pg], 0, MEM_PAGE);
	n = off + MEM_PAGE <= m->size ? MEM_PAGE : m->size - off;
	if (m->base)
		memcpy(m->pages[pg], m->base + off, n);
	m->dirty[m->ndirty++] = pg;
	return m->pages[pg];
}

errcode_t e4_memimg_init(struct e4_memimg *m, const void *base,
			 uint64_t size)
{
	uint64_t np = (size + MEM_PAGE - 1) / MEM_PAGE;

	e4_error_tables_init();
	memset(m, 0, sizeof(*m));
	m->base = base;
	m->size = size;
	m->npages = np;
	m->pages = calloc(np ? np : 1, sizeof(*m->pages));
	m->dirty = calloc(np ? np : 1, sizeof(*m->dirty));
	if (!m->pages || !m->dirty) {
		free(m->pages);
		free(m->dirty);
		m->pages = NULL;	/* e4_memimg_free() is still safe */
		m->dirty = NULL;
		return EXT2_ET_NO_MEMORY;
	}
	snprintf(m->name, sizeof(m->name), "e4mem:%p", (void *)m);
	return 0;
}

void e4_memimg_reset(struct e4_memimg *m)
{
	uint64_t i;

	for (i = 0; i < m->ndirty; i++) {
		free(m->pages[m->dirty[i]]);
		m->pages[m->dirty[i]] = NULL;
	}
	m->ndirty = 0;
	m->nreads = m->nwrites = 0;
}

void e4_memimg_free(struct e4_memimg *m)
{
	e4_memimg_reset(m);
	free(m->pages);
	free(m->dirty);
	m->pages = NULL;
	m->dirty = NULL;
}

errcode_t e4_memimg_pread(struct e4_memimg *m, uint64_t off, void *buf,
			  uint64_t len)
{
	unsigned char *out = buf;

	if (off > m->size || len > m->size - off)
		return EXT2_ET_SHORT_READ;
	while (len) {
		uint64_t pg = off / MEM_PAGE, in = off % MEM_PAGE;
		uint64_t n = MEM_PAGE - in;

		if (n > len)
			n = len;
		if (m->pages[pg])
			memcpy(out, m->pages[pg] + in, n);
		else if (m->base)
			memcpy(out, m->base + off, n);
		else
			memset(out, 0, n);
		out += n;
		off += n;
		len -= n;
	}
	return 0;
}

errcode_t e4_memimg_pwrite(struct e4_memimg *m, uint64_t off,
			   const void *buf, uint64_t len)
{
	const unsigned char *in = buf;

	if (off > m->size || len > m->size - off)
		return EXT2_ET_SHORT_WRITE;
	while (len) {
		uint64_t pg = off / MEM_PAGE, po = off % MEM_PAGE;
		uint64_t n = MEM_PAGE - po;
		unsigned char *p;

		if (n > len)
			n = len;
		p = page_for_write(m, pg);
		if (!p)
			return EXT2_ET_NO_MEMORY;
		memcpy(p + po, in, n);
		in += n;
		off += n;
		len -= n;
	}
	return 0;
}

static errcode_t mem_open(const char *name, int flags, io_channel *ret)
{
	struct e4_memimg *m = NULL;

	(void)flags;
	if (!name || sscanf(name, "e4mem:%p", (void **)&m) != 1 || !m)
		return EXT2_ET_BAD_DEVICE_NAME;
	return e4_chan_new(e4_mem_io_manager, name, m, ret);
}

static errcode_t mem_close(io_channel io)
{
	e4_chan_put(io);
	return 0;
}

static errcode_t mem_set_blksize(io_channel io, int blksize)
{
	io->block_size = blksize;
	return 0;
}

/* libext2fs convention: a negative count is a byte count. */
static uint64_t span(io_channel io, int count)
{
	return count < 0 ? (uint64_t)-count :
		(uint64_t)count * io->block_size;
}

static errcode_t mem_read64(io_channel io, unsigned long long block,
			    int count, void *data)
{
	struct e4_memimg *m = io->private_data;

	m->nreads++;
	return e4_memimg_pread(m, block * io->block_size, data,
			       span(io, count));
}

static errcode_t mem_write64(io_channel io, unsigned long long block,
			     int count, const void *data)
{
	struct e4_memimg *m = io->private_data;

	m->nwrites++;
	if (m->on_write)
		m->on_write(m->on_write_arg, block * io->block_size,
			    span(io, count));
	return e4_memimg_pwrite(m, block * io->block_size, data,
				span(io, count));
}

static errcode_t mem_read(io_channel io, unsigned long block, int count,
			  void *data)
{
	return mem_read64(io, block, count, data);
}

static errcode_t mem_write(io_channel io, unsigned long block, int count,
			   const void *data)
{
	return mem_write64(io, block, count, data);
}

static errcode_t mem_write_byte(io_channel io, unsigned long offset,
				int count, const void *data)
{
	struct e4_memimg *m = io->private_data;

	m->nwrites++;
	if (m->on_write)
		m->on_write(m->on_write_arg, offset, count);
	return e4_memimg_pwrite(m, offset, data, count);
}

static errcode_t mem_flush(io_channel io)
{
	(void)io;
	return 0;
}

static errcode_t mem_set_option(io_channel io, const char *option,
				const char *arg)
{
	(void)io;
	(void)option;
	(void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t mem_zeroout(io_channel io, unsigned long long block,
			     unsigned long long count)
{
	static const unsigned char zero[MEM_PAGE];
	struct e4_memimg *m = io->private_data;
	uint64_t off = block * io->block_size;
	uint64_t len = count * io->block_size;
	errcode_t retval;

	m->nwrites++;
	if (m->on_write)
		m->on_write(m->on_write_arg, off, len);
	while (len) {
		uint64_t n = len < MEM_PAGE ? len : MEM_PAGE;

		retval = e4_memimg_pwrite(m, off, zero, n);
		if (retval)
			return retval;
		off += n;
		len -= n;
	}
	return 0;
}

static struct struct_io_manager mem_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4 memory I/O manager",
	.open		= mem_open,
	.close		= mem_close,
	.set_blksize	= mem_set_blksize,
	.read_blk	= mem_read,
	.write_blk	= mem_write,
	.flush		= mem_flush,
	.write_byte	= mem_write_byte,
	.set_option	= mem_set_option,
	.read_blk64	= mem_read64,
	.write_blk64	= mem_write64,
	.zeroout	= mem_zeroout,
};

io_manager e4_mem_io_manager = &mem_manager;
