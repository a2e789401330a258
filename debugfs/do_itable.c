/*
 * do_itable.c --- e4debug's lazy inode table commands: itable (the
 * ITABLE_ZEROED summary or per-group table, as `e4tune -l [-v]` prints
 * it) and itable_finish (as e4tune -E lazy_itable_init=0), through
 * misc/tune_itable.c, shared with e4tune.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "../misc/e4tune.h"

void do_itable(int argc, char **argv, int sci_idx, void *infop)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 }
	};
	struct e4debug *st = E4DEBUG(infop);
	struct e4tune_opts o;
	struct e4_json js;
	int c;

	(void)sci_idx;
	memset(&o, 0, sizeof(o));
	optind = 0;
	while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			o.verbose = 1;
			break;
		case 'J':
			o.json = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	o.device = st->device;
	e4_json_init(&js, stdout);
	if (o.json)
		e4_json_obj_begin(&js, NULL);
	if (e4tune_itable_list(argv[0], &o, st->fs, o.json ? &js : NULL))
		st->exit_status = 1;
	if (o.json) {
		e4_json_obj_end(&js);
		e4_json_finish(&js);
	}
	return;
usage:
	fprintf(stderr, "Usage: %s [-v] [--json]\n", argv[0]);
	st->exit_status = 1;
}

void do_itable_finish(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4tune_opts o;
	int c;

	(void)sci_idx;
	memset(&o, 0, sizeof(o));
	optind = 0;
	while ((c = getopt(argc, argv, "nf")) != -1) {
		switch (c) {
		case 'n':
			o.dry_run = 1;
			break;
		case 'f':
			o.force = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	if (o.dry_run ? e4debug_check_fs_open(st, argv[0]) :
	    e4debug_check_fs_rw(st, argv[0]))
		return;
	o.device = st->device;
	o.lazy_itable_init = 0;
	if (e4tune_itable_write(argv[0], &o, st->fs))
		st->exit_status = 1;
	return;
usage:
	fprintf(stderr, "Usage: %s [-n] [-f]\n", argv[0]);
	st->exit_status = 1;
}
