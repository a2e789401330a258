/*
 * inode.c --- inodes as the rest of libe4 needs them: reading one safely
 * (e4_read_inode()) and the one definition of which inodes are the file
 * system's own (e4_inode_kind()): the root, the journal, the quota files,
 * the orphan file and the other reserved inodes below s_first_ino.
 *
 * Source: fs/ext4/ext4.h (EXT4_*_INO, s_first_ino, s_journal_inum,
 * s_*_quota_inum, s_orphan_file_inum), lib/ext2fs/ext2_fs.h.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include "e4.h"

errcode_t e4_read_inode(ext2_filsys fs, ext2_ino_t ino,
			struct ext2_inode *inode, int bufsize)
{
	blk64_t itab, nblocks = ext2fs_blocks_count(fs->super);
	dgrp_t group;

	if (ino == 0 || ino > fs->super->s_inodes_count ||
	    !fs->super->s_inodes_per_group)
		return E4_ERR_BAD_INODE_NUMBER;
	group = (ino - 1) / fs->super->s_inodes_per_group;
	if (group >= fs->group_desc_count)
		return E4_ERR_BAD_INODE_NUMBER;
	itab = ext2fs_inode_table_loc(fs, group);
	if (itab == 0 || itab >= nblocks ||
	    fs->inode_blocks_per_group > nblocks - itab)
		return E4_ERR_BAD_GROUP_DESC;
	return ext2fs_read_inode_full(fs, ino, inode, bufsize);
}

int e4_inode_kind(ext2_filsys fs, ext2_ino_t ino)
{
	const struct ext2_super_block *sb = fs->super;

	if (ino == 0 || ino > sb->s_inodes_count)
		return E4_INO_NONE;
	if (ino == sb->s_journal_inum)
		return E4_INO_JOURNAL;
	if (ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
	    ino == sb->s_prj_quota_inum)
		return E4_INO_QUOTA;
	if (ino == sb->s_orphan_file_inum)
		return E4_INO_ORPHAN;
	if (ino == EXT2_ROOT_INO)
		return E4_INO_ROOT;
	if (ino < EXT2_FIRST_INO(sb) || ino == EXT2_BAD_INO ||
	    ino == EXT2_RESIZE_INO)
		return E4_INO_RESERVED;
	return E4_INO_FILE;
}
