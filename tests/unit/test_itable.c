/*
 * test_itable.c --- unit tests of itable.c on file systems built here with
 * ext2fs_initialize() on a temporary file: the kernel's kept-blocks rule,
 * the summary, the refusals, and finish/unzero on real blocks.
 */
#include "unit.h"

#include <unistd.h>

/* 16 MiB, 4 KiB blocks, 1024 blocks and 1024 inodes of 256 bytes a group
 * (64 inode table blocks, 16 inodes a block), 4 groups, uninit_bg. */
static ext2_filsys make_fs(char *path)
{
	struct ext2_super_block param;
	ext2_filsys fs;
	dgrp_t g;
	int fd;

	strcpy(path, "/tmp/e4-test-itable-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 16 << 20), 0);
	close(fd);
	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, 4096);
	param.s_log_block_size = 2;
	param.s_blocks_per_group = 1024;
	param.s_inodes_count = 4096;
	param.s_rev_level = EXT2_DYNAMIC_REV;
	param.s_inode_size = 256;
	ext2fs_set_feature_gdt_csum(&param);
	assert_int_equal(ext2fs_initialize(path, EXT2_FLAG_RW |
					   EXT2_FLAG_64BITS, &param,
					   unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_allocate_tables(fs), 0);
	assert_int_equal(fs->group_desc_count, 4);
	assert_int_equal(fs->inode_blocks_per_group, 64);
	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_bg_flags_zap(fs, g);
		ext2fs_bg_itable_unused_set(fs, g, 1024);
		ext2fs_group_desc_csum_set(fs, g);
	}
	return fs;
}

static void drop_fs(ext2_filsys fs, const char *path)
{
	ext2fs_free(fs);
	unlink(path);
}

static void set_group(ext2_filsys fs, dgrp_t g, uint16_t flags,
		      uint32_t unused)
{
	ext2fs_bg_flags_zap(fs, g);
	ext2fs_bg_flags_set(fs, g, flags);
	ext2fs_bg_itable_unused_set(fs, g, unused);
	ext2fs_group_desc_csum_set(fs, g);
}

/* ext4_init_inode_table(): keep DIV_ROUND_UP(ipg - unused, ipb) blocks,
 * none with INODE_UNINIT; nothing to zero once ITABLE_ZEROED. */
static void test_rule(void **state)
{
	struct { uint16_t flags; uint32_t unused; blk64_t used, zero; }
	cases[] = {
		{ EXT2_BG_INODE_UNINIT, 1024, 0, 64 },
		{ EXT2_BG_INODE_UNINIT, 10, 0, 64 },	/* flag wins */
		{ 0, 1024, 0, 64 },
		{ 0, 1023, 1, 63 },
		{ 0, 1008, 1, 63 },			/* 16 used: 1 */
		{ 0, 1007, 2, 62 },			/* 17 used: 2 */
		{ 0, 0, 64, 0 },
		{ EXT2_BG_INODE_ZEROED, 1023, 1, 0 },
	};
	struct e4_itable_group ig;
	char path[64];
	ext2_filsys fs = make_fs(path);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_group(fs, 1, cases[i].flags, cases[i].unused);
		assert_int_equal(e4_itable_group(fs, 1, &ig), 0);
		assert_int_equal(ig.used_blocks, cases[i].used);
		assert_int_equal(ig.to_zero, cases[i].zero);
		assert_int_equal(ig.zero_start,
				 ext2fs_inode_table_loc(fs, 1) + cases[i].used);
		assert_int_equal(ig.itable_blocks, 64);
		assert_true(ig.csum_ok);
		assert_true(ig.valid);
	}
	set_group(fs, 1, 0, 1025);
	assert_int_equal(e4_itable_group(fs, 1, &ig), 0);
	assert_false(ig.valid);
	assert_int_equal(e4_itable_group(fs, 4, &ig),
			 EXT2_ET_INVALID_ARGUMENT);
	drop_fs(fs, path);
}

static void test_summary_and_refusals(void **state)
{
	struct e4_itable_summary s;
	struct e4_itable_result res;
	char path[64];
	ext2_filsys fs = make_fs(path);
	dgrp_t bad;

	(void)state;
	set_group(fs, 0, 0, 1000);			/* keeps 2 blocks */
	set_group(fs, 1, EXT2_BG_INODE_UNINIT, 1024);
	set_group(fs, 2, EXT2_BG_INODE_ZEROED, 1024);
	set_group(fs, 3, EXT2_BG_INODE_UNINIT | EXT2_BG_BLOCK_UNINIT, 1024);
	assert_int_equal(e4_itable_summary(fs, &s), 0);
	assert_true(s.applicable);
	assert_int_equal(s.groups, 4);
	assert_int_equal(s.zeroed, 1);
	assert_int_equal(s.inode_uninit, 2);
	assert_int_equal(s.block_uninit, 1);
	assert_int_equal(s.to_zero_groups, 3);
	assert_int_equal(s.to_zero_blocks, 62 + 64 + 64);
	assert_int_equal(s.bad_csum, 0);

	/* A dry run computes the same without writing. */
	assert_int_equal(e4_itable_finish(fs, E4_ITABLE_DRY_RUN, &bad, &res),
			 0);
	assert_int_equal(res.groups, 3);
	assert_int_equal(res.blocks, 62 + 64 + 64);
	assert_false(ext2fs_bg_flags_test(fs, 0, EXT2_BG_INODE_ZEROED));

	/* A bad descriptor checksum is refused and named. */
	ext2fs_bg_checksum_set(fs, 3, ext2fs_bg_checksum(fs, 3) ^ 1);
	assert_int_equal(e4_itable_summary(fs, &s), 0);
	assert_int_equal(s.bad_csum, 1);
	assert_int_equal(s.first_bad_csum, 3);
	assert_int_equal(e4_itable_finish(fs, 0, &bad, &res),
			 E4_ERR_GDT_CSUM);
	assert_int_equal(bad, 3);
	assert_int_equal(e4_itable_unzero(fs, NULL, 0, &bad, &res),
			 E4_ERR_GDT_CSUM);
	assert_false(ext2fs_bg_flags_test(fs, 0, EXT2_BG_INODE_ZEROED));
	ext2fs_group_desc_csum_set(fs, 3);

	/* bg_itable_unused > inodes_per_group. */
	set_group(fs, 2, 0, 2000);
	assert_int_equal(e4_itable_finish(fs, 0, &bad, &res),
			 E4_ERR_BAD_GROUP_DESC);
	assert_int_equal(bad, 2);
	set_group(fs, 2, EXT2_BG_INODE_ZEROED, 1024);

	/* The journal needs recovery: refused unless forced. */
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	assert_int_equal(e4_itable_finish(fs, E4_ITABLE_DRY_RUN, &bad, &res),
			 E4_ERR_NEEDS_RECOVERY);
	assert_int_equal(e4_itable_finish(fs, E4_ITABLE_DRY_RUN |
					  E4_ITABLE_FORCE, &bad, &res), 0);
	ext2fs_clear_feature_journal_needs_recovery(fs->super);

	/* No group descriptor checksums: not applicable, refused. */
	ext2fs_clear_feature_gdt_csum(fs->super);
	assert_int_equal(e4_itable_summary(fs, &s), 0);
	assert_false(s.applicable);
	assert_int_equal(s.to_zero_blocks, 0);
	assert_int_equal(e4_itable_finish(fs, 0, &bad, &res),
			 E4_ERR_NO_UNINIT_BG);
	assert_int_equal(e4_itable_unzero(fs, NULL, 0, &bad, &res),
			 E4_ERR_NO_UNINIT_BG);
	drop_fs(fs, path);
}

/* Count the blocks of [blk, blk + n) that are all zero. */
static blk64_t zero_blocks(ext2_filsys fs, blk64_t blk, blk64_t n)
{
	char *buf = malloc(fs->blocksize), *z = calloc(1, fs->blocksize);
	blk64_t i, c = 0;

	for (i = 0; i < n; i++) {
		assert_int_equal(io_channel_read_blk64(fs->io, blk + i, 1,
						       buf), 0);
		c += !memcmp(buf, z, fs->blocksize);
	}
	free(buf);
	free(z);
	return c;
}

/* unzero with garbage, then finish: garbage exactly in the part the
 * kernel zeroes, zeroes after, kept blocks untouched, flags and csums. */
static void test_unzero_then_finish(void **state)
{
	struct e4_itable_result res;
	struct e4_itable_group ig;
	unsigned char sel[4] = { 1, 0, 1, 1 };
	char path[64], *keep = NULL, *buf;
	ext2_filsys fs = make_fs(path);
	blk64_t it0 = ext2fs_inode_table_loc(fs, 0);
	dgrp_t g, bad;
	int i;

	(void)state;
	set_group(fs, 0, 0, 1000);		/* keeps 2 blocks */
	set_group(fs, 1, EXT2_BG_INODE_ZEROED, 1024);
	set_group(fs, 2, EXT2_BG_INODE_UNINIT, 1024);
	set_group(fs, 3, EXT2_BG_INODE_UNINIT, 1024);
	keep = malloc(2 * fs->blocksize);
	buf = malloc(2 * fs->blocksize);
	for (i = 0; i < 2 * (int)fs->blocksize; i++)
		keep[i] = (char)(i * 7 + 1);
	assert_int_equal(io_channel_write_blk64(fs->io, it0, 2, keep), 0);

	assert_int_equal(e4_itable_unzero(fs, sel, E4_ITABLE_GARBAGE, &bad,
					  &res), 0);
	assert_int_equal(res.groups, 3);
	assert_int_equal(res.blocks, 62 + 64 + 64);
	for (g = 0; g < 4; g++) {
		e4_itable_group(fs, g, &ig);
		assert_int_equal(!!(ig.flags & EXT2_BG_INODE_ZEROED), g == 1);
		assert_true(ig.csum_ok);
		if (g != 1)
			assert_int_equal(zero_blocks(fs, ig.zero_start,
						     ig.to_zero), 0);
	}
	assert_int_equal(io_channel_read_blk64(fs->io, it0 + 2, 1, buf), 0);
	assert_memory_equal(buf, "E4LAZYGB", 8);

	assert_int_equal(e4_itable_finish(fs, 0, &bad, &res), 0);
	assert_int_equal(res.groups, 3);
	assert_int_equal(res.blocks, 62 + 64 + 64);
	assert_string_equal(res.method, "punch");
	for (g = 0; g < 4; g++) {
		e4_itable_group(fs, g, &ig);
		assert_true(ig.flags & EXT2_BG_INODE_ZEROED);
		assert_true(ig.csum_ok);
		assert_int_equal(ig.to_zero, 0);
		assert_int_equal(zero_blocks(fs, ig.zero_start,
					     64 - ig.used_blocks),
				 64 - ig.used_blocks);
	}
	assert_int_equal(io_channel_read_blk64(fs->io, it0, 2, buf), 0);
	assert_memory_equal(buf, keep, 2 * fs->blocksize);

	/* The write fallback gives the same zeroes. */
	assert_int_equal(e4_itable_unzero(fs, NULL, E4_ITABLE_GARBAGE, &bad,
					  &res), 0);
	assert_int_equal(e4_itable_finish(fs, E4_ITABLE_WRITE_ZEROES, &bad,
					  &res), 0);
	assert_string_equal(res.method, "write");
	for (g = 0; g < 4; g++) {
		e4_itable_group(fs, g, &ig);
		assert_int_equal(zero_blocks(fs, ig.zero_start,
					     64 - ig.used_blocks),
				 64 - ig.used_blocks);
	}
	free(keep);
	free(buf);
	drop_fs(fs, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_summary_and_refusals),
		cmocka_unit_test(test_unzero_then_finish),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
