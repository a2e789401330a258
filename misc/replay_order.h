/*
 * replay_order.h --- e4replay's --check-order front end (replay_order.c),
 * called from e4replay's main().
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_MISC_REPLAY_ORDER_H
#define E4_MISC_REPLAY_ORDER_H

#include "e4.h"

/*
 * Replays the journal of @image (in place when @output is NULL, else into
 * the copy @output), up to tid @upto when @has_upto; returns e4replay's
 * exit bits (1 replayed, 4 corruption, 8 operational error).  Supplied by
 * e4replay.c; NULL when replay is not available.
 */
typedef int (*e4replay_replay_fn)(const char *prog, const char *image,
				  const char *output, int has_upto,
				  uint32_t upto);

/* e4replay_is_check_order() - nonzero if argv asks for --check-order. */
int e4replay_is_check_order(int argc, char **argv);

/*
 * e4replay_order_main() - run `e4replay --check-order [--json] [--upto TID]
 * [--data-mode=auto|ordered|journal|writeback] [--outside=auto|yes|no]
 * [--stamped=auto|yes|no] [-o OUTPUT | --replay] IMAGE` and return the exit
 * status: the sum of 4 (ordering violations or journal corruption found),
 * 1 (replayed, only with -o/--replay), 8 (operational error), 16 (usage).
 * @replay performs the replay after the check (may be NULL).
 */
int e4replay_order_main(int argc, char **argv, e4replay_replay_fn replay);

/* TEMPORARY (replay_oscan.c) until e4_journal_scan() lands. */
errcode_t order_private_scan(e4_journal_t j, struct e4_jscan *s);
void order_private_scan_free(struct e4_jscan *s);

#endif
