/*
 * replay_fc.c --- the fast-commit part of the replay flow (replay_run.c):
 * refuse what the kernel refuses, replay the fast commits in memory before
 * anything is written (so -n shows what the real run writes), say loudly
 * what --ignore-fast-commit drops, and print the tags (debugfs logdump
 * style) as text or JSON.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <et/com_err.h>

#include "e4.h"
#include "json.h"
#include "replay.h"

/* "inodes 12, 13 and 19" into @buf, at most @max listed. */
static void inode_list(const struct e4_fcscan *fc, char *buf, size_t len)
{
	ext2_ino_t *inos = NULL;
	size_t n = 0, i, at = 0;

	buf[0] = 0;
	if (e4_fc_inodes(fc, &inos, &n) || !n) {
		snprintf(buf, len, "no inode");
		ext2fs_free_mem(&inos);
		return;
	}
	at += snprintf(buf, len, "%s", n > 1 ? "inodes" : "inode");
	for (i = 0; i < n && at + 16 < len; i++)
		at += snprintf(buf + at, len - at, "%s %u",
			       i ? (i + 1 == n ? " and" : ",") : "", inos[i]);
	if (i < n)
		snprintf(buf + at, len - at, " ...");
	ext2fs_free_mem(&inos);
}

int e4s_fc_prepare(const char *prog, const struct e4s_req *o,
		   ext2_filsys fs, const struct e4_plan *plan,
		   struct e4s_replay *run)
{
	struct e4_jscan *s = run->scan;
	struct e4_fcscan *fc = s->fc;
	char inos[256];
	errcode_t retval;

	if (!fc)
		return 0;
	if (o->ignore_fc) {
		if (!fc->nreplay && !fc->fail)
			return 0;
		inode_list(fc, inos, sizeof(inos));
		run->fc_dropped = 1;
		if (fc->fail)
			fprintf(stderr, "%s: --ignore-fast-commit: the "
				"fast-commit area of %s fails the kernel's "
				"scan (%s), so the kernel would refuse this "
				"journal; replaying the full commits only\n",
				prog, o->device, error_message(fc->fail));
		else
			fprintf(stderr, "%s: --ignore-fast-commit: DROPPING "
				"%" PRIu32 " fast commit%s (%zu tags) of tid "
				"%" PRIu32 " changing %s: what was fsynced "
				"after the last full commit is lost\n", prog,
				fc->nfc, fc->nfc == 1 ? "" : "s",
				fc->nreplay, fc->expected_tid, inos);
		return 0;
	}
	/* The refusal is libe4's (e4_mount_decide(): a failed fast-commit
	 * scan refuses, after the journal superblock and PASS_SCAN that
	 * e4s_replay_decide() has already refused); only printed here. */
	if (run->decided && (run->decision.action == E4_MOUNT_REFUSE ||
			     run->decision.action == E4_MOUNT_DISCARD_REFUSE) &&
	    run->decision.why == fc->fail && fc->fail) {
		com_err(prog, run->decision.why, "in the fast-commit area of %s: the "
			"kernel's recovery fails here; nothing replayed "
			"(--ignore-fast-commit replays the full commits "
			"only)", o->device);
		run->refused = "the kernel's recovery fails in the "
			"fast-commit area";
		return E4R_EXIT_REFUSES;
	}
	if (!fc->nreplay || (s->start_jblk && !run->needs_recovery &&
			     !o->replay_anyway))
		return 0;
	retval = e4_fc_state_open_plan(fs, plan, &run->fcst);
	/* only the changed blocks are kept: -o closes IMAGE and replays
	 * into its copy OUTPUT (the same S_n) */
	e4_fc_state_detach(run->fcst);
	if (retval == E4_ERR_FC_REPLAY_FAILS) {
		com_err(prog, retval, "in %s: nothing replayed "
			"(--ignore-fast-commit replays the full commits "
			"only)", o->device);
		run->refused = "the kernel's fast-commit replay fails";
		return E4R_EXIT_REFUSES;
	}
	if (retval) {
		com_err(prog, retval, "while replaying the fast commits of %s "
			"in memory; nothing written", o->device);
		run->refused = "fast-commit replay failed; nothing written";
		return E4R_EXIT_ERROR;
	}
	return 0;
}

void e4s_fc_cleanup(struct e4s_replay *run)
{
	e4_fc_state_close(run->fcst);
	run->fcst = NULL;
}

static const char *fc_what(const struct e4s_replay *run)
{
	const struct e4_fcscan *fc = run->scan->fc;

	if (run->fc_dropped)
		return "dropped (--ignore-fast-commit)";
	if (fc->fail)
		return "the kernel's recovery fails";
	if (fc->stop == E4_FC_STOP_NOT_LAST)
		return "not replayed (--upto is not the last full commit)";
	if (!fc->nreplay)
		return "none to replay";
	return run->replayed ? "replayed" : "to replay";
}

void e4s_fc_print_text(const struct e4s_req *o, const struct e4s_replay *run)
{
	const struct e4_fcscan *fc = run->scan->fc;
	const struct e4_fc_replay_result *r;
	char line[400];
	size_t i;

	if (!fc)
		return;
	if (fc->stop == E4_FC_STOP_NOT_LAST) {
		printf("fast commit: not replayed: --upto %" PRIu32 " is not "
		       "the last full commit (not-last)\n",
		       fc->expected_tid - 1);
		return;
	}
	printf("fast commit: area jblocks %llu-%llu, tid %" PRIu32 ": %"
	       PRIu32 " fast commit%s, %zu of %zu tags %s; scan stopped at "
	       "jblock %llu+%" PRIu32 " (%s)\n",
	       (unsigned long long)fc->first_jblk,
	       (unsigned long long)fc->end_jblk - 1, fc->expected_tid,
	       fc->nfc, fc->nfc == 1 ? "" : "s", fc->nreplay, fc->ntags,
	       fc_what(run), (unsigned long long)fc->stop_jblk, fc->stop_off,
	       e4_fc_stop_name(fc->stop));
	if (o->verbose)
		for (i = 0; i < fc->ntags; i++) {
			const struct e4_fc_tag *t = &fc->tags[i];

			printf("  fc %" PRIu32 " jblk %llu+%" PRIu32 ": %s: "
			       "%s\n", t->fc, (unsigned long long)t->jblk,
			       t->off, e4_fc_format_tag(t, line, sizeof(line)),
			       i < fc->nreplay ? (run->fcst ?
				e4_fc_fate_name(t->fate) : "replay") :
			       "not replayed");
		}
	for (i = 0; i < fc->nevents; i++)
		printf("note: fast commit jblock %llu: %s\n",
		       (unsigned long long)fc->events[i].jblk,
		       fc->events[i].msg);
	if (!run->fcst)
		return;
	r = &run->fcst->res;
	printf("fast-commit replay%s: %" PRIu64 " tags (%" PRIu64 " applied, "
	       "%" PRIu64 " skipped), %" PRIu64 " inodes modified, %" PRIu64
	       " deleted; block bitmap: %" PRIu64 " bits set, %" PRIu64
	       " cleared; %" PRIu64 " blocks allocated; %zu fs blocks %s\n",
	       o->dry_run ? " (dry run)" : "", r->ntags, r->applied,
	       r->skipped, r->ninodes, r->deleted, r->blocks_set,
	       r->blocks_cleared, r->allocated, e4_cow_count(run->fcst->cow),
	       run->replayed ? "written" : "to write");
}

void e4s_fc_print_json(struct e4s_json *js, const struct e4s_req *o,
		       const struct e4s_replay *run)
{
	const struct e4_fcscan *fc = run->scan->fc;
	char line[400];
	size_t i;

	if (!fc) {
		e4s_json_null(js, "fast_commit");
		return;
	}
	e4s_json_obj_begin(js, "fast_commit");
	e4s_json_u64(js, "first_jblk", fc->first_jblk);
	e4s_json_u64(js, "end_jblk", fc->end_jblk);
	e4s_json_u64(js, "tid", fc->expected_tid);
	e4s_json_u64(js, "fast_commits", fc->nfc);
	e4s_json_u64(js, "tags", fc->ntags);
	e4s_json_u64(js, "tags_replayed", fc->nreplay);
	e4s_json_str(js, "stop", e4_fc_stop_name(fc->stop));
	e4s_json_u64(js, "stop_jblk", fc->stop_jblk);
	e4s_json_u64(js, "stop_off", fc->stop_off);
	e4s_json_str(js, "fail", fc->fail ? error_message(fc->fail) : "");
	e4s_json_str(js, "status", fc_what(run));
	e4s_json_bool(js, "dropped", run->fc_dropped);
	e4s_json_arr_begin(js, "events");
	for (i = 0; i < fc->nevents; i++) {
		e4s_json_obj_begin(js, NULL);
		e4s_json_u64(js, "jblk", fc->events[i].jblk);
		e4s_json_str(js, "kind", e4_fc_stop_name(fc->events[i].kind));
		e4s_json_str(js, "msg", fc->events[i].msg);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	if (o->verbose) {
		e4s_json_arr_begin(js, "fc_tags");
		for (i = 0; i < fc->ntags; i++) {
			const struct e4_fc_tag *t = &fc->tags[i];

			e4s_json_obj_begin(js, NULL);
			e4s_json_str(js, "tag", e4_fc_tag_name(t->tag));
			e4s_json_u64(js, "fc", t->fc);
			e4s_json_u64(js, "jblk", t->jblk);
			e4s_json_u64(js, "off", t->off);
			e4s_json_u64(js, "len", t->len);
			e4s_json_str(js, "text",
				    e4_fc_format_tag(t, line, sizeof(line)));
			if (t->ino)
				e4s_json_u64(js, "ino", t->ino);
			if (t->parent)
				e4s_json_u64(js, "parent", t->parent);
			if (t->tag == E4_FC_TAG_ADD_RANGE ||
			    t->tag == E4_FC_TAG_DEL_RANGE) {
				e4s_json_u64(js, "lblk", t->lblk);
				e4s_json_u64(js, "count", t->count);
			}
			if (t->tag == E4_FC_TAG_ADD_RANGE) {
				e4s_json_u64(js, "pblk", t->pblk);
				e4s_json_bool(js, "unwritten", t->unwritten);
			}
			if (t->tag == E4_FC_TAG_HEAD ||
			    t->tag == E4_FC_TAG_TAIL)
				e4s_json_u64(js, "tid", t->tid);
			e4s_json_bool(js, "replay", i < fc->nreplay);
			e4s_json_str(js, "fate", e4_fc_fate_name(t->fate));
			e4s_json_obj_end(js);
		}
		e4s_json_arr_end(js);
	}
	if (run->fcst) {
		const struct e4_fc_replay_result *r = &run->fcst->res;

		e4s_json_obj_begin(js, "replay");
		e4s_json_u64(js, "tags", r->ntags);
		e4s_json_u64(js, "applied", r->applied);
		e4s_json_u64(js, "skipped", r->skipped);
		e4s_json_u64(js, "inodes", r->ninodes);
		e4s_json_u64(js, "deleted", r->deleted);
		e4s_json_u64(js, "bits_set", r->blocks_set);
		e4s_json_u64(js, "bits_cleared", r->blocks_cleared);
		e4s_json_u64(js, "allocated", r->allocated);
		e4s_json_u64(js, "fs_blocks", e4_cow_count(run->fcst->cow));
		e4s_json_bool(js, "written", run->replayed);
		e4s_json_obj_end(js);
	}
	e4s_json_obj_end(js);
}
