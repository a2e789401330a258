/*
 * jbd2_fmt.h --- the jbd2 on-disk journal format, as documented in the
 * kernel's Documentation/filesystems/ext4/journal.rst, with the corrections
 * the kernel code makes to that text (see the notes at each structure).
 *
 * Every jbd2 field is big-endian.  Fast-commit TLVs are little-endian.
 * Structures here describe bytes on disk; read fields through the e4_be*
 * accessors below, never by dereferencing a multi-byte field directly.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_JBD2_FMT_H
#define E4_JBD2_FMT_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- big-endian accessors (unaligned-safe) ---------------------------- */

static inline uint16_t e4_be16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint16_t)((b[0] << 8) | b[1]);
}

static inline uint32_t e4_be32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) |
	       ((uint32_t)b[2] << 8) | (uint32_t)b[3];
}

static inline uint64_t e4_be64(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return ((uint64_t)e4_be32(b) << 32) | e4_be32(b + 4);
}

static inline void e4_put_be16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = v >> 8;
	b[1] = v;
}

static inline void e4_put_be32(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

static inline void e4_put_be64(void *p, uint64_t v)
{
	e4_put_be32(p, (uint32_t)(v >> 32));
	e4_put_be32((uint8_t *)p + 4, (uint32_t)v);
}

static inline uint16_t e4_le16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t e4_le32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) |
	       ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline uint64_t e4_le64(const void *p)
{
	return (uint64_t)e4_le32(p) | ((uint64_t)e4_le32((const uint8_t *)p + 4)
				       << 32);
}

/* ---- block header (every metadata block of the log starts with it) ---- */

#define JBD2_MAGIC		0xC03B3998U

/* h_blocktype values */
#define JBD2_DESCRIPTOR_BLOCK	1
#define JBD2_COMMIT_BLOCK	2
#define JBD2_SUPERBLOCK_V1	3
#define JBD2_SUPERBLOCK_V2	4
#define JBD2_REVOKE_BLOCK	5
#define JBD2_FC_BLOCK		6	/* never seen in a header on disk */

/* struct jbd2_header: 12 bytes */
#define JBD2_H_MAGIC		0x00	/* be32 */
#define JBD2_H_BLOCKTYPE	0x04	/* be32 */
#define JBD2_H_SEQUENCE		0x08	/* be32: the tid */
#define JBD2_HEADER_SIZE	12

/* ---- journal superblock (1024 bytes at journal block 0) --------------- */

#define JBD2_JSB_BLOCKSIZE		0x0C	/* be32: journal block size, bytes */
#define JBD2_JSB_MAXLEN		0x10	/* be32: journal length, jblocks */
#define JBD2_JSB_FIRST		0x14	/* be32: first log block */
#define JBD2_JSB_SEQUENCE		0x18	/* be32: first tid expected in log */
#define JBD2_JSB_START		0x1C	/* be32: jblock of log start; 0=clean */
#define JBD2_JSB_ERRNO		0x20	/* be32 (signed) */
/* v2 only from here */
#define JBD2_JSB_FEATURE_COMPAT	0x24	/* be32 */
#define JBD2_JSB_FEATURE_INCOMPAT	0x28	/* be32 */
#define JBD2_JSB_FEATURE_RO_COMPAT	0x2C	/* be32 */
#define JBD2_JSB_UUID		0x30	/* u8[16] */
#define JBD2_JSB_NR_USERS		0x40	/* be32 */
#define JBD2_JSB_DYNSUPER		0x44	/* be32: unused */
#define JBD2_JSB_MAX_TRANSACTION	0x48	/* be32: limit, jblocks */
#define JBD2_JSB_MAX_TRANS_DATA	0x4C	/* be32: limit, data jblocks */
#define JBD2_JSB_CHECKSUM_TYPE	0x50	/* u8 */
#define JBD2_JSB_NUM_FC_BLKS		0x54	/* be32: 0 means the default */
#define JBD2_JSB_HEAD		0x58	/* be32: kernel >= 6.4 */
#define JBD2_JSB_CHECKSUM		0xFC	/* be32: crc32c of this 1 KiB */
#define JBD2_JSB_USERS		0x100	/* u8[16 * 48] */
#define JBD2_JSB_SIZE		1024
#define JBD2_JSB_MAX_USERS		48

/* s_checksum_type and commit h_chksum_type values */
#define JBD2_CRC32_CHKSUM	1
#define JBD2_MD5_CHKSUM		2
#define JBD2_SHA1_CHKSUM	3
#define JBD2_CRC32C_CHKSUM	4

#define JBD2_CRC32_CHKSUM_SIZE	4

/* feature bits */
#define JBD2_FEATURE_COMPAT_CHECKSUM		0x00000001
#define JBD2_FEATURE_INCOMPAT_REVOKE		0x00000001
#define JBD2_FEATURE_INCOMPAT_64BIT		0x00000002
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT	0x00000004
#define JBD2_FEATURE_INCOMPAT_CSUM_V2		0x00000008
#define JBD2_FEATURE_INCOMPAT_CSUM_V3		0x00000010
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT	0x00000020

#define JBD2_KNOWN_COMPAT	JBD2_FEATURE_COMPAT_CHECKSUM
#define JBD2_KNOWN_ROCOMPAT	0
#define JBD2_KNOWN_INCOMPAT	(JBD2_FEATURE_INCOMPAT_REVOKE | \
				 JBD2_FEATURE_INCOMPAT_64BIT | \
				 JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT | \
				 JBD2_FEATURE_INCOMPAT_CSUM_V2 | \
				 JBD2_FEATURE_INCOMPAT_CSUM_V3 | \
				 JBD2_FEATURE_INCOMPAT_FAST_COMMIT)

/* The default fast-commit area length when s_num_fc_blks is 0, jblocks. */
#define JBD2_DEFAULT_FAST_COMMIT_BLOCKS	256
/*
 * Minimum log length the kernel accepts, jblocks (JBD2_MIN_JOURNAL_BLOCKS
 * in include/linux/jbd2.h); with fast commit the log part
 * (s_maxlen - s_num_fc_blks) must be at least this long too
 * (jbd2_journal_initialize_fast_commit()).
 */
#define JBD2_MIN_JOURNAL_BLOCKS		1024
#define JBD2_MIN_FC_BLOCKS		256

/* ---- descriptor block: header, then block tags, then a tail ----------- */

/* tag flags */
#define JBD2_FLAG_ESCAPE	1	/* block began with JBD2_MAGIC */
#define JBD2_FLAG_SAME_UUID	2	/* no 16-byte UUID follows the tag */
#define JBD2_FLAG_DELETED	4	/* unused */
#define JBD2_FLAG_LAST_TAG	8	/* last tag of this descriptor */

/*
 * Tag with csum v3 (journal_block_tag3_t), 16 bytes:
 *   be32 t_blocknr, be32 t_flags, be32 t_blocknr_high, be32 t_checksum.
 */
#define JBD2_TAG3_BLOCKNR		0x0
#define JBD2_TAG3_FLAGS		0x4
#define JBD2_TAG3_BLOCKNR_HIGH	0x8
#define JBD2_TAG3_CHECKSUM		0xC
#define JBD2_TAG3_SIZE		16

/*
 * Tag otherwise (journal_block_tag_t):
 *   be32 t_blocknr, be16 t_checksum, be16 t_flags, be32 t_blocknr_high.
 * Its size on disk (journal_tag_bytes() in the kernel) is 12, minus 4
 * without INCOMPAT_64BIT, plus 2 with CSUM_V2: 8, 12, 10 or 14 bytes.
 * journal.rst omits the CSUM_V2 quirk.
 */
#define JBD2_TAG_BLOCKNR		0x0
#define JBD2_TAG_CHECKSUM		0x4
#define JBD2_TAG_FLAGS		0x6
#define JBD2_TAG_BLOCKNR_HIGH	0x8

#define JBD2_UUID_SIZE		16

/* struct jbd2_journal_block_tail: the last 4 bytes of a descriptor or
 * revoke block when CSUM_V2 or CSUM_V3 is set. */
#define JBD2_TAIL_SIZE		4

/* ---- revoke block: header, be32 r_count, then records ----------------- */

#define JBD2_REVOKE_COUNT		0x0C	/* be32: bytes used, header included */
#define JBD2_REVOKE_HEADER_SIZE	16

/* ---- commit block ------------------------------------------------------ */
/*
 * struct commit_header is 60 bytes of fields (journal.rst says 32, which is
 * wrong); the rest of the block is unused.
 */
#define JBD2_COMMIT_CHKSUM_TYPE	0x0C	/* u8 */
#define JBD2_COMMIT_CHKSUM_SIZE	0x0D	/* u8 */
#define JBD2_COMMIT_CHKSUM		0x10	/* be32[8]; [0] holds the crc */
#define JBD2_COMMIT_SEC		0x30	/* be64 */
#define JBD2_COMMIT_NSEC		0x38	/* be32 */
#define JBD2_COMMIT_HEADER_SIZE	0x3C

/* ---- fast-commit area TLVs (little-endian) ----------------------------- */

#define E4_FC_TAG_ADD_RANGE	1
#define E4_FC_TAG_DEL_RANGE	2
#define E4_FC_TAG_CREAT	3
#define E4_FC_TAG_LINK	4
#define E4_FC_TAG_UNLINK	5
#define E4_FC_TAG_INODE	6
#define E4_FC_TAG_PAD		7
#define E4_FC_TAG_TAIL	8
#define E4_FC_TAG_HEAD	9
#define E4_FC_TL_SIZE		4	/* le16 tag, le16 len */

/* ---- wrap-safe tid comparison (tids are 32-bit and wrap) -------------- */

/* Return nonzero when tid x is after tid y. */
static inline int e4_tid_gt(uint32_t x, uint32_t y)
{
	return (int32_t)(x - y) > 0;
}

static inline int e4_tid_geq(uint32_t x, uint32_t y)
{
	return (int32_t)(x - y) >= 0;
}

#ifdef __cplusplus
}
#endif

#endif /* E4_JBD2_FMT_H */
