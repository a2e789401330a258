/*
 * fc_replay.c --- replay the fast commits of a scan (fc.c) on an open file
 * system with libext2fs, tag by tag as the kernel's ext4_fc_replay() does,
 * then set the bitmaps as ext4_fc_set_bitmaps_and_counters() does.
 *
 * Source (Linux 6.x): fs/ext4/fast_commit.c ext4_fc_replay(),
 * ext4_fc_replay_add_range(), ext4_fc_replay_del_range(),
 * ext4_fc_replay_inode(), ext4_fc_replay_create(), ext4_fc_replay_link(),
 * ext4_fc_replay_link_internal(), ext4_fc_replay_unlink(),
 * ext4_fc_record_modified_inode(), ext4_fc_record_regions(),
 * ext4_fc_replay_check_excluded(), ext4_fc_set_bitmaps_and_counters();
 * fs/ext4/extents.c ext4_ext_insert_extent(), ext4_ext_create_new_leaf(),
 * ext4_ext_grow_indepth(), ext4_ext_split(), ext4_ext_find_goal(),
 * ext4_ext_try_to_merge(),
 * ext4_ext_try_to_merge_right(), ext4_ext_try_to_merge_up(),
 * ext4_can_extents_be_merged(), ext4_ext_replay_update_ex(),
 * ext4_ext_replay_shrink_inode(), ext4_ext_replay_set_iblocks(),
 * ext4_ext_clear_bb(), ext4_ext_remove_space(); fs/ext4/balloc.c
 * ext4_inode_to_goal_block(); fs/ext4/super.c __ext4_fill_super() (flex_bg
 * loaded after the journal); fs/ext4/mballoc.c
 * ext4_mb_mark_bb(), ext4_mb_new_blocks_simple(), ext4_free_blocks_simple();
 * fs/ext4/ialloc.c ext4_mark_inode_used(), ext4_free_inode();
 * fs/ext4/namei.c __ext4_link(), __ext4_unlink(), ext4_init_new_dir();
 * fs/ext4/inode.c __ext4_iget(), ext4_evict_inode().
 *
 * Kernel facts the code follows (each tag function cites its own):
 * - Every tag re-reads its inodes from disk: during the replay the
 *   superblock is not yet SB_ACTIVE, so iput() evicts at once.
 * - While EXT4_FC_REPLAY is set, block frees and allocations go through
 *   the "simple" paths: bitmap bits with the group counts changed by the
 *   bits that really change, no quota, so i_blocks is not touched by
 *   extent changes (the INODE tag recomputes it).
 * - Blocks the replay allocates (extent tree leaves and index blocks, a
 *   new directory's block) come from ext4_mb_new_blocks_simple() at the
 *   kernel's goal: the tree grows and splits where the kernel's does
 *   (tree_insert()), so the result is the kernel's block for block.
 * - ext4_iget() in replay skips the checksum and extent-tree checks but
 *   still refuses a bad number, a special inode, i_links_count 0 and a bad
 *   i_extra_isize.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e4.h"
#include "e4_int.h"
#include "fc_int.h"

#define EXT_MAX_BLOCKS		0xffffffffULL	/* ext4_extents.h */
#define EXT_UNWRITTEN_MAX	32767U
#define EXT_INIT_MAX		32768U
#define EXT_ROOT_MAX		4	/* ext4_ext_space_root() */
#define EXT4_LINK_MAX		65000
#define EH_MAGIC		0xF30A
#define I_BLOCK_OFF		0x28	/* offsetof(struct ext4_inode, i_block) */
#define I_GENERATION_OFF	0x64	/* offsetof(..., i_generation) */

/* ---- bitmaps as the replay's simple paths change them -------------------- */

/*
 * ext4_mb_mark_bb(): set (@state 1) or clear the bits of fs blocks [@blk,
 * @blk + @len), changing the group and superblock free counts by the bits
 * that change (libext2fs's ext2fs_block_alloc_stats2() per such bit).
 * Blocks outside the fs are left alone (the kernel refuses the range).
 */
static void mark_bb(struct fcr *r, blk64_t blk, blk64_t len, int state)
{
	ext2_filsys fs = r->fs;
	blk64_t b, end = blk + len;

	if (blk < fs->super->s_first_data_block ||
	    end > ext2fs_blocks_count(fs->super) || end < blk)
		return;
	for (b = blk; b < end; b++) {
		if (!!ext2fs_fast_test_block_bitmap2(fs->block_map, b) ==
		    !!state)
			continue;
		ext2fs_block_alloc_stats2(fs, b, state ? +1 : -1);
		if (state)
			r->res->blocks_set++;
		else
			r->res->blocks_cleared++;
	}
}

/*
 * Before libext2fs frees @blk (ext2fs_punch(), ext2fs_extent_delete()) with
 * a plain ext2fs_block_alloc_stats2(-1): set its bit if clear, so the
 * counts change only when the bit really changes, as the replay's
 * ext4_free_blocks_simple() does.
 */
static void preset(struct fcr *r, blk64_t blk)
{
	ext2_filsys fs = r->fs;

	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return;
	if (!ext2fs_fast_test_block_bitmap2(fs->block_map, blk))
		ext2fs_block_alloc_stats2(fs, blk, +1);
}

/* ext4_fc_record_regions(): blocks the simple allocator must not use. */
static errcode_t add_region(struct fcr *r, blk64_t pblk, blk64_t len)
{
	errcode_t retval;

	if (!len)
		return 0;
	retval = grow(&r->ex, &r->aex, r->nex + 1, sizeof(*r->ex));
	if (retval)
		return retval;
	r->ex[r->nex].pblk = pblk;
	r->ex[r->nex++].len = len;
	return 0;
}

/* ext4_fc_replay_check_excluded() */
static int excluded(const struct fcr *r, blk64_t b)
{
	size_t i;

	for (i = 0; i < r->nex; i++)
		if (b >= r->ex[i].pblk && b < r->ex[i].pblk + r->ex[i].len)
			return 1;
	return 0;
}

/*
 * libext2fs's get_alloc_block hook (extent tree nodes, directory blocks):
 * ext4_mb_new_blocks_simple(): a goal outside the fs becomes
 * s_first_data_block; the first block free in the bitmap and not
 * excluded, from the goal to the end of its group, then from the start of
 * each later group.  No wrap: past the last group the kernel fails
 * (-ENOSPC).  While r->goal_set the kernel's goal (tree_goals()) replaces
 * libext2fs's @goal.  libext2fs marks the block used
 * (ext2fs_block_alloc_stats2()) afterwards.
 */
errcode_t fc_simple_alloc(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	struct fcr *r = fs->priv_data;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t nblocks = ext2fs_blocks_count(fs->super);
	blk64_t b, gstart, gend;
	dgrp_t g;
	errcode_t retval;

	if (r->goal_set) {
		goal = r->goal_next;
		r->goal_next = r->goal_rest;
	}
	if (goal < first || goal >= nblocks)
		goal = first;
	b = goal;
	for (g = ext2fs_group_of_blk2(fs, goal); g < fs->group_desc_count;
	     g++) {
		gstart = ext2fs_group_first_block2(fs, g);
		gend = ext2fs_group_last_block2(fs, g);
		if (b < gstart)
			b = gstart;
		while (b <= gend) {
			retval = ext2fs_find_first_zero_block_bitmap2(
				fs->block_map, b, gend, &b);
			if (retval)
				break;
			if (!excluded(r, b)) {
				*ret = b;
				r->res->allocated++;
				return 0;
			}
			b++;
		}
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

/* libext2fs's new_range hook (ext2fs_fallocate() in its htree code): one
 * block at a time, as the simple allocator gives them. */
static errcode_t fc_new_range(ext2_filsys fs, int flags, blk64_t goal,
			      blk64_t len, blk64_t *pblk, blk64_t *plen)
{
	errcode_t retval;

	if ((flags & EXT2_NEWRANGE_MIN_LENGTH) && len > 1)
		return EXT2_ET_BLOCK_ALLOC_FAIL;
	retval = fc_simple_alloc(fs, goal, pblk);
	if (retval)
		return retval;
	if ((flags & EXT2_NEWRANGE_FIXED_GOAL) && *pblk != goal)
		return EXT2_ET_BLOCK_ALLOC_FAIL;
	*plen = 1;
	return 0;
}

/* ---- inodes --------------------------------------------------------------- */

/* ext4_fc_record_modified_inode() */
static errcode_t record_modified(struct fcr *r, ext2_ino_t ino)
{
	size_t i;
	errcode_t retval;

	for (i = 0; i < r->nmod; i++)
		if (r->mod[i] == ino)
			return 0;
	retval = grow(&r->mod, &r->amod, r->nmod + 1, sizeof(*r->mod));
	if (retval)
		return retval;
	r->mod[r->nmod++] = ino;
	return 0;
}

/* The kernel's is_special_ino() (fs/ext4/ext4.h). */
static int special_ino(ext2_filsys fs, ext2_ino_t ino)
{
	struct ext2_super_block *sb = fs->super;

	return (ino < EXT2_FIRST_INO(sb) && ino != EXT2_ROOT_INO) ||
		ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
		ino == sb->s_prj_quota_inum || ino == sb->s_orphan_file_inum;
}

/*
 * ext4_iget(sb, ino, EXT4_IGET_NORMAL) during the replay: read inode @ino
 * into @buf (isize bytes).  Returns 0, or nonzero when the kernel's iget
 * fails (the tag is then skipped): a bad or special number, an unreadable
 * inode table, i_links_count 0 (-ESTALE), an i_extra_isize that does not
 * fit or is not a multiple of 4 (-EFSCORRUPTED).
 */
static errcode_t fc_iget(struct fcr *r, ext2_ino_t ino, unsigned char *buf)
{
	ext2_filsys fs = r->fs;
	errcode_t retval;

	if (special_ino(fs, ino) || ino < EXT2_ROOT_INO ||
	    ino > fs->super->s_inodes_count)
		return E4_ERR_BAD_INODE_NUMBER;
	retval = e4_read_inode(fs, ino, I(buf), (int)r->isize);
	if (retval)
		return retval;
	if (!I(buf)->i_links_count)
		return EXT2_ET_INODE_NOT_EXTENT;	/* any nonzero: ESTALE */
	if (r->isize > EXT2_GOOD_OLD_INODE_SIZE &&
	    (EXT2_GOOD_OLD_INODE_SIZE + (unsigned int)IL(buf)->i_extra_isize >
	      r->isize ||
	     (IL(buf)->i_extra_isize & 3)))
		return EXT2_ET_INODE_CORRUPTED;
	return 0;
}

static errcode_t put_inode(struct fcr *r, ext2_ino_t ino, unsigned char *buf)
{
	return ext2fs_write_inode_full(r->fs, ino, I(buf), (int)r->isize);
}

static int is_extent_inode(const unsigned char *buf)
{
	return (I((unsigned char *)buf)->i_flags & EXT4_EXTENTS_FL) &&
		!(I((unsigned char *)buf)->i_flags & EXT4_INLINE_DATA_FL);
}

/*
 * ext4_mark_inode_used(): set the inode's bit (nothing if set); a new bit
 * clears INODE_UNINIT, moves bg_itable_unused past the inode, decrements
 * the free inodes (libext2fs's ext2fs_inode_alloc_stats2(); no directory
 * count: the kernel's ext4_mark_inode_used() does not count directories)
 * and, as the kernel, initialises a BLOCK_UNINIT group's block bitmap.
 */
static void mark_inode_used(struct fcr *r, ext2_ino_t ino)
{
	ext2_filsys fs = r->fs;
	dgrp_t g;

	if (ext2fs_fast_test_inode_bitmap2(fs->inode_map, ino))
		return;
	g = ext2fs_group_of_ino(fs, ino);
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	if (ext2fs_has_group_desc_csum(fs) &&
	    ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT)) {
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_BLOCK_UNINIT);
		ext2fs_group_desc_csum_set(fs, g);
		ext2fs_mark_bb_dirty(fs);
	}
}

/* ---- extents -------------------------------------------------------------- */

/* The extent tree of @ino (whose inode is in @buf), handle on @buf. */
static errcode_t ext_open(struct fcr *r, ext2_ino_t ino, unsigned char *buf,
			  ext2_extent_handle_t *h)
{
	return ext2fs_extent_open2(r->fs, ino, I(buf), h);
}

struct mapping {
	int		mapped;
	blk64_t		pblk, len;
	int		unwritten;
};

/*
 * ext4_map_blocks(NULL, inode, map, 0) on an extent inode: the extent
 * holding @lblk (from @lblk to its end, at most @max blocks), or the hole
 * from @lblk to the next extent (at most @max).  A @lblk of EXT_MAX_BLOCKS
 * or more fails, as the kernel's (-EFSCORRUPTED: the tag is given up).
 */
static errcode_t fc_map(ext2_extent_handle_t h, blk64_t lblk, blk64_t max,
			struct mapping *m)
{
	struct ext2fs_extent e;
	blk64_t next = EXT_MAX_BLOCKS;
	errcode_t retval;

	memset(m, 0, sizeof(*m));
	/* "We can handle the block number less than EXT_MAX_BLOCKS":
	 * -EFSCORRUPTED, the tag given up */
	if (lblk >= EXT_MAX_BLOCKS)
		return EXT2_ET_EXTENT_NOT_FOUND;
	retval = ext2fs_extent_goto2(h, 0, lblk);
	if (!retval) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
		if (retval)
			return retval;
		m->mapped = 1;
		m->pblk = e.e_pblk + (lblk - e.e_lblk);
		m->len = e.e_lblk + e.e_len - lblk;
		m->unwritten = !!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT);
		if (m->len > max)
			m->len = max;
		return 0;
	}
	if (retval != EXT2_ET_EXTENT_NOT_FOUND)
		return retval;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
	if (!retval && (e.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
		if (e.e_lblk > lblk) {
			next = e.e_lblk;
		} else {
			retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_LEAF,
						   &e);
			if (!retval && e.e_lblk > lblk)
				next = e.e_lblk;
		}
	}
	m->len = next - lblk;
	if (m->len > max)
		m->len = max;
	return 0;
}

/* ext4_can_extents_be_merged() */
static int can_merge(const struct ext2fs_extent *x,
		     const struct ext2fs_extent *y)
{
	int xu = !!(x->e_flags & EXT2_EXTENT_FLAGS_UNINIT);
	int yu = !!(y->e_flags & EXT2_EXTENT_FLAGS_UNINIT);

	if (xu != yu || x->e_lblk + x->e_len != y->e_lblk)
		return 0;
	if (x->e_len + y->e_len > EXT_INIT_MAX)
		return 0;
	if (xu && x->e_len + y->e_len > EXT_UNWRITTEN_MAX)
		return 0;
	return x->e_pblk + x->e_len == y->e_pblk;
}

/*
 * ext4_ext_try_to_merge_right(): merge the leaf extent *@x (current at
 * @h) with the following extents of its leaf while they can be merged.
 * Sets *@merged.
 */
static errcode_t merge_right(struct fcr *r, ext2_extent_handle_t h,
			     struct ext2fs_extent *x, int *merged)
{
	struct ext2fs_extent n;
	errcode_t retval;

	for (;;) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, &n);
		if (retval == EXT2_ET_EXTENT_NO_NEXT)
			return 0;
		if (retval)
			return retval;
		if (!can_merge(x, &n))
			return 0;
		retval = ext2fs_extent_delete(h, 0);	/* never a leaf's first */
		if (retval)
			return retval;
		x->e_len += n.e_len;
		retval = extent_goto_start(h, x->e_lblk, &n);
		if (!retval)
			retval = ext2fs_extent_replace(h, 0, x);
		if (retval)
			return retval;
		*merged = 1;
		(void)r;
	}
}

/*
 * ext4_ext_try_to_merge_up(): a depth-1 tree whose root holds one index
 * and whose leaf holds at most 4 extents goes back into the inode; the
 * leaf block is freed (the simple free: bit-aware).
 */
static errcode_t merge_up(struct fcr *r, ext2_extent_handle_t h)
{
	struct ext2fs_extent root, v[EXT_ROOT_MAX];
	struct ext2_extent_info info;
	errcode_t retval;
	int n, i;

	retval = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &root);
	if (retval)
		return retval == EXT2_ET_EXTENT_NO_NEXT ? 0 : retval;
	retval = ext2fs_extent_get_info(h, &info);
	if (retval)
		return retval;
	if (info.max_depth != 1 || info.num_entries != 1)
		return 0;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_DOWN, &v[0]);
	if (retval)
		return retval;
	retval = ext2fs_extent_get_info(h, &info);
	if (retval)
		return retval;
	if (info.num_entries > EXT_ROOT_MAX || info.num_entries < 1)
		return 0;
	n = info.num_entries;
	for (i = 1; i < n; i++) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, &v[i]);
		if (retval)
			return retval;
	}
	/* libext2fs frees the emptied leaf with a plain -1 */
	preset(r, root.e_pblk);
	for (i = n - 1; i >= 0; i--) {
		retval = extent_goto_start(h, v[i].e_lblk, &root);
		if (!retval)
			retval = ext2fs_extent_delete(h, 0);
		if (retval)
			return retval;
	}
	for (i = 0; i < n; i++) {
		retval = ext2fs_extent_insert(h, i ? EXT2_EXTENT_INSERT_AFTER :
					      0, &v[i]);
		if (retval)
			return retval;
	}
	return 0;
}

/*
 * ext4_ext_try_to_merge() on the leaf extent starting at @lblk: merge its
 * left neighbour rightwards, or else itself rightwards; then merge up.
 */
static errcode_t try_to_merge(struct fcr *r, ext2_extent_handle_t h,
			      blk64_t lblk)
{
	struct ext2fs_extent x, p;
	int merged = 0;
	errcode_t retval;

	retval = extent_goto_start(h, lblk, &x);
	if (retval)
		return retval;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_PREV_SIB, &p);
	if (!retval) {
		retval = merge_right(r, h, &p, &merged);
		if (retval)
			return retval;
	} else if (retval != EXT2_ET_EXTENT_NO_PREV) {
		return retval;
	}
	if (!merged) {
		retval = extent_goto_start(h, lblk, &x);
		if (!retval)
			retval = merge_right(r, h, &x, &merged);
		if (retval)
			return retval;
	}
	retval = merge_up(r, h);
	if (!retval)
		retval = ext2fs_extent_fix_parents(h);
	return retval == EXT2_ET_NO_CURRENT_NODE ? 0 : retval;
}

/* ---- the kernel's goals for the blocks the replay allocates ------------- */

/*
 * ext4_inode_to_goal_block() as the replay sees it: the first block of the
 * inode's own group (i_block_group).  Its flex_bg rule (regular files one
 * group past their flex group's first) does not apply: the mount loads
 * s_log_groups_per_flex (ext4_fill_flex_info()) only after the journal's
 * recovery, so the replay sees a flex size of 1.  Delalloc (the default
 * mount) adds no colour; a nodelalloc mount's colour comes from the
 * mounting process's pid, which no offline tool knows (not modelled).
 */
static blk64_t inode_goal(ext2_filsys fs, ext2_ino_t ino)
{
	return ext2fs_group_first_block2(fs, ext2fs_group_of_ino(fs, ino));
}

/*
 * ext4_ext_find_goal() for @lblk near the leaf extent @e (the one
 * ext4_find_extent() leaves in the path: the last starting at or before
 * @lblk, else the leaf's first): its pblk moved by @lblk's distance from
 * its start (a result below 0 wraps, out of the fs: the allocator then
 * starts at s_first_data_block, as the kernel's does); no extent: the
 * inode's goal.
 */
static blk64_t find_goal(ext2_filsys fs, const struct ext2fs_extent *e,
			 ext2_ino_t ino, blk64_t lblk)
{
	if (!e)
		return inode_goal(fs, ino);
	if (lblk > e->e_lblk)
		return e->e_pblk + (lblk - e->e_lblk);
	return e->e_pblk - (e->e_lblk - lblk);
}

/* find_goal() near the leaf extent current at @h, if any. */
static blk64_t find_goal_at(ext2_filsys fs, ext2_extent_handle_t h,
			    ext2_ino_t ino, blk64_t lblk)
{
	struct ext2fs_extent e;

	if (ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e) ||
	    !(e.e_flags & EXT2_EXTENT_FLAGS_LEAF))
		return find_goal(fs, NULL, ino, lblk);
	return find_goal(fs, &e, ino, lblk);
}

/*
 * Before ext2fs_extent_insert() at @lblk into the leaf where
 * ext2fs_extent_goto2(@h, 0, @lblk) left @h: when that leaf is full, set
 * r's goals to the kernel's for the tree blocks ext4_ext_create_new_leaf()
 * allocates, in libext2fs's order of allocation.  A depth-0 tree grows in
 * depth (ext4_ext_grow_indepth(): the inode's goal, inode_goal()).  A
 * deeper leaf is split (ext4_ext_split(): every new block at @split, the
 * ext4_ext_find_goal() of the inserted extent); when no index level above
 * it has room, the tree first grows in depth, the new root child at the
 * root's first index block - 1 (the inode's goal if that is not past
 * s_first_data_block): libext2fs splits the root first, then the leaf.  @h
 * is left where it was.  Returns 0 or libext2fs errors.
 */
static errcode_t tree_goals(struct fcr *r, ext2_extent_handle_t h,
			    ext2_ino_t ino, blk64_t lblk, blk64_t split)
{
	ext2_filsys fs = r->fs;
	struct ext2_extent_info info;
	struct ext2fs_extent e;
	int room = 0, level;
	errcode_t retval;

	r->goal_set = 0;
	retval = ext2fs_extent_get_info(h, &info);
	if (retval)
		return retval;
	if (info.num_entries < info.max_entries ||
	    info.curr_level != info.max_depth)
		return 0;		/* room in the leaf: nothing allocated */
	if (info.max_depth == 0) {
		r->goal_next = r->goal_rest = inode_goal(fs, ino);
		r->goal_set = 1;
		return 0;
	}
	for (level = info.curr_level; level > 0 && !room; level--) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_UP, &e);
		if (!retval)
			retval = ext2fs_extent_get_info(h, &info);
		if (retval)
			return retval;
		room = info.num_entries < info.max_entries;
	}
	r->goal_next = r->goal_rest = split;
	if (!room) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e);
		if (retval)
			return retval;
		r->goal_next = e.e_pblk > fs->super->s_first_data_block ?
			e.e_pblk - 1 : inode_goal(fs, ino);
	}
	r->goal_set = 1;
	retval = ext2fs_extent_goto2(h, 0, lblk);
	return retval == EXT2_ET_EXTENT_NOT_FOUND ? 0 : retval;
}

/* ext2fs_extent_insert() with the kernel's goals (tree_goals()). */
static errcode_t goal_insert(struct fcr *r, ext2_extent_handle_t h,
			     ext2_ino_t ino, int flags,
			     struct ext2fs_extent *x, blk64_t split)
{
	errcode_t retval;

	retval = tree_goals(r, h, ino, x->e_lblk, split);
	if (!retval)
		retval = ext2fs_extent_insert(h, flags, x);
	r->goal_set = 0;
	return retval;
}

/*
 * The kernel's merge before it looks for room (ext4_ext_insert_extent()):
 * newext @x joins the leaf extent @c (where ext2fs_extent_goto2() left @h)
 * or its right neighbour when @x lies past @c's end (prepended to it),
 * else @c (appended to it, or prepended).  Sets *@lblk to the start of the
 * grown extent (the kernel's nearex) and *@done when merged.
 */
static errcode_t merge_first(ext2_extent_handle_t h, struct ext2fs_extent *c,
			     const struct ext2fs_extent *x, blk64_t *lblk,
			     int *done)
{
	struct ext2_extent_info info;
	struct ext2fs_extent n;
	errcode_t retval;

	*done = 0;
	retval = ext2fs_extent_get_info(h, &info);
	if (retval)
		return retval;
	/* curr_entry counts from 1 (the header is one entry long) */
	if (info.curr_entry < info.num_entries &&
	    c->e_lblk + c->e_len < x->e_lblk) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, &n);
		if (retval)
			return retval;
		if (!can_merge(x, &n))
			return 0;
		n.e_lblk = x->e_lblk;
		n.e_pblk = x->e_pblk;
		n.e_len += x->e_len;
		*c = n;
	} else if (can_merge(c, x)) {
		c->e_len += x->e_len;
	} else if (can_merge(x, c)) {
		c->e_lblk = x->e_lblk;
		c->e_pblk = x->e_pblk;
		c->e_len += x->e_len;
	} else {
		return 0;
	}
	retval = ext2fs_extent_replace(h, 0, c);
	if (!retval)
		retval = ext2fs_extent_fix_parents(h);
	*lblk = c->e_lblk;
	*done = !retval;
	return retval;
}

/*
 * "probably next leaf has space for us?" (ext4_ext_insert_extent()): @x
 * past the start of the full leaf's last extent goes first into the next
 * leaf when that one has room.  @h is at a leaf extent of the full leaf.
 */
static errcode_t next_leaf_insert(ext2_extent_handle_t h,
				  struct ext2fs_extent *x, int *done)
{
	struct ext2_extent_info info;
	struct ext2fs_extent e;
	errcode_t retval;

	*done = 0;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_LAST_SIB, &e);
	if (retval || x->e_lblk <= e.e_lblk)
		return retval;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_LEAF, &e);
	if (retval == EXT2_ET_EXTENT_NO_NEXT)
		return 0;
	if (!retval)
		retval = ext2fs_extent_get_info(h, &info);
	if (retval || info.num_entries >= info.max_entries)
		return retval;
	retval = ext2fs_extent_insert(h, 0, x);
	if (!retval)
		retval = ext2fs_extent_fix_parents(h);
	*done = !retval;
	return retval;
}

/* @e as an on-disk leaf extent at @ee. */
static void put_ext(struct ext3_extent *ee, const struct ext2fs_extent *e)
{
	int uw = !!(e->e_flags & EXT2_EXTENT_FLAGS_UNINIT);

	ee->ee_block = ext2fs_cpu_to_le32(e->e_lblk);
	ee->ee_len = ext2fs_cpu_to_le16(e->e_len + (uw ? EXT_INIT_MAX : 0));
	ee->ee_start = ext2fs_cpu_to_le32(e->e_pblk & 0xffffffffULL);
	ee->ee_start_hi = ext2fs_cpu_to_le16(e->e_pblk >> 32);
}

/*
 * ext4_ext_split() of the full leaf holding @h's current extent (the
 * kernel's p_ext), its parent index node having room: a new leaf at the
 * kernel's goal (@goal: ext4_ext_new_meta_block()) takes the extents after
 * the current one; its index goes after the old leaf's, starting at the
 * first of them.  When the current extent is the leaf's last, the new leaf
 * starts at @x and holds it (libext2fs cannot step into an empty leaf;
 * the kernel's empty leaf gets @x next): *@placed is set.
 */
static errcode_t split_leaf(struct fcr *r, ext2_extent_handle_t h,
			    ext2_ino_t ino, const struct ext2fs_extent *x,
			    blk64_t goal, int *placed)
{
	ext2_filsys fs = r->fs;
	struct ext2_extent_info info;
	struct ext3_extent_header *eh;
	struct ext3_extent *ee;
	struct ext2fs_extent e, ix;
	blk64_t blk, border = x->e_lblk;
	char *buf = NULL;
	int m, i;
	errcode_t retval;

	*placed = 0;
	retval = ext2fs_extent_get_info(h, &info);
	if (retval)
		return retval;
	m = info.num_entries - info.curr_entry;	/* curr_entry from 1 */
	retval = fc_simple_alloc(fs, goal, &blk);
	if (retval)
		return retval;
	ext2fs_block_alloc_stats2(fs, blk, +1);
	retval = ext2fs_get_memzero(fs->blocksize, &buf);
	if (retval)
		return retval;
	eh = (struct ext3_extent_header *)buf;
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = ext2fs_cpu_to_le16(m ? m : 1);
	eh->eh_max = ext2fs_cpu_to_le16((fs->blocksize - sizeof(*eh)) /
					sizeof(*ee));
	ee = EXT_FIRST_EXTENT(eh);
	if (!m) {
		put_ext(ee, x);
		*placed = 1;
	}
	for (i = 0; i < m; i++, ee++) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, &e);
		if (retval)
			goto out;
		if (!i)
			border = e.e_lblk;
		put_ext(ee, &e);
	}
	retval = ext2fs_extent_block_csum_set(fs, ino, eh);
	if (!retval)
		retval = io_channel_write_blk64(fs->io, blk, 1, buf);
	/* the moved extents leave the old leaf, from its end */
	for (i = 0; !retval && i < m; i++) {
		retval = ext2fs_extent_get(h, EXT2_EXTENT_LAST_SIB, &e);
		if (!retval)
			retval = ext2fs_extent_delete(h, 0);
	}
	if (!retval)
		retval = ext2fs_extent_get(h, EXT2_EXTENT_UP, &e);
	if (!retval) {
		memset(&ix, 0, sizeof(ix));
		ix.e_lblk = border;
		ix.e_pblk = blk;
		ix.e_len = 1;
		retval = ext2fs_extent_insert(h, EXT2_EXTENT_INSERT_AFTER,
					      &ix);
	}
out:
	ext2fs_free_mem(&buf);
	return retval;
}

/*
 * ext4_ext_insert_extent() of @x into the full leaf of @ino's tree where
 * ext2fs_extent_goto2() left @h (at @c, or at no extent when @c is NULL),
 * no merge with a neighbour possible (merge_first()): the kernel's order
 * -- the next leaf's room, then a split of a leaf whose parent has room
 * (ext4_ext_split() at the current extent, the new leaf at @goal); then
 * @x is inserted and, when @merge, merged.  *@done is left 0 where
 * libext2fs's insert must do it, @h back where it was (a depth-0 tree
 * grows in depth as the kernel's does; a tree whose leaf's parent is full
 * grows by libext2fs's split: the kernel's goals, not its node
 * boundaries).
 */
static errcode_t full_leaf_insert(struct fcr *r, ext2_extent_handle_t h,
				  ext2_ino_t ino, struct ext2fs_extent *x,
				  struct ext2fs_extent *c, blk64_t goal,
				  int merge, int *done)
{
	struct ext2_extent_info info;
	struct ext2fs_extent e;
	blk64_t near = x->e_lblk;
	int flags = 0, placed;
	errcode_t retval;

	*done = 0;
	if (!c)
		return 0;
	retval = ext2fs_extent_get_info(h, &info);
	if (retval)
		return retval;
	if (info.max_depth == 0)
		return 0;
	retval = next_leaf_insert(h, x, done);
	if (retval || *done)
		goto merged;
	retval = ext2fs_extent_goto2(h, 0, x->e_lblk);
	if (retval != EXT2_ET_EXTENT_NOT_FOUND)
		return retval ? retval : EXT2_ET_EXTENT_NOT_FOUND;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_UP, &e);
	if (!retval)
		retval = ext2fs_extent_get_info(h, &info);
	if (retval || info.num_entries >= info.max_entries) {
		/* back where libext2fs's insert goes */
		if (!retval)
			retval = ext2fs_extent_goto2(h, 0, x->e_lblk);
		return retval == EXT2_ET_EXTENT_NOT_FOUND ? 0 : retval;
	}
	retval = ext2fs_extent_goto2(h, 0, x->e_lblk);
	if (retval != EXT2_ET_EXTENT_NOT_FOUND)
		return retval ? retval : EXT2_ET_EXTENT_NOT_FOUND;
	retval = split_leaf(r, h, ino, x, goal, &placed);
	if (retval || placed) {
		*done = !retval;
		goto merged;
	}
	retval = ext2fs_extent_goto2(h, 0, x->e_lblk);
	if (retval != EXT2_ET_EXTENT_NOT_FOUND)
		return retval ? retval : EXT2_ET_EXTENT_NOT_FOUND;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
	if (!retval && (e.e_flags & EXT2_EXTENT_FLAGS_LEAF) &&
	    e.e_lblk < x->e_lblk)
		flags = EXT2_EXTENT_INSERT_AFTER;
	retval = ext2fs_extent_insert(h, flags, x);
	if (!retval)
		retval = ext2fs_extent_fix_parents(h);
	*done = !retval;
merged:
	if (!retval && *done && merge)
		retval = try_to_merge(r, h, near);
	return retval;
}

/*
 * ext4_ext_insert_extent() of @x into a hole of @ino's tree, in the
 * kernel's order: when @merge, appended or prepended to a leaf neighbour
 * (merge_first(): no block allocated); else inserted in order, into a full
 * leaf as full_leaf_insert() does it, else by libext2fs's insert (its
 * splits allocating through fc_simple_alloc() at the kernel's goals:
 * tree_goals()); then, when @merge, merged with its leaf neighbours
 * (ext4_ext_try_to_merge()).  The replay's cuts of an extent pass
 * EXT4_GET_BLOCKS_PRE_IO: no merge.  The split goal is the
 * ext4_ext_find_goal() of @x near @near, or near the extent before @x
 * when @near is NULL.
 */
static errcode_t tree_insert(struct fcr *r, ext2_extent_handle_t h,
			     ext2_ino_t ino, struct ext2fs_extent *x,
			     const struct ext2fs_extent *near, int merge)
{
	struct ext2_extent_info info;
	struct ext2fs_extent c;
	blk64_t goal, at;
	errcode_t retval;
	int flags = 0, leaf, done;

	retval = ext2fs_extent_goto2(h, 0, x->e_lblk);
	if (!retval)
		return EXT2_ET_EXTENT_NOT_FOUND;	/* mapped: cannot be */
	if (retval != EXT2_ET_EXTENT_NOT_FOUND)
		return retval;
	retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &c);
	leaf = !retval && (c.e_flags & EXT2_EXTENT_FLAGS_LEAF);
	if (leaf && c.e_lblk < x->e_lblk)
		flags = EXT2_EXTENT_INSERT_AFTER;
	if (merge && leaf) {
		retval = merge_first(h, &c, x, &at, &done);
		if (!retval && done)
			retval = try_to_merge(r, h, at);
		if (retval || done)
			return retval;
		retval = ext2fs_extent_goto2(h, 0, x->e_lblk);
		if (retval != EXT2_ET_EXTENT_NOT_FOUND)
			return retval ? retval : EXT2_ET_EXTENT_NOT_FOUND;
	}
	goal = find_goal(r->fs, near ? near : leaf ? &c : NULL, ino,
			 x->e_lblk);
	retval = ext2fs_extent_get_info(h, &info);
	if (retval)
		return retval;
	if (info.num_entries >= info.max_entries &&
	    info.curr_level == info.max_depth) {
		retval = full_leaf_insert(r, h, ino, x, leaf ? &c : NULL,
					  goal, merge, &done);
		if (retval || done)
			return retval;
	}
	retval = goal_insert(r, h, ino, flags, x, goal);
	if (!retval)
		retval = ext2fs_extent_fix_parents(h);
	if (!retval && merge)
		retval = try_to_merge(r, h, x->e_lblk);
	return retval;
}

/* ext4_ext_insert_extent() of [@lblk, @lblk + @len) -> @pblk (the replay's
 * new mapping): tree_insert() with merging. */
static errcode_t insert_extent(struct fcr *r, ext2_extent_handle_t h,
			       ext2_ino_t ino, blk64_t lblk, blk64_t pblk,
			       blk64_t len, int unwritten)
{
	struct ext2fs_extent x;

	set_ext(&x, lblk, pblk, len, unwritten);
	return tree_insert(r, h, ino, &x, NULL, 1);
}

/*
 * ext4_ext_replay_update_ex(): cut [@lblk, @lblk + @len) out of the extent
 * of @ino's tree holding it (ext4_force_split_extent_at(), no merging) and
 * give it @pblk and the @unwritten state.  Each cut inserts the part after
 * it; a full leaf is split at the kernel's goals (tree_goals()), the split
 * goal at the cut in the extent's old blocks (ext4_ext_find_goal() near
 * the extent being cut).
 */
static errcode_t update_ex(struct fcr *r, ext2_extent_handle_t h,
			   ext2_ino_t ino, blk64_t lblk, blk64_t len,
			   int unwritten, blk64_t pblk)
{
	struct ext2fs_extent e, x;
	blk64_t end;
	int uw;
	errcode_t retval;

	retval = ext2fs_extent_goto2(h, 0, lblk);
	if (!retval)
		retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
	if (retval)
		return retval;
	end = e.e_lblk + e.e_len;
	uw = !!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT);
	if (lblk + len > end)
		return EXT2_ET_EXTENT_NOT_FOUND;
	if (e.e_lblk < lblk) {
		set_ext(&x, e.e_lblk, e.e_pblk, lblk - e.e_lblk, uw);
		retval = ext2fs_extent_replace(h, 0, &x);
		if (retval)
			return retval;
		set_ext(&x, lblk, pblk, len, unwritten);
		retval = tree_insert(r, h, ino, &x, &e, 0);
	} else {
		set_ext(&x, lblk, pblk, len, unwritten);
		retval = ext2fs_extent_replace(h, 0, &x);
	}
	if (!retval && lblk + len < end) {
		set_ext(&x, lblk + len, e.e_pblk + (lblk + len - e.e_lblk),
			end - lblk - len, uw);
		retval = tree_insert(r, h, ino, &x, &e, 0);
	}
	if (!retval)
		retval = ext2fs_extent_fix_parents(h);
	return retval;
}

/*
 * ext4_ext_replay_shrink_inode(): walk the leaf extents from lblk 0 to
 * @end, ext4_ext_try_to_merge() on each.  The kernel steps one block at a
 * time through a hole, merging the extent before it again each time; a
 * repeated merge changes nothing, so the walk jumps to the next extent.
 */
static errcode_t shrink_inode(struct fcr *r, ext2_extent_handle_t h,
			      blk64_t end)
{
	struct ext2fs_extent x;
	blk64_t cur = 0, old, last_merged = EXT_MAX_BLOCKS;
	errcode_t retval;

	while (cur < end) {
		retval = ext2fs_extent_goto2(h, 0, cur);
		if (retval && retval != EXT2_ET_EXTENT_NOT_FOUND)
			return retval;
		retval = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &x);
		if (retval || !(x.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			return 0;	/* empty tree */
		old = cur;
		cur = x.e_lblk + x.e_len;
		if (cur <= old) {
			if (last_merged == x.e_lblk) {
				/* the same extent again: skip the hole (a
				 * next extent not past it: a corrupt tree,
				 * whose walk ends here) */
				retval = ext2fs_extent_get(h,
					EXT2_EXTENT_NEXT_LEAF, &x);
				if (retval || x.e_lblk <= old)
					return 0;
				cur = x.e_lblk;
				continue;
			}
			cur = old + 1;
		}
		last_merged = x.e_lblk;
		retval = try_to_merge(r, h, x.e_lblk);
		if (retval)
			return retval;
	}
	return 0;
}

/* Walk every extent of @h: leaf extents and index entries. */
typedef errcode_t (*ext_fn)(struct fcr *r, const struct ext2fs_extent *e,
			    int leaf);

static errcode_t walk_extents(struct fcr *r, ext2_extent_handle_t h,
			      ext_fn fn)
{
	struct ext2fs_extent e;
	errcode_t retval;
	int op = EXT2_EXTENT_ROOT;

	for (;;) {
		retval = ext2fs_extent_get(h, op, &e);
		op = EXT2_EXTENT_NEXT;
		if (retval == EXT2_ET_EXTENT_NO_NEXT)
			return 0;
		if (retval)
			return retval;
		if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		retval = fn(r, &e, !!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF));
		if (retval)
			return retval;
	}
}

/* ---- the tags -------------------------------------------------------------- */

static void fate(struct fcr *r, struct e4_fc_tag *t, int f)
{
	t->fate = f;
	if (f == E4_FC_APPLIED || f == E4_FC_DELETED ||
	    f == E4_FC_OTHER_INODE)
		r->res->applied++;
	else if (f != E4_FC_MARKER)
		r->res->skipped++;
}

/* i_blocks as the in-core inode keeps it: extent changes in replay do not
 * touch it (no quota calls); libext2fs's do. */
static void save_iblocks(const unsigned char *buf, __u32 *lo, __u16 *hi)
{
	*lo = I((unsigned char *)buf)->i_blocks;
	*hi = I((unsigned char *)buf)->osd2.linux2.l_i_blocks_hi;
}

static void restore_iblocks(unsigned char *buf, __u32 lo, __u16 hi)
{
	I(buf)->i_blocks = lo;
	I(buf)->osd2.linux2.l_i_blocks_hi = hi;
}

/*
 * The start both range tags share (ext4_fc_replay_add_range() and
 * ext4_fc_replay_del_range()): the inode read into r->ibuf and recorded as
 * modified, i_blocks saved, its extent tree opened into *@h.  *@done is
 * set when the tag's fate is decided here (no inode: E4_FC_NO_INODE; not
 * an extent inode, where ext4_find_extent() and the updates fail:
 * E4_FC_NOT_EXTENT); the caller returns what this returns then.  Else a
 * nonzero return is a failed ext_open(), for range_end().
 */
static errcode_t range_begin(struct fcr *r, struct e4_fc_tag *t, __u32 *blo,
			     __u16 *bhi, ext2_extent_handle_t *h, int *done)
{
	unsigned char *buf = r->ibuf;
	errcode_t retval;

	*done = 1;
	*h = NULL;
	if (fc_iget(r, t->ino, buf)) {
		fate(r, t, E4_FC_NO_INODE);
		return 0;
	}
	retval = record_modified(r, t->ino);
	if (retval)
		return retval;
	if (!is_extent_inode(buf)) {
		fate(r, t, E4_FC_NOT_EXTENT);
		return 0;
	}
	save_iblocks(buf, blo, bhi);
	*done = 0;
	return ext_open(r, t->ino, buf, h);
}

/*
 * The end both range tags share: free @h; on @retval the kernel gives up on
 * the tag ("goto out; return 0": E4_FC_GAVE_UP, only EXT2_ET_NO_MEMORY is
 * passed on); else i_blocks restored, the inode written, E4_FC_APPLIED.
 */
static errcode_t range_end(struct fcr *r, struct e4_fc_tag *t,
			   ext2_extent_handle_t h, errcode_t retval,
			   __u32 blo, __u16 bhi)
{
	if (h)
		ext2fs_extent_free(h);
	if (retval) {
		fate(r, t, E4_FC_GAVE_UP);
		return retval == EXT2_ET_NO_MEMORY ? retval : 0;
	}
	restore_iblocks(r->ibuf, blo, bhi);
	retval = put_inode(r, t->ino, r->ibuf);
	if (!retval)
		fate(r, t, E4_FC_APPLIED);
	return retval;
}

/* ext4_fc_replay_add_range() */
static errcode_t replay_add_range(struct fcr *r, struct e4_fc_tag *t)
{
	ext2_filsys fs = r->fs;
	unsigned char *buf = r->ibuf;
	ext2_extent_handle_t h = NULL;
	blk64_t start = t->lblk, cur, remaining, want;
	struct mapping m;
	__u32 blo;
	__u16 bhi;
	errcode_t retval;
	int done;

	retval = range_begin(r, t, &blo, &bhi, &h, &done);
	if (done)
		return retval;
	if (retval)
		goto out;
	cur = start;
	remaining = t->count;
	while (remaining > 0) {
		retval = fc_map(h, cur, remaining, &m);
		if (retval)
			goto out;
		want = t->pblk + (cur - start);
		if (!m.mapped) {
			/* range not mapped: a new extent */
			retval = insert_extent(r, h, t->ino, cur, want, m.len,
					       t->unwritten);
		} else if (want != m.pblk) {
			/* mapped elsewhere: remap, free the old blocks */
			retval = update_ex(r, h, t->ino, cur, m.len,
					   t->unwritten, want);
			if (!retval)
				mark_bb(r, m.pblk, m.len, 0);
		} else {
			/* mapped here: a state change (or none) */
			retval = update_ex(r, h, t->ino, cur, m.len,
					   t->unwritten, m.pblk);
			if (!retval)
				retval = shrink_inode(r, h, start + t->count);
		}
		if (retval)
			goto out;
		cur += m.len;
		remaining -= m.len;
	}
	retval = shrink_inode(r, h, EXT2_I_SIZE(I(buf)) >>
			      EXT2_BLOCK_SIZE_BITS(fs->super));
out:
	return range_end(r, t, h, retval, blo, bhi);
}

/* preset() the tree nodes (index entries' children) libext2fs may free. */
static errcode_t preset_fn(struct fcr *r, const struct ext2fs_extent *e,
			   int leaf)
{
	if (!leaf)
		preset(r, e->e_pblk);
	return 0;
}

/* ext4_fc_replay_del_range() */
static errcode_t replay_del_range(struct fcr *r, struct e4_fc_tag *t)
{
	ext2_filsys fs = r->fs;
	unsigned char *buf = r->ibuf;
	ext2_extent_handle_t h = NULL;
	blk64_t cur = t->lblk, remaining = t->count, b;
	struct mapping m;
	__u32 blo;
	__u16 bhi;
	errcode_t retval;
	int done;

	retval = range_begin(r, t, &blo, &bhi, &h, &done);
	if (done)
		return retval;
	if (retval)
		goto out;
	/*
	 * The kernel frees the mapped blocks of the range in the bitmap, then
	 * ext4_ext_remove_space() frees them again (a no-op on the bits) and
	 * the emptied tree nodes.  ext2fs_punch() does both with plain -1
	 * counts: preset the bits first so only changed bits count.
	 */
	while (remaining > 0 && cur < EXT_MAX_BLOCKS) {
		retval = fc_map(h, cur, remaining, &m);
		if (retval)
			goto out;
		if (!m.len)
			break;
		if (m.mapped)
			for (b = 0; b < m.len; b++)
				preset(r, m.pblk + b);
		cur += m.len;
		remaining -= m.len;
	}
	retval = walk_extents(r, h, preset_fn);
	ext2fs_extent_free(h);
	h = NULL;
	if (retval)
		goto out;
	if (t->count) {
		retval = ext2fs_punch(fs, t->ino, I(buf), NULL, t->lblk,
				      (blk64_t)t->lblk + t->count - 1);
		if (retval)
			goto out;
	}
	retval = ext_open(r, t->ino, buf, &h);
	if (!retval)
		retval = shrink_inode(r, h, EXT2_I_SIZE(I(buf)) >>
				      EXT2_BLOCK_SIZE_BITS(fs->super));
out:
	return range_end(r, t, h, retval, blo, bhi);
}

/* ext4_ext_clear_bb(): free the blocks of the inode's tree in the bitmap
 * and exclude them from allocation. */
static errcode_t clear_fn(struct fcr *r, const struct ext2fs_extent *e,
			  int leaf)
{
	blk64_t len = leaf ? e->e_len : 1;

	mark_bb(r, e->e_pblk, len, 0);
	return add_region(r, e->e_pblk, len);
}

/* ext4_fc_set_bitmaps_and_counters(): mark the tree's blocks used. */
static errcode_t set_fn(struct fcr *r, const struct ext2fs_extent *e,
			int leaf)
{
	mark_bb(r, e->e_pblk, leaf ? e->e_len : 1, 1);
	return 0;
}

/* ext4_ext_replay_set_iblocks(): data blocks plus extent tree blocks. */
static errcode_t count_fn(struct fcr *r, const struct ext2fs_extent *e,
			  int leaf)
{
	r->count += leaf ? e->e_len : 1;
	return 0;
}

/* ext4_fc_replay_inode() */
static errcode_t replay_inode(struct fcr *r, struct e4_fc_tag *t)
{
	ext2_filsys fs = r->fs;
	unsigned char *buf = r->ibuf, *raw = (unsigned char *)t->val + 4;
	unsigned int inode_len = t->len - 4;
	ext2_extent_handle_t h = NULL;
	errcode_t retval;

	/* the old blocks, if the inode loads */
	if (!fc_iget(r, t->ino, buf) && is_extent_inode(buf)) {
		retval = ext_open(r, t->ino, buf, &h);
		if (!retval) {
			retval = walk_extents(r, h, clear_fn);
			ext2fs_extent_free(h);
			h = NULL;
			if (retval == EXT2_ET_NO_MEMORY)
				return retval;
		}
	}
	retval = record_modified(r, t->ino);
	if (retval)
		return retval;
	/* ext4_get_fc_inode_loc(): the raw inode as it is on disk */
	if (t->ino < 1 || t->ino > fs->super->s_inodes_count ||
	    e4_read_inode(fs, t->ino, I(buf), (int)r->isize)) {
		fate(r, t, E4_FC_NO_INODE);
		return 0;
	}
	if (inode_len > r->isize)
		inode_len = r->isize;
	memcpy(buf, raw, I_BLOCK_OFF);
	memcpy(buf + I_GENERATION_OFF, raw + I_GENERATION_OFF,
	       inode_len - I_GENERATION_OFF);
	if (I(buf)->i_flags & EXT4_EXTENTS_FL) {
		if (e4_le16(I(buf)->i_block) != EH_MAGIC) {
			/* a fresh extent header: magic, eh_max 4 */
			memset(I(buf)->i_block, 0, 12);
			((unsigned char *)I(buf)->i_block)[0] = EH_MAGIC & 0xff;
			((unsigned char *)I(buf)->i_block)[1] = EH_MAGIC >> 8;
			((unsigned char *)I(buf)->i_block)[4] = EXT_ROOT_MAX;
		}
	} else if (I(buf)->i_flags & EXT4_INLINE_DATA_FL) {
		memcpy(I(buf)->i_block, raw + I_BLOCK_OFF,
		       sizeof(I(buf)->i_block));
	}
	retval = put_inode(r, t->ino, buf);
	if (retval)
		return retval;
	mark_inode_used(r, t->ino);
	/* "Given that we just wrote the inode on disk, this SHOULD succeed." */
	if (fc_iget(r, t->ino, buf))
		return E4_ERR_FC_REPLAY_FAILS;
	if (is_extent_inode(buf)) {
		r->count = 0;
		retval = ext_open(r, t->ino, buf, &h);
		if (!retval)
			retval = walk_extents(r, h, count_fn);
		if (h)
			ext2fs_extent_free(h);
		if (!retval)
			retval = ext2fs_iblk_set(fs, I(buf), r->count);
		if (retval)
			return retval;
	}
	retval = put_inode(r, t->ino, buf);
	if (!retval)
		fate(r, t, E4_FC_APPLIED);
	return retval;
}

/* The directory entry file type of mode @mode (ext4_set_de_type()). */
static int de_type(__u16 mode)
{
	if (LINUX_S_ISREG(mode))
		return EXT2_FT_REG_FILE;
	if (LINUX_S_ISDIR(mode))
		return EXT2_FT_DIR;
	if (LINUX_S_ISCHR(mode))
		return EXT2_FT_CHRDEV;
	if (LINUX_S_ISBLK(mode))
		return EXT2_FT_BLKDEV;
	if (LINUX_S_ISLNK(mode))
		return EXT2_FT_SYMLINK;
	if (LINUX_S_ISFIFO(mode))
		return EXT2_FT_FIFO;
	if (LINUX_S_ISSOCK(mode))
		return EXT2_FT_SOCK;
	return EXT2_FT_UNKNOWN;
}

static void name_of(const struct e4_fc_tag *t, char *name)
{
	memcpy(name, t->name, t->namelen);
	name[t->namelen] = 0;
}

/* Directory mtime and ctime set to now (ext4_add_entry(),
 * __ext4_unlink()). */
static errcode_t touch_dir(struct fcr *r, ext2_ino_t dir)
{
	unsigned char *buf = r->ibuf2;
	errcode_t retval;

	retval = e4_read_inode(r->fs, dir, I(buf), (int)r->isize);
	if (retval)
		return retval;
	I(buf)->i_mtime = I(buf)->i_ctime = r->now;
	return put_inode(r, dir, buf);
}

/*
 * __ext4_link() for ext4_fc_replay_link_internal(): add the entry (an
 * existing name is -EEXIST, ignored) and count the link.  @buf holds the
 * inode, written back on success.  Returns 0, with *@f the fate.
 */
static errcode_t link_entry(struct fcr *r, struct e4_fc_tag *t,
			    unsigned char *buf, int *f)
{
	ext2_filsys fs = r->fs;
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t found;
	errcode_t retval;
	int ftype;

	if (fc_iget(r, t->parent, r->ibuf2)) {
		*f = E4_FC_NO_DIR;
		return 0;
	}
	name_of(t, name);
	retval = ext2fs_lookup(fs, t->parent, name, (int)t->namelen, NULL,
			       &found);
	if (!retval) {
		*f = E4_FC_EXISTS;
		return 0;
	}
	if (retval != EXT2_ET_FILE_NOT_FOUND)
		return retval;
	ftype = ext2fs_has_feature_filetype(fs->super) ?
		de_type(I(buf)->i_mode) : 0;
	retval = fc_add_entry(r, t->parent, name, (int)t->namelen, t->ino,
			      ftype);
	if (retval)
		return retval;
	/* ext4_inc_count(): +1; an htree directory at 2 or past
	 * EXT4_LINK_MAX goes to 1 */
	I(buf)->i_links_count++;
	if (LINUX_S_ISDIR(I(buf)->i_mode) &&
	    ext2fs_has_feature_dir_index(fs->super) &&
	    (I(buf)->i_flags & EXT2_INDEX_FL) &&
	    (I(buf)->i_links_count > EXT4_LINK_MAX ||
	     I(buf)->i_links_count == 2))
		I(buf)->i_links_count = 1;
	I(buf)->i_ctime = r->now;
	*f = E4_FC_APPLIED;
	return 0;
}

/* ext4_fc_replay_link() */
static errcode_t replay_link(struct fcr *r, struct e4_fc_tag *t)
{
	unsigned char *buf = r->ibuf;
	errcode_t retval;
	int f;

	if (fc_iget(r, t->ino, buf)) {
		fate(r, t, E4_FC_NO_INODE);
		return 0;
	}
	retval = link_entry(r, t, buf, &f);
	if (!retval && f == E4_FC_APPLIED)
		retval = put_inode(r, t->ino, buf);
	if (retval)
		return retval;
	fate(r, t, f);
	return 0;
}

/* ext4_init_new_dir(): nlink 2, i_size 0, block 0 appended (allocated by
 * the simple allocator unless mapped) with "." and "..". */
static errcode_t init_new_dir(struct fcr *r, ext2_ino_t ino,
			      ext2_ino_t parent, unsigned char *buf)
{
	ext2_filsys fs = r->fs;
	ext2_extent_handle_t h = NULL;
	struct mapping m;
	blk64_t pblk;
	char *block = NULL;
	__u32 blo;
	__u16 bhi;
	errcode_t retval;

	if (!is_extent_inode(buf))
		return EXT2_ET_INODE_NOT_EXTENT;
	save_iblocks(buf, &blo, &bhi);
	I(buf)->i_links_count = 2;
	retval = ext_open(r, ino, buf, &h);
	if (!retval)
		retval = fc_map(h, 0, 1, &m);
	if (!retval && m.mapped) {
		pblk = m.pblk;
	} else if (!retval) {
		/* ext4_append() -> ext4_ext_map_blocks(): the goal is
		 * ext4_ext_find_goal() of block 0 */
		retval = fc_simple_alloc(fs, find_goal_at(fs, h, ino, 0),
					 &pblk);
		if (!retval) {
			ext2fs_block_alloc_stats2(fs, pblk, +1);
			retval = insert_extent(r, h, ino, 0, pblk, 1, 0);
		}
	}
	if (h)
		ext2fs_extent_free(h);
	if (!retval)
		retval = ext2fs_new_dir_block(fs, ino, parent, &block);
	if (!retval)
		retval = ext2fs_write_dir_block4(fs, pblk, block, 0, ino);
	ext2fs_free_mem(&block);
	if (retval)
		return retval;
	restore_iblocks(buf, blo, bhi);
	retval = ext2fs_inode_size_set(fs, I(buf), fs->blocksize);
	if (!retval)
		retval = put_inode(r, ino, buf);
	return retval;
}

/* ext4_fc_replay_create() */
static errcode_t replay_create(struct fcr *r, struct e4_fc_tag *t)
{
	ext2_filsys fs = r->fs;
	unsigned char *buf = r->ibuf;
	errcode_t retval;
	int f;

	/* ext4_mark_inode_used(), then iget: both failing fail the replay */
	if (t->ino < EXT2_FIRST_INO(fs->super) ||
	    t->ino > fs->super->s_inodes_count)
		return E4_ERR_FC_REPLAY_FAILS;
	mark_inode_used(r, t->ino);
	if (fc_iget(r, t->ino, buf))
		return E4_ERR_FC_REPLAY_FAILS;
	if (LINUX_S_ISDIR(I(buf)->i_mode)) {
		if (fc_iget(r, t->parent, r->ibuf2)) {
			fate(r, t, E4_FC_NO_DIR);
			return 0;
		}
		if (init_new_dir(r, t->ino, t->parent, buf)) {
			fate(r, t, E4_FC_NO_DIR);	/* "ret = 0; goto out" */
			return 0;
		}
	}
	retval = link_entry(r, t, buf, &f);
	if (retval)
		return retval;
	/* whatever ext4_fc_replay_link_internal() did (a missing parent
	 * and -EEXIST return 0 too): set_nlink(inode, 1) */
	I(buf)->i_links_count = 1;
	retval = put_inode(r, t->ino, buf);
	if (!retval)
		fate(r, t, f);
	return retval;
}

/*
 * ext4_evict_inode() of an inode whose last link the replay removed:
 * truncate (bit-aware frees), drop the xattr block's reference, dtime,
 * free the inode (ext4_free_inode()).
 */
static errcode_t delete_inode(struct fcr *r, ext2_ino_t ino,
			      unsigned char *buf)
{
	ext2_filsys fs = r->fs;
	ext2_extent_handle_t h = NULL;
	blk64_t acl = ext2fs_file_acl_block(fs, I(buf));
	struct ext2fs_extent e;
	int op = EXT2_EXTENT_ROOT;
	__u32 count = 1, blo;
	__u16 bhi;
	errcode_t retval = 0;
	blk64_t b;

	save_iblocks(buf, &blo, &bhi);
	if (is_extent_inode(buf)) {
		retval = ext_open(r, ino, buf, &h);
		while (!retval) {
			retval = ext2fs_extent_get(h, op, &e);
			op = EXT2_EXTENT_NEXT;
			if (retval)
				break;
			if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
				continue;
			if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF))
				preset(r, e.e_pblk);
			else
				for (b = 0; b < e.e_len; b++)
					preset(r, e.e_pblk + b);
		}
		if (retval == EXT2_ET_EXTENT_NO_NEXT)
			retval = 0;
		if (h)
			ext2fs_extent_free(h);
		if (!retval)
			retval = ext2fs_punch(fs, ino, I(buf), NULL, 0, ~0ULL);
		if (retval)
			return retval;
		restore_iblocks(buf, blo, bhi);
	}
	if (acl) {
		retval = ext2fs_adjust_ea_refcount3(fs, acl, NULL, -1, &count,
						    ino);
		if (!retval && !count)
			mark_bb(r, acl, 1, 0);
		ext2fs_file_acl_block_set(fs, I(buf), 0);
		retval = 0;
	}
	retval = ext2fs_inode_size_set(fs, I(buf), 0);
	if (retval)
		return retval;
	I(buf)->i_dtime = r->now;
	retval = put_inode(r, ino, buf);
	if (retval)
		return retval;
	if (ext2fs_fast_test_inode_bitmap2(fs->inode_map, ino))
		ext2fs_inode_alloc_stats2(fs, ino, -1,
					  LINUX_S_ISDIR(I(buf)->i_mode));
	r->res->deleted++;
	return 0;
}

/* ext4_fc_replay_unlink() and __ext4_unlink() in FC_REPLAY mode */
static errcode_t replay_unlink(struct fcr *r, struct e4_fc_tag *t)
{
	ext2_filsys fs = r->fs;
	unsigned char *buf = r->ibuf;
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t found;
	errcode_t retval;
	int f = E4_FC_APPLIED;

	if (fc_iget(r, t->ino, buf)) {
		fate(r, t, E4_FC_NO_INODE);
		return 0;
	}
	if (fc_iget(r, t->parent, r->ibuf2)) {
		fate(r, t, E4_FC_NO_DIR);
		return 0;
	}
	name_of(t, name);
	retval = ext2fs_lookup(fs, t->parent, name, (int)t->namelen, NULL,
			       &found);
	if (retval == EXT2_ET_FILE_NOT_FOUND) {
		fate(r, t, E4_FC_NO_ENTRY);	/* -ENOENT is fine */
		return 0;
	}
	if (retval)
		return retval;
	if (found != t->ino) {
		f = E4_FC_OTHER_INODE;	/* entry kept, the link dropped */
	} else {
		retval = ext2fs_unlink(fs, t->parent, name, t->ino, 0);
		if (!retval)
			retval = touch_dir(r, t->parent);
		if (retval)
			return retval;
	}
	I(buf)->i_links_count--;	/* drop_nlink() */
	I(buf)->i_ctime = r->now;
	retval = put_inode(r, t->ino, buf);
	if (retval)
		return retval;
	if (!I(buf)->i_links_count) {
		retval = delete_inode(r, t->ino, buf);
		f = E4_FC_DELETED;
	}
	if (!retval)
		fate(r, t, f);
	return retval;
}

/* ext4_fc_set_bitmaps_and_counters() */
static int data_block_fn(ext2_filsys fs, blk64_t *blocknr,
			 e2_blkcnt_t blockcnt, blk64_t ref_blk, int ref_offset,
			 void *priv)
{
	(void)fs;
	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	mark_bb(priv, *blocknr, 1, 1);
	return 0;
}

static errcode_t set_bitmaps(struct fcr *r)
{
	unsigned char *buf = r->ibuf;
	ext2_extent_handle_t h;
	errcode_t retval;
	size_t i;

	for (i = 0; i < r->nmod; i++) {
		ext2_ino_t ino = r->mod[i];

		if (fc_iget(r, ino, buf) ||
		    (I(buf)->i_flags & EXT4_INLINE_DATA_FL))
			continue;
		if (!(I(buf)->i_flags & EXT4_EXTENTS_FL)) {
			/* ext4_map_blocks() maps; ext4_find_extent() fails:
			 * data blocks only */
			retval = ext2fs_block_iterate3(r->fs, ino,
				BLOCK_FLAG_DATA_ONLY | BLOCK_FLAG_READ_ONLY,
				NULL, data_block_fn, r);
			if (retval == EXT2_ET_NO_MEMORY)
				return retval;
			continue;
		}
		retval = ext_open(r, ino, buf, &h);
		if (retval)
			continue;
		retval = walk_extents(r, h, set_fn);
		ext2fs_extent_free(h);
		if (retval == EXT2_ET_NO_MEMORY)
			return retval;
	}
	return 0;
}

/*
 * "Now" for the times the kernel's replay sets (ctime of linked and
 * unlinked inodes, mtime/ctime of their directories, dtime): the current
 * time, or E2FSPROGS_FAKE_TIME as e2fsprogs' tools take it (tests).
 */
static uint32_t replay_time(ext2_filsys fs)
{
	const char *fake = getenv("E2FSPROGS_FAKE_TIME");

	if (fake && *fake)
		return (uint32_t)strtoul(fake, NULL, 0);
	return (uint32_t)(fs->now ? fs->now : time(NULL));
}

errcode_t e4_fc_replay(ext2_filsys fs, struct e4_fcscan *fc,
		       struct e4_fc_replay_result *res)
{
	struct fcr r;
	struct e4_fc_replay_result dummy;
	void *old_priv = fs->priv_data;
	errcode_t (*old_gab)(ext2_filsys, blk64_t, blk64_t *) = NULL;
	errcode_t (*old_nr)(ext2_filsys, int, blk64_t, blk64_t, blk64_t *,
			    blk64_t *) = NULL;
	errcode_t retval;
	size_t i;

	e4_error_tables_init();
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (!fc || !fc->nreplay)
		return 0;
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	memset(&r, 0, sizeof(r));
	r.fs = fs;
	r.fc = fc;
	r.res = res;
	r.isize = EXT2_INODE_SIZE(fs->super);
	r.now = replay_time(fs);
	res->nfc = fc->nfc;
	retval = ext2fs_read_bitmaps(fs);
	if (!retval)
		retval = ext2fs_get_memzero(r.isize, &r.ibuf);
	if (!retval)
		retval = ext2fs_get_memzero(r.isize, &r.ibuf2);
	/* The scan's valid ADD_RANGE regions (fc_regions_valid). */
	for (i = 0; !retval && i < fc->nreplay; i++)
		if (fc->tags[i].tag == E4_FC_TAG_ADD_RANGE &&
		    fc->tags[i].ino)
			retval = add_region(&r, fc->tags[i].pblk,
					    fc->tags[i].count);
	if (retval)
		goto out;
	fs->priv_data = &r;
	ext2fs_set_alloc_block_callback(fs, fc_simple_alloc, &old_gab);
	ext2fs_set_new_range_callback(fs, fc_new_range, &old_nr);

	for (i = 0; i < fc->nreplay && !retval; i++) {
		struct e4_fc_tag *t = &fc->tags[i];

		res->ntags++;
		switch (t->tag) {
		case E4_FC_TAG_LINK:
			retval = replay_link(&r, t);
			break;
		case E4_FC_TAG_UNLINK:
			retval = replay_unlink(&r, t);
			break;
		case E4_FC_TAG_ADD_RANGE:
			retval = replay_add_range(&r, t);
			break;
		case E4_FC_TAG_CREAT:
			retval = replay_create(&r, t);
			break;
		case E4_FC_TAG_DEL_RANGE:
			retval = replay_del_range(&r, t);
			break;
		case E4_FC_TAG_INODE:
			retval = replay_inode(&r, t);
			break;
		default:	/* HEAD, PAD, TAIL */
			fate(&r, t, E4_FC_MARKER);
		}
	}
	if (!retval)
		retval = set_bitmaps(&r);
	res->ninodes = r.nmod;
	ext2fs_set_alloc_block_callback(fs, old_gab, NULL);
	ext2fs_set_new_range_callback(fs, old_nr, NULL);
	fs->priv_data = old_priv;
out:
	ext2fs_free_mem(&r.mod);
	ext2fs_free_mem(&r.ex);
	ext2fs_free_mem(&r.ibuf);
	ext2fs_free_mem(&r.ibuf2);
	return retval;
}
