/*
 * e4replay.h --- the parts of e4replay (misc/e4replay.c options,
 * misc/replay_run.c flow and output).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_MISC_E4REPLAY_H
#define E4_MISC_E4REPLAY_H

#include "e4.h"
#include "util.h"

/* Exit status, fsck style: the sum of these. */
#define E4R_EXIT_REPLAYED	1	/* journal replayed (-n: would be) */
#define E4R_EXIT_CORRUPT	4	/* journal corruption met, handled as
					 * the kernel does */
#define E4R_EXIT_ERROR		8	/* operational error, nothing done */
#define E4R_EXIT_USAGE		16	/* usage error */

struct e4r_opts {
	const char	*device;	/* IMAGE */
	const char	*target;	/* what is opened: IMAGE or OUTPUT */
	const char	*output;	/* -o */
	const char	*journal_output;	/* --journal-output */
	const char	*undo_file;	/* -z */
	const char	*journal_dev;	/* -j */
	int		dry_run;	/* -n */
	int		verbose;	/* -v */
	int		json;		/* --json */
	int		ignore_fc;	/* --ignore-fast-commit */
	int		replay_anyway;	/* --replay-anyway */
	int		upto_set;	/* --upto */
	uint32_t	upto;
};

struct e4r_run {
	struct e4_jscan		*scan;
	struct e4_replay_result	res;
	int			needs_recovery;	/* before the run */
	int			replayed;	/* superblocks were written */
	const char		*refused;	/* why nothing was written */
	struct e4_fc_state	*fcst;	/* replay_fc.c: the fast commits
					 * replayed in memory */
	int			fc_dropped;	/* --ignore-fast-commit */
};

/*
 * e4r_run() - scan the journal @j of @fs, print what it holds, and replay
 * it unless -n.  Returns the exit status (E4R_EXIT_* sum).
 */
int e4r_run(const char *prog, const struct e4r_opts *o, ext2_filsys fs,
	    e4_journal_t j, struct e4r_run *run);

/* replay_fc.c: the fast-commit part of e4r_run(). */

/*
 * e4r_fc_prepare() - after the scan: refuse (run->refused, returns the
 * exit bits) what the kernel refuses in the fast-commit area, announce on
 * stderr what --ignore-fast-commit drops, or replay the fast commits in
 * memory on S_n of o->target (run->fcst), before anything is written.
 * Returns 0 or E4R_EXIT_* bits.
 */
int e4r_fc_prepare(const char *prog, const struct e4r_opts *o,
		   e4_journal_t j, struct e4r_run *run);
/* e4r_fc_cleanup() - release run->fcst. */
void e4r_fc_cleanup(struct e4r_run *run);
/* e4r_fc_print_text() / _json() - the fast-commit part of the report. */
void e4r_fc_print_text(const struct e4r_opts *o, const struct e4r_run *run);
void e4r_fc_print_json(struct e4_json *js, const struct e4r_opts *o,
		       const struct e4r_run *run);

#endif
