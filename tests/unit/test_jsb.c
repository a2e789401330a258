/*
 * test_jsb.c --- unit tests of jsb.c and crc.c on superblocks built here
 * byte by byte: decoding, checksum, validation, feature-edit rules.
 */
#include "unit.h"

/* A v2 journal superblock: 4 KiB blocks, 1024 blocks, empty log. */
static void make_jsb(uint8_t *b, uint32_t incompat)
{
	memset(b, 0, JBD2_JSB_SIZE);
	e4_put_be32(b + JBD2_H_MAGIC, JBD2_MAGIC);
	e4_put_be32(b + JBD2_H_BLOCKTYPE, JBD2_SUPERBLOCK_V2);
	e4_put_be32(b + JBD2_JSB_BLOCKSIZE, 4096);
	e4_put_be32(b + JBD2_JSB_MAXLEN, 1024);
	e4_put_be32(b + JBD2_JSB_FIRST, 1);
	e4_put_be32(b + JBD2_JSB_SEQUENCE, 7);
	e4_put_be32(b + JBD2_JSB_FEATURE_INCOMPAT, incompat);
	e4_put_be32(b + JBD2_JSB_NR_USERS, 1);
	memset(b + JBD2_JSB_UUID, 0x5a, 16);
	if (incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
			JBD2_FEATURE_INCOMPAT_CSUM_V3))
		b[JBD2_JSB_CHECKSUM_TYPE] = JBD2_CRC32C_CHKSUM;
	e4_jsb_set_csum(b);
}

static void test_crc_impls_agree(void **state)
{
	uint8_t buf[8192];
	uint32_t seeds[] = { 0, 1, ~0U, 0x12345678 };
	size_t lens[] = { 0, 1, 3, 7, 64, 1000, 4096, 8192 };
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	for (i = 0; i < 4; i++)
		for (k = 0; k < 8; k++)
			assert_int_equal(e4_crc32c(seeds[i], buf, lens[k]),
					 e4_crc32c_fallback(seeds[i], buf,
							    lens[k]));
	/* RFC 3720 B.4: 32 bytes of zeros -> crc32c 0x8A9136AA (with the
	 * standard ~0 seed and final inversion). */
	memset(buf, 0, 32);
	assert_int_equal(~e4_crc32c(~0U, buf, 32), 0x8A9136AA);
}

static void test_decode(void **state)
{
	uint8_t b[JBD2_JSB_SIZE];
	struct e4_jsb s;

	(void)state;
	make_jsb(b, JBD2_FEATURE_INCOMPAT_64BIT |
		 JBD2_FEATURE_INCOMPAT_CSUM_V3);
	e4_put_be32(b + JBD2_JSB_START, 5);
	e4_put_be32(b + JBD2_JSB_ERRNO, (uint32_t)-5);
	e4_jsb_set_csum(b);
	e4_jsb_decode(b, &s);
	assert_int_equal(s.blocktype, JBD2_SUPERBLOCK_V2);
	assert_int_equal(s.blocksize, 4096);
	assert_int_equal(s.maxlen, 1024);
	assert_int_equal(s.first, 1);
	assert_int_equal(s.sequence, 7);
	assert_int_equal(s.start, 5);
	assert_int_equal(s.errno_, -5);
	assert_int_equal(s.feature_incompat, 0x12);
	assert_int_equal(s.checksum_type, JBD2_CRC32C_CHKSUM);
	assert_int_equal(s.checksum, e4_jsb_csum(b));
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), 0);
}

static void test_validate_errors(void **state)
{
	uint8_t b[JBD2_JSB_SIZE];

	(void)state;
	make_jsb(b, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), 0);
	assert_int_equal(e4_jsb_validate(b, 1024, 1024),
			 E4_ERR_JSB_BLOCKSIZE);
	assert_int_equal(e4_jsb_validate(b, 4096, 1023), E4_ERR_JSB_MAXLEN);
	b[JBD2_JSB_CHECKSUM] ^= 1;
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), E4_ERR_JSB_CSUM);
	assert_false(e4_jsb_csum_ok(b));

	/* journal_check_superblock(): s_maxlen >= 1024 + fast-commit area */
	make_jsb(b, 0);
	e4_put_be32(b + JBD2_JSB_MAXLEN, 1000);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024),
			 E4_ERR_JSB_TOO_SHORT);
	make_jsb(b, JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	e4_put_be32(b + JBD2_JSB_NUM_FC_BLKS, 16);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024),
			 E4_ERR_JSB_TOO_SHORT);
	e4_put_be32(b + JBD2_JSB_MAXLEN, 1040);
	assert_int_equal(e4_jsb_validate(b, 4096, 1040), 0);

	make_jsb(b, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	b[0] = 0;
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), E4_ERR_JSB_MAGIC);

	make_jsb(b, 0);
	e4_put_be32(b + JBD2_H_BLOCKTYPE, JBD2_COMMIT_BLOCK);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024),
			 E4_ERR_JSB_BLOCKTYPE);

	make_jsb(b, 0);
	e4_put_be32(b + JBD2_JSB_FIRST, 0);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), E4_ERR_JSB_FIRST);
	e4_put_be32(b + JBD2_JSB_FIRST, 1024);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), E4_ERR_JSB_FIRST);

	make_jsb(b, 0);
	e4_put_be32(b + JBD2_JSB_START, 1024);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), E4_ERR_JSB_START);

	make_jsb(b, JBD2_FEATURE_INCOMPAT_CSUM_V2 |
		 JBD2_FEATURE_INCOMPAT_CSUM_V3);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024),
			 E4_ERR_FEATURE_CONFLICT);

	make_jsb(b, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	b[JBD2_JSB_CHECKSUM_TYPE] = JBD2_CRC32_CHKSUM;
	e4_jsb_set_csum(b);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024),
			 E4_ERR_JSB_CSUM_TYPE);

	make_jsb(b, 0x80);
	assert_int_equal(e4_jsb_validate(b, 4096, 1024),
			 E4_ERR_JSB_UNKNOWN_FEATURE);
}

static void test_fc_geometry(void **state)
{
	uint8_t b[JBD2_JSB_SIZE];

	(void)state;
	make_jsb(b, JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	e4_put_be32(b + JBD2_JSB_MAXLEN, 1040);
	assert_int_equal(e4_jsb_fc_blocks(b), JBD2_DEFAULT_FAST_COMMIT_BLOCKS);
	e4_put_be32(b + JBD2_JSB_NUM_FC_BLKS, 16);
	assert_int_equal(e4_jsb_fc_blocks(b), 16);
	assert_int_equal(e4_jsb_log_end(b), 1024);
	make_jsb(b, 0);
	e4_put_be32(b + JBD2_JSB_NUM_FC_BLKS, 16);
	assert_int_equal(e4_jsb_fc_blocks(b), 0);
	assert_int_equal(e4_jsb_log_end(b), 1024);
}

static void test_edit_features(void **state)
{
	uint8_t b[JBD2_JSB_SIZE], keep[JBD2_JSB_SIZE];
	char bad[64];

	(void)state;
	/* v3 on, on an empty journal: checksum type and checksum follow. */
	make_jsb(b, 0);
	assert_int_equal(e4_jsb_edit_features(b, "journal_checksum_v3", -1,
					      0, bad, sizeof(bad)), 0);
	assert_int_equal(e4_be32(b + JBD2_JSB_FEATURE_INCOMPAT),
			 JBD2_FEATURE_INCOMPAT_CSUM_V3);
	assert_int_equal(b[JBD2_JSB_CHECKSUM_TYPE], JBD2_CRC32C_CHKSUM);
	assert_true(e4_jsb_csum_ok(b));
	assert_int_equal(e4_jsb_validate(b, 4096, 1024), 0);

	/* v2 while v3 stays: refused, buffer untouched. */
	memcpy(keep, b, JBD2_JSB_SIZE);
	assert_int_equal(e4_jsb_edit_features(b, "journal_checksum_v2", -1,
					      0, bad, sizeof(bad)),
			 E4_ERR_FEATURE_CONFLICT);
	assert_memory_equal(b, keep, JBD2_JSB_SIZE);
	/* ... but swapping them in one edit is fine. */
	assert_int_equal(e4_jsb_edit_features(b, "^journal_checksum_v3,"
					      "journal_checksum_v2", -1, 0,
					      bad, sizeof(bad)), 0);
	assert_int_equal(e4_be32(b + JBD2_JSB_FEATURE_INCOMPAT),
			 JBD2_FEATURE_INCOMPAT_CSUM_V2);
	/* v1 with v2: conflict. */
	assert_int_equal(e4_jsb_edit_features(b, "journal_checksum", -1, 0,
					      bad, sizeof(bad)),
			 E4_ERR_FEATURE_CONFLICT);
	/* checksums off: type and checksum cleared */
	assert_int_equal(e4_jsb_edit_features(b, "^journal_checksum_v2", -1,
					      0, bad, sizeof(bad)), 0);
	assert_int_equal(b[JBD2_JSB_CHECKSUM_TYPE], 0);
	assert_int_equal(e4_be32(b + JBD2_JSB_CHECKSUM), 0);

	/* Unknown names are named back. */
	assert_int_equal(e4_jsb_edit_features(b, "journal_bogus", -1, 0,
					      bad, sizeof(bad)),
			 E4_ERR_UNKNOWN_FEATURE_NAME);
	assert_string_equal(bad, "journal_bogus");

	/* Non-empty journal: checksum/64bit changes refused, async ok. */
	make_jsb(b, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	e4_put_be32(b + JBD2_JSB_START, 3);
	e4_jsb_set_csum(b);
	memcpy(keep, b, JBD2_JSB_SIZE);
	assert_int_equal(e4_jsb_edit_features(b, "^journal_checksum_v3", -1,
					      0, bad, sizeof(bad)),
			 E4_ERR_JOURNAL_NOT_EMPTY);
	assert_int_equal(e4_jsb_edit_features(b, "journal_64bit", -1,
					      E4_FEAT_FS_64BIT, bad,
					      sizeof(bad)),
			 E4_ERR_JOURNAL_NOT_EMPTY);
	assert_memory_equal(b, keep, JBD2_JSB_SIZE);
	assert_int_equal(e4_jsb_edit_features(b, "journal_async_commit", -1,
					      0, bad, sizeof(bad)), 0);
	assert_true(e4_jsb_csum_ok(b));

	/* 64bit on a non-64bit fs: only with force. */
	make_jsb(b, 0);
	assert_int_equal(e4_jsb_edit_features(b, "journal_64bit", -1, 0,
					      bad, sizeof(bad)),
			 E4_ERR_64BIT_ON_32BIT_FS);
	assert_int_equal(e4_jsb_edit_features(b, "journal_64bit", -1,
					      E4_FEAT_FORCE, bad,
					      sizeof(bad)), 0);

	/* fast_commit: needs the fs feature and room for the log. */
	make_jsb(b, 0);
	assert_int_equal(e4_jsb_edit_features(b, "fast_commit", 16, 0, bad,
					      sizeof(bad)),
			 E4_ERR_FC_NEEDS_FS_FEATURE);
	/* maxlen 1024 - 16 < JBD2_MIN_JOURNAL_BLOCKS */
	assert_int_equal(e4_jsb_edit_features(b, "fast_commit", 16,
					      E4_FEAT_FS_FAST_COMMIT, bad,
					      sizeof(bad)),
			 E4_ERR_FC_TOO_BIG);
	e4_put_be32(b + JBD2_JSB_MAXLEN, 1040);
	assert_int_equal(e4_jsb_edit_features(b, "journal_fast_commit", 16,
					      E4_FEAT_FS_FAST_COMMIT, bad,
					      sizeof(bad)), 0);
	assert_int_equal(e4_be32(b + JBD2_JSB_NUM_FC_BLKS), 16);
	assert_int_equal(e4_jsb_log_end(b), 1024);
	/* Off keeps s_num_fc_blks (ext4 turns the bit on again at mount). */
	assert_int_equal(e4_jsb_edit_features(b, "^journal_fast_commit", -1,
					      E4_FEAT_FS_FAST_COMMIT, bad,
					      sizeof(bad)), 0);
	assert_int_equal(e4_be32(b + JBD2_JSB_NUM_FC_BLKS), 16);
	assert_int_equal(e4_jsb_log_end(b), 1040);
	/* A new s_num_fc_blks without the bit obeys the same rule. */
	assert_int_equal(e4_jsb_edit_features(b, NULL, 0,
					      E4_FEAT_FS_FAST_COMMIT, bad,
					      sizeof(bad)), E4_ERR_FC_TOO_BIG);
	assert_int_equal(e4_jsb_edit_features(b, NULL, 8, 0, bad,
					      sizeof(bad)),
			 E4_ERR_FC_NEEDS_FS_FEATURE);
	assert_int_equal(e4_jsb_edit_features(b, NULL, 8,
					      E4_FEAT_FS_FAST_COMMIT, bad,
					      sizeof(bad)), 0);
	assert_int_equal(e4_be32(b + JBD2_JSB_NUM_FC_BLKS), 8);
	assert_string_equal(e4_jrnl_feature2string(1,
			JBD2_FEATURE_INCOMPAT_FAST_COMMIT),
			"journal_fast_commit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_impls_agree),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_validate_errors),
		cmocka_unit_test(test_fc_geometry),
		cmocka_unit_test(test_edit_features),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
