/*
 * do_stats.c --- e4debug's jstats command: the journal statistics of
 * `e4replay --stats`, run, printed and plotted as it does
 * (lib/support/replay_stats.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "open.h"
#include "stats.h"

void do_jstats(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = { E4S_O_JSON, E4S_O_PLOT, E4S_O_ALL, 0 };
	struct e4debug *st = E4DEBUG(infop);
	e4_journal_t j = NULL;
	struct e4s_req r;
	errcode_t retval;

	(void)sci_idx;
	if (e4debug_parse(st, argc, argv, accept, 0, 0, "[--json] "
			  "[--plot FILE.svg|FILE.png] [--all]", &r) < 0 ||
	    e4debug_check_fs_open(st, argv[0]))
		return;
	if (e4s_stats_check_plot(argv[0], r.plot, st->device,
				 st->journal_dev)) {
		st->exit_status = 1;
		return;
	}
	retval = e4s_open_journal(argv[0], st->fs, st->journal_dev, 0, &j);
	if (retval) {
		char w[PATH_MAX + 64];

		com_err(argv[0], retval, "while opening the journal of %s",
			e4s_journal_where(w, sizeof(w), st->device,
					  st->journal_dev));
		st->exit_status = 1;
	} else if (e4s_stats_run(argv[0], &r, st->device, j) & ~4) {
		st->exit_status = 1;	/* corruption alone is a finding */
	}
	e4_journal_close(j);
}
