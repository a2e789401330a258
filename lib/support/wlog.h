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
	e4_wlog_dev_t	dev;
};

/*
 * e4s_wlog_open() - open LOG and BASE read-only (BASE's channel through
 * e4s_fault_wrap()), parse and index the log; prints one line naming the
 * file (and the entry) and the problem on failure.  Returns 0 or the
 * error.
 */
errcode_t e4s_wlog_open(const char *prog, const char *log_path,
			const char *base_path, struct e4s_wlog_input *in);

/* e4s_wlog_close() - release what e4s_wlog_open() opened. */
void e4s_wlog_close(struct e4s_wlog_input *in);

/* e4s_wlog_print_list() - the --list report (text or JSON) on stdout. */
void e4s_wlog_print_list(const struct e4s_wlog_input *in, int json,
			 int marks);

#endif
