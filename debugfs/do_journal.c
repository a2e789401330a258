/*
 * do_journal.c --- e4debug's journal commands: show the journal
 * superblock.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <et/com_err.h>

#include "tune_args.h"

void do_show_journal_super(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	e4_journal_t j = NULL;
	struct e4tune_opts o;
	struct e4_json js;
	errcode_t retval;

	(void)sci_idx;
	if (e4debug_tune_opts(argc, argv, "J", &o) != argc) {
		fprintf(stderr, "Usage: %s [--json]\n", argv[0]);
		st->exit_status = 1;
		return;
	}
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	retval = e4_journal_open(st->fs, st->journal_dev, 0, &j);
	if (retval) {
		com_err(argv[0], retval, "while reading journal superblock "
			"of %s", st->journal_dev ? st->journal_dev :
			st->device);
		st->exit_status = 1;
		if (!j)
			return;
	}
	if (o.json) {
		e4_json_init(&js, stdout);
		e4_json_obj_begin(&js, NULL);
		e4tune_print_jsb_json(j, st->fs, e4_jsb_csum_ok(j->sb), &js);
		e4_json_obj_end(&js);
		e4_json_finish(&js);
	} else {
		e4tune_print_jsb_text(j, st->fs, e4_jsb_csum_ok(j->sb));
	}
	e4_journal_close(j);
}
