/*
 * open.c --- how every e4tools program and e4debug opens what it works on:
 * the file system (mount check, undo file, size check) and its journal,
 * each channel through the E4_FAULT hook (see open.h).
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
#include <blkid/blkid.h>
#include <e2p/e2p.h>
#include <uuid/uuid.h>

#include "e4.h"
#include "open.h"
#include "parse.h"
#include "target.h"
#include "undo_guard.h"

/* The hook's state of each channel role: the fs, an external journal. */
static struct e4_fault fault_slot[2];

errcode_t e4s_fault_wrap(const char *prog, int slot, const char *device,
			 io_manager *io, const char **name)
{
	const char *spec = getenv("E4_FAULT");
	struct e4_fault *f = &fault_slot[slot];
	char *copy, *tok, *save = NULL;
	uint64_t k;

	if (!spec || !*spec)
		return 0;
	e4_fault_init(f, *io, device);
	copy = strdup(spec);
	if (!copy)
		return EXT2_ET_NO_MEMORY;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (!colon || e4s_scan_num(colon + 1, strlen(colon + 1),
					   UINT64_MAX, &k) || !k)
			goto bad;
		*colon = 0;
		if (!strcmp(tok, "write"))
			f->fail_write_at = k;
		else if (!strcmp(tok, "read"))
			f->fail_read_at = k;
		else if (!strcmp(tok, "short"))
			f->short_read_at = k;
		else
			goto bad;
	}
	free(copy);
	*io = e4_fault_io_manager;
	*name = f->name;
	return 0;
bad:
	com_err(prog, EXT2_ET_INVALID_ARGUMENT, "in E4_FAULT='%s'", spec);
	free(copy);
	return EXT2_ET_INVALID_ARGUMENT;
}

/*
 * Point the undo io_manager at @undo_file, emptied first if @fresh.  The
 * name is checked by e4s_check_targets() (E4S_T_UNDO) and is normally the
 * temporary name of e4s_undo_begin(): the run's undo file replaces the
 * named one only when the run wrote something (e4s_undo_finish()).
 */
static errcode_t point_undo(const char *prog, const char *undo_file,
			    int fresh)
{
	errcode_t retval;

	if (!undo_file || !*undo_file) {
		com_err(prog, EINVAL, "invalid undo file: empty name");
		return EINVAL;
	}
	if (fresh && unlink(undo_file) < 0 && errno != ENOENT) {
		retval = errno;
		com_err(prog, retval, "while deleting undo file %s",
			undo_file);
		return retval;
	}
	retval = set_undo_io_backing_manager(e4s_undo_guard_manager);
	if (!retval)
		retval = set_undo_io_backup_file((char *)undo_file);
	if (!retval) {
		retval = e4s_undo_guard_name(undo_file);
	}
	if (retval)
		com_err(prog, retval, "while setting up undo file %s",
			undo_file);
	return retval;
}

errcode_t e4s_setup_undo(const char *prog, const char *undo_file)
{
	return point_undo(prog, undo_file, 1);
}

errcode_t e4s_resume_undo(const char *prog, const char *undo_file)
{
	return point_undo(prog, undo_file, 0);
}

/*
 * A truncated image: the superblock counts more blocks than the file or
 * device holds (e2fsck's "The filesystem size (according to the
 * superblock) is ... blocks" check).  Nothing beyond the end can be read.
 */
static errcode_t check_size(ext2_filsys fs, const char *device)
{
	blk64_t dev_blocks;
	errcode_t retval;

	retval = ext2fs_get_device_size2(device, fs->blocksize, &dev_blocks);
	if (retval == EXT2_ET_UNIMPLEMENTED)
		return 0;
	if (retval)
		return retval;
	if (dev_blocks && dev_blocks < ext2fs_blocks_count(fs->super))
		return E4_ERR_FS_TRUNCATED;
	return 0;
}

/* Is @device a bare external journal device?  libext2fs opens one
 * read-only with EXT2_FLAG_JOURNAL_DEV_OK only. */
static int is_journal_dev(const char *device)
{
	ext2_filsys fs = NULL;
	int r;

	if (ext2fs_open2(device, "", EXT2_FLAG_64BITS |
			 EXT2_FLAG_JOURNAL_DEV_OK | EXT2_FLAG_SKIP_MMP, 0, 0,
			 unix_io_manager, &fs))
		return 0;
	r = ext2fs_has_feature_journal_dev(fs->super);
	ext2fs_free(fs);
	return r;
}

errcode_t e4s_open_fs(const char *prog, const char *device, int flags,
			  const char *undo_file, ext2_filsys *ret)
{
	io_manager io = unix_io_manager;
	const char *open_name = device;
	int open_flags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP;
	struct stat st;
	errcode_t retval;

	*ret = NULL;
	if (stat(device, &st) < 0) {
		retval = errno;
		com_err(prog, retval, "while trying to open %s", device);
		return retval;
	}
	if (S_ISDIR(st.st_mode)) {
		retval = EISDIR;
		com_err(prog, retval, "while trying to open %s", device);
		return retval;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		/* an open of a FIFO for reading waits for a writer */
		fprintf(stderr, "%s: %s is %s, not a regular file or block "
			"device; nothing opened\n", prog, device,
			S_ISFIFO(st.st_mode) ? "a FIFO" : "a socket");
		return ESPIPE;
	}
	if (flags & E4S_OPEN_RW) {
		/* target.c: mounted, held, backing a busy loop device. */
		retval = e4s_check_write(prog, "device", device);
		if (retval)
			return retval == EBUSY ? E4_ERR_MOUNTED : retval;
		open_flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
		if (undo_file) {
			retval = point_undo(prog, undo_file, !(flags &
					    E4S_OPEN_UNDO_RESUME));
			if (retval)
				return retval;
			io = undo_io_manager;
		}
	} else {
		/* As e2fsck -n: what a mounted fs holds may change. */
		e4s_warn_mounted(prog, device);
	}
	if (flags & E4S_OPEN_IGNORE_CSUM)
		open_flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	if ((flags & E4S_OPEN_JOURNAL_DEV) && !(flags & E4S_OPEN_RW))
		open_flags |= EXT2_FLAG_JOURNAL_DEV_OK;
	retval = e4s_fault_wrap(prog, 0, device, &io, &open_name);
	if (retval)
		return retval;
	retval = ext2fs_open2(open_name, "", open_flags, 0, 0, io, ret);
	if (retval == EXT2_ET_UNSUPP_FEATURE && is_journal_dev(device)) {
		fprintf(stderr, "%s: %s is an external journal device, not a "
			"file system: name its file system and the device with "
			"-j (%s -j %s FS)\n", prog, device, prog, device);
		*ret = NULL;
		return retval;
	}
	if (retval) {
		com_err(prog, retval, "while trying to open %s", device);
		*ret = NULL;
		return retval;
	}
	retval = check_size(*ret, device);
	if (retval) {
		com_err(prog, retval, "while checking the size of %s", device);
		ext2fs_close_free(ret);
		return retval;
	}
	return 0;
}

int e4s_is_journal_dev(ext2_filsys fs)
{
	return fs && ext2fs_has_feature_journal_dev(fs->super);
}

int e4s_needs_recovery(ext2_filsys fs)
{
	return fs && ext2fs_has_feature_journal_needs_recovery(fs->super);
}


/* The io_manager and channel name of the external journal @journal_dev
 * opened with E4_JOURNAL_* @flags: unix_io or undo_io, under the fault
 * hook.  Returns 0 or EXT2_ET_INVALID_ARGUMENT (printed). */
static errcode_t journal_io(const char *prog, const char *journal_dev,
			    int flags, io_manager *io, const char **name)
{
	*io = (flags & E4_JOURNAL_UNDO) && (flags & E4_JOURNAL_RW) ?
		undo_io_manager : unix_io_manager;
	*name = journal_dev;
	return journal_dev ? e4s_fault_wrap(prog, 1, journal_dev, io, name) :
		0;
}

char *e4s_find_journal_dev(ext2_filsys fs, int *nfound, char *others,
			   size_t len)
{
	char uuid[37], *dev = NULL;
	blkid_dev_iterate it;
	blkid_cache cache;
	blkid_dev d;
	struct stat st;

	*nfound = 0;
	if (len)
		*others = 0;
	if (!ext2fs_has_feature_journal(fs->super) ||
	    fs->super->s_journal_inum ||
	    e2p_is_null_uuid(fs->super->s_journal_uuid))
		return NULL;
	uuid_unparse(fs->super->s_journal_uuid, uuid);
	/*
	 * A fresh probe of every block device, not the cache file: libblkid
	 * trusts a cached entry unverified for 2 s (BLKID_PROBE_MIN), and a
	 * loop device detached and attached again in that time names
	 * another file's contents (r_extjournal_blkid failed so).
	 */
	if (blkid_get_cache(&cache, "/dev/null"))
		return NULL;
	blkid_probe_all(cache);
	it = blkid_dev_iterate_begin(cache);
	if (it && !blkid_dev_set_search(it, "UUID", uuid)) {
		while (!blkid_dev_next(it, &d)) {
			const char *name = blkid_dev_devname(d);

			/* block devices only, never a file */
			if (!name || stat(name, &st) || !S_ISBLK(st.st_mode))
				continue;
			if (++*nfound == 1) {
				dev = strdup(name);
			} else if (len) {
				size_t n = strlen(others);

				snprintf(others + n, len - n, "%s%s",
					 n ? ", " : "", name);
			}
		}
	}
	blkid_dev_iterate_end(it);
	blkid_put_cache(cache);
	return dev;
}

const char *e4s_journal_where(char *buf, size_t len, const char *device,
			      const char *journal_dev)
{
	if (journal_dev)
		snprintf(buf, len, "%s (external journal %s)", device,
			 journal_dev);
	else
		snprintf(buf, len, "%s", device);
	return buf;
}

errcode_t e4s_open_journal(const char *prog, ext2_filsys fs,
			   const char *journal_dev, int flags,
			   e4_journal_t *ret)
{
	const char *name;
	char *found = NULL;
	io_manager io;
	errcode_t retval;

	*ret = NULL;
	if (!journal_dev && !(flags & E4_JOURNAL_RW)) {
		/* Reading: the device with the journal's UUID, as e2fsck
		 * finds it; a writer names it with -j (its checks and undo
		 * file are decided on the names given). */
		char others[256];
		int n;

		found = e4s_find_journal_dev(fs, &n, others, sizeof(others));
		if (n > 1) {
			/* Two devices with one UUID: reading either could
			 * show another journal than the fs's; not chosen. */
			fprintf(stderr, "%s: %d block devices carry the "
				"external journal's UUID (%s, %s): give the "
				"journal with -j\n", prog, n, found, others);
			free(found);
			found = NULL;
		}
		journal_dev = found;
	}
	if (journal_dev && (flags & E4_JOURNAL_RW)) {
		retval = e4s_check_write(prog, "journal device", journal_dev);
		if (retval)
			return retval == EBUSY ? E4_ERR_MOUNTED : retval;
	} else if (journal_dev) {
		e4s_warn_mounted(prog, journal_dev);
	}
	retval = journal_io(prog, journal_dev, flags, &io, &name);
	if (!retval)
		retval = e4_journal_open_io(fs, journal_dev, io, name, flags,
					    ret);
	free(found);
	return retval;
}

errcode_t e4s_open_journal_file(const char *prog, const char *path,
				e4_journal_t *ret)
{
	const char *name;
	io_manager io;
	errcode_t retval;

	*ret = NULL;
	e4s_warn_mounted(prog, path);
	retval = journal_io(prog, path, 0, &io, &name);
	if (!retval)
		retval = e4_journal_open_file(path, io, name, 0, ret);
	return retval;
}

errcode_t e4s_open_replayed(const char *prog, ext2_filsys fs,
			    const char *journal_dev, struct e4_replayed *r)
{
	const char *name;
	io_manager io;
	errcode_t retval;

	memset(r, 0, sizeof(*r));
	retval = journal_io(prog, journal_dev, 0, &io, &name);
	if (retval)
		return retval;
	return e4_replayed_open_io(fs, journal_dev, io, name, r);
}
