/*
 * replay.h --- the e4replay parts, shared by e4replay and the e4debug
 * commands that do the same (logdump, replay, check_order): the replay
 * flow and its report (replay_run.c), the ordering check and its report
 * (replay_order.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_REPLAY_H
#define E4_SUPPORT_REPLAY_H

#include "e4.h"
#include "options.h"

/* Exit status, fsck style: the sum of these. */
#define E4R_EXIT_REPLAYED	1	/* journal replayed (-n: would be) */
#define E4R_EXIT_UNVERIFIED	2	/* --check-order: no stale-data stamp,
					 * so stale data was not looked for */
#define E4R_EXIT_CORRUPT	4	/* journal corruption met, handled as
					 * the kernel does; ordering
					 * violations found */
#define E4R_EXIT_ERROR		8	/* operational error, nothing done */
#define E4R_EXIT_USAGE		16	/* usage error */
#define E4R_EXIT_REFUSED	32	/* the kernel refuses the journal
					 * (its recovery fails): never
					 * alone, see E4R_EXIT_REFUSES */
#define E4R_EXIT_VIOLATION	64	/* --check-order: an ordering
					 * violation (not set by corruption,
					 * which is E4R_EXIT_CORRUPT) */

/*
 * A journal the kernel refuses: corruption (4), nothing done (8) and the
 * refusal itself (32) = 44, so that a sum of 12 (corruption met, then an
 * operational error or an incomplete --check-order) never reads as one.
 */
#define E4R_EXIT_REFUSES	(E4R_EXIT_CORRUPT | E4R_EXIT_ERROR | \
				 E4R_EXIT_REFUSED)

/* replay_run.c */

/* What e4s_replay_decide() and e4s_replay_run() found and did. */
struct e4s_replay {
	struct e4_jscan		*scan;		/* not owned */
	struct e4_replay_result	res;
	int			needs_recovery;	/* before the run */
	int			replayed;	/* superblocks were written */
	const char		*refused;	/* why nothing is written */
	int			kernel_refused;	/* refused because the kernel
						 * refuses: 1 its recovery
						 * fails (s->fail), 2 it
						 * replays, then refuses to
						 * mount (e4_plan_mount_
						 * refused()) */
	int			rc;		/* exit status so far */
	int			plan;		/* 0 nothing to do, 1 plan
						 * only (clean), 2 replay
						 * (-n: plan only), 3 the
						 * kernel's replay of a
						 * journal it then refuses
						 * (e4_plan_replay_refused():
						 * blocks only, the journal
						 * kept) */
	int32_t			jerrno;		/* the journal's s_errno
						 * before the run */
	int			errno_cleared;	/* carried into ERROR_FS
						 * and cleared (or -n:
						 * would be) */
	const struct e4_jtrans	*time_back;	/* no checksums: the first
						 * replayed transaction
						 * committed before its
						 * predecessor, or NULL */
	struct e4_fc_state	*fcst;		/* replay_fc.c: the fast
						 * commits replayed in memory
						 * (detached: changed blocks) */
	int			fc_dropped;	/* --ignore-fast-commit */
	int			orphans_done;	/* the orphan cleanup ran
						 * (-n: was previewed) */
	struct e4_orphan_result	orph;		/* what it did */
	const struct e4_jscan_old *old;		/* logdump -O: the older
						 * transactions past the
						 * log end, printed after
						 * the scan; not owned */
	struct e4_mmp		mmp;		/* the MMP block of the fs
						 * written (lib/e4/mmp.c) */
	struct e4_mount_decision decision;	/* e4_mount_decide(): what
						 * the kernel's mount does */
	int			decided;	/* decision is set (a file
						 * system to mount) */
};

/*
 * e4s_journal_open_failed() - report e4_journal_open()'s error @retval on
 * the journal of @fs (@device names it): a journal superblock the kernel
 * refuses (e4_mount_decide(): REFUSE) in one line saying the kernel will
 * not mount the fs and what e2fsck offers, returning E4R_EXIT_REFUSES
 * (44); any other error as an open error, E4R_EXIT_ERROR (8).  Every
 * entry point (e4replay, --write-log --at, e4debug) reports it here.
 */
/*
 * e4s_replay_say_no_journal() - a fs without a journal whose
 * needs_recovery is clear: nothing to replay, said for @where (text), or
 * with r->json a replay document with "journal": null and no
 * transactions.
 */
void e4s_replay_say_no_journal(const struct e4s_req *r, const char *where);

int e4s_journal_open_failed(const char *prog, ext2_filsys fs,
			    errcode_t retval, const char *device);

/*
 * e4s_replay_writes() - whether e4s_replay_run() writes the fs of @run
 * (its decision made, without -n): a replay, or a journal s_errno to
 * carry into the fs superblock.
 */
int e4s_replay_writes(const struct e4s_req *r, const struct e4s_replay *run,
		      e4_journal_t j);

/*
 * e4s_mmp_begin() - e4_mmp_start(@fs, @flags, @name) before the first
 * write, as e2fsck does (it may sleep: a line says so when the check
 * interval exceeds 20 s, as e2fsck's does); a refusal is one line naming
 * @device and what the MMP block says (node, device, time).  Returns 0 or
 * E4R_EXIT_ERROR.
 */
int e4s_mmp_begin(const char *prog, const char *device, ext2_filsys fs,
		  unsigned int flags, const char *name, struct e4_mmp *m);

/*
 * e4s_mmp_refuse() - record in @run the refusal of e4s_mmp_begin(): the
 * run writes nothing, the report says why; returns E4R_EXIT_ERROR.
 */
int e4s_mmp_refuse(struct e4s_replay *run);

/*
 * e4s_replay_say_interrupted() - the line after a replay in place of
 * @device failed once it had written (tests/r_interrupt: a rerun ends as
 * an uninterrupted replay).  e4s_chan_written() - the bytes written so
 * far to @io (its io_stats, after a flush: closing writes them anyway);
 * 0 if the manager keeps no stats.  e4s_chan_wrote() - 1 if @io wrote,
 * or cannot tell (no stats: assume it did, e.g. to keep an undo file),
 * else 0; the one "did this channel write" of e4replay and e4debug.
 */
void e4s_replay_say_interrupted(const char *prog, const char *device);
uint64_t e4s_chan_written(io_channel io);
int e4s_chan_wrote(io_channel io);

/*
 * e4s_replay_scan() - e4_journal_scan() of @j as the request asks (up to
 * r->upto with --upto) into *@scan, and its replay plan (e4_plan_build():
 * the tag fates) into *@plan; the caller frees both.  Prints one line on
 * failure; returns 0 or E4R_EXIT_ERROR.
 */
/*
 * e4s_fmt_commit_time() - commit time @sec (h_commit_sec, seconds since
 * the epoch) into @buf (@len bytes, 48 hold every value) as
 * "YYYY-mm-dd HH:MM:SS" (UTC) and 0; a value past year 9999 (a garbage
 * commit block: the kernel only compares commit times) as "N s: out of
 * range" and -1, never as a date.  Every commit time the tools print goes
 * through here; JSON keeps the raw integer.
 */
int e4s_fmt_commit_time(uint64_t sec, char *buf, size_t len);

/*
 * e4s_block_history() - debugfs's `logdump -b BLOCK` on libe4's scan: on
 * stdout, every logged copy of fs block @fsblk in the log of @scan (tid,
 * jblock, committed or not, the fate replay gives it after
 * e4_plan_build(), tag checksum) and every revoke record of it, in log
 * order, then the copies and revoke records in the older transactions
 * @old (logdump -O; NULL: none), marked old, then which copy replay
 * writes (or that the image's block stays).  Returns the number of copies
 * in the log of @scan.
 */
size_t e4s_block_history(const struct e4_jscan *scan,
			 const struct e4_jscan_old *old, blk64_t fsblk);

int e4s_replay_scan(const char *prog, const struct e4s_req *r,
		    e4_journal_t j, struct e4_jscan **scan,
		    struct e4_plan **plan);

/*
 * e4s_replay_decide() - from @scan alone (of the journal of @fs, before
 * anything is written), decide what the replay does: refuse a journal the
 * kernel's recovery fails on, an --upto tid not in the log (usage, 16),
 * fast commits the kernel's recovery fails on (unless
 * --ignore-fast-commit; the fast commits are replayed in memory here,
 * e4s_fc_prepare() with @plan, the plan of @scan over @fs), a log with
 * needs_recovery clear (unless --replay-anyway: exit 4, nothing written),
 * or nothing to do (clean).  Prints the refusal's one line, for a journal
 * the kernel refuses also what each way on does (the kernel refuses to
 * mount; e2fsck discards the log; --upto replays what verifies); warns
 * when a journal without checksums has a transaction committed before its
 * predecessor (need_check_commit_time cannot apply: a previous fs's log
 * left by mke2fs -E lazy_journal_init=1 replays as live), naming the tid
 * and the --upto that stops before it.  @fs NULL (a journal file with no
 * fs) or a bare external journal device is refused: nothing to replay
 * into.  Fills all of @run but run->old, which the caller may set before
 * (NULL or the older transactions to list): run->scan = @scan, ->rc,
 * ->refused, ->kernel_refused, ->plan, ->time_back, ->needs_recovery,
 * ->fcst and ->fc_dropped (e4s_fc_prepare()), the rest zero for
 * e4s_replay_run().
 */
void e4s_replay_decide(const char *prog, const struct e4s_req *r,
		       ext2_filsys fs, const struct e4_plan *plan,
		       struct e4_jscan *scan, struct e4s_replay *run);

/*
 * e4s_replay_run() - carry out what e4s_replay_decide() decided with
 * @plan, the plan of run->scan for the journal of @fs (the scan may come
 * from another journal holding the same bytes: IMAGE's when @fs is its
 * copy OUTPUT): counts only with -n or nothing to do, else
 * e4_plan_replay(); a journal s_errno is carried into the fs superblock
 * (ERROR_FS) and cleared by every replay, one with nothing to replay too
 * (e4_journal_clear_err(), as the kernel's mount), and -n says it would
 * be; then print the report (text, or JSON with r->json) naming
 * r->target, with run->old (if set) listed as old transactions, not
 * replayed.  @fs is NULL for a journal file with no fs
 * (e4_journal_open_file(); e4s_replay_decide() refused it).  Returns the
 * exit status (E4R_EXIT_*).
 */
int e4s_replay_run(const char *prog, const struct e4s_req *r, ext2_filsys fs,
		   const struct e4_plan *plan, struct e4s_replay *run);

/* replay_fc.c: the fast-commit part of e4s_replay_decide() / _run(). */

/*
 * e4s_fc_prepare() - from e4s_replay_decide(): refuse (run->refused,
 * returns the exit bits) what the kernel refuses in the fast-commit area,
 * announce on stderr what --ignore-fast-commit drops, or replay the fast
 * commits in memory on S_n of @plan over @fs (run->fcst, detached: only
 * the blocks to write), before anything is written.  Returns 0 or
 * E4R_EXIT_* bits.
 */
int e4s_fc_prepare(const char *prog, const struct e4s_req *o,
		   ext2_filsys fs, const struct e4_plan *plan,
		   struct e4s_replay *run);
/* e4s_fc_cleanup() - release run->fcst. */
void e4s_fc_cleanup(struct e4s_replay *run);
/* e4s_fc_print_text() / _json() - the fast-commit part of the report. */
void e4s_fc_print_text(const struct e4s_req *o,
		       const struct e4s_replay *run);
struct e4s_json;
void e4s_fc_print_json(struct e4s_json *js, const struct e4s_req *o,
		       const struct e4s_replay *run);

/* replay_order.c */

/*
 * e4s_order_run() - the alloc-on-commit ordering check of @fs (the plan
 * @plan of its journal's scan, e4s_replay_scan()) with the options
 * r->order, reported on stdout (text, or JSON with r->json) under the
 * name @image.  Returns the exit bits: 4 (violations or journal
 * corruption), 8 (operational error, printed), 16 (--upto tid not in the
 * log), 0 clean.
 */
int e4s_order_run(const char *prog, const struct e4s_req *r, ext2_filsys fs,
		  const struct e4_plan *plan, const char *image);

/* The check's report as text or JSON on stdout. */
void e4s_order_print_text(const char *image, const struct e4_jscan *scan,
			  const struct e4_order_report *rep);
void e4s_order_print_json(const struct e4_jscan *scan,
			  const struct e4_order_report *rep);

#endif
