/*
 * fc.c --- the fast-commit area of a jbd2 journal, scanned as the kernel
 * scans it before replay: which fast commits are complete and belong to
 * the transaction after the last full commit, and where and why the scan
 * stops.
 *
 * Source: fs/ext4/fast_commit.c ext4_fc_replay_scan(),
 * ext4_fc_value_len_isvalid(), tag2str() (fs/ext4/fast_commit.h) and
 * fs/jbd2/recovery.c fc_do_one_pass() (Linux 6.x).  The area is jblocks
 * [j_fc_first, j_fc_last) = [s_maxlen - num_fc_blks + 1, s_maxlen): the
 * kernel's jbd2_journal_initialize_fast_commit() sets j_last = s_maxlen -
 * num_fc_blks, j_fc_first = j_last + 1, j_fc_last = s_maxlen, and
 * fc_do_one_pass() reads j_fc_first .. j_fc_last inclusive, so a scan that
 * does not stop before s_maxlen fails in jread().
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "e4_int.h"

/* Value sizes (fs/ext4/fast_commit.h structures). */
#define FC_HEAD_LEN		8	/* le32 features, le32 tid */
#define FC_ADD_RANGE_LEN	16	/* le32 ino, struct ext4_extent */
#define FC_DEL_RANGE_LEN	12	/* le32 ino, lblk, len */
#define FC_DENTRY_LEN		8	/* le32 parent, ino; then the name */
#define FC_INODE_HDR		4	/* le32 ino; then the raw inode */
#define FC_TAIL_LEN		8	/* le32 tid, le32 crc */
#define FC_SUPPORTED_FEATURES	0	/* EXT4_FC_SUPPORTED_FEATURES */
#define EXT4_NAME_LEN		255
#define GOOD_OLD_INODE_SIZE	128

const char *e4_fc_tag_name(unsigned int tag)
{
	switch (tag) {	/* tag2str() */
	case E4_FC_TAG_LINK:		return "ADD_ENTRY";
	case E4_FC_TAG_UNLINK:	return "DEL_ENTRY";
	case E4_FC_TAG_ADD_RANGE:	return "ADD_RANGE";
	case E4_FC_TAG_CREAT:		return "CREAT_DENTRY";
	case E4_FC_TAG_DEL_RANGE:	return "DEL_RANGE";
	case E4_FC_TAG_INODE:		return "INODE";
	case E4_FC_TAG_PAD:		return "PAD";
	case E4_FC_TAG_TAIL:		return "TAIL";
	case E4_FC_TAG_HEAD:		return "HEAD";
	}
	return "ERROR";
}

const char *e4_fc_stop_name(int stop)
{
	switch (stop) {
	case E4_FC_STOP_NONE:		return "none";
	case E4_FC_STOP_NO_HEAD:	return "no-head";
	case E4_FC_STOP_HEAD_TID:	return "head-tid";
	case E4_FC_STOP_BAD_TAG:	return "bad-tag";
	case E4_FC_STOP_TAIL_TID:	return "tail-tid";
	case E4_FC_STOP_TAIL_CRC:	return "tail-crc";
	case E4_FC_STOP_NOT_LAST:	return "not-last";
	case E4_FC_FAIL_BAD_TAG:	return "fail-bad-tag";
	case E4_FC_FAIL_TAIL:		return "fail-tail";
	case E4_FC_FAIL_FEATURES:	return "fail-features";
	case E4_FC_FAIL_AREA_END:	return "fail-area-end";
	case E4_FC_FAIL_IO:		return "fail-io";
	case E4_FC_FAIL_REPLAY:		return "fail-replay";
	}
	return "unknown";
}

const char *e4_fc_fate_name(int fate)
{
	switch (fate) {
	case E4_FC_NOT_REPLAYED:	return "not-replayed";
	case E4_FC_APPLIED:		return "applied";
	case E4_FC_MARKER:		return "marker";
	case E4_FC_NO_INODE:		return "no-inode";
	case E4_FC_NO_DIR:		return "no-dir";
	case E4_FC_NO_ENTRY:		return "no-entry";
	case E4_FC_OTHER_INODE:		return "other-inode";
	case E4_FC_EXISTS:		return "exists";
	case E4_FC_NOT_EXTENT:		return "not-extent";
	case E4_FC_DELETED:		return "deleted";
	case E4_FC_GAVE_UP:		return "gave-up";
	}
	return "unknown";
}

char *e4_fc_format_tag(const struct e4_fc_tag *t, char *buf, size_t len)
{
	const char *n = e4_fc_tag_name(t->tag);

	/* The formats of debugfs logdump's dump_fc_block(). */
	switch (t->tag) {
	case E4_FC_TAG_ADD_RANGE:
		snprintf(buf, len, "tag %s, inode %u, lblk %u, pblk %llu, "
			 "len %u%s", n, t->ino, t->lblk,
			 (unsigned long long)t->pblk, t->count,
			 t->unwritten ? " (unwritten)" : "");
		break;
	case E4_FC_TAG_DEL_RANGE:
		snprintf(buf, len, "tag %s, inode %u, lblk %u, len %u", n,
			 t->ino, t->lblk, t->count);
		break;
	case E4_FC_TAG_LINK:
	case E4_FC_TAG_UNLINK:
	case E4_FC_TAG_CREAT:
		snprintf(buf, len, "tag %s, parent %u, ino %u, name \"%.*s\"",
			 n, t->parent, t->ino, (int)t->namelen, t->name);
		break;
	case E4_FC_TAG_INODE:
		snprintf(buf, len, "tag %s, inode %u", n, t->ino);
		break;
	case E4_FC_TAG_TAIL:
		snprintf(buf, len, "tag %s, tid %u", n, t->tid);
		break;
	case E4_FC_TAG_HEAD:
		snprintf(buf, len, "tag %s, features 0x%x, tid %u", n,
			 t->features, t->tid);
		break;
	default:
		snprintf(buf, len, "tag %s", n);
	}
	return buf;
}

/* ext4_fc_value_len_isvalid(): the value length the kernel accepts. */
static int value_len_ok(unsigned int tag, unsigned int len,
			unsigned int inode_size)
{
	switch (tag) {
	case E4_FC_TAG_ADD_RANGE:
		return len == FC_ADD_RANGE_LEN;
	case E4_FC_TAG_DEL_RANGE:
		return len == FC_DEL_RANGE_LEN;
	case E4_FC_TAG_CREAT:
	case E4_FC_TAG_LINK:
	case E4_FC_TAG_UNLINK:
		return len >= FC_DENTRY_LEN + 1 &&
			len <= FC_DENTRY_LEN + EXT4_NAME_LEN;
	case E4_FC_TAG_INODE:
		return len >= FC_INODE_HDR + GOOD_OLD_INODE_SIZE &&
			len <= FC_INODE_HDR + inode_size;
	case E4_FC_TAG_PAD:
		return 1;
	case E4_FC_TAG_TAIL:
		return len >= FC_TAIL_LEN;
	case E4_FC_TAG_HEAD:
		return len == FC_HEAD_LEN;
	}
	return 0;
}

/* Decode the value of @t (its length already checked). */
static void decode(struct e4_fc_tag *t)
{
	const unsigned char *v = t->val;
	unsigned int elen;

	switch (t->tag) {
	case E4_FC_TAG_ADD_RANGE:
		/* le32 ino; struct ext4_extent: le32 ee_block, le16 ee_len,
		 * le16 ee_start_hi, le32 ee_start_lo */
		t->ino = e4_le32(v);
		t->lblk = e4_le32(v + 4);
		elen = e4_le16(v + 8);
		t->unwritten = elen > EXT_INIT_MAX_LEN;
		t->count = t->unwritten ? elen - EXT_INIT_MAX_LEN : elen;
		t->pblk = ((blk64_t)e4_le16(v + 10) << 32) | e4_le32(v + 12);
		break;
	case E4_FC_TAG_DEL_RANGE:
		t->ino = e4_le32(v);
		t->lblk = e4_le32(v + 4);
		t->count = e4_le32(v + 8);
		break;
	case E4_FC_TAG_CREAT:
	case E4_FC_TAG_LINK:
	case E4_FC_TAG_UNLINK:
		t->parent = e4_le32(v);
		t->ino = e4_le32(v + 4);
		t->name = (const char *)v + FC_DENTRY_LEN;
		t->namelen = t->len - FC_DENTRY_LEN;
		break;
	case E4_FC_TAG_INODE:
		t->ino = e4_le32(v);
		break;
	case E4_FC_TAG_TAIL:
		t->tid = e4_le32(v);
		t->crc = e4_le32(v + 4);
		break;
	case E4_FC_TAG_HEAD:
		t->features = e4_le32(v);
		t->tid = e4_le32(v + 4);
		break;
	}
}

struct fcscanner {
	struct e4_fcscan *fc;
	size_t		tag_alloc, ev_alloc;
};

static errcode_t stop(struct fcscanner *sc, int why, errcode_t fail,
		      blk64_t jblk, uint32_t off, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Record where and why the scan stops (an event, as scan.c records). */
static errcode_t stop(struct fcscanner *sc, int why, errcode_t fail,
		      blk64_t jblk, uint32_t off, const char *fmt, ...)
{
	struct e4_fcscan *fc = sc->fc;
	struct e4_scan_event *e;
	errcode_t retval;
	va_list ap;

	fc->stop = why;
	fc->fail = fail;
	fc->stop_jblk = jblk;
	fc->stop_off = off;
	retval = grow(&fc->events, &sc->ev_alloc, fc->nevents + 1,
		      sizeof(*e));
	if (retval)
		return retval;
	e = &fc->events[fc->nevents++];
	e->tid = fc->expected_tid;
	e->jblk = jblk;
	e->kind = why;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return 0;
}

/* The kernel's fc_replay_num_tags: 0 before the first valid TAIL. */
#define HAVE_FC(fc)	((fc)->nreplay != 0)

/*
 * One block, ext4_fc_replay_scan(): *@more is 1 to go on with the next
 * block (JBD2_FC_REPLAY_CONTINUE), 0 when the scan stopped (fc->stop set).
 * Returns 0 or EXT2_ET_NO_MEMORY.
 */
static errcode_t scan_block(struct fcscanner *sc, blk64_t jblk,
			    const unsigned char *b, unsigned int bs,
			    unsigned int inode_size, size_t *cur_tag,
			    uint32_t *crc, int *more)
{
	struct e4_fcscan *fc = sc->fc;
	unsigned int off, tag, len;
	errcode_t retval;

	*more = 0;
	for (off = 0; off + E4_FC_TL_SIZE <= bs;
	     off += E4_FC_TL_SIZE + len) {
		struct e4_fc_tag *t;

		tag = e4_le16(b + off);
		len = e4_le16(b + off + 2);
		if (len > bs - off - E4_FC_TL_SIZE ||
		    !value_len_ok(tag, len, inode_size)) {
			if (HAVE_FC(fc))
				retval = stop(sc, E4_FC_STOP_BAD_TAG, 0, jblk,
					off, "tag %u (%s) at +%u: length %u "
					"invalid or unknown tag: end of fast "
					"commits (JBD2_FC_REPLAY_STOP)",
					tag, e4_fc_tag_name(tag), off, len);
			else
				retval = stop(sc, E4_FC_FAIL_BAD_TAG,
					E4_ERR_FC_BAD_TAG, jblk, off,
					"tag %u (%s) at +%u: length %u "
					"invalid or unknown tag before any "
					"complete fast commit: recovery "
					"fails (ECANCELED)", tag,
					e4_fc_tag_name(tag), off, len);
			return retval;
		}
		retval = grow(&fc->tags, &sc->tag_alloc, fc->ntags + 1,
			      sizeof(*t));
		if (retval)
			return retval;
		t = &fc->tags[fc->ntags];
		memset(t, 0, sizeof(*t));
		t->tag = tag;
		t->len = len;
		t->jblk = jblk;
		t->off = off;
		t->fc = fc->nfc;
		t->val = b + off + E4_FC_TL_SIZE;
		decode(t);
		switch (tag) {
		case E4_FC_TAG_HEAD:
			if (t->features & ~FC_SUPPORTED_FEATURES) {
				fc->ntags++;
				retval = stop(sc, E4_FC_FAIL_FEATURES,
					E4_ERR_FC_FEATURES, jblk, off,
					"HEAD features 0x%x "
					"unknown: recovery fails "
					"(EOPNOTSUPP)", t->features);
				return retval;
			}
			if (t->tid != fc->expected_tid) {
				fc->ntags++;
				retval = stop(sc, E4_FC_STOP_HEAD_TID, 0, jblk,
					off, "HEAD of tid %u, "
					"not %u (the tid after the last full "
					"commit): %s", t->tid,
					fc->expected_tid, HAVE_FC(fc) ?
					"end of fast commits" :
					"no fast commit to replay");
				return retval;
			}
			/* fall through */
		case E4_FC_TAG_ADD_RANGE:
		case E4_FC_TAG_DEL_RANGE:
		case E4_FC_TAG_LINK:
		case E4_FC_TAG_UNLINK:
		case E4_FC_TAG_CREAT:
		case E4_FC_TAG_INODE:
		case E4_FC_TAG_PAD:
			(*cur_tag)++;
			*crc = e4_crc32c(*crc, b + off, E4_FC_TL_SIZE + len);
			fc->ntags++;
			break;
		case E4_FC_TAG_TAIL:
			(*cur_tag)++;
			/* over the tag header and fc_tid */
			*crc = e4_crc32c(*crc, b + off, E4_FC_TL_SIZE + 4);
			t->crc_calc = *crc;
			fc->ntags++;
			*crc = 0;
			if (t->tid == fc->expected_tid &&
			    t->crc == t->crc_calc) {
				fc->nreplay = *cur_tag;
				fc->nfc++;
				break;
			}
			if (HAVE_FC(fc)) {
				int why = t->tid != fc->expected_tid ?
					E4_FC_STOP_TAIL_TID :
					E4_FC_STOP_TAIL_CRC;

				retval = stop(sc, why, 0, jblk, off,
					"TAIL +%u %s (tid %u, crc %08x, "
					"computed %08x): end of fast commits "
					"after %u (REPLAY_STOP)", off,
					why == E4_FC_STOP_TAIL_TID ?
					"of another tid" : "fails its crc",
					t->tid, t->crc, t->crc_calc, fc->nfc);
			} else {
				retval = stop(sc, E4_FC_FAIL_TAIL,
					E4_ERR_FC_BAD_TAIL, jblk, off,
					"first TAIL (tid %u, crc "
					"0x%08x, computed 0x%08x) invalid: "
					"recovery fails (EFSBADCRC)", t->tid,
					t->crc, t->crc_calc);
			}
			return retval;
		}
	}
	*more = 1;
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

errcode_t e4_fc_inodes(const struct e4_fcscan *fc, ext2_ino_t **inos,
		       size_t *n)
{
	ext2_ino_t *v = NULL;
	size_t i, k = 0, m;
	errcode_t retval;

	e4_error_tables_init();
	*inos = NULL;
	*n = 0;
	if (!fc || !fc->nreplay)
		return 0;
	retval = ext2fs_get_array(fc->nreplay * 2, sizeof(*v), &v);
	if (retval)
		return retval;
	for (i = 0; i < fc->nreplay; i++) {
		const struct e4_fc_tag *t = &fc->tags[i];

		if (t->ino)
			v[k++] = t->ino;
		if (t->parent)
			v[k++] = t->parent;
	}
	qsort(v, k, sizeof(*v), cmp_ino);
	for (i = 0, m = 0; i < k; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	*inos = v;
	*n = m;
	return 0;
}

errcode_t e4_fc_scan(e4_journal_t j, uint32_t expected_tid,
		     struct e4_fcscan **ret)
{
	struct fcscanner sc;
	struct e4_fcscan *fc;
	unsigned int bs = j->blocksize, inode_size;
	blk64_t jblk, maxlen = j->jsb.maxlen;
	size_t cur_tag = 0;
	uint32_t crc = 0;
	errcode_t retval;
	int more;

	e4_error_tables_init();
	*ret = NULL;
	memset(&sc, 0, sizeof(sc));
	retval = ext2fs_get_memzero(sizeof(*fc), &fc);
	if (retval)
		return retval;
	sc.fc = fc;
	fc->expected_tid = expected_tid;
	fc->blocksize = bs;
	fc->first_jblk = e4_jsb_log_end(j->sb) + 1;
	fc->end_jblk = maxlen;
	/* without a file system (tests) an INODE tag may fill the block */
	inode_size = j->fs ? (unsigned int)EXT2_INODE_SIZE(j->fs->super) : bs;
	if (fc->end_jblk > fc->first_jblk) {
		retval = ext2fs_get_mem((fc->end_jblk - fc->first_jblk) * bs,
					&fc->blocks);
		if (retval)
			goto fail;
	}
	/* fc_do_one_pass(): j_fc_first .. j_fc_last (= s_maxlen) inclusive */
	for (jblk = fc->first_jblk; ; jblk++) {
		unsigned char *b;

		if (jblk >= maxlen) {
			retval = stop(&sc, E4_FC_FAIL_AREA_END,
				E4_ERR_FC_AREA_END, jblk, 0, "the scan reaches jblock %llu = "
				"s_maxlen: "
				"recovery fails (jread: EFSCORRUPTED)",
				(unsigned long long)jblk);
			break;
		}
		b = fc->blocks + (jblk - fc->first_jblk) * bs;
		retval = e4_journal_read(j, jblk, 1, b);
		if (retval) {
			errcode_t err = retval;

			retval = stop(&sc, E4_FC_FAIL_IO, err, jblk, 0,
				"jblock %llu unreadable (%s): "
				"recovery fails", (unsigned long long)jblk,
				error_message(err));
			break;
		}
		fc->nread++;
		/* "Check if we can stop early" */
		if (jblk == fc->first_jblk &&
		    e4_le16(b) != E4_FC_TAG_HEAD) {
			retval = stop(&sc, E4_FC_STOP_NO_HEAD, 0, jblk, 0,
				"the area does not start with a HEAD "
				"tag: no fast commits");
			break;
		}
		retval = scan_block(&sc, jblk, b, bs, inode_size, &cur_tag,
				    &crc, &more);
		if (retval || !more)
			break;
	}
	if (retval)
		goto fail;
	/* Tags after the last valid TAIL are walked but not replayed. */
	*ret = fc;
	return 0;
fail:
	e4_fcscan_free(fc);
	return retval;
}

void e4_fcscan_free(struct e4_fcscan *fc)
{
	if (!fc)
		return;
	ext2fs_free_mem(&fc->blocks);
	ext2fs_free_mem(&fc->tags);
	ext2fs_free_mem(&fc->events);
	ext2fs_free_mem(&fc);
}
