/*
 * fc_state.c --- a file system state with its fast commits replayed, held
 * in memory: a copy-on-write layer (cow_io.c) over the channel of the
 * full-commit state S_n, opened read-write with libext2fs, the fast
 * commits replayed on it (fc_replay.c).  Readers of a replayed state
 * (e4_replayed_open(), --check-order) read it; an in-place or -o replay
 * writes the blocks it changed after S_n's (e4_fc_state_write()), so the
 * result is the one -n predicts.
 *
 * The kernel replays fast commits in jbd2_journal_recover() right after
 * PASS_REPLAY wrote the full commits (fs/jbd2/recovery.c do_one_pass() ->
 * fc_do_one_pass(PASS_REPLAY)), before the journal is reset: an
 * interrupted run replays again (the fast-commit replay is idempotent,
 * fs/ext4/fast_commit.c "Fast Commit Replay Idempotence").
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "e4_int.h"

/*
 * The superblock's free block and inode counts as the kernel's mount that
 * follows the replay computes them from the group descriptors
 * (ext4_fill_super(): ext4_count_free_clusters(), ext4_count_free_inodes();
 * written by ext4_commit_super()).
 */
static void sb_counts(ext2_filsys fs)
{
	blk64_t blocks = 0;
	uint64_t inodes = 0;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blocks += ext2fs_bg_free_blocks_count(fs, g);
		inodes += ext2fs_bg_free_inodes_count(fs, g);
	}
	ext2fs_free_blocks_count_set(fs->super,
				     blocks * EXT2FS_CLUSTER_RATIO(fs));
	fs->super->s_free_inodes_count = (__u32)inodes;
	ext2fs_mark_super_dirty(fs);
}

errcode_t e4_fc_state_open(io_channel lower, unsigned int blocksize,
			   struct e4_fcscan *fc, struct e4_fc_state **ret)
{
	struct e4_fc_state *st;
	errcode_t retval, r2;

	e4_error_tables_init();
	*ret = NULL;
	retval = ext2fs_get_memzero(sizeof(*st), &st);
	if (retval)
		return retval;
	st->blocksize = blocksize;
	retval = e4_cow_create(lower, blocksize, &st->cow);
	if (retval)
		goto fail;
	retval = ext2fs_open2(e4_cow_name(st->cow), "", EXT2_FLAG_RW |
			      EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS |
			      EXT2_FLAG_SKIP_MMP, 0, 0, e4_cow_io_manager,
			      &st->fs);
	if (retval)
		goto fail;
	if (st->fs->blocksize != blocksize) {
		retval = EXT2_ET_CORRUPT_SUPERBLOCK;
		goto fail;
	}
	/* The kernel rewrites neither backup superblocks nor descriptors. */
	st->fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	st->fs->flags &= ~EXT2_FLAG_SUPER_ONLY;
	retval = e4_fc_replay(st->fs, fc, &st->res);
	if (!retval)
		sb_counts(st->fs);
	/* flush even after a failure: the state must stay consistent */
	r2 = ext2fs_flush(st->fs);
	if (!retval)
		retval = r2;
	if (retval)
		goto fail;
	*ret = st;
	return 0;
fail:
	e4_fc_state_close(st);
	return retval;
}

struct wb {
	blk64_t		blk;
	const void	*data;
};

static int cmp_wb(const void *a, const void *b)
{
	const struct wb *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

errcode_t e4_fc_state_write(struct e4_fc_state *st, io_channel io)
{
	size_t n = e4_cow_count(st->cow), i;
	unsigned int bs = st->blocksize;
	struct wb *w = NULL;
	errcode_t retval;

	e4_error_tables_init();
	if (!n)
		return 0;
	retval = ext2fs_get_array(n, sizeof(*w), &w);
	if (retval)
		return retval;
	for (i = 0; i < n; i++)
		w[i].data = e4_cow_block(st->cow, i, &w[i].blk);
	qsort(w, n, sizeof(*w), cmp_wb);
	retval = io_channel_set_blksize(io, (int)bs);
	for (i = 0; !retval && i < n; i++)
		retval = io_channel_write_blk64(io, w[i].blk, 1, w[i].data);
	if (!retval)
		retval = io_channel_flush(io);
	ext2fs_free_mem(&w);
	return retval;
}

void e4_fc_state_close(struct e4_fc_state *st)
{
	if (!st)
		return;
	e4_fc_state_detach(st);
	e4_cow_free(st->cow);
	ext2fs_free_mem(&st);
}

errcode_t e4_fc_state_open_plan(ext2_filsys fs, const struct e4_plan *plan,
				struct e4_fc_state **ret)
{
	unsigned int bs = fs->blocksize;
	struct e4_state *map = NULL;
	e4_overlay_t ov = NULL;
	io_channel io = NULL;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (!plan->scan->fc || !plan->scan->fc->nreplay)
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_memzero(sizeof(*map), &map);
	if (!retval)
		retval = e4_state_init(plan, map);
	if (!retval)
		retval = e4_state_seek(map, plan->ntx);
	if (!retval)
		retval = e4_overlay_create(fs->io, plan->j->io, bs,
					   ext2fs_blocks_count(fs->super),
					   map, &ov);
	if (!retval)
		retval = e4_overlay_io_manager->open(e4_overlay_name(ov), 0,
						     &io);
	if (!retval)
		retval = io_channel_set_blksize(io, (int)bs);
	if (!retval)
		retval = e4_fc_state_open(io, bs, plan->scan->fc, ret);
	/* S_n unreadable below the overlay: an io error, not a verdict */
	if (ov && (!retval || retval == E4_ERR_FC_REPLAY_FAILS) &&
	    e4_overlay_error(ov)) {
		retval = e4_overlay_error(ov);
		e4_fc_state_close(*ret);
		*ret = NULL;
	}
	if (retval) {
		if (io)
			io_channel_close(io);
		e4_overlay_free(ov);
		if (map)
			e4_state_free(map);
		ext2fs_free_mem(&map);
		return retval;
	}
	(*ret)->ov = ov;
	(*ret)->lower = io;
	(*ret)->map = map;
	return 0;
}

void e4_fc_state_detach(struct e4_fc_state *st)
{
	if (!st)
		return;
	if (st->fs) {
		st->fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_IB_DIRTY |
				   EXT2_FLAG_BB_DIRTY);
		ext2fs_free(st->fs);
		st->fs = NULL;
	}
	e4_cow_detach(st->cow);
	if (st->lower)
		io_channel_close(st->lower);
	st->lower = NULL;
	e4_overlay_free(st->ov);
	st->ov = NULL;
	if (st->map)
		e4_state_free(st->map);
	ext2fs_free_mem(&st->map);
}

errcode_t e4_replayed_fc(struct e4_replayed *r)
{
	unsigned int bs = r->fs->blocksize;
	errcode_t retval;

	e4_error_tables_init();
	retval = e4_overlay_io_manager->open(e4_overlay_name(r->ov), 0,
					     &r->ovl_io);
	if (!retval)
		retval = io_channel_set_blksize(r->ovl_io, (int)bs);
	if (!retval)
		retval = e4_fc_state_open(r->ovl_io, bs, r->scan->fc,
					  &r->fcst);
	if (retval)
		return retval;
	ext2fs_close_free(&r->fs);
	r->fs = r->fcst->fs;
	r->fs->flags &= ~EXT2_FLAG_RW;	/* a read-only state, as S_n's */
	return 0;
}

