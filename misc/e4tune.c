/*
 * e4tune.c --- e4tools' tune2fs: read and write the jbd2 journal
 * superblock, unwritten extents and the lazy_itable_init state of an ext4
 * image (see e4tune(8)).  Option checks only: the request is parsed by
 * lib/support/options.c, the work done by libe4 through the parts in
 * lib/support/tune_*.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "e4.h"
#include "json.h"
#include "open.h"
#include "options.h"
#include "target.h"
#include "tune.h"

static const char *prog = "e4tune";

static const char usage_text[] =
	"Usage: %1$s [-l] [-v] [--json] [-n] [-f] [-O [^]feature[,...]]\n"
	"\t[-E extended-option[,...]] [-j journal_dev] "
	"[-z undo_file] device\n"
	"       %1$s -V | --version | -h | --help\n"
	"Extended options: clear_journal_errno, num_fc_blks=N,\n"
	"\tjournal_uuid=UUID|random|time,\n"
	"\tlazy_itable_init=0|1, groups=N[-M][:...], garbage\n"
	"Unwritten extents: %1$s [-v] [--json] [--replayed] "
	"--list-unwritten device\n\t[FILE|<ino>]...\n"
	"\t%1$s [-n] [-f] [-z undo_file] [--keep-contents] "
	"[--skip-holes]\n"
	"\t[--mark-unwritten FILE:LBLK:LEN] "
	"[--mark-written FILE:LBLK:LEN] device\n";

static void usage(void)
{
	e4s_usage(stderr, prog, usage_text);
	exit(1);
}

int main(int argc, char **argv)
{
	static const int accept[] = {
		'l', 'v', 'n', 'f', 'O', 'E', 'j', 'z', E4S_O_HELP, E4S_O_VERSION,
		E4S_O_JSON,
		E4S_O_LIST_UNWRITTEN, E4S_O_MARK_UNWRITTEN, E4S_O_MARK_WRITTEN,
		E4S_O_KEEP_CONTENTS, E4S_O_SKIP_HOLES, E4S_O_REPLAYED,
		E4S_O_DIGEST, 0
	};
	e4s_tune_lister listers[3];
	struct e4s_req o;
	ext2_filsys fs = NULL;
	struct e4s_target t[3];
	struct e4s_undo undo = { .out = { .fd = -1 } };
	int rc = 0, want_write, flags, jw, iw, uw, nl = 0, first;

	e4s_req_init(&o);
	e4s_defer_interrupts();	/* in place with -z: target.c */
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);

	first = e4s_std_getopt(prog, argc, argv, accept, &o, usage_text, 1);
	e4s_json_run_mode(o.list_unwritten ? "list-unwritten" : "list");
	if (first < argc)
		e4s_json_run_image(argv[first]);
	/* --list-unwritten takes FILE|<ino> operands after the device. */
	if (first >= argc || (first != argc - 1 && !o.list_unwritten))
		usage();
	o.device = argv[first];
	o.uw_files = argv + first + 1;
	o.uw_nfiles = argc - first - 1;
	jw = e4s_tune_journal_wants_write(&o);
	iw = e4s_tune_itable_wants_write(&o);
	uw = e4s_tune_unwritten_wants_write(&o);
	want_write = jw || iw || uw;
	if (want_write)
		e4s_json_run_mode("edit");
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

	flags = (want_write && !o.dry_run) ? E4S_OPEN_RW : 0;
	/* Every target checked before a byte is written (target.c). */
	t[0] = (struct e4s_target){ .what = "device", .path = o.device,
		.flags = E4S_T_ANY | ((flags & E4S_OPEN_RW) ? E4S_T_WRITE : 0) };
	t[1] = (struct e4s_target){ .what = "journal device",
		.path = o.journal_dev, .flags = E4S_T_ANY |
		(jw && !o.dry_run ? E4S_T_WRITE : 0) };
	t[2] = (struct e4s_target){ .what = "undo file",
		.path = (flags & E4S_OPEN_RW) ? o.undo_file : NULL,
		.flags = E4S_T_WRITE | E4S_T_CREATE | E4S_T_REG | E4S_T_UNDO };
	if (e4s_check_targets(prog, t, 3))
		exit(1);
	/* The undo file is built under a temporary name: a refused or
	 * no-op edit leaves an existing one as it was. */
	if (t[2].path) {
		if (e4s_undo_begin(prog, o.undo_file, &undo))
			exit(1);
		o.undo_file = undo.out.tmp;
		/* What it undoes: a failed run's undo file is checked. */
		undo.device = o.journal_dev && !iw ? o.journal_dev : o.device;
	}
	/* With -j only the journal device is written: -z covers it.  A
	 * listing also opens a bare external journal device. */
	if (e4s_open_fs(prog, o.device, flags | (flags & E4S_OPEN_RW ? 0 :
			E4S_OPEN_JOURNAL_DEV),
			o.journal_dev && !iw ? NULL : o.undo_file, &fs)) {
		e4s_undo_finish(prog, &undo, 0);
		exit(1);
	}
	if (e4s_is_journal_dev(fs) && (o.list_unwritten || o.journal_dev)) {
		fprintf(stderr, "%s: %s is an external journal device, not a "
			"file system: only -l lists it\n", prog, o.device);
		ext2fs_close_free(&fs);
		exit(1);
	}

	if (jw)
		rc = e4s_tune_journal_write(prog, &o, fs);
	if (!rc && iw)
		rc = e4s_tune_itable_write(prog, &o, fs);
	if (!rc && uw)
		rc = e4s_tune_unwritten_write(prog, &o, fs);
	if (o.list) {
		listers[nl++] = e4s_tune_journal_list;
		if (!e4s_is_journal_dev(fs))	/* no inode tables there */
			listers[nl++] = e4s_tune_itable_list;
	}
	if (o.list_unwritten)
		listers[nl++] = e4s_tune_unwritten_list;
	if (!rc && nl)
		rc = e4s_tune_list(prog, &o, fs, listers, nl);
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
	if (e4s_undo_finish(prog, &undo, !rc) < 0)
		rc = 1;
	e4s_release_targets(t, 3);
	e4s_interrupt_finish(prog);	/* a deferred SIGINT: dies of it */
	return rc;
}
