/*
 * do_unwritten.c --- e4debug's unwritten-extent commands: ex_unwritten /
 * lsuw (list, as `e4tune --list-unwritten`), mark_unwritten and
 * mark_written (as e4tune --mark-unwritten / --mark-written), through
 * misc/tune_unwritten.c, shared with e4tune.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "../misc/e4tune.h"
#include "tune_args.h"

void do_list_unwritten(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4tune_opts o;
	int first;

	(void)sci_idx;
	first = e4debug_tune_opts(argc, argv, "vJR", &o);
	if (first < 0) {
		fprintf(stderr, "Usage: %s [-v] [--json] [--replayed] "
			"[FILE|<ino>]...\n", argv[0]);
		st->exit_status = 1;
		return;
	}
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	o.list_unwritten = 1;
	o.uw_files = argv + first;
	o.uw_nfiles = argc - first;
	e4debug_tune_list(st, argv[0], &o, e4tune_unwritten_list);
}

/* A block number or count in fs blocks: decimal, 0x hex (a leading 0 is
 * not octal); no sign. */
static int parse_blk(const char *s, blk64_t *v)
{
	unsigned long long n;

	if (e4_tool_parse_blk(s, strlen(s), &n))
		return -1;
	*v = n;
	return 0;
}

/* mark_unwritten / mark_written: the same parser, @unwritten says which. */
static void do_mark(int argc, char **argv, struct e4debug *st, int unwritten)
{
	struct e4tune_opts o;
	struct e4tune_mark *m = &o.uw_marks[0];

	/* Leaves getopt's optind at the first operand. */
	if (e4debug_tune_opts(argc, argv, unwritten ? "nfS" : "nfKS",
			      &o) < 0 || argc - optind != 3)
		goto usage;
	if (parse_blk(argv[optind + 1], &m->lblk) ||
	    parse_blk(argv[optind + 2], &m->len)) {
		fprintf(stderr, "%s: invalid block number or length "
			"'%s %s' (fs blocks)\n", argv[0], argv[optind + 1],
			argv[optind + 2]);
		st->exit_status = 1;
		return;
	}
	if (o.dry_run ? e4debug_check_fs_open(st, argv[0]) :
	    e4debug_check_fs_rw(st, argv[0]))
		return;
	m->file = argv[optind];
	m->unwritten = unwritten;
	o.uw_nmarks = 1;
	o.device = st->device;
	if (e4tune_unwritten_write(argv[0], &o, st->fs))
		st->exit_status = 1;
	return;
usage:
	fprintf(stderr, "Usage: %s [-n] [-f] %s[--skip-holes] FILE LBLK LEN\n",
		argv[0], unwritten ? "" : "[--keep-contents] ");
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
