/*
 * e4tune.h --- what e4tune's option parser hands to each of its parts
 * (journal superblock: tune_journal.c; lazy inode tables: tune_itable.c;
 * unwritten extents: tune_unwritten.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_MISC_E4TUNE_H
#define E4_MISC_E4TUNE_H

#include "e4.h"
#include "util.h"

#define E4TUNE_MAX_MARKS 16	/* --mark-* options per run */

struct e4tune_opts {
	const char	*device;	/* the image or block device */
	const char	*journal_dev;	/* -j: external journal */
	const char	*undo_file;	/* -z */
	int		list;		/* -l */
	int		verbose;	/* -v */
	int		json;		/* --json */
	int		dry_run;	/* -n */
	int		force;		/* -f */
	/* journal superblock edits (-O, -E) */
	const char	*features;		/* -O spec */
	int		clear_journal_errno;	/* -E clear_journal_errno */
	uint32_t	num_fc_blks;		/* -E num_fc_blks=; -1 unset */
	const char	*journal_uuid;		/* -E journal_uuid= */
	/* lazy inode table init (-E lazy_itable_init=, groups=, garbage) */
	int		lazy_itable_init;	/* -1 unset, 0 finish, 1 undo */
	const char	*itable_groups;		/* -E groups=N-M:K */
	int		itable_garbage;		/* -E garbage */
	/* unwritten extents (tune_unwritten.c) */
	int		list_unwritten;		/* --list-unwritten */
	char		**uw_files;		/* FILE|<ino> after device */
	int		uw_nfiles;
	struct e4tune_mark {
		const char	*file;		/* path in the fs or <ino> */
		blk64_t		lblk, len;	/* fs blocks */
		int		unwritten;	/* 1 --mark-unwritten */
	}		uw_marks[E4TUNE_MAX_MARKS];	/* in argv order */
	int		uw_nmarks;
	int		keep_contents;		/* --keep-contents */
	int		skip_holes;		/* --skip-holes */
	int		uw_replayed;		/* --replayed: list state S_n */
};

/* tune_journal.c */
int e4tune_journal_wants_write(const struct e4tune_opts *o);
/* Print the journal superblock (-l); returns the tool's exit status. */
int e4tune_journal_list(const char *prog, const struct e4tune_opts *o,
			ext2_filsys fs, struct e4_json *js);
/* Print an open journal's superblock as text or JSON (also e4debug). */
void e4tune_print_jsb_text(e4_journal_t j, ext2_filsys fs, int verifies);
void e4tune_print_jsb_json(e4_journal_t j, ext2_filsys fs, int verifies,
			   struct e4_json *js);
/* Apply -O/-E journal edits; returns the tool's exit status. */
int e4tune_journal_write(const char *prog, const struct e4tune_opts *o,
			 ext2_filsys fs);

/* tune_itable.c */
int e4tune_itable_wants_write(const struct e4tune_opts *o);
/* The lazy-init summary line (-l), per-group table (-v), or JSON. */
int e4tune_itable_list(const char *prog, const struct e4tune_opts *o,
		       ext2_filsys fs, struct e4_json *js);
/* Finish (lazy_itable_init=0) or undo (=1) lazy init; exit status. */
int e4tune_itable_write(const char *prog, const struct e4tune_opts *o,
			ext2_filsys fs);
/* tune_unwritten.c */
int e4tune_unwritten_wants_write(const struct e4tune_opts *o);
/* Parse FILE:LBLK:LEN of --mark-(un)written into o->uw_marks; 0 or 1. */
int e4tune_unwritten_add_mark(const char *prog, struct e4tune_opts *o,
			      char *spec, int unwritten);
/* --list-unwritten [FILE|<ino>]...; returns the tool's exit status. */
int e4tune_unwritten_list(const char *prog, const struct e4tune_opts *o,
			  ext2_filsys fs, struct e4_json *js);
/* Apply --mark-unwritten/--mark-written; returns the exit status. */
int e4tune_unwritten_write(const char *prog, const struct e4tune_opts *o,
			   ext2_filsys fs);

#endif
