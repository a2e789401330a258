/*
 * test_inode.c --- unit tests of inode.c: e4_inode_kind(), the one
 * definition of the file system's own inodes, on a hand-built superblock
 * (journal 8, quota 3/4/16, orphan file 12, first inode 11), and the
 * checks e4_read_inode() adds before libext2fs reads an inode.
 */
#include "unit.h"

static void test_kind(void **state)
{
	struct ext2_super_block sb;
	struct struct_ext2_filsys fsx;

	(void)state;
	memset(&sb, 0, sizeof(sb));
	memset(&fsx, 0, sizeof(fsx));
	fsx.super = &sb;
	sb.s_rev_level = EXT2_DYNAMIC_REV;
	sb.s_first_ino = 11;
	sb.s_inodes_count = 64;
	sb.s_journal_inum = 8;
	sb.s_usr_quota_inum = 3;
	sb.s_grp_quota_inum = 4;
	sb.s_prj_quota_inum = 16;
	sb.s_orphan_file_inum = 12;
	assert_int_equal(e4_inode_kind(&fsx, 0), E4_INO_NONE);
	assert_int_equal(e4_inode_kind(&fsx, 65), E4_INO_NONE);
	assert_int_equal(e4_inode_kind(&fsx, 1), E4_INO_RESERVED);
	assert_int_equal(e4_inode_kind(&fsx, 2), E4_INO_ROOT);
	assert_int_equal(e4_inode_kind(&fsx, 3), E4_INO_QUOTA);
	assert_int_equal(e4_inode_kind(&fsx, 4), E4_INO_QUOTA);
	assert_int_equal(e4_inode_kind(&fsx, 7), E4_INO_RESERVED);
	assert_int_equal(e4_inode_kind(&fsx, 8), E4_INO_JOURNAL);
	assert_int_equal(e4_inode_kind(&fsx, 10), E4_INO_RESERVED);
	assert_int_equal(e4_inode_kind(&fsx, 11), E4_INO_FILE);
	assert_int_equal(e4_inode_kind(&fsx, 12), E4_INO_ORPHAN);
	assert_int_equal(e4_inode_kind(&fsx, 16), E4_INO_QUOTA);
	assert_int_equal(e4_inode_kind(&fsx, 64), E4_INO_FILE);
	/* Without quota and orphan file, 3 and 4 are plain reserved ones
	 * and 12 is a file; resize stays reserved whatever s_first_ino. */
	sb.s_usr_quota_inum = sb.s_grp_quota_inum = sb.s_prj_quota_inum = 0;
	sb.s_orphan_file_inum = 0;
	assert_int_equal(e4_inode_kind(&fsx, 3), E4_INO_RESERVED);
	assert_int_equal(e4_inode_kind(&fsx, 12), E4_INO_FILE);
	sb.s_first_ino = 5;
	assert_int_equal(e4_inode_kind(&fsx, 7), E4_INO_RESERVED);
	assert_int_equal(e4_inode_kind(&fsx, 6), E4_INO_FILE);
	/* Rev 0: the first inode is 11 whatever s_first_ino holds. */
	sb.s_rev_level = EXT2_GOOD_OLD_REV;
	assert_int_equal(e4_inode_kind(&fsx, 10), E4_INO_RESERVED);
}

static void test_read_checks(void **state)
{
	struct ext2_super_block sb;
	struct struct_ext2_filsys fsx;
	struct ext2_inode inode;

	(void)state;
	memset(&sb, 0, sizeof(sb));
	memset(&fsx, 0, sizeof(fsx));
	fsx.super = &sb;
	sb.s_inodes_count = 64;
	sb.s_inodes_per_group = 32;
	fsx.group_desc_count = 1;	/* ino 33..64 name group 1: none */
	assert_int_equal(e4_read_inode(&fsx, 0, &inode, sizeof(inode)),
			 E4_ERR_BAD_INODE_NUMBER);
	assert_int_equal(e4_read_inode(&fsx, 65, &inode, sizeof(inode)),
			 E4_ERR_BAD_INODE_NUMBER);
	assert_int_equal(e4_read_inode(&fsx, 40, &inode, sizeof(inode)),
			 E4_ERR_BAD_INODE_NUMBER);
	sb.s_inodes_per_group = 0;
	assert_int_equal(e4_read_inode(&fsx, 1, &inode, sizeof(inode)),
			 E4_ERR_BAD_INODE_NUMBER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_read_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
