/*
 * wlog_start.c --- a check that starts inside the log: the entry numbers
 * of the reports of a device made by e4_wlog_dev_create_start() (its
 * slice of the log, numbered from 0) renumbered as entries of the whole
 * log, so that they name what --list, --at and --drop name.
 *
 * The start itself: xfstests src/log-writes/replay-log.c (--start-entry,
 * --start-mark: the replay device holds the state before the entry);
 * own code.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include "e4.h"

/* Entry @e of the slice as an entry of the log; -1 (none, BASE) stays. */
static int64_t sh(int64_t e, uint64_t origin)
{
	return e < 0 ? e : e + (int64_t)origin;
}

void e4_wlog_report_rebase(struct e4_wlog_report *rep, uint64_t origin)
{
	size_t i;

	if (!rep || !origin)
		return;
	for (i = 0; i < rep->npoints; i++)
		rep->points[i].entry += origin;
	for (i = 0; i < rep->ntxns; i++)
		rep->txns[i].commit_entry += origin;
	for (i = 0; i < rep->nf; i++) {
		rep->f[i].data_entry = sh(rep->f[i].data_entry, origin);
		rep->f[i].commit_entry = sh(rep->f[i].commit_entry, origin);
		rep->f[i].point = sh(rep->f[i].point, origin);
	}
	for (i = 0; i < rep->nunchecked; i++)
		rep->unchecked[i].entry = sh(rep->unchecked[i].entry, origin);
}

void e4_wlog_reorder_rebase(struct e4_wlog_reorder_report *rr,
			    uint64_t origin)
{
	size_t i, k;

	if (!rr || !origin)
		return;
	e4_wlog_report_rebase(rr->rep, origin);
	for (i = 0; i < rr->nepochs; i++) {
		rr->epochs[i].flush_entry = sh(rr->epochs[i].flush_entry,
					       origin);
		rr->epochs[i].last_entry = sh(rr->epochs[i].last_entry, origin);
	}
	for (i = 0; i < rr->nv; i++) {
		struct e4_wlog_reorder_viol *v = &rr->v[i];

		v->commit_entry = sh(v->commit_entry, origin);
		v->data_entry = sh(v->data_entry, origin);
		v->flush_entry = sh(v->flush_entry, origin);
		v->freed_entry = sh(v->freed_entry, origin);
		for (k = 0; k < v->nwitness; k++)
			v->witness[k] += origin;
	}
	for (i = 0; i < rr->njv; i++) {
		struct e4_wlog_reorder_jviol *jv = &rr->jv[i];

		jv->commit_entry = sh(jv->commit_entry, origin);
		jv->journal_entry = sh(jv->journal_entry, origin);
		jv->flush_entry = sh(jv->flush_entry, origin);
	}
}

void e4_wlog_durable_rebase(struct e4_wlog_durable_report *rep,
			    uint64_t origin)
{
	size_t i, k;

	if (!rep || !origin)
		return;
	for (i = 0; i < rep->npromises; i++) {
		rep->promises[i].entry += origin;
		rep->promises[i].flush = sh(rep->promises[i].flush, origin);
	}
	for (i = 0; i < rep->nv; i++) {
		rep->v[i].mark += origin;
		for (k = 0; k < rep->v[i].nmissing; k++)
			rep->v[i].missing[k] += origin;
	}
	for (i = 0; i < rep->nunchecked; i++)
		rep->unchecked[i].entry = sh(rep->unchecked[i].entry, origin);
}

static void span_rebase(struct e4_wlog_span *s, uint64_t origin)
{
	if (s->last < s->first)		/* none */
		return;
	s->first = sh(s->first, origin);
	s->last = sh(s->last, origin);
}

void e4_wlog_stats_rebase(struct e4_wlog_stats *ws, uint64_t origin)
{
	size_t i;

	if (!ws || !origin)
		return;
	e4_wlog_report_rebase(ws->rep, origin);
	for (i = 0; i < ws->ncommits; i++) {
		struct e4_wlog_commit_stat *c = &ws->commits[i];

		c->commit_entry += origin;
		c->first_promise = sh(c->first_promise, origin);
		c->last_promise = sh(c->last_promise, origin);
		span_rebase(&c->span, origin);
	}
	span_rebase(&ws->tail, origin);
	span_rebase(&ws->all, origin);
}
