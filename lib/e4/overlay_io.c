/*
 * overlay_io.c --- the "e4overlay" io_manager: a read-only view of an image
 * in which the fs blocks of a map are served from copies on a source
 * channel (journal copies, unescaped) and everything else from the image.
 * With the map of state S_k, libext2fs reads the image as if committed
 * transactions T1..Tk had been replayed, without copying or writing it.
 *
 * Rules for S_k: kernel fs/jbd2/recovery.c (PASS_REVOKE, PASS_REPLAY:
 * jbd2_journal_test_revoke() cancels copies from tids <= the revoke's tid;
 * an escaped block gets JBD2_MAGIC back in its first 4 bytes; a block whose
 * tag checksum fails is not replayed).
 *
 * Channel naming: libext2fs opens channels by name, so the overlay's name
 * is "e4overlay:0x<address of the overlay>", checked against a magic
 * number on open: no global registry.  Modelled on the way e2fsprogs'
 * test_io/undo_io wrap a backing channel (own code).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"

#define E4_OVERLAY_MAGIC	0x4534f564c4159ULL

struct e4_overlay {
	uint64_t		magic;
	char			*image;		/* backing image path */
	io_channel		src;		/* copies are here; not owned */
	unsigned int		blocksize;	/* fs block size, bytes */
	struct e4_ovl_ent	*ents;		/* sorted by fsblk, unique */
	size_t			n;
	char			name[48];
};

struct ovl_priv {
	e4_overlay_t	ov;
	io_channel	img;		/* the image, read-only */
	unsigned char	*tmp;		/* one fs block */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct e4_ovl_ent *x = a, *y = b;

	if (x->fsblk != y->fsblk)
		return x->fsblk < y->fsblk ? -1 : 1;
	return 0;
}

/* Stable sort by fsblk keeping the last of equal keys: sort (key, index). */
struct ent_idx {
	struct e4_ovl_ent	e;
	size_t			idx;
};

static int ent_idx_cmp(const void *a, const void *b)
{
	const struct ent_idx *x = a, *y = b;
	int c = ent_cmp(&x->e, &y->e);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

errcode_t e4_overlay_create(const char *image, io_channel src,
			    unsigned int blocksize,
			    const struct e4_ovl_ent *ents, size_t n,
			    e4_overlay_t *ret)
{
	e4_overlay_t ov;
	struct ent_idx *tmp = NULL;
	errcode_t retval;
	size_t i, m;

	*ret = NULL;
	if (!image || (n && !src) || blocksize < 1024 ||
	    (blocksize & (blocksize - 1)))
		return EXT2_ET_INVALID_ARGUMENT;
	retval = ext2fs_get_memzero(sizeof(*ov), &ov);
	if (retval)
		return retval;
	ov->magic = E4_OVERLAY_MAGIC;
	ov->src = src;
	ov->blocksize = blocksize;
	retval = ext2fs_get_mem(strlen(image) + 1, &ov->image);
	if (retval)
		goto fail;
	strcpy(ov->image, image);
	for (i = 1; i < n && ents[i - 1].fsblk < ents[i].fsblk; i++)
		;
	if (n && i == n) {	/* already sorted and unique */
		retval = ext2fs_get_array(n, sizeof(*ov->ents), &ov->ents);
		if (retval)
			goto fail;
		memcpy(ov->ents, ents, n * sizeof(*ents));
		ov->n = n;
	} else if (n) {
		retval = ext2fs_get_array(n, sizeof(*tmp), &tmp);
		if (retval)
			goto fail;
		retval = ext2fs_get_array(n, sizeof(*ov->ents), &ov->ents);
		if (retval)
			goto fail;
		for (i = 0; i < n; i++) {
			tmp[i].e = ents[i];
			tmp[i].idx = i;
		}
		qsort(tmp, n, sizeof(*tmp), ent_idx_cmp);
		for (i = 0, m = 0; i < n; i++) {
			if (i + 1 < n && tmp[i + 1].e.fsblk == tmp[i].e.fsblk)
				continue;	/* a later entry wins */
			ov->ents[m++] = tmp[i].e;
		}
		ov->n = m;
		ext2fs_free_mem(&tmp);
	}
	snprintf(ov->name, sizeof(ov->name), "e4overlay:%p", (void *)ov);
	*ret = ov;
	return 0;
fail:
	ext2fs_free_mem(&tmp);
	e4_overlay_free(ov);
	return retval;
}

void e4_overlay_free(e4_overlay_t ov)
{
	if (!ov)
		return;
	ov->magic = 0;
	ext2fs_free_mem(&ov->image);
	ext2fs_free_mem(&ov->ents);
	ext2fs_free_mem(&ov);
}

const char *e4_overlay_name(e4_overlay_t ov)
{
	return ov->name;
}

const struct e4_ovl_ent *e4_overlay_lookup(e4_overlay_t ov, blk64_t fsblk)
{
	size_t lo = 0, hi = ov->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ov->ents[mid].fsblk < fsblk)
			lo = mid + 1;
		else if (ov->ents[mid].fsblk > fsblk)
			hi = mid;
		else
			return &ov->ents[mid];
	}
	return NULL;
}

errcode_t e4_overlay_read_copy(e4_overlay_t ov, const struct e4_ovl_ent *ent,
			       void *buf)
{
	errcode_t retval;

	retval = io_channel_read_blk64(ov->src, ent->src_blk, 1, buf);
	if (retval)
		return retval;
	if (ent->flags & E4_OVL_ESCAPED)
		e4_put_be32(buf, JBD2_MAGIC);
	return 0;
}

/* ---- the io_manager --------------------------------------------------- */

static errcode_t ovl_open(const char *name, int flags, io_channel *channel)
{
	io_channel io = NULL;
	struct ovl_priv *priv = NULL;
	e4_overlay_t ov = NULL;
	void *ptr = NULL;
	errcode_t retval;

	if (!name || sscanf(name, "e4overlay:%p", &ptr) != 1 || !ptr)
		return EXT2_ET_BAD_DEVICE_NAME;
	ov = ptr;
	if (ov->magic != E4_OVERLAY_MAGIC)
		return EXT2_ET_BAD_DEVICE_NAME;
	if (flags & IO_FLAG_RW)
		return E4_ERR_READ_ONLY;
	retval = ext2fs_get_memzero(sizeof(*io), &io);
	if (retval)
		return retval;
	retval = ext2fs_get_memzero(sizeof(*priv), &priv);
	if (retval)
		goto fail;
	priv->ov = ov;
	retval = ext2fs_get_mem(ov->blocksize, &priv->tmp);
	if (retval)
		goto fail;
	/* An in-memory image (mem_io.c, tests and fuzzing), a write-log
	 * device (wlog_io.c) or another overlay by its name. */
	retval = (!strncmp(ov->image, "e4mem:", 6) ? e4_mem_io_manager :
		  !strncmp(ov->image, "e4wlog:", 7) ? e4_wlog_io_manager :
		  !strncmp(ov->image, "e4overlay:", 10) ?
		  e4_overlay_io_manager :
		  unix_io_manager)->open(ov->image, 0, &priv->img);
	if (retval)
		goto fail;
	retval = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (retval)
		goto fail;
	strcpy(io->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = e4_overlay_io_manager;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = priv;
	*channel = io;
	return 0;
fail:
	if (priv) {
		if (priv->img)
			io_channel_close(priv->img);
		ext2fs_free_mem(&priv->tmp);
		ext2fs_free_mem(&priv);
	}
	if (io)
		ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return retval;
}

static errcode_t ovl_close(io_channel channel)
{
	struct ovl_priv *priv = channel->private_data;

	if (--channel->refcount > 0)
		return 0;
	if (priv->img)
		io_channel_close(priv->img);
	ext2fs_free_mem(&priv->tmp);
	ext2fs_free_mem(&priv);
	ext2fs_free_mem(&channel->name);
	ext2fs_free_mem(&channel);
	return 0;
}

static errcode_t ovl_set_blksize(io_channel channel, int blksize)
{
	struct ovl_priv *priv = channel->private_data;
	errcode_t retval;

	retval = io_channel_set_blksize(priv->img, blksize);
	if (retval)
		return retval;
	channel->block_size = blksize;
	return 0;
}

static errcode_t ovl_read_blk64(io_channel channel, unsigned long long block,
				int count, void *data)
{
	struct ovl_priv *priv = channel->private_data;
	e4_overlay_t ov = priv->ov;
	uint64_t off, size, bs = ov->blocksize;
	size_t lo, hi;
	errcode_t retval;

	retval = io_channel_read_blk64(priv->img, block, count, data);
	if (retval)
		return retval;
	if (!ov->n)
		return 0;
	size = count < 0 ? (uint64_t)-(int64_t)count :
		(uint64_t)count * channel->block_size;
	off = block * (uint64_t)channel->block_size;
	if (!size)
		return 0;
	/* First map entry at or after the fs block holding @off. */
	lo = 0;
	hi = ov->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ov->ents[mid].fsblk < off / bs)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < ov->n && ov->ents[lo].fsblk <= (off + size - 1) / bs) {
		const struct e4_ovl_ent *e = &ov->ents[lo];
		uint64_t bstart = e->fsblk * bs, from, to;
		size_t run = 1, x;

		/* Whole blocks whose copies are contiguous: one read. */
		if (bstart >= off) {
			while (lo + run < ov->n &&
			       ov->ents[lo + run].fsblk == e->fsblk + run &&
			       ov->ents[lo + run].src_blk == e->src_blk + run &&
			       bstart + (run + 1) * bs <= off + size)
				run++;
		}
		if (bstart >= off && bstart + run * bs <= off + size) {
			unsigned char *d = (unsigned char *)data +
				(bstart - off);

			retval = io_channel_read_blk64(ov->src, e->src_blk,
						       (int)run, d);
			if (retval)
				return retval;
			for (x = 0; x < run; x++)
				if (ov->ents[lo + x].flags & E4_OVL_ESCAPED)
					e4_put_be32(d + x * bs, JBD2_MAGIC);
			lo += run;
			continue;
		}
		retval = e4_overlay_read_copy(ov, e, priv->tmp);
		if (retval)
			return retval;
		from = bstart > off ? bstart : off;
		to = bstart + bs < off + size ? bstart + bs : off + size;
		memcpy((unsigned char *)data + (from - off),
		       priv->tmp + (from - bstart), to - from);
		lo++;
	}
	return 0;
}

static errcode_t ovl_read_blk(io_channel channel, unsigned long block,
			      int count, void *data)
{
	return ovl_read_blk64(channel, block, count, data);
}

static errcode_t ovl_write_blk64(io_channel channel, unsigned long long block,
				 int count, const void *data)
{
	(void)channel;
	(void)block;
	(void)count;
	(void)data;
	return E4_ERR_READ_ONLY;
}

static errcode_t ovl_write_blk(io_channel channel, unsigned long block,
			       int count, const void *data)
{
	return ovl_write_blk64(channel, block, count, data);
}

static errcode_t ovl_write_byte(io_channel channel, unsigned long offset,
				int count, const void *data)
{
	return ovl_write_blk64(channel, offset, count, data);
}

static errcode_t ovl_flush(io_channel channel)
{
	(void)channel;
	return 0;
}

static errcode_t ovl_set_option(io_channel channel, const char *option,
				const char *arg)
{
	(void)channel;
	(void)option;
	(void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t ovl_get_stats(io_channel channel, io_stats *stats)
{
	struct ovl_priv *priv = channel->private_data;

	if (priv->img->manager->get_stats)
		return priv->img->manager->get_stats(priv->img, stats);
	return EXT2_ET_UNIMPLEMENTED;
}

static struct struct_io_manager struct_overlay_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4tools overlay I/O manager",
	.open		= ovl_open,
	.close		= ovl_close,
	.set_blksize	= ovl_set_blksize,
	.read_blk	= ovl_read_blk,
	.write_blk	= ovl_write_blk,
	.flush		= ovl_flush,
	.write_byte	= ovl_write_byte,
	.set_option	= ovl_set_option,
	.get_stats	= ovl_get_stats,
	.read_blk64	= ovl_read_blk64,
	.write_blk64	= ovl_write_blk64,
};

io_manager e4_overlay_io_manager = &struct_overlay_manager;

errcode_t e4_overlay_open_fs(e4_overlay_t ov, int flags, ext2_filsys *ret)
{
	return ext2fs_open2(ov->name, NULL, (flags & ~EXT2_FLAG_RW) |
			    EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS,
			    0, 0, e4_overlay_io_manager, ret);
}

/* ---- the map of state S_k --------------------------------------------- */

/* 1 if fs block @b holds part of the internal journal @j. */
static int in_journal(e4_journal_t j, blk64_t b)
{
	size_t i;

	if (j->external)
		return 0;
	for (i = 0; i < j->nruns; i++)
		if (b >= j->runs[i].pblk &&
		    b < j->runs[i].pblk + j->runs[i].len)
			return 1;
	return 0;
}

static int blk_cmp(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

errcode_t e4_overlay_map_next(e4_journal_t j, const struct e4_jtrans *tr,
			      const struct e4_ovl_ent *prev, size_t nprev,
			      struct e4_ovl_ent **ents, size_t *n)
{
	blk64_t nblocks = ext2fs_blocks_count(j->fs->super);
	struct ent_idx *t = NULL;
	struct e4_ovl_ent *out = NULL;
	blk64_t *rev = NULL;
	size_t nt = 0, nr = 0, i, a, b, m = 0, r = 0;
	errcode_t retval;

	*ents = NULL;
	*n = 0;
	if (tr->ntags) {
		retval = ext2fs_get_array(tr->ntags, sizeof(*t), &t);
		if (retval)
			return retval;
	}
	for (i = 0; i < tr->ntags; i++) {
		const struct e4_jtag *tag = &tr->tags[i];
		blk64_t pblk;

		if (tag->csum_ok == 0 || tag->fsblk >= nblocks ||
		    in_journal(j, tag->fsblk))
			continue;	/* not replayed */
		retval = e4_journal_bmap(j, tag->jblk, &pblk);
		if (retval)
			goto out;
		t[nt].e.fsblk = tag->fsblk;
		t[nt].e.src_blk = pblk;
		t[nt].e.jblk = tag->jblk;
		t[nt].e.tid = tr->tid;
		t[nt].e.flags = (tag->flags & JBD2_FLAG_ESCAPE) ?
			E4_OVL_ESCAPED : 0;
		t[nt].idx = i;
		nt++;
	}
	if (nt > 1)
		qsort(t, nt, sizeof(*t), ent_idx_cmp);
	if (tr->nrevokes) {
		retval = ext2fs_get_array(tr->nrevokes, sizeof(*rev), &rev);
		if (retval)
			goto out;
		memcpy(rev, tr->revokes, tr->nrevokes * sizeof(*rev));
		nr = tr->nrevokes;
		qsort(rev, nr, sizeof(*rev), blk_cmp);
	}
	if (nprev + nt) {
		retval = ext2fs_get_array(nprev + nt, sizeof(*out), &out);
		if (retval)
			goto out;
	}
	/* Merge; Tk's newest copy wins; a revoke of Tk cancels every copy
	 * (all have tids <= Tk's). */
	for (a = 0, b = 0; a < nprev || b < nt;) {
		const struct e4_ovl_ent *e;

		if (b < nt && b + 1 < nt && t[b + 1].e.fsblk == t[b].e.fsblk) {
			b++;	/* a later tag of Tk for the same block */
			continue;
		}
		if (b >= nt || (a < nprev && prev[a].fsblk < t[b].e.fsblk)) {
			e = &prev[a++];
		} else {
			if (a < nprev && prev[a].fsblk == t[b].e.fsblk)
				a++;
			e = &t[b++].e;
		}
		while (r < nr && rev[r] < e->fsblk)
			r++;
		if (r < nr && rev[r] == e->fsblk)
			continue;
		out[m++] = *e;
	}
	*ents = out;
	*n = m;
	out = NULL;
	retval = 0;
out:
	ext2fs_free_mem(&t);
	ext2fs_free_mem(&rev);
	ext2fs_free_mem(&out);
	return retval;
}

errcode_t e4_overlay_map_state(e4_journal_t j, const struct e4_jscan *scan,
			       size_t k, struct e4_ovl_ent **ents, size_t *n)
{
	struct e4_ovl_ent *cur = NULL, *next;
	size_t ncur = 0, nnext, i;
	errcode_t retval;

	*ents = NULL;
	*n = 0;
	if (k > scan->ncommitted)
		k = scan->ncommitted;
	for (i = 0; i < k; i++) {
		retval = e4_overlay_map_next(j, &scan->trans[i], cur, ncur,
					     &next, &nnext);
		ext2fs_free_mem(&cur);
		if (retval)
			return retval;
		cur = next;
		ncur = nnext;
	}
	*ents = cur;
	*n = ncur;
	return 0;
}
