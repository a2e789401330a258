/*
 * do_unwritten.c --- e4debug's unwritten-extent commands: ex_unwritten /
 * lsuw (list, as `e4tune --list-unwritten`), mark_unwritten and
 * mark_written (as e4tune --mark-unwritten / --mark-written), through
 * lib/support/tune_unwritten.c, shared with e4tune.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>

#include "e4debug.h"
#include "parse.h"
#include "tune.h"

void do_list_unwritten(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = { 'v', E4S_O_JSON, E4S_O_REPLAYED, 0 };
	static const e4s_tune_lister list[] = { e4s_tune_unwritten_list };
	struct e4debug *st = E4DEBUG(infop);
	struct e4s_req r;
	int first;

	(void)sci_idx;
	first = e4debug_parse(st, argc, argv, accept, 0, -1,
			      "[-v] [--json] [--replayed] [FILE|<ino>]...",
			      &r);
	if (first < 0 || e4debug_check_fs_open(st, argv[0]))
		return;
	r.list_unwritten = 1;
	r.uw_files = argv + first;
	r.uw_nfiles = argc - first;
	if (e4s_tune_list(argv[0], &r, st->fs, list, 1))
		st->exit_status = 1;
}

/* mark_unwritten / mark_written FILE LBLK LEN: @unwritten says which. */
static void do_mark(int argc, char **argv, struct e4debug *st, int unwritten)
{
	static const int accept_uw[] = { 'n', 'f', E4S_O_SKIP_HOLES, 0 };
	static const int accept_w[] = { 'n', 'f', E4S_O_KEEP_CONTENTS,
					E4S_O_SKIP_HOLES, 0 };
	struct e4s_req r;
	struct e4s_mark *m = &r.uw_marks[0];
	uint64_t n;
	int first;

	first = e4debug_parse(st, argc, argv, unwritten ? accept_uw : accept_w,
			      3, 3, unwritten ?
			      "[-n] [-f] [--skip-holes] FILE LBLK LEN" :
			      "[-n] [-f] [--keep-contents] [--skip-holes] "
			      "FILE LBLK LEN", &r);
	if (first < 0)
		return;
	if (e4s_parse_num(argv[0], "LBLK", argv[first + 1], UINT64_MAX, &n))
		goto bad;
	m->lblk = n;
	if (e4s_parse_num(argv[0], "LEN", argv[first + 2], UINT64_MAX, &n))
		goto bad;
	m->len = n;
	if (r.dry_run ? e4debug_check_fs_open(st, argv[0]) :
	    e4debug_check_fs_rw(st, argv[0]))
		return;
	m->file = argv[first];
	m->unwritten = unwritten;
	r.uw_nmarks = 1;
	if (e4s_tune_unwritten_write(argv[0], &r, st->fs))
		st->exit_status = 1;
	return;
bad:
	st->exit_status = 1;
}

void do_mark_unwritten(int argc, char **argv, int sci_idx, void *infop)
{
	(void)sci_idx;
	do_mark(argc, argv, E4DEBUG(infop), 1);
}

void do_mark_written(int argc, char **argv, int sci_idx, void *infop)
{
	(void)sci_idx;
	do_mark(argc, argv, E4DEBUG(infop), 0);
}
