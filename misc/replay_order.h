/*
 * replay_order.h --- e4replay's --check-order front end (replay_order.c),
 * called from e4replay's main().
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_MISC_REPLAY_ORDER_H
#define E4_MISC_REPLAY_ORDER_H

#include "e4.h"

/* e4replay_is_check_order() - nonzero if argv asks for --check-order. */
int e4replay_is_check_order(int argc, char **argv);

/*
 * e4replay_order_main() - run `e4replay --check-order [--json] [--upto TID]
 * [--data-mode=auto|ordered|journal|writeback] [--outside=auto|yes|no]
 * [--stamped=auto|yes|no] [--list-mappings] [-j JOURNAL_DEV]
 * [-o OUTPUT | --replay] IMAGE`: the check, read-only.  Returns its exit
 * bits: 4 (ordering violations or journal corruption found), 8
 * (operational error), 16 (usage error), 0 clean.
 * When -o or --replay asks for the replay after the check and the check
 * ran, *@rargc / *@rargv are set to the plain e4replay command line that
 * does it ([--json] [--upto TID] [-j DEV] [-o OUTPUT] IMAGE; optind reset),
 * for e4replay's main() to carry on with; otherwise *@rargc is 0.
 */
int e4replay_order_main(int argc, char **argv, int *rargc, char ***rargv);

/* The check's report as text or JSON on stdout (also e4debug's
 * check_order). */
void e4replay_order_print_text(const char *image,
			       const struct e4_jscan *scan,
			       const struct e4_order_report *rep);
void e4replay_order_print_json(const char *image,
			       const struct e4_jscan *scan,
			       const struct e4_order_report *rep);

#endif
