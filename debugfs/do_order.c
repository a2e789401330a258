/*
 * do_order.c --- e4debug's check_order command: the alloc-on-commit
 * ordering check, run and printed as `e4replay --check-order` does it
 * (lib/support/replay_order.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "open.h"
#include "replay.h"

void do_check_order(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = {
		E4S_O_JSON, E4S_O_UPTO, E4S_O_DATA_MODE, E4S_O_OUTSIDE,
		E4S_O_STAMPED, E4S_O_LIST_MAPPINGS, 0
	};
	struct e4debug *st = E4DEBUG(infop);
	struct e4_jscan *scan = NULL;
	struct e4_plan *plan = NULL;
	e4_journal_t j = NULL;
	struct e4s_req r;
	errcode_t retval;

	(void)sci_idx;
	if (e4debug_parse(st, argc, argv, accept, 0, 0, "[--json] "
			  "[--upto TID] "
			  "[--data-mode=auto|ordered|journal|writeback]\n"
			  "\t[--outside=auto|yes|no] [--stamped=auto|yes|no] "
			  "[--list-mappings]", &r) < 0 ||
	    e4debug_check_fs_open(st, argv[0]))
		return;
	retval = e4s_open_journal(argv[0], st->fs, st->journal_dev, 0, &j);
	if (retval) {
		char w[PATH_MAX + 64];

		com_err(argv[0], retval, "while opening the journal of %s",
			e4s_journal_where(w, sizeof(w), st->device,
					  st->journal_dev));
		st->exit_status = 1;
	} else if (e4s_replay_scan(argv[0], &r, j, &scan, &plan) ||
		   (e4s_order_run(argv[0], &r, st->fs, plan, st->device) &
		    (E4R_EXIT_ERROR | E4R_EXIT_USAGE))) {
		st->exit_status = 1;
	}
	e4_plan_free(plan);
	e4_jscan_free(scan);
	e4_journal_close(j);
}
