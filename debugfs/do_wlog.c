/*
 * do_wlog.c --- e4debug's write-log commands over the open file system as
 * BASE: wlog_list, wlog_at and wlog_check run `e4replay --write-log=LOG
 * --list | --at=POINT | --check-order ... BASE` (misc/replay_wlog.c), so
 * they print exactly what e4replay prints.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4debug.h"
#include "../misc/replay_wlog.h"

/*
 * Run e4replay's write-log mode @mode ("--list", "--at", "--check-order")
 * with the command's options, its last @npos arguments as LOG (and POINT
 * for --at) and the open fs's device as BASE.
 */
static void run(int argc, char **argv, void *infop, const char *mode,
		int npos, const char *usage)
{
	struct e4debug *st = E4DEBUG(infop);
	char logopt[4200], atopt[4200];
	char **av;
	int ac = 0, i, rc;

	if (argc < 1 + npos || argv[argc - 1][0] == '-' ||
	    (npos == 2 && argv[argc - 2][0] == '-')) {
		fprintf(stderr, "Usage: %s %s\n", argv[0], usage);
		st->exit_status = 1;
		return;
	}
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	av = calloc(argc + 4, sizeof(*av));
	if (!av) {
		st->exit_status = 1;
		return;
	}
	snprintf(logopt, sizeof(logopt), "--write-log=%s",
		 argv[argc - npos]);
	av[ac++] = "e4replay";
	av[ac++] = logopt;
	if (npos == 2) {
		snprintf(atopt, sizeof(atopt), "--at=%s", argv[argc - 1]);
		av[ac++] = atopt;
	} else {
		av[ac++] = (char *)mode;
	}
	for (i = 1; i < argc - npos; i++)
		av[ac++] = argv[i];
	av[ac++] = st->device;
	av[ac] = NULL;
	rc = e4replay_wlog_main(ac, av);
	fflush(stdout);
	if (rc & (8 | 16))
		st->exit_status = 1;
	free(av);
}

void do_wlog_list(int argc, char **argv, int sci_idx, void *infop)
{
	(void)sci_idx;
	run(argc, argv, infop, "--list", 1, "[--json] [--marks] LOG");
}

void do_wlog_at(int argc, char **argv, int sci_idx, void *infop)
{
	(void)sci_idx;
	run(argc, argv, infop, "--at", 2,
	    "[-v] [--json] [-o OUTPUT] LOG ENTRY|MARK");
}

void do_wlog_check(int argc, char **argv, int sci_idx, void *infop)
{
	(void)sci_idx;
	run(argc, argv, infop, "--check-order", 1,
	    "[-v] [--json] [--marks] "
	    "[--data-mode=auto|ordered|journal|writeback] LOG");
}
