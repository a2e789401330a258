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
		"\tjournal_uuid=UUID|random|time,\n"
		"\tlazy_itable_init=0|1, groups=N[-M][:...], garbage\n"
		"Unwritten extents: %s [-v] [--json] [--replayed] "
		"--list-unwritten device\n\t[FILE|<ino>]...\n"
		"\t%s [-n] [-f] [-z undo_file] [--keep-contents] "
		"[--skip-holes]\n"
		"\t[--mark-unwritten FILE:LBLK:LEN] "
		"[--mark-written FILE:LBLK:LEN] device\n", prog, prog, prog);
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
		} else if (!strcmp(tok, "lazy_itable_init") && val &&
			   (!strcmp(val, "0") || !strcmp(val, "1"))) {
			o->lazy_itable_init = *val - '0';
		} else if (!strcmp(tok, "groups") && val) {
			o->itable_groups = val;
		} else if (!strcmp(tok, "garbage") && !val) {
			o->itable_garbage = 1;
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
		{ "list-unwritten", no_argument, NULL, 'U' },
		{ "mark-unwritten", required_argument, NULL, 'M' },
		{ "mark-written", required_argument, NULL, 'W' },
		{ "keep-contents", no_argument, NULL, 'K' },
		{ "skip-holes", no_argument, NULL, 'S' },
		{ "replayed", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct e4tune_opts o;
	struct e4_json js;
	ext2_filsys fs = NULL;
	int c, rc = 0, want_write, flags, jw, iw, uw;
	char *ext = NULL;

	memset(&o, 0, sizeof(o));
	o.num_fc_blks = (uint32_t)-1;
	o.lazy_itable_init = -1;
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
		case 'U':
			o.list_unwritten = 1;
			break;
		case 'M':
		case 'W':
			if (e4tune_unwritten_add_mark(prog, &o, optarg,
						      c == 'M'))
				exit(1);
			break;
		case 'K':
			o.keep_contents = 1;
			break;
		case 'S':
			o.skip_holes = 1;
			break;
		case 'R':
			o.uw_replayed = 1;
			break;
		default:
			usage();
		}
	}
	/* --list-unwritten takes FILE|<ino> operands after the device. */
	if (optind >= argc || (optind != argc - 1 && !o.list_unwritten))
		usage();
	o.device = argv[optind];
	o.uw_files = argv + optind + 1;
	o.uw_nfiles = argc - optind - 1;
	jw = e4tune_journal_wants_write(&o);
	iw = e4tune_itable_wants_write(&o);
	uw = e4tune_unwritten_wants_write(&o);
	want_write = jw || iw || uw;
	if (!iw && (o.itable_groups || o.itable_garbage)) {
		fprintf(stderr, "%s: groups= and garbage go with "
			"lazy_itable_init=1\n", prog);
		exit(1);
	}
	/* -v: list after the edit too (with --list-unwritten, -v lists
	 * written extents instead) */
	if (!o.list_unwritten && (!want_write || o.verbose))
		o.list = 1;
	if ((o.keep_contents || o.skip_holes) && !o.uw_nmarks) {
		fprintf(stderr, "%s: --keep-contents and --skip-holes go with "
			"--mark-unwritten/--mark-written\n", prog);
		exit(1);
	}
	if (o.uw_replayed && !o.list_unwritten) {
		fprintf(stderr, "%s: --replayed goes with --list-unwritten\n",
			prog);
		exit(1);
	}
	if (o.json && want_write) {
		fprintf(stderr, "%s: --json goes with -l and "
			"--list-unwritten only\n", prog);
		exit(1);
	}

	flags = (want_write && !o.dry_run) ? E4_OPEN_RW : 0;
	if ((flags & E4_OPEN_RW) && o.undo_file &&
	    e4_tool_check_undo(prog, o.undo_file, o.device, o.journal_dev))
		exit(1);
	/* With -j only the journal device is written: -z covers it. */
	if (e4_tool_open_fs(prog, o.device, flags,
			    o.journal_dev && !iw ? NULL : o.undo_file, &fs))
		exit(1);

	if (jw)
		rc = e4tune_journal_write(prog, &o, fs);
	if (!rc && iw)
		rc = e4tune_itable_write(prog, &o, fs);
	if (!rc && uw)
		rc = e4tune_unwritten_write(prog, &o, fs);
	if (!rc && (o.list || o.list_unwritten)) {
		e4_json_init(&js, stdout);
		if (o.json)
			e4_json_obj_begin(&js, NULL);
		if (o.list) {
			rc = e4tune_journal_list(prog, &o, fs,
						 o.json ? &js : NULL);
			if (!rc)
				rc = e4tune_itable_list(prog, &o, fs,
							o.json ? &js : NULL);
		}
		if (!rc && o.list_unwritten)
			rc = e4tune_unwritten_list(prog, &o, fs,
						   o.json ? &js : NULL);
		if (o.json) {
			e4_json_obj_end(&js);
			e4_json_finish(&js);
		}
	}
	if (fs) {
		errcode_t retval;

		/* Without orig_super libext2fs writes the superblock in one
		 * 1 KiB write, not field by field: a failure (or crash)
		 * between those writes left a superblock whose checksum
		 * fails, which no rerun could open (t_fault_tools). */
		if (fs->flags & EXT2_FLAG_RW)
			ext2fs_free_mem(&fs->orig_super);
		retval = ext2fs_close_free(&fs);

		if (retval) {
			com_err(prog, retval, "while closing %s", o.device);
			rc = 1;
		}
	}
	return rc;
}
