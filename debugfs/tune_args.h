/*
 * tune_args.h --- option parsing and --json output shared by the e4debug
 * commands that run e4tune's code (debugfs/tune_args.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_DEBUGFS_TUNE_ARGS_H
#define E4_DEBUGFS_TUNE_ARGS_H

#include "e4debug.h"
#include "../misc/e4tune.h"

/*
 * e4debug_tune_opts() - parse the options of a command's @argv into
 * e4tune's options @o (zeroed first).  @accept lists the options the
 * command takes: 'v' -v (verbose), 'n' -n (dry_run), 'f' -f (force),
 * 'J' --json, 'R' --replayed (uw_replayed), 'K' --keep-contents, 'S'
 * --skip-holes.  Restarts getopt on @argv.  Returns the index of the
 * first operand, or -1 on an option @accept does not list (the caller
 * prints its usage).
 */
int e4debug_tune_opts(int argc, char **argv, const char *accept,
		      struct e4tune_opts *o);

/* An e4tune lister: e4tune_itable_list(), e4tune_unwritten_list(). */
typedef int (*e4debug_tune_lister)(const char *prog,
				   const struct e4tune_opts *o,
				   ext2_filsys fs, struct e4_json *js);

/*
 * e4debug_tune_list() - run @list on the open fs (o->device and
 * o->journal_dev set from @st) as e4tune prints it: text, or with
 * o->json one JSON object on stdout.  Sets st->exit_status on failure.
 */
void e4debug_tune_list(struct e4debug *st, const char *cmd,
		       struct e4tune_opts *o, e4debug_tune_lister list);

#endif
