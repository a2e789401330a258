/*
 * replay_run.c --- the replay flow of e4replay and of e4debug's logdump
 * and replay, once the fs and journal are open: scan, decide (refuse,
 * nothing to do, replay) from the scan alone, replay or plan, and print
 * the result as text or JSON.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <et/com_err.h>

#include "e4.h"
#include "json.h"
#include "open.h"
#include "progress.h"
#include "replay.h"

static const char *csum_name(const struct e4_jscan *s)
{
	switch (s->csum_version) {
	case 1: return "v1 (crc32_be over the transaction)";
	case 2: return "v2 (crc32c, 16-bit tags)";
	case 3: return "v3 (crc32c)";
	}
	return "none";
}

/* The "checksum_method" of doc/e4tools.schema.json (e4tune -l's too). */
static const char *csum_method(const struct e4_jscan *s)
{
	static const char *const names[] = { "none", "v1", "v2", "v3" };

	return s->csum_version < 4 ? names[s->csum_version] : "none";
}

/* A tag's flags as names (an unknown bit as its value, "0x10"). */
static void json_tag_flags(struct e4s_json *js, unsigned int flags)
{
	static const char *const names[] = { "ESCAPE", "SAME_UUID",
					     "DELETED", "LAST_TAG" };
	char bit[16];
	unsigned int b;

	e4s_json_arr_begin(js, "flags");
	for (b = 0; b < 8 * sizeof(flags); b++) {
		if (!(flags & (1U << b)))
			continue;
		if (b < 4) {
			e4s_json_str(js, NULL, names[b]);
		} else {
			snprintf(bit, sizeof(bit), "0x%x", 1U << b);
			e4s_json_str(js, NULL, bit);
		}
	}
	e4s_json_arr_end(js);
}

static const char *ok_name(int ok)
{
	return ok < 0 ? "none" : ok ? "ok" : "BAD";
}

/* Commit time as --check-order shows it: UTC, seconds. */
/* The last second of year 9999 (strftime's %Y stays 4 digits). */
#define E4S_COMMIT_SEC_MAX	253402300799ULL

int e4s_fmt_commit_time(uint64_t sec, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (sec <= E4S_COMMIT_SEC_MAX && (uint64_t)t == sec &&
	    gmtime_r(&t, &tm) &&
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		return 0;
	snprintf(buf, len, "%" PRIu64 " s: out of range", sec);
	return -1;
}

/* "DATE UTC", or the raw value with the note (e4s_fmt_commit_time()). */
static void fmt_time(uint64_t sec, char *buf, size_t len)
{
	if (!e4s_fmt_commit_time(sec, buf, len))
		snprintf(buf + strlen(buf), len - strlen(buf), " UTC");
}

/*
 * The tid where the kernel's recovery of a failing scan (s->fail) fails:
 * that of the scan's last event.
 */
static uint32_t fail_tid(const struct e4_jscan *s)
{
	return s->nevents ? s->events[s->nevents - 1].tid : s->start_tid;
}

/*
 * @t has a commit block the kernel's scan accepts: it is one of the
 * committed transactions, or, in a scan that fails (nothing replayed),
 * it comes before the failing tid.
 */
static int valid_commit(const struct e4_jscan *s, const struct e4_jtrans *t)
{
	if (!s->fail)
		return t->committed;
	return t->has_commit && t->commit_csum_ok != 0 &&
		e4_tid_gt(fail_tid(s), t->tid);
}

/* This run replays @t (with -n: would). */
static int replays(const struct e4s_replay *run, const struct e4_jtrans *t)
{
	if (run->plan == 3)	/* the kernel's replay, then its refusal */
		return t->committed &&
			(int32_t)(t->tid - run->decision.end_tid) < 0;
	return run->plan == 2 && t->committed;
}

/* A transaction's text line up to its commit: "@prefix" "tid T: jblocks
 * A-B (N), D descriptor, R revoke blocks, G tags, V revokes, " (the
 * log's transactions and the old ones alike). */
static void print_trans_counts(const char *prefix, const struct e4_jtrans *t)
{
	printf("%stid %" PRIu32 ": jblocks %llu-%llu (%llu), %u descriptor, "
	       "%u revoke blocks, %zu tags, %zu revokes, ", prefix, t->tid,
	       (unsigned long long)t->first_jblk,
	       (unsigned long long)t->last_jblk,
	       (unsigned long long)t->nblocks, t->ndescriptors,
	       t->nrevoke_blocks, t->ntags, t->nrevokes);
}

/*
 * logdump -O: the older transactions past the log end (oldlog.c), as
 * debugfs -O lists them after the live log, marked old: the kernel does
 * not replay them.  Their checksums are not checked.
 */
static void print_old_text(const struct e4s_req *o, const struct e4_jscan *s,
			   const struct e4_jscan_old *old)
{
	size_t i, k;
	char tb[32];

	printf("old log: %zu older transactions past the log end (walked "
	       "%llu jblocks from jblock %llu; %" PRIu64 " cut (start "
	       "overwritten or incomplete) left out, %" PRIu64 " other "
	       "blocks skipped, %" PRIu64 " blocks of tids not older than %"
	       PRIu32 " ignored); not replayed, checksums not checked\n",
	       old->ntrans, (unsigned long long)old->nblocks,
	       (unsigned long long)old->first_jblk, old->cut, old->skipped,
	       old->newer_blocks, s->start_tid);
	for (i = 0; i < old->ntrans; i++) {
		const struct e4_jtrans *t = &old->trans[i];

		fmt_time(t->commit_sec, tb, sizeof(tb));
		print_trans_counts("old ", t);
		printf("commit %s UTC, old: NOT replayed\n", tb);
		if (!o->verbose)
			continue;
		for (k = 0; k < t->ntags; k++)
			printf("  fsblk %llu <- jblk %llu%s%s, old\n",
			       (unsigned long long)t->tags[k].fsblk,
			       (unsigned long long)t->tags[k].jblk,
			       (t->tags[k].flags & JBD2_FLAG_ESCAPE) ?
					" escaped" : "",
			       (t->tags[k].flags & JBD2_FLAG_DELETED) ?
					" deleted" : "");
		for (k = 0; k < t->nrevokes; k++)
			printf("  revoke fsblk %llu\n",
			       (unsigned long long)t->revokes[k]);
	}
}

static void print_old_json(struct e4s_json *js, const struct e4s_req *o,
			   const struct e4_jscan_old *old)
{
	size_t i, k;

	e4s_json_obj_begin(js, "old");
	e4s_json_u64(js, "first_jblk", old->first_jblk);
	e4s_json_u64(js, "nblocks", old->nblocks);
	e4s_json_u64(js, "cut", old->cut);
	e4s_json_u64(js, "skipped", old->skipped);
	e4s_json_u64(js, "newer_blocks", old->newer_blocks);
	e4s_json_arr_begin(js, "transactions");
	for (i = 0; i < old->ntrans; i++) {
		const struct e4_jtrans *t = &old->trans[i];

		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "tid", t->tid);
		e4s_json_u64(js, "first_jblk", t->first_jblk);
		e4s_json_u64(js, "last_jblk", t->last_jblk);
		e4s_json_u64(js, "nblocks", t->nblocks);
		e4s_json_u64(js, "descriptors", t->ndescriptors);
		e4s_json_u64(js, "revoke_blocks", t->nrevoke_blocks);
		e4s_json_u64(js, "ntags", t->ntags);
		e4s_json_u64(js, "nrevokes", t->nrevokes);
		e4s_json_u64(js, "commit_sec", t->commit_sec);
		e4s_json_u64(js, "commit_nsec", t->commit_nsec);
		e4s_json_bool(js, "replayed", 0);
		if (o->verbose) {
			e4s_json_arr_begin(js, "tags");
			for (k = 0; k < t->ntags; k++) {
				e4s_json_obj_begin(js, NULL);
				e4s_json_u64(js, "fsblk", t->tags[k].fsblk);
				e4s_json_u64(js, "jblk", t->tags[k].jblk);
				json_tag_flags(js, t->tags[k].flags);
				e4s_json_obj_end(js);
			}
			e4s_json_arr_end(js);
			e4s_json_arr_begin(js, "revokes");
			for (k = 0; k < t->nrevokes; k++)
				e4s_json_u64(js, NULL, t->revokes[k]);
			e4s_json_arr_end(js);
		}
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_obj_end(js);
}

static void print_text(const struct e4s_req *o, ext2_filsys fs,
		       e4_journal_t j, const struct e4s_replay *run)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	const struct e4_jscan *s = run->scan;
	const struct e4_replay_result *r = &run->res;
	size_t i, k;

	printf("%s: journal %s, %" PRIu32 " jblocks of %u bytes, log "
	       "jblocks %llu-%llu\n",
	       e4s_text_escape(o->target, shown, sizeof(shown)),
	       j->external ? j->dev_name : "inode",
	       j->jsb.maxlen, j->blocksize,
	       (unsigned long long)s->log_first,
	       (unsigned long long)s->log_end - 1);
	printf("checksum %s, tag size %u bytes, crc32c by %s\n",
	       csum_name(s), s->tag_bytes, e4_crc32c_impl());
	printf("log start jblock %llu, sequence %" PRIu32
	       ", needs_recovery %s\n", (unsigned long long)s->start_jblk,
	       s->start_tid, !fs || e4s_is_journal_dev(fs) ?
	       "unknown (no file system)" :
	       run->needs_recovery ? "yes" : "no");
	for (i = 0; i < s->ntrans; i++) {
		const struct e4_jtrans *t = &s->trans[i];
		char tb[48];

		print_trans_counts("", t);
		if (t->has_commit) {
			fmt_time(t->commit_sec, tb, sizeof(tb));
			printf("commit %s%s, checksum %s%s",
			       strstr(tb, "out of range") ? "time " : "", tb,
			       ok_name(t->commit_csum_ok),
			       t->commit_partial ? " (header only)" : "");
		}
		else
			printf("no commit block");
		printf(", %s\n", replays(run, t) ? "replay" :
		       run->kernel_refused && valid_commit(s, t) ?
		       "committed, NOT replayed (the kernel refuses)" :
		       t->committed ? "replay" : "NOT replayed");
		if (!o->verbose)
			continue;
		for (k = 0; k < t->ntags; k++) {
			const struct e4_jtag *g = &t->tags[k];

			printf("  fsblk %llu <- jblk %llu%s%s, checksum %s: "
			       "%s\n", (unsigned long long)g->fsblk,
			       (unsigned long long)g->jblk,
			       (g->flags & JBD2_FLAG_ESCAPE) ? " escaped" : "",
			       (g->flags & JBD2_FLAG_DELETED) ?
					" deleted" : "",
			       ok_name(g->csum_ok),
			       e4_tag_fate_name(g->fate));
		}
		for (k = 0; k < t->nrevokes; k++)
			printf("  revoke fsblk %llu\n",
			       (unsigned long long)t->revokes[k]);
	}
	for (i = 0; i < s->nevents; i++)
		printf("note: jblock %llu: %s\n",
		       (unsigned long long)s->events[i].jblk,
		       s->events[i].msg);
	printf("scan: stopped at jblock %llu (%s); %zu transactions to "
	       "replay", (unsigned long long)s->stop_jblk,
	       e4_scan_stop_name(s->stop), s->ncommitted);
	if (s->ncommitted)
		printf(" (tids %" PRIu32 "-%" PRIu32 ")", s->trans[0].tid,
		       s->trans[s->ncommitted - 1].tid);
	printf(", end tid %" PRIu32 "%s\n", s->end_tid,
	       s->corrupt ? ", journal corrupt" : "");
	e4s_fc_print_text(o, run);	/* replay_fc.c */
	if (run->old)
		print_old_text(o, s, run->old);
	if (run->refused) {
		printf("not replayed: %s\n", run->refused);
		if (run->jerrno)
			printf("journal s_errno %d (%s): not carried into the "
			       "fs superblock (nothing replayed)\n",
			       run->jerrno, strerror(-run->jerrno));
		return;
	}
	printf("replay%s: %" PRIu64 " fs blocks %s (%" PRIu64 " tags: %"
	       PRIu64 " superseded, %" PRIu64 " revoked, %" PRIu64
	       " bad checksum, %" PRIu64 " bad block); %" PRIu64
	       " revoked blocks\n", o->dry_run ? " (dry run)" : "",
	       r->nwritten, o->dry_run ? "to write" : "written", r->ntags,
	       r->nsuperseded, r->nrevoked, r->nbad_csum, r->nbad_block,
	       r->nrevoke_blocks);
	if (run->plan == 3)
		printf("journal: kept (s_start %llu, s_sequence %" PRIu32
		       "), needs_recovery set: the kernel %s these blocks, "
		       "then refuses to mount (%s); every later mount fails "
		       "the same way until e2fsck\n",
		       (unsigned long long)s->start_jblk, s->start_tid,
		       o->dry_run ? "writes" : "wrote",
		       error_message(run->decision.why));
	if (run->replayed)
		printf("journal: s_start 0, s_sequence %" PRIu32 "%s%s\n",
		       r->new_sequence,
		       r->fs_error ? "; fs marked with errors" : "",
		       r->fs_not_valid ? "; fs marked not clean" : "");
	if (run->mmp.clean)
		printf("MMP block %llu: left clean (EXT4_MMP_SEQ_CLEAN), as "
		       "e2fsck leaves it: the next mount does not wait\n",
		       (unsigned long long)run->mmp.block);
	if (run->jerrno && run->errno_cleared)
		printf("journal s_errno %d (%s): %s into the fs superblock "
		       "(ERROR_FS: fs marked with errors, e2fsck -f checks "
		       "it) and %s, as the kernel does on mount\n",
		       run->jerrno, strerror(-run->jerrno),
		       o->dry_run ? "would be carried" : "carried",
		       o->dry_run ? "cleared" : "cleared in the journal");
}

/* "mount": what the kernel's mount does (e4_mount_decide()). */
static void json_mount(struct e4s_json *js, const struct e4_mount_decision *d)
{
	e4s_json_obj_begin(js, "mount");
	e4s_json_str(js, "decision", e4_mount_action_name(d->action));
	e4s_json_str(js, "reason", d->reason);
	if (d->why)
		e4s_json_str(js, "error", error_message(d->why));
	if (d->action == E4_MOUNT_REFUSE || d->action == E4_MOUNT_REPLAY_REFUSE ||
	    d->action == E4_MOUNT_DISCARD_REFUSE)
		e4s_json_u64(js, "tid", d->tid);
	if (d->fsblk)
		e4s_json_u64(js, "fsblk", d->fsblk);
	e4s_json_u64(js, "transactions", d->ntrans);
	e4s_json_bool(js, "errno_carried", d->errno_carry);
	e4s_json_bool(js, "fast_commits", d->fc_replay);
	e4s_json_obj_end(js);
}

static void print_json(const struct e4s_req *o, e4_journal_t j,
		       const struct e4s_replay *run)
{
	const struct e4_jscan *s = run->scan;
	const struct e4_replay_result *r = &run->res;
	struct e4s_json js;
	size_t i, k;

	e4s_json_init(&js, stdout);
	e4s_json_obj_begin(&js, NULL);
	if (o->output)
		e4s_json_str(&js, "output", o->output);
	else
		e4s_json_null(&js, "output");
	e4s_json_bool(&js, "dry_run", o->dry_run);
	e4s_json_obj_begin(&js, "journal");
	e4s_json_bool(&js, "external", j->external);
	e4s_json_u64(&js, "maxlen", j->jsb.maxlen);
	e4s_json_u64(&js, "blocksize", j->blocksize);
	e4s_json_u64(&js, "first", s->log_first);
	e4s_json_u64(&js, "log_end", s->log_end);
	e4s_json_u64(&js, "start", s->start_jblk);
	e4s_json_u64(&js, "sequence", s->start_tid);
	e4s_json_str(&js, "checksum_method", csum_method(s));
	e4s_json_u64(&js, "tag_bytes", s->tag_bytes);
	e4s_json_i64(&js, "errno", run->jerrno);
	e4s_json_bool(&js, "needs_recovery", run->needs_recovery);
	e4s_json_obj_end(&js);
	if (run->decided)
		json_mount(&js, &run->decision);
	e4s_json_arr_begin(&js, "transactions");
	for (i = 0; i < s->ntrans; i++) {
		const struct e4_jtrans *t = &s->trans[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "tid", t->tid);
		e4s_json_u64(&js, "first_jblk", t->first_jblk);
		e4s_json_u64(&js, "last_jblk", t->last_jblk);
		e4s_json_u64(&js, "nblocks", t->nblocks);
		e4s_json_u64(&js, "descriptors", t->ndescriptors);
		e4s_json_u64(&js, "revoke_blocks", t->nrevoke_blocks);
		e4s_json_u64(&js, "ntags", t->ntags);
		e4s_json_u64(&js, "nrevokes", t->nrevokes);
		e4s_json_bool(&js, "has_commit", t->has_commit);
		e4s_json_bool(&js, "committed", valid_commit(s, t));
		e4s_json_bool(&js, "replayed", replays(run, t));
		if (t->has_commit) {
			e4s_json_u64(&js, "commit_sec", t->commit_sec);
			e4s_json_u64(&js, "commit_nsec", t->commit_nsec);
			e4s_json_str(&js, "commit_csum",
				    ok_name(t->commit_csum_ok));
		}
		if (o->verbose) {
			e4s_json_arr_begin(&js, "tags");
			for (k = 0; k < t->ntags; k++) {
				const struct e4_jtag *g = &t->tags[k];

				e4s_json_obj_begin(&js, NULL);
				e4s_json_u64(&js, "fsblk", g->fsblk);
				e4s_json_u64(&js, "jblk", g->jblk);
				json_tag_flags(&js, g->flags);
				e4s_json_str(&js, "csum", ok_name(g->csum_ok));
				e4s_json_str(&js, "fate",
					    e4_tag_fate_name(g->fate));
				e4s_json_obj_end(&js);
			}
			e4s_json_arr_end(&js);
			e4s_json_arr_begin(&js, "revokes");
			for (k = 0; k < t->nrevokes; k++)
				e4s_json_u64(&js, NULL, t->revokes[k]);
			e4s_json_arr_end(&js);
		}
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_obj_begin(&js, "scan");
	e4s_json_str(&js, "stop", e4_scan_stop_name(s->stop));
	e4s_json_u64(&js, "stop_jblk", s->stop_jblk);
	e4s_json_u64(&js, "end_tid", s->end_tid);
	e4s_json_u64(&js, "ncommitted", s->ncommitted);
	e4s_json_bool(&js, "corrupt", s->corrupt);
	e4s_json_str(&js, "fail", s->fail ? error_message(s->fail) : "");
	if (s->has_failed_commit)
		e4s_json_u64(&js, "failed_commit", s->failed_commit);
	e4s_json_u64(&js, "fc_blocks_used", s->fc_blocks_used);
	e4s_json_bool(&js, "fc_live", s->fc_live);
	if (run->time_back)
		e4s_json_u64(&js, "time_back_tid", run->time_back->tid);
	else
		e4s_json_null(&js, "time_back_tid");
	e4s_json_arr_begin(&js, "events");
	for (i = 0; i < s->nevents; i++) {
		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "tid", s->events[i].tid);
		e4s_json_u64(&js, "jblk", s->events[i].jblk);
		e4s_json_str(&js, "kind",
			    e4_scan_stop_name(s->events[i].kind));
		e4s_json_str(&js, "msg", s->events[i].msg);
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_obj_end(&js);
	e4s_fc_print_json(&js, o, run);	/* replay_fc.c */
	if (run->old)
		print_old_json(&js, o, run->old);
	e4s_json_obj_begin(&js, "replay");
	e4s_json_str(&js, "refused", run->refused ? run->refused : "");
	e4s_json_str(&js, "kernel_refusal", run->kernel_refused == 2 ?
		     "mount-after-replay" : run->kernel_refused ?
		     "recovery" : "");
	e4s_json_u64(&js, "tags", r->ntags);
	e4s_json_u64(&js, "written", r->nwritten);
	e4s_json_u64(&js, "superseded", r->nsuperseded);
	e4s_json_u64(&js, "revoked", r->nrevoked);
	e4s_json_u64(&js, "bad_csum", r->nbad_csum);
	e4s_json_u64(&js, "bad_block", r->nbad_block);
	e4s_json_u64(&js, "revoked_blocks", r->nrevoke_blocks);
	e4s_json_u64(&js, "writes", r->nwrites);
	e4s_json_u64(&js, "reads", r->nreads);
	e4s_json_bool(&js, "superblocks_written", run->replayed);
	e4s_json_bool(&js, "journal_kept", run->plan == 3);
	e4s_json_u64(&js, "new_sequence", r->new_sequence);
	e4s_json_bool(&js, "fs_error", r->fs_error || run->errno_cleared);
	e4s_json_bool(&js, "errno_cleared", run->errno_cleared);
	e4s_json_bool(&js, "fs_not_valid", r->fs_not_valid);
	e4s_json_bool(&js, "mmp_clean", run->mmp.clean);
	e4s_json_obj_end(&js);
	e4s_json_obj_end(&js);	/* "exit" is the run's: json.c */
	e4s_json_finish(&js);
}

/*
 * A journal the kernel's recovery fails on (s->fail): say so, and what
 * each way on does.  The scan ended at its last event; the transactions
 * before it (s_sequence up to that tid - 1) verify, and --upto stops
 * after them without reading the failing one.
 */
static void refused_journal(const char *prog, const struct e4s_req *o,
			    const struct e4_jscan *s)
{
	const struct e4_scan_event *ev = s->nevents ?
		&s->events[s->nevents - 1] : NULL;
	uint32_t tid = fail_tid(s);
	uint32_t good = tid - s->start_tid;

	if (ev && ev->kind == E4_SCAN_BAD_TAG_BLOCK) {
		/* plan.c: ev->msg says what the kernel does. */
		com_err(prog, s->fail, "in the journal of %s at tid %u: %s; "
			"nothing replayed (e2fsck writes every copy)",
			o->device, tid, ev->msg);
		if (good)
			fprintf(stderr, "%s: `e4replay --upto %u` replays the "
				"%u transaction%s before it (tids %u-%u)\n",
				prog, tid - 1, good, good == 1 ? "" : "s",
				s->start_tid, tid - 1);
		return;
	}
	com_err(prog, s->fail, "in the journal of %s at tid %u (jblock "
		"%llu): the kernel's recovery fails there, so it refuses to "
		"mount this file system; nothing replayed", o->device, tid,
		(unsigned long long)(ev ? ev->jblk : s->stop_jblk));
	if (good)
		fprintf(stderr, "%s: choices: `e4replay --upto %u` replays "
			"the %u transaction%s before it (tids %u-%u), which "
			"verify, and discards the rest of the log (in place "
			"for good: -o OUTPUT or -z UNDO keeps IMAGE); e2fsck "
			"(-E journal_only too) discards the whole log, those "
			"%u committed transaction%s with it; `e4replay "
			"--check-order --upto %u` checks them first\n", prog,
			tid - 1, good, good == 1 ? "" : "s", s->start_tid,
			tid - 1, good, good == 1 ? "" : "s", tid - 1);
	else
		fprintf(stderr, "%s: no transaction before it verifies: "
			"e2fsck (-E journal_only too) discards the log, which "
			"holds nothing replayable\n", prog);
}

/*
 * A journal whose recovery replays and still fails the mount
 * (e4_plan_mount_refused()): say what the kernel, e2fsck and each way on
 * do.  Nothing is written unless --replay-anyway.
 */
static void refused_mount(const char *prog, const struct e4s_req *o,
			  const struct e4_jscan *s,
			  const struct e4_mount_refusal *m, int writes)
{
	uint32_t last = s->ncommitted ? s->trans[s->ncommitted - 1].tid : 0;
	uint32_t good = m->tid - s->start_tid;
	/* what this run does: the kernel's writes (e4_plan_replay_refused())
	 * or nothing */
	const char *does = !writes ? "nothing replayed" : o->dry_run ?
		"this run would write the same blocks and keep the journal "
		"(-n: nothing written)" : "this run writes the same blocks "
		"and keeps the journal: every later mount fails the same way "
		"until e2fsck";

	if (m->wiped) {
		com_err(prog, m->err, "in the journal of %s: needs_recovery "
			"is clear, so the kernel discards the log on mount "
			"(jbd2_journal_wipe()), but the wipe's scan meets the "
			"failed commit of tid %u (j_failed_commit) and that "
			"mount fails (\"JBD2: journal transaction %u ... is "
			"corrupt\"), the log already emptied; the next mount "
			"succeeds with nothing replayed; nothing replayed",
			o->device, m->tid, m->tid);
		fprintf(stderr, "%s: choices: e2fsck asks \"Run journal "
			"anyway?\" (-y: yes, -n: the log is cleared) and then "
			"replays the %u transaction%s before tid %u and marks "
			"the fs with errors (ERROR_FS); `e4replay "
			"--replay-anyway` does the same\n", prog, good,
			good == 1 ? "" : "s", m->tid);
		return;
	}
	if (m->err == E4_ERR_JOURNAL_CORRUPT) {
		com_err(prog, m->err, "in the journal of %s: the commit checksum "
			"of tid %u fails (j_failed_commit): the "
			"kernel replays the %u transaction%s before it%s, "
			"then refuses to mount (\"JBD2: journal transaction "
			"%u ... is corrupt\"), the journal left dirty; "
			"%s", o->device, m->tid, good,
			good == 1 ? "" : "s", good ? "" : " (none)", m->tid,
			does);
		fprintf(stderr, "%s: choices: e2fsck (-E journal_only too) "
			"replays those %u transaction%s, discards tid %u and "
			"the rest of the log and marks the fs with errors "
			"(ERROR_FS) for a full check; `e4replay "
			"--replay-anyway` does the same; ", prog, good,
			good == 1 ? "" : "s", m->tid);
		if (good)
			fprintf(stderr, "`e4replay --upto %u` replays tids "
				"%u-%u and discards tid %u and the rest of "
				"the log, as the kernel does, without marking "
				"the fs; `e4replay --check-order --upto %u` "
				"checks them first\n", m->tid - 1,
				s->start_tid, m->tid - 1, m->tid, m->tid - 1);
		else
			fprintf(stderr, "no transaction before it: the log "
				"holds nothing replayable\n");
		return;
	}
	com_err(prog, m->err, "in the journal of %s: %llu logged cop%s "
		"fail%s the tag checksum, the first fs block %llu of tid %u "
		"(jblock %llu): the kernel replays every block of tids "
		"%u-%u but %s, then refuses to mount (\"JBD2: Invalid "
		"checksum recovering data block %llu\", \"journal recovery "
		"failed\"), the journal left dirty; %s",
		o->device, (unsigned long long)m->nbad,
		m->nbad == 1 ? "y" : "ies", m->nbad == 1 ? "s" : "",
		(unsigned long long)m->tag->fsblk, m->tid,
		(unsigned long long)m->tag->jblk, s->start_tid, last,
		m->nbad == 1 ? "the bad one" : "the bad ones",
		(unsigned long long)m->tag->fsblk, does);
	fprintf(stderr, "%s: choices: e2fsck (-E journal_only too) replays "
		"every block but the bad one%s and marks the fs not clean "
		"for a full check; `e4replay --replay-anyway` does the same; ",
		prog, m->nbad == 1 ? "" : "s");
	if (good)
		fprintf(stderr, "`e4replay --upto %u` replays tids %u-%u and "
			"discards tid %u and every transaction after it "
			"(tids %u-%u, committed), which the kernel and "
			"e2fsck replay\n", m->tid - 1, s->start_tid,
			m->tid - 1, m->tid, m->tid, last);
	else
		fprintf(stderr, "the bad copy is in the first transaction: "
			"--upto cannot stop before it\n");
}

/*
 * A journal without checksums (neither v1 nor v2/v3) cannot tell a
 * previous file system's transactions from live ones: the kernel's
 * stale-log rule (need_check_commit_time, fs/jbd2/recovery.c) only fires
 * on a checksum failure.  The first replayed transaction committed
 * before its predecessor, or NULL.
 */
static const struct e4_jtrans *time_back(const struct e4_jscan *s)
{
	size_t i;

	if (s->csum_version || s->fail)
		return NULL;
	for (i = 1; i < s->ncommitted; i++)
		if (s->trans[i].commit_sec < s->trans[i - 1].commit_sec)
			return &s->trans[i];
	return NULL;
}

static void warn_time_back(const char *prog, const struct e4s_req *o,
			   const struct e4_jscan *s,
			   const struct e4_jtrans *t, int refused)
{
	char now[48], before[48];

	fmt_time(t->commit_sec, now, sizeof(now));
	fmt_time((t - 1)->commit_sec, before, sizeof(before));
	fprintf(stderr, "%s: warning: %s: at tid %u the commit time goes "
		"back (%s, older than tid %u's %s): this journal has "
		"no checksums, so nothing tells a previous file system's "
		"transactions from live ones (mke2fs -E lazy_journal_init=1 "
		"keeps the old log); the kernel and e2fsck replay them all, "
		"as this run %s; `e4replay --upto %u -o OUTPUT` stops before "
		"tid %u (in place, --upto discards tid %u and later for good: "
		"the log is reset)\n",
		prog, o->device, t->tid, now, (t - 1)->tid, before,
		refused ? "would" : o->dry_run ? "would" : "does",
		(t - 1)->tid, t->tid, t->tid);
	(void)s;
}

int e4s_replay_scan(const char *prog, const struct e4s_req *r,
		    e4_journal_t j, struct e4_jscan **scan,
		    struct e4_plan **plan)
{
	errcode_t retval;
	int defer;

	*plan = NULL;
	/* A replay reads only the descriptor, revoke and commit blocks in
	 * the scan (E4_SCANF_DEFER_CSUM).  --replay-anyway checks the tag
	 * checksums in its one read of the log; a plain replay checks them
	 * all right after the scan (e4_jscan_check_tags(): in place and on
	 * every cpu where it can), since a bad one makes the kernel refuse
	 * the mount (e4_plan_mount_refused()), which must be known before
	 * the first write. */
	defer = !r->dry_run && !r->verbose && !r->check_order &&
		!r->upto_set;
	retval = e4_journal_scan(j, (r->upto_set ? E4_SCANF_UPTO : 0) |
				 (defer ? E4_SCANF_DEFER_CSUM : 0) |
				 (r->check_order ? E4_SCANF_HASH : 0), r->upto,
				 scan);
	/* A plain replay; nothing replayed after all (e4s_replay_decide()
	 * refuses or plans only, or e4_plan_replay() refuses a read-only
	 * target), or fast commits to replay on S_n (fc_state.c builds it
	 * from the plan): the report and S_n need every checksum now. */
	/* A plain replay and --replay-anyway check them in their one read
	 * of the log (e4_plan_replay_kernel(), e4_plan_replay()): a bad
	 * one found there makes the kernel's writes alone, then its
	 * refusal (replay_refused_late()). */
	if (!retval && (*scan)->ncsum_pending &&
	    ((*scan)->fail || (*scan)->fc_live ||
	     (*scan)->fc ||
	     !(*scan)->start_jblk ||
	     !e4s_needs_recovery(j->fs) ||
	     (!r->output && (!(j->flags & E4_JOURNAL_RW) ||
			     !j->fs || !(j->fs->flags & EXT2_FLAG_RW)))))
		retval = e4_jscan_check_tags(j, *scan);
	if (!retval)
		retval = e4_plan_build(j, *scan, plan);
	if (!retval && (*plan)->csum_needed) {
		/* A tag that fails the recovery unless its checksum does:
		 * decide now, before anything is written (plan.c). */
		e4_plan_free(*plan);
		*plan = NULL;
		retval = e4_jscan_check_tags(j, *scan);
		if (!retval)
			retval = e4_plan_build(j, *scan, plan);
	}
	if (!retval)
		return 0;
	com_err(prog, retval, "while scanning the journal of %s", r->device);
	return E4R_EXIT_ERROR;
}

size_t e4s_block_history(const struct e4_jscan *scan,
			 const struct e4_jscan_old *old, blk64_t fsblk)
{
	const struct e4_jtag *w = NULL;
	uint32_t wtid = 0;
	size_t i, k, n = 0;

	printf("fs block %llu in the log (tids %u..%u committed):\n",
	       (unsigned long long)fsblk, scan->start_tid, scan->end_tid - 1);
	for (i = 0; i < scan->ntrans; i++) {
		const struct e4_jtrans *t = &scan->trans[i];

		for (k = 0; k < t->ntags; k++) {
			const struct e4_jtag *g = &t->tags[k];

			if (g->fsblk != fsblk)
				continue;
			n++;
			printf("  tid %u: logged at jblock %llu%s, %s, tag "
			       "csum %s\n", t->tid,
			       (unsigned long long)g->jblk,
			       t->committed ? "" : " (not committed)",
			       e4_tag_fate_name(g->fate),
			       g->csum_ok < 0 ? "none" : g->csum_ok ? "ok" :
			       "bad");
			if (g->fate == E4_TAG_REPLAY) {
				w = g;
				wtid = t->tid;
			}
		}
		for (k = 0; k < t->nrevokes; k++)
			if (t->revokes[k] == fsblk)
				printf("  tid %u: revoked%s\n", t->tid,
				       t->committed ? "" : " (not committed)");
	}
	for (i = 0; old && i < old->ntrans; i++) {
		const struct e4_jtrans *t = &old->trans[i];

		for (k = 0; k < t->ntags; k++)
			if (t->tags[k].fsblk == fsblk)
				printf("  old tid %u: logged at jblock %llu "
				       "(old, not replayed)\n", t->tid,
				       (unsigned long long)t->tags[k].jblk);
		for (k = 0; k < t->nrevokes; k++)
			if (t->revokes[k] == fsblk)
				printf("  old tid %u: revoked (old, not "
				       "replayed)\n", t->tid);
	}
	if (w)
		printf("  replay writes the copy of tid %u (jblock %llu)\n",
		       wtid, (unsigned long long)w->jblk);
	else
		printf("  replay leaves the image's block (%zu cop%s)\n", n,
		       n == 1 ? "y" : "ies");
	return n;
}

void e4s_replay_decide(const char *prog, const struct e4s_req *o,
		       ext2_filsys fs, const struct e4_plan *plan,
		       struct e4_jscan *s, struct e4s_replay *run)
{
	const struct e4_jscan_old *old = run->old;
	struct e4_mount_refusal mr;
	int fc_rc;

	/* All of @run but the caller's ->old (logdump -O) */
	memset(run, 0, sizeof(*run));
	e4_replay_result_init(&run->res, sizeof(run->res));
	if (o->progress) {	/* -C FD, the meter */
		run->res.progress = e4s_progress_cb;
		run->res.progress_priv = o->progress;
	}
	run->old = old;
	run->scan = s;
	run->needs_recovery = e4s_needs_recovery(fs);
	run->rc = s->corrupt ? E4R_EXIT_CORRUPT : 0;
	run->time_back = time_back(s);
	run->decided = fs && !e4_mount_decide(fs, 0, plan, o->ignore_fc ?
					      E4_DECIDE_IGNORE_FC : 0,
					      &run->decision);
	if (!fs) {
		/* A journal file alone (logdump -f): nothing to replay
		 * into, nothing that says needs_recovery. */
		run->refused = "a journal file with no file system: nothing "
			"to replay into";
	} else if (e4s_is_journal_dev(fs)) {
		/* Only the journal is here: its fs decides (needs_recovery)
		 * and takes the blocks. */
		run->refused = "a bare external journal device: replay it "
			"with its file system (e4replay -j DEVICE FS)";
	} else if (s->fail) {
		refused_journal(prog, o, s);
		run->refused = "the kernel would refuse this journal";
		run->kernel_refused = 1;
		run->rc |= E4R_EXIT_REFUSES;
	} else if (o->upto_set && s->stop != E4_SCAN_UPTO) {
		/* A usage error, as with --check-order --upto. */
		com_err(prog, E4_ERR_UPTO_NOT_FOUND, "(--upto %u) in the "
			"journal of %s", o->upto, o->device);
		run->refused = "no committed transaction with the upto tid";
		run->rc = E4R_EXIT_USAGE;
	} else if (run->decision.action == E4_MOUNT_REPLAY_REFUSE &&
		   !o->replay_anyway && !o->upto_set &&
		   !(s->fc && s->fc->nreplay)) {
		/* The kernel's PASS_REPLAY, then its refusal: the same
		 * blocks written, the journal kept (e4_plan_replay_refused()). */
		e4_plan_mount_refused(plan, &mr);
		refused_mount(prog, o, s, &mr, 1);
		run->kernel_refused = 2;
		run->plan = 3;
		run->rc |= E4R_EXIT_REPLAYED | E4R_EXIT_CORRUPT |
			E4R_EXIT_REFUSED;
	} else if ((run->decision.action == E4_MOUNT_REPLAY_REFUSE ||
		    run->decision.action == E4_MOUNT_DISCARD_REFUSE) &&
		   !o->replay_anyway) {
		/* wiped, fast commits after a refused replay (not
		 * modelled), or --upto (the kernel does not stop there):
		 * nothing written */
		e4_plan_mount_refused(plan, &mr);
		refused_mount(prog, o, s, &mr, 0);
		run->kernel_refused = 2;
		run->refused = mr.wiped ? "needs_recovery is clear: the "
			"kernel would discard this log and refuse that mount "
			"(--replay-anyway replays it)" : "the kernel would "
			"replay part of this journal, then refuse to mount "
			"(--replay-anyway replays what verifies, as e2fsck "
			"does)";
		run->rc |= E4R_EXIT_REFUSES;
	} else if ((fc_rc = e4s_fc_prepare(prog, o, fs, plan, run))) {
		/* -n reports the refusal the real run makes. */
		run->rc |= fc_rc;
	} else if (run->decision.action == E4_MOUNT_DISCARD &&
		   !o->replay_anyway) {
		/*
		 * A log without needs_recovery: the kernel does not replay
		 * it but wipes it on mount (ext4_load_journal() ->
		 * jbd2_journal_wipe(), "Clearing recovery information on
		 * journal"); e2fsck asks.  Replay nothing, say so.
		 */
		fprintf(stderr, "%s: %s: needs_recovery is clear but the "
			"journal holds a log (s_start %llu): the kernel "
			"discards it on mount; nothing replayed (use "
			"--replay-anyway to replay it)\n", prog, o->device,
			(unsigned long long)s->start_jblk);
		run->refused = "needs_recovery is clear: the kernel discards "
			"this log (--replay-anyway replays it)";
		run->rc |= E4R_EXIT_CORRUPT;
	} else {
		/* Clean (nothing to do: plan only) or a replay. */
		run->plan = s->start_jblk || run->needs_recovery ? 2 : 1;
	}
	if (run->time_back && !(run->rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)))
		warn_time_back(prog, o, s, run->time_back, !run->plan);
}

void e4s_replay_say_no_journal(const struct e4s_req *r, const char *where)
{
	struct e4s_json js;

	if (!r->json) {
		printf("%s: no journal, nothing to replay\n", where);
		return;
	}
	e4s_json_init(&js, stdout);
	e4s_json_obj_begin(&js, NULL);
	if (r->output)
		e4s_json_str(&js, "output", r->output);
	else
		e4s_json_null(&js, "output");
	e4s_json_bool(&js, "dry_run", r->dry_run);
	e4s_json_null(&js, "journal");
	e4s_json_arr_begin(&js, "transactions");
	e4s_json_arr_end(&js);
	e4s_json_obj_end(&js);
	e4s_json_finish(&js);
}

int e4s_journal_open_failed(const char *prog, ext2_filsys fs,
			    errcode_t retval, const char *device)
{
	struct e4_mount_decision d;

	if (!e4_mount_decide(fs, retval, NULL, 0, &d) &&
	    d.action == E4_MOUNT_REFUSE) {
		com_err(prog, retval, "in the journal of %s: the kernel "
			"refuses this journal superblock and will not mount "
			"the fs; nothing replayed (e2fsck offers to clear "
			"the journal, which discards its log)", device);
		return E4R_EXIT_REFUSES;
	}
	com_err(prog, retval, "while opening the journal of %s", device);
	return E4R_EXIT_ERROR;
}

void e4s_replay_say_interrupted(const char *prog, const char *device)
{
	/* r_interrupt, t_undo_full: a rerun ends as a clean run. */
	fprintf(stderr, "%s: the replay was interrupted after writing to %s; "
		"%s is partly replayed; running e4replay %s again finishes it "
		"(the replay is idempotent)\n", prog, device, device, device);
}

/* Bytes written so far to one channel into *@n (its io_stats; cached
 * blocks flushed first, as closing it would write them anyway): 0, or -1
 * when the channel cannot tell. */
static int chan_written(io_channel io, uint64_t *n)
{
	io_stats st = NULL;

	if (e4_fault_passed(io, n))	/* E4_FAULT: writes let through */
		return 0;
	if (!io || !io->manager->get_stats)
		return -1;
	(void)io_channel_flush(io);
	if (io->manager->get_stats(io, &st) || !st)
		return -1;
	*n = st->bytes_written;
	return 0;
}

uint64_t e4s_chan_written(io_channel io)
{
	uint64_t n = 0;

	return chan_written(io, &n) ? 0 : n;
}

int e4s_chan_wrote(io_channel io)
{
	uint64_t n = 0;

	return chan_written(io, &n) ? 1 : n > 0;
}

/* What the replay has written to @fs and its external journal. */
static uint64_t replay_written(ext2_filsys fs, e4_journal_t j)
{
	return e4s_chan_written(fs->io) + (j->external ?
					   e4s_chan_written(j->io) : 0);
}

/*
 * --upto stops the scan at its tid: the committed transactions after it
 * are not replayed, and the replay resets the log (s_start 0), so in
 * place they are gone.  Count them before the replay (a second scan,
 * without --upto): *@first-*@last, returns how many.
 */
static size_t after_upto(const struct e4s_req *o, e4_journal_t j,
			 uint32_t *first, uint32_t *last)
{
	struct e4_jscan *full = NULL;
	size_t i, n = 0;

	if (e4_journal_scan(j, E4_SCANF_DEFER_CSUM, 0, &full))
		return 0;
	for (i = 0; i < full->ncommitted; i++)
		if ((int32_t)(full->trans[i].tid - o->upto) > 0) {
			if (!n++)
				*first = full->trans[i].tid;
			*last = full->trans[i].tid;
		}
	e4_jscan_free(full);
	return n;
}

static void say_discarded(const char *prog, const struct e4s_req *o,
			  size_t n, uint32_t first, uint32_t last)
{
	char tids[32];

	if (n > 1)
		snprintf(tids, sizeof(tids), "tids %u-%u", first, last);
	else
		snprintf(tids, sizeof(tids), "tid %u", first);
	if (o->output)
		fprintf(stderr, "%s: --upto %u: %s (committed) not replayed "
			"into %s, whose log is reset; %s keeps %s\n", prog,
			o->upto, tids, o->output, o->device,
			n > 1 ? "them" : "it");
	else
		fprintf(stderr, "%s: --upto %u: %s (committed) %sdiscarded: "
			"not replayed, the log is reset%s\n", prog, o->upto,
			tids, o->dry_run ? "would be " : "",
			o->dry_run ? " (-o OUTPUT keeps IMAGE)" : "");
}

int e4s_replay_writes(const struct e4s_req *o, const struct e4s_replay *run,
		      e4_journal_t j)
{
	return !o->dry_run && (run->plan == 2 || run->plan == 3 ||
			       (run->plan == 1 && j->jsb.errno_));
}

/* "the MMP block (block N: sequence S, node "X", device "Y", updated T)" */
static void mmp_desc(const struct e4_mmp *m, char *buf, size_t len)
{
	char tb[48];

	if (m->time)
		fmt_time(m->time, tb, sizeof(tb));
	else
		snprintf(tb, sizeof(tb), "never");
	snprintf(buf, len, "the MMP block (block %llu: sequence %#x, node "
		 "\"%s\", device \"%s\", updated %s)",
		 (unsigned long long)m->block, m->seq, m->nodename,
		 m->bdevname, tb);
}

int e4s_mmp_begin(const char *prog, const char *device, ext2_filsys fs,
		  unsigned int flags, const char *name, struct e4_mmp *m)
{
	errcode_t retval;
	char desc[256];

	retval = e4_mmp_read(fs, flags, m);
	/* e2fsck_check_mmp(): a wait of more than 20 s is announced */
	if (!retval && m->wait &&
	    m->check_wait > 4 * EXT4_MMP_MIN_CHECK_INTERVAL)
		fprintf(stderr, "%s: %s: MMP check interval %u s: waiting "
			"%u s before writing, as e2fsck does\n", prog, device,
			m->check_wait, m->wait);
	if (!retval)
		retval = e4_mmp_start(fs, flags, name, m);
	if (!retval)
		return 0;
	mmp_desc(m, desc, sizeof(desc));
	switch (retval) {
	case EXT2_ET_MMP_FAILED:
		com_err(prog, retval, "on %s: another node uses it: %s changed "
			"during the %u s check; nothing written (unmount it "
			"there first)", device, desc, m->check_wait);
		break;
	case EXT2_ET_MMP_FSCK_ON:
	case EXT2_ET_MMP_UNKNOWN_SEQ:
		com_err(prog, retval, "on %s: %s %s; nothing written (if no "
			"node uses it, `tune2fs -f -E clear_mmp %s` clears it, "
			"as e2fsck says)", device, desc,
			retval == EXT2_ET_MMP_FSCK_ON ? "says e2fsck or another "
			"offline writer holds it" : "holds a sequence that "
			"neither a mount nor e2fsck writes", device);
		break;
	default:
		com_err(prog, retval, "while reading the MMP block of %s "
			"(block %llu); nothing written (the kernel refuses "
			"to mount it too; e2fsck resets a corrupt one)",
			device, (unsigned long long)m->block);
	}
	return E4R_EXIT_ERROR;
}

int e4s_mmp_refuse(struct e4s_replay *run)
{
	run->refused = "the MMP block says that another node or e2fsck "
		"uses the fs (multiple mount protection)";
	run->plan = 0;
	run->rc |= E4R_EXIT_ERROR;
	return E4R_EXIT_ERROR;
}

/*
 * The kernel's mount goes on after the recovery with the orphan cleanup
 * (ext4_orphan_cleanup()): after a replay in place (or into OUTPUT) run
 * it on the replayed fs and flush; with -n preview it on S_n.  Returns
 * the exit bits; prints one line per problem.
 */
static int orphan_run(const char *prog, const struct e4s_req *o,
		      ext2_filsys fs, const struct e4_plan *plan,
		      struct e4s_replay *run)
{
	errcode_t retval, sb_err = 0;

	retval = e4_orphan_mount(fs, plan, run->fcst, (uint32_t)time(NULL),
				 o->dry_run ? E4_ORPHAN_PREVIEW : 0,
				 &run->orph, &sb_err);
	if (sb_err) {
		/* The replay wrote a superblock this open cannot follow;
		 * the kernel's mount, reading it next, fails there too: no
		 * orphan cleanup on it. */
		com_err(prog, sb_err, "after replaying the journal of %s: no "
			"orphan cleanup %s (e2fsck -f checks what the replay "
			"wrote)", o->target ? o->target : o->device,
			o->dry_run ? "would be done" : "done");
		return 0;
	}
	if (retval) {
		com_err(prog, retval, "while cleaning up the orphan inodes "
			"of %s", o->target ? o->target : o->device);
		if (!o->dry_run && !o->output)
			e4s_replay_say_interrupted(prog, o->device);
		return E4R_EXIT_ERROR;
	}
	run->orphans_done = 1;
	if (run->orph.nproblems) {
		fprintf(stderr, "%s: %s: bad orphan list: %s (%u problem%s; "
			"as the kernel's mount: the list cut there, the fs "
			"marked with errors)\n", prog,
			o->target ? o->target : o->device, run->orph.problem,
			run->orph.nproblems,
			run->orph.nproblems == 1 ? "" : "s");
		return E4R_EXIT_CORRUPT;
	}
	if (run->orph.file_bad)
		return E4R_EXIT_CORRUPT;
	return 0;
}

static void print_orphans(const struct e4s_req *o,
			  const struct e4s_replay *run)
{
	const struct e4_orphan_result *r = &run->orph;
	const char *w = o->dry_run ? "would be " : "";
	size_t i;

	if (!run->orphans_done)
		return;
	if (r->errors_cleared) {
		printf("orphans: fs has errors: orphan list (head inode %u) "
		       "%scleared unprocessed, as the kernel does\n",
		       r->chain_head, w);
		return;
	}
	if (!r->nents && !r->nproblems)
		return;
	printf("orphans: %zu inode%s %scleaned: %llu freed, %llu truncated, "
	       "%llu blocks freed\n", r->nents, r->nents == 1 ? "" : "s", w,
	       (unsigned long long)r->freed,
	       (unsigned long long)r->truncated,
	       (unsigned long long)r->blocks_freed);
	for (i = 0; i < r->nents; i++) {
		const struct e4_orphan_ent *e = &r->ents[i];

		printf("  orphan inode %u (%s): %s%s, size %llu, links %u, "
		       "%llu blocks freed\n", e->ino,
		       e->from_file ? "orphan_file" : "s_last_orphan chain",
		       w, e->freed_inode ? "freed" : "truncated to i_size",
		       (unsigned long long)e->size, e->links,
		       (unsigned long long)e->blocks_freed);
	}
	if (r->nproblems)
		printf("orphans: bad orphan inode %u: %s\n", r->problem_ino,
		       r->problem);
}

/*
 * e4_plan_replay_kernel() met a copy failing its tag checksum in its one
 * read of the log and wrote what the kernel writes, the journal kept:
 * decide again on the now checked scan (E4_MOUNT_REPLAY_REFUSE), say so
 * as e4s_replay_decide() says it when the checksums are checked first,
 * and turn @run into that refusal (plan 3, exit 1 + 4 + 32 in *@rc, no
 * errno carried).  Returns 0 or the errors of e4_plan_build().
 */
static errcode_t replay_refused_late(const char *prog,
				     const struct e4s_req *o, ext2_filsys fs,
				     const struct e4_plan *plan,
				     struct e4s_replay *run, int *rc)
{
	struct e4_mount_refusal mr;
	struct e4_plan *p2 = NULL;
	errcode_t retval;

	retval = e4_plan_build(plan->j, run->scan, &p2);
	if (retval)
		return retval;
	run->decided = !e4_mount_decide(fs, 0, p2, o->ignore_fc ?
					E4_DECIDE_IGNORE_FC : 0,
					&run->decision);
	e4_plan_mount_refused(p2, &mr);
	if (mr.err)
		refused_mount(prog, o, run->scan, &mr, 1);
	e4_plan_free(p2);
	run->plan = 3;
	run->kernel_refused = 2;
	run->errno_cleared = 0;
	*rc |= E4R_EXIT_REPLAYED | E4R_EXIT_CORRUPT | E4R_EXIT_REFUSED;
	return 0;
}

int e4s_replay_run(const char *prog, const struct e4s_req *o, ext2_filsys fs,
		   const struct e4_plan *plan, struct e4s_replay *run)
{
	e4_journal_t j = plan->j;
	errcode_t retval = 0;
	int rc = run->rc, marked;
	uint64_t before = 0;
	uint32_t first = 0, last = 0;
	size_t nafter = 0;

	/* Multiple mount protection first, as e2fsck (lib/e4/mmp.c): the
	 * fs written in place is taken; OUTPUT, a copy this run made, is
	 * marked (IMAGE was checked before the copy: e4replay.c). */
	if (e4s_replay_writes(o, run, j) &&
	    e4s_mmp_begin(prog, o->output ? o->output : o->device, fs,
			  o->output ? E4_MMP_COPY : 0, o->output, &run->mmp))
		rc |= e4s_mmp_refuse(run);
	if (run->plan && !o->dry_run)
		before = replay_written(fs, j);
	if (o->upto_set && run->plan == 2)
		nafter = after_upto(o, j, &first, &last);
	run->jerrno = (int32_t)j->jsb.errno_;
	if (run->plan && run->plan != 3 && run->jerrno) {
		/* The kernel's ext4_clear_journal_err(), on every mount
		 * (not one whose journal load fails: plan 3). */
		run->errno_cleared = 1;
		rc |= E4R_EXIT_REPLAYED;
		if (run->plan == 1 && !o->dry_run) {
			retval = e4_journal_clear_err(j, &marked);
			run->errno_cleared = !retval && marked;
		}
	}
	if (retval) {
		/* reported below */
	} else if (run->plan == 1 || (run->plan >= 2 && o->dry_run)) {
		e4_plan_result(run->scan, plan, &run->res);
		if (run->plan == 2)
			rc |= E4R_EXIT_REPLAYED;
	} else if (run->plan == 3) {
		/* rc has the bits already (e4s_replay_decide()) */
		retval = e4_plan_replay_refused(plan, &run->res);
	} else if (run->plan == 2 && !o->replay_anyway && !run->fcst) {
		/* the kernel's replay, its tag checksums checked in the one
		 * read of the log */
		retval = e4_plan_replay_kernel(plan, &run->res);
		if (retval == E4_ERR_JOURNAL_CHECKSUM)
			retval = replay_refused_late(prog, o, fs, plan, run,
						     &rc);
		else if (!retval) {
			run->replayed = 1;
			rc |= E4R_EXIT_REPLAYED;
		}
	} else if (run->plan == 2) {
		retval = e4_plan_replay_fc(plan, run->fcst, &run->res);
		if (!retval) {
			run->replayed = 1;
			rc |= E4R_EXIT_REPLAYED;
		}
	}
	if (run->plan == 2 && !o->dry_run)
		run->errno_cleared = run->jerrno && run->replayed;
	if (!retval && run->plan && !o->journal_only &&
	    (o->dry_run || run->replayed) && run->plan == 2)
		rc |= orphan_run(prog, o, fs, plan, run);
	if (run->mmp.held) {
		/* ext2fs_mmp_stop(): clean, as e2fsck leaves it (after a
		 * failure too); the next mount does not wait. */
		errcode_t r2 = e4_mmp_stop(fs, &run->mmp);

		if (r2) {
			com_err(prog, r2, "while marking the MMP block of %s "
				"clean", o->output ? o->output : o->device);
			rc |= E4R_EXIT_ERROR;
		}
	}
	if (run->plan == 2 && run->res.corrupt)
		rc |= E4R_EXIT_CORRUPT;
	if (retval) {
		com_err(prog, retval, "while replaying the journal of %s%s%s",
			o->device, o->output ? " into " : "",
			o->output ? o->output : "");
		rc |= E4R_EXIT_ERROR;
		if (!run->refused && !o->output &&
		    replay_written(fs, j) != before) {
			e4s_replay_say_interrupted(prog, o->device);
			run->refused = "interrupted after the first write (partly "
				"replayed); run e4replay again to finish it";
		}
		if (!run->refused)
			run->refused = "replay failed; the journal is intact, "
				"run e4replay again";
	}
	if (nafter && (run->replayed || o->dry_run))
		say_discarded(prog, o, nafter, first, last);
	if (o->json)
		print_json(o, j, run);
	else {
		print_text(o, fs, j, run);
		print_orphans(o, run);
	}
	e4s_fc_cleanup(run);
	e4_orphan_result_free(&run->orph);
	return rc;
}
