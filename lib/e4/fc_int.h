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

/* fc_replay.c */
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
