/*
 * jsb.c --- the jbd2 journal superblock as bytes: decode, checksum,
 * validate, and edit its features by the kernel's and e2fsprogs' rules.
 *
 * Sources: Documentation/filesystems/ext4/journal.rst ("Super Block",
 * "Checksums"); fs/jbd2/journal.c journal_check_superblock(),
 * jbd2_journal_set_features(), jbd2_journal_initialize_fast_commit().
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <e2p/e2p.h>

#include "e4.h"

void e4_jsb_decode(const void *buf, struct e4_jsb *jsb)
{
	const uint8_t *b = buf;
	int i;

	memset(jsb, 0, sizeof(*jsb));
	jsb->blocktype = e4_be32(b + JBD2_H_BLOCKTYPE);
	jsb->blocksize = e4_be32(b + JBD2_JSB_BLOCKSIZE);
	jsb->maxlen = e4_be32(b + JBD2_JSB_MAXLEN);
	jsb->first = e4_be32(b + JBD2_JSB_FIRST);
	jsb->sequence = e4_be32(b + JBD2_JSB_SEQUENCE);
	jsb->start = e4_be32(b + JBD2_JSB_START);
	jsb->errno_ = (int32_t)e4_be32(b + JBD2_JSB_ERRNO);
	if (jsb->blocktype != JBD2_SUPERBLOCK_V2)
		return;
	jsb->feature_compat = e4_be32(b + JBD2_JSB_FEATURE_COMPAT);
	jsb->feature_incompat = e4_be32(b + JBD2_JSB_FEATURE_INCOMPAT);
	jsb->feature_ro_compat = e4_be32(b + JBD2_JSB_FEATURE_RO_COMPAT);
	memcpy(jsb->uuid, b + JBD2_JSB_UUID, 16);
	jsb->nr_users = e4_be32(b + JBD2_JSB_NR_USERS);
	jsb->max_transaction = e4_be32(b + JBD2_JSB_MAX_TRANSACTION);
	jsb->max_trans_data = e4_be32(b + JBD2_JSB_MAX_TRANS_DATA);
	jsb->checksum_type = b[JBD2_JSB_CHECKSUM_TYPE];
	jsb->num_fc_blks = e4_be32(b + JBD2_JSB_NUM_FC_BLKS);
	jsb->head = e4_be32(b + JBD2_JSB_HEAD);
	jsb->checksum = e4_be32(b + JBD2_JSB_CHECKSUM);
	for (i = 0; i < JBD2_JSB_MAX_USERS; i++)
		memcpy(jsb->users[i], b + JBD2_JSB_USERS + 16 * i, 16);
}

static int is_v2(const void *buf)
{
	return e4_be32((const uint8_t *)buf + JBD2_H_BLOCKTYPE) ==
		JBD2_SUPERBLOCK_V2;
}

int e4_jsb_has_csum_v2v3(const void *buf)
{
	return is_v2(buf) &&
		(e4_be32((const uint8_t *)buf + JBD2_JSB_FEATURE_INCOMPAT) &
		 (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
		  JBD2_FEATURE_INCOMPAT_CSUM_V3));
}

uint32_t e4_jsb_csum(const void *buf)
{
	static const uint8_t zero[4];
	const uint8_t *b = buf;
	uint32_t crc;

	crc = e4_crc32c(~0U, b, JBD2_JSB_CHECKSUM);
	crc = e4_crc32c(crc, zero, 4);
	return e4_crc32c(crc, b + JBD2_JSB_CHECKSUM + 4,
			 JBD2_JSB_SIZE - JBD2_JSB_CHECKSUM - 4);
}

int e4_jsb_csum_ok(const void *buf)
{
	if (!e4_jsb_has_csum_v2v3(buf))
		return 1;
	return e4_be32((const uint8_t *)buf + JBD2_JSB_CHECKSUM) ==
		e4_jsb_csum(buf);
}

void e4_jsb_set_csum(void *buf)
{
	if (e4_jsb_has_csum_v2v3(buf))
		e4_put_be32((uint8_t *)buf + JBD2_JSB_CHECKSUM, e4_jsb_csum(buf));
}

uint32_t e4_jsb_fc_blocks(const void *buf)
{
	const uint8_t *b = buf;
	uint32_t n;

	if (!is_v2(buf) || !(e4_be32(b + JBD2_JSB_FEATURE_INCOMPAT) &
			     JBD2_FEATURE_INCOMPAT_FAST_COMMIT))
		return 0;
	n = e4_be32(b + JBD2_JSB_NUM_FC_BLKS);
	return n ? n : JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
}

uint32_t e4_jsb_log_end(const void *buf)
{
	uint32_t maxlen = e4_be32((const uint8_t *)buf + JBD2_JSB_MAXLEN);
	uint32_t fc = e4_jsb_fc_blocks(buf);

	return fc < maxlen ? maxlen - fc : 0;
}

errcode_t e4_jsb_validate(const void *buf, unsigned int fs_blocksize,
			  uint64_t real_len)
{
	struct e4_jsb s;
	uint32_t v2v3 = JBD2_FEATURE_INCOMPAT_CSUM_V2 |
		JBD2_FEATURE_INCOMPAT_CSUM_V3;

	e4_error_tables_init();
	if (e4_be32(buf) != JBD2_MAGIC)
		return E4_ERR_JSB_MAGIC;
	e4_jsb_decode(buf, &s);
	if (s.blocktype != JBD2_SUPERBLOCK_V1 &&
	    s.blocktype != JBD2_SUPERBLOCK_V2)
		return E4_ERR_JSB_BLOCKTYPE;
	if (s.blocksize != fs_blocksize)
		return E4_ERR_JSB_BLOCKSIZE;
	/* journal_check_superblock(): "journal file too short" */
	if (s.maxlen > real_len)
		return E4_ERR_JSB_MAXLEN;
	/* ... and, with the fast-commit area, "journal file too short" */
	if (s.maxlen < JBD2_MIN_JOURNAL_BLOCKS ||
	    s.maxlen - JBD2_MIN_JOURNAL_BLOCKS < e4_jsb_fc_blocks(buf))
		return E4_ERR_JSB_TOO_SHORT;
	/* ... and "invalid start of journal" */
	if (s.first == 0 || s.first >= s.maxlen)
		return E4_ERR_JSB_FIRST;
	if (s.start && (s.start < s.first || s.start >= e4_jsb_log_end(buf)))
		return E4_ERR_JSB_START;
	if ((s.feature_incompat & v2v3) == v2v3)
		return E4_ERR_FEATURE_CONFLICT;
	if ((s.feature_incompat & v2v3) &&
	    (s.feature_compat & JBD2_FEATURE_COMPAT_CHECKSUM))
		return E4_ERR_FEATURE_CONFLICT;
	if ((s.feature_incompat & v2v3) &&
	    s.checksum_type != JBD2_CRC32C_CHKSUM)
		return E4_ERR_JSB_CSUM_TYPE;
	if (!e4_jsb_csum_ok(buf))
		return E4_ERR_JSB_CSUM;
	if ((s.feature_incompat & ~JBD2_KNOWN_INCOMPAT) ||
	    (s.feature_ro_compat & ~JBD2_KNOWN_ROCOMPAT))
		return E4_ERR_JSB_UNKNOWN_FEATURE;
	return 0;
}

const char *e4_jrnl_feature2string(int compat, unsigned int mask)
{
	if (compat == E2P_FEATURE_INCOMPAT &&
	    mask == JBD2_FEATURE_INCOMPAT_FAST_COMMIT)
		return "journal_fast_commit";
	return e2p_jrnl_feature2string(compat, mask);
}

/* Look up one feature name: ours for fast commit, libe2p's for the rest. */
static int jrnl_string2feature(char *word, int *compat, unsigned int *mask)
{
	if (!strcasecmp(word, "journal_fast_commit") ||
	    !strcasecmp(word, "fast_commit")) {
		*compat = E2P_FEATURE_INCOMPAT;
		*mask = JBD2_FEATURE_INCOMPAT_FAST_COMMIT;
		return 0;
	}
	return e2p_jrnl_string2feature(word, compat, mask);
}

static int popcount3(uint32_t compat, uint32_t incompat)
{
	return !!(compat & JBD2_FEATURE_COMPAT_CHECKSUM) +
		!!(incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2) +
		!!(incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3);
}

static void set_bad(char *bad, size_t badlen, const char *word)
{
	if (bad && badlen)
		snprintf(bad, badlen, "%s", word ? word : "");
}

errcode_t e4_jsb_edit_features(void *buf, const char *spec,
			       uint32_t num_fc_blks, int flags,
			       char *bad, size_t badlen)
{
	uint8_t *b = buf;
	uint32_t f[3], old[3];
	uint32_t settable[3] = {
		JBD2_KNOWN_COMPAT, JBD2_KNOWN_INCOMPAT, JBD2_KNOWN_ROCOMPAT
	};
	uint32_t empty_only[3] = {
		JBD2_FEATURE_COMPAT_CHECKSUM,
		JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_64BIT |
		JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3 |
		JBD2_FEATURE_INCOMPAT_FAST_COMMIT,
		0
	};
	uint32_t old_fc, new_fc, maxlen, v2v3;
	char *copy, *word, *save = NULL;
	int fc_changed, i;

	e4_error_tables_init();
	set_bad(bad, badlen, NULL);
	old[0] = e4_be32(b + JBD2_JSB_FEATURE_COMPAT);
	old[1] = e4_be32(b + JBD2_JSB_FEATURE_INCOMPAT);
	old[2] = e4_be32(b + JBD2_JSB_FEATURE_RO_COMPAT);
	memcpy(f, old, sizeof(f));

	if (spec && *spec) {
		if (!is_v2(buf))
			return E4_ERR_FEATURE_NOT_SETTABLE;
		copy = strdup(spec);
		if (!copy)
			return EXT2_ET_NO_MEMORY;
		for (word = strtok_r(copy, ", \t", &save); word;
		     word = strtok_r(NULL, ", \t", &save)) {
			int neg = 0, compat;
			unsigned int mask;

			if (*word == '^' || *word == '-') {
				neg = 1;
				word++;
			} else if (*word == '+') {
				word++;
			}
			if (jrnl_string2feature(word, &compat, &mask) ||
			    compat < 0 || compat > 2) {
				set_bad(bad, badlen, word);
				free(copy);
				return E4_ERR_UNKNOWN_FEATURE_NAME;
			}
			if (!(settable[compat] & mask)) {
				set_bad(bad, badlen, word);
				free(copy);
				return E4_ERR_FEATURE_NOT_SETTABLE;
			}
			if (neg)
				f[compat] &= ~mask;
			else
				f[compat] |= mask;
		}
		free(copy);
	}

	/* Only one of the v1/v2/v3 checksum methods at a time. */
	if (popcount3(f[0], f[1]) > 1)
		return E4_ERR_FEATURE_CONFLICT;

	old_fc = e4_jsb_fc_blocks(buf);
	new_fc = 0;
	if (f[1] & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		new_fc = num_fc_blks != (uint32_t)-1 ? num_fc_blks :
			e4_be32(b + JBD2_JSB_NUM_FC_BLKS);
		if (!new_fc)
			new_fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
	}
	fc_changed = old_fc != new_fc;

	/*
	 * Changing how transactions are checksummed or where the log ends
	 * would make existing transactions unreadable: only on an empty log.
	 */
	if (e4_be32(b + JBD2_JSB_START) != 0) {
		for (i = 0; i < 3; i++)
			if ((old[i] ^ f[i]) & empty_only[i])
				return E4_ERR_JOURNAL_NOT_EMPTY;
		if (fc_changed)
			return E4_ERR_JOURNAL_NOT_EMPTY;
	}

	/*
	 * A new s_num_fc_blks without the journal bit still matters: ext4
	 * sets the bit at every mount of a fast_commit fs and then sizes the
	 * area from s_num_fc_blks.  Check it by the same rule.
	 */
	if (!new_fc && num_fc_blks != (uint32_t)-1 &&
	    num_fc_blks != e4_be32(b + JBD2_JSB_NUM_FC_BLKS)) {
		if (e4_be32(b + JBD2_JSB_START) != 0)
			return E4_ERR_JOURNAL_NOT_EMPTY;
		fc_changed = 1;
		new_fc = num_fc_blks ? num_fc_blks :
			JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
	}
	if (new_fc && fc_changed) {
		if (!(flags & E4_FEAT_FS_FAST_COMMIT))
			return E4_ERR_FC_NEEDS_FS_FEATURE;
		/* jbd2_journal_initialize_fast_commit(): -ENOSPC when
		 * j_last - num_fc_blks < JBD2_MIN_JOURNAL_BLOCKS */
		maxlen = e4_be32(b + JBD2_JSB_MAXLEN);
		if (new_fc >= maxlen ||
		    maxlen - new_fc < JBD2_MIN_JOURNAL_BLOCKS)
			return E4_ERR_FC_TOO_BIG;
	}

	if ((f[1] & ~old[1] & JBD2_FEATURE_INCOMPAT_64BIT) &&
	    !(flags & (E4_FEAT_FS_64BIT | E4_FEAT_FORCE)))
		return E4_ERR_64BIT_ON_32BIT_FS;

	/* Every rule holds: write the new state. */
	e4_put_be32(b + JBD2_JSB_FEATURE_COMPAT, f[0]);
	e4_put_be32(b + JBD2_JSB_FEATURE_INCOMPAT, f[1]);
	e4_put_be32(b + JBD2_JSB_FEATURE_RO_COMPAT, f[2]);
	/*
	 * Turning the bit off keeps s_num_fc_blks: the kernel turns it back
	 * on at the next mount of a fast_commit fs, and a zero there would
	 * mean the default 256 blocks, which may not fit ("JBD2: Cannot
	 * enable fast commits", mount refused).
	 */
	if (num_fc_blks != (uint32_t)-1)
		e4_put_be32(b + JBD2_JSB_NUM_FC_BLKS, num_fc_blks);
	v2v3 = JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3;
	if (f[1] & v2v3)
		b[JBD2_JSB_CHECKSUM_TYPE] = JBD2_CRC32C_CHKSUM;
	else if (old[1] & v2v3)
		b[JBD2_JSB_CHECKSUM_TYPE] = 0;
	if (!(f[1] & v2v3))
		e4_put_be32(b + JBD2_JSB_CHECKSUM, 0);
	e4_jsb_set_csum(buf);
	return 0;
}
