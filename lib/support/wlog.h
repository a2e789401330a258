/*
 * wlog.h --- the write-log part of e4replay, shared with e4debug's
 * wlog_list, wlog_at, wlog_check and wlog_stats
 * (lib/support/replay_wlog.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_WLOG_H
#define E4_SUPPORT_WLOG_H

#include "e4.h"
#include "options.h"

/*
 * e4s_wlog_run() - `e4replay --write-log=LOG` with r->device as BASE and
 * one of --list (r->wlog_list), --at (r->wlog_at, with -o / -n),
 * --check-order (--data-mode, --marks) and --stats (r->stats, with
 * --plot: replay_stats.c), text or --json, -v: refuses
 * option combinations that do not go together (one line, 16), opens LOG
 * and BASE read-only (one line naming the file and the problem, 8), and
 * prints the report.  Returns the exit status (E4R_EXIT_*: violations
 * E4R_EXIT_VIOLATION, an unrecoverable point E4R_EXIT_CORRUPT, an
 * incomplete check E4R_EXIT_ERROR; see e4replay(8), WRITE LOGS).
 */
int e4s_wlog_run(const char *prog, const struct e4s_req *r);

/* An open log and device (e4s_wlog_open()). */
struct e4s_wlog_input {
	const char	*log_path, *base_path;
	e4_wlog_t	log;
	io_channel	base;		/* BASE, read-only */
	e4_wlog_dev_t	dev;		/* the whole log over BASE */
	/* Where the run starts (--start-mark, --start-entry, or the first
	 * point with a file system when BASE has none): entry @origin, the
	 * device at @origin - 1 as BASE (@sdev; NULL when @origin is 0);
	 * @nofs points before it held no file system yet. */
	uint64_t	origin, nofs;
	int		start_given;	/* --start-mark / --start-entry */
	e4_wlog_dev_t	sdev;
};

/*
 * e4s_wlog_open() - open LOG (r->write_log) and BASE (r->device)
 * read-only (BASE's channel through e4s_fault_wrap()), parse and index
 * the log, and find where the run starts: --start-mark (the mark's
 * entry) or --start-entry (r->wlog_start_*), else entry 0; for
 * --check-order, --check-durability and --stats, when the state before
 * that entry holds no file system with a journal (a log recorded from
 * before mkfs), the entry after the first persistence point that holds
 * one (e4_wlog_find_start(); the points before it counted in in->nofs).
 * Prints one line naming the file (and the entry) and the problem on
 * failure.  Returns 0 or the error (E4_ERR_WLOG_NO_SUCH_MARK,
 * E4_ERR_WLOG_NO_SUCH_ENTRY: a usage error).
 */
errcode_t e4s_wlog_open(const char *prog, const struct e4s_req *r,
			struct e4s_wlog_input *in);

/* e4s_wlog_close() - release what e4s_wlog_open() opened. */
void e4s_wlog_close(struct e4s_wlog_input *in);

/* e4s_wlog_print_list() - the --list report (text or JSON) on stdout. */
void e4s_wlog_print_list(const struct e4s_wlog_input *in, int json,
			 int marks);

#endif
