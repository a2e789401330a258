/*
 * open.h --- how every e4tools program and e4debug command opens what it
 * works on (lib/support/open.c): the file system (the e2fsprogs way: a
 * mount check before a read-write open, an undo file through libext2fs's
 * undo io_manager, a size check) and its journal, every channel through
 * the test-only fault hook E4_FAULT.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_OPEN_H
#define E4_SUPPORT_OPEN_H

#include <ext2fs/ext2fs.h>

#include "e4.h"

#include "undo_guard.h"

/* Flags for e4s_open_fs(). */
#define E4S_OPEN_RW		0x1	/* open read-write */
#define E4S_OPEN_IGNORE_CSUM	0x2	/* EXT2_FLAG_IGNORE_CSUM_ERRORS */
#define E4S_OPEN_UNDO_RESUME	0x4	/* keep an existing undo file and
					 * append to it (e4s_resume_undo) */
#define E4S_OPEN_JOURNAL_DEV	0x8	/* read-only: a bare external
					 * journal device opens too
					 * (EXT2_FLAG_JOURNAL_DEV_OK) */

/*
 * e4s_open_fs() - open the file system on @device for program @prog.
 * Read-only unless E4S_OPEN_RW; read-only, a mounted @device gets a
 * warning (e4s_warn_mounted(), as e2fsck -n).  With E4S_OPEN_RW: refuses
 * a device that is mounted, held by the kernel or backing a busy loop
 * device (e4s_check_write(), lib/support/target.c: E4_ERR_MOUNTED), opens
 * it exclusively (EXT2_FLAG_EXCLUSIVE), and routes writes through
 * libext2fs's undo io_manager when @undo_file is not NULL (emptied first;
 * with E4S_OPEN_UNDO_RESUME appended to instead).  @undo_file is checked
 * by the caller (e4s_check_targets() with E4S_T_UNDO) and is normally the
 * temporary name of e4s_undo_begin().  Refuses
 * a directory (EISDIR) and an image shorter than its superblock says
 * (E4_ERR_FS_TRUNCATED).  The channel goes through e4s_fault_wrap().
 * Prints a one-line com_err message naming @device on failure.  Returns
 * 0 or the error; *@ret is NULL on failure.
 */
errcode_t e4s_open_fs(const char *prog, const char *device, int flags,
		      const char *undo_file, ext2_filsys *ret);

/* e4s_is_journal_dev() - nonzero if @fs is a bare external journal
 * device (opened with E4S_OPEN_JOURNAL_DEV): it has no file system.
 * @fs NULL (a journal file opened alone) is not one: 0. */
int e4s_is_journal_dev(ext2_filsys fs);

/*
 * e4s_find_journal_dev() - the external journal of @fs found by the UUID in
 * its superblock (s_journal_uuid), as e2fsck finds it when -j is not
 * given: libblkid's probe of the system's block devices, fresh (not its
 * cache file, whose entries can name a reused loop device; a match that
 * is not a block device is dropped: files are never probed).  Sets
 * *@nfound to the number of block devices with that UUID and lists all
 * but the first in @others (@len bytes, ", "-separated, cut to fit).
 * Returns the first path (free() it) or NULL: no external journal, or no
 * device has it.  A caller must not pick one of several (open.c).
 */
char *e4s_find_journal_dev(ext2_filsys fs, int *nfound, char *others,
			   size_t len);

/*
 * e4s_journal_where() - how a message names the journal of @device: @device
 * itself, or "@device (external journal @journal_dev)" when one was given
 * (-j), so that "No such file or directory" names the path that is
 * missing.  Writes into @buf (@len bytes) and returns it.
 */
const char *e4s_journal_where(char *buf, size_t len, const char *device,
			      const char *journal_dev);

/*
 * e4s_open_journal() - e4_journal_open() of the journal of @fs (the
 * internal one on fs->io, or the external device @journal_dev), with
 * E4_JOURNAL_* @flags, the external device's channel through
 * e4s_fault_wrap() too.  Without @journal_dev and E4_JOURNAL_RW an
 * external journal is looked up by e4s_find_journal_dev().  An external
 * @journal_dev opened E4_JOURNAL_RW is checked first (e4s_check_write():
 * E4_ERR_MOUNTED when it is mounted or held, e.g. the journal of a fs
 * mounted with journal_path=; printed) and opened exclusively; read-only,
 * a busy one gets a warning.  Prints nothing else; same returns as
 * e4_journal_open() (also
 * EXT2_ET_INVALID_ARGUMENT for a malformed E4_FAULT, printed).
 */
errcode_t e4s_open_journal(const char *prog, ext2_filsys fs,
			   const char *journal_dev, int flags,
			   e4_journal_t *ret);

/*
 * e4s_open_journal_file() - e4_journal_open_file() of @path (a raw
 * journal or an external journal device, no file system; read-only), its
 * channel through e4s_fault_wrap(); a mounted or held @path gets a
 * warning.  Prints nothing else; same returns as e4_journal_open_file()
 * (also EXT2_ET_INVALID_ARGUMENT for a malformed E4_FAULT, printed).
 */
errcode_t e4s_open_journal_file(const char *prog, const char *path,
				e4_journal_t *ret);

/*
 * e4s_open_replayed() - e4_replayed_open() of @fs (state S_n read through
 * the overlay on fs->io), an external journal device @journal_dev opened
 * through e4s_fault_wrap() too.  Prints nothing; same returns.
 */
errcode_t e4s_open_replayed(const char *prog, ext2_filsys fs,
			    const char *journal_dev, struct e4_replayed *r);

/*
 * e4s_setup_undo() - point libext2fs's process-wide undo io_manager at
 * @undo_file (replacing an existing one) over unix_io_manager; the caller
 * then opens through undo_io_manager (or e4s_open_journal() with
 * E4_JOURNAL_UNDO).  Prints a one-line error; returns 0 or the error.
 */
errcode_t e4s_setup_undo(const char *prog, const char *undo_file);

/*
 * e4s_resume_undo() - as e4s_setup_undo() but keep an existing
 * @undo_file: libext2fs's undo_io appends to it when the superblock it
 * recorded at its last close is the device's (undo_io.c
 * try_reopen_undo_file(); else the open fails with
 * EXT2_ET_UNDO_FILE_WRONG), so one program that closes and reopens a
 * file system keeps one undo file.  Returns 0 or the error (printed).
 */
errcode_t e4s_resume_undo(const char *prog, const char *undo_file);

/*
 * e4s_fault_wrap() - the test-only fault hook: when the environment
 * variable E4_FAULT is set ("write:K", "read:K", "short:K",
 * comma-separated; K counted from 1 by e4s_scan_num()), make *@io the
 * fault-injecting io_manager (lib/e4/fault_io.c) wrapping the old *@io
 * on @device and *@name the channel name to open: the K-th and every
 * later write (read) of that channel fails with E4_ERR_IO_FAULT, or the
 * K-th read is short.  Each channel counts its own calls from its open.
 * @slot (0 the fs, 1 an external journal) picks the hook's state, which
 * must outlive the channel.  Unset, changes nothing.  Returns 0 or
 * EXT2_ET_INVALID_ARGUMENT (printed).
 */
errcode_t e4s_fault_wrap(const char *prog, int slot, const char *device,
			 io_manager *io, const char **name);

/* e4s_needs_recovery() - nonzero if the fs superblock says so (0 for
 * @fs NULL: a journal file with no fs). */
int e4s_needs_recovery(ext2_filsys fs);

#endif
