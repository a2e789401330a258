/*
 * tune_args.c --- what the e4debug commands that run e4tune's code
 * (do_itable.c, do_unwritten.c, do_journal.c) share: their options,
 * parsed into e4tune's struct e4tune_opts, and the --json frame around
 * e4tune's listers.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "e4debug.h"
#include "tune_args.h"

int e4debug_tune_opts(int argc, char **argv, const char *accept,
		      struct e4tune_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "replayed", no_argument, NULL, 'R' },
		{ "keep-contents", no_argument, NULL, 'K' },
		{ "skip-holes", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	char shortopts[4], *p = shortopts;
	const char *s;
	int c;

	for (s = "vnf"; *s; s++)
		if (strchr(accept, *s))
			*p++ = *s;
	*p = 0;
	memset(o, 0, sizeof(*o));
	optind = 0;	/* parse this argv from its start */
	while ((c = getopt_long(argc, argv, shortopts, longopts,
				NULL)) != -1) {
		if (c == '?' || !strchr(accept, c))
			return -1;
		switch (c) {
		case 'v':
			o->verbose = 1;
			break;
		case 'n':
			o->dry_run = 1;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'J':
			o->json = 1;
			break;
		case 'R':
			o->uw_replayed = 1;
			break;
		case 'K':
			o->keep_contents = 1;
			break;
		case 'S':
			o->skip_holes = 1;
			break;
		}
	}
	return optind;
}

void e4debug_tune_list(struct e4debug *st, const char *cmd,
		       struct e4tune_opts *o, e4debug_tune_lister list)
{
	struct e4_json js;

	o->device = st->device;
	o->journal_dev = st->journal_dev;
	e4_json_init(&js, stdout);
	if (o->json)
		e4_json_obj_begin(&js, NULL);
	if (list(cmd, o, st->fs, o->json ? &js : NULL))
		st->exit_status = 1;
	if (o->json) {
		e4_json_obj_end(&js);
		e4_json_finish(&js);
	}
}
