/*
 * wlog_stats.c --- journal statistics of a dm-log-writes block write log
 * (e4replay --stats --write-log): per commit write, the flushes issued
 * and the data written since the commit write before it (journal area
 * and elsewhere), the files whose new data the commit carries; and their
 * distributions.
 *
 * The commit writes, the journal area and the files come from the
 * ordering check's commit-write pass (wlog_check.c, commits_only); the
 * distributions from stats.c.  Semantics: jbd2 writes a transaction's
 * log blocks, then its commit block, with REQ_PREFLUSH (and REQ_FUA)
 * when the device has a volatile write cache (fs/jbd2/commit.c,
 * journal_submit_commit_record()); a device without FUA gets the FUA as
 * a FLUSH after the write (block/blk-flush.c), so that FLUSH lands in the
 * span of the next commit.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4_int.h"

/* Add entry @i of @log to @sp. */
static void span_add(const struct e4_wlog_report *rep, e4_wlog_t log,
		     struct e4_wlog_span *sp, uint64_t i)
{
	const struct e4_wlog_entry *e = &log->ents[i];
	uint64_t spb = rep->block_size / log->sectorsize, s, end;
	uint64_t nj = 0, nd = 0, bj = 0, bd = 0;
	uint64_t last_j = UINT64_MAX, last_d = UINT64_MAX;

	if (sp->last < sp->first)
		sp->first = (int64_t)i;
	sp->last = (int64_t)i;
	sp->entries++;
	sp->flushes += !!(e->flags & E4_WLOG_FLUSH);
	sp->fua += !!(e->flags & E4_WLOG_FUA);
	sp->marks += !!(e->flags & E4_WLOG_MARK);
	if (e->flags & E4_WLOG_DISCARD) {
		sp->discards++;
		sp->discard_sectors += e->nr_sectors;
		return;
	}
	if (!e->data_off || !e->nr_sectors)
		return;
	end = e->sector + e->nr_sectors;
	for (s = e->sector; s < end; ) {
		uint64_t b = s / spb, next = (b + 1) * spb;
		uint64_t n = (next < end ? next : end) - s;

		if (e4_wlog_report_in_journal(rep, b)) {
			nj += n;
			bj += last_j != b;
			last_j = b;
		} else {
			nd += n;
			bd += last_d != b;
			last_d = b;
		}
		s += n;
	}
	sp->journal_entries += !!nj;
	sp->journal_sectors += nj;
	sp->journal_blocks += bj;
	sp->data_entries += !!nd;
	sp->data_sectors += nd;
	sp->data_blocks += bd;
}

static void span_init(struct e4_wlog_span *sp, int64_t first)
{
	memset(sp, 0, sizeof(*sp));
	sp->first = first;
	sp->last = first - 1;
}

/* Fill @d with what @get gives of every commit (@v: ncommits values). */
static void dist_of(struct e4_wlog_stats *ws, double *v,
		    struct e4_jstat_dist *d, uint64_t (*get)(
			    const struct e4_wlog_commit_stat *))
{
	size_t i;

	for (i = 0; i < ws->ncommits; i++)
		v[i] = (double)get(&ws->commits[i]);
	e4_jstat_dist_fill(d, v, ws->ncommits);
}

static uint64_t get_flushes(const struct e4_wlog_commit_stat *c)
{
	return c->span.flushes;
}

static uint64_t get_data_entries(const struct e4_wlog_commit_stat *c)
{
	return c->span.data_entries;
}

static uint64_t get_data_blocks(const struct e4_wlog_commit_stat *c)
{
	return c->span.data_blocks;
}

static uint64_t get_journal_blocks(const struct e4_wlog_commit_stat *c)
{
	return c->span.journal_blocks;
}

/* The reorder view of one commit, gathered during the check's walk. */
struct dflush {
	int64_t		commit;
	uint64_t	judged, unflushed;
	int64_t		min;
};

struct dctx {
	e4_wlog_dev_t	d;
	uint64_t	spb;
	int64_t		*fl;	/* FLUSH entries */
	size_t		nfl;
	struct dflush	*v;
	size_t		n, a;
};

/* One new initialized block of a commit (e4_wlog_check_newblk()): the
 * FLUSH entries between its last data write and the commit write. */
static errcode_t on_newblk(void *priv, const struct e4_wlog_newblk *nb)
{
	struct dctx *x = priv;
	struct dflush *f;
	int64_t last = -1, ent;
	uint64_t s;
	size_t nf;
	errcode_t retval;

	for (s = 0; s < x->spb; s++) {
		ent = -1;
		if (e4_wlog_dev_latest(x->d, nb->pblk * x->spb + s,
				       nb->commit_entry - 1, &ent) ==
		    E4_WLOG_SRC_BASE || ent <= nb->freed_entry)
			return 0;	/* no data write: not judged */
		if (ent > last)
			last = ent;
	}
	if (!x->n || x->v[x->n - 1].commit != nb->commit_entry) {
		retval = grow(&x->v, &x->a, x->n + 1, sizeof(*x->v));
		if (retval)
			return retval;
		f = &x->v[x->n++];
		memset(f, 0, sizeof(*f));
		f->commit = nb->commit_entry;
		f->min = -1;
	}
	f = &x->v[x->n - 1];
	nf = e4_wlog_flush_count(x->fl, x->nfl, last, nb->commit_entry);
	f->judged++;
	f->unflushed += !nf;
	if (f->min < 0 || (int64_t)nf < f->min)
		f->min = (int64_t)nf;
	return 0;
}

/* Index of the newest commit write with an entry < @e, or -1. */
static int64_t commit_before(const struct e4_wlog_stats *ws, uint64_t e)
{
	size_t lo = 0, hi = ws->ncommits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ws->commits[mid].commit_entry < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

/*
 * The batching view: each promise mark M to the newest commit write
 * durable at M (before the last FLUSH F <= M, or a FUA commit write in
 * F..M: wlog_durable.c's rule), per commit the promises and the wait.
 */
static errcode_t batching(e4_wlog_t log, struct e4_wlog_stats *ws)
{
	double *v = NULL, *w = NULL;
	int64_t flush = -1, k, f;
	size_t nw = 0, i;
	uint64_t e;
	errcode_t retval;

	for (i = 0; i < ws->ncommits; i++)
		ws->commits[i].first_promise = ws->commits[i].last_promise = -1;
	for (e = 0; e < log->nr_entries; e++)
		ws->npromises += (log->ents[e].flags & E4_WLOG_MARK) &&
			e4_wlog_promise_parse(log->ents[e].mark, NULL);
	if (ws->npromises) {
		retval = ext2fs_get_array(ws->npromises, sizeof(*w), &w);
		if (retval)
			return retval;
	}
	for (e = 0; e < log->nr_entries; e++) {
		const struct e4_wlog_entry *x = &log->ents[e];
		struct e4_wlog_commit_stat *c;

		if (x->flags & E4_WLOG_FLUSH)
			flush = (int64_t)e;
		if (!(x->flags & E4_WLOG_MARK) ||
		    !e4_wlog_promise_parse(x->mark, NULL))
			continue;
		/* durable: before F; or FUA in F..M */
		k = flush < 0 ? -1 : commit_before(ws, (uint64_t)flush);
		for (f = commit_before(ws, e + 1); f > k; f--)
			if (ws->commits[f].fua)
				break;
		if (f > k)
			k = f;
		if (k < 0) {
			ws->unsatisfied++;
			continue;
		}
		c = &ws->commits[k];
		c->promises++;
		if (c->first_promise < 0)
			c->first_promise = (int64_t)e;
		c->last_promise = (int64_t)e;
		c->promise_wait_max = e - c->commit_entry;
		w[nw++] = (double)(e - c->commit_entry);
	}
	e4_jstat_dist_fill(&ws->promise_wait, w, nw);
	if (ws->ncommits) {
		retval = ext2fs_get_array(ws->ncommits, sizeof(*v), &v);
		if (retval) {
			ext2fs_free_mem(&w);
			return retval;
		}
	}
	for (i = 0; i < ws->ncommits; i++) {
		uint64_t p = ws->commits[i].promises;

		v[i] = (double)p;
		ws->promise_hist[p < E4_WLOG_PROMISE_HIST - 1 ? p :
				 E4_WLOG_PROMISE_HIST - 1]++;
	}
	e4_jstat_dist_fill(&ws->promises, v, ws->ncommits);
	ext2fs_free_mem(&v);
	ext2fs_free_mem(&w);
	return 0;
}

void e4_wlog_stats_free(struct e4_wlog_stats *ws)
{
	if (!ws)
		return;
	e4_wlog_report_free(ws->rep);
	ext2fs_free_mem(&ws->commits);
	ext2fs_free_mem(&ws);
}

errcode_t e4_wlog_stats(e4_wlog_dev_t d, struct e4_wlog_stats **ret)
{
	struct e4_wlog_check_opts o;
	struct e4_wlog_stats *ws = NULL;
	struct e4_wlog_report *rep;
	e4_wlog_t log = e4_wlog_dev_log(d);
	const char *mark = NULL;
	double *v = NULL;
	struct dctx x;
	size_t k = 0, i, n, di = 0;
	uint64_t e;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	retval = ext2fs_get_memzero(sizeof(*ws), &ws);
	if (retval)
		return retval;
	memset(&o, 0, sizeof(o));
	o.data_mode = E4_DATA_AUTO;
	o.commits_only = 1;
	memset(&x, 0, sizeof(x));
	x.d = d;
	retval = e4_wlog_flushes(log, &x.fl, &x.nfl);
	if (retval)
		goto fail;
	/* BASE's block size comes with the report: the callback's first
	 * call is after it is known; take it from the device's fs. */
	retval = e4_wlog_dev_base_spb(d, &x.spb);
	if (!retval)
		retval = e4_wlog_check_newblk(d, &o, on_newblk, &x, &ws->rep);
	if (retval)
		goto fail;
	rep = ws->rep;
	ws->sectorsize = log->sectorsize;
	ws->block_size = rep->block_size;
	ws->ncommits = rep->ntxns;
	if (rep->ntxns) {
		retval = ext2fs_get_arrayzero(rep->ntxns, sizeof(*ws->commits),
					      &ws->commits);
		if (retval)
			goto fail;
	}
	span_init(&ws->all, 0);
	span_init(&ws->tail, 0);
	if (ws->ncommits)
		span_init(&ws->commits[0].span, 0);
	/* One walk over the log: rep->txns are in log order. */
	for (e = 0; e < log->nr_entries; e++) {
		struct e4_wlog_span *sp = k < ws->ncommits ?
			&ws->commits[k].span : &ws->tail;

		if (log->ents[e].flags & E4_WLOG_MARK)
			mark = log->ents[e].mark;
		span_add(rep, log, &ws->all, e);
		span_add(rep, log, sp, e);
		if (k < ws->ncommits && rep->txns[k].commit_entry == e) {
			struct e4_wlog_commit_stat *c = &ws->commits[k];
			const struct e4_wlog_txn *t = &rep->txns[k];

			c->tid = t->tid;
			c->commit_entry = e;
			c->interval = k ? (int64_t)(e - ws->commits[k - 1].
						    commit_entry) : -1;
			c->preflush = !!(log->ents[e].flags & E4_WLOG_FLUSH);
			c->fua = !!(log->ents[e].flags & E4_WLOG_FUA);
			c->mark = mark;
			c->files_known = t->committed;
			c->files = t->files;
			c->new_blocks = t->new_blocks;
			c->data_flushes_min = -1;
			for (; di < x.n && x.v[di].commit < (int64_t)e; di++)
				;
			if (di < x.n && x.v[di].commit == (int64_t)e) {
				c->data_judged = x.v[di].judged;
				c->data_unflushed = x.v[di].unflushed;
				c->data_flushes_min = x.v[di].min;
				ws->unflushed_commits += !!c->data_unflushed;
			}
			ws->preflush += c->preflush;
			ws->no_flush += !c->span.flushes;
			if (++k < ws->ncommits)
				span_init(&ws->commits[k].span,
					  (int64_t)e + 1);
			else
				span_init(&ws->tail, (int64_t)e + 1);
		}
	}
	if (k != ws->ncommits) {	/* the check's commits out of order */
		retval = EXT2_ET_INVALID_ARGUMENT;
		goto fail;
	}
	/* A commit whose new mappings could not all be read: its file
	 * count is unknown (the check fails closed). */
	for (i = 0; i < rep->nunchecked; i++)
		for (k = 0; k < ws->ncommits; k++)
			if (rep->unchecked[i].entry >= 0 &&
			    ws->commits[k].commit_entry ==
			    (uint64_t)rep->unchecked[i].entry)
				ws->commits[k].files_known = 0;
	if (ws->ncommits) {
		retval = ext2fs_get_array(ws->ncommits, sizeof(*v), &v);
		if (retval)
			goto fail;
	}
	dist_of(ws, v, &ws->flushes, get_flushes);
	dist_of(ws, v, &ws->data_entries, get_data_entries);
	dist_of(ws, v, &ws->data_blocks, get_data_blocks);
	dist_of(ws, v, &ws->journal_blocks, get_journal_blocks);
	for (k = 0, n = 0; k < ws->ncommits; k++)
		if (ws->commits[k].files_known)
			v[n++] = (double)ws->commits[k].files;
	ws->files_known = n;
	e4_jstat_dist_fill(&ws->files, v, n);
	for (k = 1, n = 0; k < ws->ncommits; k++)
		v[n++] = (double)ws->commits[k].interval;
	e4_jstat_dist_fill(&ws->interval, v, n);
	for (k = 0, n = 0; k < ws->ncommits; k++)
		if (ws->commits[k].data_flushes_min >= 0)
			v[n++] = (double)ws->commits[k].data_flushes_min;
	e4_jstat_dist_fill(&ws->data_flushes, v, n);
	ext2fs_free_mem(&v);
	retval = batching(log, ws);
	if (retval)
		goto fail;
	ext2fs_free_mem(&x.fl);
	ext2fs_free_mem(&x.v);
	*ret = ws;
	return 0;
fail:
	ext2fs_free_mem(&x.fl);
	ext2fs_free_mem(&x.v);
	ext2fs_free_mem(&v);
	e4_wlog_stats_free(ws);
	return retval;
}
