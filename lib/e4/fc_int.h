/*
 * fc_int.h --- what fc_replay.c and fc_dir.c share: the replay's state and
 * small inode helpers.  Not installed.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_FC_INT_H
#define E4_FC_INT_H

#include "e4.h"

struct region {
	blk64_t		pblk, len;
};

struct fcr {
	ext2_filsys	fs;
	struct e4_fcscan *fc;
	struct e4_fc_replay_result *res;
	ext2_ino_t	*mod;		/* ext4_fc_record_modified_inode() */
	size_t		nmod, amod;
	struct region	*ex;		/* fc_regions: excluded from alloc */
	size_t		nex, aex;
	unsigned int	isize;		/* on-disk inode size */
	unsigned char	*ibuf, *ibuf2;	/* isize bytes each */
	blk64_t		count;		/* count_fn() */
	/*
	 * The kernel's goals for the extent tree blocks the next
	 * ext2fs_extent_insert() allocates (set by tree_goals() in
	 * fc_replay.c, used by fc_simple_alloc() in place of libext2fs's):
	 * goal_next for the next allocation, goal_rest for every later one.
	 */
	blk64_t		goal_next, goal_rest;
	int		goal_set;
	uint32_t	now;
};

static inline struct ext2_inode *I(unsigned char *buf)
{
	return (struct ext2_inode *)buf;
}

static inline struct ext2_inode_large *IL(unsigned char *buf)
{
	return (struct ext2_inode_large *)buf;
}

/*
 * fc_replay.c: libext2fs's get_alloc_block hook during the replay: the
 * first block at or after @goal (the kernel's goal instead while
 * r->goal_set) free in the bitmap and not excluded, as
 * ext4_mb_new_blocks_simple() picks it; the block in *@ret.  Returns 0
 * or EXT2_ET_BLOCK_ALLOC_FAIL.
 */
errcode_t fc_simple_alloc(ext2_filsys fs, blk64_t goal, blk64_t *ret);

/*
 * fc_dir.c: ext4_add_entry() of @name (@namelen bytes, NUL-terminated) ->
 * @ino with directory entry type @ftype into directory @dir, as the
 * replay's __ext4_link() adds it: the first block with room, else a
 * single full linear block becomes an htree (make_indexed_dir(), split as
 * do_split()), else a new block (ext4_append()); htree directories through
 * libext2fs's dx code.  The directory's i_blocks is kept (no quota in
 * replay); its mtime and ctime become r->now.  Returns 0 or libext2fs
 * errors.
 */
errcode_t fc_add_entry(struct fcr *r, ext2_ino_t dir, const char *name,
		       int namelen, ext2_ino_t ino, int ftype);

#endif
