/*
 * do_wlog.c --- e4debug's write-log commands over the open file system as
 * BASE: wlog_list, wlog_at, wlog_check, wlog_durable and wlog_stats run
 * what `e4replay --write-log=LOG --list | --at=POINT | --check-order ... |
 * --check-durability | --stats BASE`
 * runs
 * (lib/support/replay_wlog.c), so they print what e4replay prints.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include "e4debug.h"
#include "options.h"
#include "replay.h"
#include "wlog.h"

/* Parse, then run e4s_wlog_run() with the operands LOG (and POINT). */
static void run(int argc, char **argv, void *infop, const int *accept,
		int nops, const char *usage, int mode)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4s_req r;
	int first;

	first = e4debug_parse(st, argc, argv, accept, nops, nops, usage, &r);
	if (first < 0 || e4debug_check_fs_open(st, argv[0]))
		return;
	r.write_log = argv[first];
	if (mode == 'l')
		r.wlog_list = 1;
	else if (mode == 'a')
		r.wlog_at = argv[first + 1];
	else if (mode == 's')
		r.stats = 1;
	else if (mode == 'd')
		r.check_durability = 1;
	else
		r.check_order = 1;
	if (e4s_wlog_run(argv[0], &r) & (E4R_EXIT_ERROR | E4R_EXIT_USAGE))
		st->exit_status = 1;
}

void do_wlog_list(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = {
		E4S_O_JSON, E4S_O_MARKS, E4S_O_START_MARK, E4S_O_START_ENTRY, 0
	};

	(void)sci_idx;
	run(argc, argv, infop, accept, 1, "[--json] [--marks] "
	    "[--start-mark=LABEL | --start-entry=N] LOG", 'l');
}

void do_wlog_at(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = {
		'v', 'n', 'o', E4S_O_JSON, E4S_O_DROP, E4S_O_DURABLE,
		E4S_O_START_MARK, E4S_O_START_ENTRY, 0
	};

	(void)sci_idx;
	run(argc, argv, infop, accept, 2, "[-v] [--json] [--drop=E1,E2,...] "
	    "[--durable] [-n | -o OUTPUT] "
	    "[--start-mark=LABEL | --start-entry=N] LOG ENTRY|MARK", 'a');
}

void do_wlog_check(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = {
		'v', E4S_O_JSON, E4S_O_MARKS, E4S_O_DATA_MODE, E4S_O_REORDER,
		E4S_O_START_MARK, E4S_O_START_ENTRY, 0
	};

	(void)sci_idx;
	run(argc, argv, infop, accept, 1, "[-v] [--json] [--marks] [--reorder] "
	    "[--data-mode=auto|ordered|journal|writeback] "
	    "[--start-mark=LABEL | --start-entry=N] LOG", 'c');
}

void do_wlog_durable(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = {
		'v', E4S_O_JSON, E4S_O_START_MARK, E4S_O_START_ENTRY, 0
	};

	(void)sci_idx;
	run(argc, argv, infop, accept, 1, "[-v] [--json] "
	    "[--start-mark=LABEL | --start-entry=N] LOG", 'd');
}

void do_wlog_stats(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = {
		E4S_O_JSON, E4S_O_PLOT, E4S_O_START_MARK, E4S_O_START_ENTRY, 0
	};

	(void)sci_idx;
	run(argc, argv, infop, accept, 1,
	    "[--json] [--plot FILE.svg|FILE.png] "
	    "[--start-mark=LABEL | --start-entry=N] LOG", 's');
}
