/*
 * order_state.c --- the ordering check's bottom layer: the static layout
 * of the fs (metadata ranges, inode tables), the states S_k it opens
 * (plan.c's states through overlay_io.c) and their bitmaps, and which
 * inodes it checks.  Used by order_evid.c, order_map.c, order_inode.c
 * and order.c; uses none of them.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "order_int.h"

int ord_is_meta(struct ctx *c, blk64_t b)
{
	size_t lo = 0, hi = c->nmeta;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->meta[mid].start + c->meta[mid].len <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nmeta && c->meta[lo].start <= b;
}

static errcode_t add_range(struct ctx *c, size_t *alloc, blk64_t s,
			   blk64_t len)
{
	errcode_t retval;

	if (!len)
		return 0;
	retval = grow((void **)&c->meta, alloc, c->nmeta + 1,
		      sizeof(*c->meta));
	if (retval)
		return retval;
	c->meta[c->nmeta].start = s;
	c->meta[c->nmeta++].len = len;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Superblocks, group descriptors (and reserved GDT blocks), bitmaps, inode
 * tables and the journal, as sorted disjoint ranges. */
errcode_t ord_build_meta(struct ctx *c)
{
	ext2_filsys fs = c->fs0;
	struct ext2_super_block *sb = fs->super;
	size_t alloc = 0, i, m;
	blk64_t old_desc_blocks;
	errcode_t retval;
	dgrp_t g;

	if (ext2fs_has_feature_meta_bg(sb))
		old_desc_blocks = sb->s_first_meta_bg;
	else
		old_desc_blocks = fs->desc_blocks + sb->s_reserved_gdt_blocks;
	if (sb->s_first_data_block)
		retval = add_range(c, &alloc, 0, sb->s_first_data_block);
	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0;
		blk_t used = 0;

		retval = ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc,
						   &new_desc, &used);
		if (retval)
			return retval;
		if (super || g == 0)
			retval = add_range(c, &alloc, super, 1);
		if (!retval && old_desc)
			retval = add_range(c, &alloc, old_desc,
					   old_desc_blocks);
		if (!retval && new_desc)
			retval = add_range(c, &alloc, new_desc, 1);
		if (!retval)
			retval = add_range(c, &alloc,
					   ext2fs_block_bitmap_loc(fs, g), 1);
		if (!retval)
			retval = add_range(c, &alloc,
					   ext2fs_inode_bitmap_loc(fs, g), 1);
		if (!retval)
			retval = add_range(c, &alloc,
					   ext2fs_inode_table_loc(fs, g),
					   fs->inode_blocks_per_group);
		if (retval)
			return retval;
	}
	if (!c->j->external)
		for (i = 0; i < c->j->nruns; i++) {
			retval = add_range(c, &alloc, c->j->runs[i].pblk,
					   c->j->runs[i].len);
			if (retval)
				return retval;
		}
	xsort(c->meta, c->nmeta, sizeof(*c->meta), range_cmp);
	for (i = 0, m = 0; i < c->nmeta; i++) {
		if (m && c->meta[m - 1].start + c->meta[m - 1].len >=
		    c->meta[i].start) {
			blk64_t e = c->meta[i].start + c->meta[i].len;

			if (e > c->meta[m - 1].start + c->meta[m - 1].len)
				c->meta[m - 1].len = e - c->meta[m - 1].start;
			continue;
		}
		c->meta[m++] = c->meta[i];
	}
	c->nmeta = m;
	return 0;
}

/* Inode-table block @b -> first inode it holds, or 0. */
ext2_ino_t ord_itable_first_ino(ext2_filsys fs, blk64_t b)
{
	unsigned int ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t t = ext2fs_inode_table_loc(fs, g);

		if (t && b >= t && b < t + fs->inode_blocks_per_group)
			return g * fs->super->s_inodes_per_group +
				(ext2_ino_t)(b - t) * ipb + 1;
	}
	return 0;
}

blk64_t ord_itable_block_of(ext2_filsys fs, ext2_ino_t ino)
{
	unsigned int ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	dgrp_t g = (ino - 1) / fs->super->s_inodes_per_group;
	ext2_ino_t idx = (ino - 1) % fs->super->s_inodes_per_group;

	return ext2fs_inode_table_loc(fs, g) + idx / ipb;
}

/* Close the fs of @st; its map and overlay stay for the next state. */
void ord_state_close(struct state *st)
{
	if (st->fs)
		ext2fs_close_free(&st->fs);
	ext2fs_free_mem(&st->bb.buf);
	ext2fs_free_mem(&st->ib.buf);
	st->bb.g = st->ib.g = -1;
}

void ord_state_free(struct state *st)
{
	ord_state_close(st);
	e4_overlay_free(st->ov);
	e4_state_free(&st->map);
	memset(st, 0, sizeof(*st));
}

/* Open S_k in @st: its map advanced (or set back) to k, an fs open on
 * the overlay that serves it over the image's own channel. */
errcode_t ord_state_open(struct ctx *c, size_t k, struct state *st)
{
	errcode_t retval = 0;

	ord_state_close(st);
	if (!st->ov) {
		retval = e4_state_init(c->plan, &st->map);
		if (!retval)
			retval = e4_overlay_create(c->fs0->io, c->j->io, c->bs,
						   c->nblocks, &st->map,
						   &st->ov);
		if (retval)
			return retval;
	}
	st->k = k;
	retval = e4_state_seek(&st->map, k);
	if (!retval)
		retval = e4_overlay_open_fs(st->ov, 0, &st->fs);
	if (!retval && st->fs->blocksize != c->bs)
		retval = EXT2_ET_CORRUPT_SUPERBLOCK;
	if (!retval && st->fs->group_desc_count != c->fs0->group_desc_count)
		retval = EXT2_ET_CORRUPT_SUPERBLOCK;
	if (!retval)
		retval = ext2fs_get_mem(c->bs, &st->bb.buf);
	if (!retval)
		retval = ext2fs_get_mem(c->bs, &st->ib.buf);
	if (retval)
		ord_state_close(st);
	st->bb.fs = st->ib.fs = st->fs;
	return retval;
}

/* Bit @bit of group @g's bitmap (block bitmap if @blocks) in @st: 1 used,
 * 0 free, -1 unreadable. */
static int bitmap_test(struct state *st, int blocks, dgrp_t g,
		       unsigned long bit)
{
	struct bmcache *bc = blocks ? &st->bb : &st->ib;
	ext2_filsys fs = st->fs;

	if (bc->g != (long)g) {
		blk64_t loc = blocks ? ext2fs_block_bitmap_loc(fs, g) :
			ext2fs_inode_bitmap_loc(fs, g);

		bc->uninit = ext2fs_has_group_desc_csum(fs) &&
			ext2fs_bg_flags_test(fs, g, blocks ?
					     EXT2_BG_BLOCK_UNINIT :
					     EXT2_BG_INODE_UNINIT);
		if (!bc->uninit &&
		    (!loc || loc >= ext2fs_blocks_count(fs->super) ||
		     io_channel_read_blk64(fs->io, loc, 1, bc->buf))) {
			bc->g = -1;
			return -1;
		}
		bc->g = g;
	}
	if (bc->uninit)
		return 0;
	if (bit >= (unsigned long)fs->blocksize * 8)
		return -1;
	return (bc->buf[bit >> 3] >> (bit & 7)) & 1;
}

int ord_block_used(struct state *st, blk64_t b)
{
	ext2_filsys fs = st->fs;
	dgrp_t g = ext2fs_group_of_blk2(fs, b);

	return bitmap_test(st, 1, g, b - ext2fs_group_first_block2(fs, g));
}

int ord_inode_used(struct state *st, ext2_ino_t ino)
{
	ext2_filsys fs = st->fs;
	ext2_ino_t ipg = fs->super->s_inodes_per_group;

	return bitmap_test(st, 0, (ino - 1) / ipg, (ino - 1) % ipg);
}

/* Inodes whose mappings the check looks at: user files and directories,
 * and the fs's own files whose blocks are not the journal. */
int ord_ino_checked(ext2_filsys fs, ext2_ino_t ino)
{
	int kind = e4_inode_kind(fs, ino);

	return kind == E4_INO_FILE || kind == E4_INO_ROOT ||
		kind == E4_INO_QUOTA || kind == E4_INO_ORPHAN;
}
