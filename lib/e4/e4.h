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
 * s_maxlen <= @real_len (jblocks the journal really has), s_first within
 * [1, s_maxlen), s_start 0 or within [s_first, s_maxlen), v2/v3 exclusive,
 * checksum type, checksum, and unknown incompat features.
 * Returns 0 or E4_ERR_JSB_MAGIC, E4_ERR_JSB_BLOCKTYPE, E4_ERR_JSB_BLOCKSIZE,
 * E4_ERR_JSB_MAXLEN, E4_ERR_JSB_FIRST, E4_ERR_JSB_START,
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
 * feature and must leave s_maxlen - num_fc_blks >= JBD2_MIN_JOURNAL_BLOCKS;
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
 * an external device is opened read-write; the internal journal is written
 * through fs->io, so @fs must be open read-write too.  On success *@ret is
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


/* ---- scan.c: the kernel's PASS_SCAN over the log ------------------------ */

/* One block tag of a descriptor block. */
struct e4_jtag {
	blk64_t		fsblk;		/* fs block the logged copy belongs to */
	blk64_t		jblk;		/* jblock holding the logged copy */
	uint32_t	flags;		/* JBD2_FLAG_* */
	uint32_t	csum;		/* stored tag checksum (v2: low 16 bits) */
	int		csum_ok;	/* 1 ok, 0 mismatch, -1 not checksummed */
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
};

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
	int		depth;		/* depth of the inode's extent tree */
	errcode_t	error;		/* e4_fs_extents() only: nonzero when
					 * the inode's tree could not be read
					 * (then only ino is set) */
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
 * the inode bitmap if fs->inode_map is not loaded.
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
 * Returns 0, E4_ERR_BAD_INODE_NUMBER, E4_ERR_NOT_REGULAR,
 * E4_ERR_INLINE_DATA, E4_ERR_NOT_EXTENT_INODE, E4_ERR_BIGALLOC (bigalloc
 * is not supported: an extent maps clusters there), E4_ERR_RANGE (@len 0,
 * or past logical block 2^32 - 1), E4_ERR_PAST_EOF (the range goes past
 * the end of the file: i_size rounded up to a block, or, marking
 * unwritten, the end of the last extent if that is further (fallocate
 * KEEP_SIZE); initialized blocks past i_size are what e2fsck's pass 1
 * rejects); unmapped blocks before that end are holes:
 * E4_ERR_HOLE_IN_RANGE (a hole in the range without E4_MARK_SKIP_HOLES),
 * EXT2_ET_RO_FILSYS (a change is needed on a read-only fs), libext2fs and
 * io errors.  *@res (if not NULL) says what changed.
 */
errcode_t e4_mark_range(ext2_filsys fs, ext2_ino_t ino, blk64_t lblk,
			blk64_t len, int flags, struct e4_mark_result *res);

#endif /* E4_H */
