/*
 * order.c --- the alloc-on-commit ordering check (e4tools issue 4): for
 * each committed transaction Tk of a crash image's journal, which
 * initialized mappings it makes reachable, and whether their data had been
 * written; plus structural checks of the replayed states S_k.
 *
 * States S_k are read through overlay_io.c.  Semantics: ext4's data=ordered
 * promise (fs/ext4/inode.c, ext4_map_blocks + jbd2 ordered data; unwritten
 * extents in fs/ext4/extents.c), jbd2 recovery rules as in overlay_io.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"

#define CHUNK_BLOCKS	64	/* data blocks read at once */

struct run {
	blk64_t		lblk, pblk, len;
	int		unwritten;
};

/* The mapping of one inode in one state. */
struct imap {
	struct run	*r;
	size_t		n, alloc;
	blk64_t		*tree;		/* extent-tree / indirect blocks */
	size_t		ntree, talloc;
	int		lost;		/* read through a block whose content
					 * the log cannot show (unknown) */
	errcode_t	err;
};

/* A run of a touched inode in S_k, indexed by pblk. */
struct prun {
	blk64_t		pblk, len, lblk;
	ext2_ino_t	ino;
	int		unwritten;
	int		regular;	/* regular file, not exempt */
};

struct seen {
	ext2_ino_t	ino;
	blk64_t		lblk, pblk;
};

struct range {
	blk64_t		start, len;
};

/* A block the window logs, and the index k (1-based) of the first
 * committed transaction that logs it. */
struct firstlog {
	blk64_t		b;
	size_t		k;
};

/* A new data block whose content is unknown in S_k: judged in S_known. */
struct deferred {
	uint32_t	tid;
	ext2_ino_t	ino;
	blk64_t		lblk, pblk;
	size_t		known;
	int		conversion, prior_lost, metadata;
};

struct bmcache {
	ext2_filsys	fs;
	long		g;		/* cached group, -1 none */
	int		uninit;
	unsigned char	*buf;
};

/* One state S_k. */
struct state {
	size_t		k;
	e4_overlay_t	ov;
	ext2_filsys	fs;
	struct bmcache	bb, ib;
};

struct ctx {
	ext2_filsys		fs0;
	e4_journal_t		j;
	const char		*image;
	const struct e4_jscan	*scan;
	const struct e4_order_opts *opts;
	struct e4_order_report	*rep;
	blk64_t			nblocks;
	unsigned int		bs;
	struct range		*meta;
	size_t			nmeta;
	blk64_t			*ahead;
	size_t			nahead;
	struct firstlog		*flog;	/* every logged block: its first k */
	size_t			nflog;
	struct deferred		*dfr;	/* data checks waiting for a state
					 * in which their block is known */
	size_t			ndfr, adfr;
	struct seen		*seen, *pend;
	size_t			nseen, npend, aseen, apend;
	size_t			af;	/* findings allocated */
	struct prun		*pr;
	size_t			npr, apr;
	blk64_t			*prmax;
	ext2_ino_t		*touched;
	size_t			ntouched, atouched;
	unsigned char		*buf;	/* CHUNK_BLOCKS blocks */
	unsigned char		*ibuf;	/* one inode */
	struct e4_ovl_ent	*map;	/* the map of the last state built */
	size_t			nmap;
	int			mode_explicit;	/* ordered/writeback known */
	uint64_t		data_journaled;
	size_t			tx_first_f;	/* first finding of this tx */
};

static const char *kind_names[E4_ORD_NKINDS] = {
	"stale", "outside-fs", "into-metadata", "double-mapped",
	"free-in-bitmap", "data-journaled", "stale-outside-window",
	"stale-metadata",
	"unverified", "suspect-zero", "mapping", "stale-permitted",
	"inode-reused", "not-judged",
};

const char *e4_order_kind_name(int kind)
{
	if (kind < 0 || kind >= E4_ORD_NKINDS)
		return "?";
	return kind_names[kind];
}

const char *e4_data_mode_name(int mode)
{
	static const char *n[] = { "auto", "ordered", "journal", "writeback" };

	if (mode < 0 || mode > E4_DATA_WRITEBACK)
		return "?";
	return n[mode];
}

/* qsort() that accepts an empty (NULL) array. */
static void xsort(void *a, size_t n, size_t sz,
		  int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(a, n, sz, cmp);
}

static errcode_t grow(void **p, size_t *alloc, size_t want, size_t sz)
{
	size_t na;
	errcode_t retval;

	if (want <= *alloc)
		return 0;
	na = *alloc ? *alloc : 16;
	while (na < want)
		na *= 2;
	retval = ext2fs_resize_mem(*alloc * sz, na * sz, p);
	if (retval)
		return retval;
	*alloc = na;
	return 0;
}

static void warn(struct e4_order_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void warn(struct e4_order_report *rep, const char *fmt, ...)
{
	va_list ap;

	if (rep->nwarnings >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(rep->warnings[rep->nwarnings++], sizeof(rep->warnings[0]),
		  fmt, ap);
	va_end(ap);
}

static int blk_cmp(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

static int in_sorted(const blk64_t *a, size_t n, blk64_t v)
{
	return n && bsearch(&v, a, n, sizeof(*a), blk_cmp) != NULL;
}

static int is_ahead(struct ctx *c, blk64_t b)
{
	return in_sorted(c->ahead, c->nahead, b);
}

static int flog_cmp(const void *a, const void *b)
{
	const struct firstlog *x = a, *y = b;

	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* Index k of the first committed transaction logging @b, 0 if none. */
static size_t first_logged(struct ctx *c, blk64_t b)
{
	struct firstlog key = { b, 0 }, *f;
	size_t lo = 0, hi = c->nflog;

	(void)key;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->flog[mid].b < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	f = lo < c->nflog ? &c->flog[lo] : NULL;
	return f && f->b == b ? f->k : 0;
}

/*
 * Unknown content (e4tools issue 13): in S_k a block that some T_j, j > k,
 * logs and none of T_1..T_k does has a home copy the log cannot date.  It
 * may be a later copy (ahead: the kernel checkpointed T_j's buffer without
 * moving s_start) or an older one than S_k (behind: when a newer
 * transaction logs a buffer, jbd2 drops it from the older transaction's
 * checkpoint list, fs/jbd2/commit.c __jbd2_journal_remove_checkpoint, so
 * the tail moves past T_k while the home copy predates it).  When the live
 * log begins at the journal's first transaction nothing before it can
 * have been dropped: only the ahead blocks are unknown.  S_n has none.
 */
static int is_unknown(struct ctx *c, const struct state *st, blk64_t b)
{
	size_t f = first_logged(c, b);

	if (!f || f <= st->k)
		return 0;
	return c->rep->log_from_start ? is_ahead(c, b) : 1;
}

static int is_meta(struct ctx *c, blk64_t b)
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

/* ---- static layout: metadata ranges ------------------------------------ */

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
static errcode_t build_meta(struct ctx *c)
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
static ext2_ino_t itable_first_ino(ext2_filsys fs, blk64_t b)
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

static blk64_t itable_block_of(ext2_filsys fs, ext2_ino_t ino)
{
	unsigned int ipb = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	dgrp_t g = (ino - 1) / fs->super->s_inodes_per_group;
	ext2_ino_t idx = (ino - 1) % fs->super->s_inodes_per_group;

	return ext2fs_inode_table_loc(fs, g) + idx / ipb;
}

/* ---- ahead blocks ------------------------------------------------------ */

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
static errcode_t find_ahead(struct ctx *c)
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
		if (io_channel_read_blk64(c->j->io, a[i].src, (int)(g - i),
					  c->buf)) {
			for (t = i; t < g; t++)
				a[t].flags |= 0x80000000U;	/* unread */
			continue;
		}
		for (t = i; t < g; t++) {
			unsigned char *b = c->buf + (t - i) * c->bs;

			if (a[t].flags & JBD2_FLAG_ESCAPE)
				e4_put_be32(b, JBD2_MAGIC);
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
		if (io_channel_read_blk64(c->fs0->io, first, (int)k, c->buf)) {
			i = g;
			continue;
		}
		for (u = i; u < g; ) {
			blk64_t b = a[u].fsblk;
			uint64_t h = block_hash(c->buf + (b - first) * c->bs,
						c->bs);
			int eq = 0;

			for (; u < g && a[u].fsblk == b; u++)
				if (!(a[u].flags & 0x80000000U) &&
				    a[u].hash == h)
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

/* Every block the committed transactions log, with the first of them
 * (the same tags the overlay replays: checksum not failed, inside the fs). */
static errcode_t build_flog(struct ctx *c)
{
	const struct e4_jscan *s = c->scan;
	size_t i, t, n = 0, m;
	errcode_t retval;

	for (i = 0; i < s->ncommitted; i++)
		n += s->trans[i].ntags;
	if (!n)
		return 0;
	retval = ext2fs_get_array(n, sizeof(*c->flog), &c->flog);
	if (retval)
		return retval;
	for (i = 0; i < s->ncommitted; i++)
		for (t = 0; t < s->trans[i].ntags; t++) {
			const struct e4_jtag *tg = &s->trans[i].tags[t];

			if (tg->csum_ok == 0 || tg->fsblk >= c->nblocks)
				continue;
			c->flog[c->nflog].b = tg->fsblk;
			c->flog[c->nflog++].k = i + 1;
		}
	xsort(c->flog, c->nflog, sizeof(*c->flog), flog_cmp);
	for (i = 0, m = 0; i < c->nflog; i++)
		if (!m || c->flog[m - 1].b != c->flog[i].b)
			c->flog[m++] = c->flog[i];
	c->nflog = m;
	/* Blocks unknown in some S_k, k < n. */
	for (i = 0; i < c->nflog; i++)
		if (c->flog[i].k > 1 &&
		    (!c->rep->log_from_start || is_ahead(c, c->flog[i].b)))
			c->rep->unknown_blocks++;
	return 0;
}

/* ---- states and bitmaps ------------------------------------------------ */

static void state_close(struct state *st)
{
	if (st->fs)
		ext2fs_close_free(&st->fs);
	e4_overlay_free(st->ov);
	ext2fs_free_mem(&st->bb.buf);
	ext2fs_free_mem(&st->ib.buf);
	memset(st, 0, sizeof(*st));
}

/* Open S_k; c->map holds S_(k-1)'s map on entry and S_k's on success
 * (state 0: the empty map). */
static errcode_t state_open(struct ctx *c, size_t k, struct state *st)
{
	struct e4_ovl_ent *ents = NULL;
	size_t n = 0;
	errcode_t retval = 0;

	memset(st, 0, sizeof(*st));
	st->k = k;
	st->bb.g = st->ib.g = -1;
	if (k) {
		retval = e4_overlay_map_next(c->j, &c->scan->trans[k - 1],
					     c->map, c->nmap, &ents, &n);
		if (retval)
			return retval;
		ext2fs_free_mem(&c->map);
		c->map = ents;
		c->nmap = n;
	}
	retval = e4_overlay_create(c->image, c->j->io, c->bs, c->map,
				   c->nmap, &st->ov);
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
		state_close(st);
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

static int block_used(struct state *st, blk64_t b)
{
	ext2_filsys fs = st->fs;
	dgrp_t g = ext2fs_group_of_blk2(fs, b);

	return bitmap_test(st, 1, g, b - ext2fs_group_first_block2(fs, g));
}

static int inode_used(struct state *st, ext2_ino_t ino)
{
	ext2_filsys fs = st->fs;
	ext2_ino_t ipg = fs->super->s_inodes_per_group;

	return bitmap_test(st, 0, (ino - 1) / ipg, (ino - 1) % ipg);
}

/* Inodes whose mappings the check looks at. */
static int ino_checked(ext2_filsys fs, ext2_ino_t ino)
{
	struct ext2_super_block *sb = fs->super;

	if (ino == 0 || ino > sb->s_inodes_count)
		return 0;
	if (ino == sb->s_journal_inum || ino == EXT2_RESIZE_INO ||
	    ino == EXT2_BAD_INO)
		return 0;
	return ino == EXT2_ROOT_INO || ino >= EXT2_FIRST_INO(sb) ||
		ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
		ino == sb->s_prj_quota_inum;
}

static int ino_exempt(ext2_filsys fs, ext2_ino_t ino,
		      const struct ext2_inode *inode)
{
	struct ext2_super_block *sb = fs->super;

	return (inode->i_flags & EXT3_JOURNAL_DATA_FL) ||
		ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
		ino == sb->s_prj_quota_inum || ino == 3 || ino == 4 ||
		ino == sb->s_journal_inum;
}

/* Read inode @ino of @st into c->ibuf; 1 if it is live there. */
static int read_live(struct ctx *c, struct state *st, ext2_ino_t ino)
{
	struct ext2_inode *inode = (struct ext2_inode *)c->ibuf;
	unsigned int t;

	if (e4_read_inode(st->fs, ino, inode, EXT2_INODE_SIZE(st->fs->super)))
		return 0;
	if (!inode->i_links_count || inode_used(st, ino) != 1)
		return 0;
	t = inode->i_mode & LINUX_S_IFMT;
	return t == LINUX_S_IFREG || t == LINUX_S_IFDIR || t == LINUX_S_IFLNK;
}

/* ---- mappings of an inode ---------------------------------------------- */

static errcode_t add_run(struct imap *m, blk64_t l, blk64_t p, blk64_t len,
			 int unwritten)
{
	struct run *r;
	errcode_t retval;

	if (m->n) {
		r = &m->r[m->n - 1];
		if (r->lblk + r->len == l && r->pblk + r->len == p &&
		    r->unwritten == unwritten) {
			r->len += len;
			return 0;
		}
	}
	retval = grow((void **)&m->r, &m->alloc, m->n + 1, sizeof(*m->r));
	if (retval)
		return retval;
	r = &m->r[m->n++];
	r->lblk = l;
	r->pblk = p;
	r->len = len;
	r->unwritten = unwritten;
	return 0;
}

static errcode_t add_tree(struct imap *m, blk64_t b)
{
	errcode_t retval;

	retval = grow((void **)&m->tree, &m->talloc, m->ntree + 1,
		      sizeof(*m->tree));
	if (!retval)
		m->tree[m->ntree++] = b;
	return retval;
}

static int bi_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		 blk64_t ref_blk, int ref_offset, void *priv)
{
	struct imap *m = priv;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	m->err = blockcnt < 0 ? add_tree(m, *blocknr) :
		add_run(m, (blk64_t)blockcnt, *blocknr, 1, 0);
	return m->err ? BLOCK_ABORT : 0;
}

static int run_cmp(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

/* The mapping of inode @ino (already read into @inode) in @st. */
static errcode_t get_map(struct ctx *c, struct state *st, ext2_ino_t ino,
			 struct ext2_inode *inode, struct imap *m)
{
	ext2_filsys fs = st->fs;
	errcode_t retval = 0;
	blk64_t itb;
	size_t i;

	m->n = m->ntree = 0;
	m->err = 0;
	itb = itable_block_of(fs, ino);
	m->lost = is_unknown(c, st, itb);
	if ((inode->i_flags & EXT4_INLINE_DATA_FL) ||
	    !ext2fs_inode_has_valid_blocks2(fs, inode))
		return 0;
	if (inode->i_flags & EXT4_EXTENTS_FL) {
		ext2_extent_handle_t h;
		struct ext2fs_extent e;

		retval = ext2fs_extent_open2(fs, ino, inode, &h);
		if (retval)
			return retval;
		retval = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e);
		while (!retval) {
			if (e.e_flags & EXT2_EXTENT_FLAGS_LEAF) {
				int uw = !!(e.e_flags &
					    EXT2_EXTENT_FLAGS_UNINIT);

				if (e.e_len && e.e_pblk)
					retval = add_run(m, e.e_lblk, e.e_pblk,
							 e.e_len, uw);
			} else if (!(e.e_flags &
				     EXT2_EXTENT_FLAGS_SECOND_VISIT)) {
				retval = add_tree(m, e.e_pblk);
			}
			if (!retval)
				retval = ext2fs_extent_get(h, EXT2_EXTENT_NEXT,
							   &e);
		}
		ext2fs_extent_free(h);
		if (retval == EXT2_ET_EXTENT_NO_NEXT)
			retval = 0;
	} else {
		retval = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY,
					       NULL, bi_cb, m);
		if (!retval)
			retval = m->err;
	}
	if (retval)
		return retval;
	xsort(m->r, m->n, sizeof(*m->r), run_cmp);
	for (i = 0; i < m->ntree && !m->lost; i++)
		if (is_unknown(c, st, m->tree[i]))
			m->lost = 1;
	return 0;
}

/* The run of @m holding @l, or NULL. */
static const struct run *find_run(const struct imap *m, blk64_t l)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->r[mid].lblk + m->r[mid].len <= l)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->r[lo].lblk <= l)
		return &m->r[lo];
	return NULL;
}

static void imap_free(struct imap *m)
{
	ext2fs_free_mem(&m->r);
	ext2fs_free_mem(&m->tree);
	memset(m, 0, sizeof(*m));
}

/* ---- seen mappings ----------------------------------------------------- */

static int seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->lblk != y->lblk)
		return x->lblk < y->lblk ? -1 : 1;
	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

static int was_seen(struct ctx *c, ext2_ino_t ino, blk64_t l, blk64_t p)
{
	struct seen k = { ino, l, p };

	return c->nseen &&
		bsearch(&k, c->seen, c->nseen, sizeof(k), seen_cmp) != NULL;
}

/* Add this transaction's mappings to the sorted seen set: sort the few
 * pending ones, merge from the end. */
static errcode_t merge_pending(struct ctx *c)
{
	size_t a, b, o;
	errcode_t retval;

	if (!c->npend)
		return 0;
	retval = grow((void **)&c->seen, &c->aseen, c->nseen + c->npend,
		      sizeof(*c->seen));
	if (retval)
		return retval;
	xsort(c->pend, c->npend, sizeof(*c->pend), seen_cmp);
	a = c->nseen;
	b = c->npend;
	o = a + b;
	while (b) {
		if (a && seen_cmp(&c->seen[a - 1], &c->pend[b - 1]) > 0)
			c->seen[--o] = c->seen[--a];
		else
			c->seen[--o] = c->pend[--b];
	}
	c->nseen += c->npend;
	c->npend = 0;
	return 0;
}

/* ---- findings ---------------------------------------------------------- */

/* The checked transaction @tid (the last one if none is). */
static struct e4_order_tx *rep_tx(struct ctx *c, uint32_t tid)
{
	size_t i;

	for (i = c->rep->ntx; i > 0; i--)
		if (c->rep->tx[i - 1].tid == tid)
			return &c->rep->tx[i - 1];
	return &c->rep->tx[c->rep->ntx - 1];
}

static errcode_t add_finding(struct ctx *c,
			     const struct e4_order_finding *given)
{
	struct e4_order_report *rep = c->rep;
	struct e4_order_finding fw = *given;
	const struct e4_order_finding *f = &fw;
	size_t i;
	errcode_t retval;

	/*
	 * data=writeback promises no ordering of data against metadata
	 * (Documentation/filesystems/ext4.rst, "data=writeback"): when the
	 * caller says so explicitly, stale data exposed by a transaction is
	 * a note, not a violation.  In auto mode it stays a violation.
	 */
	if (fw.kind == E4_ORD_STALE && rep->data_mode == E4_DATA_WRITEBACK &&
	    rep->data_mode_src == E4_DMSRC_GIVEN)
		fw.kind = E4_ORD_STALE_PERMITTED;

	/* Extend a recent finding of the same kind when contiguous. */
	for (i = rep->nf; i > c->tx_first_f && i + 4 > rep->nf; i--) {
		struct e4_order_finding *p = &rep->f[i - 1];

		if (p->kind == f->kind && p->has_tid == f->has_tid &&
		    p->tid == f->tid && p->ino == f->ino &&
		    p->prior_lost == f->prior_lost &&
		    p->conversion == f->conversion &&
		    p->unwritten == f->unwritten &&
		    p->metadata == f->metadata &&
		    p->evidence == f->evidence &&
		    p->evid_tid == f->evid_tid &&
		    p->other_ino == f->other_ino &&
		    p->lblk + p->len == f->lblk &&
		    p->pblk + p->len == f->pblk &&
		    (f->kind != E4_ORD_DOUBLE_MAPPED ||
		     p->other_lblk + p->len == f->other_lblk)) {
			p->len += f->len;
			p->stale_units += f->stale_units;
			p->units += f->units;
			goto count;
		}
	}
	retval = grow((void **)&rep->f, &c->af, rep->nf + 1, sizeof(*rep->f));
	if (retval)
		return retval;
	rep->f[rep->nf++] = *f;
	if (f->kind < E4_ORD_NOTE_FIRST)
		rep->violations++;
	else if (f->kind != E4_ORD_MAPPING)
		rep->notes++;
count:
	if (f->kind < E4_ORD_NOTE_FIRST) {
		rep->violation_blocks += f->len;
		if (f->has_tid && rep->ntx)
			rep_tx(c, f->tid)->violations += f->len;
	}
	return 0;
}

/* ---- checking a new segment -------------------------------------------- */

struct seg {
	uint32_t	tid;
	ext2_ino_t	ino;
	blk64_t		lblk, pblk, len;
	int		conversion, prior_lost;
	int		metadata;	/* directory / symlink blocks */
	int		unwritten;	/* new unwritten: listing only */
};

static errcode_t defer(struct ctx *c, const struct seg *s, blk64_t l,
		       blk64_t p, size_t known)
{
	struct deferred *d;
	errcode_t retval;

	retval = grow((void **)&c->dfr, &c->adfr, c->ndfr + 1,
		      sizeof(*c->dfr));
	if (retval)
		return retval;
	d = &c->dfr[c->ndfr++];
	d->tid = s->tid;
	d->ino = s->ino;
	d->lblk = l;
	d->pblk = p;
	d->known = known;
	d->conversion = s->conversion;
	d->prior_lost = s->prior_lost;
	d->metadata = s->metadata;
	return 0;
}

/*
 * Judge one new block (@d, read from @st) against the stamp.  Regular-file
 * data: stale is "stale data exposed"; without a stamp, notes.  Directory
 * and symlink blocks are metadata, journaled in every data mode: their
 * content must come from a logged copy or be current at home, so a stamp
 * is a structural finding (stale-metadata), never "stale data exposed".
 */
static errcode_t judge_data(struct ctx *c, struct state *st,
			    struct e4_order_finding *f, const unsigned char *d)
{
	const struct e4_ovl_ent *e = e4_overlay_lookup(st->ov, f->pblk);
	size_t stale;

	f->evidence = e ? E4_EVID_JOURNAL : E4_EVID_IMAGE;
	f->evid_tid = e ? e->tid : 0;
	stale = e4_stamp_block_stale(d, f->pblk, c->bs);
	f->stale_units = stale;
	f->units = e4_stamp_units(0, c->bs);
	if (stale)
		f->kind = f->metadata ? E4_ORD_STALE_METADATA : E4_ORD_STALE;
	else if (c->rep->stamped || f->metadata)
		return 0;
	else if (e4_block_is_zero(d, c->bs))
		f->kind = E4_ORD_SUSPECT_ZERO;
	else
		f->kind = E4_ORD_UNVERIFIED;
	return add_finding(c, f);
}

/* The deferred data checks whose block is known in @st (its first logged
 * copy is replayed there): judged now, reported at their own tid. */
static errcode_t judge_deferred(struct ctx *c, struct state *st)
{
	struct e4_order_finding f;
	size_t i, m;
	errcode_t retval = 0;

	for (i = 0, m = 0; i < c->ndfr; i++) {
		const struct deferred *d = &c->dfr[i];

		if (d->known != st->k || retval) {
			c->dfr[m++] = *d;
			continue;
		}
		memset(&f, 0, sizeof(f));
		f.has_tid = 1;
		f.tid = d->tid;
		f.ino = d->ino;
		f.lblk = d->lblk;
		f.pblk = d->pblk;
		f.len = 1;
		f.conversion = d->conversion;
		f.prior_lost = d->prior_lost;
		f.metadata = d->metadata;
		retval = io_channel_read_blk64(st->fs->io, d->pblk, 1,
					       c->buf);
		if (!retval)
			retval = judge_data(c, st, &f, c->buf);
	}
	c->ndfr = m;
	return retval;
}

static errcode_t check_segment(struct ctx *c, struct state *st,
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
	f.metadata = s->metadata;
	if (s->unwritten) {	/* listing only: nothing to read yet */
		if (!c->opts->list_mappings)
			return 0;
		f.kind = E4_ORD_MAPPING;
		f.unwritten = 1;
		f.lblk = s->lblk;
		f.pblk = s->pblk;
		f.len = s->len;
		return add_finding(c, &f);
	}
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
			retval = add_finding(c, &f);
			continue;
		}
		if (is_meta(c, p)) {
			f.kind = E4_ORD_INTO_METADATA;
			retval = add_finding(c, &f);
			continue;
		}
		/* Read a chunk of in-fs, non-metadata blocks. */
		for (n = 1; n < CHUNK_BLOCKS && i + n < s->len &&
		     p + n < c->nblocks && !is_meta(c, p + n); n++)
			;
		done = n;
		retval = io_channel_read_blk64(st->fs->io, p, (int)n, c->buf);
		if (retval)
			return retval;
		for (b = 0; b < n && !retval; b++) {
			const struct e4_ovl_ent *e;
			unsigned char *d = c->buf + b * c->bs;
			dgrp_t g = ext2fs_group_of_blk2(st->fs, p + b);
			int unknown = is_unknown(c, st, p + b);

			f.lblk = s->lblk + i + b;
			f.pblk = p + b;
			f.stale_units = f.units = 0;
			used = block_used(st, p + b);
			/* a bitmap the log cannot show proves nothing */
			if (used == 0 && !is_unknown(c, st,
				ext2fs_block_bitmap_loc(st->fs, g))) {
				f.kind = E4_ORD_FREE_IN_BITMAP;
				f.evidence = E4_EVID_NONE;
				f.evid_tid = 0;
				retval = add_finding(c, &f);
				if (retval)
					break;
			}
			if (c->opts->list_mappings) {
				e = e4_overlay_lookup(st->ov, p + b);
				f.kind = E4_ORD_MAPPING;
				f.evidence = unknown ? E4_EVID_NONE :
					e ? E4_EVID_JOURNAL : E4_EVID_IMAGE;
				f.evid_tid = e ? e->tid : 0;
				f.units = e4_stamp_units(0, c->bs);
				f.stale_units = unknown ? 0 :
					e4_stamp_block_stale(d, p + b, c->bs);
				retval = add_finding(c, &f);
				if (retval)
					break;
				f.stale_units = f.units = 0;
			}
			if (unknown) {	/* content supplied later: not judged */
				rep_tx(c, s->tid)->not_judged++;
				retval = defer(c, s, f.lblk, f.pblk,
					       first_logged(c, p + b));
				continue;
			}
			retval = judge_data(c, st, &f, d);
		}
	}
	return retval;
}

static errcode_t push_pending(struct ctx *c, ext2_ino_t ino, blk64_t l,
			      blk64_t p)
{
	errcode_t retval;

	retval = grow((void **)&c->pend, &c->apend, c->npend + 1,
		      sizeof(*c->pend));
	if (retval)
		return retval;
	c->pend[c->npend].ino = ino;
	c->pend[c->npend].lblk = l;
	c->pend[c->npend++].pblk = p;
	return 0;
}

/* Diff the mappings @a (S_k) and @p (S_(k-1)) of @ino for Tk. */
static errcode_t diff_inode(struct ctx *c, struct state *cur,
			    struct e4_order_tx *tx, ext2_ino_t ino, int metadata,
			    const struct imap *a, const struct imap *p)
{
	struct seg s;
	size_t i;
	blk64_t b;
	errcode_t retval = 0;

	memset(&s, 0, sizeof(s));
	s.tid = tx->tid;
	s.ino = ino;
	s.metadata = metadata;
	for (i = 0; i < a->n && !retval; i++) {
		const struct run *r = &a->r[i];

		for (b = 0; b < r->len && !retval; b++) {
			blk64_t l = r->lblk + b, pb = r->pblk + b;
			const struct run *q = find_run(p, l);
			int same = q && q->pblk + (l - q->lblk) == pb;
			int conv = 0, lost = p->lost, uw = r->unwritten;

			/*
			 * Unchanged in the S_(k-1) that was read: not new,
			 * unless that read went through an unknown block, in
			 * which case it is new in tid k or earlier (prior
			 * state lost), reported once (the seen set) --
			 * unwritten mappings as well as initialized ones.
			 */
			if (same && (uw || !q->unwritten)) {
				if (!lost || was_seen(c, ino, l, pb))
					continue;
			} else if (same) {
				conv = 1;
			} else if (lost && was_seen(c, ino, l, pb)) {
				continue;
			}
			if (uw)
				tx->new_unwritten++;
			else if (conv)
				tx->conversions++;
			else
				tx->new_alloc++;
			if (lost) {
				tx->prior_lost++;
				if (uw)
					tx->prior_lost_unwritten++;
				else if (conv)
					tx->prior_lost_conv++;
				else
					tx->prior_lost_alloc++;
			}
			retval = push_pending(c, ino, l, pb);
			if (retval)
				break;
			if (s.len && s.lblk + s.len == l &&
			    s.pblk + s.len == pb && s.conversion == conv &&
			    s.prior_lost == lost && s.unwritten == uw) {
				s.len++;
				continue;
			}
			if (s.len)
				retval = check_segment(c, cur, &s);
			s.lblk = l;
			s.pblk = pb;
			s.len = 1;
			s.conversion = conv;
			s.prior_lost = lost;
			s.unwritten = uw;
		}
	}
	if (!retval && s.len)
		retval = check_segment(c, cur, &s);
	return retval;
}

/* ---- per transaction --------------------------------------------------- */

static int ino_cmp(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

static errcode_t add_touched(struct ctx *c, ext2_ino_t ino)
{
	errcode_t retval;

	retval = grow((void **)&c->touched, &c->atouched, c->ntouched + 1,
		      sizeof(*c->touched));
	if (!retval)
		c->touched[c->ntouched++] = ino;
	return retval;
}

static errcode_t add_pruns(struct ctx *c, ext2_ino_t ino, int regular,
			   const struct imap *m)
{
	size_t i;
	errcode_t retval;

	retval = grow((void **)&c->pr, &c->apr, c->npr + m->n, sizeof(*c->pr));
	if (retval)
		return retval;
	for (i = 0; i < m->n; i++) {
		struct prun *p = &c->pr[c->npr++];

		p->pblk = m->r[i].pblk;
		p->len = m->r[i].len;
		p->lblk = m->r[i].lblk;
		p->ino = ino;
		p->unwritten = m->r[i].unwritten;
		p->regular = regular;
	}
	return 0;
}

/* Inode @ino live in S_(k-1) and S_k with another i_generation: a reuse
 * note (paths resolved with the tx's findings); @lost: S_(k-1)'s copy was
 * read through an unknown block (the old identity may be older). */
static errcode_t note_reuse(struct ctx *c, struct e4_order_tx *tx,
			    ext2_ino_t ino, uint32_t old_gen, uint32_t new_gen,
			    int lost)
{
	struct e4_order_finding f;

	memset(&f, 0, sizeof(f));
	f.kind = E4_ORD_INODE_REUSED;
	f.has_tid = 1;
	f.tid = tx->tid;
	f.ino = ino;
	f.old_gen = old_gen;
	f.new_gen = new_gen;
	f.prior_lost = lost;
	tx->reused++;
	return add_finding(c, &f);
}

/* Process one touched inode of Tk. */
static errcode_t do_inode(struct ctx *c, struct state *prev,
			  struct state *cur, struct e4_order_tx *tx,
			  ext2_ino_t ino, struct imap *a, struct imap *p,
			  blk64_t *cand, size_t ncand, int *explained)
{
	struct ext2_inode *inode = (struct ext2_inode *)c->ibuf;
	int regular, exempt, metadata;
	uint32_t gen;
	size_t i;
	errcode_t retval;

	if (!ino_checked(cur->fs, ino) || !read_live(c, cur, ino))
		return 0;
	regular = LINUX_S_ISREG(inode->i_mode);
	metadata = LINUX_S_ISDIR(inode->i_mode) ||
		LINUX_S_ISLNK(inode->i_mode);
	gen = inode->i_generation;
	exempt = ino_exempt(cur->fs, ino, inode);
	if (get_map(c, cur, ino, inode, a))
		return 0;	/* unreadable in S_k: nothing to diff */
	tx->touched++;
	for (i = 0; i < a->ntree; i++)
		if (in_sorted(cand, ncand, a->tree[i]))
			explained[(blk64_t *)bsearch(&a->tree[i], cand, ncand,
						     sizeof(*cand), blk_cmp) -
				  cand] = 1;
	p->n = p->ntree = 0;
	if (read_live(c, prev, ino)) {
		if (inode->i_generation != gen) {
			/* identity is (ino, i_generation): a new file */
			retval = note_reuse(c, tx, ino, inode->i_generation,
					    gen, get_map(c, prev, ino, inode,
							 p) ? 1 : p->lost);
			if (retval)
				return retval;
			p->n = p->ntree = 0;
			p->lost = 0;
		} else if (get_map(c, prev, ino, inode, p)) {
			p->n = 0;
			p->lost = 1;
		}
	} else {
		blk64_t itb = itable_block_of(prev->fs, ino);
		ext2_ino_t ipg = prev->fs->super->s_inodes_per_group;

		/* free in S_(k-1), or its inode or bitmap block unknown */
		p->lost = is_unknown(c, prev, itb) ||
			is_unknown(c, prev, ext2fs_inode_bitmap_loc(prev->fs,
							(ino - 1) / ipg));
	}
	retval = add_pruns(c, ino, regular && !exempt, a);
	if (retval)
		return retval;
	return diff_inode(c, cur, tx, ino, metadata, a, p);
}

static int prun_cmp(const void *a, const void *b)
{
	const struct prun *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* Visit every prun containing pblk @b: callback returns an errcode. */
static errcode_t prun_each(struct ctx *c, blk64_t b,
			   errcode_t (*fn)(struct ctx *, const struct prun *,
					   blk64_t, void *), void *arg)
{
	size_t lo = 0, hi = c->npr;
	errcode_t retval;

	while (lo < hi) {	/* first run with pblk > b */
		size_t mid = lo + (hi - lo) / 2;

		if (c->pr[mid].pblk <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && c->prmax[lo - 1] > b) {
		const struct prun *r = &c->pr[--lo];

		if (r->pblk <= b && b < r->pblk + r->len) {
			retval = fn(c, r, b, arg);
			if (retval)
				return retval;
		}
	}
	return 0;
}

struct dm_arg {
	const struct seen	*s;
	uint32_t		tid;
};

static errcode_t dm_fn(struct ctx *c, const struct prun *r, blk64_t b,
		       void *arg)
{
	struct dm_arg *d = arg;
	struct e4_order_finding f;
	blk64_t l = r->lblk + (b - r->pblk);

	if (r->ino == d->s->ino && l == d->s->lblk)
		return 0;	/* itself */
	memset(&f, 0, sizeof(f));
	f.kind = E4_ORD_DOUBLE_MAPPED;
	f.has_tid = 1;
	f.tid = d->tid;
	f.ino = d->s->ino;
	f.lblk = d->s->lblk;
	f.pblk = b;
	f.len = 1;
	f.other_ino = r->ino;
	f.other_lblk = l;
	return add_finding(c, &f);
}

struct dj_arg {
	uint32_t	tid;
	int		found;
};

static errcode_t dj_fn(struct ctx *c, const struct prun *r, blk64_t b,
		       void *arg)
{
	struct dj_arg *d = arg;
	struct e4_order_finding f;

	if (!r->regular || r->unwritten)
		return 0;
	d->found = 1;
	c->data_journaled++;
	if (!c->mode_explicit)
		return 0;
	memset(&f, 0, sizeof(f));
	f.kind = E4_ORD_DATA_JOURNALED;
	f.has_tid = 1;
	f.tid = d->tid;
	f.ino = r->ino;
	f.lblk = r->lblk + (b - r->pblk);
	f.pblk = b;
	f.len = 1;
	f.evidence = E4_EVID_JOURNAL;
	f.evid_tid = d->tid;
	return add_finding(c, &f);
}

/* Structural checks over the touched inodes' mappings in S_k. */
static errcode_t cross_checks(struct ctx *c, const struct e4_jtrans *tr,
			      struct e4_order_tx *tx, size_t pend_from)
{
	size_t i;
	errcode_t retval;
	blk64_t *tags = NULL;
	size_t nt = 0;

	if (!c->npr)
		return 0;
	xsort(c->pr, c->npr, sizeof(*c->pr), prun_cmp);
	retval = ext2fs_get_array(c->npr, sizeof(*c->prmax), &c->prmax);
	if (retval)
		return retval;
	for (i = 0; i < c->npr; i++) {
		blk64_t e = c->pr[i].pblk + c->pr[i].len;

		c->prmax[i] = (i && c->prmax[i - 1] > e) ? c->prmax[i - 1] : e;
	}
	for (i = pend_from; i < c->npend && !retval; i++) {
		struct dm_arg d = { &c->pend[i], tx->tid };

		retval = prun_each(c, c->pend[i].pblk, dm_fn, &d);
	}
	if (!retval && tr->ntags) {
		retval = ext2fs_get_array(tr->ntags, sizeof(*tags), &tags);
		for (i = 0; !retval && i < tr->ntags; i++)
			if (tr->tags[i].csum_ok != 0)
				tags[nt++] = tr->tags[i].fsblk;
		if (!retval)
			xsort(tags, nt, sizeof(*tags), blk_cmp);
		for (i = 0; !retval && i < nt; i++) {
			struct dj_arg d = { tx->tid, 0 };

			if (i && tags[i] == tags[i - 1])
				continue;
			retval = prun_each(c, tags[i], dj_fn, &d);
		}
	}
	ext2fs_free_mem(&tags);
	ext2fs_free_mem(&c->prmax);
	return retval;
}

/* Live inodes of @st outside c->touched whose tree holds a block of
 * @left: the owners of journaled extent-tree / indirect blocks. */
static errcode_t find_owners(struct ctx *c, struct state *prev,
			     struct state *cur, struct e4_order_tx *tx,
			     blk64_t *left, size_t nleft, struct imap *a,
			     struct imap *p)
{
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct ext2_inode *inode;
	unsigned int isz = EXT2_INODE_SIZE(cur->fs->super);
	errcode_t retval;
	size_t i;
	int *expl = NULL;

	retval = ext2fs_get_memzero(isz, &inode);
	if (retval)
		return retval;
	retval = ext2fs_get_memzero(nleft * sizeof(int), &expl);
	if (retval)
		goto out;
	retval = ext2fs_open_inode_scan(cur->fs, 0, &scan);
	if (retval)
		goto out;
	while (!ext2fs_get_next_inode_full(scan, &ino, inode, isz) && ino) {
		int hit = 0;

		if (!inode->i_links_count || !ino_checked(cur->fs, ino) ||
		    (c->ntouched && bsearch(&ino, c->touched, c->ntouched,
					    sizeof(ino), ino_cmp)))
			continue;
		if (!(inode->i_flags & EXT4_EXTENTS_FL) &&
		    !inode->i_block[EXT2_IND_BLOCK] &&
		    !inode->i_block[EXT2_DIND_BLOCK] &&
		    !inode->i_block[EXT2_TIND_BLOCK])
			continue;
		if (get_map(c, cur, ino, inode, a))
			continue;
		for (i = 0; i < a->ntree && !hit; i++)
			hit = in_sorted(left, nleft, a->tree[i]);
		if (!hit)
			continue;
		retval = do_inode(c, prev, cur, tx, ino, a, p, left, nleft,
				  expl);
		if (retval)
			break;
	}
	ext2fs_close_inode_scan(scan);
out:
	ext2fs_free_mem(&expl);
	ext2fs_free_mem(&inode);
	return retval;
}

/* ---- paths -------------------------------------------------------------- */

struct path_ctx {
	struct ctx	*c;
	ext2_filsys	fs;
	ext2_ino_t	dir;
	size_t		from;
	int		old;	/* name the reuse notes' old identity */
};

/* Findings that get a path: violations, reuse and writeback notes. */
static int wants_path(const struct e4_order_finding *f, int old)
{
	if (old)
		return f->kind == E4_ORD_INODE_REUSED && !f->old_path;
	return !f->path && (f->kind < E4_ORD_NOTE_FIRST ||
			    f->kind == E4_ORD_INODE_REUSED ||
			    f->kind == E4_ORD_NOT_JUDGED ||
			    f->kind == E4_ORD_STALE_PERMITTED);
}

static int path_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
		   int offset, int blocksize, char *buf, void *priv)
{
	struct path_ctx *pc = priv;
	struct e4_order_report *rep = pc->c->rep;
	int len = ext2fs_dirent_name_len(dirent);
	char *dname = NULL, *path;
	size_t i;

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (!dirent->inode || (len == 1 && dirent->name[0] == '.') ||
	    (len == 2 && dirent->name[0] == '.' && dirent->name[1] == '.'))
		return 0;
	for (i = pc->from; i < rep->nf; i++) {
		struct e4_order_finding *f = &rep->f[i];

		if (f->ino != dirent->inode || !wants_path(f, pc->old))
			continue;
		if (!dname && ext2fs_get_pathname(pc->fs, pc->dir, 0, &dname))
			return 0;
		if (ext2fs_get_mem(strlen(dname) + len + 2, &path))
			break;
		sprintf(path, "%s%s%.*s", dname,
			strcmp(dname, "/") ? "/" : "", len, dirent->name);
		if (pc->old)
			f->old_path = path;
		else
			f->path = path;
	}
	ext2fs_free_mem(&dname);
	return 0;
}

/* Name the inodes of findings[from..) in @fs (one pass over directories);
 * @old: the old identities of reuse notes. */
static void resolve_paths(struct ctx *c, ext2_filsys fs, size_t from,
			  int old)
{
	struct path_ctx pc = { c, fs, 0, from, old };
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct ext2_inode inode;
	size_t i;
	int need = 0;

	for (i = from; i < c->rep->nf; i++)
		if (wants_path(&c->rep->f[i], old))
			need = 1;
	if (!need || ext2fs_open_inode_scan(fs, 0, &scan))
		return;
	while (!ext2fs_get_next_inode(scan, &ino, &inode) && ino) {
		if (!inode.i_links_count || !LINUX_S_ISDIR(inode.i_mode) ||
		    (inode.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		pc.dir = ino;
		ext2fs_dir_iterate2(fs, ino, 0, NULL, path_cb, &pc);
	}
	ext2fs_close_inode_scan(scan);
}

/* ---- stamp detection and the outside-window check ---------------------- */

static int detect_stamp(struct ctx *c, struct state *st)
{
	ext2_filsys fs = st->fs;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t first = ext2fs_group_first_block2(fs, g);
		blk64_t last = ext2fs_group_last_block2(fs, g), b;
		int tried = 0;
		blk64_t step = (last - first) / 61 + 1;

		for (b = first; b <= last && tried < 64; b += step) {
			if (is_meta(c, b) || block_used(st, b) != 0)
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

static errcode_t check_outside(struct ctx *c, struct state *st)
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
		int metadata;

		if (!inode->i_links_count || !ino_checked(fs, ino) ||
		    inode_used(st, ino) != 1)
			continue;
		metadata = LINUX_S_ISDIR(inode->i_mode) ||
			LINUX_S_ISLNK(inode->i_mode);
		if (get_map(c, st, ino, inode, &m))
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

					/* with --upto, S_N may still have
					 * blocks a later tid supplies */
					if (!s || was_seen(c, ino, l, p) ||
					    is_unknown(c, st, p))
						continue;
					memset(&f, 0, sizeof(f));
					f.kind = metadata ?
						E4_ORD_STALE_METADATA :
						E4_ORD_STALE_OUTSIDE;
					f.metadata = metadata;
					f.ino = ino;
					f.lblk = l;
					f.pblk = p;
					f.len = 1;
					f.evidence = e4_overlay_lookup(st->ov,
								       p) ?
						E4_EVID_JOURNAL : E4_EVID_IMAGE;
					f.stale_units = s;
					f.units = e4_stamp_units(0, c->bs);
					retval = add_finding(c, &f);
					if (retval)
						goto out;
				}
			}
		}
	}
	c->rep->outside_checked = 1;
	resolve_paths(c, fs, from, 0);
out:
	ext2fs_close_inode_scan(scan);
	imap_free(&m);
	ext2fs_free_mem(&inode);
	return retval;
}

/* ---- the check ---------------------------------------------------------- */

static errcode_t check_tx(struct ctx *c, struct state *prev,
			  struct state *cur, const struct e4_jtrans *tr,
			  struct e4_order_tx *tx)
{
	blk64_t *cand = NULL, *left = NULL;
	int *expl = NULL;
	size_t ncand = 0, nleft = 0, i, pend_from = c->npend;
	unsigned int ipb = c->bs / EXT2_INODE_SIZE(cur->fs->super);
	struct imap a, p;
	errcode_t retval = 0;

	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	c->ntouched = 0;
	c->npr = 0;
	if (tr->ntags) {
		retval = ext2fs_get_array(tr->ntags, sizeof(*cand), &cand);
		if (retval)
			return retval;
	}
	for (i = 0; i < tr->ntags && !retval; i++) {
		blk64_t b = tr->tags[i].fsblk;
		ext2_ino_t first;
		unsigned int x;

		if (tr->tags[i].csum_ok == 0 || b >= c->nblocks)
			continue;
		if (is_ahead(c, b))	/* tags of one transaction are unique */
			tx->ahead++;
		first = itable_first_ino(cur->fs, b);
		if (first) {
			for (x = 0; x < ipb && !retval; x++)
				if (first + x <= cur->fs->super->s_inodes_count)
					retval = add_touched(c, first + x);
			continue;
		}
		if (!is_meta(c, b))
			cand[ncand++] = b;
	}
	if (retval)
		goto out;
	xsort(cand, ncand, sizeof(*cand), blk_cmp);
	for (i = 0, nleft = 0; i < ncand; i++)	/* unique */
		if (!nleft || cand[nleft - 1] != cand[i])
			cand[nleft++] = cand[i];
	ncand = nleft;
	xsort(c->touched, c->ntouched, sizeof(*c->touched), ino_cmp);
	for (i = 0, nleft = 0; i < c->ntouched; i++)
		if (!nleft || c->touched[nleft - 1] != c->touched[i])
			c->touched[nleft++] = c->touched[i];
	c->ntouched = nleft;
	retval = ext2fs_get_memzero((ncand + 1) * sizeof(int), &expl);
	if (retval)
		goto out;
	for (i = 0; i < c->ntouched && !retval; i++)
		retval = do_inode(c, prev, cur, tx, c->touched[i], &a, &p,
				  cand, ncand, expl);
	if (retval)
		goto out;
	/* Journaled blocks nobody touched explains: extent-tree blocks, or
	 * on block-mapped file systems possibly indirect blocks. */
	if (ncand) {
		retval = ext2fs_get_array(ncand, sizeof(*left), &left);
		if (retval)
			goto out;
	}
	for (i = 0, nleft = 0; i < ncand; i++) {
		if (expl[i])
			continue;
		if (ext2fs_has_feature_extents(cur->fs->super)) {
			if (io_channel_read_blk64(cur->fs->io, cand[i], 1,
						  c->buf) ||
			    e4_le16(c->buf) != EXT3_EXT_MAGIC)
				continue;
		}
		left[nleft++] = cand[i];
	}
	if (nleft)
		retval = find_owners(c, prev, cur, tx, left, nleft, &a, &p);
	if (!retval)
		retval = cross_checks(c, tr, tx, pend_from);
	if (!retval) {
		resolve_paths(c, cur->fs, c->tx_first_f, 0);
		resolve_paths(c, prev->fs, c->tx_first_f, 1);
	}
out:
	imap_free(&a);
	imap_free(&p);
	ext2fs_free_mem(&cand);
	ext2fs_free_mem(&left);
	ext2fs_free_mem(&expl);
	return retval;
}

struct fkey {
	size_t	cls, pos, idx;
};

static int fkey_cmp(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Findings in log order of their tid, stably (deferred judgements are
 * made after their own tid); those outside the window last. */
static errcode_t sort_findings(struct ctx *c)
{
	struct e4_order_report *rep = c->rep;
	struct e4_order_finding *f;
	struct fkey *k;
	size_t i, t = 0;
	errcode_t retval;

	if (rep->nf < 2)
		return 0;
	retval = ext2fs_get_array(rep->nf, sizeof(*k), &k);
	if (retval)
		return retval;
	retval = ext2fs_get_array(rep->nf, sizeof(*f), &f);
	if (retval) {
		ext2fs_free_mem(&k);
		return retval;
	}
	for (i = 0; i < rep->nf; i++) {
		k[i].idx = i;
		k[i].cls = !rep->f[i].has_tid;
		k[i].pos = 0;
		if (!rep->f[i].has_tid)
			continue;
		if (t >= rep->ntx || rep->tx[t].tid != rep->f[i].tid)
			for (t = 0; t < rep->ntx &&
			     rep->tx[t].tid != rep->f[i].tid; t++)
				;
		k[i].pos = t;
	}
	xsort(k, rep->nf, sizeof(*k), fkey_cmp);
	for (i = 0; i < rep->nf; i++)
		f[i] = rep->f[k[i].idx];
	memcpy(rep->f, f, rep->nf * sizeof(*f));
	ext2fs_free_mem(&f);
	ext2fs_free_mem(&k);
	return 0;
}

static void ctx_free(struct ctx *c)
{
	ext2fs_free_mem(&c->meta);
	ext2fs_free_mem(&c->map);
	ext2fs_free_mem(&c->ahead);
	ext2fs_free_mem(&c->flog);
	ext2fs_free_mem(&c->dfr);
	ext2fs_free_mem(&c->seen);
	ext2fs_free_mem(&c->pend);
	ext2fs_free_mem(&c->pr);
	ext2fs_free_mem(&c->prmax);
	ext2fs_free_mem(&c->touched);
	ext2fs_free_mem(&c->buf);
	ext2fs_free_mem(&c->ibuf);
}

void e4_order_report_free(struct e4_order_report *rep)
{
	size_t i;

	if (!rep)
		return;
	for (i = 0; i < rep->nf; i++) {
		ext2fs_free_mem(&rep->f[i].path);
		ext2fs_free_mem(&rep->f[i].old_path);
	}
	ext2fs_free_mem(&rep->f);
	ext2fs_free_mem(&rep->tx);
	ext2fs_free_mem(&rep);
}

errcode_t e4_order_check(ext2_filsys fs, e4_journal_t j, const char *image,
			 const struct e4_jscan *scan,
			 const struct e4_order_opts *opts,
			 struct e4_order_report **ret)
{
	struct ctx c;
	struct e4_order_report *rep = NULL;
	struct state prev, cur;
	size_t n, k;
	errcode_t retval;
	unsigned int defm;

	*ret = NULL;
	memset(&c, 0, sizeof(c));
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	if (ext2fs_has_feature_bigalloc(fs->super))
		return E4_ERR_BIGALLOC;
	c.fs0 = fs;
	c.j = j;
	c.image = image;
	c.scan = scan;
	c.opts = opts;
	c.bs = fs->blocksize;
	c.nblocks = ext2fs_blocks_count(fs->super);
	retval = ext2fs_get_memzero(sizeof(*rep), &rep);
	if (retval)
		return retval;
	c.rep = rep;
	retval = ext2fs_get_mem((size_t)c.bs * CHUNK_BLOCKS, &c.buf);
	if (!retval)
		retval = ext2fs_get_memzero(EXT2_INODE_SIZE(fs->super) +
					    sizeof(struct ext2_inode_large),
					    &c.ibuf);
	if (retval)
		goto out;

	/* Transactions to check. */
	n = scan->ncommitted;
	if (opts->has_upto) {
		for (n = 0; n < scan->ncommitted &&
		     e4_tid_geq(opts->upto, scan->trans[n].tid); n++)
			;
		if (!n || scan->trans[n - 1].tid != opts->upto) {
			retval = E4_ERR_UPTO_NOT_FOUND;
			goto out;
		}
	}
	rep->journal_corrupt = scan->corrupt;
	if (j->jsb.feature_incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		rep->fc_blocks = e4_jsb_fc_blocks(j->sb);
		warn(rep, "fast-commit area (%u blocks, %u holding tags) not "
		     "checked", rep->fc_blocks, scan->fc_blocks_used);
	}
	if (scan->fail)
		warn(rep, "the kernel's recovery of this journal fails (%s): "
		     "it replays nothing", error_message(scan->fail));
	if (scan->corrupt)
		warn(rep, "journal corruption: the scan stopped (%s at "
		     "jblock %llu); checked what was committed",
		     e4_scan_stop_name(scan->stop),
		     (unsigned long long)scan->stop_jblk);

	/* Data mode. */
	defm = fs->super->s_default_mount_opts & EXT3_DEFM_JMODE;
	rep->data_mode = opts->data_mode;
	rep->data_mode_src = E4_DMSRC_GIVEN;
	if (opts->data_mode == E4_DATA_AUTO) {
		rep->data_mode_src = E4_DMSRC_DEFAULT_OPTS;
		if (defm == EXT3_DEFM_JMODE_DATA)
			rep->data_mode = E4_DATA_JOURNAL;
		else if (defm == EXT3_DEFM_JMODE_ORDERED)
			rep->data_mode = E4_DATA_ORDERED;
		else if (defm == EXT3_DEFM_JMODE_WBACK)
			rep->data_mode = E4_DATA_WRITEBACK;
		else
			rep->data_mode_src = E4_DMSRC_ASSUMED;
	}
	c.mode_explicit = rep->data_mode == E4_DATA_ORDERED ||
		rep->data_mode == E4_DATA_WRITEBACK;

	rep->log_from_start = scan->start_tid <= 2 &&
		scan->start_jblk == scan->log_first;
	rep->kernel_refuses = scan->fail != 0;
	rep->upto = opts->has_upto && n < scan->ncommitted;
	retval = build_meta(&c);
	if (!retval)
		retval = find_ahead(&c);
	if (!retval)
		retval = build_flog(&c);
	if (retval)
		goto out;
	if (n) {
		retval = ext2fs_get_array(n, sizeof(*rep->tx), &rep->tx);
		if (retval)
			goto out;
	}

	retval = state_open(&c, 0, &prev);
	if (retval)
		goto out;	/* the image itself is unreadable */
	rep->stamped = opts->stamped >= 0 ? opts->stamped :
		detect_stamp(&c, &prev);

	for (k = 1; k <= n; k++) {
		const struct e4_jtrans *tr = &scan->trans[k - 1];
		struct e4_order_tx *tx = &rep->tx[rep->ntx++];
		errcode_t err;

		memset(tx, 0, sizeof(*tx));
		tx->tid = tr->tid;
		tx->commit_sec = tr->commit_sec;
		tx->commit_nsec = tr->commit_nsec;
		tx->jblocks = tr->ntags;
		tx->revokes = tr->nrevokes;
		c.tx_first_f = rep->nf;
		err = state_open(&c, k, &cur);
		if (err) {
			tx->unreadable = 1;
			warn(rep, "state after tid %u unreadable (%s): not "
			     "checked", tr->tid, error_message(err));
			continue;
		}
		rep->last_tid = tr->tid;
		retval = judge_deferred(&c, &cur);
		if (!retval)
			retval = check_tx(&c, &prev, &cur, tr, tx);
		if (!retval)
			retval = merge_pending(&c);
		if (retval)
			goto out;
		state_close(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	if (rep->data_mode == E4_DATA_AUTO)
		rep->data_mode = c.data_journaled ? E4_DATA_JOURNAL :
			E4_DATA_ORDERED;
	if (rep->data_mode_src == E4_DMSRC_ASSUMED && c.data_journaled)
		rep->data_mode_src = E4_DMSRC_INFERRED;

	/* --upto: data supplied only after the last checked state */
	for (k = 0; k < c.ndfr && !retval; k++) {
		struct e4_order_finding f;

		memset(&f, 0, sizeof(f));
		f.kind = E4_ORD_NOT_JUDGED;
		f.has_tid = 1;
		f.tid = c.dfr[k].tid;
		f.ino = c.dfr[k].ino;
		f.lblk = c.dfr[k].lblk;
		f.pblk = c.dfr[k].pblk;
		f.len = 1;
		f.conversion = c.dfr[k].conversion;
		f.prior_lost = c.dfr[k].prior_lost;
		f.metadata = c.dfr[k].metadata;
		f.evid_tid = scan->trans[c.dfr[k].known - 1].tid;
		c.tx_first_f = 0;
		retval = add_finding(&c, &f);
	}
	if (retval)
		goto out;
	if (c.ndfr)
		resolve_paths(&c, prev.fs, rep->nf - c.ndfr, 0);
	if (opts->outside > 0 || (opts->outside < 0 && rep->stamped))
		retval = check_outside(&c, &prev);
	if (!retval)
		retval = sort_findings(&c);
out:
	state_close(&prev);
	state_close(&cur);
	ctx_free(&c);
	if (retval) {
		e4_order_report_free(rep);
		return retval;
	}
	*ret = rep;
	return 0;
}
