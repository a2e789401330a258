/*
 * replay_stats.h --- `e4replay --stats` and e4debug's jstats: journal
 * statistics (libe4's stats.c, oldlog.c) printed as text or JSON
 * (replay_stats.c) and drawn with cairo (replay_plot.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_MISC_REPLAY_STATS_H
#define E4_MISC_REPLAY_STATS_H

#include "e4.h"

/* What --stats was asked for. */
struct e4r_stats_opts {
	int		json;		/* --json */
	int		all;		/* --all: older transactions too */
	const char	*plot;		/* --plot FILE.svg|FILE.png, or NULL */
};

/* e4replay_is_stats() - nonzero if argv asks for --stats. */
int e4replay_is_stats(int argc, char **argv);

/*
 * e4replay_stats_main() - run `e4replay --stats [--json] [--plot FILE]
 * [--all] [-j JOURNAL_DEV] IMAGE`, read-only.  Returns the exit status:
 * 0, 4 (journal corruption met: the figures cover what the kernel would
 * replay), 8 operational error (12: a log the kernel refuses), 16 usage.
 */
int e4replay_stats_main(int argc, char **argv);

/*
 * e4r_stats_check_plot() - before anything is opened: refuse (one line,
 * returns 16) a --plot FILE that does not end in .svg or .png, names
 * @image or @journal_dev (stat), exists and is not a regular file, or
 * whose directory is not writable; and say so (16) when the program was
 * built without cairo.  Returns 0 when FILE can be written.
 */
int e4r_stats_check_plot(const char *prog, const char *plot,
			 const char *image, const char *journal_dev);

/*
 * e4r_stats_run() - scan the journal @j of the file system opened from
 * @image, compute the statistics of the live log (and with o->all of the
 * older transactions after it), print them as text or JSON on stdout and
 * draw o->plot.  Returns the exit status as e4replay_stats_main().
 */
int e4r_stats_run(const char *prog, const char *image, e4_journal_t j,
		  const struct e4r_stats_opts *o);

/* ---- replay_plot.c ---- */

/* e4r_plot_available() - nonzero when built with cairo. */
int e4r_plot_available(void);

/*
 * e4r_plot() - draw the commit timeline (seconds since the first commit
 * of @live on x, log blocks per transaction on y, one mark per
 * transaction; @old's marks, if not NULL, hollow and @old_offset seconds
 * from that first commit) above the histogram of commit intervals, into
 * @path: SVG or PNG by its suffix.  Written under a temporary name in
 * the same directory, synced and renamed over @path on success.
 * Returns 0 or an errno (EIO when cairo failed: *@why is then cairo's
 * message, else NULL).
 */
errcode_t e4r_plot(const char *path, const char *title,
		   const struct e4_jstats *live, const struct e4_jstats *old,
		   double old_offset, const char **why);

#endif
