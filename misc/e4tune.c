/*
 * e4tune.c --- e4tools' tune2fs: read and write the jbd2 journal
 * superblock of an ext4 image (see e4tune(8)).  Option parsing only; the
 * work is done by libe4 through the tune_*.c parts.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "e4.h"
#include "e4tune.h"

static const char *prog = "e4tune";

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s [-l] [-v] [--json] [-n] [-f] [-O [^]feature[,...]]\n"
		"\t[-E extended-option[,...]] [-j journal_dev] "
		"[-z undo_file] device\n"
		"Extended options: clear_journal_errno, num_fc_blks=N,\n"
		"\tjournal_uuid=UUID|random|time\n", prog);
	exit(1);
}

/* Parse a comma-separated -E list into @o; returns 0 or prints and
 * returns 1 on the first unknown or malformed option. */
static int parse_extended(char *opts, struct e4tune_opts *o)
{
	char *tok, *save = NULL, *val, *end;
	unsigned long n;

	for (tok = strtok_r(opts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		val = strchr(tok, '=');
		if (val)
			*val++ = 0;
		if (!strcmp(tok, "clear_journal_errno") && !val) {
			o->clear_journal_errno = 1;
		} else if (!strcmp(tok, "num_fc_blks") && val) {
			n = strtoul(val, &end, 0);
			if (!*val || *end || n >= 0xffffffffUL) {
				fprintf(stderr, "%s: invalid num_fc_blks "
					"'%s'\n", prog, val);
				return 1;
			}
			o->num_fc_blks = (uint32_t)n;
		} else if (!strcmp(tok, "journal_uuid") && val) {
			o->journal_uuid = val;
		} else {
			fprintf(stderr, "%s: unknown or malformed extended "
				"option '%s'\n", prog, tok);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct e4tune_opts o;
	struct e4_json js;
	ext2_filsys fs = NULL;
	int c, rc = 0, want_write, flags;
	char *ext = NULL;

	memset(&o, 0, sizeof(o));
	o.num_fc_blks = (uint32_t)-1;
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);

	while ((c = getopt_long(argc, argv, "lvnfO:E:j:z:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'l':
			o.list = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'J':
			o.json = 1;
			break;
		case 'n':
			o.dry_run = 1;
			break;
		case 'f':
			o.force = 1;
			break;
		case 'O':
			o.features = optarg;
			break;
		case 'E':
			ext = optarg;
			if (parse_extended(ext, &o))
				exit(1);
			break;
		case 'j':
			o.journal_dev = optarg;
			break;
		case 'z':
			o.undo_file = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	o.device = argv[optind];
	want_write = e4tune_journal_wants_write(&o);
	if (!want_write || o.verbose)	/* -v: list after the edit too */
		o.list = 1;
	if (o.json && want_write) {
		fprintf(stderr, "%s: --json goes with -l only\n", prog);
		exit(1);
	}

	flags = (want_write && !o.dry_run) ? E4_OPEN_RW : 0;
	/* With -j only the journal device is written: -z covers it. */
	if (e4_tool_open_fs(prog, o.device, flags,
			    o.journal_dev ? NULL : o.undo_file, &fs))
		exit(1);

	if (want_write)
		rc = e4tune_journal_write(prog, &o, fs);
	if (!rc && o.list) {
		e4_json_init(&js, stdout);
		if (o.json)
			e4_json_obj_begin(&js, NULL);
		rc = e4tune_journal_list(prog, &o, fs, o.json ? &js : NULL);
		if (o.json) {
			e4_json_obj_end(&js);
			e4_json_finish(&js);
		}
	}
	if (fs) {
		errcode_t retval = ext2fs_close_free(&fs);

		if (retval) {
			com_err(prog, retval, "while closing %s", o.device);
			rc = 1;
		}
	}
	return rc;
}
