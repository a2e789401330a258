/*
 * do_stats.c --- e4debug's jstats command: the journal statistics of
 * `e4replay --stats` (libe4's stats.c, printed and plotted by
 * misc/replay_stats.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "../misc/replay_stats.h"

void do_jstats(int argc, char **argv, int sci_idx, void *infop)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "plot", required_argument, NULL, 'P' },
		{ "all", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 }
	};
	struct e4debug *st = E4DEBUG(infop);
	struct e4r_stats_opts o;
	e4_journal_t j = NULL;
	errcode_t retval;
	int c;

	(void)sci_idx;
	memset(&o, 0, sizeof(o));
	optind = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			o.json = 1;
			break;
		case 'P':
			o.plot = optarg;
			break;
		case 'A':
			o.all = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	if (e4r_stats_check_plot(argv[0], o.plot, st->device,
				 st->journal_dev)) {
		st->exit_status = 1;
		return;
	}
	retval = e4_journal_open(st->fs, st->journal_dev, 0, &j);
	if (retval) {
		com_err(argv[0], retval, "while opening the journal of %s",
			st->device);
		st->exit_status = 1;
		e4_journal_close(j);
		return;
	}
	if (e4r_stats_run(argv[0], st->device, j, &o) & ~4)
		st->exit_status = 1;
	e4_journal_close(j);
	return;
usage:
	fprintf(stderr, "Usage: %s [--json] [--plot FILE.svg|FILE.png] "
		"[--all]\n", argv[0]);
	st->exit_status = 1;
}
