/*
 * do_replay.c --- e4debug's journal log commands: logdump/transactions
 * (the scan, as `e4replay -n` prints it) and replay (in place, as
 * e4replay does), through lib/support/replay_run.c, shared with
 * e4replay.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <et/com_err.h>

#include "e4debug.h"
#include "open.h"
#include "replay.h"
#include "tune.h"

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
 * Open the journal of the open fs (read-write if @rw), or with logdump -f
 * the journal file r->ld_file alone (no fs: nothing is replayed), and run
 * e4replay's flow on it.  Returns e4replay's exit status.
 */
static int run(struct e4debug *st, const char *cmd, struct e4s_req *r,
	       int rw)
{
	struct e4s_replay run;
	struct e4_jscan *scan = NULL;
	struct e4_jscan_old *old = NULL;
	struct e4_plan *plan = NULL;
	e4_journal_t j = NULL;
	ext2_filsys fs = st->fs;
	errcode_t retval;
	int rc, jflags = rw ? E4_JOURNAL_RW : 0, locked = 0;
	struct e4s_target lt;

	memset(&run, 0, sizeof(run));
	memset(&lt, 0, sizeof(lt));
	r->target = st->device;
	if (r->ld_file) {
		/* debugfs's logdump -f: this journal, whatever is open. */
		r->target = r->device = (char *)r->ld_file;
		fs = NULL;
		/* A reader: LOCK_SH on the file (target.c) while it is read. */
		lt.what = "journal file";
		lt.path = r->ld_file;
		lt.flags = E4S_T_ANY;
		if (e4s_check_targets(cmd, &lt, 1)) {
			e4s_release_targets(&lt, 1);
			return E4R_EXIT_ERROR;
		}
		locked = 1;
		retval = e4s_open_journal_file(cmd, r->ld_file, &j);
		if (retval) {
			com_err(cmd, retval, "while opening journal file %s",
				r->ld_file);
			e4_journal_close(j);
			e4s_release_targets(&lt, 1);
			return E4R_EXIT_ERROR;
		}
		if (r->ld_super)
			e4s_print_jsb_text(j, NULL, e4_jsb_csum_ok(j->sb));
		goto scan;
	}
	if (rw && st->journal_dev && st->journal_undo) {
		/* As e4replay -z -j: the journal device's writes go to
		 * UNDO.journal (emptied by the open, appended to later). */
		if (st->jundo_used ? e4s_resume_undo(cmd, st->journal_undo)
		    : e4s_setup_undo(cmd, st->journal_undo))
			return E4R_EXIT_ERROR;
		jflags |= E4_JOURNAL_UNDO;
	}
	retval = e4s_open_journal(cmd, st->fs, st->journal_dev, jflags, &j);
	if (retval == E4_ERR_NO_JOURNAL && !e4s_needs_recovery(st->fs)) {
		e4s_replay_say_no_journal(r, st->device);
		rc = 0;
		goto out;
	}
	if (retval) {
		char w[PATH_MAX + 64];

		rc = e4s_journal_open_failed(cmd, st->fs, retval,
					     e4s_journal_where(w, sizeof(w),
							       st->device,
							       st->journal_dev));
		e4_journal_close(j);
		goto out;
	}
scan:
	rc = e4s_replay_scan(cmd, r, j, &scan, &plan);
	if (!rc && r->ld_old) {
		/* logdump -O: the older transactions past the log end. */
		retval = e4_journal_scan_old(j, scan, &old);
		if (retval) {
			com_err(cmd, retval, "while reading the older log of "
				"%s", r->device);
			rc = E4R_EXIT_ERROR;
		}
		run.old = old;
	}
	if (!rc && r->ld_block_set) {
		/* logdump -b / -i: one block's history, nothing replayed. */
		e4s_block_history(scan, old, r->ld_block);
	} else if (!rc) {
		e4s_replay_decide(cmd, r, fs, plan, scan, &run);
		rc = e4s_replay_run(cmd, r, fs, plan, &run);
	}
	e4_jscan_old_free(old);
	e4_plan_free(plan);
	e4_jscan_free(scan);
	if ((jflags & E4_JOURNAL_UNDO) && j->external &&
	    e4s_chan_wrote(j->io))
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
	if (locked)
		e4s_release_targets(&lt, 1);
	return rc;
}

void do_logdump(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = { 'v', E4S_O_JSON, E4S_O_UPTO,
				      E4S_O_REPLAY_ANYWAY, 'a', 'b', 'i',
				      'S', E4S_O_LD_FILE, E4S_O_LD_OLD, 0 };
	static const e4s_tune_lister jsb[] = { e4s_tune_journal_list };
	struct e4debug *st = E4DEBUG(infop);
	struct e4s_req r;

	(void)sci_idx;
	/* -f JOURNAL_FILE needs no open fs (debugfs's logdump -f). */
	if (e4debug_parse(st, argc, argv, accept, 0, 0, "[-a] [-v] [-O] "
			  "[-S] [-b BLOCK | -i INODE] [-f JOURNAL_FILE] "
			  "[--json] [--upto TID] [--replay-anyway]", &r) < 0 ||
	    (!r.ld_file && e4debug_check_fs_open(st, argv[0])))
		return;
	if (r.json && (r.ld_super || r.ld_block_set)) {
		fprintf(stderr, "%s: -S, -b and -i print text (jsb --json "
			"gives the superblock as JSON)\n", argv[0]);
		st->exit_status = 1;
		return;
	}
	if (r.ld_inode && (!st->fs || e4s_is_journal_dev(st->fs))) {
		/* The inode table's place comes from a file system. */
		if (st->fs)
			fprintf(stderr, "%s: -i %u: %s is an external journal "
				"device, not a file system: it has no inode "
				"table (use -b BLOCK)\n", argv[0],
				r.ld_inode, st->device);
		else
			fprintf(stderr, "%s: -i %u: no file system open to "
				"find the inode in (open one, or use -b "
				"BLOCK)\n", argv[0], r.ld_inode);
		st->exit_status = 1;
		return;
	}
	if (r.ld_block_set && !r.ld_inode && st->fs &&
	    !e4s_is_journal_dev(st->fs) &&
	    r.ld_block >= ext2fs_blocks_count(st->fs->super)) {
		/* A block the journal could name but no fs block. */
		fprintf(stderr, "%s: -b %llu: past the end of %s (%llu blocks "
			"of %u bytes)\n", argv[0],
			(unsigned long long)r.ld_block, st->device,
			(unsigned long long)ext2fs_blocks_count(st->fs->super),
			st->fs->blocksize);
		st->exit_status = 1;
		return;
	}
	if (r.ld_inode) {
		/* debugfs: the inode table block holding the inode. */
		ext2_filsys fs = st->fs;
		uint64_t off;
		dgrp_t g;

		if (r.ld_inode > fs->super->s_inodes_count) {
			fprintf(stderr, "%s: -i %u: no such inode (the fs has "
				"%u)\n", argv[0], r.ld_inode,
				fs->super->s_inodes_count);
			st->exit_status = 1;
			return;
		}
		g = (r.ld_inode - 1) / fs->super->s_inodes_per_group;
		off = (uint64_t)((r.ld_inode - 1) %
				 fs->super->s_inodes_per_group) *
			EXT2_INODE_SIZE(fs->super);
		r.ld_block = ext2fs_inode_table_loc(fs, g) +
			off / fs->blocksize;
		printf("inode %u is at offset %llu of fs block %llu (group "
		       "%u's inode table)\n", r.ld_inode,
		       (unsigned long long)(off % fs->blocksize),
		       (unsigned long long)r.ld_block, g);
	}
	if (r.ld_super && !r.ld_file &&
	    e4s_tune_list(argv[0], &r, st->fs, jsb, 1)) {
		st->exit_status = 1;
		return;
	}
	r.dry_run = 1;
	if (run(st, argv[0], &r, 0) & (E4R_EXIT_ERROR | E4R_EXIT_USAGE))
		st->exit_status = 1;
}

void do_replay(int argc, char **argv, int sci_idx, void *infop)
{
	static const int accept[] = { E4S_O_UPTO, E4S_O_REPLAY_ANYWAY, 0 };
	struct e4debug *st = E4DEBUG(infop);
	struct e4s_req r;
	int flags, rc = E4R_EXIT_ERROR;

	(void)sci_idx;
	if (e4debug_parse(st, argc, argv, accept, 0, 0,
			  "[--upto TID] [--replay-anyway]", &r) < 0 ||
	    e4debug_check_fs_rw(st, argv[0]))
		return;
	/*
	 * Replay as e4replay does: on a fresh read-write open ignoring
	 * checksums (bitmaps of an unreplayed image fail them), closed after
	 * the replay; then the fs is opened again as the user opened it.
	 * An undo file (-z) records all of it.
	 */
	flags = st->open_flags;
	if (!e4debug_reopen(st, argv[0], E4S_OPEN_RW | E4S_OPEN_IGNORE_CSUM))
		rc = run(st, argv[0], &r, 1);
	if (e4debug_reopen(st, argv[0], flags)) {
		rc |= E4R_EXIT_ERROR;
		e4debug_close_fs(st, argv[0]);
	}
	if (rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE))
		st->exit_status = 1;
}
