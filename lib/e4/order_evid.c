/*
 * order_evid.c --- the ordering check's evidence about data: ahead blocks
 * (the image already holds a journaled copy), what a newly reachable
 * block holds (the stale-data stamp, the journaled copy replay writes, all
 * zeroes: unknown), whether the image carries the stamp, and the stale
 * blocks outside the journal window (S_n).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "order_int.h"

int ord_is_ahead(struct ctx *c, blk64_t b)
{
	return in_sorted(c->ahead, c->nahead, b);
}

struct acopy {
	blk64_t		fsblk, src;
	uint64_t	hash;		/* of the unescaped copy */
	uint32_t	flags;
};

static int acopy_cmp(const void *a, const void *b)
{
	const struct acopy *x = a, *y = b;

	return x->fsblk < y->fsblk ? -1 : x->fsblk > y->fsblk;
}

static int acopy_src_cmp(const void *a, const void *b)
{
	const struct acopy *x = a, *y = b;

	return x->src < y->src ? -1 : x->src > y->src;
}

/*
 * 64-bit content hash of a block (multiply-xorshift over 64-bit words).
 * Not a CRC: metadata_csum blocks carry their own crc32c, which makes any
 * CRC of them collide (the CRC of a message followed by its CRC is a
 * constant).
 */
static uint64_t block_hash(const unsigned char *b, unsigned int bs)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL, w;
	unsigned int i;

	for (i = 0; i + 8 <= bs; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	return h;
}

/*
 * A block is ahead when its image copy equals one of its journaled copies
 * in the window (committed transactions).  Copies and image blocks are
 * read in large sorted chunks and compared by a 64-bit hash.
 */
errcode_t ord_find_ahead(struct ctx *c)
{
	const struct e4_jscan *s = c->scan;
	struct acopy *a = NULL;
	size_t n = 0, na = 0, i, t, g, aa = 0;
	errcode_t retval = 0;

	for (i = 0; i < s->ncommitted; i++)
		na += s->trans[i].ntags;
	if (!na)
		return 0;
	retval = ext2fs_get_array(na, sizeof(*a), &a);
	if (retval)
		return retval;
	for (i = 0; i < s->ncommitted; i++)
		for (t = 0; t < s->trans[i].ntags; t++) {
			const struct e4_jtag *tg = &s->trans[i].tags[t];

			if (tg->csum_ok == 0 || tg->fsblk >= c->nblocks ||
			    e4_journal_bmap(c->j, tg->jblk, &a[n].src))
				continue;
			a[n].fsblk = tg->fsblk;
			a[n].flags = tg->flags;
			a[n].hash = 0;
			n++;
		}
	/* Hash the copies, reading runs of the journal. */
	xsort(a, n, sizeof(*a), acopy_src_cmp);
	for (i = 0; i < n; i = g) {
		for (g = i + 1; g < n && g - i < CHUNK_BLOCKS &&
		     a[g].src == a[g - 1].src + 1; g++)
			;
		/* an unread copy or image block leaves "ahead" unknown:
		 * the check fails rather than miss it */
		retval = io_channel_read_blk64(c->j->io, a[i].src,
					       (int)(g - i), c->buf);
		if (retval)
			goto out;
		for (t = i; t < g; t++) {
			unsigned char *b = c->buf + (t - i) * c->bs;

			e4_jblock_unescape(b, a[t].flags & JBD2_FLAG_ESCAPE);
			a[t].hash = block_hash(b, c->bs);
		}
	}
	/* Hash the image copies, reading runs of the fs. */
	xsort(a, n, sizeof(*a), acopy_cmp);
	for (i = 0; i < n; ) {
		size_t k = 0, u;
		blk64_t first = a[i].fsblk;

		/* distinct consecutive fs blocks starting at a[i] */
		for (g = i; g < n && k < CHUNK_BLOCKS &&
		     a[g].fsblk == first + k; k++)
			while (g < n && a[g].fsblk == first + k)
				g++;
		retval = io_channel_read_blk64(c->fs0->io, first, (int)k,
					       c->buf);
		if (retval)
			goto out;
		for (u = i; u < g; ) {
			blk64_t b = a[u].fsblk;
			uint64_t h = block_hash(c->buf + (b - first) * c->bs,
						c->bs);
			int eq = 0;

			for (; u < g && a[u].fsblk == b; u++)
				if (a[u].hash == h)
					eq = 1;
			if (!eq)
				continue;
			retval = grow((void **)&c->ahead, &aa, c->nahead + 1,
				      sizeof(*c->ahead));
			if (retval)
				goto out;
			c->ahead[c->nahead++] = b;
		}
		i = g;
	}
out:
	ext2fs_free_mem(&a);
	return retval;
}

errcode_t ord_check_segment(struct ctx *c, struct state *st,
			    const struct seg *s)
{
	struct e4_order_finding f;
	blk64_t i, done;
	errcode_t retval = 0;

	memset(&f, 0, sizeof(f));
	f.has_tid = 1;
	f.tid = s->tid;
	f.ino = s->ino;
	f.conversion = s->conversion;
	f.prior_lost = s->prior_lost;
	for (i = 0; i < s->len && !retval; i += done) {
		blk64_t p = s->pblk + i, n, b;
		int used;

		done = 1;
		f.lblk = s->lblk + i;
		f.pblk = p;
		f.len = 1;
		f.evidence = E4_EVID_NONE;
		f.stale_units = f.units = 0;
		if (p < c->fs0->super->s_first_data_block ||
		    p >= c->nblocks) {
			f.kind = E4_ORD_OUTSIDE_FS;
			retval = ord_add_finding(c, &f);
			continue;
		}
		if (ord_is_meta(c, p)) {
			f.kind = E4_ORD_INTO_METADATA;
			retval = ord_add_finding(c, &f);
			continue;
		}
		/* Read a chunk of in-fs, non-metadata blocks. */
		for (n = 1; n < CHUNK_BLOCKS && i + n < s->len &&
		     p + n < c->nblocks && !ord_is_meta(c, p + n); n++)
			;
		done = n;
		retval = io_channel_read_blk64(st->fs->io, p, (int)n, c->buf);
		if (retval)
			return retval;
		for (b = 0; b < n && !retval; b++) {
			const struct e4_copy *e;
			unsigned char *d = c->buf + b * c->bs;
			size_t stale;

			f.lblk = s->lblk + i + b;
			f.pblk = p + b;
			f.stale_units = f.units = 0;
			used = ord_block_used(st, p + b);
			if (used == 0) {
				f.kind = E4_ORD_FREE_IN_BITMAP;
				f.evidence = E4_EVID_NONE;
				f.evid_tid = 0;
				retval = ord_add_finding(c, &f);
				if (retval)
					break;
			}
			e = e4_state_lookup(&st->map, p + b);
			f.evidence = e ? E4_EVID_JOURNAL : E4_EVID_IMAGE;
			f.evid_tid = e ? e->tid : 0;
			stale = e4_stamp_block_stale(d, p + b, c->bs);
			f.stale_units = stale;
			f.units = e4_stamp_units(0, c->bs);
			if (c->opts->list_mappings) {
				f.kind = E4_ORD_MAPPING;
				retval = ord_add_finding(c, &f);
				if (retval)
					break;
			}
			if (stale)
				f.kind = E4_ORD_STALE;
			else if (c->rep->stamped)
				continue;
			else if (e4_block_is_zero(d, c->bs))
				f.kind = E4_ORD_SUSPECT_ZERO;
			else
				f.kind = E4_ORD_UNVERIFIED;
			retval = ord_add_finding(c, &f);
		}
	}
	return retval;
}

int ord_detect_stamp(struct ctx *c, struct state *st)
{
	ext2_filsys fs = st->fs;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t first = ext2fs_group_first_block2(fs, g);
		blk64_t last = ext2fs_group_last_block2(fs, g), b;
		int tried = 0;
		blk64_t step = (last - first) / 61 + 1;

		for (b = first; b <= last && tried < 64; b += step) {
			if (ord_is_meta(c, b) || ord_block_used(st, b) != 0)
				continue;
			tried++;
			if (io_channel_read_blk64(fs->io, b, 1, c->buf))
				continue;
			if (e4_stamp_block_stale(c->buf, b, c->bs))
				return 1;
		}
	}
	return 0;
}

errcode_t ord_check_outside(struct ctx *c, struct state *st)
{
	ext2_filsys fs = st->fs;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct ext2_inode *inode;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);
	struct imap m;
	struct e4_order_finding f;
	errcode_t retval;
	size_t i, from = c->rep->nf;

	memset(&m, 0, sizeof(m));
	retval = ext2fs_get_memzero(isz, &inode);
	if (retval)
		return retval;
	retval = ext2fs_open_inode_scan(fs, 0, &scan);
	if (retval) {
		ext2fs_free_mem(&inode);
		return retval;
	}
	c->tx_first_f = c->rep->nf;
	while (!ext2fs_get_next_inode_full(scan, &ino, inode, isz) && ino) {
		if (!inode->i_links_count || !ord_ino_checked(fs, ino) ||
		    ord_inode_used(st, ino) != 1)
			continue;
		if (ord_get_map(c, st, ino, inode, &m))
			continue;
		for (i = 0; i < m.n; i++) {
			const struct run *r = &m.r[i];
			blk64_t b, n, x;

			if (r->unwritten)
				continue;
			for (b = 0; b < r->len; b += n) {
				n = r->len - b;
				if (n > CHUNK_BLOCKS)
					n = CHUNK_BLOCKS;
				if (r->pblk + b + n > c->nblocks ||
				    io_channel_read_blk64(fs->io, r->pblk + b,
							  (int)n, c->buf))
					break;
				c->rep->outside_blocks += n;
				for (x = 0; x < n; x++) {
					blk64_t p = r->pblk + b + x;
					blk64_t l = r->lblk + b + x;
					size_t s = e4_stamp_block_stale(
						c->buf + x * c->bs, p, c->bs);

					if (!s || ord_was_seen(c, ino, l, p))
						continue;
					memset(&f, 0, sizeof(f));
					f.kind = E4_ORD_STALE_OUTSIDE;
					f.ino = ino;
					f.lblk = l;
					f.pblk = p;
					f.len = 1;
					f.evidence = e4_state_lookup(&st->map,
								       p) ?
						E4_EVID_JOURNAL : E4_EVID_IMAGE;
					f.stale_units = s;
					f.units = e4_stamp_units(0, c->bs);
					retval = ord_add_finding(c, &f);
					if (retval)
						goto out;
				}
			}
		}
	}
	c->rep->outside_checked = 1;
	ord_resolve_paths(c, fs, from);
out:
	ext2fs_close_inode_scan(scan);
	ord_imap_free(&m);
	ext2fs_free_mem(&inode);
	return retval;
}
