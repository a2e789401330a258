/*
 * stats.c --- statistics over the transactions of a jbd2 log: how the
 * journal batched its work (transaction sizes, commit intervals, the
 * share of descriptor, revoke and commit blocks), the quantities
 * /proc/fs/jbd2/<dev>/info shows on a live system, computed from what
 * the disk holds.
 *
 * Source of the /proc terms: fs/jbd2/journal.c jbd2_seq_info_show() and
 * jbd2_journal_get_max_txn_bufs() (Linux 6.18: log area / 3, checked by
 * mounting), fs/jbd2/commit.c (rs_blocks = t_nr_buffers, one tag each;
 * rs_blocks_logged = every block written to the log; the commit time is
 * ktime_get_coarse_real_ts64(), jiffy resolution).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void e4_jstat_dist_fill(struct e4_jstat_dist *d, double *v, size_t n)
{
	size_t i, rank;

	memset(d, 0, sizeof(*d));
	d->count = n;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		d->total += v[i];
	d->min = v[0];
	d->max = v[n - 1];
	d->mean = d->total / n;
	d->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	rank = (n * 9 + 9) / 10;	/* ceil(0.9 n) */
	d->p90 = v[rank - 1];
}

/* The log2 bucket of @v >= 1: k with 2^k <= v < 2^(k+1). */
static unsigned int log2_bucket(double v)
{
	unsigned int k = 0;

	while (k + 1 < E4_JSTAT_BUCKETS && v >= e4_jstat_bucket_low(k + 1))
		k++;
	return k;
}

static void hist_add(struct e4_jstat_hist *h, double v)
{
	unsigned int k;

	if (v < 0) {
		h->negative++;
	} else if (v == 0) {
		h->zero++;
	} else if (v < 1) {
		h->below_one++;
	} else {
		k = log2_bucket(v);
		h->bucket[k]++;
		if (k + 1 > h->nbuckets)
			h->nbuckets = k + 1;
	}
}

double e4_jtrans_commit_diff_ns(const struct e4_jtrans *a,
				const struct e4_jtrans *b)
{
	int64_t sec = (int64_t)(b->commit_sec - a->commit_sec);
	int64_t nsec = (int64_t)b->commit_nsec - (int64_t)a->commit_nsec;

	if (sec > -9000000000LL && sec < 9000000000LL)
		return (double)(sec * 1000000000LL + nsec);
	return (double)sec * 1e9 + (double)nsec;
}

static int same_time(const struct e4_jtrans *a, const struct e4_jtrans *b)
{
	return a->commit_sec == b->commit_sec &&
		a->commit_nsec == b->commit_nsec;
}

static int cmp_time(const void *pa, const void *pb)
{
	const struct e4_jtrans *a = *(const struct e4_jtrans * const *)pa;
	const struct e4_jtrans *b = *(const struct e4_jtrans * const *)pb;

	if (a->commit_sec != b->commit_sec)
		return a->commit_sec < b->commit_sec ? -1 : 1;
	if (a->commit_nsec != b->commit_nsec)
		return a->commit_nsec < b->commit_nsec ? -1 : 1;
	return 0;
}

/* How many transactions share one commit time (sorts @by, n pointers). */
static void shared_times(struct e4_jstats *st, const struct e4_jtrans **by,
			 size_t n)
{
	size_t i, run;

	qsort(by, n, sizeof(*by), cmp_time);
	for (i = 0; i < n; i += run) {
		for (run = 1; i + run < n && same_time(by[i], by[i + run]);
		     run++)
			;
		if (run < 2)
			continue;
		st->shared_times++;
		st->shared_trans += run;
		if (run > st->shared_max)
			st->shared_max = run;
	}
}

errcode_t e4_jstats_compute(const struct e4_jtrans *trans, size_t n,
			    uint64_t log_area, struct e4_jstats **ret)
{
	const struct e4_jtrans **by = NULL;
	struct e4_jstats *st;
	double *v = NULL, lo, hi, ms;
	errcode_t retval;
	size_t i, ni;

	e4_error_tables_init();
	*ret = NULL;
	retval = ext2fs_get_memzero(sizeof(*st), &st);
	if (retval)
		return retval;
	st->transactions = n;
	st->max_txn_blocks = log_area / 3;
	if (!n) {
		*ret = st;
		return 0;
	}
	retval = ext2fs_get_array(n, sizeof(*v), &v);
	if (!retval)
		retval = ext2fs_get_array(n, sizeof(*by), &by);
	if (!retval)
		retval = ext2fs_get_arrayzero(n, sizeof(*st->points),
					      &st->points);
	if (!retval && n > 1)
		retval = ext2fs_get_arrayzero(n - 1, sizeof(*st->negative),
					      &st->negative);
	if (retval)
		goto out;

	st->first_tid = trans[0].tid;
	st->last_tid = trans[n - 1].tid;
	st->all_times_zero = 1;
	for (i = 0; i < n; i++) {
		const struct e4_jtrans *t = &trans[i];

		st->descriptor_blocks += t->ndescriptors;
		st->revoke_blocks += t->nrevoke_blocks;
		st->commit_blocks += !!t->has_commit;
		st->data_blocks += t->ntags;
		st->log_blocks += t->nblocks;
		st->revoke_records += t->nrevoke_records;
		if (t->commit_sec || t->commit_nsec)
			st->all_times_zero = 0;
		hist_add(&st->hist_blocks, (double)t->nblocks);
		hist_add(&st->hist_tags, (double)t->ntags);
		by[i] = t;
	}
	for (i = 0; i < n; i++)
		v[i] = (double)trans[i].nblocks;
	e4_jstat_dist_fill(&st->blocks, v, n);
	for (i = 0; i < n; i++)
		v[i] = (double)trans[i].ntags;
	e4_jstat_dist_fill(&st->tags, v, n);

	/* The timeline: seconds since the first commit, in log order. */
	lo = hi = 0;
	for (i = 0; i < n; i++) {
		struct e4_jstat_point *p = &st->points[i];
		double ns = e4_jtrans_commit_diff_ns(&trans[0], &trans[i]);

		p->tid = trans[i].tid;
		p->blocks = trans[i].nblocks;
		p->t = ns / 1e9;
		if (ns < lo)
			lo = ns;
		if (ns > hi)
			hi = ns;
	}
	st->span_seconds = (hi - lo) / 1e9;

	/* Intervals between consecutive tids (old logs may have gaps). */
	for (i = ni = 0; i + 1 < n; i++) {
		const struct e4_jtrans *a = &trans[i], *b = &trans[i + 1];

		if (b->tid != a->tid + 1)
			continue;
		ms = e4_jtrans_commit_diff_ns(a, b) / 1e6;
		v[ni++] = ms;
		hist_add(&st->hist_interval, ms);
		if (ms >= 0 && ms < 1000)
			st->intervals_subsecond++;
		else if (ms >= E4_JSTAT_TIMER_MS)
			st->intervals_timer++;
		if (ms < 0) {
			struct e4_jstat_neg *g = &st->negative[st->nnegative++];

			g->prev_tid = a->tid;
			g->tid = b->tid;
			g->ms = ms;
			st->points[i + 1].back = 1;
		}
	}
	e4_jstat_dist_fill(&st->interval_ms, v, ni);
	if (st->span_seconds > 0)
		st->commits_per_second = (double)(n - 1) / st->span_seconds;
	shared_times(st, by, n);
out:
	ext2fs_free_mem(&v);
	ext2fs_free_mem(&by);
	if (retval) {
		e4_jstats_free(st);
		return retval;
	}
	*ret = st;
	return 0;
}

void e4_jstats_free(struct e4_jstats *st)
{
	if (!st)
		return;
	ext2fs_free_mem(&st->points);
	ext2fs_free_mem(&st->negative);
	ext2fs_free_mem(&st);
}

double e4_jstat_bucket_low(unsigned int k)
{
	return (double)((uint64_t)1 << (k & 63));
}
