/*
 * stats.h --- journal statistics, shared by `e4replay --stats` and
 * e4debug's jstats (and, with a write log, wlog_stats): libe4's stats.c,
 * oldlog.c and wlog_stats.c run and printed as text or JSON
 * (replay_stats.c) and drawn with cairo (replay_plot.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_STATS_H
#define E4_SUPPORT_STATS_H

#include "e4.h"
#include "options.h"

/* replay_stats.c */

/*
 * e4s_stats_check_plot() - before anything is opened: refuse (one line,
 * returns 16) a --plot FILE that does not end in .svg or .png, names
 * @image or @journal_dev (stat), exists and is not a regular file, or
 * whose directory is not writable; and say so (16) when the program was
 * built without cairo.  Returns 0 when there is no FILE or it can be
 * written.
 */
int e4s_stats_check_plot(const char *prog, const char *plot,
			 const char *image, const char *journal_dev);

/*
 * e4s_stats_run() - scan the journal @j of the file system opened from
 * @image, compute the statistics of the live log (with r->stats_all also
 * of the older transactions after it), print them as text or JSON
 * (r->json) on stdout and draw r->plot.  Returns the exit status: 0, 4
 * (journal corruption met: the figures cover what the kernel would
 * replay), 8 operational error, 12 a log the kernel refuses (one line,
 * no statistics).
 */
int e4s_stats_run(const char *prog, const struct e4s_req *r,
		  const char *image, e4_journal_t j);

/* The write-log part of a report (`e4replay --stats --write-log`). */
struct e4s_stats_wlog {
	const char	*log_path, *base_path;
	int64_t		point;		/* the entry whose device @j is (the
					 * log's last; -1: BASE itself) */
	const struct e4_wlog_stats *ws;
	uint64_t	start_entry;	/* a started run (--start-mark,
					 * --start-entry, no fs in BASE):
					 * its first entry, else 0 */
	uint64_t	no_fs_points;	/* points before it with no fs */
};

/*
 * e4s_stats_run_wlog() - e4s_stats_run() of the journal @j of the device
 * at entry wl->point of a write log (named @image), with @wl's figures
 * (libe4's e4_wlog_stats()) after the journal's: text, or the "write_log"
 * object of the JSON "stats" (@wl NULL: e4s_stats_run()).  Same exit
 * status.
 */
int e4s_stats_run_wlog(const char *prog, const struct e4s_req *r,
		       const char *image, e4_journal_t j,
		       const struct e4s_stats_wlog *wl);

/*
 * e4s_stats_main() - `e4replay --stats`: check r->plot, open r->device
 * read-only and its journal (r->journal_dev), e4s_stats_run().  Returns
 * the exit status as e4s_stats_run(), or 16 for a refused --plot.
 */
int e4s_stats_main(const char *prog, const struct e4s_req *r);

/* replay_plot.c */

/* e4s_plot_available() - nonzero when built with cairo. */
int e4s_plot_available(void);

/*
 * e4s_plot() - draw the commit timeline (seconds since the first commit
 * of @live on x, log blocks per transaction on y, one mark per
 * transaction; @old's marks, if not NULL, hollow and @old_offset seconds
 * from that first commit) above the histogram of commit intervals, into
 * @path: SVG or PNG by its suffix.  Written under a temporary name in
 * the same directory, synced and renamed over @path on success.
 * Returns 0 or an errno (EIO when cairo failed: *@why is then cairo's
 * message, else NULL).
 */
errcode_t e4s_plot(const char *path, const char *title,
		   const struct e4_jstats *live, const struct e4_jstats *old,
		   double old_offset, const char **why);

/*
 * e4s_plot_wlog() - draw the write-log figures of @ws into @path (SVG or
 * PNG by its suffix): above, the fs blocks written per commit write
 * (data and journal area, log10(1 + blocks) scale) by the entry of the
 * commit write; below, the FLUSH entries (bars) and files with new
 * mappings (marks) per commit write.  Written as e4s_plot() writes.
 * Returns 0 or an errno (EIO when cairo failed, *@why its message).
 */
errcode_t e4s_plot_wlog(const char *path, const char *title,
			const struct e4_wlog_stats *ws, const char **why);

#endif
