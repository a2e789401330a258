/*
 * e4debug.h --- state shared by the e4debug commands (the tool's, not
 * libe4's): the open file system and its options.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_DEBUGFS_E4DEBUG_H
#define E4_DEBUGFS_E4DEBUG_H

#include "e4.h"
#include "options.h"
#include "target.h"

struct e4debug {
	ext2_filsys	fs;		/* NULL when nothing is open */
	char		*device;
	char		*journal_dev;	/* -j, or NULL */
	char		*undo_file;	/* -z: the temporary undo file the
					 * session writes, or NULL */
	char		*journal_undo;	/* -z with -j: the same for
					 * UNDO.journal */
	char		*undo_path;	/* -z UNDO, as named */
	char		*jundo_path;	/* UNDO.journal, as named */
	struct e4s_undo	undo, jundo;	/* renamed over the names at the
					 * close if they recorded a write
					 * (lib/support/target.c) */
	struct e4s_target targets[4];	/* the open's names, checked and
					 * locked (flock, loop claims) until
					 * the close: free_names() */
	int		rw;		/* opened read-write */
	int		undo_used;	/* a write went to undo_file: append */
	int		jundo_used;	/* ... to journal_undo */
	int		exit_slots;	/* do_replay.c: fill_exit_slot() */
	int		open_flags;	/* E4S_OPEN_* of the open */
	int		exit_status;	/* nonzero after a failed command */
	int		json_prev;	/* exit_status before a --json command
					 * (e4debug.c dispatch()) */
};

/* The state handed to every command through libss's info pointer. */
#define E4DEBUG(infop)	((struct e4debug *)(infop))

/* e4debug.c: nonzero (after printing "Filesystem not open") if no fs. */
int e4debug_check_fs_open(struct e4debug *st, const char *cmd);
/* e4debug.c: nonzero (after printing why) if the fs is not open
 * read-write. */
int e4debug_check_fs_rw(struct e4debug *st, const char *cmd);

/*
 * e4debug.c: parse a command's @argv (its options by e4s_getopt(), those
 * listed in @accept) into @r (all of it, e4s_req_init() first, on every
 * return), with r->device and r->journal_dev those of the open fs; between @min_ops and @max_ops operands (-1: any number).
 * Returns the index of the first operand, or -1 after printing why (the
 * value's error, or "Usage: CMD @usage") and setting st->exit_status.
 */
int e4debug_parse(struct e4debug *st, int argc, char **argv,
		  const int *accept, int min_ops, int max_ops,
		  const char *usage, struct e4s_req *r);

/* e4debug.c: close the fs and open the same device again with E4S_OPEN_*
 * @flags (replay opens ignoring checksums, then as the user opened it);
 * an undo file of the open is appended to, not replaced.  On failure
 * the fs stays closed and the next reopen may try again; nonzero. */
int e4debug_reopen(struct e4debug *st, const char *cmd, int flags);
/* e4debug.c: close the fs; keeps nothing (not even the device name). */
void e4debug_close_fs(struct e4debug *st, const char *cmd);
/* e4debug.c: open @device with E4S_OPEN_* @flags, and with @undo_file
 * (needs E4S_OPEN_RW; replaced if it exists, as e4tune -z does; with
 * @journal_dev that device's writes go to @undo_file.journal, as with
 * e4replay -z -j); nonzero on failure, after one line. */
int e4debug_open_fs(struct e4debug *st, const char *cmd, const char *device,
		    const char *journal_dev, const char *undo_file,
		    int flags);

#endif
