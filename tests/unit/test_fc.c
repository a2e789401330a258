/*
 * test_fc.c --- unit tests of fc.c (the fast-commit scan, rule by rule of
 * the kernel's ext4_fc_replay_scan() and fc_do_one_pass(): where it stops
 * and when the recovery fails) on fast-commit areas built in memory, and
 * of cow_io.c (the copy-on-write io_manager: the lower channel is never
 * written, partial and byte-count writes, the written blocks listed).
 */
#include "unit.h"

#define BS	1024
#define NBLK	64
#define NFC	8		/* area: jblocks [57, 64) */
#define TID	7

struct fcb {
	uint8_t		img[NBLK * BS];
	uint32_t	blk, off;	/* where the next tag goes */
	uint32_t	crc;		/* since the previous TAIL */
	struct e4_memimg m;
	struct e4_journal j;
};

static void fcb_init(struct fcb *b)
{
	uint8_t *s = b->img;

	memset(b, 0, sizeof(*b));
	e4_put_be32(s + JBD2_H_MAGIC, JBD2_MAGIC);
	e4_put_be32(s + JBD2_H_BLOCKTYPE, JBD2_SUPERBLOCK_V2);
	e4_put_be32(s + JBD2_JSB_BLOCKSIZE, BS);
	e4_put_be32(s + JBD2_JSB_MAXLEN, NBLK);
	e4_put_be32(s + JBD2_JSB_FIRST, 1);
	e4_put_be32(s + JBD2_JSB_SEQUENCE, TID);
	e4_put_be32(s + JBD2_JSB_FEATURE_INCOMPAT,
		    JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	e4_put_be32(s + JBD2_JSB_NUM_FC_BLKS, NFC);
	b->blk = NBLK - NFC + 1;
	assert_int_equal(e4_jsb_log_end(s), NBLK - NFC);
}

static uint8_t *at(struct fcb *b)
{
	return b->img + (size_t)b->blk * BS + b->off;
}

/* One TLV (little-endian tag, len, value) into the running crc. */
static void tlv(struct fcb *b, uint16_t tag, uint16_t len, const void *val)
{
	uint8_t *p = at(b);

	p[0] = tag & 0xff;
	p[1] = tag >> 8;
	p[2] = len & 0xff;
	p[3] = len >> 8;
	if (len && val)
		memcpy(p + 4, val, len);
	b->crc = e4_crc32c(b->crc, p, 4u + len);
	b->off += 4u + len;
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void head(struct fcb *b, uint32_t features, uint32_t tid)
{
	uint8_t v[8];

	le32(v, features);
	le32(v + 4, tid);
	tlv(b, E4_FC_TAG_HEAD, 8, v);
}

static void inode_tag(struct fcb *b, uint32_t ino)
{
	uint8_t v[4 + 128];

	memset(v, 0, sizeof(v));
	le32(v, ino);
	tlv(b, E4_FC_TAG_INODE, sizeof(v), v);
}

static void add_range(struct fcb *b, uint32_t ino, uint32_t lblk,
		      uint16_t len, uint32_t pblk)
{
	uint8_t v[16];

	memset(v, 0, sizeof(v));
	le32(v, ino);
	le32(v + 4, lblk);
	v[8] = len & 0xff;
	v[9] = len >> 8;
	le32(v + 12, pblk);
	tlv(b, E4_FC_TAG_ADD_RANGE, sizeof(v), v);
}

/* PAD to the end of the block, then go on in the next one (the kernel's
 * ext4_fc_reserve_space()). */
static void pad(struct fcb *b)
{
	tlv(b, E4_FC_TAG_PAD, BS - b->off - 4, NULL);
	b->blk++;
	b->off = 0;
}

/* The TAIL (ext4_fc_write_tail()): its value runs to the end of the
 * block; crc over the tags since the last TAIL, its header and tid;
 * @crc_xor breaks it.  The next fast commit starts in the next block. */
static void tail(struct fcb *b, uint32_t tid, uint32_t crc_xor)
{
	uint8_t *p = at(b);
	uint16_t len = BS - b->off - 4;

	p[0] = E4_FC_TAG_TAIL;
	p[1] = 0;
	p[2] = len & 0xff;
	p[3] = len >> 8;
	le32(p + 4, tid);
	le32(p + 8, e4_crc32c(b->crc, p, 8) ^ crc_xor);
	b->crc = 0;
	b->blk++;
	b->off = 0;
}

static struct e4_fcscan *fcb_scan(struct fcb *b)
{
	struct e4_fcscan *fc;

	assert_int_equal(e4_memimg_init(&b->m, b->img, sizeof(b->img)), 0);
	assert_int_equal(e4_mem_io_manager->open(b->m.name, 0, &b->j.io), 0);
	assert_int_equal(io_channel_set_blksize(b->j.io, BS), 0);
	b->j.external = 1;
	b->j.blocksize = BS;
	b->j.real_len = NBLK;
	b->j.sb = b->img;
	e4_jsb_decode(b->img, &b->j.jsb);
	assert_int_equal(e4_fc_scan(&b->j, TID, &fc), 0);
	io_channel_close(b->j.io);
	e4_memimg_free(&b->m);
	assert_int_equal(fc->first_jblk, NBLK - NFC + 1);
	assert_int_equal(fc->end_jblk, NBLK);
	return fc;
}

static void expect(struct e4_fcscan *fc, int stop, errcode_t fail,
		   uint32_t nfc, size_t nreplay, blk64_t jblk)
{
	assert_int_equal(fc->stop, stop);
	assert_int_equal(fc->fail, fail);
	assert_int_equal(fc->nfc, nfc);
	assert_int_equal(fc->nreplay, nreplay);
	assert_int_equal(fc->stop_jblk, jblk);
	assert_int_equal(fc->nevents, 1);
	e4_fcscan_free(fc);
}

static void test_fc_valid(void **state)
{
	static struct fcb b;
	struct e4_fcscan *fc;

	(void)state;
	fcb_init(&b);
	head(&b, 0, TID);
	inode_tag(&b, 12);
	tail(&b, TID, 0);
	add_range(&b, 12, 0, 32768 + 5, 2000);	/* unwritten, 5 blocks */
	tail(&b, TID, 0);
	/* a zero block: tag 0 is no tag; after valid fast commits, a stop */
	fc = fcb_scan(&b);
	assert_int_equal(fc->ntags, 5);
	assert_int_equal(fc->tags[0].tag, E4_FC_TAG_HEAD);
	assert_int_equal(fc->tags[1].ino, 12);
	assert_int_equal(fc->tags[3].unwritten, 1);
	assert_int_equal(fc->tags[3].count, 5);
	assert_int_equal(fc->tags[3].pblk, 2000);
	assert_int_equal(fc->tags[3].fc, 1);
	assert_int_equal(fc->tags[4].crc, fc->tags[4].crc_calc);
	expect(fc, E4_FC_STOP_BAD_TAG, 0, 2, 5, 59);
}

static void test_fc_pad_spans(void **state)
{
	static struct fcb b;
	struct e4_fcscan *fc;

	(void)state;
	/* One fast commit over two blocks: the crc runs across the PAD. */
	fcb_init(&b);
	head(&b, 0, TID);
	inode_tag(&b, 12);
	inode_tag(&b, 13);
	pad(&b);
	add_range(&b, 13, 7, 1, 3000);
	tail(&b, TID, 0);
	fc = fcb_scan(&b);
	assert_int_equal(fc->tags[3].tag, E4_FC_TAG_PAD);
	assert_int_equal(fc->tags[4].jblk, 58);
	expect(fc, E4_FC_STOP_BAD_TAG, 0, 1, 6, 59);
}

static void test_fc_heads(void **state)
{
	static struct fcb b;

	(void)state;
	/* No HEAD first: no fast commits, quietly. */
	fcb_init(&b);
	inode_tag(&b, 12);
	tail(&b, TID, 0);
	expect(fcb_scan(&b), E4_FC_STOP_NO_HEAD, 0, 0, 0, 57);
	/* A HEAD of another tid: fast commits of an older transaction. */
	fcb_init(&b);
	head(&b, 0, TID - 1);
	tail(&b, TID - 1, 0);
	expect(fcb_scan(&b), E4_FC_STOP_HEAD_TID, 0, 0, 0, 57);
	/* Unknown features: the recovery fails (-EOPNOTSUPP). */
	fcb_init(&b);
	head(&b, 1, TID);
	tail(&b, TID, 0);
	expect(fcb_scan(&b), E4_FC_FAIL_FEATURES, E4_ERR_FC_FEATURES, 0, 0,
	       57);
}

static void test_fc_tails(void **state)
{
	static struct fcb b;

	(void)state;
	/* The first TAIL's crc fails: the recovery fails (-EFSBADCRC). */
	fcb_init(&b);
	head(&b, 0, TID);
	inode_tag(&b, 12);
	tail(&b, TID, 0x100);
	expect(fcb_scan(&b), E4_FC_FAIL_TAIL, E4_ERR_FC_BAD_TAIL, 0, 0, 57);
	/* The second one's: the first fast commit is replayed. */
	fcb_init(&b);
	head(&b, 0, TID);
	inode_tag(&b, 12);
	tail(&b, TID, 0);
	inode_tag(&b, 13);
	tail(&b, TID, 1);
	expect(fcb_scan(&b), E4_FC_STOP_TAIL_CRC, 0, 1, 3, 58);
	/* The second one of another tid (a stale one): the same. */
	fcb_init(&b);
	head(&b, 0, TID);
	inode_tag(&b, 12);
	tail(&b, TID, 0);
	inode_tag(&b, 13);
	tail(&b, TID - 1, 0);
	expect(fcb_scan(&b), E4_FC_STOP_TAIL_TID, 0, 1, 3, 58);
}

static void test_fc_bad_tags(void **state)
{
	static struct fcb b;
	uint8_t v[16];
	struct e4_fcscan *fc;

	(void)state;
	memset(v, 0, sizeof(v));
	/* An unknown tag before any TAIL: -ECANCELED. */
	fcb_init(&b);
	head(&b, 0, TID);
	tlv(&b, 0x55, 4, v);
	expect(fcb_scan(&b), E4_FC_FAIL_BAD_TAG, E4_ERR_FC_BAD_TAG, 0, 0, 57);
	/* ... after one: a stop; the tags walked are listed, not replayed */
	fcb_init(&b);
	head(&b, 0, TID);
	tail(&b, TID, 0);
	inode_tag(&b, 14);
	tlv(&b, 0x55, 4, v);
	fc = fcb_scan(&b);
	assert_int_equal(fc->ntags, 3);
	assert_int_equal(fc->stop_off, 4 + 132);
	expect(fc, E4_FC_STOP_BAD_TAG, 0, 1, 2, 58);
	/* Lengths ext4_fc_value_len_isvalid() refuses: ADD_RANGE of 12
	 * bytes, a dentry with no name, a value past the block end. */
	fcb_init(&b);
	head(&b, 0, TID);
	tlv(&b, E4_FC_TAG_ADD_RANGE, 12, v);
	expect(fcb_scan(&b), E4_FC_FAIL_BAD_TAG, E4_ERR_FC_BAD_TAG, 0, 0, 57);
	fcb_init(&b);
	head(&b, 0, TID);
	tlv(&b, E4_FC_TAG_CREAT, 8, v);
	expect(fcb_scan(&b), E4_FC_FAIL_BAD_TAG, E4_ERR_FC_BAD_TAG, 0, 0, 57);
	fcb_init(&b);
	head(&b, 0, TID);
	at(&b)[0] = E4_FC_TAG_PAD;
	at(&b)[2] = (BS - 12 - 4 + 1) & 0xff;
	at(&b)[3] = (BS - 12 - 4 + 1) >> 8;
	expect(fcb_scan(&b), E4_FC_FAIL_BAD_TAG, E4_ERR_FC_BAD_TAG, 0, 0, 57);
}

static void test_fc_area_end(void **state)
{
	static struct fcb b;
	int i;

	(void)state;
	/* Every block of the area a valid fast commit: fc_do_one_pass()
	 * reads on to j_fc_last = s_maxlen, which jread() refuses. */
	fcb_init(&b);
	head(&b, 0, TID);
	for (i = 0; i < NFC - 1; i++) {
		inode_tag(&b, 12 + i);
		tail(&b, TID, 0);
	}
	expect(fcb_scan(&b), E4_FC_FAIL_AREA_END, E4_ERR_FC_AREA_END, NFC - 1,
	       1 + 2 * (NFC - 1), NBLK);
}

/* ---- cow_io.c ----------------------------------------------------------- */

static void test_cow(void **state)
{
	static uint8_t base[16 * 4096];
	struct e4_memimg m;
	struct e4_cow *c;
	io_channel lower, io;
	uint8_t buf[8192], w[100];
	const uint8_t *d;
	blk64_t b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(base); i++)
		base[i] = (uint8_t)(i / 4096 + 1);
	assert_int_equal(e4_memimg_init(&m, base, sizeof(base)), 0);
	assert_int_equal(e4_mem_io_manager->open(m.name, 0, &lower), 0);
	assert_int_equal(io_channel_set_blksize(lower, 1024), 0);
	assert_int_equal(e4_cow_create(lower, 4096, &c), 0);
	assert_int_equal(e4_cow_io_manager->open(e4_cow_name(c), IO_FLAG_RW,
						 &io), 0);
	assert_int_equal(io_channel_set_blksize(io, 4096), 0);
	/* a 100-byte write into block 2 (byte count), at offset 5000 */
	memset(w, 0xee, sizeof(w));
	assert_int_equal(io_channel_set_blksize(io, 1000), 0);
	assert_int_equal(io_channel_write_blk64(io, 5, -100, w), 0);
	assert_int_equal(io_channel_set_blksize(io, 4096), 0);
	assert_int_equal(e4_cow_count(c), 1);
	d = e4_cow_block(c, 0, &b);
	assert_int_equal(b, 1);
	assert_int_equal(d[0], 2);
	assert_int_equal(d[5000 - 4096], 0xee);
	assert_int_equal(d[5000 - 4096 + 100], 2);
	/* reads across blocks 0..1 see it; the lower channel does not */
	assert_int_equal(io_channel_read_blk64(io, 0, 2, buf), 0);
	assert_int_equal(buf[4095], 1);
	assert_int_equal(buf[4999], 2);
	assert_int_equal(buf[5000], 0xee);
	assert_int_equal(buf[5099], 0xee);
	assert_int_equal(buf[5100], 2);
	assert_int_equal(m.nwrites, 0);
	assert_int_equal(io_channel_read_blk64(lower, 4, 1, buf), 0);
	assert_int_equal(buf[5000 - 4096], 2);
	/* a whole-block write, and zeroout */
	memset(buf, 0x77, 4096);
	assert_int_equal(io_channel_write_blk64(io, 3, 1, buf), 0);
	assert_int_equal(io_channel_zeroout(io, 4, 1), 0);
	assert_int_equal(e4_cow_count(c), 3);
	assert_int_equal(io_channel_read_blk64(io, 3, 2, buf), 0);
	assert_int_equal(buf[0], 0x77);
	assert_int_equal(buf[4096], 0);
	assert_null(e4_cow_block(c, 3, &b));
	assert_int_equal(m.nwrites, 0);
	io_channel_close(io);
	e4_cow_free(c);
	io_channel_close(lower);
	e4_memimg_free(&m);
	assert_int_equal(e4_cow_create(NULL, 4096, &c),
			 EXT2_ET_INVALID_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fc_valid),
		cmocka_unit_test(test_fc_pad_spans),
		cmocka_unit_test(test_fc_heads),
		cmocka_unit_test(test_fc_tails),
		cmocka_unit_test(test_fc_bad_tags),
		cmocka_unit_test(test_fc_area_end),
		cmocka_unit_test(test_cow),
	};

	add_error_table(&et_e4_error_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
