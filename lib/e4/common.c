/*
 * common.c --- what several libe4 files share: making and releasing an
 * io_channel (name copied, magic, 1 KiB block size, one reference), the
 * entries of the read-only io_managers (overlay_io.c, wlog_io.c), and
 * the warning lines of the checks' reports (order_report.c,
 * wlog_check.c), and the size rule of the structs a caller allocates
 * (e4_replay_result_init(), e4_order_opts_init()).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "e4_int.h"

errcode_t e4_struct_size_ok(size_t size, size_t size0)
{
	if (!size)
		return E4_ERR_STRUCT_UNINIT;
	if (size < size0 || size > E4_STRUCT_SIZE_MAX)
		return E4_ERR_STRUCT_SIZE;
	return 0;
}

errcode_t e4_struct_init(void *user, size_t size, size_t size0,
			 const void *defaults, size_t ksize)
{
	errcode_t retval = e4_struct_size_ok(size, size0);

	if (retval)
		return retval;
	memset(user, 0, size);
	memcpy(user, defaults, size < ksize ? size : ksize);
	memcpy(user, &size, sizeof(size));
	return 0;
}

errcode_t e4_struct_in(void *k, size_t ksize, const void *user,
		       size_t size0)
{
	const unsigned char *u = user;
	size_t usize, i;
	errcode_t retval;

	memcpy(&usize, user, sizeof(usize));
	retval = e4_struct_size_ok(usize, size0);
	if (retval)
		return retval;
	for (i = ksize; i < usize; i++)
		if (u[i])
			return E4_ERR_STRUCT_SIZE;
	memcpy((char *)k + sizeof(size_t), u + sizeof(size_t),
	       (usize < ksize ? usize : ksize) - sizeof(size_t));
	return 0;
}

void e4_struct_out(void *user, const void *k, size_t ksize)
{
	size_t usize;

	memcpy(&usize, user, sizeof(usize));
	if (usize > ksize)
		usize = ksize;
	if (usize > sizeof(size_t))
		memcpy((char *)user + sizeof(size_t),
		       (const char *)k + sizeof(size_t),
		       usize - sizeof(size_t));
}

void e4_replay_progress_in(struct e4_replay_result *k,
			   const struct e4_replay_result *user)
{
	size_t end = offsetof(struct e4_replay_result, progress_priv) +
		sizeof(user->progress_priv);

	if (user->size >= end) {
		k->progress = user->progress;
		k->progress_priv = user->progress_priv;
	} else {
		k->progress = NULL;
		k->progress_priv = NULL;
	}
}

errcode_t e4_chan_new(io_manager mgr, const char *name, void *priv,
		      io_channel *ret)
{
	io_channel io = NULL;
	errcode_t retval;

	retval = ext2fs_get_memzero(sizeof(*io), &io);
	if (retval)
		return retval;
	retval = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (retval) {
		ext2fs_free_mem(&io);
		return retval;
	}
	strcpy(io->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = mgr;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = priv;
	*ret = io;
	return 0;
}

int e4_chan_put(io_channel io)
{
	if (--io->refcount > 0)
		return 0;
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return 1;
}

errcode_t e4_ro_write_blk64(io_channel channel, unsigned long long block,
			    int count, const void *data)
{
	(void)channel;
	(void)block;
	(void)count;
	(void)data;
	return E4_ERR_READ_ONLY;
}

errcode_t e4_ro_write_blk(io_channel channel, unsigned long block,
			  int count, const void *data)
{
	return e4_ro_write_blk64(channel, block, count, data);
}

errcode_t e4_ro_write_byte(io_channel channel, unsigned long offset,
			   int count, const void *data)
{
	return e4_ro_write_blk64(channel, offset, count, data);
}

errcode_t e4_ro_flush(io_channel channel)
{
	(void)channel;
	return 0;
}

errcode_t e4_ro_set_option(io_channel channel, const char *option,
			   const char *arg)
{
	(void)channel;
	(void)option;
	(void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

void e4_vadd_warning(char *slots, size_t width, int max, int *n,
		     const char *fmt, va_list ap)
{
	if (*n < max)
		vsnprintf(slots + (size_t)(*n)++ * width, width, fmt, ap);
}

/*
 * Every public entry point that can return an e4 or ext2 error code calls
 * this first, so that a caller's error_message() and com_err() print the
 * text of E4_ERR_* and EXT2_ET_* without initialize_e4_error_table() of
 * its own.  The generated initializers append to com_err's _et_list only
 * when the table is not there yet: idempotent, and no state of libe4's.
 */
void e4_error_tables_init(void)
{
	initialize_e4_error_table();
	initialize_ext2_error_table();
}
