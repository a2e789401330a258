/*
 * order_map.c --- the ordering check's mapping diffs: the mapping of an
 * inode in a state (extent tree or block map through libext2fs), the diff
 * of S_(k-1) against S_k that finds new initialized blocks and unwritten
 * -> written conversions, the set of mappings already seen, and the
 * structural checks over the touched inodes' mappings (double mapped
 * blocks, journaled regular-file data).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "order_int.h"

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
errcode_t ord_get_map(struct ctx *c, struct state *st, ext2_ino_t ino,
		      struct ext2_inode *inode, struct imap *m)
{
	ext2_filsys fs = st->fs;
	errcode_t retval = 0;
	blk64_t itb;
	size_t i;

	m->n = m->ntree = 0;
	m->err = 0;
	itb = ord_itable_block_of(fs, ino);
	m->lost = ord_is_unknown(c, st, itb);
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
		if (ord_is_unknown(c, st, m->tree[i]))
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

void ord_imap_free(struct imap *m)
{
	ext2fs_free_mem(&m->r);
	ext2fs_free_mem(&m->tree);
	memset(m, 0, sizeof(*m));
}

static int seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->lblk != y->lblk)
		return x->lblk < y->lblk ? -1 : 1;
	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

int ord_was_seen(struct ctx *c, ext2_ino_t ino, blk64_t l, blk64_t p)
{
	struct seen k = { ino, l, p };

	return c->nseen &&
		bsearch(&k, c->seen, c->nseen, sizeof(k), seen_cmp) != NULL;
}

/* Add this transaction's mappings to the sorted seen set: sort the few
 * pending ones, merge from the end. */
errcode_t ord_merge_pending(struct ctx *c)
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
errcode_t ord_diff_inode(struct ctx *c, struct state *cur,
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
				if (!lost || ord_was_seen(c, ino, l, pb))
					continue;
			} else if (same) {
				conv = 1;
			} else if (lost && ord_was_seen(c, ino, l, pb)) {
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
				retval = ord_check_segment(c, cur, &s);
			s.lblk = l;
			s.pblk = pb;
			s.len = 1;
			s.conversion = conv;
			s.prior_lost = lost;
			s.unwritten = uw;
		}
	}
	if (!retval && s.len)
		retval = ord_check_segment(c, cur, &s);
	return retval;
}

errcode_t ord_add_pruns(struct ctx *c, ext2_ino_t ino, int regular,
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
	return ord_add_finding(c, &f);
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
	return ord_add_finding(c, &f);
}

/* Structural checks over the touched inodes' mappings in S_k. */
errcode_t ord_cross_checks(struct ctx *c, const struct e4_jtrans *tr,
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
