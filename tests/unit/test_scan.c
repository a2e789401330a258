/*
 * test_scan.c --- unit tests of scan.c and revoke.c on journals built
 * here byte by byte: tag sizes (journal_tag_bytes()), descriptor tag
 * walks, revoke records and r_count, the revoke rule, and whole scans of
 * small in-memory logs (commit checksum with csum v2 and v3, with and
 * without async_commit, the sequence check, wrap at the log end with a
 * fast-commit area), and journals opened with no fs
 * (e4_journal_open_file(): raw, journal device, neither).
 */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "unit.h"
#include "e4_int.h"

#define BS	1024U
#define NBLK	64U

static const uint32_t V3 = JBD2_FEATURE_INCOMPAT_CSUM_V3;
static const uint32_t V2 = JBD2_FEATURE_INCOMPAT_CSUM_V2;
static const uint32_t B64 = JBD2_FEATURE_INCOMPAT_64BIT;

static void test_tag_bytes(void **state)
{
	(void)state;
	assert_int_equal(e4_journal_tag_bytes(0), 8);
	assert_int_equal(e4_journal_tag_bytes(B64), 12);
	assert_int_equal(e4_journal_tag_bytes(V2), 10);
	assert_int_equal(e4_journal_tag_bytes(V2 | B64), 14);
	assert_int_equal(e4_journal_tag_bytes(V3), 16);
	assert_int_equal(e4_journal_tag_bytes(V3 | B64), 16);
	assert_int_equal(e4_journal_tag_bytes(JBD2_FEATURE_INCOMPAT_REVOKE |
					      JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT),
			 8);
}

static void header(uint8_t *b, uint32_t type, uint32_t tid)
{
	memset(b, 0, BS);
	e4_put_be32(b + JBD2_H_MAGIC, JBD2_MAGIC);
	e4_put_be32(b + JBD2_H_BLOCKTYPE, type);
	e4_put_be32(b + JBD2_H_SEQUENCE, tid);
}

/* Append a tag at *off: 64-bit block @blk, @flags, checksum @csum. */
static void put_tag(uint8_t *b, size_t *off, uint32_t incompat,
		    uint64_t blk, uint16_t flags, uint32_t csum)
{
	uint8_t *t = b + *off;

	e4_put_be32(t + JBD2_TAG_BLOCKNR, (uint32_t)blk);
	if (incompat & V3) {
		e4_put_be32(t + JBD2_TAG3_FLAGS, flags);
		e4_put_be32(t + JBD2_TAG3_CHECKSUM, csum);
	} else {
		e4_put_be16(t + JBD2_TAG_FLAGS, flags);
		e4_put_be16(t + JBD2_TAG_CHECKSUM, (uint16_t)csum);
	}
	if (incompat & B64)
		e4_put_be32(t + JBD2_TAG_BLOCKNR_HIGH, (uint32_t)(blk >> 32));
	*off += e4_journal_tag_bytes(incompat);
	if (!(flags & JBD2_FLAG_SAME_UUID)) {
		memset(b + *off, 0xab, 16);
		*off += 16;
	}
}

static void test_desc_parse(void **state)
{
	uint8_t b[BS];
	struct e4_jtag tags[200];
	uint32_t feats[] = { 0, B64, V2, V2 | B64, V3, V3 | B64 };
	size_t i, off, n, tb, want;

	(void)state;
	for (i = 0; i < 6; i++) {
		uint32_t f = feats[i];

		header(b, JBD2_DESCRIPTOR_BLOCK, 9);
		off = JBD2_HEADER_SIZE;
		put_tag(b, &off, f, 0x100000007ULL, 0, 0xdeadbeef);
		put_tag(b, &off, f, 8, JBD2_FLAG_SAME_UUID |
			JBD2_FLAG_ESCAPE, 0x12345678);
		put_tag(b, &off, f, 9, JBD2_FLAG_SAME_UUID |
			JBD2_FLAG_LAST_TAG, 1);
		/* Garbage after LAST_TAG is not a tag. */
		memset(b + off, 0x11, 20);
		n = e4_jdesc_parse(b, BS, f, tags, 200);
		assert_int_equal(n, 3);
		assert_int_equal(tags[0].fsblk,
				 (f & B64) ? 0x100000007ULL : 7);
		assert_int_equal(tags[0].flags, 0);
		assert_int_equal(tags[1].fsblk, 8);
		assert_int_equal(tags[1].flags, JBD2_FLAG_SAME_UUID |
				 JBD2_FLAG_ESCAPE);
		assert_int_equal(tags[2].flags & JBD2_FLAG_LAST_TAG,
				 JBD2_FLAG_LAST_TAG);
		if (f & V3)
			assert_int_equal(tags[1].csum, 0x12345678);
		else if (f & V2)
			assert_int_equal(tags[1].csum, 0x5678);
		else
			assert_int_equal(tags[1].csum, 0);

		/* No LAST_TAG: the walk ends where the next tag would
		 * cross the block end, less the tail with v2/v3. */
		header(b, JBD2_DESCRIPTOR_BLOCK, 9);
		tb = e4_journal_tag_bytes(f);
		for (off = JBD2_HEADER_SIZE; off + tb <= BS; )
			put_tag(b, &off, f, 5, JBD2_FLAG_SAME_UUID, 0);
		want = (BS - JBD2_HEADER_SIZE - ((f & (V2 | V3)) ? 4 : 0)) /
			tb;
		assert_int_equal(e4_jdesc_parse(b, BS, f, tags, 200), want);
	}
}

static void test_revoke_parse(void **state)
{
	uint8_t b[BS];
	blk64_t out[300];
	size_t n;

	(void)state;
	header(b, JBD2_REVOKE_BLOCK, 3);
	e4_put_be32(b + JBD2_REVOKE_COUNT, 16 + 3 * 4);
	e4_put_be32(b + 16, 10);
	e4_put_be32(b + 20, 11);
	e4_put_be32(b + 24, 0xfffffff0);
	assert_int_equal(e4_jrevoke_parse(b, BS, 0, out, 300, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 10);
	assert_int_equal(out[2], 0xfffffff0);
	/* The same bytes as 64-bit records: one full record only. */
	assert_int_equal(e4_jrevoke_parse(b, BS, B64, out, 300, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(out[0], (10ULL << 32) | 11);
	/* r_count may use the whole block, less the tail with v2/v3. */
	e4_put_be32(b + JBD2_REVOKE_COUNT, BS);
	assert_int_equal(e4_jrevoke_parse(b, BS, 0, out, 300, &n), 0);
	assert_int_equal(n, (BS - 16) / 4);
	assert_int_equal(e4_jrevoke_parse(b, BS, V3, out, 300, &n),
			 E4_ERR_JOURNAL_CORRUPT);
	e4_put_be32(b + JBD2_REVOKE_COUNT, BS - 4);
	assert_int_equal(e4_jrevoke_parse(b, BS, V3 | B64, out, 300, &n), 0);
	assert_int_equal(n, (BS - 4 - 16) / 8);
	e4_put_be32(b + JBD2_REVOKE_COUNT, BS + 1);
	assert_int_equal(e4_jrevoke_parse(b, BS, 0, out, 300, &n),
			 E4_ERR_JOURNAL_CORRUPT);
}

static void test_revoke_rule(void **state)
{
	struct e4_revoke_table *t;
	blk64_t b;

	(void)state;
	assert_int_equal(e4_revoke_new(0, &t), 0);
	assert_int_equal(e4_revoke_set(t, 100, 5), 0);
	/* Copies in the revoking tid and before are cancelled... */
	assert_int_equal(e4_revoke_test(t, 100, 5), 1);
	assert_int_equal(e4_revoke_test(t, 100, 4), 1);
	/* ...later ones are not, nor other blocks. */
	assert_int_equal(e4_revoke_test(t, 100, 6), 0);
	assert_int_equal(e4_revoke_test(t, 101, 1), 0);
	/* The newest revoking tid is kept. */
	assert_int_equal(e4_revoke_set(t, 100, 3), 0);
	assert_int_equal(e4_revoke_test(t, 100, 5), 1);
	assert_int_equal(e4_revoke_set(t, 100, 7), 0);
	assert_int_equal(e4_revoke_test(t, 100, 7), 1);
	assert_int_equal(e4_revoke_test(t, 100, 8), 0);
	/* tids wrap: 1 comes after 0xfffffffe. */
	assert_int_equal(e4_revoke_set(t, 200, 0xfffffffeU), 0);
	assert_int_equal(e4_revoke_test(t, 200, 1), 0);
	assert_int_equal(e4_revoke_test(t, 200, 0xfffffff0U), 1);
	assert_int_equal(e4_revoke_set(t, 200, 2), 0);
	assert_int_equal(e4_revoke_test(t, 200, 1), 1);
	assert_int_equal(e4_revoke_count(t), 2);
	/* Growth keeps every record; 64-bit block numbers. */
	for (b = 0; b < 20000; b++)
		assert_int_equal(e4_revoke_set(t, (b << 33) | 1, 10), 0);
	assert_int_equal(e4_revoke_count(t), 20002);
	for (b = 0; b < 20000; b++)
		assert_int_equal(e4_revoke_test(t, (b << 33) | 1, 10), 1);
	assert_int_equal(e4_revoke_test(t, 100, 7), 1);
	e4_revoke_free(t);
}

/* ---- whole scans of a journal built in memory ------------------------- */

struct jbuild {
	uint8_t		img[NBLK * BS];
	uint32_t	incompat;
	uint32_t	seed;
	uint32_t	log_end;
	struct e4_memimg m;
	struct e4_journal j;
};

static uint8_t *blk(struct jbuild *jb, uint32_t n)
{
	return jb->img + (size_t)n * BS;
}

static void jb_init(struct jbuild *jb, uint32_t incompat, uint32_t fc,
		    uint32_t start, uint32_t seq)
{
	uint8_t *s = jb->img;

	memset(jb, 0, sizeof(*jb));
	jb->incompat = incompat | (fc ? JBD2_FEATURE_INCOMPAT_FAST_COMMIT : 0);
	header(s, JBD2_SUPERBLOCK_V2, 0);
	e4_put_be32(s + JBD2_JSB_BLOCKSIZE, BS);
	e4_put_be32(s + JBD2_JSB_MAXLEN, NBLK);
	e4_put_be32(s + JBD2_JSB_FIRST, 1);
	e4_put_be32(s + JBD2_JSB_SEQUENCE, seq);
	e4_put_be32(s + JBD2_JSB_START, start);
	e4_put_be32(s + JBD2_JSB_FEATURE_INCOMPAT, jb->incompat);
	e4_put_be32(s + JBD2_JSB_NUM_FC_BLKS, fc);
	memset(s + JBD2_JSB_UUID, 0x42, 16);
	s[JBD2_JSB_CHECKSUM_TYPE] = JBD2_CRC32C_CHKSUM;
	e4_jsb_set_csum(s);
	jb->seed = e4_crc32c(~0U, s + JBD2_JSB_UUID, 16);
	jb->log_end = e4_jsb_log_end(s);
}

static uint32_t jb_wrap(struct jbuild *jb, uint32_t n)
{
	return n >= jb->log_end ? n - (jb->log_end - 1) : n;
}

/* A transaction at *pos: descriptor, one data block per @fsblks entry,
 * commit with time @sec; @bad_commit breaks the commit checksum. */
static void jb_trans(struct jbuild *jb, uint32_t *pos, uint32_t tid,
		     const uint64_t *fsblks, size_t n, uint64_t sec,
		     int bad_commit)
{
	uint8_t *d = blk(jb, *pos), *c, seq[4];
	size_t off = JBD2_HEADER_SIZE, i;
	uint32_t cs;

	header(d, JBD2_DESCRIPTOR_BLOCK, tid);
	*pos = jb_wrap(jb, *pos + 1);
	for (i = 0; i < n; i++) {
		uint8_t *data = blk(jb, *pos);

		memset(data, (int)(fsblks[i] & 0xff), BS);
		e4_put_be32(seq, tid);
		cs = e4_crc32c(e4_crc32c(jb->seed, seq, 4), data, BS);
		put_tag(d, &off, jb->incompat, fsblks[i],
			(i ? JBD2_FLAG_SAME_UUID : 0) |
			(i + 1 == n ? JBD2_FLAG_LAST_TAG : 0), cs);
		*pos = jb_wrap(jb, *pos + 1);
	}
	e4_put_be32(d + BS - 4, e4_crc32c(jb->seed, d, BS));
	c = blk(jb, *pos);
	header(c, JBD2_COMMIT_BLOCK, tid);
	c[JBD2_COMMIT_CHKSUM_TYPE] = JBD2_CRC32C_CHKSUM;
	c[JBD2_COMMIT_CHKSUM_SIZE] = 4;
	e4_put_be64(c + JBD2_COMMIT_SEC, sec);
	e4_put_be32(c + JBD2_COMMIT_CHKSUM, e4_crc32c(jb->seed, c, BS) ^
		    (bad_commit ? 1 : 0));
	*pos = jb_wrap(jb, *pos + 1);
}

static struct e4_jscan *jb_scan(struct jbuild *jb, int flags, uint32_t upto)
{
	struct e4_jscan *s;

	assert_int_equal(e4_memimg_init(&jb->m, jb->img, sizeof(jb->img)), 0);
	assert_int_equal(e4_mem_io_manager->open(jb->m.name, 0, &jb->j.io),
			 0);
	assert_int_equal(io_channel_set_blksize(jb->j.io, BS), 0);
	jb->j.external = 1;
	jb->j.blocksize = BS;
	jb->j.real_len = NBLK;
	jb->j.sb = jb->img;
	e4_jsb_decode(jb->img, &jb->j.jsb);
	/* A 64-block log keeps these tests small; the kernel would refuse
	 * it as too short (journal_check_superblock()), which is all that
	 * validation finds wrong.  The scan itself takes any length. */
	assert_int_equal(e4_jsb_validate(jb->img, BS, NBLK),
			 E4_ERR_JSB_TOO_SHORT);
	assert_int_equal(e4_journal_scan(&jb->j, flags, upto, &s), 0);
	io_channel_close(jb->j.io);
	e4_memimg_free(&jb->m);
	return s;
}

static void test_scan_commit_csum(void **state)
{
	static struct jbuild jb;
	static const uint64_t a[] = { 100, 101 }, b[] = { 102 },
		c[] = { 100 };
	static const uint32_t csum[] = { V3, V2 };
	struct e4_jscan *s;
	uint32_t pos;
	int async, v;

	(void)state;
	/* The commit block checksum is the same crc32c with csum v2 and
	 * v3 (jbd2_commit_block_csum_verify()). */
	for (v = 0; v < 4; v++) {
		async = v & 1;
		jb_init(&jb, csum[v >> 1] | B64 | (async ?
			JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT : 0), 0, 1, 7);
		pos = 1;
		jb_trans(&jb, &pos, 7, a, 2, 1000, 0);
		jb_trans(&jb, &pos, 8, b, 1, 1001, 1);
		jb_trans(&jb, &pos, 9, c, 1, 1002, 0);
		s = jb_scan(&jb, 0, 0);
		assert_int_equal(s->fail, 0);
		/* The bad commit ends the replayable log at its tid. */
		assert_int_equal(s->end_tid, 8);
		assert_int_equal(s->ncommitted, 1);
		assert_int_equal(s->corrupt, 1);
		assert_int_equal(s->trans[0].ntags, 2);
		assert_int_equal(s->trans[0].tags[1].jblk, 3);
		assert_int_equal(s->trans[0].tags[1].csum_ok, 1);
		assert_int_equal(s->trans[1].commit_csum_ok, 0);
		if (!async) {
			/* Without async_commit: j_failed_commit, stop. */
			assert_int_equal(s->stop, E4_SCAN_COMMIT_CSUM);
			assert_int_equal(s->stop_jblk, 7);
			assert_int_equal(s->has_failed_commit, 1);
			assert_int_equal(s->failed_commit, 8);
			assert_int_equal(s->ntrans, 2);
		} else {
			/* With it the scan goes on past the bad commit. */
			assert_int_equal(s->stop, E4_SCAN_NO_MAGIC);
			assert_int_equal(s->stop_jblk, 11);
			assert_int_equal(s->has_failed_commit, 0);
			assert_int_equal(s->ntrans, 3);
			assert_int_equal(s->trans[2].committed, 0);
		}
		e4_jscan_free(s);
	}

	/* upto: stop right after the commit of tid 7. */
	jb_init(&jb, V3 | B64, 0, 1, 7);
	pos = 1;
	jb_trans(&jb, &pos, 7, a, 2, 1000, 0);
	jb_trans(&jb, &pos, 8, b, 1, 1001, 0);
	s = jb_scan(&jb, E4_SCANF_UPTO, 7);
	assert_int_equal(s->stop, E4_SCAN_UPTO);
	assert_int_equal(s->end_tid, 8);
	assert_int_equal(s->ncommitted, 1);
	e4_jscan_free(s);

	/* The sequence check (do_one_pass(): sequence != next_commit_ID
	 * ends the log): a block of a later tid than the next one expected
	 * ends it as an older one does. */
	jb_init(&jb, V3 | B64, 0, 1, 7);
	pos = 1;
	jb_trans(&jb, &pos, 7, a, 2, 1000, 0);
	jb_trans(&jb, &pos, 9, b, 1, 1001, 0);
	s = jb_scan(&jb, 0, 0);
	assert_int_equal(s->fail, 0);
	assert_int_equal(s->stop, E4_SCAN_SEQUENCE);
	assert_int_equal(s->stop_jblk, 5);
	assert_int_equal(s->end_tid, 8);
	assert_int_equal(s->ncommitted, 1);
	assert_int_equal(s->ntrans, 1);
	e4_jscan_free(s);

	/* A bad data block: its tag checksum fails, the scan does not. */
	jb_init(&jb, V3 | B64, 0, 1, 7);
	pos = 1;
	jb_trans(&jb, &pos, 7, a, 2, 1000, 0);
	blk(&jb, 2)[10] ^= 1;
	s = jb_scan(&jb, 0, 0);
	assert_int_equal(s->end_tid, 8);
	assert_int_equal(s->trans[0].tags[0].csum_ok, 0);
	assert_int_equal(s->trans[0].tags[1].csum_ok, 1);
	assert_int_equal(s->nbad_tag_csum, 1);
	e4_jscan_free(s);
}

static void test_scan_wrap_fc(void **state)
{
	static struct jbuild jb;
	static const uint64_t a[] = { 1, 2, 3, 4 }, b[] = { 5 };
	struct e4_jscan *s;
	uint32_t pos;

	(void)state;
	/* 8 fast-commit blocks: the log is jblocks [1, 56); a v2 journal
	 * (14-byte tags, 16-bit tag checksums) wrapping there. */
	jb_init(&jb, V2 | B64, 8, 53, 20);
	assert_int_equal(jb.log_end, 56);
	pos = 53;
	jb_trans(&jb, &pos, 20, a, 4, 50, 0);
	jb_trans(&jb, &pos, 21, b, 1, 51, 0);
	/* A fast commit (little-endian TLVs: tag, len, value) at log_end +
	 * 1: HEAD (features 0, tid 22), then TAIL (tid 22, crc32c from 0
	 * over the HEAD and the TAIL's header and tid), padded to the end. */
	blk(&jb, 57)[0] = E4_FC_TAG_HEAD;
	blk(&jb, 57)[2] = 8;
	blk(&jb, 57)[8] = 22;
	blk(&jb, 57)[12] = E4_FC_TAG_TAIL;
	blk(&jb, 57)[14] = (BS - 16) & 0xff;
	blk(&jb, 57)[15] = (BS - 16) >> 8;
	blk(&jb, 57)[16] = 22;
	{
		uint32_t crc = e4_crc32c(0, blk(&jb, 57), 20);

		blk(&jb, 57)[20] = crc & 0xff;
		blk(&jb, 57)[21] = (crc >> 8) & 0xff;
		blk(&jb, 57)[22] = (crc >> 16) & 0xff;
		blk(&jb, 57)[23] = crc >> 24;
	}
	s = jb_scan(&jb, 0, 0);
	assert_int_equal(s->fail, 0);
	assert_int_equal(s->log_end, 56);
	assert_int_equal(s->end_tid, 22);
	assert_int_equal(s->ncommitted, 2);
	assert_int_equal(s->tag_bytes, 14);
	assert_int_equal(s->trans[0].tags[0].jblk, 54);
	assert_int_equal(s->trans[0].tags[1].jblk, 55);
	assert_int_equal(s->trans[0].tags[2].jblk, 1);
	assert_int_equal(s->trans[0].tags[3].jblk, 2);
	assert_int_equal(s->trans[0].tags[3].csum_ok, 1);
	assert_int_equal(s->trans[0].last_jblk, 3);
	assert_int_equal(s->trans[1].first_jblk, 4);
	assert_int_equal(s->stop_jblk, 7);
	assert_int_equal(s->fc_blocks_used, 1);
	assert_int_equal(s->fc_live, 1);
	assert_non_null(s->fc);
	assert_int_equal(s->fc->fail, 0);
	assert_int_equal(s->fc->nfc, 1);
	assert_int_equal(s->fc->nreplay, 2);
	assert_int_equal(s->fc->first_jblk, 57);
	e4_jscan_free(s);

	/* The HEAD alone: no valid TAIL before a zero tag, the kernel's
	 * recovery fails (ext4_fc_replay_scan(): -ECANCELED). */
	memset(blk(&jb, 57) + 12, 0, 12);
	s = jb_scan(&jb, 0, 0);
	assert_int_equal(s->fail, 0);
	assert_int_equal(s->fc->fail, E4_ERR_FC_BAD_TAG);
	assert_int_equal(s->fc->nreplay, 0);
	e4_jscan_free(s);
}

/* A fast-commit area covering the whole log: no log to walk; the scan
 * must fail rather than wrap in place. */
static void test_scan_no_log(void **state)
{
	static struct jbuild jb;
	struct e4_jscan *s;

	(void)state;
	jb_init(&jb, V3 | B64, NBLK - 1, 1, 7);
	header(blk(&jb, 1), JBD2_DESCRIPTOR_BLOCK, 7);
	jb.j.jsb.start = 1;
	assert_int_equal(e4_memimg_init(&jb.m, jb.img, sizeof(jb.img)), 0);
	assert_int_equal(e4_mem_io_manager->open(jb.m.name, 0, &jb.j.io), 0);
	assert_int_equal(io_channel_set_blksize(jb.j.io, BS), 0);
	jb.j.external = 1;
	jb.j.blocksize = BS;
	jb.j.real_len = NBLK;
	jb.j.sb = jb.img;
	e4_jsb_decode(jb.img, &jb.j.jsb);
	assert_int_equal(e4_journal_scan(&jb.j, 0, 0, &s), 0);
	assert_int_equal(s->fail, E4_ERR_JOURNAL_CORRUPT);
	assert_int_equal(s->ncommitted, 0);
	e4_jscan_free(s);
	io_channel_close(jb.j.io);
	e4_memimg_free(&jb.m);
}

/* ---- e4_journal_open_file(): a journal with no fs ---------------------- */

/* Open @len bytes at @buf as a journal file through mem_io; the image
 * @m lives until the journal is closed (close_buf()). */
static errcode_t open_buf(struct e4_memimg *m, uint8_t *buf, size_t len,
			  int flags, e4_journal_t *j)
{
	assert_int_equal(e4_memimg_init(m, buf, len), 0);
	return e4_journal_open_file(m->name, e4_mem_io_manager, NULL, flags,
				    j);
}

static void close_buf(struct e4_memimg *m, e4_journal_t j)
{
	assert_int_equal(e4_journal_close(j), 0);
	e4_memimg_free(m);
}

static void test_open_file(void **state)
{
	static struct jbuild jb;
	static uint8_t dev[(NBLK + 2) * BS];
	struct ext2_super_block *es = (struct ext2_super_block *)(dev + 1024);
	uint64_t fsblks[] = { 100, 101 };
	struct e4_jscan *s;
	struct e4_plan *p;
	struct e4_memimg m;
	e4_journal_t j;
	uint32_t pos = 1;

	(void)state;
	/* A raw journal: its superblock at byte 0; no fs, no block bound. */
	jb_init(&jb, V3 | B64, 0, 1, 7);
	jb_trans(&jb, &pos, 7, fsblks, 2, 1000, 0);
	assert_int_equal(open_buf(&m, jb.img, sizeof(jb.img), 0, &j),
			 E4_ERR_JSB_TOO_SHORT);	/* (64 blocks, as above) */
	assert_non_null(j);
	assert_null(j->fs);
	assert_int_equal(j->file_kind, E4_JOURNAL_FILE_RAW);
	assert_int_equal(j->blocksize, BS);
	assert_int_equal(j->sb_jblk, 0);
	assert_int_equal(j->jsb.sequence, 7);
	assert_int_equal(e4_journal_scan(j, 0, 0, &s), 0);
	assert_int_equal(s->ncommitted, 1);
	assert_int_equal(s->trans[0].ntags, 2);
	assert_int_equal(e4_plan_build(j, s, &p), 0);
	assert_int_equal(s->trans[0].tags[1].fate, E4_TAG_REPLAY);
	e4_plan_free(p);
	e4_jscan_free(s);
	close_buf(&m, j);
	/* Read-only only. */
	assert_int_equal(open_buf(&m, jb.img, sizeof(jb.img), E4_JOURNAL_RW,
				  &j), EXT2_ET_INVALID_ARGUMENT);
	assert_null(j);
	e4_memimg_free(&m);

	/* An external journal device (1k blocks): the ext2 superblock at
	 * byte 1024 with journal_dev, the journal superblock in block 2. */
	memset(dev, 0, sizeof(dev));
	memcpy(dev + 2 * BS, jb.img, NBLK * BS);
	es->s_magic = ext2fs_cpu_to_le16(EXT2_SUPER_MAGIC);
	es->s_log_block_size = 0;
	es->s_blocks_count = ext2fs_cpu_to_le32(NBLK + 2);
	es->s_feature_incompat =
		ext2fs_cpu_to_le32(EXT3_FEATURE_INCOMPAT_JOURNAL_DEV);
	assert_int_equal(open_buf(&m, dev, sizeof(dev), 0, &j),
			 E4_ERR_JSB_TOO_SHORT);
	assert_non_null(j);
	assert_int_equal(j->file_kind, E4_JOURNAL_FILE_DEV);
	assert_int_equal(j->sb_jblk, 2);
	assert_int_equal(j->real_len, NBLK + 2);
	assert_int_equal(j->jsb.sequence, 7);
	close_buf(&m, j);
	/* ... without journal_dev: a file system. */
	es->s_feature_incompat = 0;
	assert_int_equal(open_buf(&m, dev, sizeof(dev), 0, &j),
			 E4_ERR_JOURNAL_FILE_IS_FS);
	assert_null(j);
	e4_memimg_free(&m);
	/* Neither. */
	es->s_magic = 0;
	assert_int_equal(open_buf(&m, dev, sizeof(dev), 0, &j),
			 E4_ERR_NOT_JOURNAL_FILE);
	assert_null(j);
	e4_memimg_free(&m);
	/* A raw journal superblock with a block size that is none. */
	e4_put_be32(jb.img + JBD2_JSB_BLOCKSIZE, 3000);
	assert_int_equal(open_buf(&m, jb.img, sizeof(jb.img), 0, &j),
			 E4_ERR_JSB_BLOCKSIZE);
	assert_null(j);
	e4_memimg_free(&m);
}

/* ---- jview.c and the threaded tag check, on a journal file ----------- */

#define BIGN	12288U		/* 12 MiB of 1 KiB jblocks: past one window */
#define BIGT	200U		/* transactions of ... */
#define BIGK	50U		/* ... tags each: 10000 checksums pending */

/* A raw journal of BIGN jblocks in a file: BIGT transactions of BIGK
 * copies, v3 checksums; the copy of tid 150's 8th tag corrupted.
 * Returns the file's path (unlink() it) and the jblock of the bad copy. */
static char *big_journal(blk64_t *bad_jblk)
{
	static char path[32];
	uint8_t *img = calloc(BIGN, BS), *s = img, seq[4];
	uint32_t seed, pos = 1, t, k;
	int fd;

	assert_non_null(img);
	header(s, JBD2_SUPERBLOCK_V2, 0);
	e4_put_be32(s + JBD2_JSB_BLOCKSIZE, BS);
	e4_put_be32(s + JBD2_JSB_MAXLEN, BIGN);
	e4_put_be32(s + JBD2_JSB_FIRST, 1);
	e4_put_be32(s + JBD2_JSB_SEQUENCE, 1);
	e4_put_be32(s + JBD2_JSB_START, 1);
	e4_put_be32(s + JBD2_JSB_FEATURE_INCOMPAT, V3 | B64);
	memset(s + JBD2_JSB_UUID, 0x42, 16);
	s[JBD2_JSB_CHECKSUM_TYPE] = JBD2_CRC32C_CHKSUM;
	e4_jsb_set_csum(s);
	seed = e4_crc32c(~0U, s + JBD2_JSB_UUID, 16);
	for (t = 1; t <= BIGT; t++) {
		uint8_t *d = img + (size_t)pos * BS, *c;
		size_t off = JBD2_HEADER_SIZE;

		header(d, JBD2_DESCRIPTOR_BLOCK, t);
		pos++;
		for (k = 0; k < BIGK; k++, pos++) {
			uint8_t *data = img + (size_t)pos * BS;
			uint64_t fsblk = 1000 + t * BIGK + k;

			memset(data, (int)(fsblk & 0xff), BS);
			e4_put_be64(data + 8, fsblk);
			e4_put_be32(seq, t);
			put_tag(d, &off, V3 | B64, fsblk,
				(k ? JBD2_FLAG_SAME_UUID : 0) |
				(k + 1 == BIGK ? JBD2_FLAG_LAST_TAG : 0),
				e4_crc32c(e4_crc32c(seed, seq, 4), data, BS));
			if (t == 150 && k == 7) {
				data[100] ^= 1;
				*bad_jblk = pos;
			}
		}
		e4_put_be32(d + BS - 4, e4_crc32c(seed, d, BS));
		c = img + (size_t)pos++ * BS;
		header(c, JBD2_COMMIT_BLOCK, t);
		c[JBD2_COMMIT_CHKSUM_TYPE] = JBD2_CRC32C_CHKSUM;
		c[JBD2_COMMIT_CHKSUM_SIZE] = 4;
		e4_put_be64(c + JBD2_COMMIT_SEC, 1000 + t);
		e4_put_be32(c + JBD2_COMMIT_CHKSUM, e4_crc32c(seed, c, BS));
	}
	assert_true(pos < BIGN);
	strcpy(path, "/tmp/e4-test-jview.XXXXXX");	/* each call anew */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, (size_t)BIGN * BS),
			 (ssize_t)BIGN * BS);
	assert_int_equal(close(fd), 0);
	free(img);
	return path;
}

/* Every tag's csum_ok of @s, in log order, into @ok (BIGT * BIGK). */
static void csums(const struct e4_jscan *s, int *ok)
{
	size_t i, k, n = 0;

	assert_int_equal(s->ncommitted, BIGT);
	for (i = 0; i < s->ntrans; i++)
		for (k = 0; k < s->trans[i].ntags; k++)
			ok[n++] = s->trans[i].tags[k].csum_ok;
	assert_int_equal(n, BIGT * BIGK);
}

static void test_jview(void **state)
{
	static int ok_scan[BIGT * BIGK], ok_defer[BIGT * BIGK];
	static uint8_t buf[4 * BS], ref[4 * BS];
	const unsigned char *d;
	struct e4_jview *v, *v2;
	struct e4_jscan *s;
	blk64_t bad = 0, far = 11000;
	e4_journal_t j;
	char *path = big_journal(&bad);
	size_t i;
	int pass;

	(void)state;
	assert_int_equal(e4_journal_open_file(path, NULL, NULL, 0, &j), 0);

	/* The mapping reads what the channel reads. */
	assert_int_equal(e4_jview_open(j, &v), 0);
	assert_true(e4_jview_mapped(v));
	assert_int_equal(e4_jview_get(v, 10, 3, buf, &d), 0);
	assert_ptr_not_equal(d, buf);
	assert_int_equal(e4_journal_read(j, 10, 3, ref), 0);
	assert_memory_equal(d, ref, 3 * BS);
	/* Pinned: a block outside the window is read into buf instead of
	 * moving the window under the pointer handed out. */
	assert_int_equal(e4_jview_get(v, far, 2, buf, &d), 0);
	assert_ptr_equal(d, buf);
	assert_int_equal(e4_journal_read(j, far, 2, ref), 0);
	assert_memory_equal(buf, ref, 2 * BS);
	assert_int_equal(e4_jview_get(v, far, 2, NULL, &d),
			 EXT2_ET_OP_NOT_SUPPORTED);
	/* Unpinned, it moves. */
	e4_jview_unpin(v);
	assert_int_equal(e4_jview_get(v, far, 2, NULL, &d), 0);
	assert_memory_equal(d, ref, 2 * BS);
	/* A dup (no channel) reads the same. */
	assert_int_equal(e4_jview_dup(v, &v2), 0);
	assert_int_equal(e4_jview_get(v2, far, 2, NULL, &d), 0);
	assert_memory_equal(d, ref, 2 * BS);
	e4_jview_close(v2);
	/* Past the journal: refused, as a read is. */
	e4_jview_unpin(v);
	assert_int_equal(e4_jview_get(v, BIGN, 1, buf, &d),
			 EXT2_ET_BAD_BLOCK_NUM);
	e4_jview_close(v);

	/* E4_NO_MMAP: every request through the channel. */
	setenv("E4_NO_MMAP", "1", 1);
	assert_int_equal(e4_jview_open(j, &v), 0);
	assert_false(e4_jview_mapped(v));
	assert_int_equal(e4_jview_dup(v, &v2), EXT2_ET_OP_NOT_SUPPORTED);
	assert_int_equal(e4_jview_get(v, 10, 3, buf, &d), 0);
	assert_ptr_equal(d, buf);
	e4_jview_close(v);
	unsetenv("E4_NO_MMAP");

	/* The scan checking every tag, and a deferred scan whose 10000
	 * pending tags e4_jscan_check_tags() checks (on several threads
	 * here, mapped; then on this thread through the channel): the same
	 * verdict on every tag, the one bad copy found. */
	assert_int_equal(e4_journal_scan(j, 0, 0, &s), 0);
	csums(s, ok_scan);
	assert_int_equal(s->nbad_tag_csum, 1);
	e4_jscan_free(s);
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			setenv("E4_NO_MMAP", "1", 1);
		assert_int_equal(e4_journal_scan(j, E4_SCANF_DEFER_CSUM, 0,
						 &s), 0);
		assert_int_equal(s->ncsum_pending, BIGT * BIGK);
		assert_int_equal(e4_jscan_check_tags(j, s), 0);
		assert_int_equal(s->ncsum_pending, 0);
		assert_int_equal(s->nbad_tag_csum, 1);
		csums(s, ok_defer);
		assert_memory_equal(ok_scan, ok_defer, sizeof(ok_scan));
		for (i = 0; i < BIGT * BIGK; i++)
			assert_int_equal(ok_defer[i], i != 149 * BIGK + 7);
		assert_int_equal(s->trans[149].tags[7].jblk, bad);
		e4_jscan_free(s);
	}
	unsetenv("E4_NO_MMAP");
	assert_int_equal(e4_journal_close(j), 0);
	unlink(path);
}

/*
 * A journal file truncated while the view reads it (issue 24 item 6):
 * a page of the window already mapped and populated lies past the new
 * end.  The view notices the size change (fstat) before handing out a
 * pointer and fails every request from then on, E4_ERR_CHANGED_SIZE,
 * never a pointer into the dead part of the window (reading it was
 * SIGBUS); a dup made before the truncation too.  The scan and the
 * deferred tag check end with an error, not a signal.
 */
static void test_jview_shrink(void **state)
{
	static uint8_t buf[4 * BS];
	const unsigned char *d;
	struct e4_jview *v, *v2;
	struct e4_jscan *s = NULL;
	blk64_t bad = 0;
	e4_journal_t j;
	char *path = big_journal(&bad);
	errcode_t retval;

	(void)state;
	unsetenv("E4_NO_MMAP");
	assert_int_equal(e4_journal_open_file(path, NULL, NULL, 0, &j), 0);
	assert_int_equal(e4_jview_open(j, &v), 0);
	assert_true(e4_jview_mapped(v));
	/* the window [0, 8 MiB) mapped and populated */
	assert_int_equal(e4_jview_get(v, 10, 3, buf, &d), 0);
	assert_ptr_not_equal(d, buf);
	assert_int_equal(e4_jview_dup(v, &v2), 0);
	e4_jview_unpin(v);
	/* the file shrinks to 4 MiB under it */
	assert_int_equal(truncate(path, 4096 * BS), 0);
	/* jblock 5000 lies in the window, past the new end */
	assert_int_equal(e4_jview_get(v, 5000, 1, buf, &d),
			 E4_ERR_CHANGED_SIZE);
	assert_false(e4_jview_mapped(v));
	assert_true(e4_jview_changed(v));
	e4_jview_unpin(v);
	/* before the end too: the file is not the one the view opened */
	assert_int_equal(e4_jview_get(v, 10, 3, buf, &d),
			 E4_ERR_CHANGED_SIZE);
	assert_int_equal(e4_jview_get(v2, 10, 1, NULL, &d),
			 E4_ERR_CHANGED_SIZE);
	e4_jview_close(v2);
	e4_jview_close(v);
	/* a whole scan of the shrunk log: an error or a scan, no signal */
	retval = e4_journal_scan(j, E4_SCANF_DEFER_CSUM, 0, &s);
	if (!retval) {
		retval = e4_jscan_check_tags(j, s);
		e4_jscan_free(s);
	}
	(void)retval;
	e4_journal_close(j);
	unlink(path);
}

/* e4_jview_apply() function: truncate the file under the read, then
 * read the mapped bytes past the new end (SIGBUS without the guard). */
struct shrink_arg {
	const char	*path;
	unsigned int	sum, reached;
};

static void shrink_then_read(void *arg, const unsigned char *d)
{
	struct shrink_arg *a = arg;
	const volatile unsigned char *p = d;

	a->reached = 1;
	assert_int_equal(truncate(a->path, 0), 0);
	a->sum += p[BS - 1];	/* faults: the page is gone */
	a->reached = 2;
}

/*
 * The SIGBUS guard (issue 24 item 6): a file truncated while a caller's
 * function reads the mapping (inside e4_jview_apply()) is
 * E4_ERR_CHANGED_SIZE: the function is cut at the faulting load, the
 * view gives up its mapping and fails every later request; the process
 * lives.  A SIGBUS outside any read of the view keeps its default.
 */
static void test_jview_sigbus(void **state)
{
	static uint8_t buf[BS];
	struct shrink_arg a = { NULL, 0, 0 };
	struct e4_jview *v;
	struct sigaction sa;
	blk64_t bad = 0;
	e4_journal_t j;
	char *path = big_journal(&bad);
	const unsigned char *d;

	(void)state;
	unsetenv("E4_NO_MMAP");
	a.path = path;
	assert_int_equal(e4_journal_open_file(path, NULL, NULL, 0, &j), 0);
	assert_int_equal(e4_jview_open(j, &v), 0);
	assert_true(e4_jview_mapped(v));
	assert_int_equal(e4_jview_apply(v, 5000, 1, buf, shrink_then_read,
					&a), E4_ERR_CHANGED_SIZE);
	assert_int_equal(a.reached, 1);
	assert_false(e4_jview_mapped(v));
	assert_true(e4_jview_changed(v));
	assert_int_equal(e4_jview_get(v, 10, 1, buf, &d),
			 E4_ERR_CHANGED_SIZE);
	e4_jview_close(v);
	/* the handler stays libe4's, chaining to the default */
	assert_int_equal(sigaction(SIGBUS, NULL, &sa), 0);
	assert_true(sa.sa_flags & SA_SIGINFO);
	e4_journal_close(j);
	unlink(path);
}

/*
 * A library caller's channel with an offset= io option reads the file
 * from byte N: the view must stay off (a mapping of the file from byte 0
 * would read elsewhere), even when the file holds the same journal twice
 * (the superblock reads alike both ways), here a corrupt copy first.
 */
static void test_jview_offset(void **state)
{
	blk64_t bad = 0;
	char *path = big_journal(&bad), opt[64];
	const size_t len = (size_t)BIGN * BS;
	struct e4_jview *v;
	struct e4_jscan *s;
	e4_journal_t j;
	io_channel io;
	uint8_t *img = malloc(len);
	FILE *f;

	(void)state;
	assert_non_null(img);
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fread(img, 1, len, f), len);
	/* the file: the journal with one more bad copy, then the journal */
	img[(size_t)(bad + 1) * BS + 7] ^= 1;
	rewind(f);
	assert_int_equal(fwrite(img, 1, len, f), len);
	img[(size_t)(bad + 1) * BS + 7] ^= 1;
	assert_int_equal(fwrite(img, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(img);

	/* through the channel with offset=len: the second copy */
	assert_int_equal(e4_journal_open_file(path, NULL, NULL, 0, &j), 0);
	io = j->io;
	snprintf(opt, sizeof(opt), "offset=%zu", len);
	assert_int_equal(io_channel_set_options(io, opt), 0);
	assert_int_equal(e4_jview_open(j, &v), 0);
	assert_false(e4_jview_mapped(v));
	e4_jview_close(v);
	assert_int_equal(e4_journal_scan(j, E4_SCANF_DEFER_CSUM, 0, &s), 0);
	assert_int_equal(e4_jscan_check_tags(j, s), 0);
	assert_int_equal(s->nbad_tag_csum, 1);	/* the second copy's one */
	e4_jscan_free(s);
	assert_int_equal(e4_journal_scan(j, 0, 0, &s), 0);
	assert_int_equal(s->nbad_tag_csum, 1);
	e4_jscan_free(s);
	assert_int_equal(e4_journal_close(j), 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tag_bytes),
		cmocka_unit_test(test_desc_parse),
		cmocka_unit_test(test_revoke_parse),
		cmocka_unit_test(test_revoke_rule),
		cmocka_unit_test(test_scan_commit_csum),
		cmocka_unit_test(test_scan_wrap_fc),
		cmocka_unit_test(test_scan_no_log),
		cmocka_unit_test(test_open_file),
		cmocka_unit_test(test_jview),
		cmocka_unit_test(test_jview_offset),
		cmocka_unit_test(test_jview_shrink),
		cmocka_unit_test(test_jview_sigbus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
