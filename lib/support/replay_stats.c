/*
 * replay_stats.c --- journal statistics for `e4replay --stats` and
 * e4debug's jstats: libe4's stats.c over the scan (oldlog.c for --all)
 * printed as text with terminal histograms or as JSON, and the --plot
 * front end (replay_plot.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <et/com_err.h>

#include "e4.h"
#include "json.h"
#include "open.h"
#include "replay.h"
#include "stats.h"

#define BAR_WIDTH	40	/* '#'s of the longest histogram bar */

/* ---- text ---------------------------------------------------------------- */

/* @v with @dec decimals, or "-" when @defined is 0. */
static const char *num(char *buf, size_t len, double v, int dec, int defined)
{
	if (!defined)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", dec, v);
	return buf;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static void print_dist(const char *label, const struct e4_jstat_dist *d,
		       int dec, int with_total)
{
	char b[6][32];
	int ok = d->count > 0;

	printf("  %-24s %10s %9s %9s %10s %9s %9s\n", label,
	       with_total ? num(b[0], 32, d->total, 0, ok) : "-",
	       num(b[1], 32, d->min, dec, ok),
	       num(b[2], 32, d->median, dec ? dec : 1, ok),
	       num(b[3], 32, d->mean, 3, ok),
	       num(b[4], 32, d->p90, dec, ok),
	       num(b[5], 32, d->max, dec, ok));
}

/* One histogram row per bucket, bars scaled to the largest count. */
struct hrow {
	char		label[32];
	uint64_t	count;
};

static void print_rows(const char *title, const struct hrow *r, size_t n)
{
	uint64_t most = 0;
	size_t i, w;

	printf("  %s\n", title);
	for (i = 0; i < n; i++)
		if (r[i].count > most)
			most = r[i].count;
	if (!most) {
		printf("    (no values)\n");
		return;
	}
	for (i = 0; i < n; i++) {
		w = (size_t)((r[i].count * BAR_WIDTH + most - 1) / most);
		printf("    %14s %8" PRIu64 " |%.*s\n", r[i].label, r[i].count,
		       (int)w, "########################################");
	}
}

/* Rows of a histogram of counts: [0], 1, 2-3, 4-7, ... */
static size_t count_rows(const struct e4_jstat_hist *h, int with_zero,
			 struct hrow *r)
{
	size_t n = 0;
	unsigned int k;
	uint64_t lo;

	if (with_zero) {
		snprintf(r[n].label, sizeof(r[n].label), "0");
		r[n++].count = h->zero;
	}
	for (k = 0; k < h->nbuckets; k++) {
		lo = (uint64_t)1 << k;
		if (k == 0)
			snprintf(r[n].label, sizeof(r[n].label), "1");
		else
			snprintf(r[n].label, sizeof(r[n].label),
				 "%" PRIu64 "-%" PRIu64, lo, 2 * lo - 1);
		r[n++].count = h->bucket[k];
	}
	return n;
}

/* Rows of the interval histogram (ms): < 0, 0, (0, 1), [1, 2), ... */
static size_t interval_rows(const struct e4_jstat_hist *h, struct hrow *r)
{
	size_t n = 0;
	unsigned int k;
	uint64_t lo;

	snprintf(r[n].label, sizeof(r[n].label), "< 0 (back)");
	r[n++].count = h->negative;
	snprintf(r[n].label, sizeof(r[n].label), "0");
	r[n++].count = h->zero;
	snprintf(r[n].label, sizeof(r[n].label), "(0, 1)");
	r[n++].count = h->below_one;
	for (k = 0; k < h->nbuckets; k++) {
		lo = (uint64_t)1 << k;
		snprintf(r[n].label, sizeof(r[n].label), "[%" PRIu64 ", %"
			 PRIu64 ")", lo, 2 * lo);
		r[n++].count = h->bucket[k];
	}
	return n;
}

static void print_histograms(const struct e4_jstats *st)
{
	struct hrow r[E4_JSTAT_BUCKETS + 3];

	print_rows("log blocks per transaction (log2 buckets)", r,
		   count_rows(&st->hist_blocks, 0, r));
	print_rows("tags (fs blocks) per transaction (log2 buckets)", r,
		   count_rows(&st->hist_tags, 1, r));
	print_rows("commit interval, ms (log2 buckets)", r,
		   interval_rows(&st->hist_interval, r));
}

/* Commit time as UTC with milliseconds. */
static void fmt_commit(const struct e4_jtrans *t, char *buf, size_t len)
{
	char b[48];

	if (e4s_fmt_commit_time(t->commit_sec, b, sizeof(b)))
		snprintf(buf, len, "%s", b);
	else
		snprintf(buf, len, "%s.%03u UTC", b, t->commit_nsec / 1000000);
}

/* The figures common to the live log and the older transactions. */
static void print_body(const struct e4_jstats *st, const struct e4_jtrans *t,
		       unsigned int bs)
{
	uint64_t over = st->descriptor_blocks + st->revoke_blocks +
		st->commit_blocks;
	char tb[64], b[32];
	uint64_t i;

	if (!st->transactions)
		return;
	fmt_commit(&t[0], tb, sizeof(tb));
	printf("  tids %" PRIu32 "-%" PRIu32 ", first commit %s, span %.3f s"
	       ", %s commits/s\n", st->first_tid, st->last_tid, tb,
	       st->span_seconds, num(b, sizeof(b), st->commits_per_second,
				     1, st->span_seconds > 0));
	printf("  log: %" PRIu64 " jblocks of %u bytes: %" PRIu64 " data "
	       "(tags), %" PRIu64 " descriptor (%.1f%%), %" PRIu64 " revoke "
	       "(%.1f%%), %" PRIu64 " commit (%.1f%%); overhead %" PRIu64
	       " (%.1f%%)\n", st->log_blocks, bs, st->data_blocks,
	       st->descriptor_blocks,
	       100 * share(st->descriptor_blocks, st->log_blocks),
	       st->revoke_blocks,
	       100 * share(st->revoke_blocks, st->log_blocks),
	       st->commit_blocks,
	       100 * share(st->commit_blocks, st->log_blocks), over,
	       100 * share(over, st->log_blocks));
	printf("  revoke records: %" PRIu64 "\n", st->revoke_records);
	printf("  %-24s %10s %9s %9s %10s %9s %9s\n", "per transaction",
	       "total", "min", "median", "mean", "p90", "max");
	print_dist("log blocks (jblocks)", &st->blocks, 0, 1);
	print_dist("tags (fs blocks)", &st->tags, 0, 1);
	print_dist("commit interval (ms)", &st->interval_ms, 3, 0);
	printf("  commit intervals: %" PRIu64 " (between consecutive tids)"
	       "\n", st->interval_ms.count);
	if (st->interval_ms.count)
		printf("  batching: %" PRIu64 " of %" PRIu64 " intervals under "
		       "1 s (commits forced by fsync or a full transaction), %"
		       PRIu64 " of %.1f s or more (the commit timer: commit=5 s "
		       "by default)\n", st->intervals_subsecond,
		       st->interval_ms.count, st->intervals_timer,
		       E4_JSTAT_TIMER_MS / 1000.0);
	if (st->all_times_zero)
		printf("  note: no commit block carries a commit time "
		       "(written by a tool that leaves it 0)\n");
	if (st->shared_trans)
		printf("  shared commit times: %" PRIu64 " of %" PRIu64
		       " transactions share their commit time with another "
		       "(%" PRIu64 " times, up to %" PRIu64 " at one); the "
		       "kernel's commit time is a coarse clock's (one jiffy), "
		       "so 0 ms means within one tick\n", st->shared_trans,
		       st->transactions, st->shared_times, st->shared_max);
	else
		printf("  shared commit times: none\n");
	if (!st->nnegative) {
		printf("  negative intervals (commit time went back): none\n");
	} else {
		printf("  negative intervals (commit time went back): %"
		       PRIu64 ":", st->nnegative);
		for (i = 0; i < st->nnegative; i++)
			printf("%s tid %" PRIu32 " -> %" PRIu32 ": %.3f ms",
			       i ? ";" : "", st->negative[i].prev_tid,
			       st->negative[i].tid, st->negative[i].ms);
		printf("\n");
	}
}

/* The /proc/fs/jbd2/<dev>/info words, integer averages as it prints. */
static void print_proc(const struct e4_jstats *st)
{
	printf("  in /proc/fs/jbd2/<dev>/info terms: %" PRIu64 " transactions"
	       ", each up to %" PRIu64 " blocks", st->transactions,
	       st->max_txn_blocks);
	if (st->transactions)
		printf("; average %" PRIu64 " blocks per transaction, %" PRIu64
		       " logged blocks per transaction",
		       st->data_blocks / st->transactions,
		       st->log_blocks / st->transactions);
	printf("\n  not on disk: the \"(N requested)\" count, handles per "
	       "transaction and the average waiting, request delay, "
	       "running, locked, flushing, logging and commit times exist "
	       "only in the running kernel\n");
}

/* What the kernel does with the log whose figures are shown. */
enum logkind {
	LOG_LIVE,		/* replays it */
	LOG_DISCARDED,		/* needs_recovery clear: wipes it */
	LOG_MOUNT_REFUSED,	/* replays it, then refuses to mount */
};

static const char *logkind_text(int kind)
{
	switch (kind) {
	case LOG_DISCARDED:
		return "log the kernel discards (needs_recovery is clear: it "
			"wipes the log on mount and replays nothing)";
	case LOG_MOUNT_REFUSED:
		return "live log (what the kernel replays before it refuses "
			"to mount: see e4replay -n)";
	}
	return "live log (what the kernel replays)";
}

static const char *logkind_key(int kind)
{
	return kind == LOG_DISCARDED ? "discarded" :
		kind == LOG_MOUNT_REFUSED ? "mount-refused" : "live";
}

static void print_text(const char *image, const struct e4_jscan *s,
		       const struct e4_jstats *live,
		       const struct e4_jscan_old *old,
		       const struct e4_jstats *ost, unsigned int bs, int kind)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	size_t unc = s->ntrans - s->ncommitted;

	printf("%s: %s: %" PRIu64 " transactions\n",
	       e4s_text_escape(image, shown, sizeof(shown)),
	       logkind_text(kind), live->transactions);
	if (!s->start_jblk)
		printf("  the log is empty (s_start 0, next tid %" PRIu32
		       ")%s\n", s->start_tid,
		       old ? "" : "; --all summarises the older transactions");
	print_body(live, s->trans, bs);
	if (unc)
		printf("  after the log end: %zu transaction(s) without a "
		       "valid commit (tid %" PRIu32 "%s), not replayed, not "
		       "counted\n", unc, s->trans[s->ncommitted].tid,
		       unc > 1 ? ", ..." : "");
	if (s->fc && s->fc->nfc)
		printf("  fast commits: %" PRIu32 " under tid %" PRIu32
		       " after the last full commit (%zu of %zu tags replayed, "
		       "%" PRIu32 " area blocks hold tags), not in these "
		       "figures (/proc counts them as \"fast commits "
		       "performed\")\n", s->fc->nfc, s->fc->expected_tid,
		       s->fc->nreplay, s->fc->ntags, s->fc_blocks_used);
	else if (s->fc_blocks_used)
		printf("  fast commits: none replayed; %" PRIu32 " blocks of "
		       "the fast-commit area hold older tags\n",
		       s->fc_blocks_used);
	print_proc(live);
	if (live->transactions)
		print_histograms(live);
	if (!old)
		return;
	printf("%s: older transactions after the log end (not replayed by "
	       "the kernel; checksums not checked): %" PRIu64 "\n",
	       e4s_text_escape(image, shown, sizeof(shown)),
	       ost->transactions);
	printf("  walked %llu jblocks from jblock %llu: %" PRIu64 " cut "
	       "(start overwritten or incomplete) left out, %" PRIu64
	       " other blocks skipped, %" PRIu64 " blocks of tids not older "
	       "than %" PRIu32 " ignored\n",
	       (unsigned long long)old->nblocks,
	       (unsigned long long)old->first_jblk, old->cut, old->skipped,
	       old->newer_blocks, s->start_tid);
	print_body(ost, old->trans, bs);
	if (ost->transactions)
		print_histograms(ost);
}

/* ---- the write log (--write-log) ----------------------------------------- */

static const char *opt_u64(char *buf, size_t len, uint64_t v, int known)
{
	if (!known)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static void print_span_text(const char *what, const struct e4_wlog_span *sp)
{
	printf("  %s", what);
	if (sp->last < sp->first) {
		printf(": no entries\n");
		return;
	}
	printf(" (entries %lld-%lld): %" PRIu64 " entries, %" PRIu64
	       " FLUSH, %" PRIu64 " FUA; data (outside the journal) %" PRIu64
	       " writes, %" PRIu64 " sectors, %" PRIu64 " blocks; journal %"
	       PRIu64 " writes, %" PRIu64 " sectors, %" PRIu64 " blocks; %"
	       PRIu64 " DISCARD (%" PRIu64 " sectors), %" PRIu64 " MARK\n",
	       (long long)sp->first, (long long)sp->last, sp->entries,
	       sp->flushes, sp->fua, sp->data_entries, sp->data_sectors,
	       sp->data_blocks, sp->journal_entries, sp->journal_sectors,
	       sp->journal_blocks, sp->discards, sp->discard_sectors,
	       sp->marks);
}

/* The batching view: promise marks (fsync, fdatasync, sync, syncfs)
 * per commit write that satisfied them. */
static void print_batching_text(const struct e4_wlog_stats *ws)
{
	struct hrow r[E4_WLOG_PROMISE_HIST];
	size_t i, n = 0;

	if (!ws->npromises)
		return;
	printf("  batching: %" PRIu64 " promise mark(s), %" PRIu64
	       " satisfied by no durable commit write; per commit write "
	       "with any:\n", ws->npromises, ws->unsatisfied);
	printf("  %10s %8s %8s %13s %9s\n", "tid", "entry", "promises",
	       "marks", "wait max");
	for (i = 0; i < ws->ncommits; i++) {
		const struct e4_wlog_commit_stat *c = &ws->commits[i];
		char mk[40];

		if (!c->promises)
			continue;
		snprintf(mk, sizeof(mk), "%lld-%lld",
			 (long long)c->first_promise,
			 (long long)c->last_promise);
		printf("  %10" PRIu32 " %8" PRIu64 " %8" PRIu64 " %13s %9"
		       PRIu64 "\n", c->tid, c->commit_entry, c->promises, mk,
		       c->promise_wait_max);
	}
	if (ws->unsatisfied == ws->npromises)
		printf("  %10s\n", "(none)");
	printf("  (a promise mark is satisfied by the newest commit write "
	       "durable at it: before the last FLUSH at or before the mark, "
	       "or FUA; wait: entries from the commit write to its mark)\n");
	printf("  %-24s %10s %9s %9s %10s %9s %9s\n", "batching",
	       "total", "min", "median", "mean", "p90", "max");
	print_dist("promises per commit", &ws->promises, 0, 1);
	print_dist("wait (entries)", &ws->promise_wait, 0, 0);
	for (i = 0; i < E4_WLOG_PROMISE_HIST; i++) {
		snprintf(r[n].label, sizeof(r[n].label), i + 1 <
			 E4_WLOG_PROMISE_HIST ? "%zu" : "%zu+", i);
		r[n++].count = ws->promise_hist[i];
	}
	while (n > 1 && !r[n - 1].count)
		n--;
	print_rows("commit writes by promises satisfied", r, n);
}

static void print_wlog_text(const struct e4s_stats_wlog *wl)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)], shown2[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* names as text */
	const struct e4_wlog_stats *ws = wl->ws;
	const struct e4_wlog_report *rep = ws->rep;
	char b[3][32];
	size_t i;

	printf("%s: write log over %s: %" PRIu64 " entries (sectors of %u "
	       "bytes), %zu commit write(s)",
	       e4s_text_escape(wl->log_path, shown, sizeof(shown)),
	       e4s_text_escape(wl->base_path, shown2, sizeof(shown2)),
	       (uint64_t)(ws->all.last + 1), ws->sectorsize, ws->ncommits);
	if (ws->ncommits)
		printf(" of tids %" PRIu32 "-%" PRIu32, ws->commits[0].tid,
		       ws->commits[ws->ncommits - 1].tid);
	printf("; blocks are fs blocks of %u bytes\n", ws->block_size);
	for (i = 0; i < rep->njruns; i++)
		printf("%s %llu-%llu", i ? "," : "  journal area (BASE's "
		       "journal inode), fs blocks",
		       (unsigned long long)rep->jruns[i].pblk,
		       (unsigned long long)(rep->jruns[i].pblk +
					    rep->jruns[i].len - 1));
	printf("\n");
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		printf("  warning: %s\n", rep->warnings[i]);
	printf("  per commit write C of tid T, the entries after the previous "
	       "commit write up to C (from entry 0 for the first):\n");
	printf("  %10s %8s %8s %7s %3s %8s %8s %8s %8s %5s %6s  %s\n", "tid",
	       "entry", "interval", "flushes", "pre", "data wr", "data blk",
	       "jnl wr", "jnl blk", "disc", "files", "mark");
	for (i = 0; i < ws->ncommits; i++) {
		const struct e4_wlog_commit_stat *c = &ws->commits[i];

		printf("  %10" PRIu32 " %8" PRIu64 " %8s %7" PRIu64 " %3s %8"
		       PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %5"
		       PRIu64 " %6s  %s\n", c->tid, c->commit_entry,
		       c->interval < 0 ? "-" :
		       opt_u64(b[0], 32, (uint64_t)c->interval, 1),
		       c->span.flushes, c->preflush ? "y" : "-",
		       c->span.data_entries, c->span.data_blocks,
		       c->span.journal_entries, c->span.journal_blocks,
		       c->span.discards,
		       opt_u64(b[1], 32, c->files, c->files_known),
		       c->mark ? c->mark : "-");
	}
	printf("  (interval: entries since the previous commit write; flushes:"
	       " FLUSH entries, C's own included; pre: C carries FLUSH "
	       "(PREFLUSH); wr: write entries; blk: fs blocks touched, once "
	       "per entry; data: outside the journal area; files: regular "
	       "files whose new initialized mappings T commits, ? unknown)\n");
	print_span_text("after the last commit write", &ws->tail);
	print_span_text("whole log", &ws->all);
	printf("  %-24s %10s %9s %9s %10s %9s %9s\n", "per commit write",
	       "total", "min", "median", "mean", "p90", "max");
	print_dist("flushes", &ws->flushes, 0, 1);
	print_dist("data writes", &ws->data_entries, 0, 1);
	print_dist("data blocks", &ws->data_blocks, 0, 1);
	print_dist("journal blocks", &ws->journal_blocks, 0, 1);
	print_dist("files", &ws->files, 0, 1);
	print_dist("interval (entries)", &ws->interval, 0, 0);
	print_dist("flushes data->commit", &ws->data_flushes, 0, 1);
	printf("  commit writes: %zu, %" PRIu64 " with PREFLUSH, %" PRIu64
	       " with no FLUSH since the previous one; files known for %"
	       PRIu64 "\n", ws->ncommits, ws->preflush, ws->no_flush,
	       ws->files_known);
	printf("  reorder: %" PRIu64 " commit write(s) with a new data block "
	       "no FLUSH separates from it (a volatile cache may persist "
	       "the commit without it; flushes data->commit: the fewest "
	       "FLUSH entries after a new block's last data write up to its "
	       "commit write, PREFLUSH included)\n", ws->unflushed_commits);
	print_batching_text(ws);
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_dist(struct e4s_json *js, const char *key,
		      const struct e4_jstat_dist *d, int dec, int with_total)
{
	int ok = d->count > 0;

	e4s_json_obj_begin(js, key);
	if (with_total)
		e4s_json_u64(js, "total", (uint64_t)d->total);
	if (ok) {
		e4s_json_double(js, "min", d->min, dec);
		e4s_json_double(js, "median", d->median, dec);
		e4s_json_double(js, "mean", d->mean, dec > 3 ? dec : 3);
		e4s_json_double(js, "p90", d->p90, dec);
		e4s_json_double(js, "max", d->max, dec);
	} else {
		e4s_json_null(js, "min");
		e4s_json_null(js, "median");
		e4s_json_null(js, "mean");
		e4s_json_null(js, "p90");
		e4s_json_null(js, "max");
	}
	if (!with_total)
		e4s_json_u64(js, "count", d->count);
	e4s_json_obj_end(js);
}

static void json_buckets(struct e4s_json *js, const struct e4_jstat_hist *h,
			 int interval)
{
	unsigned int k;

	e4s_json_arr_begin(js, "buckets");
	if (interval) {
		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "from", 0);
		e4s_json_u64(js, "to", 1);
		e4s_json_u64(js, "count", h->below_one);
		e4s_json_obj_end(js);
	}
	for (k = 0; k < h->nbuckets; k++) {
		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "from", (uint64_t)1 << k);
		e4s_json_u64(js, "to", (uint64_t)2 << k);
		e4s_json_u64(js, "count", h->bucket[k]);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
}

static void json_body(struct e4s_json *js, const struct e4_jstats *st)
{
	uint64_t over = st->descriptor_blocks + st->revoke_blocks +
		st->commit_blocks, i;
	int any = st->transactions > 0;

	e4s_json_u64(js, "transactions", st->transactions);
	if (any) {
		e4s_json_u64(js, "first_tid", st->first_tid);
		e4s_json_u64(js, "last_tid", st->last_tid);
	} else {
		e4s_json_null(js, "first_tid");
		e4s_json_null(js, "last_tid");
	}
	e4s_json_double(js, "span_seconds", st->span_seconds, 9);
	if (st->span_seconds > 0)
		e4s_json_double(js, "commits_per_second",
			       st->commits_per_second, 3);
	else
		e4s_json_null(js, "commits_per_second");
	json_dist(js, "blocks", &st->blocks, 1, 1);
	json_dist(js, "tags", &st->tags, 1, 1);
	e4s_json_obj_begin(js, "overhead_blocks");
	e4s_json_u64(js, "descriptor", st->descriptor_blocks);
	e4s_json_u64(js, "revoke", st->revoke_blocks);
	e4s_json_u64(js, "commit", st->commit_blocks);
	e4s_json_u64(js, "total", over);
	e4s_json_double(js, "share", share(over, st->log_blocks), 4);
	e4s_json_double(js, "descriptor_share",
		       share(st->descriptor_blocks, st->log_blocks), 4);
	e4s_json_double(js, "revoke_share",
		       share(st->revoke_blocks, st->log_blocks), 4);
	e4s_json_double(js, "commit_share",
		       share(st->commit_blocks, st->log_blocks), 4);
	e4s_json_obj_end(js);
	e4s_json_u64(js, "log_blocks", st->log_blocks);
	e4s_json_u64(js, "data_blocks", st->data_blocks);
	e4s_json_u64(js, "revoke_records", st->revoke_records);

	json_dist(js, "interval_ms", &st->interval_ms, 6, 0);
	e4s_json_obj_begin(js, "batching");
	e4s_json_u64(js, "subsecond_intervals", st->intervals_subsecond);
	e4s_json_u64(js, "timer_intervals", st->intervals_timer);
	e4s_json_u64(js, "timer_ms", E4_JSTAT_TIMER_MS);
	e4s_json_obj_end(js);
	e4s_json_obj_begin(js, "negative_intervals");
	e4s_json_u64(js, "count", st->nnegative);
	e4s_json_arr_begin(js, "list");
	for (i = 0; i < st->nnegative; i++) {
		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "prev_tid", st->negative[i].prev_tid);
		e4s_json_u64(js, "tid", st->negative[i].tid);
		e4s_json_double(js, "ms", st->negative[i].ms, 6);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_obj_end(js);
	e4s_json_obj_begin(js, "shared_commit_times");
	e4s_json_u64(js, "transactions", st->shared_trans);
	e4s_json_u64(js, "times", st->shared_times);
	e4s_json_u64(js, "largest", st->shared_max);
	e4s_json_obj_end(js);
	e4s_json_bool(js, "commit_times_zero", st->all_times_zero);

	e4s_json_obj_begin(js, "histograms");
	e4s_json_obj_begin(js, "blocks");
	e4s_json_u64(js, "zero", st->hist_blocks.zero);
	json_buckets(js, &st->hist_blocks, 0);
	e4s_json_obj_end(js);
	e4s_json_obj_begin(js, "tags");
	e4s_json_u64(js, "zero", st->hist_tags.zero);
	json_buckets(js, &st->hist_tags, 0);
	e4s_json_obj_end(js);
	e4s_json_obj_begin(js, "interval_ms");
	e4s_json_u64(js, "negative", st->hist_interval.negative);
	e4s_json_u64(js, "zero", st->hist_interval.zero);
	json_buckets(js, &st->hist_interval, 1);
	e4s_json_obj_end(js);
	e4s_json_obj_end(js);
}

static void json_span(struct e4s_json *js, const struct e4_wlog_span *sp)
{
	e4s_json_u64(js, "entries", sp->entries);
	e4s_json_u64(js, "flushes", sp->flushes);
	e4s_json_u64(js, "fua", sp->fua);
	e4s_json_u64(js, "data_entries", sp->data_entries);
	e4s_json_u64(js, "data_sectors", sp->data_sectors);
	e4s_json_u64(js, "data_blocks", sp->data_blocks);
	e4s_json_u64(js, "journal_entries", sp->journal_entries);
	e4s_json_u64(js, "journal_sectors", sp->journal_sectors);
	e4s_json_u64(js, "journal_blocks", sp->journal_blocks);
	e4s_json_u64(js, "discards", sp->discards);
	e4s_json_u64(js, "discard_sectors", sp->discard_sectors);
	e4s_json_u64(js, "marks", sp->marks);
}

static void json_range(struct e4s_json *js, const struct e4_wlog_span *sp)
{
	if (sp->last < sp->first) {
		e4s_json_null(js, "first_entry");
		e4s_json_null(js, "last_entry");
	} else {
		e4s_json_i64(js, "first_entry", sp->first);
		e4s_json_i64(js, "last_entry", sp->last);
	}
}

static void json_wlog(struct e4s_json *js, const struct e4s_stats_wlog *wl)
{
	const struct e4_wlog_stats *ws = wl->ws;
	const struct e4_wlog_report *rep = ws->rep;
	size_t i;

	e4s_json_obj_begin(js, "write_log");
	e4s_json_str(js, "log", wl->log_path);
	e4s_json_str(js, "base", wl->base_path);
	if (wl->point < 0)
		e4s_json_null(js, "journal_at_entry");
	else
		e4s_json_i64(js, "journal_at_entry", wl->point);
	if (wl->start_entry || wl->no_fs_points) {	/* a started run */
		e4s_json_u64(js, "start_entry", wl->start_entry);
		e4s_json_u64(js, "no_fs_points", wl->no_fs_points);
	}
	e4s_json_u64(js, "sectorsize", ws->sectorsize);
	e4s_json_u64(js, "block_size", ws->block_size);
	e4s_json_arr_begin(js, "journal_area");
	for (i = 0; i < rep->njruns; i++) {
		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "pblk", rep->jruns[i].pblk);
		e4s_json_u64(js, "len", rep->jruns[i].len);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_str(js, "data_mode", e4_data_mode_name(rep->data_mode));
	e4s_json_arr_begin(js, "warnings");
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		e4s_json_str(js, NULL, rep->warnings[i]);
	e4s_json_arr_end(js);
	e4s_json_arr_begin(js, "commits");
	for (i = 0; i < ws->ncommits; i++) {
		const struct e4_wlog_commit_stat *c = &ws->commits[i];

		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "tid", c->tid);
		e4s_json_u64(js, "commit_entry", c->commit_entry);
		json_range(js, &c->span);
		if (c->interval < 0)
			e4s_json_null(js, "interval");
		else
			e4s_json_i64(js, "interval", c->interval);
		if (c->mark)
			e4s_json_str(js, "mark", c->mark);
		else
			e4s_json_null(js, "mark");
		e4s_json_bool(js, "preflush", c->preflush);
		e4s_json_bool(js, "commit_fua", c->fua);
		json_span(js, &c->span);
		if (c->files_known) {
			e4s_json_u64(js, "files", c->files);
			e4s_json_u64(js, "new_blocks", c->new_blocks);
		} else {
			e4s_json_null(js, "files");
			e4s_json_null(js, "new_blocks");
		}
		e4s_json_u64(js, "data_blocks_judged", c->data_judged);
		if (c->data_flushes_min < 0)
			e4s_json_null(js, "data_flushes_min");
		else
			e4s_json_i64(js, "data_flushes_min",
				     c->data_flushes_min);
		e4s_json_u64(js, "data_blocks_unflushed", c->data_unflushed);
		e4s_json_u64(js, "promises", c->promises);
		if (c->promises) {
			e4s_json_i64(js, "first_promise", c->first_promise);
			e4s_json_i64(js, "last_promise", c->last_promise);
			e4s_json_u64(js, "promise_wait_max",
				     c->promise_wait_max);
		} else {
			e4s_json_null(js, "first_promise");
			e4s_json_null(js, "last_promise");
			e4s_json_null(js, "promise_wait_max");
		}
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_obj_begin(js, "after_last_commit");
	json_range(js, &ws->tail);
	json_span(js, &ws->tail);
	e4s_json_obj_end(js);
	e4s_json_obj_begin(js, "summary");
	e4s_json_u64(js, "commits", ws->ncommits);
	e4s_json_u64(js, "commits_with_files", ws->files_known);
	e4s_json_u64(js, "preflush_commits", ws->preflush);
	e4s_json_u64(js, "no_flush_commits", ws->no_flush);
	e4s_json_u64(js, "unflushed_data_commits", ws->unflushed_commits);
	json_dist(js, "data_flushes", &ws->data_flushes, 1, 1);
	json_dist(js, "flushes", &ws->flushes, 1, 1);
	json_dist(js, "data_entries", &ws->data_entries, 1, 1);
	json_dist(js, "data_blocks", &ws->data_blocks, 1, 1);
	json_dist(js, "journal_blocks", &ws->journal_blocks, 1, 1);
	json_dist(js, "files", &ws->files, 1, 1);
	json_dist(js, "interval_entries", &ws->interval, 1, 0);
	e4s_json_u64(js, "promise_marks", ws->npromises);
	e4s_json_u64(js, "unsatisfied_promises", ws->unsatisfied);
	json_dist(js, "promises", &ws->promises, 1, 1);
	json_dist(js, "promise_wait_entries", &ws->promise_wait, 1, 0);
	e4s_json_arr_begin(js, "promise_histogram");
	for (i = 0; i < E4_WLOG_PROMISE_HIST; i++)
		e4s_json_u64(js, NULL, ws->promise_hist[i]);
	e4s_json_arr_end(js);
	e4s_json_obj_begin(js, "log");
	json_span(js, &ws->all);
	e4s_json_obj_end(js);
	e4s_json_obj_end(js);
	e4s_json_obj_end(js);
}

static void print_json(const char *source, const struct e4_jscan *s,
		       const struct e4_jstats *live,
		       const struct e4_jscan_old *old,
		       const struct e4_jstats *ost, unsigned int bs,
		       const struct e4s_stats_wlog *wl, int kind)
{
	struct e4s_json js;

	e4s_json_init(&js, stdout);
	e4s_json_obj_begin(&js, NULL);
	e4s_json_obj_begin(&js, "stats");
	/* The journal read (the head's "image" is the input): IMAGE, or
	 * "BASE at entry N of LOG". */
	e4s_json_str(&js, "source", source);
	e4s_json_str(&js, "log", logkind_key(kind));
	e4s_json_u64(&js, "block_size", bs);
	json_body(&js, live);
	e4s_json_obj_begin(&js, "proc_info");
	e4s_json_u64(&js, "transactions", live->transactions);
	e4s_json_u64(&js, "each_up_to", live->max_txn_blocks);
	if (live->transactions) {
		e4s_json_u64(&js, "blocks_per_transaction",
			    live->data_blocks / live->transactions);
		e4s_json_u64(&js, "logged_blocks_per_transaction",
			    live->log_blocks / live->transactions);
	} else {
		e4s_json_null(&js, "blocks_per_transaction");
		e4s_json_null(&js, "logged_blocks_per_transaction");
	}
	e4s_json_obj_end(&js);
	e4s_json_u64(&js, "uncommitted", s->ntrans - s->ncommitted);
	e4s_json_obj_begin(&js, "fast_commit");
	e4s_json_u64(&js, "commits", s->fc ? s->fc->nfc : 0);
	e4s_json_u64(&js, "tags_replayed", s->fc ? s->fc->nreplay : 0);
	e4s_json_u64(&js, "tags", s->fc ? s->fc->ntags : 0);
	e4s_json_u64(&js, "blocks", s->fc_blocks_used);
	e4s_json_bool(&js, "live", s->fc_live);
	e4s_json_obj_end(&js);
	if (old) {
		e4s_json_obj_begin(&js, "older");
		json_body(&js, ost);
		e4s_json_u64(&js, "cut", old->cut);
		e4s_json_u64(&js, "skipped_blocks", old->skipped);
		e4s_json_u64(&js, "newer_blocks", old->newer_blocks);
		e4s_json_u64(&js, "first_jblk", old->first_jblk);
		e4s_json_u64(&js, "walked_blocks", old->nblocks);
		e4s_json_obj_end(&js);
	}
	if (wl)
		json_wlog(&js, wl);
	e4s_json_obj_end(&js);
	e4s_json_obj_end(&js);
	e4s_json_finish(&js);
}

/* ---- the run ------------------------------------------------------------ */

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcasecmp(s + n - m, suf);
}

static int same_path(const struct stat *st, const char *path)
{
	struct stat o;

	if (!path || stat(path, &o) < 0)
		return 0;
	if (S_ISBLK(st->st_mode) && S_ISBLK(o.st_mode))
		return st->st_rdev == o.st_rdev;
	return st->st_dev == o.st_dev && st->st_ino == o.st_ino;
}

int e4s_stats_check_plot(const char *prog, const char *plot,
			 const char *image, const char *journal_dev)
{
	char dir[4096];
	const char *slash;
	struct stat st;

	if (!plot)
		return 0;
	if (!has_suffix(plot, ".svg") && !has_suffix(plot, ".png")) {
		fprintf(stderr, "%s: --plot %s: the file name must end in .svg "
			"or .png\n", prog, plot);
		return 16;
	}
	if (!e4s_plot_available()) {
		fprintf(stderr, "%s: --plot: e4tools was built without cairo "
			"(configure --without-cairo, or no libcairo2-dev): no "
			"plots; nothing done\n", prog);
		return 16;
	}
	if (stat(plot, &st) == 0) {
		if (same_path(&st, image) || same_path(&st, journal_dev)) {
			fprintf(stderr, "%s: --plot %s is the %s itself; "
				"nothing done\n", prog, plot,
				same_path(&st, image) ? "image" :
				"journal device");
			return 16;
		}
		if (!S_ISREG(st.st_mode)) {
			fprintf(stderr, "%s: --plot %s exists and is not a "
				"regular file; nothing done\n", prog, plot);
			return 16;
		}
	}
	slash = strrchr(plot, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (slash == plot ? 1 :
		 (int)(slash - plot)) : 1, slash ? plot : ".");
	if (access(dir, W_OK | X_OK) < 0) {
		com_err(prog, errno, "while checking that --plot %s can be "
			"written; nothing done", plot);
		return 16;
	}
	return 0;
}

int e4s_stats_run(const char *prog, const struct e4s_req *r,
		  const char *image, e4_journal_t j)
{
	return e4s_stats_run_wlog(prog, r, image, j, NULL);
}

int e4s_stats_run_wlog(const char *prog, const struct e4s_req *r,
		       const char *image, e4_journal_t j,
		       const struct e4s_stats_wlog *wl)
{
	struct e4_jstats *live = NULL, *ost = NULL;
	struct e4_jscan_old *old = NULL;
	struct e4_jscan *s = NULL;
	const char *why = NULL;
	struct e4_mount_refusal mr;
	struct e4_plan *plan = NULL;
	char title[512];
	errcode_t retval;
	int rc = 0, kind = LOG_LIVE;

	retval = e4_journal_scan(j, 0, 0, &s);
	if (retval) {
		com_err(prog, retval, "while scanning the journal of %s",
			image);
		return 8;
	}
	if (s->fail) {
		com_err(prog, s->fail, "in the journal of %s: the kernel's "
			"recovery fails at jblock %llu, nothing of this log "
			"would be replayed; no statistics (see e4replay -n)",
			image, (unsigned long long)s->stop_jblk);
		rc = E4R_EXIT_REFUSES;
		goto out;
	}
	if (s->corrupt)
		rc |= 4;
	/* as plain e4replay: a log with needs_recovery clear exits 4, one
	 * the kernel replays (or wipes) and then refuses to mount 12 */
	retval = e4_plan_build(j, s, &plan);
	if (retval) {
		com_err(prog, retval, "while planning the replay of %s",
			image);
		rc = 8;
		goto out;
	}
	e4_plan_mount_refused(plan, &mr);
	if (s->start_jblk && !e4s_is_journal_dev(j->fs) &&
	    !e4s_needs_recovery(j->fs)) {
		kind = LOG_DISCARDED;
		rc |= 4;
	}
	if (mr.err) {
		com_err(prog, mr.err, "in the journal of %s: %s (at tid %u); "
			"see e4replay -n", image, mr.wiped ?
			"needs_recovery is clear: the kernel discards the log "
			"and refuses that mount" : "the kernel replays the "
			"live log, then refuses to mount", mr.tid);
		if (!mr.wiped)
			kind = LOG_MOUNT_REFUSED;
		rc = E4R_EXIT_REFUSES;
	}
	retval = e4_jstats_compute(s->trans, s->ncommitted, s->log_end,
				   &live);
	if (!retval && r->stats_all)
		retval = e4_journal_scan_old(j, s, &old);
	if (!retval && old)
		retval = e4_jstats_compute(old->trans, old->ntrans,
					   s->log_end, &ost);
	if (retval) {
		com_err(prog, retval, "while reading the %slog of %s",
			r->stats_all ? "older " : "", image);
		rc = 8;
		goto out;
	}
	if (r->json) {
		print_json(image, s, live, old, ost, j->blocksize, wl, kind);
	} else {
		print_text(image, s, live, old, ost, j->blocksize, kind);
		if (wl)
			print_wlog_text(wl);
	}
	fflush(stdout);
	if (r->plot && wl) {
		snprintf(title, sizeof(title), "%s: %zu commit writes in %"
			 PRIu64 " entries", wl->log_path, wl->ws->ncommits,
			 wl->ws->all.entries);
		retval = e4s_plot_wlog(r->plot, title, wl->ws, &why);
	} else if (r->plot) {
		if (ost)
			snprintf(title, sizeof(title), "%s: %" PRIu64 " live "
				 "transactions, %" PRIu64 " older (hollow: not "
				 "replayed)", image, live->transactions,
				 ost->transactions);
		else
			snprintf(title, sizeof(title), "%s: %" PRIu64
				 " transactions", image, live->transactions);
		retval = e4s_plot(r->plot, title, live, ost,
				  ost && ost->transactions &&
				  live->transactions ?
				  e4_jtrans_commit_diff_ns(&s->trans[0],
							 &old->trans[0]) / 1e9 : 0,
				  &why);
	}
	if (r->plot && retval) {
		if (why)
			fprintf(stderr, "%s: while drawing %s: %s\n", prog,
				r->plot, why);
		else
			com_err(prog, retval, "while writing %s", r->plot);
		rc |= 8;
	}
out:
	e4_plan_free(plan);
	e4_jstats_free(live);
	e4_jstats_free(ost);
	e4_jscan_old_free(old);
	e4_jscan_free(s);
	return rc;
}

/* ---- e4replay --stats ---------------------------------------------------- */

int e4s_stats_main(const char *prog, const struct e4s_req *r)
{
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;
	int rc;

	rc = e4s_stats_check_plot(prog, r->plot, r->device, r->journal_dev);
	if (rc)
		return rc;
	if (e4s_open_fs(prog, r->device, E4S_OPEN_IGNORE_CSUM, NULL, &fs))
		return 8;
	retval = e4s_open_journal(prog, fs, r->journal_dev, 0, &j);
	if (retval) {
		char w[PATH_MAX + 64];

		/* A journal superblock the kernel refuses: 44, as at every
		 * entry point (e4_mount_decide). */
		rc = e4s_journal_open_failed(prog, fs, retval,
					     e4s_journal_where(w, sizeof(w),
							       r->device,
							       r->journal_dev));
	} else {
		rc = e4s_stats_run(prog, r, r->device, j);
	}
	e4_journal_close(j);
	ext2fs_close_free(&fs);
	return rc;
}
