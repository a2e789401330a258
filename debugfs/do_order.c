/*
 * do_order.c --- e4debug's check_order command: the alloc-on-commit
 * ordering check of libe4's order.c, printed as `e4replay --check-order`
 * prints it (misc/replay_order.c's printers).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "../misc/replay_order.h"

static int tri(const char *s)
{
	return !strcmp(s, "auto") ? -1 : !strcmp(s, "yes") ? 1 :
		!strcmp(s, "no") ? 0 : -2;
}

static int data_mode(const char *s)
{
	return !strcmp(s, "auto") ? E4_DATA_AUTO :
		!strcmp(s, "ordered") ? E4_DATA_ORDERED :
		!strcmp(s, "journal") ? E4_DATA_JOURNAL :
		!strcmp(s, "writeback") ? E4_DATA_WRITEBACK : -1;
}

/* Parse the options into @o and @json; 0, or 1 after the usage. */
static int parse_opts(int argc, char **argv, struct e4_order_opts *o,
		      int *json)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "upto", required_argument, NULL, 'U' },
		{ "data-mode", required_argument, NULL, 'D' },
		{ "outside", required_argument, NULL, 'X' },
		{ "stamped", required_argument, NULL, 'S' },
		{ "list-mappings", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long v;
	char *end;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			*json = 1;
			break;
		case 'U':
			v = strtoul(optarg, &end, 0);
			if (!*optarg || *end || v > 0xffffffffUL) {
				fprintf(stderr, "%s: invalid tid '%s'\n",
					argv[0], optarg);
				return 1;
			}
			o->has_upto = 1;
			o->upto = (uint32_t)v;
			break;
		case 'D':
			o->data_mode = data_mode(optarg);
			if (o->data_mode < 0)
				goto usage;
			break;
		case 'X':
		case 'S':
			if (tri(optarg) < -1)
				goto usage;
			if (c == 'X')
				o->outside = tri(optarg);
			else
				o->stamped = tri(optarg);
			break;
		case 'L':
			o->list_mappings = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind == argc)
		return 0;
usage:
	fprintf(stderr, "Usage: %s [--json] [--upto TID] "
		"[--data-mode=auto|ordered|journal|writeback]\n"
		"\t[--outside=auto|yes|no] [--stamped=auto|yes|no] "
		"[--list-mappings]\n", argv[0]);
	return 1;
}

void do_check_order(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4_order_report *rep = NULL;
	struct e4_order_opts o;
	struct e4_jscan *scan = NULL;
	struct e4_plan *plan = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;
	int json = 0;

	(void)sci_idx;
	memset(&o, 0, sizeof(o));
	o.outside = -1;
	o.stamped = -1;
	if (parse_opts(argc, argv, &o, &json)) {
		st->exit_status = 1;
		return;
	}
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	retval = e4_journal_open(st->fs, st->journal_dev, 0, &j);
	if (retval) {
		com_err(argv[0], retval, "while opening the journal of %s",
			st->device);
		goto out;
	}
	retval = e4_journal_scan(j, 0, 0, &scan);
	if (retval) {
		com_err(argv[0], retval, "while scanning the journal of %s",
			st->device);
		goto out;
	}
	retval = e4_plan_build(j, scan, &plan);
	if (!retval)
		retval = e4_order_check(st->fs, plan, &o, &rep);
	if (retval) {
		com_err(argv[0], retval, "while checking the ordering of %s",
			st->device);
		goto out;
	}
	if (json)
		e4replay_order_print_json(st->device, scan, rep);
	else
		e4replay_order_print_text(st->device, scan, rep);
out:
	if (retval)
		st->exit_status = 1;
	e4_order_report_free(rep);
	e4_plan_free(plan);
	e4_jscan_free(scan);
	e4_journal_close(j);
}
