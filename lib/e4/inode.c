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

#include <stdio.h>
#include <string.h>

#include "e4_int.h"

errcode_t e4_read_inode(ext2_filsys fs, ext2_ino_t ino,
			struct ext2_inode *inode, int bufsize)
{
	blk64_t itab, nblocks = ext2fs_blocks_count(fs->super);
	dgrp_t group;

	e4_error_tables_init();
	if (bufsize > 0)	/* the checks' errors leave it zeroed */
		memset(inode, 0, bufsize);
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

static int path_req_cmp(const void *a, const void *b)
{
	const struct e4_path_req *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

struct path_walk {
	ext2_filsys		fs;
	ext2_ino_t		dir;
	struct e4_path_req	*req;
	size_t			n;
};

static int path_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
		   int offset, int blocksize, char *buf, void *priv)
{
	struct path_walk *pw = priv;
	int len = ext2fs_dirent_name_len(dirent);
	struct e4_path_req key = { 0 }, *r;
	char *dname = NULL;

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (!dirent->inode || (len == 1 && dirent->name[0] == '.') ||
	    (len == 2 && dirent->name[0] == '.' && dirent->name[1] == '.'))
		return 0;
	key.ino = dirent->inode;
	r = bsearch(&key, pw->req, pw->n, sizeof(*r), path_req_cmp);
	if (!r)
		return 0;
	while (r > pw->req && r[-1].ino == key.ino)
		r--;
	for (; r < pw->req + pw->n && r->ino == key.ino; r++) {
		if (*r->path)
			continue;
		if (!dname && ext2fs_get_pathname(pw->fs, pw->dir, 0, &dname))
			return 0;
		if (ext2fs_get_mem(strlen(dname) + len + 2, r->path))
			break;
		sprintf(*r->path, "%s%s%.*s", dname,
			strcmp(dname, "/") ? "/" : "", len, dirent->name);
	}
	ext2fs_free_mem(&dname);
	return 0;
}

void e4_resolve_paths(ext2_filsys fs, struct e4_path_req *req, size_t n)
{
	struct path_walk pw = { fs, 0, req, n };
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct ext2_inode inode;

	if (!n || ext2fs_open_inode_scan(fs, 0, &scan))
		return;
	xsort(req, n, sizeof(*req), path_req_cmp);
	while (!ext2fs_get_next_inode(scan, &ino, &inode) && ino) {
		if (!inode.i_links_count || !LINUX_S_ISDIR(inode.i_mode) ||
		    (inode.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		pw.dir = ino;
		ext2fs_dir_iterate2(fs, ino, 0, NULL, path_cb, &pw);
	}
	ext2fs_close_inode_scan(scan);
}
