/*
 * do_itable.c --- e4debug's lazy inode table commands: itable (the
 * ITABLE_ZEROED summary or per-group table, as `e4tune -l [-v]` prints
 * it) and itable_finish (as e4tune -E lazy_itable_init=0), through
 * misc/tune_itable.c, shared with e4tune.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>

#include "tune_args.h"

void do_itable(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4tune_opts o;

	(void)sci_idx;
	if (e4debug_tune_opts(argc, argv, "vJ", &o) != argc) {
		fprintf(stderr, "Usage: %s [-v] [--json]\n", argv[0]);
		st->exit_status = 1;
		return;
	}
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	e4debug_tune_list(st, argv[0], &o, e4tune_itable_list);
}

void do_itable_finish(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4tune_opts o;

	(void)sci_idx;
	if (e4debug_tune_opts(argc, argv, "nf", &o) != argc) {
		fprintf(stderr, "Usage: %s [-n] [-f]\n", argv[0]);
		st->exit_status = 1;
		return;
	}
	if (o.dry_run ? e4debug_check_fs_open(st, argv[0]) :
	    e4debug_check_fs_rw(st, argv[0]))
		return;
	o.device = st->device;
	o.lazy_itable_init = 0;
	if (e4tune_itable_write(argv[0], &o, st->fs))
		st->exit_status = 1;
}
