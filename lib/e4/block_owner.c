/*
 * block_owner.c --- the rule for every write through a file's extents
 * (e4_mark_range()'s zeroing and flag changes, the lazy inode table
 * zeroing of itable.c): an extent is data, not trusted.  Before the first
 * byte is written, every target block must lie inside the file system,
 * be no file system metadata (superblocks and group descriptors with
 * their backups and meta_bg copies, the reserved GDT blocks, the block
 * and inode bitmaps, the inode tables) and be owned by the file written
 * alone, at that one logical block: no other inode (the journal inode,
 * the other reserved inodes, any file) maps it as data, extent tree,
 * indirect or xattr block.  Otherwise the write is refused, naming the
 * first block and its owner.
 *
 * Everything is read through libext2fs: the metadata layout from the
 * group descriptors (ext2fs_reserve_super_and_bgd(), the bitmap and
 * inode table locations), the owners from an inode scan and each in-use
 * inode's extent tree (ext2fs_extent_*) or block map
 * (ext2fs_block_iterate3()).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "e4.h"

struct own_ctx {
	ext2_filsys			fs;
	ext2_ino_t			ino;	/* the file written (0: none) */
	const struct e4_block_run	*runs;	/* sorted by pblk */
	size_t				nruns;
	struct e4_block_conflict	*c;
	errcode_t			err;	/* the first conflict */
	ext2_ino_t			cur;	/* inode being walked */
};

static int run_cmp(const void *a, const void *b)
{
	const struct e4_block_run *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

static void conflict(struct own_ctx *o, errcode_t err, blk64_t blk,
		     ext2_ino_t owner, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void conflict(struct own_ctx *o, errcode_t err, blk64_t blk,
		     ext2_ino_t owner, const char *fmt, ...)
{
	va_list ap;

	if (o->err)
		return;
	o->err = err;
	if (!o->c)
		return;
	o->c->blk = blk;
	o->c->owner = owner;
	va_start(ap, fmt);
	vsnprintf(o->c->desc, sizeof(o->c->desc), fmt, ap);
	va_end(ap);
}

/*
 * Inode @o->cur maps [@pblk, @pblk + @len) at logical block @lblk
 * (@lblk < 0: a tree, indirect or xattr block of it, named @what).
 * Records the first target block this takes from the file written.
 */
static void owned(struct own_ctx *o, blk64_t pblk, blk64_t len,
		  long long lblk, const char *what)
{
	size_t lo = 0, hi = o->nruns, i;
	blk64_t a, b, end = pblk + len;

	/* first run ending past pblk (runs do not overlap: sorted) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->runs[mid].pblk + o->runs[mid].len <= pblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < o->nruns && o->runs[i].pblk < end; i++) {
		const struct e4_block_run *r = &o->runs[i];

		a = r->pblk > pblk ? r->pblk : pblk;
		b = r->pblk + r->len < end ? r->pblk + r->len : end;
		for (; a < b; a++) {
			/* the file's own mapping of the target itself */
			if (o->cur == o->ino && lblk >= 0 &&
			    (blk64_t)lblk + (a - pblk) ==
			    r->lblk + (a - r->pblk))
				continue;
			if (lblk >= 0)
				conflict(o, E4_ERR_BLOCK_SHARED, a, o->cur,
					 "data of inode %u (lblk %llu)",
					 o->cur, (unsigned long long)
					 ((blk64_t)lblk + (a - pblk)));
			else
				conflict(o, E4_ERR_BLOCK_SHARED, a, o->cur,
					 "%s of inode %u", what, o->cur);
			return;
		}
	}
}

static int bm_cb(ext2_filsys fs EXT2FS_ATTR((unused)), blk64_t *blocknr,
		 e2_blkcnt_t blockcnt, blk64_t ref_blk EXT2FS_ATTR((unused)),
		 int ref_offset EXT2FS_ATTR((unused)), void *priv)
{
	struct own_ctx *o = priv;

	owned(o, *blocknr, 1, blockcnt >= 0 ? (long long)blockcnt : -1,
	      "an indirect block");
	return o->err ? BLOCK_ABORT : 0;
}

/* Every block inode @ino maps (data, tree, indirect, xattr) into owned(). */
static errcode_t walk_owner(struct own_ctx *o, ext2_ino_t ino,
			    struct ext2_inode *inode)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ext;
	int op = EXT2_EXTENT_ROOT;
	errcode_t retval = 0;
	blk64_t acl;

	o->cur = ino;
	acl = ext2fs_file_acl_block(o->fs, inode);
	if (acl)
		owned(o, acl, 1, -1, "the xattr block");
	if (!ext2fs_inode_has_valid_blocks2(o->fs, inode) ||
	    (inode->i_flags & EXT4_INLINE_DATA_FL))
		return 0;
	/*
	 * The resize inode maps the reserved GDT blocks and their backups,
	 * which the metadata map holds already (its indirect blocks are
	 * those blocks): only its double indirect block is its own.  (Not
	 * walking it saves a read per reserved GDT block.)
	 */
	if (ino == EXT2_RESIZE_INO && !(inode->i_flags & EXT4_EXTENTS_FL)) {
		if (inode->i_block[EXT2_DIND_BLOCK])
			owned(o, inode->i_block[EXT2_DIND_BLOCK], 1, -1,
			      "the double indirect block");
		return 0;
	}
	if (!(inode->i_flags & EXT4_EXTENTS_FL))
		return ext2fs_block_iterate3(o->fs, ino, BLOCK_FLAG_READ_ONLY,
					     NULL, bm_cb, o);
	retval = ext2fs_extent_open2(o->fs, ino, inode, &h);
	if (retval)
		return retval;
	while (!o->err) {
		retval = ext2fs_extent_get(h, op, &ext);
		op = EXT2_EXTENT_NEXT;
		if (retval == EXT2_ET_EXTENT_NO_NEXT) {
			retval = 0;
			break;
		}
		if (retval)
			break;
		if (ext.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			owned(o, ext.e_pblk, 1, -1, "an extent tree block");
		else if (ext.e_len)
			owned(o, ext.e_pblk, ext.e_len, (long long)ext.e_lblk,
			      NULL);
	}
	ext2fs_extent_free(h);
	return retval;
}

/* Block @b is metadata of group @g? Name it into the conflict. */
static int meta_of_group(struct own_ctx *o, dgrp_t g, blk64_t b,
			 int skip_itable)
{
	ext2_filsys fs = o->fs;
	blk64_t sb = 0, old_desc = 0, new_desc = 0, it;
	blk_t used = 0;
	dgrp_t old_desc_blocks;

	if (ext2fs_block_bitmap_loc(fs, g) == b) {
		conflict(o, E4_ERR_BLOCK_METADATA, b, 0,
			 "the block bitmap of group %u", g);
		return 1;
	}
	if (ext2fs_inode_bitmap_loc(fs, g) == b) {
		conflict(o, E4_ERR_BLOCK_METADATA, b, 0,
			 "the inode bitmap of group %u", g);
		return 1;
	}
	it = ext2fs_inode_table_loc(fs, g);
	if (!skip_itable && b >= it && b < it + fs->inode_blocks_per_group) {
		conflict(o, E4_ERR_BLOCK_METADATA, b, 0,
			 "the inode table of group %u (its block %llu)", g,
			 (unsigned long long)(b - it));
		return 1;
	}
	ext2fs_super_and_bgd_loc2(fs, g, &sb, &old_desc, &new_desc, &used);
	/* (group 0's superblock is at block 0 with blocks over 1 KiB, which
	 * ext2fs_super_and_bgd_loc2() reports as 0) */
	if (ext2fs_bg_has_super(fs, g) &&
	    b == ext2fs_group_first_block2(fs, g)) {
		conflict(o, E4_ERR_BLOCK_METADATA, b, 0,
			 "the superblock%s of group %u", g ? " backup" : "", g);
		return 1;
	}
	if (ext2fs_has_feature_meta_bg(fs->super))
		old_desc_blocks = fs->super->s_first_meta_bg;
	else
		old_desc_blocks = fs->desc_blocks +
			fs->super->s_reserved_gdt_blocks;
	if (old_desc && b >= old_desc && b < old_desc + old_desc_blocks) {
		conflict(o, E4_ERR_BLOCK_METADATA, b, 0,
			 "%s of group %u", b - old_desc < fs->desc_blocks ?
			 "the group descriptors" : "the reserved GDT blocks",
			 g);
		return 1;
	}
	if (new_desc && b == new_desc) {
		conflict(o, E4_ERR_BLOCK_METADATA, b, 0,
			 "the meta_bg group descriptors of group %u", g);
		return 1;
	}
	return 0;
}

/* Name the metadata block @b (known to be one): the slow path. */
static void name_meta(struct own_ctx *o, blk64_t b, int skip_itable)
{
	dgrp_t g;

	for (g = 0; g < o->fs->group_desc_count; g++)
		if (meta_of_group(o, g, b, skip_itable))
			return;
	conflict(o, E4_ERR_BLOCK_METADATA, b, 0, "file system metadata");
}

/*
 * The metadata map: every superblock, descriptor and reserved GDT copy
 * (ext2fs_reserve_super_and_bgd(), as mke2fs and e2fsck mark them), every
 * bitmap and, unless @skip_itable, every inode table.
 */
static errcode_t meta_map(ext2_filsys fs, int skip_itable,
			  ext2fs_block_bitmap *ret)
{
	ext2fs_block_bitmap map;
	int type = fs->default_bitmap_type;
	errcode_t retval;
	blk64_t it;
	dgrp_t g;

	/* sparse (an rbtree): metadata is a few runs per group */
	fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	retval = ext2fs_allocate_block_bitmap(fs, "e4 metadata", &map);
	fs->default_bitmap_type = type;
	if (retval)
		return retval;
	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_reserve_super_and_bgd(fs, g, map);
		ext2fs_mark_block_bitmap2(map, ext2fs_block_bitmap_loc(fs, g));
		ext2fs_mark_block_bitmap2(map, ext2fs_inode_bitmap_loc(fs, g));
		it = ext2fs_inode_table_loc(fs, g);
		if (!skip_itable && it && it + fs->inode_blocks_per_group <=
		    ext2fs_blocks_count(fs->super))
			ext2fs_mark_block_bitmap_range2(map, it,
						fs->inode_blocks_per_group);
	}
	*ret = map;
	return 0;
}

struct itab {
	blk64_t	start;
	dgrp_t	g;
};

static int itab_cmp(const void *a, const void *b)
{
	const struct itab *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * E4_OWN_ITABLE: the targets lie in inode tables, so the tables are left
 * out of the metadata map; instead no two tables may overlap (a zeroed
 * run of one would be the used inodes of the other).
 */
static errcode_t itables_apart(struct own_ctx *o)
{
	ext2_filsys fs = o->fs;
	struct itab *t;
	errcode_t retval;
	dgrp_t g, n = fs->group_desc_count;

	retval = ext2fs_get_array(n, sizeof(*t), &t);
	if (retval)
		return retval;
	for (g = 0; g < n; g++) {
		t[g].start = ext2fs_inode_table_loc(fs, g);
		t[g].g = g;
	}
	qsort(t, n, sizeof(*t), itab_cmp);
	for (g = 1; g < n; g++)
		if (t[g - 1].start + fs->inode_blocks_per_group > t[g].start) {
			conflict(o, E4_ERR_BLOCK_METADATA, t[g].start, 0,
				 "the inode table of group %u, which overlaps "
				 "that of group %u", t[g].g, t[g - 1].g);
			break;
		}
	ext2fs_free_mem(&t);
	return 0;
}

/* Scan every in-use inode for owners of the target blocks. */
static errcode_t owner_scan(struct own_ctx *o)
{
	ext2_filsys fs = o->fs;
	ext2_inode_scan scan = NULL;
	struct ext2_inode *inode = NULL;
	int isize = EXT2_INODE_SIZE(fs->super);
	ext2_ino_t ino;
	errcode_t retval;

	if (!fs->inode_map) {
		retval = ext2fs_read_inode_bitmap(fs);
		if (retval)
			return retval;
	}
	retval = ext2fs_get_memzero(isize, &inode);
	if (retval)
		return retval;
	retval = ext2fs_open_inode_scan(fs, 0, &scan);
	if (retval)
		goto out;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	while (!o->err) {
		retval = ext2fs_get_next_inode_full(scan, &ino, inode, isize);
		if (retval == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if ((retval == EXT2_ET_INODE_CSUM_INVALID ||
		     retval == EXT2_ET_INODE_IS_GARBAGE) &&
		    !ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		if (!retval && !ino)
			break;
		if (!retval && !ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		if (!retval)
			retval = walk_owner(o, ino, inode);
		if (retval) {
			/* an in-use inode whose blocks cannot be read: who
			 * owns the target is unknown; fail closed */
			conflict(o, E4_ERR_BLOCK_OWNER_UNKNOWN,
				 o->runs[0].pblk, ino, "of unknown owner: "
				 "inode %u is in use and its block map does "
				 "not read (%s)", ino, error_message(retval));
			retval = 0;
			break;
		}
	}
out:
	if (scan)
		ext2fs_close_inode_scan(scan);
	ext2fs_free_mem(&inode);
	return retval;
}

errcode_t e4_block_owner_check(ext2_filsys fs, ext2_ino_t ino,
			       const struct e4_block_run *runs, size_t nruns,
			       int flags, struct e4_block_conflict *c)
{
	struct own_ctx o;
	struct e4_block_run *v = NULL;
	ext2fs_block_bitmap map = NULL;
	int skip_itable = !!(flags & E4_OWN_ITABLE);
	blk64_t first = fs->super->s_first_data_block;
	blk64_t end = ext2fs_blocks_count(fs->super), b;
	errcode_t retval;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.fs = fs;
	o.ino = ino;
	o.c = c;
	if (c)
		memset(c, 0, sizeof(*c));
	if (!nruns)
		return 0;
	/* 1. inside the file system */
	for (i = 0; i < nruns; i++) {
		const struct e4_block_run *r = &runs[i];

		if (r->pblk < first || r->pblk >= end) {
			b = r->pblk;
		} else if (r->len > end - r->pblk) {
			b = end;
		} else {
			continue;
		}
		conflict(&o, E4_ERR_BLOCK_OUTSIDE_FS, b, 0,
			 "past the end of the file system (blocks %llu-%llu)",
			 (unsigned long long)first,
			 (unsigned long long)(end - 1));
		return o.err;
	}
	/* 2. no metadata */
	retval = meta_map(fs, skip_itable, &map);
	if (retval)
		return retval;
	for (i = 0; i < nruns && !o.err; i++) {
		blk64_t p = runs[i].pblk, n = runs[i].len;

		if (ext2fs_test_block_bitmap_range2(map, p, n))
			continue;	/* none marked */
		for (b = p; b < p + n; b++)
			if (ext2fs_test_block_bitmap2(map, b)) {
				name_meta(&o, b, skip_itable);
				break;
			}
	}
	ext2fs_free_block_bitmap(map);
	if (!o.err && skip_itable) {
		retval = itables_apart(&o);
		if (retval)
			return retval;
	}
	if (o.err)
		return o.err;
	/* 3. owned by @ino alone, at that lblk only */
	retval = ext2fs_get_array(nruns, sizeof(*v), &v);
	if (retval)
		return retval;
	memcpy(v, runs, nruns * sizeof(*v));
	qsort(v, nruns, sizeof(*v), run_cmp);
	for (i = 1; i < nruns; i++)
		if (v[i - 1].pblk + v[i - 1].len > v[i].pblk) {
			conflict(&o, E4_ERR_BLOCK_SHARED, v[i].pblk, ino,
				 "another target of the same write (lblk "
				 "%llu)", (unsigned long long)
				 (v[i - 1].lblk + v[i].pblk - v[i - 1].pblk));
			goto out;
		}
	o.runs = v;
	o.nruns = nruns;
	retval = owner_scan(&o);
out:
	ext2fs_free_mem(&v);
	return retval ? retval : o.err;
}
