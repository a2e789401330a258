/*
 * options.h --- the request every e4tools program and e4debug command
 * fills from its command line, and the one option table they parse it
 * with (lib/support/options.c): one spelling, one parser and one message
 * per option, whoever takes it.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_OPTIONS_H
#define E4_SUPPORT_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include <ext2fs/ext2fs.h>

#include "e4.h"

#define E4S_MAX_MARKS 16	/* --mark-* options per run */

/* One --mark-unwritten / --mark-written range. */
struct e4s_mark {
	const char	*file;		/* path in the fs or <ino> */
	blk64_t		lblk, len;	/* fs blocks */
	int		unwritten;	/* 1 --mark-unwritten */
};

/*
 * What to do, as the command line says it; what each part of the tools
 * (lib/support/tune_*.c, replay_*.c) reads.  e4s_req_init() sets the
 * defaults (nothing asked, -1 for "unset" fields).
 */
struct e4s_progress;

struct e4s_req {
	/* what is opened, and how */
	const char	*device;	/* IMAGE or device operand */
	const char	*journal_dev;	/* -j JOURNAL_DEV */
	const char	*undo_file;	/* -z UNDO_FILE */
	int		verbose;	/* -v */
	int		json;		/* --json 1, --json=lines 2 */
	int		digest;		/* --digest */
	int		dry_run;	/* -n */
	int		force;		/* -f given this many times */

	/* e4replay: the replay */
	const char	*target;	/* what the replay writes: IMAGE or
					 * OUTPUT (set by the flow) */
	const char	*output;	/* -o OUTPUT */
	const char	*journal_output;	/* --journal-output */
	int		ignore_fc;	/* --ignore-fast-commit */
	int		journal_only;	/* --journal-only: no orphan cleanup */
	int		replay_anyway;	/* --replay-anyway */
	int		upto_set;	/* --upto TID */
	uint32_t	upto;
	/* e4replay: the ordering check */
	int		check_order;	/* --check-order */
	int		replay_in_place;	/* --replay */
	int		order_opt_set;	/* any of the four below given */
	struct e4_order_opts order;	/* --data-mode, --outside,
					 * --stamped, --list-mappings (its
					 * upto is set from --upto) */
	/* e4replay: journal statistics */
	int		stats;		/* --stats */
	const char	*plot;		/* --plot FILE.svg|FILE.png */
	int		stats_all;	/* --all: older transactions too */
	/* e4replay: a block write log (lib/support/replay_wlog.c) */
	const char	*write_log;	/* --write-log LOG */
	int		wlog_list;	/* --list */
	const char	*wlog_at;	/* --at ENTRY|MARK */
	int		wlog_marks;	/* --marks */
	int		wlog_reorder;	/* --reorder (with --check-order) */
	const char	*wlog_drop;	/* --drop E1,E2,... (with --at) */
	int		check_durability;	/* --check-durability */
	int		wlog_durable;	/* --durable: --at's durable state */
	const char	*wlog_start_mark;	/* --start-mark LABEL */
	const char	*wlog_start_entry;	/* --start-entry N */

	/* e4replay: progress (lib/support/progress.c) */
	int		progress_fd;	/* -C FD: 0 the meter, > 0 lines */
	int		progress_fd_set;
	struct e4s_progress *progress;	/* the run's, set by the tool:
					 * the long operations report to
					 * it (NULL: nothing) */

	/* e4tune: journal superblock */
	int		list;			/* -l */
	const char	*features;		/* -O spec */
	int		clear_journal_errno;	/* -E clear_journal_errno */
	uint32_t	num_fc_blks;		/* -E num_fc_blks=; -1 unset */
	const char	*journal_uuid;		/* -E journal_uuid= */
	/* e4tune: lazy inode table init */
	int		lazy_itable_init;	/* -1 unset, 0 finish, 1 undo */
	const char	*itable_groups;		/* -E groups=N-M:K */
	int		itable_garbage;		/* -E garbage */
	/* e4tune: unwritten extents */
	int		list_unwritten;		/* --list-unwritten */
	char		**uw_files;		/* FILE|<ino> operands */
	int		uw_nfiles;
	struct e4s_mark	uw_marks[E4S_MAX_MARKS];	/* in argv order */
	int		uw_nmarks;
	int		keep_contents;		/* --keep-contents */
	int		skip_holes;		/* --skip-holes */
	int		uw_replayed;		/* --replayed: list state S_n */
	/* e4debug logdump, debugfs's options */
	int		ld_super;		/* -S: the journal superblock */
	int		ld_block_set;		/* -b BLOCK or -i INODE */
	blk64_t		ld_block;		/* fs block */
	ext2_ino_t	ld_inode;		/* -i: 0 unset */
	const char	*ld_file;		/* -f JOURNAL_FILE */
	int		ld_old;			/* -O: older transactions */
};

/* e4s_req_init() - an empty request: zeros, and -1 where that is unset. */
void e4s_req_init(struct e4s_req *r);

/*
 * Option ids: a letter for an option with a short form (getopt returns
 * it), E4S_O_* above 255 for a long-only one.
 */
enum e4s_optid {
	E4S_O_JSON = 256,	/* --json */
	E4S_O_HELP,		/* -h, --help: the caller's usage */
	E4S_O_VERSION,		/* -V, --version */
	E4S_O_UPTO,		/* --upto TID */
	E4S_O_JOURNAL_OUTPUT,	/* --journal-output FILE */
	E4S_O_IGNORE_FC,	/* --ignore-fast-commit */
	E4S_O_JOURNAL_ONLY,	/* --journal-only */
	E4S_O_REPLAY_ANYWAY,	/* --replay-anyway */
	E4S_O_CHECK_ORDER,	/* --check-order */
	E4S_O_REPLAY,		/* --replay */
	E4S_O_DATA_MODE,	/* --data-mode=auto|ordered|journal|writeback */
	E4S_O_OUTSIDE,		/* --outside=auto|yes|no */
	E4S_O_STAMPED,		/* --stamped=auto|yes|no */
	E4S_O_LIST_MAPPINGS,	/* --list-mappings */
	E4S_O_LIST_UNWRITTEN,	/* --list-unwritten */
	E4S_O_MARK_UNWRITTEN,	/* --mark-unwritten FILE:LBLK:LEN */
	E4S_O_MARK_WRITTEN,	/* --mark-written FILE:LBLK:LEN */
	E4S_O_KEEP_CONTENTS,	/* --keep-contents */
	E4S_O_SKIP_HOLES,	/* --skip-holes */
	E4S_O_REPLAYED,		/* --replayed */
	E4S_O_STATS,		/* --stats */
	E4S_O_PLOT,		/* --plot FILE.svg|FILE.png */
	E4S_O_ALL,		/* --all */
	E4S_O_WRITE_LOG,	/* --write-log LOG */
	E4S_O_LIST,		/* --list */
	E4S_O_AT,		/* --at ENTRY|MARK */
	E4S_O_MARKS,		/* --marks */
	E4S_O_REORDER,		/* --reorder */
	E4S_O_DROP,		/* --drop E1,E2,... */
	E4S_O_CHECK_DURABILITY,	/* --check-durability */
	E4S_O_DURABLE,		/* --durable */
	E4S_O_START_MARK,	/* --start-mark LABEL */
	E4S_O_START_ENTRY,	/* --start-entry N */
	E4S_O_LD_FILE,		/* logdump -f JOURNAL_FILE (debugfs's) */
	E4S_O_LD_OLD,		/* logdump -O (debugfs's) */
	E4S_O_DIGEST,		/* --digest: image size and SHA-512 */
};
/* Letters: -v -n -f -l -O SPEC -E OPTS -j DEV -z UNDO -o OUTPUT; and
 * e4debug logdump's (debugfs's): -a (every tag), -b BLOCK, -i INODE, -S,
 * and its -f JOURNAL_FILE and -O (E4S_O_LD_FILE, E4S_O_LD_OLD: the same
 * letters as -f and -O SPEC with debugfs's meaning; one @accept list
 * holds one meaning of a letter). */

/* e4s_getopt() returns: */
#define E4S_GETOPT_USAGE	-1	/* an option not in @accept (getopt's
					 * line printed) or a missing value */
#define E4S_GETOPT_BAD		-2	/* a bad value; one line printed */
#define E4S_GETOPT_HELP		-3	/* -h/--help: usage on stdout, exit 0 */
#define E4S_GETOPT_VERSION	-4	/* -V/--version: e4s_print_version(),
					 * exit 0 */

/*
 * e4s_getopt() - parse @argv from its start (getopt_long, options may
 * follow operands as GNU getopt permutes them) into @r, taking only the
 * options whose ids are listed in @accept (ended by 0).  Sets only what
 * the options given say: the caller fills @r first (e4s_req_init()).  Values are read
 * by lib/support/parse.c; messages start with @prog (getopt's own too:
 * argv[0] reads @prog while parsing).  Returns the index of the first
 * operand, E4S_GETOPT_USAGE, E4S_GETOPT_BAD, E4S_GETOPT_HELP or
 * E4S_GETOPT_VERSION.
 */
int e4s_getopt(const char *prog, int argc, char **argv, const int *accept,
	       struct e4s_req *r);

/*
 * e4s_print_version() - the -V/--version output of the e4tools program
 * @prog on stdout, one line: "PROG (e4tools) VERSION, libext2fs VERSION
 * (DATE), crc32c isa-l|libext2fs" (e4_version_line()).
 */
void e4s_print_version(const char *prog);

/*
 * e4s_std_getopt() - e4s_getopt() for a program's own command line: -h
 * prints @usage (a printf format taking @prog as every %1$s) on stdout and
 * exits 0, -V prints the version and exits 0, an unknown option prints
 * @usage on stderr and exits @usage_status, a bad value exits
 * @usage_status.  @r as e4s_getopt()'s (e4s_req_init() first).  With
 * --json anywhere in @argv the run's one document starts before parsing
 * (e4s_json_run_begin(): a usage error prints it too; -h and -V cancel
 * it), failing on the exit bits 8 and 16 when @usage_status is 16
 * (e4replay), on any nonzero status else (e4tune); --digest needs
 * --json.  Returns the index of the first operand.
 */
int e4s_std_getopt(const char *prog, int argc, char **argv,
		   const int *accept, struct e4s_req *r, const char *usage,
		   int usage_status);

/* e4s_usage() - @usage (as e4s_std_getopt()) on @f for @prog. */
void e4s_usage(FILE *f, const char *prog, const char *usage);

/*
 * e4s_add_mark() - parse FILE:LBLK:LEN (split at the last two ':', LBLK
 * and LEN by e4s_scan_num(), in fs blocks) into the next mark of @r,
 * unwritten if @unwritten.  Returns 0 or -1 after one line.
 */
int e4s_add_mark(const char *prog, struct e4s_req *r, char *spec,
		 int unwritten);

#endif
