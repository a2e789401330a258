/*
 * replay_wlog.h --- e4replay's --write-log front end (replay_wlog.c):
 * --list, --at and --check-order over a dm-log-writes log; its printers
 * are shared with e4debug's wlog commands.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_MISC_REPLAY_WLOG_H
#define E4_MISC_REPLAY_WLOG_H

#include "e4.h"

/* e4replay_is_wlog() - nonzero if argv has --write-log. */
int e4replay_is_wlog(int argc, char **argv);

/*
 * e4replay_wlog_main() - run `e4replay --write-log=LOG` with --list, --at
 * or --check-order (see e4replay(8), WRITE LOGS).  Returns the exit
 * status.
 */
int e4replay_wlog_main(int argc, char **argv);

/* An open log and device (e4replay_wlog_open()). */
struct e4w_input {
	const char	*log_path, *base_path;
	e4_wlog_t	log;
	io_channel	base;		/* BASE, read-only */
	e4_wlog_dev_t	dev;
};

/*
 * e4replay_wlog_open() - open LOG and BASE read-only, parse and index the
 * log; prints one line naming the file and the problem on failure.
 * Returns 0 or the error.
 */
errcode_t e4replay_wlog_open(const char *prog, const char *log_path,
			     const char *base_path, struct e4w_input *in);

/* e4replay_wlog_close() - release what e4replay_wlog_open() opened. */
void e4replay_wlog_close(struct e4w_input *in);

/* e4replay_wlog_print_list() - the --list output (text or JSON). */
void e4replay_wlog_print_list(const struct e4w_input *in, int json,
			      int marks);

#endif
