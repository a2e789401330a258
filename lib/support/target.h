/*
 * target.h --- write-target safety shared by every e4tools program and
 * shell command: check each file or device a run will write before the
 * first byte (mounted, held by the kernel, backing a mounted loop device,
 * big enough, distinct), build regular-file outputs and undo files under
 * a temporary name and rename them into place only on success, and probe
 * a target for an existing file system (libblkid) before it is stamped.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_TARGET_H
#define E4_SUPPORT_TARGET_H

#include <stdint.h>
#include <sys/stat.h>
#include <ext2fs/ext2fs.h>

/* ---- checking targets (target.c) ---- */

/* Flags of struct e4s_target. */
#define E4S_T_WRITE	0x01	/* the run writes it: refuse it mounted or
				 * held by the kernel */
#define E4S_T_CREATE	0x02	/* may be absent: the run creates it (its
				 * directory must be writable) */
#define E4S_T_REG	0x04	/* may be a regular file */
#define E4S_T_BLK	0x08	/* may be a block device */
#define E4S_T_UNDO	0x10	/* an undo file: if it exists it must be an
				 * e2undo file (magic E2UNDO02) */
#define E4S_T_ANY	0x20	/* an input of any type: no type check */

#define E4S_MAX_CLAIMS	8
#define E4S_MAX_LOCKS	16

/*
 * A file or device named on the command line.  The caller fills @what (the
 * name used in messages: "IMAGE", "OUTPUT", "--journal-output",
 * "JOURNAL_DEV", "undo file"), @path (NULL: not given, skipped), @flags and
 * @min_bytes; e4s_check_targets() fills the rest, of all @n targets on
 * every return (@st zero unless @exists, @claim_fd -1 past @nclaims).
 */
struct e4s_target {
	const char	*what;
	const char	*path;
	unsigned int	flags;
	uint64_t	min_bytes;	/* a block device must hold at least
					 * this many bytes (0: no check) */
	/* filled by e4s_check_targets() */
	struct stat	st;
	int		exists;
	int		nclaims;	/* loop devices held O_EXCL */
	int		claim_fd[E4S_MAX_CLAIMS];
	int		nlocks;		/* flock()s held (lock.c handles) */
	int		lock[E4S_MAX_LOCKS];
};

/*
 * e4s_check_targets() - check the @n targets at @t for program @prog
 * before anything is opened for writing; prints one line naming the
 * target and the problem and returns at the first refusal:
 *  - two targets are one file (same st_dev/st_ino, or the same block
 *    device number; two names of one file yet to be created): EINVAL;
 *  - a target of the wrong type (not E4S_T_REG / E4S_T_BLK as allowed; an
 *    E4S_T_UNDO file that is not an e2undo file): EINVAL;
 *  - an absent E4S_T_CREATE target whose directory is not writable: that
 *    errno; an absent target without E4S_T_CREATE is left to the open that
 *    follows (it reports it);
 *  - an E4S_T_WRITE block device that is mounted (ext2fs_check_mount_point()
 *    and /proc/self/mountinfo by device number), used as swap, held by a
 *    dm/md device (sysfs holders), with a mounted partition, or that an
 *    O_EXCL open finds busy (a mounted fs's external journal, a mount):
 *    EBUSY; one smaller than @min_bytes: ENOSPC;
 *  - an E4S_T_WRITE regular file that is loop-mounted or used as swap:
 *    EBUSY;
 *  - the whole stack (stack.c): every layer a target sits on (a loop
 *    device's backing file or device, a partition's disk, a dm/md
 *    device's slaves, to the end) and every layer on any of those (loop
 *    devices over them, holders, partitions: overlapping ones only for a
 *    disk reached from one of its partitions).  Two targets one of which
 *    is a layer of the other are one file: EINVAL.  An E4S_T_WRITE target
 *    with a layer that is mounted, swap, held by dm/md or that an O_EXCL
 *    open finds busy: EBUSY.  The message names the chain ("OUTPUT
 *    /dev/loop5: /dev/loop5 -> /dev/loop4 is mounted on /mnt").  Each
 *    idle whole loop device of the stack (not the target, not a
 *    partition) is opened O_EXCL and held until e4s_release_targets(), so
 *    nothing can mount it during the run;
 *  - advisory locks (lock.c): every existing target but an undo file is
 *    flock()ed, LOCK_EX if E4S_T_WRITE (with the layers of its stack),
 *    else LOCK_SH (with the layers it sits on), non-blocking; one held by
 *    another process (another e4tools run, an e4debug session, flock(1))
 *    is refused, naming the holder when /proc/locks does: EBUSY.  The
 *    locks are held until e4s_release_targets().
 * A target without E4S_T_WRITE that is mounted only gets a warning (the
 * result may be inconsistent, as e2fsck -n says).  Fills @st, @exists,
 * @nclaims and @claim_fd of every target first, so e4s_release_targets()
 * is safe after any return.  Returns 0 or the error; e4s_usage_error()
 * tells which errors are the command line's fault.
 */
errcode_t e4s_check_targets(const char *prog, struct e4s_target *t, int n);

/* e4s_release_targets() - close the loop-device claims and drop the
 * locks of @t[0..@n); safe to call twice. */
void e4s_release_targets(struct e4s_target *t, int n);

/* e4s_usage_error() - nonzero if @err from e4s_check_targets() is a
 * usage error (two names for one file, a wrong type): EINVAL. */
int e4s_usage_error(errcode_t err);

/*
 * e4s_check_write() - e4s_check_targets() for one target written in place
 * (a device or image a tool opens read-write): @what names it in messages.
 */
errcode_t e4s_check_write(const char *prog, const char *what,
			  const char *path);

/*
 * e4s_warn_mounted() - for a read-only run: if @path is mounted or in use
 * by the kernel, print one warning line (what is read may be
 * inconsistent, the file system changes under the reader); returns 1 then,
 * else 0.  As e2fsck -n on a mounted device.
 */
int e4s_warn_mounted(const char *prog, const char *path);

/*
 * e4s_size_bytes() - the size of the file or block device @path in bytes
 * (st_size, or lseek(SEEK_END) on the device).  Returns 0 or an errno.
 */
errcode_t e4s_size_bytes(const char *path, uint64_t *bytes);

/* ---- advisory locks (lock.c) ---- */

/*
 * e4s_lock_take() - flock(2) @path LOCK_EX if @excl, else LOCK_SH, with
 * LOCK_NB, through a descriptor kept until e4s_lock_drop().  A file this
 * process locked already is counted again (a shared lock is made
 * exclusive when @excl).  Returns a handle >= 0; -1 when another process
 * holds a conflicting lock (@why says who: "e4debug (pid 123) holds it
 * for writing"); -2 when @path cannot be opened or locked here (nothing
 * to refuse: the real open reports it).
 */
int e4s_lock_take(const char *path, int excl, char *why, size_t len);

/* e4s_lock_drop() - drop one count of handle @h (-1 and -2 are ignored);
 * the last one releases the lock. */
void e4s_lock_drop(int h);

/*
 * e4s_lock_holder() - another process holding a flock() on the inode
 * @st (/proc/locks, /proc/PID/comm) into @buf ("e4replay (pid 123)
 * holds it for writing"); 1 if found, else 0.
 */
int e4s_lock_holder(const struct stat *st, char *buf, size_t len);

/*
 * e4s_opener() - another process with block device @st (by number) or
 * file @st (by device and inode) open, from /proc/PID/fd, into @buf
 * ("e4debug (pid 123) has it open"); 1 if found, else 0.
 */
int e4s_opener(const struct stat *st, char *buf, size_t len);

/* ---- outputs built under a temporary name (target.c) ---- */

/*
 * A regular-file output or undo file under construction: the run writes
 * @tmp (a new file in @path's directory, mode of the file it replaces or
 * 0666 & ~umask), e4s_output_commit() renames it over @path.  For a block
 * device @tmp is NULL and the device is written in place (O_EXCL).
 */
struct e4s_output {
	const char	*path;		/* the final name */
	char		*tmp;		/* temporary name, or NULL (device) */
	int		fd;		/* open O_RDWR, or -1 */
	int		is_blk;
};

/*
 * e4s_output_begin() - start output @path: a block device is opened
 * O_RDWR|O_EXCL; otherwise a new empty file is created under a temporary
 * name in @path's directory (".NAME.e4tmp-XXXXXX") and left open in
 * @out->fd.  An existing @path is not touched.  Fills all of @out, on
 * failure too (@fd -1, @tmp NULL: e4s_output_abort() is a no-op).  Prints
 * one line naming @what and @path on failure; returns 0 or an errno.
 */
errcode_t e4s_output_begin(const char *prog, const char *what,
			   const char *path, struct e4s_output *out);

/*
 * e4s_output_copy() - copy the regular file or block device @src into
 * @out from byte 0 and fsync it: into a file the holes of @src and its
 * all-zero 1 MiB runs stay holes (the file is then truncated to @src's
 * size); into a device every byte is written.  @out->fd stays open.
 * Prints one line naming @src and @out->path; returns 0 or an errno.
 */
errcode_t e4s_output_copy(const char *prog, const char *src,
			  struct e4s_output *out);

/*
 * e4s_output_commit() - finish @out: fsync the temporary file (also when
 * the run wrote it through another descriptor and @out->fd is closed),
 * rename it over the final name, fsync the directory (a block device:
 * fsync only).  Closes @out->fd.  On failure the temporary file is removed and the final
 * name keeps its old contents.  Prints one line; returns 0 or an errno.
 */
errcode_t e4s_output_commit(const char *prog, struct e4s_output *out);

/*
 * e4s_output_abort() - drop @out: close it and remove the temporary file;
 * the final name keeps its old contents (or stays absent).  A block device
 * is closed as it is.  Safe to call twice and after a commit.
 */
void e4s_output_abort(struct e4s_output *out);

/* ---- signals (target.c) ---- */

/*
 * e4s_defer_interrupts() - for a writer in place (e4replay, e4tune): a
 * SIGINT, SIGTERM or SIGHUP that arrives once the device has been written
 * through the undo guard (open.c, -z) while no temporary output is under
 * way does not kill the run: the next device write fails with EINTR
 * (e4s_undo_guard_stop()), the run ends on its failure path (it names
 * what was written; e4s_undo_finish() where the undo file is and the
 * e2undo command), and e4s_interrupt_finish() then dies of the signal.
 * Before any write, or with a temporary output, the signal removes the
 * temporary files, undo files included, and kills the run at once.
 * Process state of the tools (the handlers are process-wide).
 */
void e4s_defer_interrupts(void);

/*
 * e4s_interrupt_finish() - at the end of a run: if a signal was deferred,
 * print one line naming it and die of it (default action: exit status
 * 128 + the signal's number); else return.
 */
void e4s_interrupt_finish(const char *prog);

/* ---- undo files (target.c) ---- */

/*
 * An undo file written by libext2fs's undo io_manager under a temporary
 * name, renamed over @path only when the run succeeded and the undo file
 * recorded at least one block (a run that fails or changes nothing leaves
 * an existing undo file byte-identical).
 */
struct e4s_undo {
	struct e4s_output	out;
	const char		*device;	/* what it undoes, or NULL:
						 * checked after a failed run */
	const char		*what;		/* NULL: the run's; else what
						 * device it is, e.g. "external
						 * journal": its own line */
};

/*
 * e4s_undo_begin() - create the temporary undo file for @path (checked by
 * e4s_check_targets() with E4S_T_UNDO first) and return its name in
 * @u->out.tmp, for set_undo_io_backup_file() or E4_JOURNAL_UNDO.  Fills
 * all of @u (@u->device NULL: set it after this call to have a failed
 * run's undo file checked).  Returns 0 or an errno (printed).
 */
errcode_t e4s_undo_begin(const char *prog, const char *path,
			 struct e4s_undo *u);

/*
 * e4s_undo_finish() - after the run, with @ok its success: a temporary
 * undo file that recorded no block (header num_keys 0: the run wrote
 * nothing) is removed, @path stays as it was: 0.  One that recorded
 * blocks is renamed over @path when @ok or when @path does not exist: 1;
 * after a failed run over an existing @path it is kept under its
 * temporary name, which a line names (e2undo undoes the failed run's
 * writes with it), and @path stays as it was: 2.  A failed rename is
 * printed: -1.  With @u->device set, the e2undo command is printed
 * (after a success, one line per undo file: @u->what, if set, names the
 * device it undoes, e.g. e4replay -j's "external journal").
 */
int e4s_undo_finish(const char *prog, struct e4s_undo *u, int ok);

/*
 * e4s_undo_matches() - e2undo's first check (misc/e2undo.c,
 * check_filesystem()): 1 if the superblock copy in the undo file @undo
 * (header super_offset, s_magic stored inverted; lib/ext2fs/undo_io.c)
 * is the superblock of @device now, 0 if not or @undo is no undo file,
 * -1 if either cannot be read.  e4s_undo_finish() uses it after a failed
 * run when @u->device is set: an undo file e2undo would refuse keeps its
 * temporary name and is called incomplete (return 2).
 */
int e4s_undo_matches(const char *undo, const char *device);

/*
 * e4s_is_undo_file() - 1 if @path starts with an e2undo header (magic
 * "E2UNDO02", libext2fs undo_io.c), 0 if not, -1 (errno set) if it cannot
 * be read.
 */
int e4s_is_undo_file(const char *path);

/* ---- what a target holds (target.c, libblkid) ---- */

/*
 * e4s_probe_contents() - probe @path with libblkid for a file system,
 * RAID member or other superblock signature, or a partition table; on a
 * find, write a description ("an ext4 file system (UUID ..., label
 * ...)", "a linux_raid_member RAID member", "a dos partition table") into
 * @desc and return 1; 0 when nothing is recognized; -1 when the probe
 * could not run (@desc says why).
 */
int e4s_probe_contents(const char *path, char *desc, size_t len);

#endif
