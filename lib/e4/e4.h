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
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_H
#define E4_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "e4_err.h"
#include "jbd2_fmt.h"

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
	uint8_t		users[JSB_MAX_USERS][16];
};

/*
 * e4_jsb_decode() - decode the JSB_SIZE bytes at @buf into @jsb.  Does not
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
#define E4_JOURNAL_UNDO	0x2	/* external device through undo_io_manager
				 * (the caller configured its backing
				 * manager and undo file) */

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
};
typedef struct e4_journal *e4_journal_t;

/*
 * e4_journal_open() - find and open the journal of @fs: the internal one
 * (inode s_journal_inum, mapped through libext2fs, extents or block map),
 * or, when @ext_dev is not NULL, the external journal device at that path,
 * which must be a journal_dev fs whose UUID equals s_journal_uuid.  Reads
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

/* e4_memimg_init() - set up @m over @size bytes of @base.  Returns 0 or
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
	char		name[40];	/* "e4fault:0x..." */
};

extern io_manager e4_fault_io_manager;

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
	int		csum_ok;	/* 1 ok, 0 mismatch, -1 not checksummed */
	int		fate;		/* enum e4_tag_fate, set by
					 * e4_journal_replay_plan() */
};

/* What replay does with one tag (e4_jtag.fate). */
enum e4_tag_fate {
	E4_TAG_UNPLANNED = 0,	/* e4_journal_replay_plan() not run */
	E4_TAG_REPLAY,		/* newest surviving copy: written */
	E4_TAG_SUPERSEDED,	/* a later surviving copy is written */
	E4_TAG_REVOKED,		/* revoked in this or a later committed tid */
	E4_TAG_BAD_CSUM,	/* tag checksum mismatch: skipped */
	E4_TAG_BAD_BLOCK,	/* past the fs end or inside the journal */
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
};

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
};

/* Flags for e4_journal_scan(). */
#define E4_SCANF_UPTO		0x1	/* stop after committed tid @upto */

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
 * kernel would refuse still succeeds with (*ret)->fail set.  Returns 0 or
 * EXT2_ET_NO_MEMORY (io errors land in (*ret)->fail).
 */
errcode_t e4_journal_scan(e4_journal_t j, int flags, uint32_t upto,
			  struct e4_jscan **ret);

/* e4_jscan_free() - release a scan (NULL is fine). */
void e4_jscan_free(struct e4_jscan *scan);

/* e4_scan_stop_name() - a short name for @stop ("no-magic", ...). */
const char *e4_scan_stop_name(enum e4_scan_stop stop);

/* e4_tag_fate_name() - a short name for @fate ("replay", ...). */
const char *e4_tag_fate_name(int fate);

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

struct e4_replay_result {
	uint64_t	ntags;		/* tags of replayed transactions */
	uint64_t	nwritten;	/* fs blocks written (each once) */
	uint64_t	nsuperseded;	/* copies a later copy replaces */
	uint64_t	nrevoked;	/* copies cancelled by revoke records */
	uint64_t	nbad_csum;	/* copies skipped: tag checksum */
	uint64_t	nbad_block;	/* copies skipped: block past the fs
					 * end or inside the journal */
	uint64_t	nrevoke_blocks;	/* distinct revoked fs blocks */
	uint64_t	nwrites;	/* write calls after coalescing */
	uint64_t	nreads;		/* journal read calls */
	uint32_t	new_sequence;	/* jsb s_sequence written */
	int		fs_error;	/* EXT2_ERROR_FS set in s_state */
	int		fs_not_valid;	/* EXT2_VALID_FS cleared */
	int		corrupt;	/* corruption met (scan or skipped
					 * copies): fsck exit bit 4 */
};

/*
 * e4_journal_replay_plan() - decide the fate of every tag of @scan
 * (e4_jtag.fate) as the kernel's PASS_REVOKE and PASS_REPLAY would, and
 * fill the counts of @res (no io).  Revoke rule (fs/jbd2/recovery.c,
 * revoke.c): a record for block b in committed tid R cancels every copy
 * of b logged in a tid <= R.  A copy failing its tag checksum is skipped
 * (kernel: EFSBADCRC at the end); a copy naming a block at or past the fs
 * end or inside the journal is skipped (e4tools' safety choice where the
 * kernel writes blindly).  Of the surviving copies of a block only the
 * newest is written: the end result of the kernel writing them in order.
 * Returns 0, @scan->fail, or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_journal_replay_plan(e4_journal_t j, struct e4_jscan *scan,
				 struct e4_replay_result *res);

/*
 * e4_journal_replay() - replay @scan into the file system of @j (both
 * opened read-write): e4_journal_replay_plan(), then write each planned
 * fs block once (escaped blocks get JBD2_MAGIC back in their first 4
 * bytes), reading the journal in log order in chunks of up to 8 MiB and
 * writing each chunk's blocks sorted by fs block, contiguous runs in one
 * write; flush.  Then, as e2fsck does after recovery
 * (e2fsck/journal.c): the fs superblock is re-read (replay may have
 * written it), needs_recovery cleared, s_errno of the journal (or a
 * failed commit) carried into EXT2_ERROR_FS, EXT2_VALID_FS cleared when
 * copies were skipped, and the primary superblock written; then the
 * journal superblock gets s_start = 0, s_sequence = end_tid + 1 (the
 * kernel's ++end_transaction), s_errno = 0.  The fs superblock goes
 * before the journal superblock, so a replay interrupted anywhere can be
 * run again and ends in the same image.  With an empty log
 * (s_start == 0) only the superblocks are updated (s_sequence + 1, as
 * jbd2_journal_recover() does).  fs->group_desc in memory is stale
 * afterwards: reopen the fs to inspect it.
 * Returns 0, @scan->fail (nothing written), E4_ERR_READ_ONLY, io errors
 * or EXT2_ET_NO_MEMORY.
 */
errcode_t e4_journal_replay(e4_journal_t j, struct e4_jscan *scan,
			    struct e4_replay_result *res);

#endif /* E4_H */
