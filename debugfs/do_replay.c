/*
 * do_replay.c --- e4debug's journal log commands: logdump/transactions
 * (the scan, as `e4replay -n` prints it) and replay (in place, as
 * e4replay does).  Output by misc/replay_run.c, shared with e4replay.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "../misc/e4replay.h"

static int parse_tid(const char *s, uint32_t *tid)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v > 0xffffffffULL)
		return -1;
	*tid = (uint32_t)v;
	return 0;
}

/* Parse [-v] [--json] [--upto TID] [--replay-anyway] into @o; @full
 * allows -v and --json.  Returns 0, or 1 after printing the usage. */
static int parse_opts(int argc, char **argv, int full, struct e4r_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "upto", required_argument, NULL, 'U' },
		{ "replay-anyway", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, full ? "v" : "", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'v':
			o->verbose = 1;
			break;
		case 'J':
			if (!full)
				goto usage;
			o->json = 1;
			break;
		case 'U':
			if (parse_tid(optarg, &o->upto)) {
				fprintf(stderr, "%s: invalid tid '%s'\n",
					argv[0], optarg);
				return 1;
			}
			o->upto_set = 1;
			break;
		case 'A':
			/* As e4replay --replay-anyway: e4r_run() decides. */
			o->replay_anyway = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind == argc)
		return 0;
usage:
	fprintf(stderr, "Usage: %s %s[--upto TID] [--replay-anyway]\n",
		argv[0], full ? "[-v] [--json] " : "");
	return 1;
}

/* Exported by libext2fs (lib/ext2fs/atexit.c), declared only in its
 * private ext2fsP.h. */
typedef void (*e4debug_exit_fn)(void *);
errcode_t ext2fs_add_exit_fn(e4debug_exit_fn func, void *data);

static void keep_slot(void *unused)
{
	(void)unused;
}

/*
 * After the external journal's undo channel closed, while the fs's is
 * open: libext2fs's exit-function list (lib/ext2fs/atexit.c) gives the
 * next undo channel (the fs reopened after the replay) the last of two
 * free slots, and ext2fs_remove_exit_fn() stops at the first free slot,
 * so that channel's closing would not unregister it and exit() would
 * call it after it was freed.  A no-op entry with a data value of its
 * own (a count, never dereferenced) takes the free slot.
 */
static void fill_exit_slot(struct e4debug *st)
{
	ext2fs_add_exit_fn(keep_slot, (void *)(uintptr_t)++st->exit_slots);
}

/*
 * Open the journal of the open fs (read-write if @rw) and run e4replay's
 * flow on it.  Returns e4replay's exit status.
 */
static int run(struct e4debug *st, const char *cmd, struct e4r_opts *o,
	       int rw)
{
	struct e4r_run r;
	e4_journal_t j = NULL;
	errcode_t retval;
	int rc, jflags = rw ? E4_JOURNAL_RW : 0;

	memset(&r, 0, sizeof(r));
	o->device = o->target = st->device;
	o->journal_dev = st->journal_dev;
	if (rw && st->journal_dev && st->journal_undo) {
		/* As e4replay -z -j: the journal device's writes go to
		 * UNDO.journal (emptied by the open, appended to later). */
		if (st->jundo_used ? e4_tool_resume_undo(cmd, st->journal_undo)
		    : e4_tool_setup_undo(cmd, st->journal_undo))
			return E4R_EXIT_ERROR;
		jflags |= E4_JOURNAL_UNDO;
	}
	retval = e4_journal_open(st->fs, st->journal_dev, jflags, &j);
	if (retval == E4_ERR_NO_JOURNAL && !e4_tool_needs_recovery(st->fs)) {
		printf("%s: no journal, nothing to replay\n", st->device);
		rc = 0;
		goto out;
	}
	if (retval) {
		com_err(cmd, retval, "while opening the journal of %s",
			st->device);
		e4_journal_close(j);
		rc = E4R_EXIT_ERROR;
		goto out;
	}
	rc = e4r_run(cmd, o, st->fs, j, &r);
	if ((jflags & E4_JOURNAL_UNDO) && j->external &&
	    e4debug_io_wrote(j->io))
		st->jundo_used = 1;
	retval = e4_journal_close(j);
	if (retval) {
		com_err(cmd, retval, "while closing the journal of %s",
			st->device);
		rc |= E4R_EXIT_ERROR;
	}
out:
	if (jflags & E4_JOURNAL_UNDO)
		fill_exit_slot(st);
	return rc;
}

void do_logdump(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4r_opts o;

	(void)sci_idx;
	memset(&o, 0, sizeof(o));
	if (parse_opts(argc, argv, 1, &o)) {
		st->exit_status = 1;
		return;
	}
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	o.dry_run = 1;
	if (run(st, argv[0], &o, 0) & (E4R_EXIT_ERROR | E4R_EXIT_USAGE))
		st->exit_status = 1;
}

void do_replay(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	struct e4r_opts o;
	int flags, rc = E4R_EXIT_ERROR;

	(void)sci_idx;
	memset(&o, 0, sizeof(o));
	if (parse_opts(argc, argv, 0, &o)) {
		st->exit_status = 1;
		return;
	}
	if (e4debug_check_fs_rw(st, argv[0]))
		return;
	/*
	 * Replay as e4replay does: on a fresh read-write open ignoring
	 * checksums (bitmaps of an unreplayed image fail them), closed after
	 * the replay; then the fs is opened again as the user opened it.
	 * An undo file (-z) records all of it.
	 */
	flags = st->open_flags;
	if (!e4debug_reopen(st, argv[0], E4_OPEN_RW | E4_OPEN_IGNORE_CSUM))
		rc = run(st, argv[0], &o, 1);
	if (e4debug_reopen(st, argv[0], flags)) {
		rc |= E4R_EXIT_ERROR;
		e4debug_close_fs(st, argv[0]);
	}
	if (rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE))
		st->exit_status = 1;
}
