/*
 * e4.h --- public interface of libe4, the e4tools library on top of
 * libext2fs.  Declarations are grouped under the name of the file that
 * implements them.  Every function returns an errcode_t from e4_err.et or
 * ext2_err.et (0 on success) unless its comment says otherwise.
 *
 * Units: "fs blocks" are file system blocks (fs->blocksize bytes), "journal
 * blocks" (jblocks) are journal blocks (the journal superblock's
 * s_blocksize, equal to the fs block size), "bytes" are bytes.
 *
 * What libe4 does besides the caller's channels (libe4(3) has the same):
 *  - mmap: e4_journal_scan() and e4_jscan_check_tags() (so also
 *    e4_journal_replay(), e4_journal_recover()) map the journal's file
 *    read-only (MAP_SHARED, one 8 MiB window per view, populated with
 *    MADV_POPULATE_READ: a read error is an error, not SIGBUS; the size
 *    checked by fstat() before every use) when its channel is plain
 *    unix_io on a regular file (jview.c); never a block device or a
 *    stacked channel; unmapped before the call returns.
 *  - threads: e4_jscan_check_tags() starts up to 3 threads (4 with the
 *    caller's, one per online cpu) for 8192 or more pending tags on a
 *    mapped journal, joined before it returns (scan.c); nothing else
 *    does.  No global state of libe4's own: distinct fs/journal objects
 *    may be used from distinct threads, one object by one thread at a
 *    time (libext2fs's rule).  The first call registers the com_err
 *    tables (process-wide, not thread-safe): make it before threads
 *    start (e4_error_tables_init()).
 *  - files: the journal's file opened again read-only for the mapping;
 *    a replay opens the fs's device name read-only for
 *    sync_file_range(SYNC_FILE_RANGE_WRITE) hints (replay.c); both
 *    O_CLOEXEC, closed before the call returns.
 *  - environment: E4_NO_MMAP (set: no mapping, every read through the
 *    channel); E2FSPROGS_FAKE_TIME (the "now" of a fast-commit replay's
 *    inode times, as e2fsprogs takes it; fc_replay.c).  libext2fs and
 *    com_err read their own.  E4_FAULT is the tools', not libe4's.
 *  - sleeping: only e4_mmp_start() (the MMP check interval, as e2fsck).
 *  - signals: one process-wide SIGBUS handler, installed by a read of
 *    a mapped journal and left in place (a SIGBUS that is not such a
 *    read goes on to the handler before it, or the default action);
 *    none with E4_NO_MMAP (e4_journal_scan()).
 *  - never: printing, exit(); abort() only from e4_fault_io_manager
 *    with E4_FAULT_ABORT_ON_WRITE (a test hook).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_H
#define E4_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "e4_err.h"
#include "e4_version.h"
#include "jbd2_fmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Stability.  Installed as <e4/e4.h> with e4_err.h, e4_version.h and
 * jbd2_fmt.h; link with `pkg-config --cflags --libs e4` (libe4.so.0).
 * libe4.so exports exactly the functions and variables the installed
 * headers declare (lib/e4/libe4.map, debian/libe4-0.symbols; checked by
 * tests/p_abi), in two symbol version nodes.
 * E4_0, the stable API: within SONAME libe4.so.E4_SOVERSION the
 * prototypes, the meaning of the flags and error codes and the members
 * named here keep their meaning; structures the library allocates
 * (struct e4_jscan, e4_order_report) only grow at the end; the ones the
 * caller allocates (struct e4_replay_result, e4_order_opts) start with
 * their size, set by their e4_*_init() function, so that a program built
 * against an older e4.h keeps working and a zeroed one is refused
 * (E4_ERR_STRUCT_UNINIT):
 *   e4_error_tables_init();
 *   e4_version(), e4_version_num(), e4_version_line();
 *   e4_journal_open(), e4_journal_open_io(), e4_journal_close();
 *   e4_journal_scan() and struct e4_jscan's start_tid, end_tid,
 *   ncommitted, ntrans, stop, corrupt, fail; e4_jscan_free(),
 *   e4_scan_stop_name();
 *   e4_journal_replay(), e4_journal_recover() and struct
 *   e4_replay_result, e4_replay_result_init();
 *   e4_order_check() with struct e4_order_opts / e4_order_report (the
 *   alloc-on-commit ordering check), e4_order_opts_init(),
 *   e4_order_report_free(),
 *   e4_order_kind_name(), e4_plan_build(), e4_plan_free();
 *   the com_err table et_e4_error_table (E4_ERR_*),
 *   initialize_e4_error_table(), initialize_e4_error_table_r().
 * E4_EXPERIMENTAL_0: everything else declared here and in e4_wlog.h is
 * exported for e4tools' own programs and may change between releases
 * (e4_version_num() tells them apart); a program that uses it needs the
 * libe4 of the release it was built with.
 */

/* ---- common.c ------------------------------------------------------------ */

/*
 * e4_error_tables_init() - register the com_err tables of e4_err.et and
 * ext2_err.et (initialize_e4_error_table(), initialize_ext2_error_table()),
 * so that error_message() and com_err() print the text of the codes
 * libe4 returns.  Every e4_* function returning an errcode_t calls it,
 * so callers need not; idempotent (a table already registered is not
 * added again).  As com_err's own initializers it is not safe to call
 * for the first time from two threads at once: the first libe4 call of a
 * threaded program belongs before its threads start.
 */
void e4_error_tables_init(void);

/* ---- version.c ----------------------------------------------------------- */

/* e4_version() - the e4tools release of the running library, "0.1.0"
 * (compare with E4_VERSION, the release of the header compiled against). */
const char *e4_version(void);

/* e4_version_num() - the same as MAJOR * 10000 + MINOR * 100 + PATCH (as
 * E4_VERSION_NUM). */
int e4_version_num(void);

/*
 * e4_version_line() - the -V line of the e4tools programs into @buf (@len
 * bytes, always NUL-terminated): "TOOL (e4tools) VERSION, libext2fs
 * VERSION (DATE), crc32c IMPL" with the libext2fs the program runs with
 * (ext2fs_get_library_version()) and e4_crc32c_impl().
 */
void e4_version_line(const char *tool, char *buf, size_t len);

/* ---- crc.c --------------------------------------------------------------- */

/*
 * e4_crc32c() - crc32c (Castagnoli) of @len bytes, continuing from @seed,
 * with no pre- or post-inversion: the same function as libext2fs's
 * ext2fs_crc32c_le() and the kernel's crc32c() used by jbd2.  Uses ISA-L's
 * crc32_iscsi() when e4tools was built with it, libext2fs's otherwise.
 */
uint32_t e4_crc32c(uint32_t seed, const void *buf, size_t len);

/* e4_crc32c_fallback() - libext2fs's crc32c, whatever the build; for tests. */
uint32_t e4_crc32c_fallback(uint32_t seed, const void *buf, size_t len);

/* e4_crc32c_impl() - "isa-l" or "libext2fs": which e4_crc32c() uses. */
const char *e4_crc32c_impl(void);

/*
 * e4_crc32_be() - big-endian crc32 (polynomial 0x04C11DB7) of @len bytes
 * from @seed: the jbd2 v1 (COMPAT_CHECKSUM) transaction checksum.
 */
uint32_t e4_crc32_be(uint32_t seed, const void *buf, size_t len);

/* ---- jsb.c: the journal superblock as bytes ---------------------------- */

/* The journal superblock decoded to host order (v1 leaves v2 fields 0). */
struct e4_jsb {
	uint32_t	blocktype;	/* JBD2_SUPERBLOCK_V1 or _V2 */
	uint32_t	blocksize;	/* bytes */
	uint32_t	maxlen;		/* jblocks */
	uint32_t	first;		/* jblock */
	uint32_t	sequence;	/* tid */
	uint32_t	start;		/* jblock; 0 = log empty */
	int32_t		errno_;		/* s_errno */
	uint32_t	feature_compat;
	uint32_t	feature_incompat;
	uint32_t	feature_ro_compat;
	uint8_t		uuid[16];
	uint32_t	nr_users;
	uint32_t	max_transaction;	/* jblocks */
	uint32_t	max_trans_data;		/* jblocks */
	uint8_t		checksum_type;
	uint32_t	num_fc_blks;	/* as stored (0 = default) */
	uint32_t	head;		/* jblock (kernel >= 6.4) */
	uint32_t	checksum;	/* as stored */
	uint8_t		users[JBD2_JSB_MAX_USERS][16];
};

/*
 * e4_jsb_decode() - decode the JBD2_JSB_SIZE bytes at @buf into @jsb.  Does not
 * validate anything: see e4_jsb_validate().  Returns nothing.
 */
void e4_jsb_decode(const void *buf, struct e4_jsb *jsb);

/* e4_jsb_has_csum_v2v3() - nonzero if CSUM_V2 or CSUM_V3 is set in @buf. */
int e4_jsb_has_csum_v2v3(const void *buf);

/*
 * e4_jsb_csum() - the checksum the journal superblock at @buf should carry:
 * crc32c(~0) over its 1024 bytes with s_checksum taken as zero
 * (journal.rst, "Checksums").  Returns the checksum.
 */
uint32_t e4_jsb_csum(const void *buf);

/*
 * e4_jsb_csum_ok() - 1 if @buf has no v2/v3 checksum feature or its
 * s_checksum matches e4_jsb_csum(), else 0.
 */
int e4_jsb_csum_ok(const void *buf);

/* e4_jsb_set_csum() - store e4_jsb_csum() in s_checksum if v2/v3 is set. */
void e4_jsb_set_csum(void *buf);

/*
 * e4_jsb_validate() - check the journal superblock at @buf the way the
 * kernel's journal_check_superblock()/journal_load_superblock() do:
 * magic and block type, s_blocksize == @fs_blocksize (bytes),
 * s_maxlen <= @real_len (jblocks the journal really has), s_maxlen at
 * least JBD2_MIN_JOURNAL_BLOCKS plus the fast-commit area, s_first within
 * [1, s_maxlen), s_start 0 or within [s_first, s_maxlen), v2/v3 exclusive,
 * checksum type, checksum, and unknown incompat features.
 * Returns 0 or E4_ERR_JSB_MAGIC, E4_ERR_JSB_BLOCKTYPE, E4_ERR_JSB_BLOCKSIZE,
 * E4_ERR_JSB_MAXLEN, E4_ERR_JSB_TOO_SHORT, E4_ERR_JSB_FIRST,
 * E4_ERR_JSB_START,
 * E4_ERR_FEATURE_CONFLICT, E4_ERR_JSB_CSUM_TYPE, E4_ERR_JSB_CSUM,
 * E4_ERR_JSB_UNKNOWN_FEATURE (checked in that order).
 */
errcode_t e4_jsb_validate(const void *buf, unsigned int fs_blocksize,
			  uint64_t real_len);

/*
 * e4_jsb_fc_blocks() - length of the fast-commit area in jblocks: 0 without
 * INCOMPAT_FAST_COMMIT, else s_num_fc_blks or its default 256
 * (jbd2_journal_get_num_fc_blks()).
 */
uint32_t e4_jsb_fc_blocks(const void *buf);

/*
 * e4_jsb_log_end() - first jblock past the log area: s_maxlen, less the
 * fast-commit area when INCOMPAT_FAST_COMMIT is set (the kernel's j_last:
 * s_maxlen - num_fc_blks).
 */
uint32_t e4_jsb_log_end(const void *buf);

/* Flags for e4_jsb_edit_features(). */
#define E4_FEAT_FORCE		0x1	/* allow rules marked "unless -f" */
#define E4_FEAT_FS_64BIT	0x2	/* the fs has the 64bit feature */
#define E4_FEAT_FS_FAST_COMMIT	0x4	/* the fs has the fast_commit feature */

/*
 * e4_jsb_edit_features() - apply the feature edit @spec ("feat,^feat,...",
 * names as libe2p's e2p_jrnl_string2feature() plus "journal_fast_commit"
 * and "fast_commit" for INCOMPAT_FAST_COMMIT) to the superblock at @buf, and
 * set s_num_fc_blks to @num_fc_blks unless it is (uint32_t)-1.
 * Rules (kernel fs/jbd2/journal.c and e2fsprogs tune2fs): v1/v2/v3 checksum
 * mutually exclusive; changing a checksum feature, 64bit, fast_commit or
 * s_num_fc_blks needs s_start == 0; fast_commit needs the fs fast_commit
 * feature and must leave s_maxlen - num_fc_blks >= JBD2_MIN_JOURNAL_BLOCKS
 * (so must a new s_num_fc_blks set without the bit, since ext4 sets the bit
 * at every mount of a fast_commit fs); turning fast_commit off keeps
 * s_num_fc_blks;
 * 64bit on a non-64bit fs needs E4_FEAT_FORCE.  s_checksum_type follows
 * the checksum feature; the superblock checksum is recomputed.  @buf is
 * changed only when every rule holds.  On error, *@bad (if not NULL) points
 * into a static string naming the offending feature word or is NULL.
 * Returns 0, E4_ERR_UNKNOWN_FEATURE_NAME, E4_ERR_FEATURE_NOT_SETTABLE,
 * E4_ERR_FEATURE_CONFLICT, E4_ERR_JOURNAL_NOT_EMPTY,
 * E4_ERR_FC_NEEDS_FS_FEATURE, E4_ERR_FC_TOO_BIG, E4_ERR_64BIT_ON_32BIT_FS,
 * or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_jsb_edit_features(void *buf, const char *spec,
			       uint32_t num_fc_blks, int flags,
			       char *bad, size_t badlen);

/*
 * e4_jrnl_feature2string() - the name of a journal feature bit: libe2p's
 * e2p_jrnl_feature2string(), except "journal_fast_commit" for
 * INCOMPAT_FAST_COMMIT, which libe2p 1.47 prints as FEATURE_I5.
 * @compat is E2P_FEATURE_COMPAT/INCOMPAT/RO_INCOMPAT.  Returns a string
 * that stays valid until the next call.
 */
const char *e4_jrnl_feature2string(int compat, unsigned int mask);

/* ---- journal.c: finding and opening the journal of a file system ------ */

/* One run of the journal's mapping: jblocks [jblk, jblk+len) -> [pblk, ..) */
struct e4_jmap_run {
	blk64_t	jblk;	/* jblock */
	blk64_t	pblk;	/* block on the journal's device, jblock units */
	blk64_t	len;	/* jblocks */
};

#define E4_JOURNAL_RW	0x1	/* open for writing the journal superblock */
/* External device through undo_io_manager (the caller configured its
 * backing manager and undo file, e.g. e4s_setup_undo()). */
#define E4_JOURNAL_UNDO	0x2

struct e4_journal {
	ext2_filsys	fs;		/* the file system; not owned */
	io_channel	io;		/* the channel journal blocks live on */
	int		external;	/* io is an external journal device */
	int		flags;		/* E4_JOURNAL_* */
	unsigned int	blocksize;	/* jblock size, bytes */
	blk64_t		sb_jblk;	/* jblock of the journal superblock */
	blk64_t		real_len;	/* jblocks the journal really has */
	struct e4_jmap_run *runs;	/* internal journal: the mapping */
	size_t		nruns;
	char		*dev_name;	/* external journal: the device path */
	unsigned char	*sb;		/* the superblock's block, blocksize B */
	struct e4_jsb	jsb;		/* decoded copy of sb; keep in sync */
	int		file_kind;	/* e4_journal_open_file(): what the
					 * file is (E4_JOURNAL_FILE_*; fs
					 * NULL), else 0 */
};
typedef struct e4_journal *e4_journal_t;

#define E4_JOURNAL_FILE_RAW	1	/* a raw journal, its superblock at
					 * byte 0 (debugfs "dump <8>") */
#define E4_JOURNAL_FILE_DEV	2	/* an external journal device */

/*
 * e4_journal_open() - find and open the journal of @fs: the internal one
 * (inode s_journal_inum, mapped through libext2fs, extents or block map),
 * or, when @ext_dev is not NULL, the external journal device at that path,
 * which must be a journal_dev fs whose UUID equals s_journal_uuid.  When
 * @fs is itself an external journal device (opened with
 * EXT2_FLAG_JOURNAL_DEV_OK) and @ext_dev is NULL, its own journal is
 * opened on fs->io (j->external set; no fs to replay into).  Reads
 * the superblock and validates it (e4_jsb_validate()).  With E4_JOURNAL_RW
 * an external device is opened read-write (with E4_JOURNAL_UNDO through
 * libext2fs's undo_io_manager, so e2undo can roll the device back); the
 * internal journal is written through fs->io, so @fs must be open
 * read-write too.  On success *@ret is
 * the journal, owned by the caller (e4_journal_close()).  When validation
 * fails the journal is still returned in *@ret (so a caller can print the
 * superblock) together with the validation error; *@ret is NULL on other
 * errors.
 * Returns 0, E4_ERR_NO_JOURNAL, E4_ERR_EXT_JOURNAL_NEEDED,
 * E4_ERR_JOURNAL_INODE, E4_ERR_EXT_JOURNAL_NOT_DEV,
 * E4_ERR_EXT_JOURNAL_UUID, the errors of e4_jsb_validate(), and
 * libext2fs/io errors.
 */
errcode_t e4_journal_open(ext2_filsys fs, const char *ext_dev, int flags,
			  e4_journal_t *ret);

/*
 * e4_journal_open_io() - e4_journal_open() with the external journal
 * device @ext_dev (its name in reports) opened through @io on the channel
 * name @io_name (NULL: @ext_dev), e.g. a fault io_manager stacked on
 * unix_io or undo_io; @io NULL is e4_journal_open().  Same returns.
 */
errcode_t e4_journal_open_io(ext2_filsys fs, const char *ext_dev,
			     io_manager io, const char *io_name, int flags,
			     e4_journal_t *ret);

/*
 * e4_journal_open_file() - open the journal in the file or device @path
 * with no file system, read-only (@flags must be 0), as debugfs's
 * `logdump -f` reads one (debugfs/logdump.c dump_journal()): a jbd2
 * superblock at byte 0 makes @path a raw journal (a dump of a journal
 * inode; jblock 0 is the superblock, the block size its s_blocksize);
 * else an ext2 superblock at byte 1024 with the journal_dev feature makes
 * it an external journal device (the block size the ext2 superblock's,
 * the journal superblock in the block after it, as open_external() finds
 * it; no UUID to match).  Read through @io (NULL: unix_io) on the
 * channel name @io_name (NULL: @path).  The journal is as long as the
 * file (in jblocks; a device: its s_blocks_count, or the file if
 * shorter).  j->fs is NULL, j->external set, j->file_kind says which;
 * e4_journal_scan() and e4_journal_scan_old() read it, e4_plan_build()
 * plans it with no fs block bound; nothing replays it.  The superblock is
 * validated (e4_jsb_validate()): a raw journal cut short fails with
 * E4_ERR_JSB_MAXLEN, and, as e4_journal_open(), the journal is still
 * returned in *@ret with that error.
 * Returns 0, EXT2_ET_INVALID_ARGUMENT (@flags not 0),
 * E4_ERR_NOT_JOURNAL_FILE (neither, or too short to hold a superblock),
 * E4_ERR_JOURNAL_FILE_IS_FS (an ext2 superblock without journal_dev: a
 * file system), E4_ERR_JSB_BLOCKSIZE (a block size outside 1024..65536
 * or not a power of 2), the errors of e4_jsb_validate() and io errors.
 */
errcode_t e4_journal_open_file(const char *path, io_manager io,
			       const char *io_name, int flags,
			       e4_journal_t *ret);

/* e4_journal_close() - release @j (NULL is fine); flushes its channel. */
errcode_t e4_journal_close(e4_journal_t j);

/*
 * e4_journal_bmap() - the block on the journal's channel (jblock units)
 * that holds jblock @jblk.  Returns 0 or EXT2_ET_BAD_BLOCK_NUM when @jblk
 * is past the journal.
 */
errcode_t e4_journal_bmap(e4_journal_t j, blk64_t jblk, blk64_t *pblk);

/*
 * e4_journal_read() - read @count jblocks starting at jblock @jblk into
 * @buf (count * blocksize bytes), in as few large reads as the mapping
 * allows.  Does not wrap.  Returns 0, EXT2_ET_BAD_BLOCK_NUM or io errors.
 */
errcode_t e4_journal_read(e4_journal_t j, blk64_t jblk, blk64_t count,
			  void *buf);

/*
 * e4_journal_write() - write @count jblocks from @buf (count * blocksize
 * bytes) at jblock @jblk, run by run of the mapping; does not flush.
 * Needs E4_JOURNAL_RW.  Does not wrap.  Returns 0, E4_ERR_READ_ONLY,
 * EXT2_ET_BAD_BLOCK_NUM or io errors.
 */
errcode_t e4_journal_write(e4_journal_t j, blk64_t jblk, blk64_t count,
			   const void *buf);

/*
 * e4_journal_write_sb() - encode nothing: write j->sb (after setting its
 * checksum with e4_jsb_set_csum()) to the journal superblock's block and
 * re-decode j->jsb.  Needs E4_JOURNAL_RW.  Returns 0, E4_ERR_READ_ONLY or
 * io errors.
 */
errcode_t e4_journal_write_sb(e4_journal_t j);


/* ---- mem_io.c: a memory-backed io_manager (tests, fuzzing) ------------- */

/*
 * An image in memory: reads come from @base (read-only template, may be
 * NULL for zeros) unless a 4 KiB page was written, which is copied on
 * first write.  Open it with ext2fs_open2(m->name, ..., e4_mem_io_manager).
 */
struct e4_memimg {
	const unsigned char *base;	/* template, bytes; not owned */
	uint64_t	size;		/* bytes */
	unsigned char	**pages;	/* written pages, or NULL */
	uint64_t	*dirty;		/* indexes of written pages */
	uint64_t	npages, ndirty;
	uint64_t	nreads, nwrites;	/* channel calls so far */
	char		name[40];	/* "e4mem:0x..." for ext2fs_open2 */
	/* Optional, set after e4_memimg_init(): called with the byte range
	 * of every write made through a channel (not e4_memimg_pwrite()),
	 * before it is applied; for harnesses that check what is written. */
	void		(*on_write)(void *arg, uint64_t off, uint64_t len);
	void		*on_write_arg;
};

extern io_manager e4_mem_io_manager;

/* e4_memimg_init() - set up @m over @size bytes of @base.  Fills all of
 * @m (->on_write NULL: set it after this call), on EXT2_ET_NO_MEMORY too
 * (no pages: e4_memimg_free() is a no-op).  Returns 0 or
 * EXT2_ET_NO_MEMORY. */
errcode_t e4_memimg_init(struct e4_memimg *m, const void *base,
			 uint64_t size);
/* e4_memimg_reset() - drop every written page (back to the template). */
void e4_memimg_reset(struct e4_memimg *m);
/* e4_memimg_free() - release what e4_memimg_init() allocated. */
void e4_memimg_free(struct e4_memimg *m);
/* e4_memimg_pread()/pwrite() - @len bytes at byte @off.  Return 0,
 * EXT2_ET_SHORT_READ / EXT2_ET_SHORT_WRITE past the end, or
 * EXT2_ET_NO_MEMORY. */
errcode_t e4_memimg_pread(struct e4_memimg *m, uint64_t off, void *buf,
			  uint64_t len);
errcode_t e4_memimg_pwrite(struct e4_memimg *m, uint64_t off,
			   const void *buf, uint64_t len);

/* ---- fault_io.c: a fault-injecting io_manager (tests) ------------------- */

#define E4_FAULT_ABORT_ON_WRITE	0x1	/* abort() on any write */

/*
 * Wraps @backing opened on @backing_name.  Calls are counted from 1; the
 * read (write) numbered fail_read_at (fail_write_at) and every later one
 * fail with E4_ERR_IO_FAULT; the read numbered short_read_at returns
 * EXT2_ET_SHORT_READ.  0 disables each.  Discard and zeroout count as
 * writes.  Open with ext2fs_open2(f->name, ..., e4_fault_io_manager).
 */
struct e4_fault {
	io_manager	backing;
	const char	*backing_name;
	int		flags;		/* E4_FAULT_* */
	uint64_t	fail_read_at, fail_write_at, short_read_at;
	uint64_t	nreads, nwrites;	/* calls so far */
	uint64_t	npassed;	/* writes passed to the backing
					 * channel */
	char		name[40];	/* "e4fault:0x..." */
};

extern io_manager e4_fault_io_manager;

/*
 * e4_fault_passed() - if @io is a channel of e4_fault_io_manager: set *@n
 * to the writes it passed to its backing channel (not failed), return 1;
 * else 0.  (The fault channel keeps no io_stats: libext2fs's flush would
 * count them into s_kbytes_written.)
 */
int e4_fault_passed(io_channel io, uint64_t *n);

/* e4_fault_init() - set up @f with no fault armed. */
void e4_fault_init(struct e4_fault *f, io_manager backing,
		   const char *backing_name);

/* ---- scan.c: the kernel's PASS_SCAN over the log ------------------------ */

/* One block tag of a descriptor block. */
struct e4_jtag {
	blk64_t		fsblk;		/* fs block the logged copy belongs to */
	blk64_t		jblk;		/* jblock holding the logged copy */
	uint32_t	flags;		/* JBD2_FLAG_* */
	uint32_t	csum;		/* stored tag checksum (v2: low 16 bits) */
	int		csum_ok;	/* 1 ok, 0 mismatch, -1 not checksummed,
					 * E4_CSUM_PENDING not read yet */
	int		fate;		/* enum e4_tag_fate, set by
					 * e4_plan_build() */
	int		hashed;		/* hash set (E4_SCANF_HASH) */
	uint32_t	facts;		/* E4_COPY_FACTS and what it vouches
					 * for (e4_jblock_facts()), set with
					 * the hash; 0: not known */
	uint64_t	hash;		/* e4_jblock_hash() of the copy as
					 * replay writes it (unescaped) */
};

/* e4_jtag.csum_ok of a v2/v3 tag whose copy E4_SCANF_DEFER_CSUM left
 * unread: e4_plan_replay() checks it while reading the copy, or
 * e4_jscan_check_tags() does.  The plan takes it as good until then. */
#define E4_CSUM_PENDING	2

/* What replay does with one tag (e4_jtag.fate). */
enum e4_tag_fate {
	E4_TAG_UNPLANNED = 0,	/* e4_plan_build() not run */
	E4_TAG_REPLAY,		/* newest surviving copy: written */
	E4_TAG_SUPERSEDED,	/* a later surviving copy is written */
	E4_TAG_REVOKED,		/* revoked in this or a later committed tid */
	E4_TAG_BAD_CSUM,	/* tag checksum mismatch: skipped */
	E4_TAG_BAD_BLOCK,	/* no longer set: such a copy is written
				 * or fails the recovery (scan->fail) */
	E4_TAG_UNCOMMITTED,	/* its transaction is not replayed */
};

/* One transaction found in the log, in log order. */
struct e4_jtrans {
	uint32_t	tid;
	blk64_t		first_jblk;	/* its first log block */
	blk64_t		last_jblk;	/* its commit block (or last seen) */
	blk64_t		nblocks;	/* log blocks it occupies */
	struct e4_jtag	*tags;		/* every tag, in log order */
	size_t		ntags;
	blk64_t		*revokes;	/* fs blocks of its revoke records */
	size_t		nrevokes;
	unsigned int	ndescriptors;	/* descriptor blocks */
	unsigned int	nrevoke_blocks;	/* revoke blocks */
	int		committed;	/* replayable: commit valid, tid <
					 * the scan's end_tid */
	int		has_commit;	/* a commit block was found */
	uint64_t	commit_sec;	/* h_commit_sec */
	uint32_t	commit_nsec;	/* h_commit_nsec */
	uint8_t		commit_csum_type;	/* h_chksum_type */
	uint8_t		commit_csum_size;	/* h_chksum_size */
	uint32_t	commit_csum;	/* h_chksum[0] */
	int		commit_csum_ok;	/* 1 ok, 0 mismatch, -1 none */
	int		commit_partial;	/* v2/v3 checksum matched only over
					 * the 60-byte commit header */
	int		bad_block_csum;	/* a descriptor or revoke block of it
					 * failed its tail checksum */
	uint64_t	nrevoke_records;	/* revoke records, duplicates
						 * included */
};

/* Why the scan stopped (kernel fs/jbd2/recovery.c do_one_pass()). */
enum e4_scan_stop {
	E4_SCAN_EMPTY = 0,	/* s_start == 0: nothing to recover */
	E4_SCAN_NO_MAGIC,	/* a block without JBD2_MAGIC: normal end */
	E4_SCAN_SEQUENCE,	/* h_sequence != expected tid: normal end */
	E4_SCAN_BLOCKTYPE,	/* unknown block type: normal end */
	E4_SCAN_COMMIT_CSUM,	/* commit checksum failed: tid not replayed */
	E4_SCAN_DESC_CSUM,	/* descriptor/revoke tail checksum failed */
	E4_SCAN_STALE,		/* commit time went backwards: stale log */
	E4_SCAN_UPTO,		/* stopped by the caller's upto tid */
	E4_SCAN_IO_ERROR,	/* a journal block could not be read */
	E4_SCAN_BAD_REVOKE,	/* revoke r_count invalid */
	E4_SCAN_BAD_TAG_BLOCK,	/* set by e4_plan_build(): a surviving
				 * tag's block fails the kernel's replay
				 * (past the device end) or is a journal
				 * block replay reads after writing it */
};

struct e4_fcscan;

/* One decision the scan made, for display ("why did it stop here"). */
struct e4_scan_event {
	uint32_t	tid;
	blk64_t		jblk;
	int		kind;		/* enum e4_scan_stop or another code */
	char		msg[120];	/* one line, names the kernel rule */
};

struct e4_jscan {
	uint32_t	start_tid;	/* s_sequence */
	blk64_t		start_jblk;	/* s_start */
	blk64_t		log_first;	/* s_first */
	blk64_t		log_end;	/* e4_jsb_log_end(): wrap point */
	uint32_t	end_tid;	/* first tid NOT replayed (the
					 * kernel's end_transaction) */
	struct e4_jtrans *trans;	/* every transaction seen, in order;
					 * the committed ones come first */
	size_t		ntrans;
	size_t		ncommitted;	/* trans[0..ncommitted) replayable */
	enum e4_scan_stop stop;		/* why the scan ended */
	blk64_t		stop_jblk;	/* where */
	int		corrupt;	/* the kernel would report corruption
					 * (failed commit, bad tag csum, ...) */
	struct e4_scan_event *events;
	size_t		nevents;
	uint32_t	fc_blocks_used;	/* fast-commit blocks holding TLVs */
	/* Added by scan.c: */
	errcode_t	fail;		/* nonzero: the kernel's recovery fails
					 * (E4_ERR_JOURNAL_CHECKSUM,
					 * E4_ERR_JOURNAL_CORRUPT, io error):
					 * nothing may be replayed */
	int		has_failed_commit;	/* j_failed_commit set */
	uint32_t	failed_commit;	/* the kernel's j_failed_commit */
	uint32_t	tag_bytes;	/* journal_tag_bytes() */
	uint32_t	csum_version;	/* 0 none, 1 compat, 2, 3 */
	uint64_t	log_blocks;	/* log blocks walked (start..stop) */
	uint64_t	nbad_tag_csum;	/* committed tags failing csum */
	int		fc_live;	/* fast-commit area starts with a HEAD
					 * tag whose tid is end_tid */
	uint32_t	fc_head_tid;	/* tid of that HEAD tag, if any */
	int		upto_set;	/* the scan was given an upto tid */
	uint32_t	upto;
	uint64_t	ncsum_pending;	/* tags left E4_CSUM_PENDING */
	struct e4_fcscan *fc;		/* fc.c: the fast-commit area scanned
					 * for end_tid (NULL: no fast-commit
					 * feature, empty log, or a failed
					 * scan) */
};

/* Flags for e4_journal_scan(). */
#define E4_SCANF_UPTO		0x1	/* stop after committed tid @upto */
#define E4_SCANF_HASH		0x4	/* also e4_jblock_hash() every copy
					 * it reads (e4_jtag.hash) */
#define E4_SCANF_DEFER_CSUM	0x2	/* v2/v3 without COMPAT_CHECKSUM:
					 * leave the data blocks unread,
					 * their tags E4_CSUM_PENDING, for
					 * e4_plan_replay() to check in its
					 * one read of the log */

/*
 * e4_journal_scan() - the kernel's PASS_SCAN (fs/jbd2/recovery.c
 * do_one_pass(), Linux 6.x) over the log of @j: from jblock s_start with
 * expected tid s_sequence, block by block, wrapping at e4_jsb_log_end()
 * back to s_first; stop at a block without JBD2_MAGIC, with another
 * h_sequence or an unknown block type.  Checks, as the kernel does: the
 * descriptor and revoke block tail checksums (CSUM_V2/V3; a failure makes
 * the next commit decide: commit time not older -> the recovery fails with
 * EFSBADCRC, older -> stale block from lazy journal init, end of log),
 * the commit checksum (v1 COMPAT_CHECKSUM: crc32_be over the descriptor
 * and data blocks of the transaction; v2/v3: crc32c of the commit block,
 * or of its 60-byte header only), a failing commit ending the log at its
 * tid (older commit time: stale, silent; with ASYNC_COMMIT the scan goes
 * on and a later v1 commit marks j_failed_commit) and the revoke r_count
 * (-EINVAL).  With CSUM_V2/V3 it also reads every data block to check its
 * tag checksum (the kernel does that in PASS_REPLAY).  With E4_SCANF_UPTO
 * it stops after the commit block of tid @upto.  Also looks at the
 * fast-commit area (fc_blocks_used, fc_live).  Reads the journal
 * sequentially in chunks of up to 8 MiB.
 * On success *@ret is the scan (free with e4_jscan_free()); a journal the
 * kernel would refuse still succeeds with (*ret)->fail set.  Returns 0,
 * EXT2_ET_NO_MEMORY or E4_ERR_CHANGED_SIZE (the journal's file changed
 * size while the scan read it: truncated or extended by another process;
 * other io errors land in (*ret)->fail).
 * Reading in place: on a plain unix_io channel over a regular file the
 * log is read from a read-only mapping of the file (lib/e4/jview.c); so
 * that a truncation by another process is E4_ERR_CHANGED_SIZE and not a
 * SIGBUS, such a read installs a process-wide SIGBUS handler (put back
 * at every scan that maps, and left in place: a SIGBUS that is not a read
 * of the mapping goes to the handler that was there before, or to the
 * default action).  A caller that wants no handler at all sets E4_NO_MMAP
 * in the environment: every read then goes through the channel (pread).
 * The same holds for e4_jscan_check_tags().
 */
errcode_t e4_journal_scan(e4_journal_t j, int flags, uint32_t upto,
			  struct e4_jscan **ret);

/*
 * e4_jscan_check_tags() - check the tag checksum of every tag of @scan
 * (of journal @j) that E4_SCANF_DEFER_CSUM left E4_CSUM_PENDING, reading
 * the copies in sorted runs of up to 8 MiB, as the scan would have: an
 * unreadable copy fails its checksum.  Recounts nbad_tag_csum and
 * corrupt as the scan does; tag fates are not touched (build the plan
 * again).  Returns 0, EXT2_ET_NO_MEMORY or E4_ERR_CHANGED_SIZE (as
 * e4_journal_scan(): the file changed size under the check; the tags
 * then stay unchecked).
 */
errcode_t e4_jscan_check_tags(e4_journal_t j, struct e4_jscan *scan);

/* e4_jscan_free() - release a scan (NULL is fine). */
void e4_jscan_free(struct e4_jscan *scan);

/* e4_scan_stop_name() - a short name for @stop ("no-magic", ...). */
const char *e4_scan_stop_name(enum e4_scan_stop stop);

/* e4_tag_fate_name() - a short name for @fate ("replay", ...). */
const char *e4_tag_fate_name(int fate);

/* ---- jblock.c: the jbd2 block codec ------------------------------------ */

/*
 * What encoding and checking journal blocks needs of a journal: its
 * features, block size and checksum seed (crc32c(~0, s_uuid), computed
 * once by e4_jcodec_init(); journal.rst "Checksums").
 */
struct e4_jcodec {
	unsigned int	blocksize;	/* jblock size, bytes */
	uint32_t	incompat, compat;	/* journal features */
	unsigned int	tag_bytes;	/* e4_journal_tag_bytes() */
	int		v1;		/* COMPAT_CHECKSUM without v2/v3 */
	int		v2v3;		/* CSUM_V2 or CSUM_V3 */
	int		v3;		/* CSUM_V3 */
	uint32_t	seed;		/* crc32c(~0, uuid) */
	uint8_t		uuid[16];	/* s_uuid */
};

/* e4_jcodec_init() - the codec of a journal whose superblock is @jsb and
 * whose jblocks are @blocksize bytes.  Returns nothing. */
void e4_jcodec_init(struct e4_jcodec *c, const struct e4_jsb *jsb,
		    unsigned int blocksize);

/*
 * e4_journal_tag_bytes() - bytes of one block tag on disk without its
 * UUID, from the journal features @incompat (kernel journal_tag_bytes(),
 * include/linux/jbd2.h): 16 with CSUM_V3, else 12, +2 with CSUM_V2, -4
 * without 64BIT: 8, 10, 12, 14 or 16.
 */
unsigned int e4_journal_tag_bytes(uint32_t incompat);

/*
 * e4_jdesc_parse() - the block tags of the descriptor block @blk (bytes,
 * @blocksize long) of a journal with features @incompat, as the kernel's
 * count_tags() and do_one_pass() walk them (fs/jbd2/recovery.c): tags
 * start after the 12-byte header; each is e4_journal_tag_bytes() long,
 * plus a 16-byte UUID unless it has SAME_UUID; the walk ends after a tag
 * with LAST_TAG or when the next tag would cross the end of the block (less
 * the 4-byte tail with CSUM_V2/V3).  Stores up to @max tags in @tags
 * (fsblk, flags, csum; jblk and csum_ok left 0) and returns the number
 * of tags (which may exceed @max).
 */
size_t e4_jdesc_parse(const void *blk, unsigned int blocksize,
		      uint32_t incompat, struct e4_jtag *tags, size_t max);

/*
 * e4_jrevoke_parse() - the revoke records of revoke block @blk (bytes,
 * @blocksize long) (kernel scan_revoke_records(), fs/jbd2/recovery.c):
 * r_count is the bytes used including the 16-byte header; records are
 * be64 with INCOMPAT_64BIT, else be32.  Stores up to @max fs block
 * numbers in @out and the record count in *@n.
 * Returns 0 or E4_ERR_JOURNAL_CORRUPT when r_count exceeds the block
 * (less the 4-byte tail with CSUM_V2/V3): the kernel's -EINVAL.
 */
errcode_t e4_jrevoke_parse(const void *blk, unsigned int blocksize,
			   uint32_t incompat, blk64_t *out, size_t max,
			   size_t *n);

/*
 * e4_jblock_tail_csum_ok() - 1 if descriptor or revoke block @blk has the
 * tail checksum it should (crc32c(seed) of the block with the 4-byte tail
 * taken as zero; kernel jbd2_descriptor_block_csum_verify()) or the
 * journal has no CSUM_V2/V3, else 0.
 */
int e4_jblock_tail_csum_ok(const struct e4_jcodec *c, const void *blk);

/* e4_jblock_set_tail_csum() - store that tail checksum in @blk (v2/v3
 * only; kernel jbd2_descriptor_block_csum_set()). */
void e4_jblock_set_tail_csum(const struct e4_jcodec *c, void *blk);

/*
 * e4_jcommit_decode() - the fields of commit block @blk that struct
 * e4_jtrans keeps (h_commit_sec, h_commit_nsec, h_chksum_type,
 * h_chksum_size, h_chksum[0]) into @t; nothing checked (the scan
 * decides, journal.rst "Commit").  The one decoder of scan.c and
 * oldlog.c.
 */
void e4_jcommit_decode(const void *blk, struct e4_jtrans *t);

/*
 * e4_jcommit_csum_check() - the v2/v3 checksum of commit block @blk
 * (kernel jbd2_commit_block_csum_verify() and ..._partial(): crc32c(seed)
 * of the block with h_chksum[0] taken as zero, or of its 60-byte header
 * with the rest taken as zero).  Returns 1 for a full match (or no v2/v3),
 * 2 for a header-only match, 0 for none.
 */
int e4_jcommit_csum_check(const struct e4_jcodec *c, const void *blk);

/* e4_jcommit_set_csum() - store the full v2/v3 checksum in h_chksum[0] of
 * commit block @blk (kernel jbd2_commit_block_csum_set()); no-op without
 * v2/v3. */
void e4_jcommit_set_csum(const struct e4_jcodec *c, void *blk);

/*
 * e4_jtag_csum() - the block tag checksum of the logged (escaped) copy
 * @data (one jblock) in transaction @tid: crc32c(crc32c(seed, be32 tid),
 * data) (kernel jbd2_block_tag_csum_set()/_verify()); v2 tags store its
 * low 16 bits.  Returns the 32-bit value.
 */
uint32_t e4_jtag_csum(const struct e4_jcodec *c, uint32_t tid,
		      const void *data);

/* e4_jtag_csum_ok() - 1 if tag @g's stored checksum matches @data logged
 * in @tid (all 32 bits with CSUM_V3, the low 16 with V2), else 0. */
int e4_jtag_csum_ok(const struct e4_jcodec *c, const struct e4_jtag *g,
		    uint32_t tid, const void *data);

/*
 * e4_jblock_escape() - escape a block @blk about to be logged: when it
 * starts with JBD2_MAGIC (it would read as a journal block) those 4 bytes
 * are zeroed (fs/jbd2/journal.c jbd2_journal_write_metadata_buffer()).
 * Returns 1 when it did (the tag gets JBD2_FLAG_ESCAPE), else 0.
 */
int e4_jblock_escape(void *blk);

/*
 * e4_jblock_unescape() - undo the escape of a logged copy @blk (one
 * jblock) when @escaped (its tag had JBD2_FLAG_ESCAPE): a block starting
 * with JBD2_MAGIC is logged with those 4 bytes zeroed, and replay writes
 * the magic back (fs/jbd2/recovery.c do_one_pass(), PASS_REPLAY).
 */
void e4_jblock_unescape(void *blk, int escaped);

/*
 * e4_jblock_hash() - 64-bit content hash of block @blk (@bs bytes) as
 * replay writes it (@escaped: a logged copy whose tag had
 * JBD2_FLAG_ESCAPE, hashed with JBD2_MAGIC back in its first 4 bytes):
 * multiply-xorshift over 64-bit words in four lanes, or, on a CPU with
 * AVX2, XXH3's multiply-accumulate over 64-byte stripes in eight lanes
 * (a different value: one process uses one form for every block).  Not
 * a CRC: a block carrying its own crc32c makes any CRC of it a constant.
 * For comparing blocks (the ordering check's ahead blocks), never stored.
 */
uint64_t e4_jblock_hash(const void *blk, unsigned int bs, int escaped);

/*
 * e4_jblock_facts() - what the ordering check asks of a logged copy @blk
 * (@bs bytes) of fs block @fsblk, found in the one read of the scan
 * (E4_SCANF_HASH): E4_COPY_FACTS | E4_COPY_EXT_MAGIC (starts with
 * EXT3_EXT_MAGIC) | E4_COPY_ZERO (all zero), and e4_stamp_block_stale()
 * at @fsblk in the bits from E4_COPY_STALE_SHIFT.  0 (not known: the
 * check reads the block) for an @escaped copy (its first bytes differ
 * from what replay writes) or a stale count that does not fit.
 */
uint32_t e4_jblock_facts(const void *blk, unsigned int bs, blk64_t fsblk,
			 int escaped);

/* e4_jblock_header() - the 12-byte header: JBD2_MAGIC, @type
 * (JBD2_*_BLOCK), sequence @tid. */
void e4_jblock_header(void *blk, uint32_t type, uint32_t tid);

/* e4_jdesc_tags_per_block() - block tags that fit in one descriptor block
 * (after the header, before the v2/v3 tail; the first tag carries the
 * 16-byte UUID, the others SAME_UUID). */
size_t e4_jdesc_tags_per_block(const struct e4_jcodec *c);

/*
 * e4_jdesc_put_tag() - encode a block tag for fs block @fsblk with
 * JBD2_FLAG_* @flags and checksum @csum (e4_jtag_csum(); v2 stores the low
 * 16 bits, no field without v2/v3) at @at, followed by the journal's UUID
 * unless @flags has SAME_UUID (journal.rst "Descriptor Block").  Returns
 * the bytes written.
 */
size_t e4_jdesc_put_tag(const struct e4_jcodec *c, void *at, blk64_t fsblk,
			uint32_t flags, uint32_t csum);

/* ---- revoke.c: the revoke table of a replay ----------------------------- */

struct e4_revoke_table;

/*
 * e4_revoke_new() - an empty revoke table sized for about @hint records
 * (it grows).  Memory is proportional to the distinct revoked blocks.
 * Returns 0 or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_revoke_new(size_t hint, struct e4_revoke_table **ret);

/*
 * e4_revoke_set() - record "fs block @blk revoked in tid @tid", keeping
 * the newest tid per block (wrap-safe; kernel jbd2_journal_set_revoke(),
 * fs/jbd2/revoke.c).  Returns 0 or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_revoke_set(struct e4_revoke_table *t, blk64_t blk,
			uint32_t tid);

/*
 * e4_revoke_test() - 1 if a copy of fs block @blk logged in tid @tid must
 * not be replayed: a revoke record for @blk exists in a tid R with
 * @tid <= R (kernel jbd2_journal_test_revoke()); else 0.
 */
int e4_revoke_test(const struct e4_revoke_table *t, blk64_t blk,
		   uint32_t tid);

/* e4_revoke_count() - distinct blocks in the table. */
size_t e4_revoke_count(const struct e4_revoke_table *t);

/* e4_revoke_free() - release @t (NULL is fine). */
void e4_revoke_free(struct e4_revoke_table *t);

/* ---- replay.c: writing the log back to the file system ------------------ */

/*
 * What a replay did.  The caller allocates it and readies it with
 * e4_replay_result_init() (size first: see e4_replay_result_init()).
 */
struct e4_replay_result {
	size_t		size;		/* bytes: sizeof() the caller was
					 * built with (e4_replay_result_init()) */
	uint64_t	ntags;		/* tags of replayed transactions */
	uint64_t	nwritten;	/* fs blocks written (each once) */
	uint64_t	nsuperseded;	/* copies a later copy replaces */
	uint64_t	nrevoked;	/* copies cancelled by revoke records */
	uint64_t	nbad_csum;	/* copies skipped: tag checksum */
	uint64_t	nbad_block;	/* always 0: such copies are written
					 * or fail the recovery (plan.c) */
	uint64_t	nrevoke_blocks;	/* distinct revoked fs blocks */
	uint64_t	nwrites;	/* write calls after coalescing */
	uint64_t	nreads;		/* journal read calls */
	uint32_t	new_sequence;	/* jsb s_sequence written */
	int		fs_error;	/* EXT2_ERROR_FS set in s_state */
	int		fs_not_valid;	/* EXT2_VALID_FS cleared */
	int		corrupt;	/* corruption met (scan or skipped
					 * copies): fsck exit bit 4 */
	int		sb_layout_changed;	/* the replayed superblock has
					 * another layout (or is garbage):
					 * fs->super kept the old one */
	/* New members go here, at the end. */
};

/*
 * e4_replay_result_init() - ready the caller's @res of @size bytes (pass
 * sizeof(*res)) for the functions that fill it (e4_journal_replay(),
 * e4_journal_recover(), e4_plan_replay(), e4_plan_replay_fc(),
 * e4_journal_replay_plan()): every count 0 and res->size = @size.
 * Those functions refuse a result whose size is 0 (a zeroed struct, e.g.
 * "= { 0 }", never passed here) with E4_ERR_STRUCT_UNINIT, before
 * anything is read or written; a program built against an older e4.h
 * (a smaller @size) gets the members it knows, a newer one's members
 * past this libe4's stay 0.  Rule: struct growth by a leading size field,
 * as the kernel's copy_struct_from_user() (and Win32's cbSize).
 * Returns 0, E4_ERR_STRUCT_UNINIT (@size 0) or E4_ERR_STRUCT_SIZE (@size
 * smaller than the first release's struct or above 4096 bytes); nothing
 * is written on an error.
 */
errcode_t e4_replay_result_init(struct e4_replay_result *res, size_t size);

/* ---- plan.c: the replay rule (which logged copy reaches each block) ----- */

/*
 * One logged copy of an fs block: where it is in the journal and on the
 * channel the copies are read from (the journal's, j->io).  A state map
 * or replay's write list is an array of these.
 */
#define E4_COPY_ESCAPED	0x1	/* tag had JBD2_FLAG_ESCAPE: the first 4
				 * bytes read back as JBD2_MAGIC */
/* What the scan (E4_SCANF_HASH) saw in the copy as replay writes it, so
 * that the ordering check need not read it again (e4_jblock_facts()): */
#define E4_COPY_FACTS	0x2	/* the bits below and the stale count are
				 * known */
#define E4_COPY_EXT_MAGIC 0x4	/* starts with EXT3_EXT_MAGIC (le16) */
#define E4_COPY_ZERO	0x8	/* every byte zero */
#define E4_COPY_STALE_SHIFT 16	/* e4_stamp_block_stale() of the copy at
				 * its fs block, in the top 16 bits */
#define E4_COPY_STALE(flags)	((size_t)((flags) >> E4_COPY_STALE_SHIFT))

struct e4_copy {
	blk64_t		fsblk;	/* fs block the copy belongs to */
	blk64_t		src_blk;/* block on the source channel holding it
				 * (e4_journal_bmap() of jblk); set in
				 * state maps only */
	blk64_t		jblk;	/* jblock of the copy */
	uint32_t	tid;	/* transaction that logged it */
	uint32_t	flags;	/* E4_COPY_* */
};

/*
 * The replay plan of a scan: the fate of every tag over the window of
 * committed transactions and the copies replay writes.  Built once by
 * e4_plan_build() and read by replay (e4_plan_replay()), by the states
 * S_k (e4_state_*()) that the overlay serves, and by the ordering check.
 * Every member is read-only for users.
 */
struct e4_plan {
	e4_journal_t	j;		/* the journal; not owned */
	struct e4_jscan	*scan;		/* its scan; not owned (its tags'
					 * fates are set) */
	blk64_t		nblocks;	/* blocks of the fs device (at least
					 * the fs's): a surviving copy at or
					 * past this fails the kernel's
					 * recovery */
	size_t		ntx;		/* committed transactions (the
					 * window): scan->trans[0..ntx) */
	struct e4_copy	*final;		/* the copies replay writes: one per
					 * fs block, the newest surviving, in
					 * log order (src_blk not set) */
	size_t		nfinal;
	struct e4_replay_result res;	/* the counts of the window (no io
					 * counts) */
	struct e4_jmap_run *runs;	/* internal journal's runs by pblk */
	size_t		nruns;
	int		csum_needed;	/* a copy that would fail the
					 * recovery has its tag checksum
					 * pending (E4_SCANF_DEFER_CSUM; the
					 * kernel tests it first): the plan
					 * holds only after
					 * e4_jscan_check_tags() and a new
					 * e4_plan_build() */
};

/*
 * e4_plan_build() - the replay plan of @scan of journal @j: for every
 * committed tag its fate (e4_jtag.fate: E4_TAG_REPLAY, _SUPERSEDED,
 * _REVOKED, _BAD_CSUM, _BAD_BLOCK; tags of uncommitted transactions get
 * E4_TAG_UNCOMMITTED), the counts of plan->res, and plan->final, the
 * copies replay writes.  No io.  Rule (fs/jbd2/recovery.c PASS_REVOKE and
 * PASS_REPLAY, revoke.c): a revoke record for block b in committed tid R
 * cancels every copy of b logged in a tid <= R (tested first); a copy
 * failing its tag checksum is skipped (kernel: EFSBADCRC at the end);
 * every other copy is written where it says (past the fs end, inside the
 * journal, as the kernel's __getblk() does), except that a copy naming a
 * block at or past the end of the fs device (plan->nblocks) fails the
 * kernel's recovery, and e4replay refuses one naming a journal block the
 * replay pass reads after writing it (the journal superblock, a later
 * block of the window, the fast-commit area: the kernel replays what it
 * wrote there): then @scan->fail is set to E4_ERR_BAD_TAG_BLOCK with an
 * E4_SCAN_BAD_TAG_BLOCK event naming the tag and the plan is empty, as
 * for a failed scan; of the surviving copies of a block only the newest
 * is written, the end result of the kernel writing them in order.
 * O(tags log tags).  On success *@ret is the plan (e4_plan_free()); it
 * refers to @j and @scan, which must outlive it.  A failed scan
 * (@scan->fail: the kernel replays nothing) gives an empty plan: ntx 0,
 * no fate set, and e4_plan_replay() refuses it.
 * Returns 0 or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_plan_build(e4_journal_t j, struct e4_jscan *scan,
			struct e4_plan **ret);

/* e4_plan_free() - release @plan (NULL is fine). */
void e4_plan_free(struct e4_plan *plan);

/*
 * e4_plan_result() - the counts of @plan into @res; with @plan NULL (no
 * plan: @scan failed) only res->new_sequence (end_tid + 1) and
 * res->corrupt (the scan's) are set, the rest zeroed.  A @res not readied
 * by e4_replay_result_init() (size 0 or out of range) is left alone.
 */
void e4_plan_result(const struct e4_jscan *scan, const struct e4_plan *plan,
		    struct e4_replay_result *res);

/*
 * The kernel's recovery of a journal that succeeds up to PASS_REPLAY
 * and still fails the mount (fs/jbd2/journal.c jbd2_journal_load(),
 * Linux 6.18): what e4_plan_mount_refused() finds.
 */
struct e4_mount_refusal {
	errcode_t	err;		/* 0: the kernel mounts;
					 * E4_ERR_JOURNAL_CORRUPT:
					 * j_failed_commit (-EFSCORRUPTED);
					 * E4_ERR_JOURNAL_CHECKSUM: a copy
					 * failed its tag checksum in
					 * PASS_REPLAY (-EFSBADCRC) */
	uint32_t	tid;		/* the failed commit's tid, or the
					 * tid of the first bad copy */
	const struct e4_jtag *tag;	/* the first bad copy (NULL for a
					 * failed commit) */
	uint64_t	nbad;		/* bad copies the kernel skips */
	int		wiped;		/* needs_recovery is clear: the kernel
					 * wipes the log instead (only a
					 * failed commit, met by the wipe's
					 * scan, fails that mount) */
};

/*
 * e4_plan_mount_refused() - whether the kernel, after replaying the
 * journal of @p, refuses to mount the file system, into *@out.  Two
 * ways (fs/jbd2/recovery.c and journal.c, Linux 6.18): the scan set
 * j_failed_commit (a commit block failing its checksum without
 * async_commit, or a v1 commit after a failed async one): recovery
 * replays the transactions before that tid, then jbd2_journal_load()
 * returns -EFSCORRUPTED ("journal transaction N ... is corrupt"); or a
 * committed copy that no revoke cancels fails its tag checksum (fate
 * E4_TAG_BAD_CSUM): do_one_pass() PASS_REPLAY skips it ("Invalid
 * checksum recovering data block"), writes every other block and
 * jbd2_journal_recover() returns -EFSBADCRC ("journal recovery
 * failed").  Either way the replayed blocks are on disk but the journal
 * is not reset: needs_recovery stays set and every mount fails the same
 * way until e2fsck.  With needs_recovery clear the kernel does not
 * replay but wipes the log (ext4_load_journal() -> jbd2_journal_wipe()),
 * whose jbd2_journal_skip_recovery() runs PASS_SCAN only: a bad tag
 * checksum goes unseen (err 0), a failed commit still sets
 * j_failed_commit and that mount fails, the log already emptied (wiped
 * set; the next mount succeeds; checked on Linux 6.18).  A scan that
 * already fails (scan->fail, nothing
 * replayed) is the other refusal and gives err 0 here.  Needs the plan's
 * fates with no tag E4_CSUM_PENDING (e4_jscan_check_tags() first); a
 * pending tag counts as good.  No io.
 */
void e4_plan_mount_refused(const struct e4_plan *p,
			   struct e4_mount_refusal *out);

/*
 * What the kernel's recovery makes of a log, in the terms a change of it
 * can be judged by (e4_log_outcome()).
 */
struct e4_log_outcome {
	errcode_t	fail;		/* the recovery fails in PASS_SCAN
					 * (scan->fail), nothing replayed */
	uint32_t	start_tid;	/* s_sequence */
	uint32_t	end_tid;	/* first tid not replayed */
	size_t		ncommitted;	/* transactions replayed */
	uint64_t	ntags;		/* their tags */
	int		corrupt;	/* corruption met and handled */
	struct e4_mount_refusal refused; /* after the replay (err 0: the
					 * kernel mounts) */
};

/*
 * e4_log_outcome() - the kernel's recovery of the log of @j as if its
 * journal superblock were the JBD2_JSB_SIZE bytes at @sb (NULL: as it
 * is): e4_journal_scan() (tag checksums checked), e4_plan_build() and
 * e4_plan_mount_refused(), summed up in *@out.  @j is read, not written,
 * and left as it was (its superblock copy is swapped for the scan and
 * back).  Used before an edit of the journal superblock of a log that
 * needs recovery: e4tune -f refuses an edit that changes the outcome
 * (which transactions the kernel replays, or whether it refuses) unless
 * given twice, as tune2fs does for -f -f.  Returns 0, EXT2_ET_NO_MEMORY
 * or e4_journal_scan()'s errors.
 */
errcode_t e4_log_outcome(e4_journal_t j, const unsigned char *sb,
			 struct e4_log_outcome *out);

/* e4_log_outcome_same() - 1 if @a and @b are one outcome, else 0. */
int e4_log_outcome_same(const struct e4_log_outcome *a,
			const struct e4_log_outcome *b);

/*
 * e4_journal_replay_plan() - the tag fates and counts of e4_plan_build()
 * without keeping the plan: sets e4_jtag.fate in @scan and fills @res
 * (e4_plan_result()).  No io.  Returns 0, @scan->fail (no fate set),
 * EXT2_ET_NO_MEMORY, or E4_ERR_STRUCT_UNINIT / E4_ERR_STRUCT_SIZE (@res
 * not readied by e4_replay_result_init(); nothing done).
 */
errcode_t e4_journal_replay_plan(e4_journal_t j, struct e4_jscan *scan,
				 struct e4_replay_result *res);

/*
 * A state S_k of a plan: the map of the fs blocks whose content after
 * replaying committed transactions T1..Tk comes from a logged copy
 * (sorted by fsblk, unique); every other block is the image's.  Rule as
 * e4_plan_build(), with only the revoke records of T1..Tk: a revoke of Tk
 * cancels every copy of its block logged so far (tids <= Tk's).  S_n
 * (k = plan->ntx) holds exactly plan->final.  Members are read-only for
 * users; the map changes in place as the state advances, so an overlay
 * (overlay_io.c) given the state serves the new state at once (libext2fs
 * caches of an fs open on it are then stale: reopen it).
 */
struct e4_state {
	const struct e4_plan *plan;	/* not owned */
	size_t		k;		/* transactions applied: S_k */
	struct e4_copy	*ents;		/* the map, by fsblk, src_blk set */
	size_t		n;
	size_t		alloc;
	struct e4_copy	*spare;		/* merge buffer */
	size_t		spare_alloc;
};

/*
 * e4_state_init() - make @st state S_0 of @plan (the image: empty map).
 * Returns 0.
 */
errcode_t e4_state_init(const struct e4_plan *plan, struct e4_state *st);

/*
 * e4_state_advance() - S_k -> S_(k+1) in place: transaction trans[k]'s
 * newest surviving copy of each block it logs replaces the one before; its
 * revoke records cancel every copy of their blocks (its own included).
 * O(map + tags log tags).  On error @st is unchanged.
 * Returns 0, EXT2_ET_INVALID_ARGUMENT (already S_n), EXT2_ET_NO_MEMORY or
 * EXT2_ET_BAD_BLOCK_NUM (a tag's jblock outside the journal's mapping).
 */
errcode_t e4_state_advance(struct e4_state *st);

/*
 * e4_state_seek() - make @st state S_@k (clamped to plan->ntx): advances
 * from the current state, restarting from S_0 when @k is behind it; S_n
 * from further back is built at once from plan->final.  Same returns as
 * e4_state_advance().
 */
errcode_t e4_state_seek(struct e4_state *st, size_t k);

/* e4_state_lookup() - the copy serving fs block @fsblk in @st, or NULL
 * when the image's block is served (also when @st is NULL). */
const struct e4_copy *e4_state_lookup(const struct e4_state *st,
				      blk64_t fsblk);

/* e4_state_find() - index of the first entry of @st with fsblk >= @fsblk
 * (st->n when none; 0 when @st is NULL). */
size_t e4_state_find(const struct e4_state *st, blk64_t fsblk);

/* e4_state_free() - release the maps of @st (a zeroed @st is fine). */
void e4_state_free(struct e4_state *st);

/*
 * e4_journal_replay() - replay the full commits of @scan into the file
 * system of @j (both opened read-write): e4_plan_build(), then
 * e4_plan_replay().  A journal whose fast-commit area holds fast commits
 * the kernel replays (scan->fc->nreplay) is refused before anything is
 * written: resetting the log would drop them.  e4_journal_recover() is
 * the kernel's whole recovery (full and fast commits); to drop the fast
 * commits knowingly (e4replay --ignore-fast-commit), call
 * e4_plan_build() and e4_plan_replay().
 * Like e2fsck, it replays a journal the kernel replays and then refuses
 * to mount (a failed commit, a bad tag checksum): call
 * e4_plan_mount_refused() on the plan first to follow the kernel, as
 * e4replay does.
 @res is the caller's, readied by e4_replay_result_init() (its size
 * says which members it has).
 * Fills all of @res on every other return: the counts of e4_plan_replay(),
 * or on E4_ERR_READ_ONLY, E4_ERR_FAST_COMMIT and a failed e4_plan_build()
 * those of e4_plan_result() with no plan (new_sequence and corrupt, the
 * rest zero).
 * Returns 0, E4_ERR_STRUCT_UNINIT / E4_ERR_STRUCT_SIZE (@res not readied:
 * nothing read, written or filled), E4_ERR_READ_ONLY (nothing written),
 * @scan->fail (nothing
 * written), E4_ERR_FAST_COMMIT (nothing written) or what e4_plan_replay()
 * returns.
 */
errcode_t e4_journal_replay(e4_journal_t j, struct e4_jscan *scan,
			    struct e4_replay_result *res);

/*
 * e4_plan_replay() - replay @plan into the file system of its journal
 * (fs and journal opened read-write): write each of plan->final once
 * (escaped blocks get JBD2_MAGIC back in their first 4
 * bytes), reading the journal in log order in chunks of up to 8 MiB and
 * writing each chunk's blocks sorted by fs block, contiguous runs in one
 * write, through fs->io; flush.  Then, as e2fsck does after recovery
 * fs block once (escaped blocks get JBD2_MAGIC back in their first 4
 * bytes), reading the journal in log order in chunks of up to 8 MiB and
 * writing each chunk's blocks sorted by fs block, contiguous runs in one
 * write; flush.  Then, as e2fsck does after recovery
 * (e2fsck/journal.c), in this order: (1) the fs superblock is re-read
 * (replay may have written it), s_errno of the journal (or a failed
 * commit) carried into EXT2_ERROR_FS, EXT2_VALID_FS cleared when copies
 * were skipped, and written back with needs_recovery still set; (2) the
 * journal superblock gets s_start = 0, s_sequence = end_tid + 1 (the
 * kernel's ++end_transaction), s_errno = 0; (3) the fs superblock is
 * written with needs_recovery cleared.  So a replay interrupted anywhere
 * can be run again and ends in the same image (after (2): an empty log
 * whose rerun takes the next tid).  With an empty log
 * (s_start == 0) only the superblocks are updated (s_sequence + 1, as
 * jbd2_journal_recover() does).  The fs superblock is updated as raw
 * bytes (one 1 KiB write each time), never through libext2fs, so a log
 * carrying a garbage superblock cannot crash the replay; fs->super takes
 * the replayed superblock when its layout fields are unchanged (else
 * res->sb_layout_changed).  Nothing is left dirty in memory.
 * fs->group_desc in memory is stale afterwards: reopen the fs or
 * e4_fs_reload() it to go on using it.  Fills all of @res on every
 * return, E4_ERR_READ_ONLY's too: the plan's counts (e4_plan_result())
 * and the io counts.
 * Returns 0, E4_ERR_STRUCT_UNINIT / E4_ERR_STRUCT_SIZE (@res not readied
 * by e4_replay_result_init(): nothing written or filled),
 * E4_ERR_READ_ONLY or the scan's fail code (nothing written),
 * io errors or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_plan_replay(const struct e4_plan *plan,
			 struct e4_replay_result *res);

/*
 * e4_plan_replay_refused() - what the kernel writes for a journal it
 * replays and then refuses to mount (e4_mount_decide():
 * E4_MOUNT_REPLAY_REFUSE; fs/jbd2/recovery.c PASS_REPLAY, then
 * jbd2_journal_load() fails before journal_reset(), Linux 6.18): step 1
 * of e4_plan_replay() alone -- each of plan->final written once (a copy
 * failing its tag checksum is not in it: the block keeps the copy before
 * it, as PASS_REPLAY's skip leaves it; with a failed commit the plan ends
 * before that tid), flushed -- and nothing else: the journal keeps its
 * log, needs_recovery stays set, the fs superblock is what the log wrote,
 * no s_errno is carried, so every later mount fails the same way until
 * e2fsck.  The tag fates must be final (e4_jscan_check_tags() before
 * e4_plan_build()).  Fills all of @res (res->new_sequence: s_sequence,
 * unchanged).  Returns 0, E4_ERR_READ_ONLY or the scan's fail code
 * (nothing written), io errors or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_plan_replay_refused(const struct e4_plan *plan,
				 struct e4_replay_result *res);

/*
 * e4_plan_replay_kernel() - the kernel's replay of @plan in one read of
 * the log: e4_plan_replay() with the tag checksums left E4_CSUM_PENDING
 * (E4_SCANF_DEFER_CSUM) checked as each copy is read; when one fails,
 * the blocks are planned again and written as the kernel's PASS_REPLAY
 * leaves them (the copy before a bad one kept) and nothing else, as
 * e4_plan_replay_refused() (the journal kept, needs_recovery set), and
 * E4_ERR_JOURNAL_CHECKSUM is returned: the kernel then refuses the mount
 * (e4_mount_decide() on a plan built again from the now checked scan
 * says E4_MOUNT_REPLAY_REFUSE).  Without a failure it is
 * e4_plan_replay().  No fast commits (they need every checksum first).
 * Fills all of @res.  Returns 0, E4_ERR_JOURNAL_CHECKSUM (the kernel's
 * writes made), or what e4_plan_replay() returns.
 */
errcode_t e4_plan_replay_kernel(const struct e4_plan *plan,
				struct e4_replay_result *res);

struct e4_fc_state;

/*
 * e4_plan_replay_fc() - e4_plan_replay(), and when @fcst is not NULL
 * (e4_fc_state_open() on state S_n of this very fs: its fast commits
 * replayed in memory) its changed blocks are written right after the full
 * commits' and before the superblocks, as the kernel replays fast commits
 * inside jbd2_journal_recover(): an interruption leaves the journal for a
 * rerun.  Same returns, and the errors of e4_fc_state_write().
 */
errcode_t e4_plan_replay_fc(const struct e4_plan *plan,
			    struct e4_fc_state *fcst,
			    struct e4_replay_result *res);


/* ---- mmp.c: multiple mount protection around an offline write ------- */

/* What e4_mmp_read() / e4_mmp_start() found and did. */
struct e4_mmp {
	int		enabled;	/* the fs has the mmp feature */
	int		held;		/* this run wrote EXT4_MMP_SEQ_FSCK:
					 * e4_mmp_stop() writes CLEAN */
	int		clean;		/* e4_mmp_stop() wrote CLEAN */
	blk64_t		block;		/* s_mmp_block */
	uint32_t	seq;		/* mmp_seq as last read (or written) */
	uint64_t	time;		/* mmp_time: seconds since the epoch */
	unsigned int	check_wait;	/* one wait of the check, seconds */
	unsigned int	wait;		/* seconds e4_mmp_start() sleeps */
	char		nodename[65];	/* mmp_nodename, NUL-terminated */
	char		bdevname[33];	/* mmp_bdevname, NUL-terminated */
};

#define E4_MMP_CHECK_ONLY	0x1	/* check, write nothing (IMAGE read
					 * into a copy) */
#define E4_MMP_COPY		0x2	/* a copy this run made (OUTPUT): no
					 * other node holds it, no wait */

/*
 * e4_mmp_read() - read the MMP block of @fs (the checksum verified) into
 * *@m, and say how long e4_mmp_start() with @flags would sleep (m->wait,
 * seconds: the check interval, min(2 * ci + 1, ci + 60), once for a block
 * in use, once more to take it unless E4_MMP_CHECK_ONLY; none with
 * E4_MMP_COPY).  Writes nothing, never sleeps.  Without the mmp feature
 * m->enabled is 0 and it returns 0.  Returns 0, EXT2_ET_MMP_FSCK_ON
 * (seq EXT4_MMP_SEQ_FSCK: e2fsck or another writer holds it),
 * EXT2_ET_MMP_UNKNOWN_SEQ, EXT2_ET_MMP_MAGIC_INVALID,
 * EXT2_ET_MMP_CSUM_INVALID, EXT2_ET_MMP_BAD_BLOCK, EXT2_ET_MMP_OPEN_DIRECT
 * or read errors.  Rule: e2fsck/unix.c e2fsck_check_mmp() and
 * lib/ext2fs/mmp.c ext2fs_mmp_start() (mmp.c above).
 */
errcode_t e4_mmp_read(ext2_filsys fs, unsigned int flags, struct e4_mmp *m);

/*
 * e4_mmp_start() - before the first write to @fs, do what e2fsck does
 * (ext2fs_mmp_start()): refuse a block held by e2fsck or in use by
 * another node (its sequence changes over the check interval: sleeps
 * m->wait seconds), else take it (a new sequence, checked after another
 * interval, then EXT4_MMP_SEQ_FSCK) and set m->held.  E4_MMP_CHECK_ONLY:
 * the check alone, nothing written (@fs may be read-only).  E4_MMP_COPY:
 * @fs is a copy this run made: EXT4_MMP_SEQ_FSCK is written at once with
 * this host's name and @name (NULL: the fs's device name) as the device.
 * Without the mmp feature: 0, nothing done.  Returns 0, the errors of
 * e4_mmp_read(), EXT2_ET_MMP_FAILED (in use: the sequence changed),
 * E4_ERR_READ_ONLY (@fs read-only without E4_MMP_CHECK_ONLY) or io
 * errors; *@m describes the block as last read.
 */
errcode_t e4_mmp_start(ext2_filsys fs, unsigned int flags, const char *name,
		       struct e4_mmp *m);

/*
 * e4_mmp_stop() - after the writes, leave the MMP block of @fs clean
 * (EXT4_MMP_SEQ_CLEAN, ext2fs_mmp_stop()): the next mount does not wait
 * (ext4_multi_mount_protect() skips its waits on a clean block).  Does
 * nothing unless e4_mmp_start() set m->held.  Returns 0,
 * EXT2_ET_MMP_CHANGE_ABORT or io errors.
 */
errcode_t e4_mmp_stop(ext2_filsys fs, struct e4_mmp *m);

/*
 * e4_super_set_recover() - set needs_recovery in the primary superblock
 * on the disk of @fs (not in fs->super), as raw bytes with their own
 * checksum, in one 1 KiB write, flushed: from then on a recovery decides,
 * as after the kernel's mount (txn.c sets it before a log goes live).
 * Returns 0, EXT2_ET_BAD_MAGIC (no superblock there) or io errors.
 */
errcode_t e4_super_set_recover(ext2_filsys fs);

/*
 * e4_journal_clear_err() - as the kernel's ext4_clear_journal_err() on
 * every mount, also one with an empty log: if the journal superblock of
 * @j records an error (s_errno != 0), set ERROR_FS in the primary fs
 * superblock on disk (raw 1 KiB write, own checksum) and in fs->super,
 * then zero s_errno and write the journal superblock; *@marked = 1 then,
 * else 0 (nothing written).  e4_journal_replay() does the same as part of
 * a replay.  Returns 0, E4_ERR_READ_ONLY (@j or its fs opened read-only),
 * EXT2_ET_BAD_MAGIC or io errors.
 */
errcode_t e4_journal_clear_err(e4_journal_t j, int *marked);

/*
 * e4_fs_reload() - after e4_journal_replay() wrote blocks in place, make
 * the in-memory @fs match the disk again, as a reopen would: the primary
 * superblock and the group descriptor blocks are re-read, the inode
 * cache flushed, loaded bitmaps dropped (read again on demand), the dirty
 * flags cleared; EXT2_FLAG_MASTER_SB_ONLY and EXT2_FLAG_SUPER_ONLY stay set
 * as e4_journal_replay() left them (a later flush writes the primary
 * superblock only, as the kernel never rewrites the backups).  Returns 0,
 * E4_ERR_SB_LAYOUT (the superblock on disk has another layout than
 * fs->super: reopen the fs) or io errors.
 */
errcode_t e4_fs_reload(ext2_filsys fs);

/* ---- txn.c: crash-safe metadata updates through the journal ------------ */

/* What e4_txn_commit() logged and wrote. */
struct e4_txn_result {
	uint32_t	tid;		/* the transaction's tid */
	uint64_t	nblocks;	/* fs blocks logged and written */
	uint64_t	nunchanged;	/* blocks libext2fs rewrote unchanged
					 * (not logged) */
	uint64_t	njblocks;	/* jblocks of log: descriptors, data,
					 * commit */
};

struct e4_txn;

/*
 * e4_txn_begin() - start collecting the metadata writes of @fs: until
 * e4_txn_commit() or e4_txn_abort(), fs->io (and fs->image_io if the
 * same) is a channel that keeps every write in memory, per fs block, and
 * serves reads from it; nothing reaches the disk.  @j is the journal of
 * @fs, opened with E4_JOURNAL_RW before this call.  The log must be empty
 * (s_start 0, needs_recovery clear: the kernel's state after a clean
 * unmount).  Data writes that must not be logged (zeroing) are made
 * before this call.
 * Returns 0, E4_ERR_READ_ONLY, E4_ERR_NEEDS_RECOVERY, E4_ERR_TXN_JOURNAL_ERRNO
 * (s_errno set: a replay would mark the fs in error), EXT2_ET_INVALID_ARGUMENT
 * (@j not of @fs, or a transaction already open) or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_txn_begin(ext2_filsys fs, e4_journal_t j, struct e4_txn **ret);

/*
 * e4_txn_commit() - flush @t's fs (primary superblock, with needs_recovery
 * set as the kernel's in-memory copy has it, and group descriptors;
 * bitmaps if dirty) into the held blocks, drop those equal to the disk,
 * and make the rest one jbd2 transaction with tid s_sequence, in the
 * kernel's order (fs/jbd2/commit.c, journal.rst "Descriptor Block",
 * "Commit"): descriptor blocks with block tags (escape for blocks
 * starting with JBD2_MAGIC; tag, descriptor-tail and commit checksums by
 * the journal's CSUM_V2/V3 or COMPAT_CHECKSUM) and the data blocks, a
 * block without magic after them (so no stale log block can continue the
 * log), a flush; the commit block, a flush (all still unseen: s_start is
 * 0); needs_recovery set in the superblock on disk; the journal
 * superblock with s_start = s_first.  The
 * log is then scanned back, checked to be exactly this transaction, and
 * checkpointed by e4_journal_replay() (blocks written in place, then
 * s_start = 0, s_sequence = tid + 1, needs_recovery cleared).  An
 * interruption before the commit block leaves the old state (a recovery
 * finds no committed transaction); after it, any recovery (e4replay,
 * e2fsck, the kernel) writes the new state.  @t is freed in all cases.
 * On failure the in-memory fs is reloaded from the disk (e4_fs_reload(),
 * which drops what libext2fs held), so it can be used or closed.
 * Returns 0, E4_ERR_TXN_TOO_BIG (descriptors + data + commit + 1 exceed
 * the log area, s_first .. e4_jsb_log_end(): nothing written),
 * E4_ERR_TXN_VERIFY (the scan back or the replay disagrees; the log stays
 * for e2fsck), the errors of e4_journal_replay(), io errors and
 * EXT2_ET_NO_MEMORY.
 */
errcode_t e4_txn_commit(struct e4_txn *t, struct e4_txn_result *res);

/* e4_txn_abort() - drop @t's held writes, give @fs its channel back and
 * reload it from the disk (e4_fs_reload()).  NULL is fine. */
void e4_txn_abort(struct e4_txn *t);

/* ---- capture_io.c: a capturing io_channel ------------------------------ */

/* One held fs block. */
struct e4_held {
	blk64_t		blk;		/* fs block */
	unsigned char	*data;		/* blocksize bytes */
};

/*
 * A capture: an io_channel (->io, of e4_capture_io_manager) stacked on
 * ->under that holds every write in memory per fs block and serves reads
 * from the held blocks over ->under; nothing written reaches ->under.
 * Byte-count and 1 KiB-block transfers (libext2fs's superblock writes) are
 * held too.  Discard, zeroout and write_byte are not offered (libext2fs
 * falls back to block writes, which are held).  Members are read-only for
 * users; ->v holds ->n blocks in order of first write (by fs block after
 * e4_capture_drop_unchanged()).
 */
struct e4_capture {
	io_channel	under;		/* not owned */
	io_channel	io;		/* the capturing channel; owned */
	unsigned int	blocksize;	/* fs block size, bytes */
	struct e4_held	*v;
	size_t		n, cap_n;
	size_t		*hash;		/* index + 1 into v; 0 = empty */
	size_t		hash_n;		/* power of two */
	int		failed;		/* a write could not be held */
};

/* The capturing io_manager; its open() refuses names (EXT2_ET_UNIMPLEMENTED):
 * channels are made by e4_capture_new(). */
extern io_manager e4_capture_io_manager;

/*
 * e4_capture_new() - a capture over @under, whose fs blocks are
 * @blocksize bytes (a power of two >= 1024).  Put (*@ret)->io where the
 * writes should go (fs->io).  The channel's close() does not free it:
 * e4_capture_free() does.  Returns 0, EXT2_ET_INVALID_ARGUMENT or
 * EXT2_ET_NO_MEMORY.
 */
errcode_t e4_capture_new(io_channel under, unsigned int blocksize,
			 struct e4_capture **ret);

/*
 * e4_capture_drop_unchanged() - drop the held blocks equal to what
 * ->under holds (libext2fs's flush rewrites every group descriptor block
 * and loaded bitmap), counting them in *@nunchanged, and sort the rest by
 * fs block; lookups end (no more writes may be held).  Returns 0 or the
 * errors of reading ->under (then the blocks not yet compared are kept).
 */
errcode_t e4_capture_drop_unchanged(struct e4_capture *cap,
				    uint64_t *nunchanged);

/* e4_capture_free() - release @cap, its channel and held blocks (NULL is
 * fine); put the real channel back first. */
void e4_capture_free(struct e4_capture *cap);

/* ---- stamp.c: the stale-data stamp ------------------------------------- */

/*
 * A stamped device holds in every 1024-byte unit: bytes 0-7 "E4JSTALE",
 * bytes 8-15 the unit index (byte offset / 1024) as little-endian u64,
 * bytes 16-1023 0xA5.  A unit is stale when its first 16 bytes are its own
 * stamp; a block is stale when any of its units is (e4tools issue 4).
 */
#define E4_STAMP_UNIT	1024	/* bytes */
#define E4_STAMP_FILL	0xA5

/* e4_stamp_unit() - write the stamp of unit @unit (1024 bytes) to @unit_buf. */
void e4_stamp_unit(void *unit_buf, uint64_t unit);

/*
 * e4_stamp_fill() - fill @len bytes at @buf with the stamp the device holds
 * at byte offset @byte_offset (any alignment; whole units fast).
 */
void e4_stamp_fill(void *buf, uint64_t byte_offset, size_t len);

/* e4_stamp_unit_is_stale() - 1 if the 16 first bytes at @unit_buf are the
 * stamp of unit @unit, else 0. */
int e4_stamp_unit_is_stale(const void *unit_buf, uint64_t unit);

/*
 * e4_stamp_count_stale() - number of stale units among the units whose
 * first 16 bytes lie in the @len bytes at @buf, which the device holds at
 * byte offset @byte_offset.  Returns the count.
 */
size_t e4_stamp_count_stale(const void *buf, uint64_t byte_offset,
			    size_t len);

/* e4_stamp_units() - how many units e4_stamp_count_stale() examines for
 * the same range: the denominator of "stale units / units". */
size_t e4_stamp_units(uint64_t byte_offset, size_t len);

/* e4_stamp_block_stale() - stale units in fs block @blk (@blocksize bytes
 * at @buf); the block is stale when this is nonzero. */
size_t e4_stamp_block_stale(const void *buf, blk64_t blk,
			    unsigned int blocksize);

/* e4_block_is_zero() - 1 if the @len bytes at @buf are all zero. */
int e4_block_is_zero(const void *buf, size_t len);

/* ---- overlay_io.c: a read-only io_manager serving a replayed state ----- */

/*
 * An overlay is a read-only io_channel stacked on a backing channel it is
 * given (fs->io of the open image, a mem_io channel, a write-log device):
 * the fs blocks in the map of a state (struct e4_state, plan.c) are served
 * from their copies on a source channel (the journal's, j->io; unescaped),
 * every other byte from the backing channel; writes fail with
 * E4_ERR_READ_ONLY.  ext2fs_open2() on it reads state S_k.  It opens no
 * path and knows no other io_manager; the backing and source channels are
 * not owned and keep their own block size.
 *
 * Passing the overlay to the io_manager: libext2fs opens channels by name,
 * so e4_overlay_name() returns "e4overlay:0x<address>" (the overlay's own
 * address, checked against a magic number on open).  No global registry
 * is kept; the overlay must outlive every channel opened on it.
 */
struct e4_overlay;
typedef struct e4_overlay *e4_overlay_t;

/* The overlay io_manager ("e4overlay"); read-only. */
extern io_manager e4_overlay_io_manager;

/*
 * e4_overlay_create() - a new overlay on @backing serving the map of @st
 * (NULL: no copies, the backing channel as it is) with copies read from
 * @src; @blocksize (bytes, the fs block size) is the unit of the map's
 * fsblk and src_blk.  @nblocks (fs blocks; 0: unknown) is the size of the
 * image: a failed read inside it, or of a copy, is an io error that
 * e4_overlay_error() keeps; one reaching past it follows a pointer of the
 * state's contents and is only returned.  @st is read at every read, not
 * copied: advancing it (e4_state_advance()) changes what the overlay
 * serves.  Nothing is opened or read.  Returns 0, EXT2_ET_NO_MEMORY or
 * EXT2_ET_INVALID_ARGUMENT (no @backing, copies without @src, @blocksize
 * not a power of two >= 1024).
 */
errcode_t e4_overlay_create(io_channel backing, io_channel src,
			    unsigned int blocksize, blk64_t nblocks,
			    const struct e4_state *st, e4_overlay_t *ret);

/*
 * e4_overlay_error() - the first error a read of the backing channel
 * inside the image, or of the source channel, returned through any channel
 * of @ov (0: none).  libext2fs turns many such errors into other ones or
 * skips what it could not read; a caller that must not present a partial
 * result as complete checks this.  Returns the errcode.
 */
errcode_t e4_overlay_error(e4_overlay_t ov);

/* e4_overlay_name() - the device name to give ext2fs_open2() together
 * with e4_overlay_io_manager. */
const char *e4_overlay_name(e4_overlay_t ov);

/*
 * e4_overlay_open_fs() - ext2fs_open2() of the overlay's state, read-only,
 * with EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS | @flags (mixed
 * states fail bitmap and group descriptor checksums).  Returns
 * ext2fs_open2()'s error.
 */
errcode_t e4_overlay_open_fs(e4_overlay_t ov, int flags, ext2_filsys *ret);

/* e4_overlay_free() - release @ov (NULL is fine); close its channels first. */
void e4_overlay_free(e4_overlay_t ov);

/*
 * e4_chan_pread() - read @len bytes at byte offset @off of @io into @buf
 * whatever the channel's block size: aligned reads go straight to
 * io_channel_read_blk64() (a negative count for a partial block), others
 * through a bounce buffer of the blocks around them.  Returns 0,
 * EXT2_ET_INVALID_ARGUMENT (a range over 2 GiB), EXT2_ET_NO_MEMORY or the
 * channel's errors.
 */
errcode_t e4_chan_pread(io_channel io, uint64_t off, uint64_t len,
			void *buf);

/* ---- order.c: alloc-on-commit ordering check of a crash image ---------- */

/* Data journaling modes (--data-mode); ext4's data= mount option. */
enum e4_data_mode {
	E4_DATA_AUTO = 0,	/* s_default_mount_opts, else inferred */
	E4_DATA_ORDERED,
	E4_DATA_JOURNAL,
	E4_DATA_WRITEBACK,
};

/* Where the resolved data mode came from. */
enum e4_data_mode_src {
	E4_DMSRC_GIVEN = 0,	/* the caller's opts->data_mode */
	E4_DMSRC_DEFAULT_OPTS,	/* s_default_mount_opts (EXT4_DEFM_JMODE) */
	E4_DMSRC_INFERRED,	/* regular-file data blocks were journaled */
	E4_DMSRC_ASSUMED,	/* nothing says otherwise: ordered */
};

/* Kinds of findings.  The first ones are violations, the last notes. */
enum e4_order_kind {
	E4_ORD_STALE = 0,	/* stale data exposed by tid */
	E4_ORD_OUTSIDE_FS,	/* new mapping outside the fs */
	E4_ORD_INTO_METADATA,	/* new mapping into sb/gdt/bitmaps/itable/
				 * journal */
	E4_ORD_DOUBLE_MAPPED,	/* pblk mapped twice */
	E4_ORD_FREE_IN_BITMAP,	/* new mapping free in S_k's block bitmap */
	E4_ORD_DATA_JOURNALED,	/* regular-file data block journaled in
				 * ordered/writeback mode */
	E4_ORD_STALE_OUTSIDE,	/* stale block outside the journal window */
	E4_ORD_STALE_METADATA,	/* a new directory or symlink block of S_k
				 * that no logged copy supplies carries the
				 * stamp (structural); after the window:
				 * one of S_n, the replayed fs is corrupt */
	E4_ORD_NOTE_FIRST,
	E4_ORD_UNVERIFIED = E4_ORD_NOTE_FIRST,	/* no stamp: not verified */
	E4_ORD_SUSPECT_ZERO,	/* no stamp, block all zero: suspect */
	E4_ORD_MAPPING,		/* listing only (opts->list_mappings): a new
				 * initialized mapping, whatever its data */
	E4_ORD_STALE_PERMITTED,	/* stale data exposed by tid, with the
				 * caller's explicit data=writeback, which
				 * promises no data ordering: a note */
	E4_ORD_INODE_REUSED,	/* Tk changed the inode's i_generation: a
				 * new file (old_gen/old_path -> new) */
	E4_ORD_NOT_JUDGED,	/* the data block's content is supplied by
				 * a transaction after the checked ones
				 * (--upto): not judged */
	E4_ORD_STALE_OUTSIDE_PERMITTED,	/* E4_ORD_STALE_OUTSIDE with the
				 * caller's explicit data=writeback: a note
				 * (last: the values before it are kept) */
	E4_ORD_NKINDS,
};

/* Evidence about a mapping's data. */
enum e4_order_evidence {
	E4_EVID_NONE = 0,	/* nothing checked (structural finding) */
	E4_EVID_IMAGE,		/* the image's block was read */
	E4_EVID_JOURNAL,	/* the journaled copy (replay writes it) */
};

/* One finding: a run of @len blocks (lblk.., pblk..) of inode @ino. */
struct e4_order_finding {
	int		kind;		/* enum e4_order_kind */
	int		has_tid;	/* 0: outside the journal window */
	uint32_t	tid;		/* the transaction that exposed it */
	int		prior_lost;	/* "new in tid or earlier (prior
					 * state lost)": S_(k-1) read an
					 * ahead block */
	int		conversion;	/* unwritten -> written conversion */
	int		unwritten;	/* E4_ORD_MAPPING: a new unwritten
					 * mapping */
	int		metadata;	/* directory or symlink block */
	ext2_ino_t	ino;
	blk64_t		lblk;		/* fs blocks (logical) */
	blk64_t		pblk;		/* fs block */
	blk64_t		len;		/* fs blocks */
	int		evidence;	/* enum e4_order_evidence */
	uint32_t	evid_tid;	/* E4_EVID_JOURNAL: tid of the copy */
	uint64_t	stale_units;	/* 1 KiB units carrying their stamp */
	uint64_t	units;		/* 1 KiB units examined */
	ext2_ino_t	other_ino;	/* E4_ORD_DOUBLE_MAPPED: other user */
	blk64_t		other_lblk;
	uint32_t	old_gen, new_gen;	/* E4_ORD_INODE_REUSED */
	char		*old_path;	/* E4_ORD_INODE_REUSED: in S_(k-1) */
	char		*path;		/* resolved in S_k (or S_n) or NULL */
};

/* Per committed transaction Tk. */
struct e4_order_tx {
	uint32_t	tid;
	uint64_t	commit_sec;
	uint32_t	commit_nsec;
	uint64_t	jblocks;	/* block tags (journaled blocks) */
	uint64_t	revokes;	/* revoke records */
	uint64_t	touched;	/* live inodes it touches */
	uint64_t	new_alloc;	/* new initialized blocks, allocated */
	uint64_t	conversions;	/* unwritten -> written blocks */
	uint64_t	new_unwritten;	/* new unwritten blocks */
	uint64_t	prior_lost;	/* of the above three: "tid or
					 * earlier (prior state lost)" */
	uint64_t	not_judged;	/* new data blocks whose content in S_k
					 * is unknown: judged later, in the
					 * first state where it is known */
	uint64_t	reused;		/* inodes whose i_generation changed */
	uint64_t	prior_lost_alloc, prior_lost_conv,
			prior_lost_unwritten;	/* prior_lost, by kind */
	uint64_t	ahead;		/* its blocks whose image copy
					 * equals one of their journaled
					 * copies */
	uint64_t	violations;	/* findings that are violations */
	int		unreadable;	/* S_k could not be opened: skipped */
	int		fast_commit;	/* the fast commits of tid (after the
					 * last full commit): S_n -> S_fc */
};

/*
 * What e4_order_check() is asked.  The caller allocates it and readies it
 * with e4_order_opts_init(), which sets e4replay --check-order's defaults
 * (a zeroed struct is refused: its 0s are not those defaults).
 */
struct e4_order_opts {
	size_t		size;		/* bytes: sizeof() the caller was
					 * built with (e4_order_opts_init()) */
	int		data_mode;	/* enum e4_data_mode */
	int		has_upto;
	uint32_t	upto;		/* check T1..T(upto) only */
	int		outside;	/* stale check outside the window:
					 * -1 auto (stamped images), 0, 1 */
	int		stamped;	/* -1 detect, 0 no, 1 yes */
	int		list_mappings;	/* also report every new
					 * initialized mapping as an
					 * E4_ORD_MAPPING finding */
	int		image_is_s0;	/* the image is exactly the state
					 * before the window's first
					 * transaction (wlog_check.c builds
					 * it so): its home copies are S_0's,
					 * as with log_from_start */
	/* New members go here, at the end. */
};

/*
 * e4_order_opts_init() - ready the caller's @opts of @size bytes (pass
 * sizeof(*opts)) with e4replay --check-order's defaults: data_mode
 * E4_DATA_AUTO, no upto, outside -1 (auto: checked on stamped images),
 * stamped -1 (detected), list_mappings 0, image_is_s0 0, and opts->size =
 * @size.  e4_order_check() refuses opts whose size is 0 (a zeroed struct
 * never passed here: its outside and stamped would read "no" instead of
 * "auto") with E4_ERR_STRUCT_UNINIT; a program built against an older
 * e4.h (a smaller @size) gets these defaults for the members it does not
 * know; a newer one's members past this libe4's must be 0, else
 * E4_ERR_STRUCT_SIZE.  Rule: as e4_replay_result_init().
 * Returns 0, E4_ERR_STRUCT_UNINIT (@size 0) or E4_ERR_STRUCT_SIZE (@size
 * smaller than the first release's struct or above 4096 bytes); nothing
 * is written on an error.
 */
errcode_t e4_order_opts_init(struct e4_order_opts *opts, size_t size);

/*
 * Something the ordering check could not read, so its verdict says nothing
 * about it: a state S_k, an inode's mapping, an inode scan cut short.
 */
struct e4_order_unchecked {
	uint32_t	tid;		/* the transaction being checked (0:
					 * the outside-window scan of S_n) */
	uint32_t	ino;		/* the inode, or 0 */
	errcode_t	err;		/* why */
	char		what[120];	/* what was not checked */
};

struct e4_order_report {
	int		data_mode;	/* resolved enum e4_data_mode */
	int		data_mode_src;	/* enum e4_data_mode_src */
	int		stamped;	/* the image carries the stamp */
	struct e4_order_tx *tx;		/* checked transactions, log order */
	size_t		ntx;
	struct e4_order_finding *f;	/* findings, by tid then inode */
	size_t		nf;
	uint64_t	violations;	/* violation findings (runs) */
	uint64_t	violation_blocks;
	uint64_t	notes;		/* unverified / suspect findings */
	int		outside_checked;
	uint64_t	outside_blocks;	/* initialized blocks read in S_n */
	int		journal_corrupt;/* the scan met corruption */
	int		log_from_start;	/* the live log begins at the
					 * journal's first transaction (tid
					 * <= 2 at s_first): home copies are
					 * S_0's, only ahead blocks unknown */
	uint64_t	unknown_blocks;	/* blocks whose content in some S_k
					 * (k < n) the log cannot show */
	int		kernel_refuses;	/* 1: scan->fail (or the fast-commit
					 * scan's): nothing is replayed;
					 * 2: e4_plan_mount_refused(): the
					 * kernel replays, then refuses to
					 * mount */
	uint32_t	last_tid;	/* tid of the last checked state */
	int		upto;		/* last_tid is --upto's, not S_n */
	uint32_t	fc_blocks;	/* fast-commit blocks not checked
					 * (0: fast commits are checked) */
	char		warnings[8][160];
	int		nwarnings;
	/* Fail closed: what could not be read.  A report with nunchecked
	 * != 0 or error != 0 is partial, never a verdict. */
	struct e4_order_unchecked *unchecked;
	size_t		nunchecked;
	errcode_t	error;		/* the check stopped on it: tx[] holds
					 * the transactions checked before */
};

/*
 * e4_order_check() - check alloc-on-commit ordering on the crash image
 * open as @fs (read-only is enough) whose journal was scanned and planned
 * into @plan (e4_plan_build() of plan->j and plan->scan: the tag fates are
 * already set there, as replay gives them).  For each committed
 * transaction Tk (up to opts->upto) it opens S_k and S_(k-1) through two
 * overlays stacked on fs->io (e4_state_seek(), overlay_io.c; no path is
 * opened, every read of every state goes through fs->io and j->io), finds
 * the inodes Tk touches (inode-table blocks, extent-tree and indirect
 * blocks it journals), diffs their mappings, checks the data of every new
 * initialized block against the stale-data stamp (or the journaled copy
 * when replay writes the block), and runs the structural checks of
 * e4tools issue 4.  Memory is bounded by the touched inodes and the
 * findings.  Nothing is written.  On success *@ret is the report
 * (e4_order_report_free()).  Fail closed: every state, inode mapping or
 * inode scan it could not read is listed in rep->unchecked (the check
 * goes on with the rest); a read error of the channel below the states
 * stops it, and then *@ret is the partial report too (rep->error, tx[]
 * the transactions fully checked before), with the error returned.
 * @opts is the caller's, readied by e4_order_opts_init() (the members its
 * size leaves out take e4_order_opts_init()'s defaults).
 * Returns 0, E4_ERR_STRUCT_UNINIT / E4_ERR_STRUCT_SIZE (@opts not readied
 * by e4_order_opts_init(), or a newer caller's member this libe4 does not
 * know set: nothing read, *@ret NULL), E4_ERR_UPTO_NOT_FOUND (opts->upto
 * is no committed tid),
 * E4_ERR_BIGALLOC, EXT2_ET_NO_MEMORY, or libext2fs/io errors met on the
 * image itself (a replayed state that cannot be opened is recorded as a
 * warning and its transaction marked unreadable instead).
 * Rules: stamp evidence, structural checks and data mode as in e4tools
 * issue 4; unknown content (blocks logged later and in none of T1..Tk:
 * ahead or behind, jbd2's dropped checkpoints), "prior state lost"
 * attribution, metadata blocks, (ino, i_generation) identity and deferred
 * data judgement as in issue 13 (see e4replay(8)); unwritten extents
 * per fs/ext4/extents.c (EXT_INIT_MAX_LEN); S_k per plan.c.
 */
errcode_t e4_order_check(ext2_filsys fs, const struct e4_plan *plan,
			 const struct e4_order_opts *opts,
			 struct e4_order_report **ret);

/* e4_order_report_free() - release @rep (NULL is fine). */
void e4_order_report_free(struct e4_order_report *rep);

/* e4_order_kind_name() - short name of a finding kind ("stale", ...). */
const char *e4_order_kind_name(int kind);

/* e4_data_mode_name() - "auto", "ordered", "journal" or "writeback". */
const char *e4_data_mode_name(int mode);
/* ---- block_owner.c: may a file's extents be written through? -------- */

/* A run of fs blocks a write targets: @len blocks at @pblk, mapped at
 * logical block @lblk of the file written (with E4_OWN_ITABLE: unused). */
struct e4_block_run {
	blk64_t	lblk;
	blk64_t	pblk;
	blk64_t	len;
};

/* Why e4_block_owner_check() refused: the first block and its owner. */
struct e4_block_conflict {
	blk64_t		blk;		/* the block refused */
	ext2_ino_t	owner;		/* the inode owning it, or 0 */
	char		desc[128];	/* its owner in words: "the inode
					 * table of group 0 (its block 3)",
					 * "data of inode 13 (lblk 4)" */
};

/* Flags for e4_block_owner_check(). */
#define E4_OWN_ITABLE	0x1	/* the runs lie in inode tables (lazy init
				 * zeroing): tables are not refused as
				 * metadata, but must not overlap */

/*
 * e4_block_owner_check() - the rule for any write through a file's
 * extents, checked before its first byte: every block of @runs (@nruns
 * runs of file @ino; @ino 0 with E4_OWN_ITABLE) lies inside the fs
 * (s_first_data_block .. blocks_count - 1), is no fs metadata
 * (superblocks and group descriptors with backups and meta_bg copies,
 * reserved GDT blocks, bitmaps, inode tables) and is mapped by @ino
 * alone at that logical block: no in-use inode (the journal's, the other
 * reserved inodes', any file's) maps it as data, extent tree, indirect or
 * xattr block, nor does @ino at another lblk.  The owners come from an
 * inode scan and each in-use inode's extent tree or block map (libext2fs).
 * Returns 0; E4_ERR_BLOCK_OUTSIDE_FS, E4_ERR_BLOCK_METADATA,
 * E4_ERR_BLOCK_SHARED or E4_ERR_BLOCK_OWNER_UNKNOWN (an in-use inode's
 * block map does not read) with @c (may be NULL) naming the first block
 * and its owner; or a libext2fs error.  Reads only.
 */
errcode_t e4_block_owner_check(ext2_filsys fs, ext2_ino_t ino,
			       const struct e4_block_run *runs, size_t nruns,
			       int flags, struct e4_block_conflict *c);

/* ---- itable.c: lazy inode table initialisation (ITABLE_ZEROED) -------- */

/*
 * Everything these functions do is meaningful only on a file system with
 * group descriptor checksums (uninit_bg, i.e. gdt_csum, or metadata_csum):
 * without them the kernel never skips inode table zeroing, mke2fs always
 * zeroes, and bg_flags/bg_itable_unused are not trusted.
 * ext2fs_has_group_desc_csum() tells; e4_itable_summary() reports it.
 */

/* The inode table state of one block group (from its group descriptor). */
struct e4_itable_group {
	dgrp_t		group;
	uint16_t	flags;		/* bg_flags: EXT2_BG_INODE_UNINIT,
					 * EXT2_BG_BLOCK_UNINIT,
					 * EXT2_BG_INODE_ZEROED */
	uint32_t	itable_unused;	/* bg_itable_unused, inodes */
	blk64_t		itable;		/* fs block of the inode table */
	blk64_t		itable_blocks;	/* fs blocks (s_itb_per_group) */
	blk64_t		used_blocks;	/* fs blocks the kernel keeps: those
					 * that may hold in-use inodes */
	blk64_t		zero_start;	/* fs block: itable + used_blocks */
	blk64_t		to_zero;	/* fs blocks still to zero; 0 with
					 * ITABLE_ZEROED or without group
					 * descriptor checksums */
	int		csum_ok;	/* group descriptor checksum verifies
					 * (ext2fs_group_desc_csum_verify) */
	int		valid;		/* itable_unused <= inodes_per_group
					 * and the table lies in the fs */
};

/* The whole file system's lazy-init state. */
struct e4_itable_summary {
	int		applicable;	/* uninit_bg or metadata_csum */
	dgrp_t		groups;		/* block groups */
	dgrp_t		zeroed;		/* groups with ITABLE_ZEROED */
	dgrp_t		inode_uninit;	/* groups with INODE_UNINIT */
	dgrp_t		block_uninit;	/* groups with BLOCK_UNINIT */
	dgrp_t		to_zero_groups;	/* groups still to zero (0 when not
					 * applicable) */
	blk64_t		to_zero_blocks;	/* fs blocks still to zero */
	dgrp_t		bad_csum;	/* groups whose checksum fails */
	dgrp_t		first_bad_csum;	/* first such group, or (dgrp_t)-1 */
	dgrp_t		bad_desc;	/* groups that are not ->valid */
	dgrp_t		first_bad_desc;	/* first such group, or (dgrp_t)-1 */
};

/* What e4_itable_finish() / e4_itable_unzero() did (or would do). */
struct e4_itable_result {
	dgrp_t		groups;		/* groups changed */
	blk64_t		blocks;		/* fs blocks zeroed (or garbaged) */
	blk64_t		runs;		/* contiguous runs issued */
	const char	*method;	/* "punch", "zeroout", "write",
					 * "garbage" or "flags" */
	struct e4_block_conflict conflict;	/* E4_ERR_BLOCK_*: the block
						 * refused and its owner */
};

/* Flags for e4_itable_finish() and e4_itable_unzero(). */
#define E4_ITABLE_FORCE		0x1	/* even if the journal needs
					 * recovery (bg_itable_unused may be
					 * stale) */
#define E4_ITABLE_DRY_RUN	0x2	/* compute the result, write nothing */
#define E4_ITABLE_GARBAGE	0x4	/* unzero: fill the unused part of
					 * the table with non-zero bytes */
#define E4_ITABLE_WRITE_ZEROES	0x8	/* finish: write zero blocks instead
					 * of punching / zeroout */

/*
 * e4_itable_group() - the inode table state of group @g into @ig.
 * ->used_blocks follows the kernel's ext4_init_inode_table()
 * (fs/ext4/ialloc.c): 0 when INODE_UNINIT is set, else
 * DIV_ROUND_UP(inodes_per_group - bg_itable_unused, inodes_per_block)
 * fs blocks (capped at the table length); the kernel zeroes the rest.
 * Fills all of @ig (zeroed when @g is out of range).
 * Returns 0 or EXT2_ET_INVALID_ARGUMENT when @g is out of range.
 */
errcode_t e4_itable_group(ext2_filsys fs, dgrp_t g,
			  struct e4_itable_group *ig);

/*
 * e4_itable_summary() - counts over every group (see struct
 * e4_itable_summary): groups and fs blocks still to zero, checksum
 * failures.  Reads only the in-memory group descriptors.  Returns 0.
 */
errcode_t e4_itable_summary(ext2_filsys fs, struct e4_itable_summary *s);

/*
 * e4_itable_finish() - do offline what the kernel's ext4lazyinit thread
 * does (ext4_init_inode_table(), fs/ext4/ialloc.c): for every group
 * without ITABLE_ZEROED zero fs blocks [zero_start, itable + itable_blocks)
 * of its inode table, then set ITABLE_ZEROED and the group descriptor
 * checksum (ext2fs_group_desc_csum_set) and mark the superblock dirty;
 * ext2fs_close() writes the descriptors.  Adjacent ranges (flex_bg) are
 * merged into runs.  On a regular file the zeroing is
 * io_channel_discard(), which unix_io implements as
 * fallocate(PUNCH_HOLE|KEEP_SIZE) (reads give zeroes, no space used) and
 * undo_io records in its undo file first; on a block device it is
 * io_channel_zeroout() (libext2fs 1.47: fallocate(ZERO_RANGE) on the
 * device, which the kernel's blkdev_fallocate() turns into
 * blkdev_issue_zeroout(), as BLKZEROOUT does); either falls back to
 * writing zero blocks when unsupported.  Shows libext2fs's numeric
 * progress when fs->flags has EXT2_FLAG_PRINT_PROGRESS.  Nothing is
 * written unless every group descriptor verifies.  @fs must be open
 * read-write unless E4_ITABLE_DRY_RUN.  *@bad_group (if not NULL) names
 * the offending group on E4_ERR_GDT_CSUM / E4_ERR_BAD_GROUP_DESC.
 * Before anything is written (and in a dry run) the runs to zero pass
 * e4_block_owner_check() with E4_OWN_ITABLE: no inode maps them, they are
 * no other metadata, no two inode tables overlap.
 * Returns 0, E4_ERR_NO_UNINIT_BG, E4_ERR_NEEDS_RECOVERY (unless
 * E4_ITABLE_FORCE), E4_ERR_GDT_CSUM, E4_ERR_BAD_GROUP_DESC, the
 * E4_ERR_BLOCK_* refusals of e4_block_owner_check() (@res->conflict names
 * the block), EXT2_ET_RO_FILSYS, or io errors.
 */
errcode_t e4_itable_finish(ext2_filsys fs, int flags, dgrp_t *bad_group,
			   struct e4_itable_result *res);

/*
 * e4_itable_unzero() - undo lazy init, for tests: clear ITABLE_ZEROED
 * (and set the group descriptor checksum) on the groups whose byte in
 * @sel is nonzero (@sel has fs->group_desc_count bytes; NULL = every
 * group).  With E4_ITABLE_GARBAGE also fill the part of their inode
 * tables the kernel would zero ([zero_start, itable + itable_blocks))
 * with non-zero bytes ("E4LAZYGB" and the block number, every 16 bytes),
 * written through fs->io.  Same checks and returns as e4_itable_finish().
 */
errcode_t e4_itable_unzero(ext2_filsys fs, const unsigned char *sel,
			   int flags, dgrp_t *bad_group,
			   struct e4_itable_result *res);
/* ---- inode.c: reading inodes, the file system's own inodes ----------- */

/*
 * e4_read_inode() - read inode @ino into @inode (@bufsize bytes, as
 * ext2fs_read_inode_full()) after checking what libext2fs 1.47.0 does not:
 * its ext2fs_read_inode2() range-checks the inode table with an addition
 * that wraps, so a group descriptor with the table at ~0 (or past the fs
 * end) passes and the inode is copied from an inode-cache buffer that was
 * never read (found by fuzz_image and fuzz_unwritten under valgrind).
 * Here the group's inode table must lie inside the fs.  All @bufsize
 * bytes of @inode are zeroed first: E4_ERR_BAD_INODE_NUMBER and
 * E4_ERR_BAD_GROUP_DESC leave them zero, ext2fs_read_inode_full() what it
 * read (the inode itself with EXT2_ET_INODE_CSUM_INVALID).
 * Returns 0, E4_ERR_BAD_INODE_NUMBER, E4_ERR_BAD_GROUP_DESC, or the errors
 * of ext2fs_read_inode_full().
 */
errcode_t e4_read_inode(ext2_filsys fs, ext2_ino_t ino,
			struct ext2_inode *inode, int bufsize);

/* What an inode number is to the file system (e4_inode_kind()). */
enum e4_inode_kind {
	E4_INO_NONE = 0,	/* 0 or past s_inodes_count */
	E4_INO_FILE,		/* an ordinary file or directory: at or past
				 * s_first_ino and named by no superblock
				 * field */
	E4_INO_ROOT,		/* the root directory (EXT2_ROOT_INO) */
	E4_INO_JOURNAL,		/* s_journal_inum */
	E4_INO_QUOTA,		/* s_usr_quota_inum, s_grp_quota_inum or
				 * s_prj_quota_inum */
	E4_INO_ORPHAN,		/* s_orphan_file_inum */
	E4_INO_RESERVED,	/* any other inode below s_first_ino, and
				 * bad blocks (1) and resize (7) whatever
				 * s_first_ino says */
};

/*
 * e4_inode_kind() - the one definition of the file system's own inodes:
 * the enum e4_inode_kind of @ino in @fs, by the superblock fields that
 * name them (fs/ext4/ext4.h: s_journal_inum, s_*_quota_inum,
 * s_orphan_file_inum, s_first_ino; EXT2_FIRST_INO() for rev 0), checked
 * in the order of the enum after E4_INO_NONE.  The kernel reads and writes
 * the journal, quota and orphan files itself (through the journal as
 * metadata); only E4_INO_FILE inodes hold user data.  Returns the kind.
 */
int e4_inode_kind(ext2_filsys fs, ext2_ino_t ino);

/* ---- unwritten.c: list and convert unwritten extents ------------------- */

/*
 * One leaf extent of an inode, as e4_inode_extents()/e4_fs_extents() report
 * it.  On-disk rule (kernel fs/ext4/ext4_extents.h): ee_len > 32768 means
 * unwritten with length ee_len - 32768; libext2fs decodes it into
 * EXT2_EXTENT_FLAGS_UNINIT.  An unwritten extent reads as zeros.
 */
struct e4_extent_rec {
	ext2_ino_t	ino;
	blk64_t		lblk;		/* first logical block, fs blocks */
	blk64_t		pblk;		/* first physical block, fs blocks */
	blk64_t		len;		/* fs blocks */
	int		unwritten;	/* EXT2_EXTENT_FLAGS_UNINIT set */
	int		depth;		/* depth of the inode's extent tree
					 * (0 for a block map) */
	errcode_t	error;		/* e4_fs_extents() only: nonzero when
					 * the inode's tree could not be read
					 * (then only ino is set) */
	int		block_mapped;	/* E4_EXT_BLOCK_MAPPED: a run of a
					 * block-mapped inode's data blocks
					 * (no EXT4_EXTENTS_FL) */
};

/* Totals of a walk, all counts (blocks in fs blocks).  Add up; zero it. */
struct e4_extent_totals {
	uint64_t	files;			/* extent inodes walked */
	uint64_t	files_unwritten;	/* ... with unwritten extents */
	uint64_t	extents;		/* leaf extents */
	uint64_t	blocks;			/* blocks they map */
	uint64_t	unwritten_extents;
	uint64_t	unwritten_blocks;
	uint64_t	bad_inodes;		/* unreadable extent trees */
};

/* Callback: return nonzero to stop the walk (E4_ERR_EXT_ABORTED). */
typedef int (*e4_extent_func)(ext2_filsys fs,
			      const struct e4_extent_rec *rec, void *priv);

/* Flags of e4_inode_extents() and e4_fs_extents(). */
#define E4_EXT_UNWRITTEN_ONLY	0x1	/* call @func for unwritten ones only
					 * (totals still count every one) */
#define E4_EXT_BLOCK_MAPPED	0x2	/* e4_fs_extents(): block-mapped
					 * inodes too (ignored with
					 * E4_EXT_UNWRITTEN_ONLY) */

/*
 * e4_inode_extents() - call @func for each leaf extent of inode @ino, in
 * lblk order (ext2fs_extent_get() EXT2_EXTENT_NEXT walk; index nodes are
 * not reported), and add to *@totals when it is not NULL.  Directories
 * and other extent inodes are walked like regular files.
 * Returns 0, E4_ERR_BAD_INODE_NUMBER (0 or > s_inodes_count),
 * E4_ERR_INLINE_DATA, E4_ERR_NOT_EXTENT_INODE (block-mapped inode),
 * E4_ERR_EXT_ABORTED (the callback stopped it), or libext2fs errors such as
 * EXT2_ET_EXTENT_HEADER_BAD and EXT2_ET_EXTENT_CSUM_INVALID.
 */
errcode_t e4_inode_extents(ext2_filsys fs, ext2_ino_t ino, int flags,
			   e4_extent_func func, void *priv,
			   struct e4_extent_totals *totals);

/*
 * e4_fs_extents() - e4_inode_extents() for every in-use inode (inode
 * bitmap) with EXT4_EXTENTS_FL and without EXT4_INLINE_DATA_FL, in inode
 * order, through one ext2fs inode scan (unused inode-table tails of
 * uninit_bg/metadata_csum groups are skipped, as e2fsck does).  An inode
 * whose tree cannot be read does not stop the walk: @func gets a record
 * with only ino and error set, and totals->bad_inodes counts it.  Reads
 * the inode bitmap if fs->inode_map is not loaded.  With
 * E4_EXT_BLOCK_MAPPED, in-use inodes without EXT4_EXTENTS_FL (ext4
 * without the extent feature, files from ext2/ext3) are walked too: their
 * data blocks through ext2fs_block_iterate3() (indirect blocks are
 * metadata, not reported), one record per logically and physically
 * contiguous run, initialized (a block map has no unwritten state),
 * block_mapped set; they count in totals as files and extents; an
 * unreadable indirect block is an error record as a bad extent tree.
 * Returns 0, E4_ERR_EXT_ABORTED, or libext2fs errors of the scan.
 */
errcode_t e4_fs_extents(ext2_filsys fs, int flags, e4_extent_func func,
			void *priv, struct e4_extent_totals *totals);

/* Flags of e4_mark_range(); exactly one of the first two. */
#define E4_MARK_UNWRITTEN	0x01	/* make the range unwritten */
#define E4_MARK_WRITTEN		0x02	/* make it written (initialized) */
#define E4_MARK_KEEP_CONTENTS	0x04	/* written: do NOT zero the blocks
					 * first; exposes what they hold */
#define E4_MARK_SKIP_HOLES	0x08	/* holes in the range are skipped,
					 * not an error */
#define E4_MARK_DRY_RUN		0x10	/* validate and count; write nothing */

/* What e4_mark_range() changed (or, with E4_MARK_DRY_RUN, would change). */
struct e4_mark_result {
	uint64_t	extents_changed;	/* extents whose flag changes in
						 * part or whole */
	uint64_t	blocks_changed;		/* blocks whose flag changes */
	uint64_t	unchanged_blocks;	/* already in that state */
	uint64_t	hole_blocks;		/* holes (E4_MARK_SKIP_HOLES) */
	uint64_t	blocks_zeroed;		/* fs blocks zeroed */
	uint64_t	merges;			/* neighbour merges done (not
						 * known for a dry run) */
	int		journaled;		/* written through the journal
						 * as one transaction */
	struct e4_txn_result txn;		/* that transaction */
	struct e4_block_conflict conflict;	/* E4_ERR_BLOCK_*: the block
						 * refused and its owner */
};

/*
 * e4_mark_range() - mark logical blocks [@lblk, @lblk + @len) (fs blocks)
 * of regular file @ino unwritten or written.  Leaf extents are split at
 * the range edges; converted parts are cut to the kernel's maximum
 * lengths (ext4_extents.h: EXT_UNWRITTEN_MAX_LEN 32767 blocks unwritten,
 * EXT_INIT_MAX_LEN 32768 initialized); then neighbours in the same leaf
 * that became mergeable are merged by the rule of the kernel's
 * ext4_can_extents_be_merged() (same flag, contiguous lblk and pblk,
 * combined length within the maximum; like ext4_ext_try_to_merge() it
 * does not merge across leaves).  libext2fs's extent API
 * (ext2fs_extent_replace/insert/delete/fix_parents) keeps the tree valid
 * at any depth, splitting full nodes (which allocates blocks: the block
 * bitmap is read if needed) and setting extent block and inode checksums.
 * E4_MARK_WRITTEN zeroes the converted blocks first (io_channel_zeroout,
 * else plain writes) and flushes, unless E4_MARK_KEEP_CONTENTS.
 * Validation reads every extent before anything is written: on any error
 * but an io or allocation failure in the final pass, nothing was written.
 * With @j (the journal of @fs opened with E4_JOURNAL_RW, log empty) the
 * metadata changes (inode, extent blocks, and the bitmap, group
 * descriptors and primary superblock for blocks a node split allocates)
 * are written as one transaction through it (e4_txn_begin(),
 * e4_txn_commit()): after an interruption at any point the fs, once its
 * journal is recovered, holds either the old extents or all of the new
 * ones; the zeroing before cannot be seen (those blocks were unwritten).
 * With @j NULL (no journal) they are written in place as libext2fs makes
 * them, and an interruption can leave the file with blocks unmapped.
 * Returns 0, E4_ERR_BAD_INODE_NUMBER, E4_ERR_RESERVED_INODE (@ino not
 * E4_INO_FILE by e4_inode_kind(): below s_first_ino, or named by
 * s_journal_inum, s_usr/grp/prj_quota_inum or
 * s_orphan_file_inum: the kernel reads those blocks itself, e.g. jbd2
 * would find no journal superblock; listing them is allowed),
 * E4_ERR_NOT_REGULAR,
 * E4_ERR_INLINE_DATA, E4_ERR_NOT_EXTENT_INODE, E4_ERR_BIGALLOC (bigalloc
 * is not supported: an extent maps clusters there), E4_ERR_RANGE (@len 0,
 * or past logical block 2^32 - 1), E4_ERR_PAST_EOF (the range goes past
 * the end of the file: i_size rounded up to a block, or, marking
 * unwritten, the end of the last extent if that is further (fallocate
 * KEEP_SIZE); initialized blocks past i_size are what e2fsck's pass 1
 * rejects); unmapped blocks before that end are holes:
 * E4_ERR_HOLE_IN_RANGE (a hole in the range without E4_MARK_SKIP_HOLES),
 * E4_ERR_BLOCK_OUTSIDE_FS, E4_ERR_BLOCK_METADATA, E4_ERR_BLOCK_SHARED,
 * E4_ERR_BLOCK_OWNER_UNKNOWN (e4_block_owner_check() on every block
 * whose state changes, before the first write and in a dry run too:
 * @res->conflict names the block and its owner),
 * EXT2_ET_RO_FILSYS (a change is needed on a read-only fs), the errors of
 * e4_txn_begin() and e4_txn_commit(), libext2fs and io errors.  *@res (if
 * not NULL) says what changed.
 */
errcode_t e4_mark_range(ext2_filsys fs, e4_journal_t j, ext2_ino_t ino,
			blk64_t lblk, blk64_t len, int flags,
			struct e4_mark_result *res);

/* ---- replayed.c: the replayed state of an image, read-only ------------ */

/* An open replayed state (e4_replayed_open()); every member owned. */
struct e4_replayed {
	e4_journal_t		j;	/* NULL when the fs has no journal */
	struct e4_jscan		*scan;
	struct e4_plan		*plan;
	struct e4_state		st;	/* S_n of plan */
	e4_overlay_t		ov;
	ext2_filsys		fs;	/* the replayed state, read-only */
	io_channel		ovl_io;	/* fast commits: the overlay channel
					 * under fcst */
	struct e4_fc_state	*fcst;	/* fast commits replayed on S_n (then
					 * fs is fcst->fs) */
};

/*
 * e4_replayed_open() - open state S_n of the open file system @fs
 * (@journal_dev the external journal or NULL): the image with every
 * committed transaction of the journal replayed, as the kernel's recovery
 * would write it (fs/jbd2/recovery.c: PASS_SCAN, PASS_REVOKE, PASS_REPLAY;
 * e4_journal_scan(), e4_plan_build(), e4_state_seek()), served by an
 * overlay stacked on fs->io, so nothing is written and nothing is opened
 * by path but an external journal.  Only block contents are
 * replayed: the superblock still says needs_recovery unless a journaled
 * copy of it says otherwise.  A fs without a journal and not needing
 * recovery opens as itself.  r->fs is read-only (checksum errors ignored,
 * e4_overlay_open_fs()); @fs must stay open until e4_replayed_close().
 * Fast commits of the tid after the last full commit are replayed on top
 * in memory (e4_fc_state_open() over the overlay: the kernel replays them
 * right after the full commits), and r->fs is that state.
 * Returns 0, the errors of e4_journal_open(), the scan's fail code (a
 * journal the kernel would refuse; also the fast-commit scan's and
 * replay's, E4_ERR_FC_*), EXT2_ET_NO_MEMORY,
 * EXT2_ET_CORRUPT_SUPERBLOCK and ext2fs_open2() errors.
 */
errcode_t e4_replayed_open(ext2_filsys fs, const char *journal_dev,
			   struct e4_replayed *r);

/*
 * e4_replayed_open_io() - e4_replayed_open() with the external journal
 * device opened through @io on @io_name, as e4_journal_open_io() (@io
 * NULL: e4_replayed_open()).  Same returns.
 */
errcode_t e4_replayed_open_io(ext2_filsys fs, const char *journal_dev,
			      io_manager io, const char *io_name,
			      struct e4_replayed *r);

/* e4_replayed_close() - release what e4_replayed_open() opened (a zeroed
 * or closed @r is fine). */
void e4_replayed_close(struct e4_replayed *r);

/* ---- cow_io.c: a copy-on-write io_manager stacked on a channel --------- */

/*
 * A copy-on-write layer over the open channel @lower (not owned; it must
 * outlive every channel opened on the layer): reads come from @lower
 * unless the block was written, writes go to memory only, in units of
 * @unit bytes (the fs block size; a partial write copies the unit from
 * @lower first).  @lower is never written.  Open it with
 * ext2fs_open2(e4_cow_name(c), ..., e4_cow_io_manager), read-write if
 * wanted.
 */
struct e4_cow;

extern io_manager e4_cow_io_manager;

/* e4_cow_create() - a new layer over @lower.  Returns 0,
 * EXT2_ET_INVALID_ARGUMENT (no channel, @unit not a power of two >= 1024)
 * or EXT2_ET_NO_MEMORY. */
errcode_t e4_cow_create(io_channel lower, unsigned int unit,
			struct e4_cow **ret);
/* e4_cow_name() - "e4cow:0x<address>", the device name for ext2fs_open2. */
const char *e4_cow_name(const struct e4_cow *c);
/* e4_cow_count() - units written so far. */
size_t e4_cow_count(const struct e4_cow *c);
/* e4_cow_block() - the @i-th unit written (first-write order): its number
 * (in @unit bytes) in *@blk and its current contents; NULL past the end. */
const void *e4_cow_block(const struct e4_cow *c, size_t i, blk64_t *blk);
/* e4_cow_detach() - forget the lower channel (it may be closed now): the
 * written units stay readable by e4_cow_block(); a channel's read of any
 * other unit then fails with EXT2_ET_OP_NOT_SUPPORTED. */
void e4_cow_detach(struct e4_cow *c);
/* e4_cow_free() - release @c (NULL is fine); close its channels first. */
void e4_cow_free(struct e4_cow *c);

/* ---- fc.c: the fast-commit area, as the kernel scans it ---------------- */

/*
 * Why the fast-commit scan stopped: the kernel's ext4_fc_replay_scan()
 * (fs/ext4/fast_commit.c) called block by block by fc_do_one_pass()
 * (fs/jbd2/recovery.c).  The *_FAIL ones make the kernel's whole journal
 * recovery fail (e4_fcscan.fail is set); the others end the fast commits
 * quietly.
 */
enum e4_fc_stop {
	E4_FC_STOP_NONE = 0,	/* not scanned (no fast commits to look at) */
	E4_FC_STOP_NO_HEAD,	/* the area's first tag is not HEAD */
	E4_FC_STOP_HEAD_TID,	/* a HEAD of another tid (older commits) */
	E4_FC_STOP_BAD_TAG,	/* unknown tag or invalid length, after a
				 * valid fast commit */
	E4_FC_STOP_TAIL_TID,	/* a TAIL of another tid, after one */
	E4_FC_STOP_TAIL_CRC,	/* a TAIL whose crc fails, after one */
	E4_FC_STOP_NOT_LAST,	/* e4tools: --upto is not the last full
				 * commit, so no fast commit applies */
	E4_FC_FAIL_FIRST = 16,
	E4_FC_FAIL_BAD_TAG = E4_FC_FAIL_FIRST,	/* before any valid fast
				 * commit: -ECANCELED */
	E4_FC_FAIL_TAIL,	/* first TAIL bad: -EFSBADCRC */
	E4_FC_FAIL_FEATURES,	/* HEAD with unknown features: -EOPNOTSUPP */
	E4_FC_FAIL_AREA_END,	/* ran to the journal's end: jread()
				 * -EFSCORRUPTED */
	E4_FC_FAIL_IO,		/* a block could not be read: -EIO */
	E4_FC_FAIL_REPLAY,	/* e4_fc_replay(): the kernel's replay pass
				 * fails (ext4_fc_replay_inode: -EFSCORRUPTED) */
};

/* What e4_fc_replay() did with a tag (e4_fc_tag.fate). */
enum e4_fc_fate {
	E4_FC_NOT_REPLAYED = 0,	/* after the last valid TAIL (or no replay) */
	E4_FC_APPLIED,		/* applied */
	E4_FC_MARKER,		/* HEAD, PAD, TAIL: nothing to apply */
	E4_FC_NO_INODE,		/* skipped: ext4_iget() of the inode fails */
	E4_FC_NO_DIR,		/* skipped: ext4_iget() of the parent fails */
	E4_FC_NO_ENTRY,		/* UNLINK: no such name (-ENOENT, ignored) */
	E4_FC_OTHER_INODE,	/* UNLINK: the name is another inode's: entry
				 * kept, link count dropped (FC_REPLAY rule of
				 * __ext4_unlink) */
	E4_FC_EXISTS,		/* LINK/CREAT: the name exists (-EEXIST) */
	E4_FC_NOT_EXTENT,	/* ADD/DEL_RANGE on a block-mapped inode: the
				 * kernel's extent calls fail, nothing done */
	E4_FC_DELETED,		/* UNLINK: last link gone, inode deleted (the
				 * kernel's iput() evicts it) */
	E4_FC_GAVE_UP,		/* ADD/DEL_RANGE: an extent operation failed;
				 * the kernel's tag function returns early */
};

/* One tag of the fast-commit area (values decoded, little-endian). */
struct e4_fc_tag {
	uint16_t	tag;		/* EXT4_FC_TAG_* */
	uint16_t	len;		/* value bytes */
	blk64_t		jblk;		/* jblock holding it */
	uint32_t	off;		/* byte offset of its header in jblk */
	uint32_t	fc;		/* fast commit it belongs to, from 0 */
	const unsigned char *val;	/* value bytes (in the scan's copy) */
	ext2_ino_t	ino;		/* ADD/DEL_RANGE, INODE, dentry tags */
	ext2_ino_t	parent;		/* CREAT, LINK, UNLINK */
	const char	*name;		/* dentry tags: not NUL-terminated */
	unsigned int	namelen;
	uint32_t	lblk;		/* ADD/DEL_RANGE: fs blocks */
	uint32_t	count;		/* ADD/DEL_RANGE: fs blocks */
	blk64_t		pblk;		/* ADD_RANGE */
	int		unwritten;	/* ADD_RANGE: ee_len > 32768 */
	uint32_t	tid;		/* HEAD, TAIL */
	uint32_t	features;	/* HEAD */
	uint32_t	crc;		/* TAIL: stored */
	uint32_t	crc_calc;	/* TAIL: computed */
	int		fate;		/* enum e4_fc_fate (e4_fc_replay()) */
};

struct e4_fcscan {
	uint32_t	expected_tid;	/* end_tid of the full-commit scan */
	blk64_t		first_jblk;	/* the area: [first_jblk, end_jblk) */
	blk64_t		end_jblk;	/* (kernel j_fc_first, j_fc_last) */
	unsigned char	*blocks;	/* copies of the blocks read */
	blk64_t		nread;		/* blocks read from first_jblk */
	unsigned int	blocksize;	/* bytes */
	struct e4_fc_tag *tags;		/* tags walked, in order */
	size_t		ntags;
	size_t		nreplay;	/* tags[0..nreplay) are replayed (the
					 * kernel's fc_replay_num_tags) */
	uint32_t	nfc;		/* fast commits replayed (valid TAILs) */
	int		stop;		/* enum e4_fc_stop */
	blk64_t		stop_jblk;	/* where */
	uint32_t	stop_off;	/* byte offset in stop_jblk */
	errcode_t	fail;		/* nonzero: the kernel's recovery fails
					 * (E4_ERR_FC_*) */
	struct e4_scan_event *events;	/* the stop, kernel rule named */
	size_t		nevents;
};

/*
 * e4_fc_scan() - scan the fast-commit area of journal @j (INCOMPAT_
 * FAST_COMMIT; jblocks [log end + 1, s_maxlen)) as the kernel's
 * fc_do_one_pass(PASS_SCAN) and ext4_fc_replay_scan() do, for the fast
 * commits of @expected_tid (the full-commit scan's end_tid): the first tag
 * of the area must be HEAD (else no fast commits); each tag's length must
 * fit the block and ext4_fc_value_len_isvalid() (INODE: 128 ..
 * s_inode_size bytes of raw inode); HEAD must name no feature and
 * @expected_tid; a TAIL ends one fast commit when its tid is @expected_tid
 * and its crc32c (from 0, over every tag since the previous TAIL up to and
 * including this TAIL's tid) matches.  The scan stops at the first
 * failing rule: after at least one valid fast commit quietly (the kernel's
 * JBD2_FC_REPLAY_STOP), before it with the kernel's error (recovery
 * fails: ->fail).  Reading past s_maxlen fails as the kernel's jread()
 * does.  *@ret (e4_fcscan_free()) holds every tag walked, which of them
 * are replayed, and the stop.  Returns 0 or EXT2_ET_NO_MEMORY; io and
 * format errors land in (*ret)->fail.
 */
errcode_t e4_fc_scan(e4_journal_t j, uint32_t expected_tid,
		     struct e4_fcscan **ret);

/* e4_fcscan_free() - release @fc (NULL is fine). */
void e4_fcscan_free(struct e4_fcscan *fc);

/* e4_fc_tag_name() - the kernel's tag2str() name ("ADD_RANGE",
 * "CREAT_DENTRY", "ADD_ENTRY", "DEL_ENTRY", ...), "ERROR" if unknown. */
const char *e4_fc_tag_name(unsigned int tag);
/* e4_fc_stop_name() - short name of an enum e4_fc_stop ("tail-crc"). */
const char *e4_fc_stop_name(int stop);
/* e4_fc_fate_name() - short name of an enum e4_fc_fate ("applied"). */
const char *e4_fc_fate_name(int fate);

/*
 * e4_fc_format_tag() - one line for @t as debugfs logdump prints the
 * fast-commit area ("tag ADD_RANGE, inode 19, lblk 0, pblk 2082, len 5"),
 * without newline, into @buf (@len bytes).  Returns @buf.
 */
char *e4_fc_format_tag(const struct e4_fc_tag *t, char *buf, size_t len);

/*
 * e4_fc_inodes() - the distinct inode numbers the replayed tags of @fc
 * name (ADD/DEL_RANGE, INODE, dentry tags: inode and parent), ascending,
 * into *@inos (ext2fs_free_mem()), their count in *@n.  Returns 0 or
 * EXT2_ET_NO_MEMORY.
 */
errcode_t e4_fc_inodes(const struct e4_fcscan *fc, ext2_ino_t **inos,
		       size_t *n);

/* ---- fc_replay.c: replaying fast commits with libext2fs ---------------- */

/* What e4_fc_replay() did. */
struct e4_fc_replay_result {
	uint32_t	nfc;		/* fast commits replayed */
	uint64_t	ntags;		/* tags replayed (HEAD/PAD/TAIL too) */
	uint64_t	applied;	/* tags that changed something */
	uint64_t	skipped;	/* tags skipped as the kernel skips them */
	uint64_t	ninodes;	/* inodes the replay recorded as modified */
	uint64_t	deleted;	/* inodes deleted (last link unlinked) */
	uint64_t	blocks_set;	/* block bitmap bits set */
	uint64_t	blocks_cleared;	/* block bitmap bits cleared */
	uint64_t	allocated;	/* blocks the replay allocated (extent
					 * tree, directory) */
};

/*
 * e4_fc_replay() - apply the replayed tags of @fc (tags[0..nreplay)) to
 * the file system @fs (open read-write, with EXT2_FLAG_IGNORE_CSUM_ERRORS:
 * states in the middle of a replay fail their checksums) in log order, as
 * the kernel's ext4_fc_replay() does (fs/ext4/fast_commit.c):
 * ADD_RANGE (ext4_fc_replay_add_range(): holes get a new extent, merged
 * with its leaf neighbours as ext4_ext_insert_extent() does; mapped parts
 * are cut out and given the tag's pblk and written/unwritten state,
 * ext4_ext_replay_update_ex(); an old pblk is freed in the bitmap; then
 * ext4_ext_replay_shrink_inode() merges), DEL_RANGE (ext4_fc_replay_del_
 * range(): blocks freed, extents removed), CREAT/LINK/UNLINK
 * (ext4_fc_replay_create/link/unlink(): ext2fs_link()/ext2fs_unlink(), the
 * kernel's link-count steps, a new directory gets "." and ".." as
 * ext4_init_new_dir(), an inode losing its last link is deleted as the
 * kernel's iput() evicts it), INODE (ext4_fc_replay_inode(): the old
 * blocks freed in the bitmap, the raw inode copied except i_block, the
 * inode marked used (ext4_mark_inode_used()), i_blocks recomputed from the
 * extent tree (ext4_ext_replay_set_iblocks())); then, as
 * ext4_fc_set_bitmaps_and_counters(), every block of every modified inode
 * marked used.  A tag naming an inode the kernel's ext4_iget() refuses
 * (bad number, no links, bad i_extra_isize) is skipped as the kernel skips
 * it.  Bitmap bits change with the group and superblock free counts
 * adjusted by the bits that really change (ext4_mb_mark_bb()); blocks the
 * replay allocates avoid the blocks the fast commits map and those an
 * INODE tag freed (ext4_fc_replay_check_excluded()).  Sets every tag's
 * fate and *@res; leaves @fs dirty (ext2fs_close() or ext2fs_flush()
 * writes the bitmaps, group descriptors and superblock).  Only extent-
 * mapped inodes are changed.
 * Returns 0, E4_ERR_FC_REPLAY_FAILS (the kernel's replay fails here too:
 * an INODE tag whose inode ext4_iget() refuses after the copy),
 * EXT2_ET_RO_FILSYS, libext2fs and io errors.
 */
errcode_t e4_fc_replay(ext2_filsys fs, struct e4_fcscan *fc,
		       struct e4_fc_replay_result *res);

/* ---- orphan.c: the mount's orphan cleanup after the replay ------------ */

/* One orphan the cleanup processed. */
struct e4_orphan_ent {
	ext2_ino_t	ino;
	int		from_file;	/* an orphan_file entry (else the
					 * s_last_orphan chain) */
	int		freed_inode;	/* no links: freed (else truncated
					 * to i_size) */
	uint32_t	links;		/* i_links_count */
	uint64_t	size;		/* i_size before */
	uint64_t	blocks_freed;	/* fs blocks (data, extent tree,
					 * xattr block) */
	uint64_t	xattr_freed;	/* of which the xattr block */
};

/* What e4_orphan_cleanup() found and did. */
struct e4_orphan_result {
	ext2_ino_t	chain_head;	/* s_last_orphan before */
	size_t		nents, cap;
	struct e4_orphan_ent *ents;	/* in processing order */
	uint64_t	freed;		/* inodes freed */
	uint64_t	truncated;	/* inodes truncated */
	uint64_t	blocks_freed;
	int		errors_cleared;	/* ERROR_FS set: the chain dropped
					 * unprocessed, as the kernel does */
	int		file_bad;	/* an orphan_file block with a bad
					 * magic (the kernel fails the mount) */
	unsigned int	nproblems;	/* bad orphans met (ext4_error()) */
	ext2_ino_t	problem_ino;	/* the first one's inode */
	char		problem[128];	/* and what it is */
};

/*
 * e4_orphan_cleanup() - the kernel's orphan cleanup at mount
 * (ext4_orphan_cleanup()) on @fs, open read-write after the journal (and
 * fast-commit) replay: with EXT2_ERROR_FS set the chain is dropped
 * (s_last_orphan = 0) and nothing else done; else every inode of the
 * s_last_orphan chain, then every entry of the orphan_file blocks
 * (s_orphan_file_inum), is taken as ext4_orphan_get() takes it (in range,
 * in use, truncatable when linked, next orphan in range; else recorded as
 * a problem: the chain ends there, a file entry is skipped, ERROR_FS set
 * as ext4_error() does) and processed as ext4_process_orphan(): with
 * links, truncated to i_size (blocks past it and emptied extent tree
 * blocks freed with ext2fs_punch(), the tail of the EOF block zeroed,
 * i_dtime 0, mtime/ctime @now); without, freed (blocks, extent tree,
 * xattr block reference, i_size 0, i_dtime @now, inode bitmap and group
 * counts); the chain's head moves on, an orphan_file entry is zeroed
 * and its block checksum set.  orphan_present is cleared when the file is
 * left empty (the umount).  @res gets the list; free it with
 * e4_orphan_result_free().  Leaves @fs dirty: ext2fs_flush() (with
 * EXT2_FLAG_MASTER_SB_ONLY, as the kernel) writes it.  Returns 0,
 * EXT2_ET_RO_FILSYS, libext2fs and io errors.
 */
errcode_t e4_orphan_cleanup(ext2_filsys fs, uint32_t now,
			    struct e4_orphan_result *res);

/* e4_orphan_result_free() - release res->ents (NULL is fine). */
void e4_orphan_result_free(struct e4_orphan_result *res);

struct e4_fc_state;
struct e4_plan;

/*
 * e4_orphan_preview() - e4_orphan_cleanup() on state S_n of @plan over
 * @fs (open read-only will do), with the changed blocks of @fcst (NULL:
 * none) on top, on a copy-on-write layer: what the cleanup after the
 * replay would do, nothing written.  Returns 0 or the errors of the
 * state, overlay, layer and e4_orphan_cleanup().
 */
errcode_t e4_orphan_preview(ext2_filsys fs, const struct e4_plan *plan,
			    struct e4_fc_state *fcst, uint32_t now,
			    struct e4_orphan_result *res);

#define E4_ORPHAN_PREVIEW	0x1	/* e4_orphan_mount(): on S_n + @fcst,
					 * nothing written */

/*
 * e4_orphan_mount() - the orphan step of the kernel's mount after its
 * journal (and fast-commit) replay, once for every caller
 * (e4_mount_recover(), e4replay, e4debug): @fs re-read from the disk
 * (e4_fs_reload(): the replay wrote it in place), e4_orphan_cleanup(),
 * and ext2fs_flush() with EXT2_FLAG_MASTER_SB_ONLY (as the kernel writes
 * only the primary superblock) when it changed anything; with
 * E4_ORPHAN_PREVIEW in @flags e4_orphan_preview() on S_n of @plan with
 * @fcst's blocks instead, nothing written.  A replayed superblock no
 * open can follow (bad magic, layout, checksum, features, descriptors)
 * is no error of the cleanup: *@sb_err gets that error, nothing is done
 * and 0 returned (the kernel's mount fails reading it too).  @res is
 * filled on every return; free it with e4_orphan_result_free().  @now:
 * seconds since the epoch (i_dtime, ctime).  Returns 0 or the errors of
 * e4_fs_reload(), e4_orphan_cleanup(), e4_orphan_preview() and
 * ext2fs_flush().
 */
errcode_t e4_orphan_mount(ext2_filsys fs, const struct e4_plan *plan,
			  struct e4_fc_state *fcst, uint32_t now,
			  unsigned int flags, struct e4_orphan_result *res,
			  errcode_t *sb_err);

/* ---- fc_state.c: a state with its fast commits replayed, in memory ----- */

/* A file system state with fast commits replayed on a copy-on-write layer
 * (nothing written below it); every member owned. */
struct e4_fc_state {
	struct e4_cow		*cow;
	unsigned int		blocksize;	/* bytes: the fs block size */
	ext2_filsys		fs;	/* the state, open read-write on cow
					 * (NULL once detached) */
	struct e4_fc_replay_result res;
	struct e4_state		*map;	/* e4_fc_state_open_plan(): S_n, */
	e4_overlay_t		ov;	/* its overlay on fs->io */
	io_channel		lower;	/* and its channel under cow */
};

/*
 * e4_fc_state_open() - open the state on channel @lower (a full-commit
 * state S_n, read-only: an overlay channel or the image) through a
 * copy-on-write layer, replay the fast commits of @fc on it
 * (e4_fc_replay()) and flush it (primary superblock and descriptors only,
 * as the kernel writes them), so that *@ret's fs reads the result and
 * e4_fc_state_write() can write the blocks that changed.  @blocksize is
 * the fs block size.  Returns 0, the errors of e4_cow_create(),
 * ext2fs_open2(), e4_fc_replay(), EXT2_ET_CORRUPT_SUPERBLOCK (another
 * block size) or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_fc_state_open(io_channel lower, unsigned int blocksize,
			   struct e4_fcscan *fc, struct e4_fc_state **ret);

/*
 * e4_fc_state_open_plan() - e4_fc_state_open() on state S_n of @plan
 * (its plan->ntx transactions; an overlay stacked on @fs->io, @fs being
 * the file system of plan->j) with the fast commits of plan->scan->fc
 * (their tags' fates are set).  The state map, overlay and its channel
 * belong to *@ret.  Returns 0, EXT2_ET_INVALID_ARGUMENT (no fast commits
 * to replay), the errors of e4_state_seek(), e4_overlay_create(), the
 * overlay's open and e4_fc_state_open(), or the first read error of
 * @fs->io inside the image (e4_overlay_error()).
 */
errcode_t e4_fc_state_open_plan(ext2_filsys fs, const struct e4_plan *plan,
				struct e4_fc_state **ret);

/*
 * e4_fc_state_detach() - keep only the blocks the replay of @st changed
 * and its counts (st->res): the fs, the overlay and S_n's map are
 * released (fs NULL), so the channels below may close; e4_fc_state_write()
 * still works.  NULL is fine.
 */
void e4_fc_state_detach(struct e4_fc_state *st);

/*
 * e4_fc_state_write() - write every fs block the fast-commit replay of
 * @st changed to @io (a channel on the file system whose state S_n @st was
 * opened on, e.g. right after e4_journal_replay() wrote S_n's blocks), in
 * ascending order, then flush.  Returns 0 or io errors.
 */
errcode_t e4_fc_state_write(struct e4_fc_state *st, io_channel io);

/* e4_fc_state_close() - release @st (NULL is fine). */
void e4_fc_state_close(struct e4_fc_state *st);

/*
 * e4_journal_recover() - the kernel's whole recovery of @scan into the
 * file system of @j (both read-write): the full commits
 * (e4_journal_replay()) and then the fast commits of scan->fc, replayed in
 * memory on S_n first (e4_fc_state_open_plan()) so that a fast-commit
 * replay the kernel fails writes nothing (jbd2_journal_recover():
 * PASS_REPLAY, then the fast-commit replay before the journal is reset).
 * A journal the kernel replays and then refuses to mount is replayed as
 * e2fsck replays it (see e4_journal_replay(), e4_plan_mount_refused()).
 * @res as for e4_journal_replay() (e4_replay_result_init()).
 * Returns 0, E4_ERR_STRUCT_UNINIT / E4_ERR_STRUCT_SIZE (@res not readied:
 * nothing read, written or filled), scan->fail or scan->fc->fail
 * (nothing written),
 * E4_ERR_FC_REPLAY_FAILS (nothing written), or the errors of
 * e4_plan_build(), e4_fc_state_open_plan(), e4_plan_replay_fc().
 */
errcode_t e4_journal_recover(e4_journal_t j, struct e4_jscan *scan,
			     struct e4_replay_result *res);

/* ---- mount.c: what the kernel's mount does, decided once -------------- */

/*
 * e4_jsb_refused() - whether @err, from e4_journal_open(), names a journal
 * superblock the kernel refuses to load (journal_check_superblock(),
 * load_superblock(), jbd2_journal_check_used_features(); Linux 6.18):
 * the mount fails before anything is read or written.  1 or 0.
 */
int e4_jsb_refused(errcode_t err);

/* What the kernel's mount does with a file system and its journal. */
enum e4_mount_action {
	E4_MOUNT_CLEAN = 0,	/* no log, needs_recovery clear: nothing
				 * replayed (a journal s_errno is still
				 * carried into the fs) */
	E4_MOUNT_REPLAY,	/* needs_recovery: the log replayed (full,
				 * then fast commits), the journal reset,
				 * then the orphan cleanup */
	E4_MOUNT_DISCARD,	/* needs_recovery clear, a log present:
				 * jbd2_journal_wipe() drops it unread */
	E4_MOUNT_REPLAY_REFUSE,	/* replayed, then the mount fails (a failed
				 * commit, a copy failing its tag checksum);
				 * the journal kept, needs_recovery set */
	E4_MOUNT_DISCARD_REFUSE, /* needs_recovery clear: the wipe's scan
				  * fails that mount, the log emptied */
	E4_MOUNT_REFUSE,	/* refused before anything is written: the
				 * journal superblock, PASS_SCAN, the
				 * fast-commit area */
};

/* e4_mount_decide()'s answer.  Block numbers: jblocks count journal
 * blocks from the journal's start, fsblk file system blocks. */
struct e4_mount_decision {
	enum e4_mount_action action;
	errcode_t	why;		/* the refusals' error (E4_ERR_JSB_*,
					 * E4_ERR_JOURNAL_CHECKSUM,
					 * E4_ERR_JOURNAL_CORRUPT, a fast-commit
					 * error, io errors); 0 otherwise */
	const char	*reason;	/* one static phrase saying why */
	uint32_t	tid;		/* the refusals: the tid the kernel
					 * stops at (failed scan, failed
					 * commit, first bad copy) */
	blk64_t		jblk;		/* and its jblock, if known (0) */
	blk64_t		fsblk;		/* a bad copy: its fs block (0) */
	uint64_t	nbad;		/* copies failing their tag checksum
					 * (skipped by PASS_REPLAY) */
	uint32_t	first_tid;	/* s_sequence */
	uint32_t	end_tid;	/* the first tid not replayed */
	size_t		ntrans;		/* transactions the mount replays */
	int		needs_recovery;	/* the fs superblock's flag */
	int		errno_carry;	/* the journal's s_errno is set: the
					 * mount carries it into ERROR_FS */
	int		fc_replay;	/* fast commits replayed after the
					 * full commits */
	uint32_t	nfc;		/* how many (valid TAILs) */
};

/*
 * e4_mount_action_name() - "clean", "replay", "discard",
 * "replay-then-refuse", "discard-then-refuse" or "refuse": the names the
 * tools print and the JSON "decision" field.
 */
const char *e4_mount_action_name(enum e4_mount_action a);

/*
 * e4_mount_decide() - what the kernel's mount (Linux 6.18,
 * ext4_load_journal(), jbd2_journal_load(), jbd2_journal_recover(),
 * jbd2_journal_wipe()) does with @fs and its journal, into *@d (all of
 * it filled on every return): @jopen_err is e4_journal_open()'s error (0:
 * opened), @p the plan of the journal's scan (e4_plan_build() after
 * e4_journal_scan(); NULL only with @jopen_err), @flags E4_DECIDE_*.  In
 * this order: a journal superblock the kernel refuses (e4_jsb_refused())
 * -> REFUSE; a failed PASS_SCAN, then a failed fast-commit scan -> REFUSE
 * (nothing written), or DISCARD_REFUSE when needs_recovery is clear (the
 * wipe's scan fails that mount; the log is emptied all the same); a
 * failed commit or a bad tag checksum (e4_plan_mount_refused()) ->
 * REPLAY_REFUSE (with needs_recovery clear only the failed commit counts,
 * DISCARD_REFUSE); a log with needs_recovery clear -> DISCARD; a log or
 * needs_recovery -> REPLAY; else CLEAN.  Tag checksums left E4_CSUM_PENDING count as good:
 * e4_jscan_check_tags() first.  A fast-commit replay the kernel fails
 * in memory (E4_ERR_FC_REPLAY_FAILS) shows only when it is run
 * (e4_mount_recover()).  No io.  Returns 0 (decided),
 * E4_ERR_MOUNT_NO_FS (@fs NULL or a bare external journal device: its
 * file system decides) or @jopen_err when it is not a refusal (an
 * operational error: nothing decided).
 */
errcode_t e4_mount_decide(ext2_filsys fs, errcode_t jopen_err,
			  const struct e4_plan *p, unsigned int flags,
			  struct e4_mount_decision *d);

/* Flags for e4_mount_decide(). */
#define E4_DECIDE_IGNORE_FC	0x1	/* decide as if the fast-commit area
					 * were empty (e4replay
					 * --ignore-fast-commit: the user
					 * drops the fast commits) */

/* Flags for e4_mount_recover(). */
#define E4_RECOVER_JOURNAL_ONLY	0x1	/* no orphan cleanup (e2fsck -E
					 * journal_only, e4replay
					 * --journal-only) */
#define E4_RECOVER_DRY_RUN	0x2	/* decide and count, write nothing */

/* What e4_mount_recover() decided and did. */
struct e4_mount_result {
	struct e4_mount_decision decision;
	struct e4_replay_result	replay;		/* the replay's counts (the
						 * plan's if nothing was
						 * written) */
	struct e4_orphan_result	orphans;	/* the orphan cleanup */
	struct e4_mmp		mmp;		/* the MMP block (mmp.c) */
	int			replayed;	/* the replay wrote */
	int			errno_cleared;	/* the journal's s_errno
						 * carried and cleared */
	int			orphans_done;	/* the cleanup ran */
	int			journal_kept;	/* REPLAY_REFUSE: the kernel's
						 * blocks written, the
						 * journal kept
						 * (e4_plan_replay_refused()) */
};

/*
 * e4_mount_recover() - the kernel's mount's whole recovery of the journal
 * @j into its file system (both opened read-write, E4_JOURNAL_RW): scan
 * the log (every tag checksum checked), decide (e4_mount_decide()), and
 * for CLEAN and REPLAY, as e2fsck and the kernel: take the MMP block
 * (e4_mmp_start(): refused while another node or e2fsck holds it),
 * replay the full commits and then the fast commits (replayed in memory
 * first, so a fast-commit replay the kernel fails writes nothing),
 * carry the journal's s_errno into ERROR_FS and clear it, reset the
 * journal, run the orphan cleanup (e4_orphan_cleanup(); not with
 * E4_RECOVER_JOURNAL_ONLY), leave the MMP block clean.  REPLAY_REFUSE
 * writes what the kernel writes before it refuses the mount
 * (e4_plan_replay_refused(): the blocks, the journal kept,
 * res->journal_kept; with fast commits to replay nothing is written) and
 * returns decision.why; REFUSE and DISCARD_REFUSE write nothing
 * (e4replay --replay-anyway and e2fsck write what verifies); a DISCARD
 * is left as it is.  E4_RECOVER_DRY_RUN decides and counts only.  Fills
 * all of @res on every return; free res->orphans with
 * e4_mount_result_free().  Returns 0, decision.why of a refusal (nothing
 * written), E4_ERR_MOUNT_NO_FS, E4_ERR_READ_ONLY (nothing written), the
 * MMP errors of e4_mmp_start() (nothing written), E4_ERR_FC_REPLAY_FAILS
 * (nothing written), or the errors of e4_journal_scan(),
 * e4_plan_replay_fc() and e4_orphan_cleanup().
 */
errcode_t e4_mount_recover(e4_journal_t j, unsigned int flags,
			   struct e4_mount_result *res);

/* e4_mount_result_free() - release what @res holds (NULL is fine). */
void e4_mount_result_free(struct e4_mount_result *res);

struct e4_replayed;

/*
 * e4_replayed_fc() - for e4_replayed_open(): replace the read-only state
 * r->fs (S_n on the overlay r->ov) by S_n with the fast commits of
 * r->scan->fc replayed (e4_fc_state_open() on an overlay channel, kept in
 * r->ovl_io and r->fcst).  Returns 0 or the errors of e4_fc_state_open().
 */
errcode_t e4_replayed_fc(struct e4_replayed *r);

/* ---- stats.c: statistics over the transactions of a log --------------- */

/* Log2 buckets of a histogram: bucket k counts values in [2^k, 2^(k+1)). */
#define E4_JSTAT_BUCKETS	64

/* An interval this long (ms) looks like the commit timer's: ext4's
 * default commit=5 s (JBD2_DEFAULT_MAX_COMMIT_AGE), less a jiffy's slack. */
#define E4_JSTAT_TIMER_MS	4500

/* The distribution of one per-transaction quantity. */
struct e4_jstat_dist {
	uint64_t	count;		/* values */
	double		total;		/* their sum */
	double		min, max, mean;
	double		median;		/* the middle value, or the mean of
					 * the two middle ones */
	double		p90;		/* nearest rank: v[ceil(0.9 n) - 1] of
					 * the sorted values */
};

/* A log2 histogram.  Values below 1 are counted apart. */
struct e4_jstat_hist {
	uint64_t	negative;	/* values < 0 (intervals only) */
	uint64_t	zero;		/* values == 0 */
	uint64_t	below_one;	/* 0 < value < 1 (intervals only) */
	uint64_t	bucket[E4_JSTAT_BUCKETS];	/* [2^k, 2^(k+1)) */
	unsigned int	nbuckets;	/* 1 + the highest nonempty bucket */
};

/* One transaction on the commit timeline. */
struct e4_jstat_point {
	uint32_t	tid;
	double		t;		/* seconds since the first commit of
					 * the array (negative: earlier) */
	uint64_t	blocks;		/* its log blocks (jblocks) */
	int		back;		/* committed earlier than the tid
					 * before it (a negative interval) */
};

/* A commit time that went backwards: tid committed before prev_tid. */
struct e4_jstat_neg {
	uint32_t	prev_tid, tid;
	double		ms;		/* the interval, < 0 */
};

struct e4_jstats {
	uint64_t	transactions;
	uint32_t	first_tid, last_tid;	/* of the array's ends */
	double		span_seconds;	/* latest minus earliest commit time */
	double		commits_per_second;	/* (transactions - 1) /
						 * span_seconds; 0 when the
						 * span is 0 */
	struct e4_jstat_dist blocks;	/* log blocks (jblocks) per transaction:
					 * descriptor, data, revoke, commit */
	struct e4_jstat_dist tags;	/* tags (logged fs blocks) per
					 * transaction */
	struct e4_jstat_dist interval_ms;	/* between the commits of
						 * consecutive tids, ms */
	uint64_t	intervals_subsecond;	/* of them in [0, 1000) ms:
						 * commits forced (fsync) */
	uint64_t	intervals_timer;	/* >= E4_JSTAT_TIMER_MS: as
						 * the commit timer's */
	uint64_t	log_blocks;	/* jblocks of all the transactions */
	uint64_t	data_blocks;	/* of them: logged fs blocks (tags) */
	uint64_t	descriptor_blocks, revoke_blocks, commit_blocks;
	uint64_t	revoke_records;	/* duplicates included */
	struct e4_jstat_hist hist_blocks, hist_tags, hist_interval;
	struct e4_jstat_neg *negative;	/* every negative interval, in order */
	uint64_t	nnegative;
	uint64_t	shared_trans;	/* transactions whose commit time
					 * (sec and nsec) another one has */
	uint64_t	shared_times;	/* distinct times shared so */
	uint64_t	shared_max;	/* most transactions at one time */
	int		all_times_zero;	/* no commit block has a time */
	uint64_t	max_txn_blocks;	/* the kernel's limit per transaction
					 * (j_max_transaction_buffers) */
	struct e4_jstat_point *points;	/* the timeline, one per transaction
					 * in array order */
};

/*
 * e4_jstats_compute() - statistics over the @n transactions at @trans
 * (in log order, e.g. a scan's committed ones, trans[0..ncommitted)):
 * counts and shares of descriptor, revoke, commit and data blocks; the
 * distributions of log blocks and of tags per transaction and of the
 * interval between the commits of consecutive tids (ms, from
 * commit_sec/commit_nsec; a tid that committed before its predecessor
 * gives a negative interval, listed in ->negative); log2 histograms of
 * the three; how many transactions share one commit time (the kernel
 * takes it from ktime_get_coarse_real_ts64() in
 * journal_submit_commit_record(): a jiffy's resolution); the timeline.
 * @log_area is the journal's length less its fast-commit area, jblocks
 * (e4_jsb_log_end(): the kernel's j_total_len - j_fc_wbufsize);
 * ->max_txn_blocks is @log_area / 3, the "each up to N blocks" of
 * /proc/fs/jbd2/<dev>/info (Linux 6.18 jbd2_journal_get_max_txn_bufs(),
 * checked by mounting).
 * On success *@ret is owned by the caller (e4_jstats_free()).  Returns 0
 * or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_jstats_compute(const struct e4_jtrans *trans, size_t n,
			    uint64_t log_area, struct e4_jstats **ret);

/* e4_jstats_free() - release @st (NULL is fine). */
void e4_jstats_free(struct e4_jstats *st);

/*
 * e4_jtrans_commit_diff_ns() - the commit time of @b minus that of @a
 * (h_commit_sec, h_commit_nsec), ns, negative if @b committed earlier; a
 * double, exact below 2^53 ns (104 days), approximate for the garbage
 * times some tools write.
 */
double e4_jtrans_commit_diff_ns(const struct e4_jtrans *a,
				const struct e4_jtrans *b);

/*
 * e4_jstat_dist_fill() - fill @d from the @n values at @v (sorted in
 * place): count, total, min, max, mean, the median (the middle value, or
 * the mean of the two middle ones) and p90 (nearest rank: the smallest
 * value with at least 90% of the values at or below it, v[ceil(0.9 n) -
 * 1]).  @n 0 leaves every figure 0 (count 0: no value).  The one
 * distribution rule of the statistics (stats.c, wlog_stats.c).
 */
void e4_jstat_dist_fill(struct e4_jstat_dist *d, double *v, size_t n);

/* e4_jstat_bucket_low() - 2^@k, the lowest value of histogram bucket @k. */
double e4_jstat_bucket_low(unsigned int k);

/* ---- oldlog.c: older transactions after the end of the live log ------- */

/* The older transactions of a log (e4_journal_scan_old()). */
struct e4_jscan_old {
	struct e4_jtrans *trans;	/* whole older transactions, oldest
					 * first (committed = 0: the kernel
					 * does not replay them; checksums
					 * not checked: commit_csum_ok -1) */
	size_t		ntrans;
	uint64_t	cut;		/* transactions seen only in part:
					 * start overwritten, a gap, no
					 * commit block: left out */
	uint64_t	skipped;	/* jblocks that are no descriptor,
					 * revoke or commit block and not a
					 * data block of one */
	uint64_t	newer_blocks;	/* descriptor/revoke/commit jblocks
					 * with a tid not older than
					 * s_sequence: ignored */
	blk64_t		first_jblk;	/* where the walk began */
	blk64_t		nblocks;	/* jblocks walked */
};

/*
 * e4_journal_scan_old() - the older transactions still readable in the
 * log of @j after the live log that the scan @s found: the jblocks from
 * the block after the last one of @s's last transaction (the whole log
 * area when s_start is 0, from s_head if it is set, else from s_first)
 * around the circular log up to s_start.  As `debugfs logdump -O` does, it reads past the point where
 * the kernel's do_one_pass() (fs/jbd2/recovery.c) stops, but once around
 * the log only, and it resynchronises: every descriptor, revoke or
 * commit block whose tid is older than s_sequence (wrap-safe) is taken;
 * other blocks are skipped.  A transaction is kept when it was read from
 * its first block (right after the commit block of the tid before it)
 * through its commit block without a gap; others count in ->cut.  No
 * checksum is checked.  Reads the journal in runs of 256 jblocks.
 * On success *@ret is owned by the caller (e4_jscan_old_free()).
 * Returns 0, EXT2_ET_NO_MEMORY or io errors (a block that cannot be read).
 */
errcode_t e4_journal_scan_old(e4_journal_t j, const struct e4_jscan *s,
			      struct e4_jscan_old **ret);

/* e4_jscan_old_free() - release @o (NULL is fine). */
void e4_jscan_old_free(struct e4_jscan_old *o);
#ifdef __cplusplus
}
#endif

#include "e4_wlog.h"

#endif /* E4_H */
