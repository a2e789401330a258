/*
 * e4debug.h --- state shared by the e4debug commands (the tool's, not
 * libe4's): the open file system and its options.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_DEBUGFS_E4DEBUG_H
#define E4_DEBUGFS_E4DEBUG_H

#include "e4.h"

struct e4debug {
	ext2_filsys	fs;		/* NULL when nothing is open */
	char		*device;
	char		*journal_dev;	/* -j, or NULL */
	int		rw;		/* opened read-write */
	int		open_flags;	/* E4_OPEN_* of the open */
	int		exit_status;	/* nonzero after a failed command */
};

/* The state handed to every command through libss's info pointer. */
#define E4DEBUG(infop)	((struct e4debug *)(infop))

/* e4debug.c: nonzero (after printing "Filesystem not open") if no fs. */
int e4debug_check_fs_open(struct e4debug *st, const char *cmd);
/* e4debug.c: nonzero (after printing why) if the fs is not open
 * read-write. */
int e4debug_check_fs_rw(struct e4debug *st, const char *cmd);

/* e4debug.c: close the fs and open it again with the same flags (after
 * a command wrote through a channel of its own); nonzero on failure. */
int e4debug_reopen(struct e4debug *st, const char *cmd);
/* e4debug.c: close the fs; keeps nothing (not even the device name). */
void e4debug_close_fs(struct e4debug *st, const char *cmd);
/* e4debug.c: open @device with E4_OPEN_* @flags; nonzero on failure. */
int e4debug_open_fs(struct e4debug *st, const char *cmd, const char *device,
		    const char *journal_dev, int flags);

#endif
