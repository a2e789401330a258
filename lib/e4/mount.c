/*
 * mount.c --- what the kernel's mount does with an ext4 file system and
 * its journal, decided once (e4_mount_decide()), and the mount's whole
 * recovery carried out by one call (e4_mount_recover()): the multiple
 * mount protection e2fsck applies to an offline writer, the replay of the
 * full and fast commits, the journal's s_errno carried into the fs, and
 * the orphan cleanup.  Every entry point of e4tools (e4replay in place,
 * -o, --upto, --write-log --at, e4debug) takes its decision from here.
 *
 * The rules (Linux 6.18): ext4_load_journal() and jbd2_journal_load()
 * (fs/ext4/super.c, fs/jbd2/journal.c): a journal superblock the kernel
 * cannot load refuses the mount before anything is read; needs_recovery
 * clear with a log in the journal -> jbd2_journal_wipe() (the log
 * discarded unread, its PASS_SCAN alone can still fail the mount);
 * jbd2_journal_recover() -> PASS_SCAN (a failure refuses the mount with
 * nothing written), PASS_REVOKE, PASS_REPLAY (a copy failing its tag
 * checksum is skipped and the mount fails after the other copies are
 * written; j_failed_commit likewise), then the fast-commit replay; then
 * ext4_clear_journal_err() and ext4_orphan_cleanup().
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "e4_int.h"

int e4_jsb_refused(errcode_t err)
{
	switch (err) {
	case E4_ERR_JSB_MAGIC:
	case E4_ERR_JSB_BLOCKTYPE:
	case E4_ERR_JSB_CSUM:
	case E4_ERR_JSB_BLOCKSIZE:
	case E4_ERR_JSB_FIRST:
	case E4_ERR_JSB_MAXLEN:
	case E4_ERR_JSB_START:
	case E4_ERR_JSB_UNKNOWN_FEATURE:
	case E4_ERR_JSB_CSUM_TYPE:
	case E4_ERR_FEATURE_CONFLICT:
	case E4_ERR_JSB_TOO_SHORT:
		return 1;
	}
	return 0;
}

const char *e4_mount_action_name(enum e4_mount_action a)
{
	switch (a) {
	case E4_MOUNT_CLEAN:
		return "clean";
	case E4_MOUNT_REPLAY:
		return "replay";
	case E4_MOUNT_DISCARD:
		return "discard";
	case E4_MOUNT_REPLAY_REFUSE:
		return "replay-then-refuse";
	case E4_MOUNT_DISCARD_REFUSE:
		return "discard-then-refuse";
	case E4_MOUNT_REFUSE:
		return "refuse";
	}
	return "unknown";
}

/* The tid at which a failed scan stops: the transaction holding its
 * stop block (the first not committed), else the expected tid there. */
static uint32_t fail_tid(const struct e4_jscan *s)
{
	return s->ncommitted < s->ntrans ? s->trans[s->ncommitted].tid :
		s->end_tid;
}

/* A refusal found by a scan: before the replay, or, with needs_recovery
 * clear, in the wipe's scan (the log emptied all the same). */
static void scan_refusal(struct e4_mount_decision *d, errcode_t why,
			 uint32_t tid, blk64_t jblk, int wipe,
			 const char *what)
{
	d->action = wipe ? E4_MOUNT_DISCARD_REFUSE : E4_MOUNT_REFUSE;
	d->why = why;
	d->tid = tid;
	d->jblk = jblk;
	d->ntrans = 0;
	d->reason = what;
}

errcode_t e4_mount_decide(ext2_filsys fs, errcode_t jopen_err,
			  const struct e4_plan *p, unsigned int flags,
			  struct e4_mount_decision *d)
{
	const struct e4_jscan *s;
	struct e4_mount_refusal mr;
	int wipe;

	memset(d, 0, sizeof(*d));
	if (!fs || ext2fs_has_feature_journal_dev(fs->super))
		return E4_ERR_MOUNT_NO_FS;
	d->needs_recovery =
		!!ext2fs_has_feature_journal_needs_recovery(fs->super);
	if (jopen_err) {
		if (!e4_jsb_refused(jopen_err))
			return jopen_err;
		d->action = E4_MOUNT_REFUSE;
		d->why = jopen_err;
		d->reason = "the kernel cannot load this journal superblock";
		return 0;
	}
	if (!p)
		return E4_ERR_MOUNT_NO_FS;
	s = p->scan;
	d->first_tid = s->start_tid;
	d->end_tid = s->end_tid;
	d->ntrans = s->ncommitted;
	d->errno_carry = p->j->jsb.errno_ != 0;
	/* needs_recovery clear: jbd2_journal_wipe(), PASS_SCAN only */
	wipe = s->start_jblk && !d->needs_recovery;
	if (s->fail) {
		scan_refusal(d, s->fail, fail_tid(s), s->stop_jblk, wipe,
			     wipe ? "the wipe's scan of the log fails (the "
			     "log emptied all the same)" : "the kernel's "
			     "recovery fails in PASS_SCAN; nothing is "
			     "replayed");
		return 0;
	}
	if (s->fc && s->fc->fail && !(flags & E4_DECIDE_IGNORE_FC)) {
		scan_refusal(d, s->fc->fail, s->end_tid, 0, wipe,
			     "the kernel's scan of the fast-commit area "
			     "fails; nothing is replayed");
		return 0;
	}
	e4_plan_mount_refused(p, &mr);
	if (mr.err && mr.wiped) {
		scan_refusal(d, mr.err, mr.tid, 0, 1, "the wipe's scan meets "
			     "a failed commit (j_failed_commit): that mount "
			     "fails, the log emptied; nothing is replayed");
		return 0;
	}
	if (mr.err) {
		d->action = E4_MOUNT_REPLAY_REFUSE;
		d->why = mr.err;
		d->tid = mr.tid;
		d->nbad = mr.nbad;
		if (mr.tag) {
			d->jblk = mr.tag->jblk;
			d->fsblk = mr.tag->fsblk;
			d->reason = "a logged copy fails its tag checksum: the "
				"kernel replays every other block, then "
				"refuses the mount, the journal left dirty";
		} else {
			/* the transactions before the failed commit */
			d->ntrans = mr.tid - s->start_tid;
			d->end_tid = mr.tid;
			d->reason = "a commit block fails its checksum "
				"(j_failed_commit): the kernel replays the "
				"transactions before it, then refuses the "
				"mount, the journal left dirty";
		}
		return 0;
	}
	if (wipe) {
		d->action = E4_MOUNT_DISCARD;
		d->ntrans = 0;
		d->end_tid = s->start_tid;
		d->reason = "needs_recovery is clear: the kernel wipes the "
			"log unread";
		return 0;
	}
	d->fc_replay = s->fc && s->fc->nreplay &&
		!(flags & E4_DECIDE_IGNORE_FC);
	d->nfc = d->fc_replay ? s->fc->nfc : 0;
	if (s->start_jblk || d->needs_recovery) {
		d->action = E4_MOUNT_REPLAY;
		d->reason = s->start_jblk ? "the kernel replays the log" :
			"needs_recovery with an empty log: the kernel updates "
			"the superblocks only";
	} else {
		d->action = E4_MOUNT_CLEAN;
		d->reason = d->errno_carry ? "no log: the kernel carries the "
			"journal's s_errno into the fs" : "no log: nothing to "
			"recover";
	}
	return 0;
}

/* The orphan cleanup after the replay, as the mount (orphan.c). */
static errcode_t orphans(ext2_filsys fs, const struct e4_plan *p,
			 struct e4_mount_result *res)
{
	errcode_t retval, sb_err = 0;

	retval = e4_orphan_mount(fs, p, NULL, (uint32_t)time(NULL), 0,
				 &res->orphans, &sb_err);
	if (!retval && !sb_err)
		res->orphans_done = 1;
	return retval;
}

errcode_t e4_mount_recover(e4_journal_t j, unsigned int flags,
			   struct e4_mount_result *res)
{
	ext2_filsys fs = j ? j->fs : NULL;
	struct e4_fc_state *fcst = NULL;
	struct e4_jscan *scan = NULL;
	struct e4_plan *p = NULL;
	errcode_t retval, r2;
	int marked = 0;

	e4_error_tables_init();
	memset(res, 0, sizeof(*res));
	e4_replay_result_init(&res->replay, sizeof(res->replay));
	if (!fs)
		return E4_ERR_MOUNT_NO_FS;
	retval = e4_journal_scan(j, 0, 0, &scan);
	if (!retval && scan->ncsum_pending)
		retval = e4_jscan_check_tags(j, scan);
	if (!retval && !scan->fail)
		retval = e4_plan_build(j, scan, &p);
	if (!retval)
		retval = e4_mount_decide(fs, 0, p, 0, &res->decision);
	if (retval)
		goto out;
	e4_plan_result(scan, p, &res->replay);
	switch (res->decision.action) {
	case E4_MOUNT_REPLAY_REFUSE:
		/* the kernel's PASS_REPLAY, then its refusal: below (not
		 * with fast commits, which it is not modelled for) */
		if (!scan->fc || !scan->fc->nreplay)
			break;
		/* fall through */
	case E4_MOUNT_REFUSE:
	case E4_MOUNT_DISCARD_REFUSE:
		/* nothing written; e4replay --replay-anyway and e2fsck
		 * write what verifies */
		retval = res->decision.why;
		goto out;
	case E4_MOUNT_DISCARD:
		/* as e4replay: the log is left as it is */
		goto out;
	case E4_MOUNT_CLEAN:
	case E4_MOUNT_REPLAY:
		break;
	}
	if (flags & E4_RECOVER_DRY_RUN)
		goto out;
	if (res->decision.action == E4_MOUNT_CLEAN &&
	    !res->decision.errno_carry)
		goto out;
	if (!(fs->flags & EXT2_FLAG_RW) || !(j->flags & E4_JOURNAL_RW)) {
		retval = E4_ERR_READ_ONLY;
		goto out;
	}
	/* e2fsck_check_mmp(): refuse while another node holds it */
	retval = e4_mmp_start(fs, 0, "e4_mount_recover", &res->mmp);
	if (retval)
		goto out;
	if (res->decision.action == E4_MOUNT_REPLAY_REFUSE) {
		retval = e4_plan_replay_refused(p, &res->replay);
		res->journal_kept = !retval;
		if (!retval)
			retval = res->decision.why;
		goto stop;
	}
	if (res->decision.action == E4_MOUNT_CLEAN) {
		/* ext4_clear_journal_err() */
		retval = e4_journal_clear_err(j, &marked);
		res->errno_cleared = !retval && marked;
		goto stop;
	}
	if (res->decision.fc_replay) {
		retval = e4_fc_state_open_plan(fs, p, &fcst);
		e4_fc_state_detach(fcst);
		if (retval)
			goto stop;
	}
	retval = e4_plan_replay_fc(p, fcst, &res->replay);
	if (retval)
		goto stop;
	res->replayed = 1;
	res->errno_cleared = res->decision.errno_carry;
	if (!(flags & E4_RECOVER_JOURNAL_ONLY))
		retval = orphans(fs, p, res);
stop:
	r2 = e4_mmp_stop(fs, &res->mmp);
	if (!retval || (res->journal_kept && retval == res->decision.why))
		retval = r2 ? r2 : retval;
out:
	e4_fc_state_close(fcst);
	e4_plan_free(p);
	e4_jscan_free(scan);
	return retval;
}

void e4_mount_result_free(struct e4_mount_result *res)
{
	if (res)
		e4_orphan_result_free(&res->orphans);
}
