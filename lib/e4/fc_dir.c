/*
 * fc_dir.c --- adding a directory entry during a fast-commit replay as the
 * kernel's ext4_add_entry() does (fs/ext4/namei.c, Linux 6.x): a linear
 * directory takes the entry in its first block with room; a directory of
 * one full block and dir_index becomes an htree (make_indexed_dir(): block
 * 0 turns into the dx root, its entries move to a new block 1 which
 * do_split() splits by hash into blocks 1 and 2); a bigger linear
 * directory grows by one block (ext4_append()); an htree directory goes
 * through ext4_dx_add_entry(), which libext2fs's ext2fs_link() follows
 * (dx_link(): leaf split by the same size rule).  libext2fs cannot turn a
 * linear directory into an htree, so make_indexed_dir() is done here, on
 * blocks libext2fs allocates (ext2fs_expand_dir(), through the replay's
 * allocator) and writes (ext2fs_write_dir_block4(): checksums).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "fc_int.h"

#define DX_ROOT_INFO_OFF	24	/* after "." (12) and ".." (12) */
#define DX_ENTRIES_OFF		32
#define DX_TAIL_SIZE		8	/* struct ext2_dx_tail */

struct dmap {			/* do_split()'s struct dx_map_entry */
	__u32		hash;
	unsigned int	off, size;	/* bytes in the block */
};

static int dmap_cmp(const void *a, const void *b)
{
	const struct dmap *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int dmap_off_cmp(const void *a, const void *b)
{
	const struct dmap *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int csum_size(ext2_filsys fs)
{
	return ext2fs_has_feature_metadata_csum(fs->super) ?
		(int)sizeof(struct ext2_dir_entry_tail) : 0;
}

/* The hash version the root gets and dx_probe() then uses. */
static int hash_alg(ext2_filsys fs)
{
	int v = fs->super->s_def_hash_version;

	if (v <= EXT2_HASH_TEA &&
	    (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		v += 3;
	return v;
}

/*
 * Copy the entries of @m (count @n) from @from into @to as
 * dx_move_dirents()/dx_pack_dirents() leave them: each with its minimal
 * rec_len, the last stretched to the end of the block (less the tail),
 * and a checksum tail.
 */
static errcode_t put_dirents(ext2_filsys fs, const struct dmap *m, size_t n,
			     const char *from, char *to)
{
	unsigned int at = 0, rl = 0;
	struct ext2_dir_entry *de = NULL;
	errcode_t retval;
	size_t i;
	int cs = csum_size(fs);

	memset(to, 0, fs->blocksize);
	for (i = 0; i < n; i++) {
		const struct ext2_dir_entry *src =
			(const struct ext2_dir_entry *)(from + m[i].off);

		rl = EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(src));
		memcpy(to + at, src, rl);
		de = (struct ext2_dir_entry *)(to + at);
		retval = ext2fs_set_rec_len(fs, rl, de);
		if (retval)
			return retval;
		at += rl;
	}
	if (!de) {	/* no entry: one empty entry over the block */
		de = (struct ext2_dir_entry *)to;
		at = rl = 0;
	}
	retval = ext2fs_set_rec_len(fs, fs->blocksize - cs - (at - rl), de);
	if (!retval && cs)
		ext2fs_initialize_dirent_tail(fs,
				EXT2_DIRENT_TAIL(to, fs->blocksize));
	return retval;
}

/* lblk -> pblk of directory @dir (inode @diri). */
static errcode_t dir_pblk(ext2_filsys fs, ext2_ino_t dir,
			  struct ext2_inode *diri, blk64_t lblk, blk64_t *pblk)
{
	return ext2fs_bmap2(fs, dir, diri, NULL, 0, lblk, NULL, pblk);
}

/*
 * dx_make_map(): the live entries of @blk in [@from, @end), hashed with
 * @alg; each entry's size is its rec_len (the last one's grown by
 * @last_extra: the bytes it gains when moved to the block start).
 */
static errcode_t map_entries(ext2_filsys fs, const char *blk,
			     unsigned int from, unsigned int end,
			     unsigned int last_extra, int alg, int hflags,
			     struct dmap *m, size_t *n)
{
	const struct ext2_dir_entry *de;
	unsigned int off, rl;
	__u32 minor;
	errcode_t retval;

	*n = 0;
	for (off = from; off < end; off += rl) {
		de = (const struct ext2_dir_entry *)(blk + off);
		retval = ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)de,
					    &rl);
		if (retval)
			return retval;
		if (rl < 8 || off + rl > end)
			return EXT2_ET_DIR_CORRUPTED;
		if (!de->inode || !ext2fs_dirent_name_len(de))
			continue;
		m[*n].off = off;
		m[*n].size = rl + (off + rl == end ? last_extra : 0);
		retval = ext2fs_dirhash2(alg, de->name,
					 ext2fs_dirent_name_len(de),
					 fs->encoding, hflags,
					 fs->super->s_hash_seed, &m[*n].hash,
					 &minor);
		if (retval)
			return retval;
		(*n)++;
	}
	return 0;
}

/*
 * do_split(): the entries of @src mapped in @m (@n of them), sorted by
 * hash; those from the top whose sizes stay within half a block go to
 * @b2 in hash order (dx_move_dirents()), the rest stay, packed in their
 * block order, in @b1 (dx_pack_dirents()).  *@hash is the index entry's
 * hash for @b2 (its first hash, + 1 when it continues a hash of @b1).
 */
static errcode_t do_split(ext2_filsys fs, struct dmap *m, size_t n,
			  const char *src, char *b1, char *b2, __u32 *hash)
{
	unsigned int size = 0, bs = fs->blocksize;
	size_t i, split, move = 0;
	errcode_t retval;

	qsort(m, n, sizeof(*m), dmap_cmp);
	for (i = n; i-- > 0;) {
		if (size + m[i].size / 2 > bs / 2)
			break;
		size += m[i].size;
		move++;
	}
	split = (i != (size_t)-1 && i > 0) ? n - move : n / 2;
	if (split == 0 || split >= n)		/* fewer than 2 entries */
		return EXT2_ET_DIR_CORRUPTED;
	*hash = m[split].hash + (m[split].hash == m[split - 1].hash);
	retval = put_dirents(fs, m + split, n - split, src, b2);
	if (retval)
		return retval;
	qsort(m, split, sizeof(*m), dmap_off_cmp);
	return put_dirents(fs, m, split, src, b1);
}

struct dxbufs {
	char		*root, *b1, *b2;
	struct dmap	*m;
};

/* The buffers of an htree operation on @dir (inode image @dbuf), with
 * the directory's block 0 (the dx root) read into d->root and its pblk
 * into *@p0.  On error the caller still frees @d (dxbufs_free()). */
static errcode_t dxbufs_get(ext2_filsys fs, ext2_ino_t dir,
			    unsigned char *dbuf, struct dxbufs *d, blk64_t *p0)
{
	errcode_t retval;

	memset(d, 0, sizeof(*d));
	retval = ext2fs_get_mem(fs->blocksize, &d->root);
	if (!retval)
		retval = ext2fs_get_mem(fs->blocksize, &d->b1);
	if (!retval)
		retval = ext2fs_get_mem(fs->blocksize, &d->b2);
	if (!retval)
		retval = ext2fs_get_array(fs->blocksize / 12 + 1,
					  sizeof(*d->m), &d->m);
	if (!retval)
		retval = dir_pblk(fs, dir, I(dbuf), 0, p0);
	if (!retval)
		retval = ext2fs_read_dir_block4(fs, *p0, d->root, 0, dir);
	return retval;
}

static void dxbufs_free(struct dxbufs *d)
{
	ext2fs_free_mem(&d->root);
	ext2fs_free_mem(&d->b1);
	ext2fs_free_mem(&d->b2);
	ext2fs_free_mem(&d->m);
}

/* make_indexed_dir() and its do_split(), on the one full block of @dir. */
static errcode_t make_indexed_dir(struct fcr *r, ext2_ino_t dir,
				  unsigned char *dbuf)
{
	ext2_filsys fs = r->fs;
	unsigned int bs = fs->blocksize, dd_len, from;
	int cs = csum_size(fs), hflags = I(dbuf)->i_flags & EXT4_CASEFOLD_FL;
	struct dxbufs d;
	blk64_t p0, p1, p2;
	size_t n = 0;
	struct ext2_dir_entry *de;
	struct ext2_dx_root_info *info;
	struct ext2_dx_countlimit *cl;
	struct ext2_dx_entry *ent;
	__u32 hash2;
	errcode_t retval;

	retval = dxbufs_get(fs, dir, dbuf, &d, &p0);
	if (retval)
		goto out;
	/* "the 0th block becomes the root, move the dirents out" */
	retval = ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)(d.root + 12),
				    &dd_len);
	if (retval)
		goto out;
	from = 12 + dd_len;
	if (from >= bs - cs) {
		retval = EXT2_ET_DIR_CORRUPTED;
		goto out;
	}
	/* the entries moved to block 1; its last entry reaches its end */
	retval = map_entries(fs, d.root, from, bs - cs, from, hash_alg(fs),
			     hflags, d.m, &n);
	/* the two new blocks, lblk 1 and 2 (ext4_append() twice) */
	if (!retval)
		retval = ext2fs_expand_dir(fs, dir);
	if (!retval)
		retval = ext2fs_expand_dir(fs, dir);
	if (!retval)
		retval = e4_read_inode(fs, dir, I(dbuf), (int)r->isize);
	if (!retval)
		retval = dir_pblk(fs, dir, I(dbuf), 1, &p1);
	if (!retval)
		retval = dir_pblk(fs, dir, I(dbuf), 2, &p2);
	if (!retval)
		retval = do_split(fs, d.m, n, d.root, d.b1, d.b2, &hash2);
	if (retval)
		goto out;
	/* the root: "." as is, ".." over the block, dx_root_info, entries */
	memset(d.root + from, 0, bs - from);
	de = (struct ext2_dir_entry *)(d.root + 12);
	retval = ext2fs_set_rec_len(fs, bs - 12, de);
	if (retval)
		goto out;
	info = (struct ext2_dx_root_info *)(d.root + DX_ROOT_INFO_OFF);
	memset(info, 0, sizeof(*info));
	info->info_length = sizeof(*info);
	info->hash_version = fs->super->s_def_hash_version;
	cl = (struct ext2_dx_countlimit *)(d.root + DX_ENTRIES_OFF);
	cl->limit = ext2fs_cpu_to_le16((bs - DX_ENTRIES_OFF -
			(cs ? DX_TAIL_SIZE : 0)) / sizeof(struct ext2_dx_entry));
	cl->count = ext2fs_cpu_to_le16(2);
	ent = (struct ext2_dx_entry *)(d.root + DX_ENTRIES_OFF);
	ent[0].block = ext2fs_cpu_to_le32(1);
	ent[1].hash = ext2fs_cpu_to_le32(hash2);
	ent[1].block = ext2fs_cpu_to_le32(2);
	retval = ext2fs_write_dir_block4(fs, p1, d.b1, 0, dir);
	if (!retval)
		retval = ext2fs_write_dir_block4(fs, p2, d.b2, 0, dir);
	if (!retval)
		retval = ext2fs_write_dir_block4(fs, p0, d.root, 0, dir);
	if (retval)
		goto out;
	I(dbuf)->i_flags |= EXT2_INDEX_FL;
	retval = ext2fs_write_inode_full(fs, dir, I(dbuf), (int)r->isize);
out:
	dxbufs_free(&d);
	return retval;
}

/* Room for an entry of @reclen bytes in leaf @b (ext4_find_dest_de()). */
static int leaf_has_room(ext2_filsys fs, const char *b, unsigned int reclen)
{
	unsigned int off, rl, nl, end = fs->blocksize - csum_size(fs);
	const struct ext2_dir_entry *de;

	for (off = 0; off < end; off += rl) {
		de = (const struct ext2_dir_entry *)(b + off);
		if (ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)de, &rl) ||
		    rl < 8)
			return 1;	/* corrupt: let libext2fs say so */
		nl = de->inode ? EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(de)) :
			0;
		if (rl - nl >= reclen)
			return 1;
	}
	return 0;
}

/*
 * ext4_dx_add_entry() of a one-level htree whose target leaf is full:
 * do_split() it into a new block (ext4_append()) and insert its index
 * entry after the leaf's, before libext2fs adds the name (libext2fs's own
 * leaf split would leave the new block's slack uninitialised).  Deeper
 * trees and a full root are left to libext2fs.
 */
static errcode_t dx_split_target(struct fcr *r, ext2_ino_t dir,
				 unsigned char *dbuf, const char *name,
				 int namelen)
{
	ext2_filsys fs = r->fs;
	unsigned int bs = fs->blocksize;
	int hflags = I(dbuf)->i_flags & EXT4_CASEFOLD_FL, alg;
	struct ext2_dx_root_info *info;
	struct ext2_dx_countlimit *cl;
	struct ext2_dx_entry *ent;
	struct dxbufs d;
	blk64_t p0, pl, pn, nl;
	__u32 hash, minor, hash2;
	unsigned int count, limit, at;
	size_t n;
	errcode_t retval;

	retval = dxbufs_get(fs, dir, dbuf, &d, &p0);
	if (retval)
		goto out;
	info = (struct ext2_dx_root_info *)(d.root + DX_ROOT_INFO_OFF);
	cl = (struct ext2_dx_countlimit *)(d.root + DX_ENTRIES_OFF);
	ent = (struct ext2_dx_entry *)(d.root + DX_ENTRIES_OFF);
	count = ext2fs_le16_to_cpu(cl->count);
	limit = ext2fs_le16_to_cpu(cl->limit);
	alg = info->hash_version;
	if (alg <= EXT2_HASH_TEA &&
	    (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		alg += 3;
	if (info->indirect_levels || !count || count >= limit ||
	    (DX_ENTRIES_OFF + limit * 8 > bs) || alg > EXT2_HASH_TEA_UNSIGNED)
		goto out;	/* libext2fs's business */
	retval = ext2fs_dirhash2(alg, name, namelen, fs->encoding, hflags,
				 fs->super->s_hash_seed, &hash, &minor);
	if (retval)
		goto out;
	/* dx_probe(): the last index entry whose hash is <= the name's */
	for (at = 1; at < count && ext2fs_le32_to_cpu(ent[at].hash) <= hash;
	     at++)
		;
	at--;
	nl = ext2fs_le32_to_cpu(ent[at].block) & EXT4_DX_BLOCK_MASK;
	retval = dir_pblk(fs, dir, I(dbuf), nl, &pl);
	if (!retval)
		retval = ext2fs_read_dir_block4(fs, pl, d.b1, 0, dir);
	if (retval || leaf_has_room(fs, d.b1, EXT2_DIR_REC_LEN(namelen)))
		goto out;
	retval = map_entries(fs, d.b1, 0, bs - csum_size(fs), 0, alg, hflags,
			     d.m, &n);
	if (retval)
		goto out;
	/* the leaf's copy: do_split() writes into b1 again */
	memcpy(d.b2, d.b1, bs);
	nl = EXT2_I_SIZE(I(dbuf)) / bs;
	retval = ext2fs_expand_dir(fs, dir);
	if (!retval)
		retval = e4_read_inode(fs, dir, I(dbuf), (int)r->isize);
	if (!retval)
		retval = dir_pblk(fs, dir, I(dbuf), nl, &pn);
	if (retval)
		goto out;
	{
		char *src = d.b2, *nb = NULL;

		retval = ext2fs_get_mem(bs, &nb);
		if (!retval)
			retval = do_split(fs, d.m, n, src, d.b1, nb, &hash2);
		if (!retval)
			retval = ext2fs_write_dir_block4(fs, pn, nb, 0, dir);
		ext2fs_free_mem(&nb);
	}
	if (!retval)
		retval = ext2fs_write_dir_block4(fs, pl, d.b1, 0, dir);
	if (retval)
		goto out;
	/* dx_insert_block() after the leaf's entry */
	memmove(&ent[at + 2], &ent[at + 1], (count - at - 1) * sizeof(*ent));
	ent[at + 1].hash = ext2fs_cpu_to_le32(hash2);
	ent[at + 1].block = ext2fs_cpu_to_le32(nl);
	cl->count = ext2fs_cpu_to_le16(count + 1);
	retval = ext2fs_write_dir_block4(fs, p0, d.root, 0, dir);
out:
	dxbufs_free(&d);
	return retval;
}

errcode_t fc_add_entry(struct fcr *r, ext2_ino_t dir, const char *name,
		       int namelen, ext2_ino_t ino, int ftype)
{
	ext2_filsys fs = r->fs;
	unsigned char *dbuf = r->ibuf2;
	__u32 blo;
	__u16 bhi;
	errcode_t retval;

	retval = e4_read_inode(fs, dir, I(dbuf), (int)r->isize);
	if (retval)
		return retval;
	blo = I(dbuf)->i_blocks;
	bhi = I(dbuf)->osd2.linux2.l_i_blocks_hi;
	if ((I(dbuf)->i_flags & EXT2_INDEX_FL) &&
	    ext2fs_has_feature_dir_index(fs->super)) {
		retval = dx_split_target(r, dir, dbuf, name, namelen);
		if (retval)
			return retval;
	}
	retval = ext2fs_link(fs, dir, name, ino, ftype);
	if (retval == EXT2_ET_DIR_NO_SPACE &&
	    !(I(dbuf)->i_flags & EXT2_INDEX_FL)) {
		if (EXT2_I_SIZE(I(dbuf)) / fs->blocksize == 1 &&
		    ext2fs_has_feature_dir_index(fs->super))
			retval = make_indexed_dir(r, dir, dbuf);
		else
			retval = ext2fs_expand_dir(fs, dir);
		if (!retval)
			retval = ext2fs_link(fs, dir, name, ino, ftype);
	}
	if (retval)
		return retval;
	/* mtime, ctime now (add_dirent_to_buf()); i_blocks as it was */
	retval = e4_read_inode(fs, dir, I(dbuf), (int)r->isize);
	if (retval)
		return retval;
	I(dbuf)->i_blocks = blo;
	I(dbuf)->osd2.linux2.l_i_blocks_hi = bhi;
	I(dbuf)->i_mtime = I(dbuf)->i_ctime = r->now;
	return ext2fs_write_inode_full(fs, dir, I(dbuf), (int)r->isize);
}
