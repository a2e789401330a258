/*
 * do_itable.c --- e4debug's lazy inode table commands: itable (the
 * ITABLE_ZEROED summary or per-group table, as `e4tune -l [-v]` prints
 * it) and itable_finish (as e4tune -E lazy_itable_init=0), through
 * lib/support/tune_itable.c, shared with e4tune.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>

#include "e4debug.h"
#include "tune.h"

void do_itable(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = { 'v', E4S_O_JSON, 0 };
	static const e4s_tune_lister list[] = { e4s_tune_itable_list };
	struct e4debug *st = E4DEBUG(infop);
	struct e4s_req r;

	(void)sci_idx;
	if (e4debug_parse(st, argc, argv, accept, 0, 0, "[-v] [--json]",
			  &r) < 0 || e4debug_check_fs_open(st, argv[0]))
		return;
	if (e4s_tune_list(argv[0], &r, st->fs, list, 1))
		st->exit_status = 1;
}

void do_itable_finish(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = { 'n', 'f', 0 };
	struct e4debug *st = E4DEBUG(infop);
	struct e4s_req r;

	(void)sci_idx;
	if (e4debug_parse(st, argc, argv, accept, 0, 0, "[-n] [-f]", &r) < 0)
		return;
	if (r.dry_run ? e4debug_check_fs_open(st, argv[0]) :
	    e4debug_check_fs_rw(st, argv[0]))
		return;
	r.lazy_itable_init = 0;
	if (e4s_tune_itable_write(argv[0], &r, st->fs))
		st->exit_status = 1;
}
