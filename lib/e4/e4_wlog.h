/*
 * e4_wlog.h --- public interface of libe4's block write log support: the
 * dm-log-writes log format (wlog.c), the device at a point of the log as
 * an io_manager (wlog_io.c) and the ordering check over every persistence
 * point (wlog_check.c).  Included by e4.h; the same conventions apply
 * (errcode_t from e4_err.et or ext2_err.et, 0 on success).
 *
 * Units: "sectors" are the log's sectors (its super block's sectorsize,
 * the logged device's logical block size, bytes); entry numbers count
 * from 0 in log order (the log super block in sector 0 is not an entry);
 * "point P" is the device with entries 0..P applied to BASE (P = -1:
 * BASE itself).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_WLOG_H
#define E4_WLOG_H

#include "e4.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- wlog.c: the dm-log-writes log format -------------------------------- */

/*
 * The format (Linux drivers/md/dm-log-writes.c, xfstests
 * src/log-writes/log-writes.h): sector 0 holds the log super block (le64
 * magic, le64 version, le64 nr_entries, le32 sectorsize); the entries
 * follow from sector 1, each a header sector (le64 sector, le64
 * nr_sectors, le64 flags, le64 data_len, zero padded) followed by its
 * data: nr_sectors sectors for a write (none for a DISCARD or a pure
 * FLUSH); a MARK's label is data_len bytes inside its header sector,
 * right after the 32-byte header.
 */
#define E4_WLOG_MAGIC		0x6a736677736872ULL
#define E4_WLOG_VERSION		1
#define E4_WLOG_HDR_SIZE	32	/* bytes of an entry header */

/* Entry flags (LOG_*_FLAG). */
#define E4_WLOG_FLUSH		0x01	/* REQ_PREFLUSH: a flush (no data)
					 * or a write preceded by one */
#define E4_WLOG_FUA		0x02	/* REQ_FUA: the write is durable */
#define E4_WLOG_DISCARD		0x04	/* discard of the range (no data) */
#define E4_WLOG_MARK		0x08	/* a user mark, label in the header */
#define E4_WLOG_METADATA	0x10	/* REQ_META */
#define E4_WLOG_KNOWN_FLAGS	0x1f

/* One entry of the log. */
struct e4_wlog_entry {
	uint64_t	sector;		/* first device sector */
	uint64_t	nr_sectors;	/* sectors written or discarded */
	uint64_t	flags;		/* E4_WLOG_* */
	uint64_t	data_len;	/* as stored (a MARK's label length) */
	uint64_t	hdr_off;	/* byte offset of the header in the log
					 * file */
	uint64_t	data_off;	/* byte offset of the data (writes;
					 * 0 when the entry carries none) */
	char		*mark;		/* MARK: the label, NUL-terminated;
					 * else NULL */
};

/* A parsed log (e4_wlog_open()); every member owned. */
struct e4_wlog {
	char		*path;		/* the log file */
	io_channel	io;		/* the log file (block size: the
					 * sector size) */
	uint32_t	sectorsize;	/* bytes */
	uint64_t	nr_entries;	/* the super block's nr_entries */
	uint64_t	file_size;	/* bytes */
	struct e4_wlog_entry *ents;	/* nr_entries entries, log order */
	uint64_t	extra_bytes;	/* bytes in the file past the last
					 * entry (not entries of the log) */
	uint64_t	nwrites, nflush, nfua, ndiscard, nmark, nmeta;
	uint64_t	written_bytes;	/* data bytes of the writes */
	uint64_t	max_sector;	/* end of the furthest range,
					 * sectors */
	uint64_t	origin;		/* a slice (e4_wlog_slice()): the
					 * parent's number of entry 0; else
					 * 0 */
	struct e4_wlog	*parent;	/* a slice: the log it views (its
					 * entries, labels, path and channel
					 * are the parent's); else NULL */
};
typedef struct e4_wlog *e4_wlog_t;

/*
 * e4_wlog_open() - parse the dm-log-writes log at @path (opened read-only
 * through @mgr, e.g. unix_io_manager) into *@ret: the super block, then
 * every one of its nr_entries entries (header, data extent, mark label),
 * read sequentially; nothing is kept of the data but its offset.  Checks
 * (each failure one error code; *@bad_entry, if not NULL, names the entry,
 * or is (uint64_t)-1 for the super block): magic (E4_ERR_WLOG_MAGIC),
 * version 1 (E4_ERR_WLOG_VERSION), a sectorsize that is a power of two in
 * 512..65536 (E4_ERR_WLOG_SECTORSIZE), an entry header past the end of
 * the file while entries remain (E4_ERR_WLOG_NR_ENTRIES: nr_entries is
 * larger than the file holds), an entry whose header sector or data is
 * cut off by the end of the file (E4_ERR_WLOG_TRUNCATED), an entry that
 * is all zero, has non-zero header padding (a write), a MARK label longer
 * than its header sector, or a range whose end overflows
 * (E4_ERR_WLOG_MALFORMED; the checks of xfstests' log_entry_valid()).
 * Bytes past the last entry are ignored (the kernel updates nr_entries
 * only at FUA, MARK and teardown).  Memory: one struct per entry plus the
 * mark labels.  Returns 0, the errors above, EXT2_ET_NO_MEMORY or io
 * errors.
 */
errcode_t e4_wlog_open(const char *path, io_manager mgr, e4_wlog_t *ret,
		       uint64_t *bad_entry);

/*
 * e4_wlog_open_io() - e4_wlog_open() of the channel @mgr opens by @name
 * (a path, or e.g. mem_io.c's "e4mem:" name), @file_size bytes long.
 * Same checks and returns.
 */
errcode_t e4_wlog_open_io(const char *name, io_manager mgr,
			  uint64_t file_size, e4_wlog_t *ret,
			  uint64_t *bad_entry);

/*
 * e4_wlog_check_device() - check that every entry of @log lies inside a
 * device of @dev_bytes bytes.  Returns 0 or E4_ERR_WLOG_PAST_DEVICE with
 * *@bad_entry (if not NULL) the first entry past it.
 */
errcode_t e4_wlog_check_device(e4_wlog_t log, uint64_t dev_bytes,
			       uint64_t *bad_entry);

/*
 * e4_wlog_check_fs() - check that @log was recorded over BASE: every
 * write carrying the whole primary superblock (bytes 1024-2047) with the
 * ext2 magic (EXT2_SUPER_MAGIC; an earlier write of a mkfs may not) must
 * carry @base's s_uuid (@base: BASE's superblock, NULL when BASE holds
 * no file system: then only the size is checked) and describe a file
 * system (s_blocks_count << block size) that fits in @dev_bytes.
 * Returns 0, E4_ERR_WLOG_OTHER_FS (another UUID) or
 * E4_ERR_WLOG_PAST_DEVICE (a larger fs), with *@bad_entry the entry and
 * *@found (if not NULL) the superblock it writes; or io errors.  All of
 * *@found is zeroed on every other return (*@bad_entry is left alone).
 */
errcode_t e4_wlog_check_fs(e4_wlog_t log, const struct ext2_super_block *base,
			   uint64_t dev_bytes, uint64_t *bad_entry,
			   struct ext2_super_block *found);

/*
 * e4_wlog_slice() - a view of entries @first .. @first + @n - 1 of @log as
 * a log of its own, numbered from 0 (@ret->origin = @first: its entry k
 * is @log's entry @first + k): the entries, mark labels, path and channel
 * are @log's, shared, not copied (@log must outlive the slice); the
 * counts (nwrites, nflush, ..., written_bytes, max_sector) are the
 * slice's; file_size and extra_bytes are @log's.  What xfstests'
 * replay-log --start-entry replays from a device that holds the state
 * before @first.  Memory: one struct.  Returns 0, EXT2_ET_INVALID_ARGUMENT
 * (the range ends past the log) or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_wlog_slice(e4_wlog_t log, uint64_t first, uint64_t n,
			e4_wlog_t *ret);

/* e4_wlog_close() - release @log (NULL is fine; a slice: the view only). */
void e4_wlog_close(e4_wlog_t log);

/*
 * e4_wlog_is_point() - 1 if entry @e is a persistence point: it carries
 * FLUSH or FUA (a power cut after it completed leaves the device with
 * entries 0..e applied), or, with @marks, MARK; else 0.
 */
int e4_wlog_is_point(const struct e4_wlog_entry *e, int marks);

/*
 * e4_wlog_find_mark() - the first MARK entry whose label is @label.
 * Returns 0 with *@entry set, or E4_ERR_WLOG_NO_SUCH_MARK.  (An entry
 * number needs no lookup: entries are numbered from 0 in log order.)
 */
errcode_t e4_wlog_find_mark(e4_wlog_t log, const char *label,
			    uint64_t *entry);

/*
 * e4_wlog_flags_string() - "FLUSH|FUA|DISCARD|MARK|METADATA" names of
 * @flags joined by '|' into @buf (@len bytes; "NONE" for 0, unknown bits
 * as 0x..).  Returns @buf.
 */
char *e4_wlog_flags_string(uint64_t flags, char *buf, size_t len);

/*
 * e4_wlog_read_data() - read @len bytes of entry @e's data, from byte
 * @off of that data, into @buf.  Returns 0, EXT2_ET_INVALID_ARGUMENT
 * (past its data, or an entry without data) or io errors.
 */
errcode_t e4_wlog_read_data(e4_wlog_t log, const struct e4_wlog_entry *e,
			    uint64_t off, void *buf, size_t len);


/* ---- wlog_io.c: the device at a point of the log, as an io_manager ------ */

/*
 * A write-log device serves the logged device as it was at point P: every
 * sector's content is that of the newest entry 0..P that wrote it (read
 * from the log file), zeros when that newest entry is a DISCARD (what the
 * loop devices and thin devices used to record logs do; dm-log-writes'
 * own replay-log does the same when the replay device cannot discard),
 * and the BASE channel's content for sectors no entry 0..P touched.
 * Nothing is copied: an index maps every written sector to the sorted
 * list of entries that wrote it (4 bytes per written sector plus a hash
 * slot), DISCARDs are kept as ranges.  Memory is bounded by the log's
 * data, not by the device size.  Moving P costs nothing (reads look up
 * the newest entry <= P).  Read-only: writes fail with E4_ERR_READ_ONLY.
 *
 * libext2fs opens channels by name: e4_wlog_dev_name() is
 * "e4wlog:0x<address>" (checked against a magic number on open, no global
 * registry); open it with e4_wlog_io_manager.  Several channels may be
 * open on one device at once, each with its own block size; all see the
 * device's current point.
 */
struct e4_wlog_dev;
typedef struct e4_wlog_dev *e4_wlog_dev_t;

extern io_manager e4_wlog_io_manager;

/* What served a sector at a point (e4_wlog_dev_latest()). */
enum e4_wlog_src {
	E4_WLOG_SRC_BASE = 0,	/* no entry 0..P touched it */
	E4_WLOG_SRC_WRITE,	/* written by entry *@entry */
	E4_WLOG_SRC_DISCARD,	/* discarded by entry *@entry: zeros */
};

/*
 * e4_wlog_dev_create() - a device over @base (an open channel on BASE,
 * not owned, used with the log's sector size as its block size; it must
 * stay open and is not to be shared) of @dev_bytes bytes, with the
 * entries of @log (not owned; checked to lie inside the device, see
 * e4_wlog_check_device()) indexed.  Its point starts at -1 (BASE).
 * Returns 0, E4_ERR_WLOG_PAST_DEVICE, EXT2_ET_NO_MEMORY.
 */
errcode_t e4_wlog_dev_create(e4_wlog_t log, io_channel base,
			     uint64_t dev_bytes, e4_wlog_dev_t *ret);

/* e4_wlog_dev_free() - release @d (NULL is fine); close its channels
 * first. */
void e4_wlog_dev_free(e4_wlog_dev_t d);

/* e4_wlog_dev_name() - the device name for ext2fs_open2() and
 * io_manager->open() with e4_wlog_io_manager. */
const char *e4_wlog_dev_name(e4_wlog_dev_t d);

/*
 * e4_wlog_dev_set_point() - serve the device at point @point (-1: BASE;
 * else 0 .. nr_entries - 1) from now on, on every channel open on @d.
 * Returns 0 or EXT2_ET_INVALID_ARGUMENT.  Channels keep no cache, so no
 * flush is needed; an ext2_filsys open on it does cache (inodes, bitmaps,
 * group descriptors): reopen it.
 */
errcode_t e4_wlog_dev_set_point(e4_wlog_dev_t d, int64_t point);

/*
 * e4_wlog_dev_clone() - a second device serving @d's log over @d's BASE
 * channel with @d's index (shared, not copied: @d must outlive the clone,
 * which costs one struct), its own point (-1) and no dropped entries; so
 * that two states of one log (e.g. what a mark was promised, and what was
 * durable there) are open at once.  Release with e4_wlog_dev_free().
 * Returns 0 or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_wlog_dev_clone(e4_wlog_dev_t d, e4_wlog_dev_t *ret);

/*
 * e4_wlog_dev_set_drop() - serve @d from now on as if the @n entries
 * @ents (entry numbers, strictly ascending; copied) had never been
 * written, on every channel open on @d: a sector reads from the newest
 * entry up to the point that is not dropped, else from BASE (the crash
 * state in which a volatile write cache lost exactly those writes:
 * wlog_reorder.c's witnesses, wlog_durable.c's durable state, e4replay
 * --at --drop and --durable); e4_wlog_dev_latest() and
 * e4_wlog_dev_first_write() skip them too.  Replaces the previous set;
 * @n = 0 drops nothing.  Returns 0, EXT2_ET_INVALID_ARGUMENT (an entry
 * past the log, or not ascending: nothing changed) or EXT2_ET_NO_MEMORY.
 * Memory: one bit per entry of the log, allocated at the first drop and
 * kept until e4_wlog_dev_free().
 */
errcode_t e4_wlog_dev_set_drop(e4_wlog_dev_t d, const uint64_t *ents,
			      size_t n);

/*
 * e4_wlog_dev_create_start() - a device that starts at entry @start of
 * @log, as xfstests' replay-log --start-entry=@start (or --start-mark, at
 * the mark's entry) replays onto a device holding the state before it:
 * its BASE is the device over @base at point @start - 1 (entries 0 ..
 * @start - 1 applied; a device of its own, read through a channel of
 * e4_wlog_io_manager), its log the slice of @log from @start on
 * (e4_wlog_slice(): entry k of e4_wlog_dev_log() is @log's entry @start
 * + k; every point, entry and finding of the checks on it is numbered so,
 * e4_wlog_dev_origin() gives @start).  So every rule that names BASE (free
 * in BASE, mapped in BASE, BASE durable, BASE's journal) names the state
 * at @start - 1: the check is that of the same log cut at @start over a
 * BASE holding that state.  @start = 0 is e4_wlog_dev_create().  @log and
 * @base are not owned and must outlive the device.  Memory: the index of
 * each part (together that of the whole log).  Returns 0,
 * EXT2_ET_INVALID_ARGUMENT (@start past the log), E4_ERR_WLOG_PAST_DEVICE
 * or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_wlog_dev_create_start(e4_wlog_t log, io_channel base,
				   uint64_t dev_bytes, uint64_t start,
				   e4_wlog_dev_t *ret);

/* e4_wlog_dev_origin() - the entry of the whole log that is entry 0 of
 * @d's log (e4_wlog_dev_create_start()'s @start; 0 otherwise). */
uint64_t e4_wlog_dev_origin(e4_wlog_dev_t d);

/*
 * e4_wlog_dev_fs_at() - whether the device at point @point (-1: BASE)
 * holds an ext2/3/4 file system with an internal journal: ext2fs_open2()
 * of the device and e4_journal_open() of its journal succeed (checksum
 * errors ignored, MMP skipped, as the checks open every state).  @d's
 * point is left as it was.  Returns 0 (it does), the error that says why
 * not (EXT2_ET_BAD_MAGIC: no superblock; E4_ERR_NO_JOURNAL, a journal
 * superblock error, ...) or EXT2_ET_INVALID_ARGUMENT (@point past the
 * log).
 */
errcode_t e4_wlog_dev_fs_at(e4_wlog_dev_t d, int64_t point);

/*
 * e4_wlog_find_start() - where a check of @d's log from entry @from begins
 * when the log makes the file system (a log recorded from before mkfs, as
 * xfstests' generic/482 records from a zeroed thin volume): if the device
 * at point @from - 1 holds a file system with a journal
 * (e4_wlog_dev_fs_at()), *@start = @from and *@nofs = 0; else the first
 * persistence point P >= @from (e4_wlog_is_point() with @marks) whose
 * state holds one gives *@start = P + 1 (that state is the check's BASE,
 * e4_wlog_dev_create_start()), and *@nofs counts the points @from .. P - 1
 * that hold none ("no file system yet": skipped, not errors).  Points,
 * not entries: the state at a point is one a power cut can leave (mkfs's
 * own writes reach the device in writeback order, the superblock before
 * the inode tables).  @d's point is left as it was.  Returns 0,
 * E4_ERR_WLOG_NO_FS (no point from @from on holds one; *@nofs counts
 * them all), EXT2_ET_INVALID_ARGUMENT (@from past the log) or io errors.
 */
errcode_t e4_wlog_find_start(e4_wlog_dev_t d, uint64_t from, int marks,
			     uint64_t *start, uint64_t *nofs);

/* e4_wlog_dev_log() - the log @d serves. */
e4_wlog_t e4_wlog_dev_log(e4_wlog_dev_t d);

/* e4_wlog_dev_point() - the current point of @d. */
int64_t e4_wlog_dev_point(e4_wlog_dev_t d);

/* e4_wlog_dev_size() - the device size in bytes. */
uint64_t e4_wlog_dev_size(e4_wlog_dev_t d);

/*
 * e4_wlog_dev_latest() - what served sector @sector (log sectors) at point
 * @point (any point, not only the current one): enum e4_wlog_src, with
 * *@entry set to the entry for WRITE and DISCARD.  O(log of the writes of
 * that sector + the DISCARDs overlapping it).
 */
int e4_wlog_dev_latest(e4_wlog_dev_t d, uint64_t sector, int64_t point,
		       int64_t *entry);

/*
 * e4_wlog_dev_first_write() - the first entry E with @after < E < @before
 * that wrote or discarded sector @sector (a DISCARD writes zeros here), or
 * -1.
 */
int64_t e4_wlog_dev_first_write(e4_wlog_dev_t d, uint64_t sector,
				int64_t after, int64_t before);

/*
 * e4_wlog_dev_read() - @len bytes at byte @off of the device at its
 * current point into @buf (any alignment).  Returns 0,
 * EXT2_ET_SHORT_READ (past the device) or io errors.
 */
errcode_t e4_wlog_dev_read(e4_wlog_dev_t d, uint64_t off, void *buf,
			   uint64_t len);

/* ---- wlog_check.c: alloc-on-commit ordering over a write log ------------ */

/* Kinds of write-log findings. */
enum e4_wlog_kind {
	E4_WLOG_STALE = 0,	/* state at a point: an initialized block of a
				 * regular file that no entry up to the point
				 * wrote since it last became free */
	E4_WLOG_NO_DATA,	/* I/O order: a block the transaction newly
				 * maps had no data write before its commit
				 * write (since it last became free) */
	E4_WLOG_NO_FLUSH,	/* I/O order: its data write and the commit
				 * write have no FLUSH between them (and the
				 * commit write carries no PREFLUSH) */
	E4_WLOG_UNRECOVERABLE,	/* the kernel's recovery of the point's
				 * journal fails: the state is lost */
	E4_WLOG_NKINDS,
};

/* One finding: a run of @len blocks (lblk.., pblk..) of inode @ino. */
struct e4_wlog_finding {
	int		kind;		/* enum e4_wlog_kind */
	int		permitted;	/* a note: data=writeback given, which
					 * promises no data ordering */
	int		has_tid;	/* 0: the mapping's transaction is not
					 * known (e.g. committed before BASE) */
	uint32_t	tid;		/* the transaction that mapped it */
	ext2_ino_t	ino;
	uint32_t	generation;	/* i_generation */
	blk64_t		lblk, pblk, len;	/* fs blocks */
	int		conversion;	/* unwritten -> written */
	int64_t		data_entry;	/* I/O order: the data write found
					 * (the last of the block's sectors'
					 * first writes), -1 never */
	int64_t		commit_entry;	/* I/O order: the commit write */
	int64_t		point;		/* the point it is reported at */
	char		*path;		/* in the point's state, or NULL */
};

/* One persistence point checked. */
struct e4_wlog_point {
	uint64_t	entry;
	const char	*mark;		/* label of the last MARK at or before
					 * the entry, or NULL (the log's) */
	uint32_t	*tids;		/* committed tids its recovery
					 * replays */
	size_t		ntids;
	size_t		first_f, nf;	/* its findings in rep->f */
	uint64_t	blocks;		/* initialized regular-file blocks
					 * checked */
	errcode_t	fail;		/* the kernel's recovery fails (the
					 * scan's fail code, the fast-commit
					 * scan's or replay's), or 0 */
	uint32_t	fast_commits;	/* fast commits replayed on top of
					 * the full commits (the state rule
					 * checks that state), or 0 */
};

/* One commit write found in the log. */
struct e4_wlog_txn {
	uint32_t	tid;
	uint64_t	commit_entry;
	int		committed;	/* replayable at the commit write:
					 * checked */
	uint64_t	new_blocks;	/* newly mapped initialized blocks */
	uint64_t	conversions;	/* of those: unwritten -> written */
	uint64_t	released;	/* blocks it frees (bitmap 1 -> 0) */
	uint64_t	violations;	/* I/O-order violation blocks */
	uint64_t	files;		/* distinct inodes of the new
					 * initialized mappings counted in
					 * new_blocks: the regular files
					 * whose new data T commits */
};

/* Something the check could not read, so its verdict says nothing about
 * it (fail closed): a commit's new mappings, an inode's extent tree or
 * block map, a point's fast-commit replay. */
struct e4_wlog_unchecked {
	int64_t		entry;		/* the commit write or the point */
	uint32_t	tid;		/* the transaction, or 0 */
	ext2_ino_t	ino;		/* the inode, or 0 */
	errcode_t	err;
	char		what[160];
};

struct e4_wlog_check_opts {
	int		data_mode;	/* enum e4_data_mode; AUTO: journaled
					 * file data means journal, else
					 * ordered is assumed */
	int		marks;		/* MARK entries are points too */
	int		commits_only;	/* the commit writes only: no
					 * persistence point is checked
					 * (rep->points empty); for
					 * e4_wlog_stats() */
	e4_progress_fn	progress;	/* called with E4_PROGRESS_WLOG
					 * after each entry walked, from 0
					 * (e4_wlog_durable_check_opts():
					 * E4_PROGRESS_DURABLE after each
					 * promise mark); NULL: none */
	void		*progress_priv;	/* its first argument */
};

struct e4_wlog_report {
	int		data_mode;	/* resolved enum e4_data_mode */
	int		data_mode_src;	/* enum e4_data_mode_src */
	struct e4_wlog_point *points;
	size_t		npoints;
	struct e4_wlog_txn *txns;	/* in log order */
	size_t		ntxns;
	struct e4_wlog_finding *f;	/* by point, then tid, inode, lblk */
	size_t		nf;
	uint64_t	violations;	/* violation findings (runs; not
					 * the unrecoverable points) */
	uint64_t	violation_blocks;
	uint64_t	notes;		/* permitted findings */
	uint64_t	unrecoverable;	/* points whose recovery fails */
	uint64_t	states_opened;	/* replayed states read */
	struct e4_wlog_unchecked *unchecked;	/* a report with any is
						 * partial: no verdict */
	size_t		nunchecked;
	char		warnings[8][200];
	int		nwarnings;
	unsigned int	block_size;	/* BASE's fs block size, bytes */
	struct e4_jmap_run *jruns;	/* BASE's journal: where commit
					 * writes are looked for */
	size_t		njruns;
};

/*
 * e4_wlog_check() - check alloc-on-commit ordering over the whole log of
 * write-log device @d (wlog_io.c; its point is moved and left at the
 * last entry).  Commit writes are the write entries that put a jbd2
 * commit block (magic, type 2) into the journal area of BASE's journal.
 * (1) I/O order, at each commit write C of tid T (T committed in the
 * device at C): T's new initialized mappings of regular files (new
 * allocations and unwritten -> written conversions, found by the ordering
 * check, e4_order_check(), on the states before and after T) must each
 * have, for every sector, a write or DISCARD after the block last became
 * free (the commit write of the transaction that freed it: bitmap 1 -> 0,
 * or BASE when free in BASE) and before C, and a FLUSH entry between the
 * last of those and C, or C itself carries FLUSH (PREFLUSH); a block
 * logged in the journal (data=journal) needs neither.  Reported at the
 * first persistence point at or after C.  (2) At each persistence point P
 * (FLUSH or FUA; with opts->marks also MARK), the state recovery gives
 * (every committed transaction replayed, in memory: overlay_io.c; then
 * the live fast commits of the tid after the last full commit, as the
 * kernel's ext4_fc_replay() replays them: e4_replayed_fc()): an
 * initialized block of a regular file, extent-mapped or block-mapped
 * (e4_fs_extents() with E4_EXT_BLOCK_MAPPED: every mapped block of a
 * block map is initialized), that was not so mapped in BASE must
 * be replayed from the journal or have every sector written (or
 * discarded) by an entry up to P after it last became free.  With an
 * explicit data=writeback both are notes.  The I/O-order rule covers full
 * commits only (a fast commit's TAIL goes with PREFLUSH and FUA, so the
 * state rule at its point is its ordering rule).  A point whose journal
 * the kernel refuses (its superblock, the full-commit or fast-commit scan,
 * a fast-commit replay that fails) is reported (E4_WLOG_UNRECOVERABLE).
 * Fail closed: a commit whose single-image check could not read
 * everything, an inode whose extent tree or block map does not read at a
 * point, or a point whose fast commits could not be replayed, is listed in
 * rep->unchecked (the check goes on; the report is then partial, never a
 * verdict); a read error of the device stops it.  Nothing is written.
 * On success *@ret is the report (e4_wlog_report_free()).
 * Returns 0, E4_ERR_NO_JOURNAL (BASE has no internal journal),
 * E4_ERR_BIGALLOC, EXT2_ET_NO_MEMORY, or libext2fs/io errors on a state
 * that cannot be read.
 */
errcode_t e4_wlog_check(e4_wlog_dev_t d, const struct e4_wlog_check_opts *o,
			struct e4_wlog_report **ret);

/*
 * One newly mapped initialized block of a regular file that a commit write
 * makes replayable, as e4_wlog_check() finds it (not those logged in the
 * journal: replay writes them): for e4_wlog_check_newblk().
 */
struct e4_wlog_newblk {
	uint32_t	tid;
	ext2_ino_t	ino;
	uint32_t	generation;
	blk64_t		lblk, pblk;	/* fs blocks */
	int		conversion;	/* unwritten -> written */
	int64_t		commit_entry;	/* the commit write */
	int64_t		freed_entry;	/* the commit write that last freed
					 * the block, -1: not freed in the
					 * log (its data counts from BASE) */
};

/* Called once per such block; a non-zero return stops the check with it. */
typedef errcode_t (*e4_wlog_newblk_fn)(void *priv,
				       const struct e4_wlog_newblk *nb);

/*
 * e4_wlog_check_newblk() - e4_wlog_check() that also hands every newly
 * mapped initialized, unjournaled regular-file block of every checked
 * commit write to @fn (NULL: none), in log order, during the walk (the
 * device's point is then at the commit write: @fn must not move it).
 * Same returns, plus what @fn returns.
 */
errcode_t e4_wlog_check_newblk(e4_wlog_dev_t d,
			       const struct e4_wlog_check_opts *o,
			       e4_wlog_newblk_fn fn, void *priv,
			       struct e4_wlog_report **ret);

/* e4_wlog_report_free() - release @rep (NULL is fine). */
void e4_wlog_report_free(struct e4_wlog_report *rep);

/*
 * e4_wlog_report_in_journal() - 1 if fs block @b (BASE's block size,
 * rep->block_size) lies in BASE's journal (rep->jruns: the journal
 * inode's blocks, as e4_journal_open() maps them), else 0.  The one rule
 * of "the journal area" for the commit writes and the statistics.
 */
int e4_wlog_report_in_journal(const struct e4_wlog_report *rep, blk64_t b);

/* e4_wlog_kind_name() - "stale", "no-data-write", "no-flush",
 * "unrecoverable"; with @permitted the first three end "-permitted". */
const char *e4_wlog_kind_name(int kind, int permitted);

/* ---- wlog_reorder.c: crash states of a volatile write cache ------------- */

/*
 * A reorder violation: a crash state in which tid T's commit write (and
 * every write that makes T replayable) persisted while the data writes
 * of one block T newly maps initialized did not, and no durable write
 * since the block was last freed covers it: recovery replays T and the
 * file exposes stale data at (ino, lblk).
 */
struct e4_wlog_reorder_viol {
	uint32_t	tid;
	ext2_ino_t	ino;
	uint32_t	generation;	/* i_generation */
	blk64_t		lblk, pblk, len;	/* a run of fs blocks,
						 * each with this witness */
	int		conversion;	/* unwritten -> written */
	int		permitted;	/* a note: data=writeback given */
	int64_t		commit_entry;	/* T's commit write */
	int64_t		data_entry;	/* the last data write left out */
	int64_t		flush_entry;	/* the last FLUSH entry before the
					 * commit write, -1 none (BASE is
					 * the last durable state) */
	int64_t		freed_entry;	/* the commit write that last freed
					 * the block, -1 none */
	uint64_t	*witness;	/* the entries to drop, sorted: the
					 * smallest set (the writes of one
					 * sector since it was last freed) */
	size_t		nwitness;
	int		confirmed;	/* the witness state (the device at
					 * commit_entry without the witness)
					 * was opened: its recovery replays T
					 * and maps (ino, lblk) initialized
					 * to pblk, not from the journal */
	char		*path;		/* in the witness state, or NULL */
};

/*
 * What the kernel's recovery does with a crash state in which tid T's
 * commit block persisted while a journal block of T did not (enum
 * e4_wlog_jkind; fs/jbd2/recovery.c do_one_pass(), journal.c
 * jbd2_journal_load(), Linux 6.18).  A stale descriptor or revoke block
 * ends PASS_SCAN before T (no magic or an older sequence there): T and
 * what follows are not replayed, silently (LOST).  A stale logged copy:
 * with csum v2/v3 its tag checksum fails in PASS_REPLAY, every other
 * copy is written and the mount is refused (REFUSE: replay-then-refuse);
 * with v1 (COMPAT_CHECKSUM) T's commit crc32 over its descriptor and
 * logged blocks fails: without async_commit j_failed_commit = T, the
 * transactions before T are replayed and the mount refused (REFUSE),
 * with async_commit T is the last commit, an interrupted one: not
 * replayed, silently (LOST); without journal checksums the stale block
 * is replayed into the copy's home block (GARBAGE).
 */
enum e4_wlog_jkind {
	E4_WLOG_J_LOST = 1,	/* T not replayed, the mount succeeds */
	E4_WLOG_J_REFUSE,	/* the kernel refuses the mount */
	E4_WLOG_J_GARBAGE,	/* the kernel replays the stale block */
};

/* e4_wlog_jkind_name() - "reorder-lost", "reorder-refuse",
 * "reorder-garbage" (unknown: "reorder-unknown"). */
const char *e4_wlog_jkind_name(int kind);

/* A reorder recovery finding: one journal write of T (the witness) that
 * a crash state can lose while T's commit write persists. */
struct e4_wlog_reorder_jviol {
	int		kind;		/* enum e4_wlog_jkind, decided from
					 * the journal's checksum mode */
	uint32_t	tid;
	int64_t		commit_entry;	/* T's commit write */
	int64_t		journal_entry;	/* the journal write left out: the
					 * witness (--at=commit_entry
					 * --drop=journal_entry) */
	int64_t		flush_entry;	/* the last FLUSH entry before the
					 * commit write, -1 none */
	blk64_t		jblk;		/* the first journal block of T it
					 * leaves stale (log order) */
	blk64_t		pblk;		/* that jblock's fs block */
	int		logged_copy;	/* 1: a logged copy (tag), 0: a
					 * descriptor or revoke block */
	blk64_t		fsblk;		/* the copy's home block, or 0 */
	uint32_t	csum_version;	/* 0 none, 1 compat, 2, 3 */
	int		async_commit;	/* INCOMPAT_ASYNC_COMMIT */
	int		confirmed;	/* the witness state was opened and
					 * the kernel's recovery there, as
					 * e4_mount_decide() decides it (and
					 * for GARBAGE the replayed home
					 * block differing from T's copy),
					 * does what @kind says */
	int		action;		/* e4_mount_decide() there (enum
					 * e4_mount_action), -1 not opened */
};

/* One epoch: the writes between two FLUSH entries. */
struct e4_wlog_epoch {
	int64_t		flush_entry;	/* the FLUSH opening it, -1: BASE */
	int64_t		last_entry;	/* its last entry (before the next
					 * FLUSH, or the log's last) */
	uint64_t	volatile_writes;	/* writes and DISCARDs in it
						 * that a power cut may lose
						 * (not FUA; a PREFLUSH write
						 * opening it counts) */
	uint64_t	commits;	/* commit writes in it */
	uint64_t	violations;	/* of those commits */
	uint64_t	jviolations;	/* reorder-refuse and -garbage
					 * findings of those commits */
};

struct e4_wlog_reorder_report {
	struct e4_wlog_report	*rep;	/* the commit-write pass
					 * (commits_only): transactions,
					 * warnings, data mode, journal area */
	struct e4_wlog_epoch	*epochs;	/* in log order */
	size_t			nepochs;
	struct e4_wlog_reorder_viol *v;	/* by commit entry, ino, lblk */
	size_t			nv;
	uint64_t		blocks;	/* new initialized blocks judged */
	uint64_t		states;	/* crash states the epochs hold:
					 * sum of 2^volatile_writes,
					 * saturated at UINT64_MAX */
	uint64_t		witness_states;	/* witness states opened */
	uint64_t		violations;	/* confirmed runs, not
						 * permitted */
	uint64_t		violation_blocks;
	uint64_t		notes;		/* confirmed runs, permitted */
	uint64_t		unconfirmed;	/* runs the witness state did not
						 * show (not counted above) */
	struct e4_wlog_reorder_jviol *jv;	/* recovery findings, by
						 * commit entry */
	size_t			njv;
	uint64_t		journal_blocks;	/* journal blocks of
						 * replayable commits judged */
	uint64_t		refused;	/* confirmed REFUSE findings */
	uint64_t		garbage;	/* confirmed GARBAGE */
	uint64_t		lost;		/* confirmed LOST (notes) */
	uint64_t		junconfirmed;	/* recovery findings the witness
						 * state did not show */
};

/*
 * e4_wlog_reorder() - every crash state a volatile write cache can leave,
 * decided without enumerating them.  At a point P the device holds every
 * entry up to the last FLUSH entry F before P (REQ_PREFLUSH: all writes
 * completed before it are durable; Linux block/blk-flush.c) and any
 * subset of the writes and DISCARDs after it up to P, FUA writes from
 * their completion on.  Such a state exposes stale data exactly when the
 * writes that make a transaction T replayable (its descriptor, logged and
 * commit blocks as the kernel's scan and checksums accept them: the
 * prefix state at T's commit write replays T, e4_wlog_check()) are in the
 * subset while, for one sector of a block T newly maps initialized, every
 * write since the block was last freed is lost: no durable one (before a
 * FLUSH that precedes the commit write, or FUA) exists.  The data writes
 * are outside the journal, so leaving them out does not change what
 * recovery replays; the smallest such state drops the writes of one
 * sector (the witness).  A block with no write at all before the commit
 * write is the prefix check's finding (no-data-write), not reported here.
 * Cost: one pass of e4_wlog_check() over the commit writes, O(writes of
 * the block's sectors) per new block, and one witness state opened per
 * distinct witness, to confirm it (e4_replayed_open() on the device with
 * the witness dropped).  With an explicit data=writeback (o->data_mode)
 * the violations are notes.  Recoverability, the same way: for every
 * journal block of a replayable T (descriptor, logged copy, revoke
 * block; from its first log block to its commit block), the last write
 * of each sector before the commit write C: if none is durable at C
 * (FUA, a FLUSH after it up to C, C with PREFLUSH) and it is not C
 * itself, the state at C without it holds T's commit but a stale journal
 * block, and the kernel does what enum e4_wlog_jkind says for the
 * journal's checksum mode (rr->jv, one per distinct journal write, the
 * first stale block of T deciding); each witness state is opened and
 * decided by e4_mount_decide() to confirm it.  Nothing is written; the device's point and
 * drop set are left at the last entry, none.  On success *@ret is owned
 * by the caller (e4_wlog_reorder_free()).  Returns 0 or
 * e4_wlog_check()'s errors.
 */
errcode_t e4_wlog_reorder(e4_wlog_dev_t d, const struct e4_wlog_check_opts *o,
			  struct e4_wlog_reorder_report **ret);

/* e4_wlog_reorder_free() - release @rr (NULL is fine). */
void e4_wlog_reorder_free(struct e4_wlog_reorder_report *rr);

/* ---- wlog_stats.c: journal statistics of a write log, per commit write -- */

/*
 * What the entries first..last of a log did (e4_wlog_stats()).  Sectors
 * are the log's; blocks are BASE's fs blocks (rep->block_size), counted
 * once per entry: an entry that writes part of a block counts it, two
 * entries writing one block count it twice.  A write's sectors are split
 * by e4_wlog_report_in_journal() of their fs block: journal (descriptor,
 * logged copies, revoke and commit blocks, the journal superblock) and
 * data (everything else: file data and metadata written in place alike,
 * which the log does not tell apart).
 */
struct e4_wlog_span {
	int64_t		first, last;	/* entries first..last; none when
					 * last < first */
	uint64_t	entries;
	uint64_t	flushes;	/* entries with FLUSH (a pure flush
					 * or a write's PREFLUSH) */
	uint64_t	fua;		/* entries with FUA */
	uint64_t	data_entries;	/* writes with a sector outside the
					 * journal */
	uint64_t	data_sectors, data_blocks;
	uint64_t	journal_entries;	/* writes with a sector in it */
	uint64_t	journal_sectors, journal_blocks;
	uint64_t	discards, discard_sectors;	/* DISCARD entries */
	uint64_t	marks;		/* MARK entries */
};

/* One commit write C of tid T and the span (previous commit write, C]. */
struct e4_wlog_commit_stat {
	uint32_t	tid;
	uint64_t	commit_entry;	/* C */
	int64_t		interval;	/* C minus the previous commit
					 * write's entry; -1 for the first
					 * (its span starts at entry 0) */
	int		preflush;	/* C carries FLUSH (REQ_PREFLUSH) */
	int		fua;		/* C carries FUA */
	const char	*mark;		/* the last MARK at or before C, or
					 * NULL (owned by the log) */
	struct e4_wlog_span span;	/* C's own write included */
	int		files_known;	/* T was replayable at C and its new
					 * mappings read wholly */
	uint64_t	files;		/* e4_wlog_txn files: the regular
					 * files whose new initialized
					 * mappings T commits */
	uint64_t	new_blocks;	/* those mappings' fs blocks */
	/* The batching view: the promise marks (wlog_durable.c's grammar)
	 * C satisfied -- C is the newest commit write durable at each of
	 * them (before the last FLUSH at or before the mark, or a FUA
	 * write by it). */
	uint64_t	promises;
	int64_t		first_promise, last_promise;	/* their entries,
							 * -1 none */
	uint64_t	promise_wait_max;	/* entries from C to the
						 * latest of its marks */
	/* The reorder view (wlog_reorder.c's rule): for each new
	 * initialized block of T written since it was last freed, the
	 * FLUSH entries after its last data write up to C (C's PREFLUSH
	 * included); 0: a volatile cache may persist C without it. */
	uint64_t	data_judged;	/* such blocks */
	int64_t		data_flushes_min;	/* the fewest, -1: none */
	uint64_t	data_unflushed;	/* blocks with 0 */
};

#define E4_WLOG_PROMISE_HIST	17	/* commits with 0..15 promises,
					 * then 16 or more */

struct e4_wlog_stats {
	struct e4_wlog_report *rep;	/* the check's commit-write pass
					 * (commits_only): warnings, data
					 * mode, journal area */
	uint32_t	sectorsize;	/* the log's, bytes */
	unsigned int	block_size;	/* BASE's fs block size, bytes */
	struct e4_wlog_commit_stat *commits;	/* in log order */
	size_t		ncommits;
	struct e4_wlog_span tail;	/* after the last commit write (the
					 * whole log when there is none) */
	struct e4_wlog_span all;	/* the whole log */
	/* Distributions over the commits (interval: over the ncommits - 1
	 * intervals; files: over the files_known ones). */
	struct e4_jstat_dist flushes, data_entries, data_blocks,
			     journal_blocks, files, interval;
	uint64_t	files_known;	/* commits with a file count */
	uint64_t	no_flush;	/* commits whose span holds no FLUSH
					 * (C's own PREFLUSH included) */
	uint64_t	preflush;	/* commit writes with FLUSH */
	/* The batching view (fsyncs per commit): */
	uint64_t	npromises;	/* promise marks in the log */
	uint64_t	unsatisfied;	/* of those, with no commit write
					 * durable at the mark */
	struct e4_jstat_dist promises;	/* per commit write: promises it
					 * satisfied (every commit) */
	struct e4_jstat_dist promise_wait;	/* per satisfied promise:
						 * its mark's entry minus
						 * its commit write's */
	uint64_t	promise_hist[E4_WLOG_PROMISE_HIST];	/* commit
					 * writes by promises satisfied */
	/* The reorder view: */
	struct e4_jstat_dist data_flushes;	/* data_flushes_min over the
						 * commits that judged any */
	uint64_t	unflushed_commits;	/* commits with a block whose
						 * data no FLUSH precedes C */
};

/*
 * e4_wlog_stats() - the journal statistics of the log of write-log device
 * @d (its point is moved, left at the last entry): the commit writes
 * that e4_wlog_check() finds (a write entry putting a jbd2 commit block,
 * magic and block type 2, into BASE's journal; commits_only: no point is
 * checked) and, for each commit write C of tid T, the span of entries
 * after the previous commit write (from entry 0 for the first) up to and
 * including C: its FLUSH entries, its writes split into journal and data
 * (struct e4_wlog_span), and the files T carries data of: the distinct
 * regular-file inodes with new initialized mappings (allocations and
 * unwritten -> written conversions) that T commits, found by the check's
 * mapping rule (e4_order_check() on the state before T, T alone as its
 * window; unknown when T was not replayable at C or its check could not
 * read everything); then the span after the last commit write and the
 * distributions (stats.c's e4_jstat_dist_fill()).  The batching view:
 * each promise mark M (e4_wlog_promise_parse()) is satisfied by the
 * newest commit write C durable at M (C before the last FLUSH entry at or
 * before M, or C carrying FUA; e4_wlog_durable_drop()'s rule), none when
 * no commit write is (counted in unsatisfied): promises per commit write,
 * their histogram, and the wait M - C in entries.  Nothing is written.
 * On success *@ret is owned by the caller (e4_wlog_stats_free()).
 * Returns 0 or e4_wlog_check()'s errors.
 */
errcode_t e4_wlog_stats(e4_wlog_dev_t d, struct e4_wlog_stats **ret);

/* e4_wlog_stats_free() - release @ws (NULL is fine). */
void e4_wlog_stats_free(struct e4_wlog_stats *ws);

/* ---- wlog_durable.c: fsync promises at marks, checked at every mark ----- */

/*
 * A MARK entry whose label is a durability promise (the grammar, exact:
 * one space, no trailing blank; any other label is a plain mark):
 *   "fsync PATH"      fsync(2) of PATH returned
 *   "fdatasync PATH"  fdatasync(2) of PATH returned
 *   "sync"            sync(2) returned
 *   "syncfs"          syncfs(2) of the logged file system returned
 * PATH is the file's path from the file system's root ('/' separated, a
 * leading '/' and repeated '/' ignored, "/" the root; no symlink is
 * followed: PATH names the file fsync'ed).  The workload writes the mark
 * right after the call returns.
 */
enum e4_wlog_promise_kind {
	E4_WLOG_PROMISE_NONE = 0,	/* a plain mark */
	E4_WLOG_PROMISE_FSYNC,
	E4_WLOG_PROMISE_FDATASYNC,
	E4_WLOG_PROMISE_SYNC,
	E4_WLOG_PROMISE_SYNCFS,
};

/*
 * e4_wlog_promise_parse() - the enum e4_wlog_promise_kind of MARK label
 * @label (NULL: NONE), with *@path (if not NULL) pointing at PATH inside
 * @label for fsync and fdatasync, else NULL.
 */
int e4_wlog_promise_parse(const char *label, const char **path);

/* e4_wlog_promise_name() - "fsync", "fdatasync", "sync", "syncfs",
 * "mark" (NONE). */
const char *e4_wlog_promise_name(int kind);

/*
 * e4_wlog_durable_drop() - what a power cut right after entry @m of @log
 * may lose: *@flush is the last entry 0..@m carrying FLUSH (REQ_PREFLUSH:
 * every entry before it had completed and is on stable media; -1 when
 * there is none, then only BASE is), and *@drop (allocated, *@n entries,
 * ascending; NULL when none; ext2fs_free_mem()) lists every entry from
 * *@flush to @m that writes or discards sectors and carries no FUA (a
 * FUA write is durable when it completes; the data of the FLUSH entry
 * itself is not, unless FUA).  The rule of dm-log-writes' flush tracking
 * (drivers/md/dm-log-writes.c: a flush is logged after every write that
 * completed before it) and of xfstests' replay-log --fsck at a mark.
 * Returns 0, EXT2_ET_INVALID_ARGUMENT (@m past the log) or
 * EXT2_ET_NO_MEMORY.
 */
errcode_t e4_wlog_durable_drop(e4_wlog_t log, uint64_t m, int64_t *flush,
			       uint64_t **drop, size_t *n);

/* What differs between the promised and the durable state. */
enum e4_wlog_dfield {
	E4_WLOG_D_UNRECOVERABLE = 0,	/* the durable state's journal does
					 * not recover: everything is lost
					 * (got: its error; want: the
					 * promised state's, 0 when that
					 * one recovers) */
	E4_WLOG_D_INODE,	/* the file (inode, i_generation) is not in
				 * the durable state */
	E4_WLOG_D_NAME,		/* PATH does not name the file there
				 * (got: the inode it names, 0 none) */
	E4_WLOG_D_TYPE,		/* want/got: i_mode & S_IFMT */
	E4_WLOG_D_SIZE,		/* want/got: i_size, bytes */
	E4_WLOG_D_DATA,		/* bytes [off, off + len) differ */
	E4_WLOG_D_EXTRA,	/* a name the durable state still has that
				 * the promised one does not (an unlink or
				 * rename not durable; got: its inode) */
	E4_WLOG_D_NFIELDS,
};

#define E4_WLOG_DMISSING_MAX	16	/* missing entries kept per
					 * violation */

/* One broken promise: a field of one file. */
struct e4_wlog_dviolation {
	uint64_t	mark;		/* the promise's MARK entry */
	int		field;		/* enum e4_wlog_dfield */
	char		*path;		/* the file, from the root ("/...") */
	ext2_ino_t	ino;		/* in the promised state */
	uint32_t	generation;
	uint64_t	off, len;	/* DATA: bytes */
	uint64_t	want, got;	/* TYPE, SIZE, NAME, EXTRA: above */
	/* The entries up to the mark the durable state lacks that make the
	 * difference: the dropped writes of the file's blocks in the range
	 * (DATA), else the commit writes of the transactions the promised
	 * state replays and the durable one does not, else every dropped
	 * entry; the first E4_WLOG_DMISSING_MAX of nmissing_total.  None
	 * for UNRECOVERABLE when the promised state does not recover
	 * either (want set): no entry would make a difference. */
	uint64_t	missing[E4_WLOG_DMISSING_MAX];
	size_t		nmissing;
	uint64_t	nmissing_total;
};

/* One promise mark checked. */
struct e4_wlog_promise {
	uint64_t	entry;		/* the MARK */
	int		kind;		/* enum e4_wlog_promise_kind */
	const char	*label;		/* owned by the log */
	char		*path;		/* "/..." normalized; NULL for sync */
	int64_t		flush;		/* e4_wlog_durable_drop()'s */
	uint64_t	dropped;	/* entries not durable at the mark */
	int		name_promised;	/* fsync: the file was created (or
					 * renamed to PATH) since the last
					 * promise for its parent, so its
					 * name is promised too */
	uint64_t	files;		/* files compared */
	size_t		tids_promised;	/* committed transactions replayed
					 * in the promised state */
	size_t		tids_lost;	/* of those, not in the durable one */
	size_t		first_v, nv;	/* its violations in rep->v */
	int		unchecked;	/* listed in rep->unchecked */
};

struct e4_wlog_durable_report {
	struct e4_wlog_promise *promises;	/* in log order */
	size_t		npromises;
	uint64_t	plain_marks;	/* MARKs that promise nothing */
	struct e4_wlog_dviolation *v;	/* by promise */
	size_t		nv;		/* violations */
	uint64_t	broken;		/* promises with a violation */
	struct e4_wlog_unchecked *unchecked;	/* fail closed: a report
						 * with any is partial */
	size_t		nunchecked;
	uint64_t	states_opened;
	char		warnings[8][200];
	int		nwarnings;
};

/*
 * e4_wlog_durable_check() - check every durability promise of the log of
 * write-log device @d (its point is moved; a clone of it carries the
 * durable states).  At each promise mark M: the promised state (every
 * entry 0..M on the device, the journal recovered as the kernel does:
 * full commits, then the live fast commits; a journal whose
 * needs_recovery is clear is not replayed) and the durable state (the
 * same with the entries of e4_wlog_durable_drop() at M never written)
 * must agree on what was promised: fsync PATH -- the file PATH names in
 * the promised state (inode and i_generation) is in the durable state
 * with the same type, i_size and bytes (regular files: every byte below
 * the smaller size; symlinks: the target; directories: every entry, name
 * -> inode), and, when PATH did not name that file at the last promise
 * for its parent directory (fsync or fdatasync of it, sync, syncfs; BASE
 * when none), PATH names it in the durable state (POSIX leaves the name
 * to an fsync of the directory; ext4's journal commits the entry with
 * the inode, fs/ext4/fsync.c); fdatasync PATH -- the file's i_size and
 * data only (POSIX fdatasync: what reading the data back needs); sync and
 * syncfs -- every file of the promised state's tree, by path, and no
 * name the promised state lacks (ext4 syncfs: a journal commit and a
 * cache flush, ext4_sync_fs()).  Each difference is a struct
 * e4_wlog_dviolation; a durable state the kernel would not recover breaks
 * every promise of the mark (E4_WLOG_D_UNRECOVERABLE, whether the promised
 * state recovers or not: its error, or 0, in want).  Fail closed: a
 * promised state that does not recover (the durable one does), a PATH it
 * does not resolve, a file that does not read, is listed in
 * rep->unchecked (no verdict on that promise); a read error of LOG or
 * BASE stops the check.  Nothing is written.  On success *@ret is the
 * report (e4_wlog_durable_report_free()).  Returns 0, EXT2_ET_NO_MEMORY,
 * or libext2fs/io errors.
 */
errcode_t e4_wlog_durable_check(e4_wlog_dev_t d,
				struct e4_wlog_durable_report **ret);

/*
 * e4_wlog_durable_check_opts() - e4_wlog_durable_check() with options:
 * of @o (NULL: none) only progress and progress_priv are read, the
 * promise marks checked reported as E4_PROGRESS_DURABLE (0 first, then
 * after each).  Same returns.
 */
errcode_t e4_wlog_durable_check_opts(e4_wlog_dev_t d,
				     const struct e4_wlog_check_opts *o,
				     struct e4_wlog_durable_report **ret);

/* e4_wlog_durable_report_free() - release @rep (NULL is fine). */
void e4_wlog_durable_report_free(struct e4_wlog_durable_report *rep);

/* e4_wlog_dfield_name() - "unrecoverable", "inode", "name", "type",
 * "size", "data", "extra". */
const char *e4_wlog_dfield_name(int field);

/* ---- wlog_start.c: entry numbers of a check that starts inside a log ---- */

/*
 * e4_wlog_report_rebase(), e4_wlog_reorder_rebase(),
 * e4_wlog_durable_rebase(), e4_wlog_stats_rebase() - renumber every entry
 * a report names (points, commit writes, data writes, FLUSH entries,
 * witnesses, promise marks, missing entries, spans) from entries of a
 * started device's log (e4_wlog_dev_create_start(): entry 0 is the
 * start) to entries of the whole log, by adding @origin
 * (e4_wlog_dev_origin()); -1 (never, none, BASE: the state at the start)
 * stays -1.  Call once per report, before printing it; @origin 0 and a
 * NULL report change nothing.  The reorder and stats reports' own check
 * report (->rep) is renumbered with them.
 */
void e4_wlog_report_rebase(struct e4_wlog_report *rep, uint64_t origin);
void e4_wlog_reorder_rebase(struct e4_wlog_reorder_report *rr,
			    uint64_t origin);
void e4_wlog_durable_rebase(struct e4_wlog_durable_report *rep,
			    uint64_t origin);
void e4_wlog_stats_rebase(struct e4_wlog_stats *ws, uint64_t origin);

#ifdef __cplusplus
}
#endif

#endif /* E4_WLOG_H */
