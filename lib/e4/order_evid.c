/*
 * order_evid.c --- the ordering check's evidence about data: ahead blocks
 * (the image already holds a journaled copy), unknown blocks (logged only
 * later: ahead or behind, issue 13) and the checks deferred until their
 * block is known, what a newly reachable
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
	int		hashed;		/* hash from the scan: not read */
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
 * A block is ahead when its image copy equals one of its journaled copies
 * in the window (committed transactions).  Copies and image blocks are
 * read in large sorted chunks and compared by a 64-bit hash.
 */
errcode_t ord_find_ahead(struct ctx *c)
{
	const struct e4_jscan *s = c->scan;
	struct acopy *a = NULL;
	size_t n = 0, na = 0, i, t, g, aa = 0, unhashed = 0;
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
			a[n].hash = tg->hash;
			a[n].hashed = tg->hashed;	/* by the scan */
			unhashed += !tg->hashed;
			n++;
		}
	/* Hash the copies the scan did not, reading runs of the journal. */
	if (unhashed)
		xsort(a, n, sizeof(*a), acopy_src_cmp);
	for (i = 0; i < n && unhashed; i = g) {
		if (a[i].hashed) {
			g = i + 1;
			continue;
		}
		for (g = i + 1; g < n && g - i < CHUNK_BLOCKS &&
		     !a[g].hashed && a[g].src == a[g - 1].src + 1; g++)
			;
		/* an unread copy or image block leaves "ahead" unknown:
		 * the check fails rather than miss it */
		retval = io_channel_read_blk64(c->j->io, a[i].src,
					       (int)(g - i), c->buf);
		if (retval)
			goto out;
		for (t = i; t < g; t++) {
			unsigned char *b = c->buf + (t - i) * c->bs;

			a[t].hash = e4_jblock_hash(b, c->bs,
					a[t].flags & JBD2_FLAG_ESCAPE);
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
			uint64_t h = e4_jblock_hash(c->buf +
					(b - first) * c->bs, c->bs, 0);
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

static int flog_cmp(const void *a, const void *b)
{
	const struct firstlog *x = a, *y = b;

	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

size_t ord_first_logged(struct ctx *c, blk64_t b)
{
	size_t lo = 0, hi = c->nflog;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->flog[mid].b < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nflog && c->flog[lo].b == b ? c->flog[lo].k : 0;
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
int ord_is_unknown(struct ctx *c, const struct state *st, blk64_t b)
{
	size_t f = ord_first_logged(c, b);

	if (!f || f <= st->k)
		return 0;
	return c->rep->log_from_start ? ord_is_ahead(c, b) : 1;
}

/*
 * A mapping that does not parse in @st because a block it is read through
 * has unknown content there (logged only later: its content at S_k is not
 * in the image, issue 13): explained by that rule, not a failed read.
 */
int ord_map_unknown(struct ctx *c, const struct state *st,
		    const struct imap *m)
{
	size_t i;

	if (m->lost)
		return 1;
	for (i = 0; i < m->ntree; i++)
		if (ord_is_unknown(c, st, m->tree[i]))
			return 1;
	return 0;
}

/* Every block the committed transactions log, with the first of them
 * (the tags the states serve: checksum not failed, inside the fs). */
errcode_t ord_build_flog(struct ctx *c)
{
	const struct e4_jscan *s = c->scan;
	size_t i, t, n = 0, m;
	errcode_t retval;

	for (i = 0; i < c->plan->ntx; i++)
		n += s->trans[i].ntags;
	if (!n)
		return 0;
	retval = ext2fs_get_array(n, sizeof(*c->flog), &c->flog);
	if (retval)
		return retval;
	for (i = 0; i < c->plan->ntx; i++)
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
	for (i = 0; i < c->nflog; i++)	/* unknown in some S_k, k < n */
		if (c->flog[i].k > 1 &&
		    (!c->rep->log_from_start || ord_is_ahead(c, c->flog[i].b)))
			c->rep->unknown_blocks++;
	return 0;
}

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
const struct e4_copy *ord_known_copy(const struct state *st, blk64_t b)
{
	const struct e4_copy *e = e4_state_lookup(&st->map, b);

	return e && (e->flags & E4_COPY_FACTS) ? e : NULL;
}

/*
 * Judge the data of f->pblk in @st: its content @d, or, when @d is NULL,
 * what the scan found in the copy @st serves it from (ord_known_copy()).
 */
static errcode_t judge_data(struct ctx *c, struct state *st,
			    struct e4_order_finding *f, const unsigned char *d)
{
	const struct e4_copy *e = e4_state_lookup(&st->map, f->pblk);
	size_t stale;

	f->evidence = e ? E4_EVID_JOURNAL : E4_EVID_IMAGE;
	f->evid_tid = e ? e->tid : 0;
	stale = d ? e4_stamp_block_stale(d, f->pblk, c->bs) :
		E4_COPY_STALE(e->flags);
	f->stale_units = stale;
	f->units = e4_stamp_units(0, c->bs);
	if (stale)
		f->kind = f->metadata ? E4_ORD_STALE_METADATA : E4_ORD_STALE;
	else if (c->rep->stamped || f->metadata)
		return 0;
	else if (d ? e4_block_is_zero(d, c->bs) : !!(e->flags & E4_COPY_ZERO))
		f->kind = E4_ORD_SUSPECT_ZERO;
	else
		f->kind = E4_ORD_UNVERIFIED;
	return ord_add_finding(c, f);
}

/* The deferred checks whose block is known in @st (its first logged copy
 * is replayed there): judged now, reported at their own tid. */
errcode_t ord_judge_deferred(struct ctx *c, struct state *st)
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

errcode_t ord_check_segment(struct ctx *c, struct state *st,
			    const struct seg *s)
{
	struct e4_order_finding f;
	blk64_t i, done;
	errcode_t retval = 0;
	int known;

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
		return ord_add_finding(c, &f);
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
			retval = ord_add_finding(c, &f);
			continue;
		}
		if (ord_is_meta(c, p)) {
			f.kind = E4_ORD_INTO_METADATA;
			retval = ord_add_finding(c, &f);
			continue;
		}
		/* A chunk of in-fs, non-metadata blocks: read, or all
		 * served by copies the scan knows (no read). */
		known = ord_known_copy(st, p) != NULL;
		for (n = 1; n < CHUNK_BLOCKS && i + n < s->len &&
		     p + n < c->nblocks && !ord_is_meta(c, p + n) &&
		     (ord_known_copy(st, p + n) != NULL) == known; n++)
			;
		done = n;
		if (!known) {
			retval = io_channel_read_blk64(st->fs->io, p, (int)n,
						       c->buf);
			if (retval)
				return retval;
		}
		for (b = 0; b < n && !retval; b++) {
			const struct e4_copy *e;
			unsigned char *d = known ? NULL : c->buf + b * c->bs;
			dgrp_t g = ext2fs_group_of_blk2(st->fs, p + b);
			int unknown = ord_is_unknown(c, st, p + b);

			f.lblk = s->lblk + i + b;
			f.pblk = p + b;
			f.stale_units = f.units = 0;
			used = ord_block_used(st, p + b);
			/* a bitmap the log cannot show proves nothing */
			if (used == 0 && !ord_is_unknown(c, st,
				ext2fs_block_bitmap_loc(st->fs, g))) {
				f.kind = E4_ORD_FREE_IN_BITMAP;
				f.evidence = E4_EVID_NONE;
				f.evid_tid = 0;
				retval = ord_add_finding(c, &f);
				if (retval)
					break;
			}
			if (c->opts->list_mappings) {
				e = e4_state_lookup(&st->map, p + b);
				f.kind = E4_ORD_MAPPING;
				f.evidence = unknown ? E4_EVID_NONE :
					e ? E4_EVID_JOURNAL : E4_EVID_IMAGE;
				f.evid_tid = e ? e->tid : 0;
				f.units = e4_stamp_units(0, c->bs);
				f.stale_units = unknown ? 0 : !d ?
					E4_COPY_STALE(e->flags) :
					e4_stamp_block_stale(d, p + b, c->bs);
				retval = ord_add_finding(c, &f);
				if (retval)
					break;
				f.stale_units = f.units = 0;
			}
			if (unknown) {	/* content supplied later: not judged */
				ord_rep_tx(c, s->tid)->not_judged++;
				retval = defer(c, s, f.lblk, f.pblk,
					       ord_first_logged(c, p + b));
				continue;
			}
			retval = judge_data(c, st, &f, d);
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
