/*
 * undo_guard.c --- the io_manager e4tools puts under libext2fs's undo
 * io_manager (undo_guard.h): unix_io with one error latch for the device
 * and the undo file, and the stop a signal handler asks for.  The bottom
 * of lib/support's writers: open.c sets it up, target.c's signal handler
 * stops it; it uses neither.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <et/com_err.h>

#include "e4.h"
#include "undo_guard.h"

/*
 * The undo guard: the io_manager under libext2fs's undo io_manager (its
 * backing manager, set_undo_io_backing_manager()), over unix_io, for
 * both channels undo_io opens: the device and the undo file.  undo_io
 * (lib/ext2fs/undo_io.c, e2fsprogs 1.47) skips the device write when
 * saving the old block fails, but it has already marked the block saved
 * (written_block_map) and counted its key: a later write of that block
 * would reach the device with no copy, and undo_close() would record a
 * key whose data is missing (e2undo: "IO error during replay").  So the
 * first write that fails on either channel latches: every later write on
 * both fails with that error.  The undo file on disk is then the one of
 * the last block saved whole, and the device holds only writes it covers.
 * One latch for the process: undo_io's backing manager and undo file
 * name are process-wide too.
 */
static errcode_t guard_latched;
static char *guard_undo_name;	/* the undo file: written uncached */

/*
 * A signal during an in-place write (target.c's handler, through
 * e4s_undo_guard_stop()): the device writes from then on fail with EINTR,
 * the undo file's are let through, so undo_io's close still writes its
 * finished header over the blocks it saved, and the run ends on its
 * failure path (what was written, where the undo file is).  guard_wrote:
 * a device write has been let through.  Both are set and read in signal
 * context: sig_atomic_t, no call.  guard_nwrites counts device writes for
 * the test hook E4_TEST_STOP_WRITE=K (a SIGSTOP before the K-th).
 */
static volatile sig_atomic_t guard_stopped, guard_wrote;
static unsigned long guard_nwrites, guard_stop_at;
static char guard_undo_mark;	/* app_data of an undo file's channel */

static errcode_t guard_open(const char *name, int flags, io_channel *ret)
{
	io_channel io = NULL, inner = NULL;
	errcode_t retval;

	retval = unix_io_manager->open(name, flags, &inner);
	if (retval)
		return retval;
	/*
	 * unix_io caches one-block writes and writes them later: a failed
	 * write of a saved block would surface after undo_io recorded its
	 * key.  Written through, each undo-file write fails at once.
	 */
	if (guard_undo_name && !strcmp(name, guard_undo_name))
		retval = io_channel_set_options(inner, "cache=off");
	if (retval) {
		io_channel_close(inner);
		return retval;
	}
	retval = ext2fs_get_memzero(sizeof(*io), &io);
	if (!retval)
		retval = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (retval) {
		ext2fs_free_mem(&io);
		io_channel_close(inner);
		return retval;
	}
	strcpy(io->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = e4s_undo_guard_manager;
	io->block_size = inner->block_size;
	io->refcount = 1;
	io->flags = inner->flags;
	io->private_data = inner;
	inner->app_data = io;
	/* undo_io never sets app_data on its backing channels: ours. */
	if (guard_undo_name && !strcmp(name, guard_undo_name))
		io->app_data = &guard_undo_mark;
	*ret = io;
	return 0;
}

static errcode_t guard_close(io_channel io)
{
	io_channel inner = io->private_data;
	errcode_t retval;

	if (--io->refcount > 0)
		return 0;
	retval = io_channel_close(inner);
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return retval;
}

static errcode_t guard_set_blksize(io_channel io, int blksize)
{
	io_channel inner = io->private_data;

	io->block_size = blksize;
	return io_channel_set_blksize(inner, blksize);
}

/* undo_io sets read_error on our channel (to learn a short read's
 * length); unix_io calls the one of its own channel. */
static errcode_t guard_read_error(io_channel inner, unsigned long block,
				  int count, void *data, size_t size,
				  int actual, errcode_t error)
{
	io_channel io = inner->app_data;

	if (io && io->read_error)
		return io->read_error(io, block, count, data, size, actual,
				      error);
	return error;
}

static errcode_t guard_read64(io_channel io, unsigned long long block,
			      int count, void *data)
{
	io_channel inner = io->private_data;

	inner->read_error = io->read_error ? guard_read_error : NULL;
	return io_channel_read_blk64(inner, block, count, data);
}

static errcode_t guard_read(io_channel io, unsigned long block, int count,
			    void *data)
{
	return guard_read64(io, block, count, data);
}

/* The latch: @retval of a write, remembered if it is the first failure. */
static errcode_t guard_note(errcode_t retval)
{
	if (retval && !guard_latched)
		guard_latched = retval;
	return retval;
}

/*
 * Before a write on @io: 0 to let it through, else the error to return.
 * A device write after e4s_undo_guard_stop() fails (EINTR, not latched:
 * the undo file's writes go on); the test hook stops the run first.
 */
static errcode_t guard_pass(io_channel io)
{
	const char *k;

	if (guard_latched)
		return guard_latched;
	if (io->app_data == &guard_undo_mark)
		return 0;
	if (!guard_nwrites++ && (k = getenv("E4_TEST_STOP_WRITE")))
		guard_stop_at = strtoul(k, NULL, 10);
	if (guard_stop_at && guard_nwrites == guard_stop_at)
		raise(SIGSTOP);	/* tests/r_sigint_undo signals it here */
	if (guard_stopped)
		return EINTR;
	guard_wrote = 1;
	return 0;
}

static errcode_t guard_write64(io_channel io, unsigned long long block,
			       int count, const void *data)
{
	errcode_t retval = guard_pass(io);

	if (retval)
		return retval;
	return guard_note(io_channel_write_blk64(io->private_data, block,
						 count, data));
}

static errcode_t guard_write(io_channel io, unsigned long block, int count,
			     const void *data)
{
	return guard_write64(io, block, count, data);
}

static errcode_t guard_write_byte(io_channel io, unsigned long offset,
				  int count, const void *data)
{
	errcode_t retval = guard_pass(io);

	if (retval)
		return retval;
	return guard_note(io_channel_write_byte(io->private_data, offset,
						count, data));
}

static errcode_t guard_flush(io_channel io)
{
	io_channel inner = io->private_data;

	/* A flush writes the cached blocks: its failure latches too. */
	return guard_note(io_channel_flush(inner));
}

static errcode_t guard_set_option(io_channel io, const char *option,
				  const char *arg)
{
	io_channel inner = io->private_data;

	if (!inner->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return inner->manager->set_option(inner, option, arg);
}

static errcode_t guard_get_stats(io_channel io, io_stats *stats)
{
	io_channel inner = io->private_data;

	if (!inner->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return inner->manager->get_stats(inner, stats);
}

static errcode_t guard_zeroout(io_channel io, unsigned long long block,
			       unsigned long long count)
{
	errcode_t retval = guard_pass(io);

	if (retval)
		return retval;
	return guard_note(io_channel_zeroout(io->private_data, block, count));
}

static errcode_t guard_discard(io_channel io, unsigned long long block,
			       unsigned long long count)
{
	errcode_t retval = guard_pass(io);

	if (retval)
		return retval;
	return guard_note(io_channel_discard(io->private_data, block, count));
}

static struct struct_io_manager guard_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4tools undo guard I/O manager",
	.open		= guard_open,
	.close		= guard_close,
	.set_blksize	= guard_set_blksize,
	.read_blk	= guard_read,
	.write_blk	= guard_write,
	.flush		= guard_flush,
	.write_byte	= guard_write_byte,
	.set_option	= guard_set_option,
	.get_stats	= guard_get_stats,
	.read_blk64	= guard_read64,
	.write_blk64	= guard_write64,
	.discard	= guard_discard,
	.zeroout	= guard_zeroout,
};

io_manager e4s_undo_guard_manager = &guard_manager;

errcode_t e4s_undo_guard_error(void)
{
	return guard_latched;
}

int e4s_undo_guard_wrote(void)
{
	return guard_wrote;
}

void e4s_undo_guard_stop(void)
{
	guard_stopped = 1;
}

int e4s_undo_guard_stopped(void)
{
	return guard_stopped;
}

errcode_t e4s_undo_guard_name(const char *undo_file)
{
	char *n = strdup(undo_file);

	if (!n)
		return EXT2_ET_NO_MEMORY;
	free(guard_undo_name);
	guard_undo_name = n;
	return 0;
}
