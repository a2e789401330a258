/*
 * do_journal.c --- e4debug's journal commands: jsb shows the journal
 * superblock as `e4tune -f -l` shows its journal part (even one that
 * fails validation, with exit status 1): lib/support/tune_journal.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>

#include "e4debug.h"
#include "tune.h"

void do_show_journal_super(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = { E4S_O_JSON, 0 };
	static const e4s_tune_lister list[] = { e4s_tune_journal_list };
	struct e4debug *st = E4DEBUG(infop);
	struct e4s_req r;

	(void)sci_idx;
	if (e4debug_parse(st, argc, argv, accept, 0, 0, "[--json]", &r) < 0 ||
	    e4debug_check_fs_open(st, argv[0]))
		return;
	r.force = 1;
	if (e4s_tune_list(argv[0], &r, st->fs, list, 1))
		st->exit_status = 1;
}
