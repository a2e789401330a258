/*
 * wlog_check.c --- alloc-on-commit ordering over a dm-log-writes block
 * write log (e4tools issue 18): the I/O-order rule at every commit write
 * and the state rule at every persistence point.
 *
 * The device at a point is wlog_io.c's; the replayed state of a point is
 * the overlay (overlay_io.c) over it; a transaction's new mappings come
 * from the single-image ordering check (order.c, e4_order_check()) run on
 * the state just before it, with that one transaction as its window.
 * Semantics: jbd2 writes a commit block only after the transaction's log
 * blocks and, in data=ordered, the data of its new mappings; with a
 * volatile write cache it issues REQ_PREFLUSH (and FUA) on the commit
 * block (fs/jbd2/commit.c, journal_submit_commit_record()); ext4 does not
 * reuse a freed block before the transaction freeing it commits
 * (fs/ext4/mballoc.c, ext4_free_blocks() -> the per-transaction free
 * list released in ext4_process_freed_data()).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4_int.h"

/* ---- a small hash: u64 key -> two u64 values ----------------------------- */

struct kv {
	uint64_t	key;		/* key + 1; 0 = empty */
	uint64_t	a, b;
};

struct hmap {
	struct kv	*t;
	uint64_t	mask, n;
};

static uint64_t hmix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static struct kv *hfind(const struct hmap *h, uint64_t key)
{
	uint64_t i;

	if (!h->t)
		return NULL;
	for (i = hmix(key) & h->mask; h->t[i].key; i = (i + 1) & h->mask)
		if (h->t[i].key == key + 1)
			return &h->t[i];
	return NULL;
}

static errcode_t hput(struct hmap *h, uint64_t key, uint64_t a, uint64_t b)
{
	struct kv *e;
	uint64_t i;
	errcode_t retval;

	if (!h->t || (h->n + 1) * 2 > h->mask + 1) {
		struct hmap g = { NULL, h->t ? 2 * (h->mask + 1) - 1 : 1023,
				  0 };

		retval = ext2fs_get_arrayzero(g.mask + 1, sizeof(*g.t), &g.t);
		if (retval)
			return retval;
		for (i = 0; h->t && i <= h->mask; i++)
			if (h->t[i].key) {
				uint64_t j;

				for (j = hmix(h->t[i].key - 1) & g.mask;
				     g.t[j].key; j = (j + 1) & g.mask)
					;
				g.t[j] = h->t[i];
				g.n++;
			}
		ext2fs_free_mem(&h->t);
		*h = g;
	}
	e = hfind(h, key);
	if (!e) {
		for (i = hmix(key) & h->mask; h->t[i].key;
		     i = (i + 1) & h->mask)
			;
		e = &h->t[i];
		e->key = key + 1;
		h->n++;
	}
	e->a = a;
	e->b = b;
	return 0;
}

static void hfree(struct hmap *h)
{
	ext2fs_free_mem(&h->t);
	memset(h, 0, sizeof(*h));
}

/* ---- the context --------------------------------------------------------- */

/* A replayed state: the device at a point, its journal, the plan of its
 * scan (plan.c) and S_k, served by an overlay stacked on dfs->io. */
struct rstate {
	ext2_filsys		dfs;	/* the device's fs (unreplayed) */
	struct e4_replayed	rp;	/* its journal, scan, plan, S_k
					 * (rp.st), the overlay and the fs
					 * of S_k (rp.fs) */
	errcode_t		jerr;	/* journal open error (none: 0) */
	int			borrowed;	/* dfs, rp.j, rp.scan and
					 * rp.plan are another state's */
};

/* A run of new initialized mappings a commit made (attribution). */
struct arun {
	ext2_ino_t	ino;
	uint32_t	gen, tid;
	blk64_t		lblk, pblk, len;
	size_t		next;		/* index + 1 of the inode's previous
					 * run, 0 none */
};

/* Blocks [start, end) last freed by the commit write at entry @entry. */
struct rel {
	blk64_t		start, end;
	int64_t		entry;
};

struct ctx {
	e4_wlog_dev_t		d;
	e4_wlog_t		log;
	const struct e4_wlog_check_opts *o;
	struct e4_wlog_report	*rep;
	size_t			af, apoints, atxns, aunchecked;
	unsigned int		bs;		/* fs block size */
	uint64_t		spb;		/* log sectors per fs block */
	blk64_t			nblocks;
	ext2fs_block_bitmap	base_used;	/* BASE's block bitmap */
	struct arun		*attr;		/* new mappings, commit order */
	size_t			nattr, aattr;
	struct hmap		attr_head;	/* ino -> index + 1 of its
						 * newest run */
	struct rel		*rel;		/* freed runs, by start */
	size_t			nrel, arel;
	int64_t			*flushes;	/* FLUSH entries, sorted */
	size_t			nflushes;
	struct e4_wlog_finding	*pend;		/* I/O-order findings */
	size_t			npend, apend;
	int			journaled;	/* file data seen journaled */
	unsigned char		*buf, *buf2;	/* one fs block each */
	unsigned char		*ibuf;		/* one inode */
	int64_t			last_mark;	/* entry of the last MARK */
	e4_wlog_newblk_fn	nb_fn;		/* e4_wlog_check_newblk() */
	e4_wlog_commit_fn	cm_fn;		/* e4_wlog_check_hooks() */
	void			*nb_priv;
	int			fc_warned, unreplayable_warned;
	struct rstate		keep;		/* the last device opened,
						 * while it may serve again */
	int64_t			keep_point;	/* its point; -2: none */
	uint32_t		*tchunk;	/* the points' tid lists: the
						 * chunk being filled */
	size_t			tcap, tused;	/* its size, tids used */
	uint32_t		*tlast;		/* the last point's list in
						 * it (NULL: none) */
	size_t			tlast_n;
	struct hmap		ok;		/* pblk -> after + 1: every
						 * sector written since @after
						 * (stays true at later points) */
	/* the point being checked */
	struct rstate		*cur;
	int64_t			point;
	size_t			first_f;
	uint64_t		blocks;
};

static const char *kind_names[E4_WLOG_NKINDS][2] = {
	{ "stale", "stale-permitted" },
	{ "no-data-write", "no-data-write-permitted" },
	{ "no-flush", "no-flush-permitted" },
	{ "unrecoverable", "unrecoverable" },
};

const char *e4_wlog_kind_name(int kind, int permitted)
{
	if (kind < 0 || kind >= E4_WLOG_NKINDS)
		return "?";
	return kind_names[kind][!!permitted];
}

static void warn(struct e4_wlog_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct e4_wlog_report *rep, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	e4_vadd_warning(rep->warnings[0], sizeof(rep->warnings[0]), 8,
			&rep->nwarnings, fmt, ap);
	va_end(ap);
}

/* Record what could not be read (fail closed). */
static errcode_t unchecked(struct ctx *c, int64_t entry, uint32_t tid,
			   ext2_ino_t ino, errcode_t err, const char *what)
{
	struct e4_wlog_report *rep = c->rep;
	struct e4_wlog_unchecked *u;
	errcode_t retval;

	retval = grow(&rep->unchecked, &c->aunchecked, rep->nunchecked + 1,
		      sizeof(*rep->unchecked));
	if (retval)
		return retval;
	u = &rep->unchecked[rep->nunchecked++];
	u->entry = entry;
	u->tid = tid;
	u->ino = ino;
	u->err = err;
	snprintf(u->what, sizeof(u->what), "%s", what);
	return 0;
}

/* ---- replayed states ----------------------------------------------------- */

static void rstate_close(struct rstate *r)
{
	if (r->borrowed) {
		r->rp.j = NULL;
		r->rp.scan = NULL;
		r->rp.plan = NULL;
		r->dfs = NULL;
	}
	e4_replayed_close(&r->rp);
	if (r->dfs)
		ext2fs_close_free(&r->dfs);
	memset(r, 0, sizeof(*r));
}

/* Is jblock range [@a, @b] clear of [@lo, @hi]? */
static int jclear(blk64_t a, blk64_t b, blk64_t lo, blk64_t hi)
{
	return b < lo || a > hi;
}

/*
 * May the scan of @prev (the device at @from) be resumed at @to
 * (e4_journal_scan_resume())?  Only when no entry in (@from, @to]
 * writes or discards in the log blocks it walked, from its start to its
 * last committed transaction's commit block (with the wrap at log_end),
 * as @prev's journal maps them (e4_journal_scan_resume() checks that the
 * new journal maps them alike).
 */
static int journal_kept(struct ctx *c, const struct rstate *prev,
			int64_t from, int64_t to)
{
	const struct e4_jscan *s = prev->rp.scan;
	const struct e4_journal *j = prev->rp.j;
	blk64_t lo1, hi1, lo2, hi2, end;
	int64_t i;
	size_t k;

	if (!s || !j || prev->jerr || j->external || !s->ncommitted ||
	    !j->nruns || j->blocksize != c->bs || from < -1 || from > to)
		return 0;
	end = s->trans[s->ncommitted - 1].last_jblk;
	lo1 = s->start_jblk;
	if (end >= lo1) {
		hi1 = end;
		lo2 = 1;
		hi2 = 0;	/* empty */
	} else {		/* wrapped */
		hi1 = s->log_end - 1;
		lo2 = s->log_first;
		hi2 = end;
	}
	for (i = from + 1; i <= to; i++) {
		const struct e4_wlog_entry *e = &c->log->ents[i];
		blk64_t b0, b1;

		if (!e->nr_sectors)
			continue;
		b0 = e->sector / c->spb;
		b1 = (e->sector + e->nr_sectors - 1) / c->spb;
		for (k = 0; k < j->nruns; k++) {
			const struct e4_jmap_run *m = &j->runs[k];
			blk64_t a, b;

			if (b1 < m->pblk || b0 >= m->pblk + m->len)
				continue;
			a = (b0 > m->pblk ? b0 : m->pblk) - m->pblk + m->jblk;
			b = (b1 < m->pblk + m->len - 1 ? b1 :
			     m->pblk + m->len - 1) - m->pblk + m->jblk;
			if (!jclear(a, b, lo1, hi1) ||
			    (lo2 <= hi2 && !jclear(a, b, lo2, hi2)))
				return 0;
		}
	}
	return 1;
}

/*
 * Open the device at its current point: its fs, journal and scan.  A
 * journal that does not open is recorded in r->jerr (the state is then
 * the device itself).
 */
static errcode_t rstate_open_dev(struct ctx *c, struct rstate *r,
				 const struct rstate *prev, int64_t prev_point,
				 int64_t point)
{
	errcode_t retval;

	memset(r, 0, sizeof(*r));
	e4_wlog_dev_take_error(c->d);
	retval = ext2fs_open2(e4_wlog_dev_name(c->d), "", EXT2_FLAG_64BITS |
			      EXT2_FLAG_SKIP_MMP |
			      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			      e4_wlog_io_manager, &r->dfs);
	if (retval)
		return retval;
	if (r->dfs->blocksize != c->bs && c->bs) {
		rstate_close(r);
		return EXT2_ET_CORRUPT_SUPERBLOCK;
	}
	r->jerr = e4_journal_open(r->dfs, NULL, 0, &r->rp.j);
	/* A read error of LOG or BASE is no verdict on the journal. */
	retval = e4_wlog_dev_take_error(c->d);
	if (retval) {
		if (r->rp.j)
			e4_journal_close(r->rp.j);
		r->rp.j = NULL;
		rstate_close(r);
		return retval;
	}
	if (r->jerr) {
		if (r->rp.j)
			e4_journal_close(r->rp.j);
		r->rp.j = NULL;
		return 0;
	}
	if (prev && journal_kept(c, prev, prev_point, point))
		retval = e4_journal_scan_resume(r->rp.j, prev->rp.j,
						prev->rp.scan, &r->rp.scan);
	else
		retval = e4_journal_scan(r->rp.j, 0, 0, &r->rp.scan);
	if (!retval)
		retval = e4_plan_build(r->rp.j, r->rp.scan, &r->rp.plan);
	if (!retval)
		retval = e4_state_init(r->rp.plan, &r->rp.st);
	if (!retval)
		retval = e4_wlog_dev_take_error(c->d);
	if (retval)
		rstate_close(r);
	return retval;
}

/* Does any entry in (@from, @to] write or discard? */
static int dev_moved(const struct ctx *c, int64_t from, int64_t to)
{
	int64_t i;

	for (i = from + 1; i <= to; i++)
		if (c->log->ents[i].nr_sectors)
			return 1;
	return 0;
}

/*
 * Open the device at @point into @r: the kept one (c->keep) when no
 * entry since its point wrote or discarded anything -- the same bytes,
 * so the same fs, journal, scan and plan -- else afresh.  Points come in
 * pairs about each commit write (its data and log blocks flushed; the
 * commit block, then a flush), and the commit write's own state is the
 * one of the flush after it: one scan of the log instead of two.
 */
static errcode_t rstate_get(struct ctx *c, struct rstate *r, int64_t point)
{
	errcode_t retval;

	retval = e4_wlog_dev_set_point(c->d, point);
	if (retval)
		return retval;
	if (c->keep_point >= -1 && c->keep_point <= point &&
	    !dev_moved(c, c->keep_point, point)) {
		*r = c->keep;
		memset(&c->keep, 0, sizeof(c->keep));
		c->keep_point = -2;
		return 0;
	}
	/* The kept state's scan goes on where it can (journal_kept()). */
	retval = rstate_open_dev(c, r, c->keep_point >= -1 ? &c->keep : NULL,
				 c->keep_point, point);
	if (c->keep_point >= -1)
		rstate_close(&c->keep);
	c->keep_point = -2;
	return retval;
}

/* Done with @r (opened by rstate_get() at @point): keep it for the next
 * point if it is still the device's fs, journal, scan and plan alone. */
static void rstate_put(struct ctx *c, struct rstate *r, int64_t point)
{
	if (r->dfs && !r->borrowed && !r->jerr && r->rp.j && r->rp.scan &&
	    r->rp.plan && !r->rp.fcst && !r->rp.ovl_io) {
		if (c->keep_point >= -1)
			rstate_close(&c->keep);
		c->keep = *r;
		c->keep_point = point;
		memset(r, 0, sizeof(*r));
		return;
	}
	rstate_close(r);
}

/* A second state over @r's device, journal, scan and plan (its own
 * S_k, overlay and fs). */
static errcode_t rstate_borrow(struct rstate *r, struct rstate *from)
{
	memset(r, 0, sizeof(*r));
	r->borrowed = 1;
	r->dfs = from->dfs;
	r->jerr = from->jerr;
	r->rp.j = from->rp.j;
	r->rp.scan = from->rp.scan;
	r->rp.plan = from->rp.plan;
	return e4_state_init(r->rp.plan, &r->rp.st);
}

/* Make r->rp.fs state S_k of the scan (S_0: the device). */
static errcode_t rstate_open_k(struct ctx *c, struct rstate *r, size_t k)
{
	errcode_t retval = 0;

	if (r->rp.fs)
		ext2fs_close_free(&r->rp.fs);
	e4_overlay_free(r->rp.ov);
	r->rp.ov = NULL;
	e4_journal_t j = r->rp.j;

	if (j)
		retval = e4_state_seek(&r->rp.st, k);
	if (!retval)
		retval = e4_overlay_create(r->dfs->io, j ? j->io : NULL,
					   r->dfs->blocksize,
					   ext2fs_blocks_count(r->dfs->super),
					   j ? &r->rp.st : NULL, &r->rp.ov);
	if (!retval)
		retval = e4_overlay_open_fs(r->rp.ov, EXT2_FLAG_SKIP_MMP,
					    &r->rp.fs);
	if (!retval &&
	    (r->rp.fs->blocksize != r->dfs->blocksize ||
	     r->rp.fs->group_desc_count != r->dfs->group_desc_count))
		retval = EXT2_ET_CORRUPT_SUPERBLOCK;
	c->rep->states_opened++;
	return retval;
}

/* The logged copy replay writes to fs block @b in @r's state, or NULL. */
static const struct e4_copy *replayed_copy(const struct rstate *r,
					   blk64_t b)
{
	return r->rp.j ? e4_state_lookup(&r->rp.st, b) : NULL;
}

/* ---- inodes -------------------------------------------------------------- */

/* Read inode @ino of @fs: 1 and its generation if it is a live regular
 * file holding user data (e4_inode_kind() E4_INO_FILE; the extent walk
 * is an inode scan of in-use inodes), else 0. */
static int live_regular(struct ctx *c, ext2_filsys fs, ext2_ino_t ino,
			uint32_t *gen)
{
	struct ext2_inode *inode = (struct ext2_inode *)c->ibuf;

	if (e4_inode_kind(fs, ino) != E4_INO_FILE ||
	    e4_read_inode(fs, ino, inode, EXT2_INODE_SIZE(fs->super)))
		return 0;
	if (!inode->i_links_count || !LINUX_S_ISREG(inode->i_mode))
		return 0;
	*gen = inode->i_generation;
	return 1;
}

/* ---- findings ------------------------------------------------------------ */

/* Append @f to the report, merging it into the previous finding when it
 * continues it (same kind, tid, inode, entries; contiguous). */
static errcode_t add_finding(struct ctx *c, const struct e4_wlog_finding *f)
{
	struct e4_wlog_report *rep = c->rep;
	struct e4_wlog_finding *p;
	errcode_t retval;

	if (rep->nf > c->first_f) {
		p = &rep->f[rep->nf - 1];
		if (p->kind == f->kind && p->permitted == f->permitted &&
		    p->has_tid == f->has_tid && p->tid == f->tid &&
		    p->ino == f->ino && p->generation == f->generation &&
		    p->conversion == f->conversion &&
		    p->data_entry == f->data_entry &&
		    p->commit_entry == f->commit_entry &&
		    p->lblk + p->len == f->lblk &&
		    p->pblk + p->len == f->pblk) {
			p->len += f->len;
			goto count;
		}
	}
	retval = grow(&rep->f, &c->af, rep->nf + 1, sizeof(*rep->f));
	if (retval)
		return retval;
	rep->f[rep->nf++] = *f;
	if (f->kind == E4_WLOG_UNRECOVERABLE)
		return 0;	/* counted in rep->unrecoverable */
	if (f->permitted)
		rep->notes++;
	else
		rep->violations++;
count:
	if (!f->permitted)
		rep->violation_blocks += f->len;
	return 0;
}

/* ---- BASE ---------------------------------------------------------------- */

/*
 * BASE as recovery leaves it (point -1): its journal's runs (to find the
 * commit writes) and its block bitmap (free blocks; an rbtree bitmap: its
 * size follows the free-space runs, not the device).
 */
static errcode_t load_base(struct ctx *c)
{
	struct rstate r;
	struct ext2_super_block *sb;
	errcode_t retval;

	retval = e4_wlog_dev_set_point(c->d, -1);
	if (!retval)
		retval = rstate_open_dev(c, &r, NULL, -2, -2);
	if (retval)
		return retval;
	sb = r.dfs->super;
	if (ext2fs_has_feature_bigalloc(sb)) {
		retval = E4_ERR_BIGALLOC;
		goto out;
	}
	if (!r.rp.j || r.rp.j->external) {
		retval = r.jerr ? r.jerr : E4_ERR_NO_JOURNAL;
		goto out;
	}
	c->bs = r.dfs->blocksize;
	c->spb = c->bs / c->log->sectorsize;
	if (!c->spb || c->bs % c->log->sectorsize) {
		retval = EXT2_ET_INVALID_ARGUMENT;
		goto out;
	}
	c->nblocks = ext2fs_blocks_count(sb);
	c->rep->block_size = c->bs;
	retval = ext2fs_get_array(r.rp.j->nruns, sizeof(*c->rep->jruns),
				  &c->rep->jruns);
	if (retval)
		goto out;
	memcpy(c->rep->jruns, r.rp.j->runs,
	       r.rp.j->nruns * sizeof(*c->rep->jruns));
	c->rep->njruns = r.rp.j->nruns;
	retval = ext2fs_get_mem(c->bs, &c->buf);
	if (!retval)
		retval = ext2fs_get_mem(c->bs, &c->buf2);
	if (!retval)
		retval = ext2fs_get_memzero(EXT2_INODE_SIZE(sb) +
					    sizeof(struct ext2_inode_large),
					    &c->ibuf);
	if (retval)
		goto out;
	if (r.rp.scan->fail)
		warn(c->rep, "BASE's journal cannot be recovered (%s): BASE "
		     "is read as it is", error_message(r.rp.scan->fail));
	retval = rstate_open_k(c, &r, r.rp.scan->fail ? 0 :
			       r.rp.scan->ncommitted);
	if (retval)
		goto out;
	r.rp.fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	retval = ext2fs_read_block_bitmap(r.rp.fs);
	if (!retval)
		retval = e4_overlay_error(r.rp.ov);
	if (!retval)
		retval = ext2fs_copy_bitmap(r.rp.fs->block_map, &c->base_used);
out:
	rstate_close(&r);
	return retval;
}

/* ---- commit writes ------------------------------------------------------- */

int e4_wlog_report_in_journal(const struct e4_wlog_report *rep, blk64_t b)
{
	size_t i;

	for (i = 0; i < rep->njruns; i++)
		if (b >= rep->jruns[i].pblk && b < rep->jruns[i].pblk +
		    rep->jruns[i].len)
			return 1;
	return 0;
}

/* The tid of a jbd2 commit block written by entry @e, else -1 (the first
 * one if the write holds several). */
static int64_t commit_in(struct ctx *c, const struct e4_wlog_entry *e)
{
	uint64_t first, last, b;
	uint64_t ss = c->log->sectorsize;

	if (!e->data_off || !e->nr_sectors)
		return -1;
	first = (e->sector + c->spb - 1) / c->spb;
	last = (e->sector + e->nr_sectors) / c->spb;
	for (b = first; b < last; b++) {
		if (!e4_wlog_report_in_journal(c->rep, b))
			continue;
		if (e4_wlog_read_data(c->log, e, (b * c->spb - e->sector) * ss,
				      c->buf, JBD2_HEADER_SIZE))
			continue;
		if (e4_be32(c->buf + JBD2_H_MAGIC) == JBD2_MAGIC &&
		    e4_be32(c->buf + JBD2_H_BLOCKTYPE) == JBD2_COMMIT_BLOCK)
			return e4_be32(c->buf + JBD2_H_SEQUENCE);
	}
	return -1;
}

/* Entry + 1 of the commit write that last freed @pblk, or 0 (never
 * freed in the log so far). */
static int64_t freed_at(struct ctx *c, blk64_t pblk)
{
	size_t lo = 0, hi = c->nrel;

	while (lo < hi) {	/* first run ending after pblk */
		size_t mid = lo + (hi - lo) / 2;

		if (c->rel[mid].end <= pblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nrel && c->rel[lo].start <= pblk)
		return c->rel[lo].entry + 1;
	return 0;
}

/* Blocks [@start, @end) freed by the commit write at @entry, the newest:
 * it replaces what the runs said of them. */
static errcode_t rel_add(struct ctx *c, blk64_t start, blk64_t end,
			 int64_t entry)
{
	struct rel left = { 0, 0, 0 }, right = { 0, 0, 0 };
	size_t a = 0, b, hi = c->nrel, nins;
	errcode_t retval;

	while (a < hi) {	/* first run ending after start */
		size_t mid = a + (hi - a) / 2;

		if (c->rel[mid].end <= start)
			a = mid + 1;
		else
			hi = mid;
	}
	for (b = a; b < c->nrel && c->rel[b].start < end; b++)
		;
	/* Runs a..b-1 overlap [start, end): keep what sticks out. */
	if (a < b && c->rel[a].start < start) {
		left = c->rel[a];
		left.end = start;
	}
	if (a < b && c->rel[b - 1].end > end) {
		right = c->rel[b - 1];
		right.start = end;
	}
	nins = 1 + (left.end > left.start) + (right.end > right.start);
	retval = grow(&c->rel, &c->arel, c->nrel - (b - a) + nins,
		      sizeof(*c->rel));
	if (retval)
		return retval;
	memmove(c->rel + a + nins, c->rel + b,
		(c->nrel - b) * sizeof(*c->rel));
	c->nrel = c->nrel - (b - a) + nins;
	if (left.end > left.start)
		c->rel[a++] = left;
	c->rel[a].start = start;
	c->rel[a].end = end;
	c->rel[a++].entry = entry;
	if (right.end > right.start)
		c->rel[a] = right;
	return 0;
}

/* Record a run of new mappings of commit @tid. */
static errcode_t attr_add(struct ctx *c, ext2_ino_t ino, uint32_t gen,
			  uint32_t tid, blk64_t lblk, blk64_t pblk, blk64_t len)
{
	const struct kv *h = hfind(&c->attr_head, ino);
	struct arun *r;
	errcode_t retval;

	retval = grow(&c->attr, &c->aattr, c->nattr + 1,
		      sizeof(*c->attr));
	if (retval)
		return retval;
	r = &c->attr[c->nattr++];
	r->ino = ino;
	r->gen = gen;
	r->tid = tid;
	r->lblk = lblk;
	r->pblk = pblk;
	r->len = len;
	r->next = h ? h->a : 0;
	return hput(&c->attr_head, ino, c->nattr, 0);
}

/* The newest run of new mappings covering (@ino, @lblk), or NULL. */
static const struct arun *attr_find(struct ctx *c, ext2_ino_t ino,
				    blk64_t lblk)
{
	const struct kv *h = hfind(&c->attr_head, ino);
	size_t i;

	for (i = h ? h->a : 0; i; i = c->attr[i - 1].next) {
		const struct arun *r = &c->attr[i - 1];

		if (r->lblk <= lblk && lblk < r->lblk + r->len)
			return r;
	}
	return NULL;
}

/* First FLUSH entry after @after, or INT64_MAX. */
static int64_t next_flush(struct ctx *c, int64_t after)
{
	return e4_wlog_flush_next(c->flushes, c->nflushes, after);
}

/* Bit @bit went 1 (c->buf, S_(k-1)) -> 0 (c->buf2, S_k). */
static int freed_bit(const struct ctx *c, unsigned int bit)
{
	return ((c->buf[bit >> 3] >> (bit & 7)) & 1) &&
		!((c->buf2[bit >> 3] >> (bit & 7)) & 1);
}

/* Blocks T frees: its logged block bitmap blocks, 1 in S_(k-1), 0 in
 * S_k.  An uninitialized bitmap of S_(k-1) frees nothing. */
static errcode_t find_released(struct ctx *c, struct rstate *prev,
			       struct rstate *cur, const struct e4_jtrans *tr,
			       struct e4_wlog_txn *tx, int64_t commit)
{
	ext2_filsys fs = cur->rp.fs;
	size_t t;
	dgrp_t g;
	errcode_t retval;

	for (t = 0; t < tr->ntags; t++) {
		blk64_t b = tr->tags[t].fsblk, first;
		unsigned int bit, nbits;

		if (tr->tags[t].csum_ok == 0)
			continue;
		for (g = 0; g < fs->group_desc_count; g++)
			if (ext2fs_block_bitmap_loc(fs, g) == b)
				break;
		if (g == fs->group_desc_count)
			continue;
		if (ext2fs_has_group_desc_csum(prev->rp.fs) &&
		    ext2fs_bg_flags_test(prev->rp.fs, g, EXT2_BG_BLOCK_UNINIT))
			continue;
		if (io_channel_read_blk64(prev->rp.fs->io, b, 1, c->buf) ||
		    io_channel_read_blk64(fs->io, b, 1, c->buf2))
			continue;
		first = ext2fs_group_first_block2(fs, g);
		nbits = (unsigned int)(ext2fs_group_last_block2(fs, g) - first
				       + 1);
		for (bit = 0; bit < nbits && bit < c->bs * 8; bit++) {
			unsigned int e;

			if (!freed_bit(c, bit))
				continue;
			for (e = bit + 1; e < nbits && e < c->bs * 8 &&
			     freed_bit(c, e); e++)
				;
			retval = rel_add(c, first + bit, first + e, commit);
			if (retval)
				return retval;
			tx->released += e - bit;
			bit = e;
		}
	}
	return 0;
}

/* Is fs block @b logged by a committed transaction trans[0..k) (its data
 * is in the journal)? */
static int journaled(const struct e4_jscan *s, size_t k, blk64_t b)
{
	size_t i, t;

	for (i = 0; i < k; i++)
		for (t = 0; t < s->trans[i].ntags; t++)
			if (s->trans[i].tags[t].fsblk == b &&
			    s->trans[i].tags[t].csum_ok != 0)
				return 1;
	return 0;
}

/*
 * The I/O-order rule for one newly mapped block @pblk of a transaction
 * whose commit write is entry @commit: the finding kind, or -1 if fine;
 * *@data the data write found (the last of its sectors' first writes
 * since the block was last freed).  A sector is durable before the commit
 * when one of its writes since then is followed by a FLUSH before the
 * commit write, or carries FUA; a commit write with FLUSH (PREFLUSH)
 * makes every earlier write durable.
 */
static int io_order(struct ctx *c, blk64_t pblk, int64_t commit,
		    int64_t *data)
{
	int64_t after = freed_at(c, pblk) - 1, last = -1, w;
	int durable = 1;
	uint64_t s;

	for (s = 0; s < c->spb; s++) {
		uint64_t sec = pblk * c->spb + s;
		int ok = 0;

		w = e4_wlog_dev_first_write(c->d, sec, after, commit);
		if (w < 0) {
			*data = -1;
			return E4_WLOG_NO_DATA;
		}
		if (w > last)
			last = w;
		for (; w >= 0 && !ok;
		     w = e4_wlog_dev_first_write(c->d, sec, w, commit))
			ok = (c->log->ents[w].flags & E4_WLOG_FUA) ||
				next_flush(c, w) < commit;
		durable &= ok;
	}
	*data = last;
	if (durable || (c->log->ents[commit].flags & E4_WLOG_FLUSH))
		return -1;
	return E4_WLOG_NO_FLUSH;
}

static int cmp_ino(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A commit write of tid @tid at entry @commit: T's new mappings (the
 * ordering check on S_(k-1) with T as its window), the blocks it frees,
 * the I/O-order rule.
 */
static errcode_t do_commit(struct ctx *c, uint32_t tid, int64_t commit)
{
	struct e4_wlog_report *rep = c->rep;
	struct e4_wlog_txn *tx;
	struct rstate prev, cur;
	struct e4_jscan one;
	struct e4_order_opts oo;
	struct e4_order_report *orep = NULL;
	struct e4_plan *oplan = NULL;
	e4_journal_t pj = NULL;
	ext2_ino_t *inos = NULL;
	size_t ainos = 0, ninos = 0;
	errcode_t retval;
	size_t k, i;

	retval = grow(&rep->txns, &c->atxns, rep->ntxns + 1,
		      sizeof(*rep->txns));
	if (retval)
		return retval;
	tx = &rep->txns[rep->ntxns++];
	memset(tx, 0, sizeof(*tx));
	tx->tid = tid;
	tx->commit_entry = commit;
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	retval = rstate_get(c, &cur, commit);
	if (retval)
		return retval;
	if (!cur.rp.j || cur.rp.scan->fail) {
		/* Nothing replayable: no state to diff. */
		if (!c->unreplayable_warned++)
			warn(rep, "entry %lld writes the commit block of tid "
			     "%u but the journal there is not replayable "
			     "(%s): this and such later commits not checked",
			     (long long)commit, tid,
			     error_message(cur.rp.j ? cur.rp.scan->fail :
					   cur.jerr));
		goto out;
	}
	for (k = 0; k < cur.rp.scan->ncommitted; k++)
		if (cur.rp.scan->trans[k].tid == tid)
			break;
	if (k == cur.rp.scan->ncommitted) {
		warn(rep, "entry %lld writes the commit block of tid %u, which "
		     "recovery at that entry does not replay: not checked",
		     (long long)commit, tid);
		goto out;
	}
	tx->committed = 1;
	if (c->cm_fn) {
		struct e4_wlog_commit cm;

		cm.tid = tid;
		cm.commit_entry = commit;
		cm.j = cur.rp.j;
		cm.scan = cur.rp.scan;
		cm.t = &cur.rp.scan->trans[k];
		retval = c->cm_fn(c->nb_priv, &cm);
		if (retval)
			goto out;
	}
	retval = rstate_borrow(&prev, &cur);
	if (!retval)
		retval = rstate_open_k(c, &prev, k);
	if (!retval)
		retval = rstate_open_k(c, &cur, k + 1);
	if (retval)
		goto out;
	/* The ordering check with T alone as its window, over S_(k-1):
	 * its journal read through S_(k-1)'s overlay (which serves no
	 * journal block), a scan of T alone, and its plan. */
	retval = e4_journal_open(prev.rp.fs, NULL, 0, &pj);
	if (retval)
		goto out;
	one = *cur.rp.scan;
	one.trans = &cur.rp.scan->trans[k];
	one.ntrans = one.ncommitted = 1;
	one.start_tid = tid;
	one.end_tid = tid + 1;
	one.corrupt = 0;
	one.fc_live = 0;
	one.upto_set = 0;
	retval = e4_plan_build(pj, &one, &oplan);
	if (retval)
		goto out;
	e4_order_opts_init(&oo, sizeof(oo));
	oo.data_mode = c->o->data_mode;
	oo.stamped = 0;
	oo.outside = 0;
	oo.list_mappings = 1;
	oo.image_is_s0 = 1;	/* prev is S_(k-1) itself */
	retval = e4_order_check(prev.rp.fs, oplan, &oo, &orep);
	if (retval)
		goto out;
	for (i = 0; !retval && i < orep->nunchecked; i++) {
		char what[160];

		snprintf(what, sizeof(what), "new mappings of tid %u: %s",
			 tid, orep->unchecked[i].what);
		retval = unchecked(c, commit, tid, orep->unchecked[i].ino,
				   orep->unchecked[i].err, what);
	}
	if (retval)
		goto out;
	if (orep->data_mode_src == E4_DMSRC_INFERRED ||
	    orep->data_mode == E4_DATA_JOURNAL)
		c->journaled = 1;
	retval = find_released(c, &prev, &cur, &cur.rp.scan->trans[k], tx,
			       commit);
	if (!retval)
		retval = e4_overlay_error(prev.rp.ov);
	if (!retval)
		retval = e4_overlay_error(cur.rp.ov);
	for (i = 0; !retval && i < orep->nf; i++) {
		const struct e4_order_finding *m = &orep->f[i];
		uint32_t gen = 0;
		blk64_t b;

		/* New initialized mappings of T (not the new unwritten
		 * ones, nor directory and symlink blocks). */
		if (m->kind != E4_ORD_MAPPING || m->tid != tid ||
		    m->unwritten || m->metadata)
			continue;
		if (!live_regular(c, cur.rp.fs, m->ino, &gen))
			continue;
		retval = attr_add(c, m->ino, gen, tid, m->lblk, m->pblk,
				  m->len);
		if (!retval)
			retval = grow(&inos, &ainos, ninos + 1,
				      sizeof(*inos));
		if (!retval)
			inos[ninos++] = m->ino;
		for (b = 0; b < m->len && !retval; b++) {
			struct e4_wlog_finding f;
			int64_t data;
			int kind;

			tx->new_blocks++;
			tx->conversions += !!m->conversion;
			if (journaled(cur.rp.scan, k + 1, m->pblk + b))
				continue;
			if (c->nb_fn) {
				struct e4_wlog_newblk nb;

				nb.tid = tid;
				nb.ino = m->ino;
				nb.generation = gen;
				nb.lblk = m->lblk + b;
				nb.pblk = m->pblk + b;
				nb.conversion = !!m->conversion;
				nb.commit_entry = commit;
				nb.freed_entry = freed_at(c, m->pblk + b) - 1;
				retval = c->nb_fn(c->nb_priv, &nb);
				if (retval)
					break;
			}
			kind = io_order(c, m->pblk + b, commit, &data);
			if (kind < 0)
				continue;
			memset(&f, 0, sizeof(f));
			f.kind = kind;
			f.has_tid = 1;
			f.tid = tid;
			f.ino = m->ino;
			f.generation = gen;
			f.lblk = m->lblk + b;
			f.pblk = m->pblk + b;
			f.len = 1;
			f.conversion = m->conversion;
			f.data_entry = data;
			f.commit_entry = commit;
			tx->violations++;
			if (c->o->commits_only)
				continue;	/* reported at no point */
			retval = grow(&c->pend, &c->apend,
				      c->npend + 1, sizeof(*c->pend));
			if (!retval)
				c->pend[c->npend++] = f;
		}
	}
	/* The files T carries new data of: distinct inodes of those
	 * mappings. */
	if (!retval && ninos) {
		qsort(inos, ninos, sizeof(*inos), cmp_ino);
		for (i = 0; i < ninos; i++)
			tx->files += !i || inos[i] != inos[i - 1];
	}
out:
	ext2fs_free_mem(&inos);
	e4_order_report_free(orep);
	e4_plan_free(oplan);
	if (pj)
		e4_journal_close(pj);
	rstate_close(&prev);
	rstate_put(c, &cur, commit);
	return retval;
}

/* ---- persistence points -------------------------------------------------- */

struct pt_arg {
	struct ctx	*c;
	errcode_t	err;
};

/* The state rule for one initialized extent (or block-map run) of the
 * point's state. */
static int point_ext_cb(ext2_filsys fs, const struct e4_extent_rec *r,
			void *priv)
{
	struct pt_arg *pa = priv;
	struct ctx *c = pa->c;
	uint32_t gen;
	blk64_t i;

	if (r->error) {
		pa->err = unchecked(c, c->point, 0, r->ino, r->error,
				    "extent tree or block map of the inode "
				    "in the point's replayed state");
		return pa->err != 0;
	}
	if (r->unwritten || !live_regular(c, fs, r->ino, &gen))
		return 0;
	for (i = 0; i < r->len; i++) {
		blk64_t l = r->lblk + i, p = r->pblk + i;
		struct e4_wlog_finding f;
		int64_t after, ent;
		uint64_t s;
		int ok = 1;

		const struct arun *at;
		const struct kv *okv;

		c->blocks++;
		if (p >= c->nblocks || replayed_copy(c->cur, p))
			continue;	/* outside (order.c's), replayed */
		/* Written since it last became free: since the commit
		 * write freeing it, else since BASE. */
		after = freed_at(c, p) - 1;
		/* Found so at an earlier point, for the same @after: every
		 * sector's newest write at a later point is no older. */
		okv = hfind(&c->ok, p);
		if (okv && okv->a == (uint64_t)(after + 1))
			continue;
		at = attr_find(c, r->ino, l);
		if (at && (at->pblk + (l - at->lblk) != p || at->gen != gen))
			at = NULL;	/* not this mapping */
		/* In use in BASE, never freed since, and no commit mapped
		 * it anew: the mapping BASE had. */
		if (!at && after < 0 &&
		    ext2fs_test_block_bitmap2(c->base_used, p))
			continue;
		for (s = 0; s < c->spb && ok; s++) {
			int src = e4_wlog_dev_latest(c->d, p * c->spb + s,
						     c->point, &ent);

			ok = src != E4_WLOG_SRC_BASE && ent > after;
		}
		if (ok) {
			pa->err = hput(&c->ok, p, (uint64_t)(after + 1), 0);
			if (pa->err)
				return 1;
			continue;
		}
		memset(&f, 0, sizeof(f));
		f.kind = E4_WLOG_STALE;
		if (at) {
			f.has_tid = 1;
			f.tid = at->tid;
		}
		f.ino = r->ino;
		f.generation = gen;
		f.lblk = l;
		f.pblk = p;
		f.len = 1;
		f.data_entry = -1;
		f.commit_entry = -1;
		f.point = c->point;
		pa->err = add_finding(c, &f);
		if (pa->err)
			return 1;
	}
	return 0;
}

/* Name the inodes of this point's findings in @fs. */
static void name_findings(struct ctx *c, ext2_filsys fs)
{
	struct e4_wlog_report *rep = c->rep;
	struct e4_path_req *req = NULL;
	size_t i, n = 0;

	if (rep->nf == c->first_f ||
	    ext2fs_get_array(rep->nf - c->first_f, sizeof(*req), &req))
		return;
	for (i = c->first_f; i < rep->nf; i++)
		if (rep->f[i].kind != E4_WLOG_UNRECOVERABLE) {
			req[n].ino = rep->f[i].ino;
			req[n++].path = &rep->f[i].path;
		}
	e4_resolve_paths(fs, req, n);
	ext2fs_free_mem(&req);
}

static int fcmp(const void *a, const void *b)
{
	const struct e4_wlog_finding *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? 1 : -1;	/* I/O order first */
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->lblk != y->lblk)
		return x->lblk < y->lblk ? -1 : 1;
	return 0;
}

/* Point @pt is lost: the kernel's recovery fails there with @fail. */
static errcode_t point_unrecoverable(struct ctx *c, struct e4_wlog_point *pt,
				     errcode_t fail)
{
	struct e4_wlog_finding f;

	memset(&f, 0, sizeof(f));
	f.kind = E4_WLOG_UNRECOVERABLE;
	f.data_entry = f.commit_entry = -1;
	f.point = pt->entry;
	pt->fail = fail;
	c->rep->unrecoverable++;
	return add_finding(c, &f);
}

/*
 * Give @pt the committed tids of @scan.  The live journal slides from
 * one point to the next (its checkpointed head dropped, new commits
 * appended), so the lists share one store: chunks of TCHUNK tids (or
 * the list's length, if longer), each list one contiguous run of a
 * chunk, the last point's run extended in place when the new list is
 * its tail plus new tids.  Memory: the tids that differ from point to
 * point, not ~ncommitted a point.  A chunk's first list starts at its
 * first tid: e4_wlog_report_free() frees each chunk at the first point
 * whose list is outside the previous chunk (the chunks are distinct
 * live allocations and points use them in order).
 */
#define TCHUNK	65536

static errcode_t point_tids(struct ctx *c, struct e4_wlog_point *pt,
			    const struct e4_jscan *scan)
{
	size_t n = scan->ncommitted, i, j, k, have;
	errcode_t retval;

	pt->tids = NULL;
	pt->ntids = 0;
	if (!n)
		return 0;
	/* The last list's tail equal to this list's head: share it. */
	if (c->tlast && c->tlast + c->tlast_n == c->tchunk + c->tused) {
		for (j = 0; j < c->tlast_n; j++) {
			have = c->tlast_n - j;
			if (have > n)
				continue;
			for (k = 0; k < have; k++)
				if (c->tlast[j + k] != scan->trans[k].tid)
					break;
			if (k == have)
				break;
		}
		if (j < c->tlast_n && c->tused + (n - have) <= c->tcap) {
			for (i = have; i < n; i++)
				c->tchunk[c->tused++] = scan->trans[i].tid;
			pt->tids = c->tlast + j;
			pt->ntids = n;
			c->tlast = pt->tids;
			c->tlast_n = n;
			return 0;
		}
	}
	if (!c->tchunk || c->tused + n > c->tcap) {
		size_t cap = n > TCHUNK ? n : TCHUNK;

		/* The old chunk now belongs to the report's points. */
		c->tchunk = NULL;
		retval = ext2fs_get_array(cap, sizeof(*c->tchunk), &c->tchunk);
		if (retval)
			return retval;
		c->tcap = cap;
		c->tused = 0;
	}
	pt->tids = c->tchunk + c->tused;
	for (i = 0; i < n; i++)
		c->tchunk[c->tused++] = scan->trans[i].tid;
	pt->ntids = n;
	c->tlast = pt->tids;
	c->tlast_n = n;
	return 0;
}

static errcode_t do_point(struct ctx *c, int64_t entry)
{
	struct e4_wlog_report *rep = c->rep;
	struct e4_wlog_point *pt;
	struct rstate r;
	struct e4_mount_refusal mr;
	struct pt_arg pa = { c, 0 };
	errcode_t retval;
	size_t i;

	retval = grow(&rep->points, &c->apoints, rep->npoints + 1,
		      sizeof(*rep->points));
	if (retval)
		return retval;
	pt = &rep->points[rep->npoints++];
	memset(pt, 0, sizeof(*pt));
	pt->entry = entry;
	pt->mark = c->last_mark >= 0 ? c->log->ents[c->last_mark].mark : NULL;
	c->point = entry;
	c->first_f = rep->nf;
	c->blocks = 0;
	/* I/O-order findings of the commits since the last point. */
	for (i = 0; i < c->npend; i++) {
		c->pend[i].point = entry;
		retval = add_finding(c, &c->pend[i]);
		if (retval)
			return retval;
	}
	c->npend = 0;
	retval = rstate_get(c, &r, entry);
	if (retval)
		return retval;
	if (!r.jerr && r.rp.j)
		e4_plan_mount_refused(r.rp.plan, &mr);
	else
		memset(&mr, 0, sizeof(mr));
	if (r.jerr != E4_ERR_NO_JOURNAL &&
	    (r.jerr || r.rp.scan->fail || mr.err)) {
		/* The kernel refuses this journal (its superblock, or the
		 * recovery fails, or it replays and then refuses to mount:
		 * e4_plan_mount_refused()): the state is lost. */
		retval = point_unrecoverable(c, pt, r.jerr ? r.jerr :
					     r.rp.scan->fail ?
					     r.rp.scan->fail : mr.err);
		goto out;
	}
	/* needs_recovery clear: the kernel wipes the log instead of
	 * replaying it (ext4_load_journal()). */
	if (r.rp.j &&
	    !ext2fs_has_feature_journal_needs_recovery(r.dfs->super)) {
		e4_state_free(&r.rp.st);
		e4_plan_free(r.rp.plan);
		r.rp.plan = NULL;
		e4_jscan_free(r.rp.scan);
		r.rp.scan = NULL;
		e4_journal_close(r.rp.j);
		r.rp.j = NULL;
	}
	if (r.rp.j) {
		retval = point_tids(c, pt, r.rp.scan);
		if (retval)
			goto out;
	}
	if (r.rp.j && r.rp.scan->fc && r.rp.scan->fc->fail) {
		/* The kernel's fast-commit scan fails: so does its
		 * recovery (jbd2_journal_recover() -> fc_do_one_pass()). */
		retval = point_unrecoverable(c, pt, r.rp.scan->fc->fail);
		goto out;
	}
	retval = rstate_open_k(c, &r, r.rp.j ? r.rp.scan->ncommitted : 0);
	if (retval)
		goto out;
	if (r.rp.j && r.rp.scan->fc && r.rp.scan->fc->nreplay) {
		/* Live fast commits of the tid after the last full commit:
		 * the kernel replays them right after the full commits
		 * (fs/ext4/fast_commit.c, ext4_fc_replay()); the state is
		 * S_n with them replayed, in memory (fc_state.c). */
		retval = e4_replayed_fc(&r.rp);
		if (retval == E4_ERR_FC_REPLAY_FAILS) {
			retval = point_unrecoverable(c, pt, retval);
			goto out;
		}
		if (retval && e4_overlay_error(r.rp.ov))
			retval = e4_overlay_error(r.rp.ov);	/* a read
						 * error of LOG or BASE: stop */
		else if (retval && retval != EXT2_ET_NO_MEMORY) {
			/* Fail closed: no verdict on this point. */
			retval = unchecked(c, entry, 0, 0, retval,
					   "the point's fast-commit replay");
			goto out;
		}
		if (retval)
			goto out;
		pt->fast_commits = r.rp.scan->fc->nfc;
		if (!c->fc_warned++)
			warn(rep, "fast commits at entry %lld and maybe "
			     "later: the state rule checks the state after "
			     "their replay; the I/O-order rule, full commits "
			     "only", (long long)entry);
	}
	c->cur = &r;
	retval = e4_fs_extents(r.rp.fs, E4_EXT_BLOCK_MAPPED, point_ext_cb,
			       &pa, NULL);
	c->cur = NULL;
	if (retval == E4_ERR_EXT_ABORTED)
		retval = pa.err;
	if (!retval)	/* no verdict over a state not wholly read */
		retval = e4_overlay_error(r.rp.ov);
	if (retval)
		goto out;
	pt->blocks = c->blocks;
	name_findings(c, r.rp.fs);
out:
	pt->first_f = c->first_f;
	pt->nf = rep->nf - c->first_f;
	if (pt->nf > 1)
		qsort(rep->f + pt->first_f, pt->nf, sizeof(*rep->f), fcmp);
	rstate_put(c, &r, entry);
	return retval;
}

/* ---- the check ----------------------------------------------------------- */

void e4_wlog_report_free(struct e4_wlog_report *rep)
{
	uint32_t *chunk = NULL;
	size_t i, chunk_n = 0;

	if (!rep)
		return;
	for (i = 0; i < rep->nf; i++)
		ext2fs_free_mem(&rep->f[i].path);
	/* The tid lists' chunks (point_tids()): freed at the first point
	 * whose list is not in the chunk freed before. */
	for (i = 0; i < rep->npoints; i++) {
		uint32_t *t = rep->points[i].tids;

		if (!t || (chunk && t >= chunk && t < chunk + chunk_n))
			continue;
		chunk = t;
		chunk_n = rep->points[i].ntids > TCHUNK ?
			rep->points[i].ntids : TCHUNK;
		ext2fs_free_mem(&t);
	}
	ext2fs_free_mem(&rep->f);
	ext2fs_free_mem(&rep->unchecked);
	ext2fs_free_mem(&rep->points);
	ext2fs_free_mem(&rep->txns);
	ext2fs_free_mem(&rep->jruns);
	ext2fs_free_mem(&rep);
}

errcode_t e4_wlog_check(e4_wlog_dev_t d, const struct e4_wlog_check_opts *o,
			struct e4_wlog_report **ret)
{
	return e4_wlog_check_newblk(d, o, NULL, NULL, ret);
}

errcode_t e4_wlog_check_newblk(e4_wlog_dev_t d,
			       const struct e4_wlog_check_opts *o,
			       e4_wlog_newblk_fn fn, void *priv,
			       struct e4_wlog_report **ret)
{
	return e4_wlog_check_hooks(d, o, fn, NULL, priv, ret);
}

errcode_t e4_wlog_check_hooks(e4_wlog_dev_t d,
			      const struct e4_wlog_check_opts *o,
			      e4_wlog_newblk_fn fn, e4_wlog_commit_fn cfn,
			      void *priv, struct e4_wlog_report **ret)
{
	struct ctx c;
	struct e4_wlog_report *rep = NULL;
	errcode_t retval;
	uint64_t i;

	e4_error_tables_init();
	*ret = NULL;
	memset(&c, 0, sizeof(c));
	c.d = d;
	c.o = o;
	c.log = e4_wlog_dev_log(d);
	c.last_mark = -1;
	c.nb_fn = fn;
	c.cm_fn = cfn;
	c.nb_priv = priv;
	c.keep_point = -2;
	retval = ext2fs_get_memzero(sizeof(*rep), &rep);
	if (retval)
		return retval;
	c.rep = rep;
	retval = load_base(&c);
	if (retval)
		goto out;
	retval = e4_wlog_flushes(c.log, &c.flushes, &c.nflushes);
	if (retval)
		goto out;

	if (o->progress)
		o->progress(o->progress_priv, E4_PROGRESS_WLOG, 0,
			    c.log->nr_entries);
	for (i = 0; i < c.log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &c.log->ents[i];
		int64_t tid;

		if (e->flags & E4_WLOG_MARK)
			c.last_mark = (int64_t)i;
		if (!(e->flags & E4_WLOG_DISCARD)) {
			tid = commit_in(&c, e);
			if (tid >= 0) {
				retval = do_commit(&c, (uint32_t)tid,
						   (int64_t)i);
				if (retval)
					goto out;
			}
		}
		if (!o->commits_only && e4_wlog_is_point(e, o->marks)) {
			retval = do_point(&c, (int64_t)i);
			if (retval)
				goto out;
		}
		if (o->progress)
			o->progress(o->progress_priv, E4_PROGRESS_WLOG, i + 1,
				    c.log->nr_entries);
	}
	if (c.npend && !o->commits_only)
		warn(rep, "%zu I/O-order finding(s) after the last "
		     "persistence point are not reported", c.npend);

	rep->data_mode = o->data_mode;
	rep->data_mode_src = E4_DMSRC_GIVEN;
	if (o->data_mode == E4_DATA_AUTO) {
		rep->data_mode = c.journaled ? E4_DATA_JOURNAL :
			E4_DATA_ORDERED;
		rep->data_mode_src = c.journaled ? E4_DMSRC_INFERRED :
			E4_DMSRC_ASSUMED;
	}
	/* data=writeback promises no data ordering: notes. */
	if (rep->data_mode == E4_DATA_WRITEBACK &&
	    rep->data_mode_src == E4_DMSRC_GIVEN) {
		rep->violations = rep->violation_blocks = rep->notes = 0;
		for (i = 0; i < rep->nf; i++) {
			struct e4_wlog_finding *f = &rep->f[i];

			if (f->kind == E4_WLOG_UNRECOVERABLE)
				continue;
			f->permitted = 1;
			if (f->permitted) {
				rep->notes++;
			} else {
				rep->violations++;
				rep->violation_blocks += f->len;
			}
		}
	}
out:
	if (c.keep_point >= -1)
		rstate_close(&c.keep);
	if (c.base_used)
		ext2fs_free_block_bitmap(c.base_used);
	hfree(&c.attr_head);
	hfree(&c.ok);
	ext2fs_free_mem(&c.attr);
	ext2fs_free_mem(&c.rel);
	ext2fs_free_mem(&c.flushes);
	ext2fs_free_mem(&c.pend);
	ext2fs_free_mem(&c.buf);
	ext2fs_free_mem(&c.buf2);
	ext2fs_free_mem(&c.ibuf);
	if (retval) {
		e4_wlog_report_free(rep);
		return retval;
	}
	*ret = rep;
	return 0;
}
