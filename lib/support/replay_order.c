/*
 * replay_order.c --- the alloc-on-commit ordering check of
 * `e4replay --check-order` and of e4debug's check_order: run libe4's
 * order.c on an open fs, journal and scan, and print its report as text
 * or JSON.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <et/com_err.h>

#include "e4.h"
#include "json.h"
#include "open.h"
#include "replay.h"

static const char *evid_name(int e)
{
	return e == E4_EVID_IMAGE ? "image" :
		e == E4_EVID_JOURNAL ? "journal" : "none";
}

/* How the finding's mapping came to be, e.g. "new in tid 7 or earlier". */
static void print_attribution(const struct e4_order_finding *f)
{
	if (f->kind == E4_ORD_STALE_OUTSIDE ||
	    f->kind == E4_ORD_STALE_OUTSIDE_PERMITTED ||
	    f->kind == E4_ORD_STALE_METADATA)
		printf("outside the journal window");
	else if (f->kind == E4_ORD_DATA_JOURNALED)
		printf("journaled");
	else if (f->prior_lost)
		printf("%s in tid %u or earlier (prior state lost)",
		       f->conversion ? "conversion" : f->unwritten ?
		       "new unwritten" : "new", f->tid);
	else
		printf("%s", f->conversion ? "unwritten -> written conversion" :
		       f->unwritten ? "new unwritten" : "newly allocated");
}

/* A table cell: "-" for no time, the date, or the raw value with the
 * note (e4s_fmt_commit_time()). */
static void fmt_time(uint64_t sec, char *buf, size_t len)
{
	if (!sec)
		snprintf(buf, len, "-");
	else
		e4s_fmt_commit_time(sec, buf, len);
}

/* Room for a path as text (e4s_text_escape()); longer ones are cut. */
#define PATH_TEXT	E4S_TEXT_ESC_MAX(4096)

static void print_finding_text(const struct e4_order_finding *f)
{
	char pb[PATH_TEXT], ob[PATH_TEXT];

	if (f->kind == E4_ORD_INODE_REUSED) {
		printf("  inode %u reused in tid %u: %s gen %u -> %s gen %u%s\n",
		       f->ino, f->tid, f->old_path ?
		       e4s_text_escape(f->old_path, ob, sizeof(ob)) : "?",
		       f->old_gen, f->path ?
		       e4s_text_escape(f->path, pb, sizeof(pb)) : "?", f->new_gen,
		       f->prior_lost ? " (old identity read through a block "
		       "the log cannot show)" : "");
		return;
	}
	if (f->has_tid)
		printf("  tid %u: ", f->tid);
	else
		printf("  after the window: ");
	printf("%s inode %u", e4_order_kind_name(f->kind), f->ino);
	if (f->path)
		printf(" (%s)", e4s_text_escape(f->path, pb, sizeof(pb)));
	if (f->metadata)
		printf(" [metadata]");
	printf(" lblk %llu pblk %llu len %llu",
	       (unsigned long long)f->lblk, (unsigned long long)f->pblk,
	       (unsigned long long)f->len);
	switch (f->kind) {
	case E4_ORD_STALE:
		printf(": stale data exposed by tid %u%s", f->tid,
		       f->prior_lost ? " or earlier" : "");
		break;
	case E4_ORD_STALE_PERMITTED:
		printf(": stale data exposed by tid %u%s (permitted by "
		       "data=writeback)", f->tid,
		       f->prior_lost ? " or earlier" : "");
		break;
	case E4_ORD_STALE_METADATA:
		if (f->has_tid)
			printf(": stale directory/symlink block in S_%u: no "
			       "logged copy supplies it", f->tid);
		else
			printf(": stale directory/symlink block in the "
			       "replayed fs (corrupt)");
		break;
	case E4_ORD_NOT_JUDGED:
		printf(": not judged (content supplied by tid %u, after the "
		       "checked ones)", f->evid_tid);
		break;
	case E4_ORD_STALE_OUTSIDE:
		printf(": stale data not exposed by a journaled transaction");
		break;
	case E4_ORD_STALE_OUTSIDE_PERMITTED:
		printf(": stale data not exposed by a journaled transaction "
		       "(permitted by data=writeback)");
		break;
	case E4_ORD_DOUBLE_MAPPED:
		printf(": also mapped by inode %u lblk %llu", f->other_ino,
		       (unsigned long long)f->other_lblk);
		break;
	}
	if (f->units)
		printf(" [%llu/%llu units stale, %s",
		       (unsigned long long)f->stale_units,
		       (unsigned long long)f->units, evid_name(f->evidence));
	else
		printf(" [%s", evid_name(f->evidence));
	if (f->evidence == E4_EVID_JOURNAL)
		printf(" copy of tid %u", f->evid_tid);
	printf("; ");
	print_attribution(f);
	printf("]\n");
}

/*
 * Tags of the checked transactions that replay skips as corruption (block
 * past the fs end or inside the journal, tag checksum mismatch): fates set
 * by e4_plan_build(), as plain e4replay counts them (exit 4).
 */
static int bad_tag(const struct e4_jtag *g)
{
	return g->fate == E4_TAG_BAD_BLOCK || g->fate == E4_TAG_BAD_CSUM;
}

static uint64_t count_bad_tags(const struct e4_jscan *scan, size_t ntx)
{
	uint64_t n = 0;
	size_t i, k;

	for (i = 0; i < ntx && i < scan->ncommitted; i++)
		for (k = 0; k < scan->trans[i].ntags; k++)
			n += bad_tag(&scan->trans[i].tags[k]);
	return n;
}

static const char *bad_tag_why(const struct e4_jtag *g)
{
	return g->fate == E4_TAG_BAD_BLOCK ?
		"block past the fs end or inside the journal" :
		"tag checksum mismatch";
}

/*
 * The report's one-word verdict: FAIL (the kernel refuses the journal,
 * violations, corrupt tags), INCOMPLETE (parts not read), UNVERIFIED (no
 * stale-data stamp: stale data could not be looked for, so a clean
 * report proves nothing about it), or OK.
 */
static const char *order_verdict(const struct e4_order_report *rep,
				 uint64_t nbad)
{
	if (rep->kernel_refuses)
		return "FAIL";
	if (rep->nunchecked)
		return "INCOMPLETE";
	if (rep->violations || nbad)
		return "FAIL";
	return rep->stamped ? "OK" : "UNVERIFIED";
}

void e4s_order_print_text(const char *image,
			       const struct e4_jscan *scan,
			       const struct e4_order_report *rep)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	static const char *src[] = { "given", "default mount options",
				     "inferred: file data journaled",
				     "assumed: the mount's data= option is "
				     "not recorded on disk; see --data-mode" };
	uint64_t nbad;
	size_t i;
	int v, hdr;

	printf("%s: %zu committed transaction(s), %zu checked; "
	       "data mode %s (%s); stamp %s\n",
	       e4s_text_escape(image, shown, sizeof(shown)), scan->ncommitted,
	       rep->ntx, e4_data_mode_name(rep->data_mode),
	       src[rep->data_mode_src], rep->stamped ? "found" : "not found");
	printf("%10s %-19s %7s %7s %7s %7s %9s %7s %7s %11s\n", "tid",
	       "commit time (UTC)", "jblocks", "revokes", "new", "conv",
	       "unwritten", "lost", "ahead", "viol.blocks");
	for (i = 0; i < rep->ntx; i++) {
		const struct e4_order_tx *t = &rep->tx[i];
		char tb[48];

		if (t->fast_commit)
			snprintf(tb, sizeof(tb), "(fast commits)");
		else
			fmt_time(t->commit_sec, tb, sizeof(tb));
		printf("%10u %-19s %7llu %7llu %7llu %7llu %9llu %7llu %7llu "
		       "%11llu%s\n", t->tid, tb,
		       (unsigned long long)t->jblocks,
		       (unsigned long long)t->revokes,
		       (unsigned long long)(t->new_alloc - t->prior_lost_alloc),
		       (unsigned long long)(t->conversions - t->prior_lost_conv),
		       (unsigned long long)(t->new_unwritten -
					    t->prior_lost_unwritten),
		       (unsigned long long)t->prior_lost,
		       (unsigned long long)t->ahead,
		       (unsigned long long)t->violations,
		       t->unreadable ? "  (state unreadable)" : "");
	}
	for (v = 2; v >= 0; v--) {
		hdr = 0;
		for (i = 0; i < rep->nf; i++) {
			const struct e4_order_finding *f = &rep->f[i];
			int cls = f->kind < E4_ORD_NOTE_FIRST ? 2 :
				f->kind == E4_ORD_MAPPING ? 0 : 1;

			if (cls != v)
				continue;
			if (!hdr++)
				printf(v == 2 ? "violations:\n" : v == 1 ?
				       "notes:\n" : "new mappings:\n");
			print_finding_text(f);
		}
	}
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		printf("warning: %s\n", rep->warnings[i]);
	if (rep->unknown_blocks)
		printf("unknown content: %llu block(s) logged later than some "
		       "state S_k%s\n", (unsigned long long)rep->unknown_blocks,
		       rep->log_from_start ? " whose home copy equals a logged "
		       "copy (the live log begins at the journal's first "
		       "transaction)" : " (the live log does not begin at the "
		       "journal's first transaction: earlier checkpoints may "
		       "have been dropped)");
	if (rep->outside_checked && rep->upto)
		printf("outside the window: %llu initialized blocks of S_%u "
		       "(--upto, not the replayed S_n) checked for the "
		       "stamp\n", (unsigned long long)rep->outside_blocks,
		       rep->last_tid);
	else if (rep->outside_checked)
		printf("outside the window: %llu initialized blocks of S_n "
		       "checked for the stamp\n",
		       (unsigned long long)rep->outside_blocks);
	nbad = count_bad_tags(scan, rep->ntx);
	if (nbad)
		printf("journal corruption:\n");
	for (i = 0; nbad && i < rep->ntx && i < scan->ncommitted; i++) {
		const struct e4_jtrans *t = &scan->trans[i];
		size_t k;

		for (k = 0; k < t->ntags; k++)
			if (bad_tag(&t->tags[k]))
				printf("  tid %u: tag fsblk %llu <- jblk %llu: "
				       "%s, not replayed\n", t->tid,
				       (unsigned long long)t->tags[k].fsblk,
				       (unsigned long long)t->tags[k].jblk,
				       bad_tag_why(&t->tags[k]));
	}
	if (rep->nunchecked)
		printf("not checked:\n");
	for (i = 0; i < rep->nunchecked; i++) {
		const struct e4_order_unchecked *u = &rep->unchecked[i];

		printf("  %s%s%s\n", u->what, u->err ? ": " : "",
		       u->err ? error_message(u->err) : "");
	}
	if (rep->kernel_refuses == 2)
		printf("FAIL: the kernel replays this journal, then refuses "
		       "to mount (see e4replay -n); ");
	else if (rep->kernel_refuses)
		printf("FAIL: the kernel refuses this journal and replays "
		       "nothing; ");
	else
		printf("%s: ", order_verdict(rep, nbad));
	printf("%llu violation run(s), %llu block(s), %llu note(s)",
	       (unsigned long long)rep->violations,
	       (unsigned long long)rep->violation_blocks,
	       (unsigned long long)rep->notes);
	if (rep->upto)
		printf(" up to S_%u (--upto)", rep->last_tid);
	if (nbad)
		printf(", %llu corrupt journal tag(s)",
		       (unsigned long long)nbad);
	if (rep->nunchecked)
		printf(" in what was checked; %zu part(s) not checked",
		       rep->nunchecked);
	if (!rep->stamped && !rep->kernel_refuses)
		printf("; stale data not looked for: no stale-data stamp "
		       "(e4stamp before mkfs), every new mapping unverified");
	printf("\n");
}

/* data_mode_source in JSON: a word, not the enum's number. */
static const char *dmsrc_key(int src)
{
	switch (src) {
	case E4_DMSRC_GIVEN: return "given";
	case E4_DMSRC_DEFAULT_OPTS: return "default_mount_opts";
	case E4_DMSRC_INFERRED: return "inferred";
	case E4_DMSRC_ASSUMED: return "assumed";
	}
	return "?";
}

void e4s_order_print_json(const struct e4_jscan *scan,
			       const struct e4_order_report *rep)
{
	struct e4s_json js;
	size_t i;

	e4s_json_init(&js, stdout);
	e4s_json_obj_begin(&js, NULL);	/* "image" is the head's */
	e4s_json_u64(&js, "committed", scan->ncommitted);
	e4s_json_str(&js, "data_mode", e4_data_mode_name(rep->data_mode));
	e4s_json_str(&js, "data_mode_source", dmsrc_key(rep->data_mode_src));
	e4s_json_bool(&js, "stamped", rep->stamped);
	e4s_json_bool(&js, "journal_corrupt", rep->journal_corrupt);
	e4s_json_u64(&js, "fast_commit_blocks_unchecked", rep->fc_blocks);
	e4s_json_u64(&js, "violations", rep->violations);
	e4s_json_u64(&js, "violation_blocks", rep->violation_blocks);
	e4s_json_u64(&js, "notes", rep->notes);
	e4s_json_bool(&js, "kernel_refuses", rep->kernel_refuses);
	e4s_json_str(&js, "kernel_refusal", rep->kernel_refuses == 2 ?
		     "mount-after-replay" : rep->kernel_refuses ?
		     "recovery" : "");
	e4s_json_bool(&js, "log_from_start", rep->log_from_start);
	e4s_json_u64(&js, "unknown_blocks", rep->unknown_blocks);
	e4s_json_bool(&js, "upto", rep->upto);
	e4s_json_u64(&js, "last_tid", rep->last_tid);
	e4s_json_bool(&js, "outside_checked", rep->outside_checked);
	e4s_json_u64(&js, "outside_blocks", rep->outside_blocks);
	e4s_json_arr_begin(&js, "transactions");
	for (i = 0; i < rep->ntx; i++) {
		const struct e4_order_tx *t = &rep->tx[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "tid", t->tid);
		e4s_json_u64(&js, "commit_sec", t->commit_sec);
		e4s_json_u64(&js, "commit_nsec", t->commit_nsec);
		e4s_json_u64(&js, "jblocks", t->jblocks);
		e4s_json_u64(&js, "revokes", t->revokes);
		e4s_json_u64(&js, "touched_inodes", t->touched);
		e4s_json_u64(&js, "new_alloc", t->new_alloc);
		e4s_json_u64(&js, "conversions", t->conversions);
		e4s_json_u64(&js, "new_unwritten", t->new_unwritten);
		e4s_json_u64(&js, "prior_lost", t->prior_lost);
		e4s_json_u64(&js, "not_judged", t->not_judged);
		e4s_json_u64(&js, "reused_inodes", t->reused);
		e4s_json_u64(&js, "ahead", t->ahead);
		e4s_json_u64(&js, "violations", t->violations);
		e4s_json_bool(&js, "unreadable", t->unreadable);
		e4s_json_bool(&js, "fast_commit", t->fast_commit);
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_arr_begin(&js, "findings");
	for (i = 0; i < rep->nf; i++) {
		const struct e4_order_finding *f = &rep->f[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_str(&js, "kind", e4_order_kind_name(f->kind));
		e4s_json_bool(&js, "violation", f->kind < E4_ORD_NOTE_FIRST);
		if (f->has_tid)
			e4s_json_u64(&js, "tid", f->tid);
		else
			e4s_json_null(&js, "tid");
		e4s_json_u64(&js, "ino", f->ino);
		if (f->path)
			e4s_json_str(&js, "path", f->path);
		else
			e4s_json_null(&js, "path");
		e4s_json_u64(&js, "lblk", f->lblk);
		e4s_json_u64(&js, "pblk", f->pblk);
		e4s_json_u64(&js, "len", f->len);
		e4s_json_bool(&js, "conversion", f->conversion);
		e4s_json_bool(&js, "prior_lost", f->prior_lost);
		e4s_json_bool(&js, "unwritten", f->unwritten);
		e4s_json_bool(&js, "metadata", f->metadata);
		if (f->kind == E4_ORD_INODE_REUSED) {
			e4s_json_u64(&js, "old_gen", f->old_gen);
			e4s_json_u64(&js, "new_gen", f->new_gen);
			if (f->old_path)
				e4s_json_str(&js, "old_path", f->old_path);
			else
				e4s_json_null(&js, "old_path");
		}
		if (f->kind == E4_ORD_NOT_JUDGED)
			e4s_json_u64(&js, "supplied_by_tid", f->evid_tid);
		e4s_json_str(&js, "evidence", evid_name(f->evidence));
		if (f->evidence == E4_EVID_JOURNAL)
			e4s_json_u64(&js, "evidence_tid", f->evid_tid);
		e4s_json_u64(&js, "stale_units", f->stale_units);
		e4s_json_u64(&js, "units", f->units);
		if (f->kind == E4_ORD_DOUBLE_MAPPED) {
			e4s_json_u64(&js, "other_ino", f->other_ino);
			e4s_json_u64(&js, "other_lblk", f->other_lblk);
		}
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_u64(&js, "journal_bad_tags", count_bad_tags(scan, rep->ntx));
	e4s_json_arr_begin(&js, "journal_findings");
	for (i = 0; i < rep->ntx && i < scan->ncommitted; i++) {
		const struct e4_jtrans *t = &scan->trans[i];
		size_t k;

		for (k = 0; k < t->ntags; k++) {
			if (!bad_tag(&t->tags[k]))
				continue;
			e4s_json_obj_begin(&js, NULL);
			e4s_json_u64(&js, "tid", t->tid);
			e4s_json_u64(&js, "fsblk", t->tags[k].fsblk);
			e4s_json_u64(&js, "jblk", t->tags[k].jblk);
			e4s_json_str(&js, "fate",
				    e4_tag_fate_name(t->tags[k].fate));
			e4s_json_obj_end(&js);
		}
	}
	e4s_json_arr_end(&js);
	e4s_json_arr_begin(&js, "warnings");
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		e4s_json_str(&js, NULL, rep->warnings[i]);
	e4s_json_arr_end(&js);
	e4s_json_bool(&js, "complete", !rep->nunchecked);
	e4s_json_str(&js, "verdict",
		     order_verdict(rep, count_bad_tags(scan, rep->ntx)));
	e4s_json_bool(&js, "stale_data_checked", rep->stamped);
	e4s_json_arr_begin(&js, "unchecked");
	for (i = 0; i < rep->nunchecked; i++) {
		const struct e4_order_unchecked *u = &rep->unchecked[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "tid", u->tid);
		e4s_json_u64(&js, "ino", u->ino);
		e4s_json_str(&js, "what", u->what);
		e4s_json_str(&js, "error", u->err ? error_message(u->err) : "");
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_obj_end(&js);
	e4s_json_finish(&js);
}

/*
 * A log while needs_recovery is clear: the kernel replays nothing (it
 * wipes the log on mount: ext4_load_journal() -> jbd2_journal_wipe()),
 * as plain e4replay does.  The crash state is the image as it is, with
 * no transaction to say which of its blocks came in what order: nothing
 * is checked, no verdict; exit 4 (E4R_EXIT_CORRUPT), as plain replay.
 */
static int discarded_log(const char *prog, const struct e4s_req *r,
			 const struct e4_jscan *scan, const char *image,
			 errcode_t refused)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	if (refused)	/* the wipe's scan meets j_failed_commit: that
			 * mount fails too (e4_plan_mount_refused()) */
		com_err(prog, refused, "in the journal of %s: needs_recovery "
			"is clear: the kernel discards the log and refuses "
			"that mount (see e4replay -n); nothing checked",
			image);
	else
		fprintf(stderr, "%s: %s: needs_recovery is clear but the "
			"journal holds a log (s_start %llu, %zu committed "
			"transactions): the kernel discards it on mount and "
			"replays nothing, so the crash state is the image as "
			"it is and no transaction orders it; nothing checked "
			"(--replay-anyway checks the log as if replayed)\n",
			prog, image, (unsigned long long)scan->start_jblk,
			scan->ncommitted);
	if (r->json) {
		struct e4s_json js;

		e4s_json_init(&js, stdout);
		e4s_json_obj_begin(&js, NULL);
		e4s_json_bool(&js, "kernel_discards_log", 1);
		e4s_json_bool(&js, "kernel_refuses", refused != 0);
		e4s_json_u64(&js, "log_transactions", scan->ncommitted);
		e4s_json_u64(&js, "checked", 0);
		e4s_json_bool(&js, "complete", 0);
		e4s_json_obj_end(&js);
		e4s_json_finish(&js);
	} else {
		printf("%s: %s: needs_recovery is clear: the kernel discards "
		       "this log (%zu committed transactions)%s and replays "
		       "nothing; nothing checked\n",
		       e4s_text_escape(image, shown, sizeof(shown)),
		       refused ? "FAIL" : "NOT CHECKED", scan->ncommitted,
		       refused ? ", refuses that mount" : "");
	}
	return refused ? E4R_EXIT_REFUSES : E4R_EXIT_CORRUPT;
}

/*
 * A check libe4 refuses for the file system's format (e4_order_check()
 * returned E4_ERR_BIGALLOC: bigalloc, whose allocation unit is a cluster
 * of blocks, which the check does not model): one line on stderr, and
 * with --json a document saying so (nothing checked, no verdict), so
 * that a campaign sees why.  Returns E4R_EXIT_ERROR.
 */
static int refused_format(const char *prog, const struct e4s_req *r,
			  ext2_filsys fs, const char *image, errcode_t err)
{
	unsigned int ratio = EXT2FS_CLUSTER_RATIO(fs);
	char why[320];

	snprintf(why, sizeof(why), "bigalloc (clusters of %u blocks of %u "
		 "bytes): --check-order judges allocations block by block "
		 "against the block bitmap and does not model clusters; "
		 "nothing checked, no verdict (the replay itself, e4replay "
		 "-n, -o or in place, works)", ratio, fs->blocksize);
	com_err(prog, err, "on %s: %s", image, why);
	if (r->json) {
		struct e4s_json js;

		e4s_json_init(&js, stdout);
		e4s_json_obj_begin(&js, NULL);
		e4s_json_str(&js, "refused", "bigalloc");
		e4s_json_str(&js, "reason", why);
		e4s_json_u64(&js, "cluster_blocks", ratio);
		e4s_json_u64(&js, "checked", 0);
		e4s_json_bool(&js, "complete", 0);
		e4s_json_obj_end(&js);
		e4s_json_finish(&js);
	}
	return E4R_EXIT_ERROR;
}

int e4s_order_run(const char *prog, const struct e4s_req *r, ext2_filsys fs,
		  const struct e4_plan *plan, const char *image)
{
	const struct e4_jscan *scan = plan->scan;
	struct e4_order_report *rep = NULL;
	struct e4_jscan *full = NULL;
	struct e4_plan *fplan = NULL;
	errcode_t retval = 0;
	int rc = 0;

	if (scan->start_jblk && !e4s_needs_recovery(fs) &&
	    !r->replay_anyway) {
		struct e4_mount_refusal mr;

		e4_plan_mount_refused(plan, &mr);
		return discarded_log(prog, r, scan, image, mr.err);
	}
	/*
	 * --upto N: the replay's scan ends at N, but the check needs the
	 * whole log: a block logged after N has unknown content in S_N
	 * (issue 13).  It checks T1..TN of a scan of the whole log.
	 */
	if (r->order.has_upto && scan->stop == E4_SCAN_UPTO) {
		retval = e4_journal_scan(plan->j, 0, 0, &full);
		if (!retval)
			retval = e4_plan_build(plan->j, full, &fplan);
		if (!retval) {
			plan = fplan;
			scan = full;
		}
	}
	if (!retval)
		retval = e4_order_check(fs, plan, &r->order, &rep);
	if (!retval && rep->kernel_refuses == 2 && r->replay_anyway)
		rep->kernel_refuses = 0;	/* as plain --replay-anyway */
	if (retval && rep) {
		/* Stopped by a read error: no verdict, say what is left. */
		size_t done = rep->ntx, want = rep->ntx;

		while (want < scan->ncommitted &&
		       (!r->order.has_upto ||
			scan->trans[want].tid != r->order.upto + 1))
			want++;
		if (done < want)
			com_err(prog, retval, "while checking the ordering of "
				"%s: tids %u-%u not checked (%zu of %zu "
				"transactions), nor the rest of the image; no "
				"verdict", image, scan->trans[done].tid,
				scan->trans[want - 1].tid, want - done, want);
		else
			com_err(prog, retval, "while checking the ordering of "
				"%s: the scan outside the journal window not "
				"finished (all %zu transactions checked); no "
				"verdict", image, done);
		e4_order_report_free(rep);
		e4_plan_free(fplan);
		e4_jscan_free(full);
		return 8;
	}
	if (retval == E4_ERR_BIGALLOC) {
		e4_plan_free(fplan);
		e4_jscan_free(full);
		return refused_format(prog, r, fs, image, retval);
	}
	if (retval) {
		com_err(prog, retval, "while checking the ordering of %s%s",
			image, retval == E4_ERR_UPTO_NOT_FOUND ? "" :
			": nothing checked; no verdict");
		e4_plan_free(fplan);
		e4_jscan_free(full);
		return retval == E4_ERR_UPTO_NOT_FOUND ? 16 : 8;
	}
	/* The fates plain replay gives each tag (the plan's): corrupt tags
	 * count too. */
	if (count_bad_tags(scan, rep->ntx))
		rc |= 4;
	if (r->json)
		e4s_order_print_json(scan, rep);
	else
		e4s_order_print_text(image, scan, rep);
	/* Campaigns tell the two apart: a violation is 64, journal
	 * corruption met and handled as the kernel does is 4. */
	if (rep->violations)
		rc |= E4R_EXIT_VIOLATION;
	if (rep->journal_corrupt || scan->corrupt)
		rc |= E4R_EXIT_CORRUPT;
	/* No stamp: stale data was not looked for, never a clean 0. */
	if (!rep->stamped)
		rc |= E4R_EXIT_UNVERIFIED;
	if (rep->kernel_refuses)	/* as plain e4replay: nothing replays */
		rc = E4R_EXIT_REFUSES;
	if (rep->nunchecked) {
		/* Fail closed: a partial check is not a verdict. */
		fprintf(stderr, "%s: %s: %zu part(s) could not be read and "
			"were not checked (listed under \"not checked\"); no "
			"verdict\n", prog, image, rep->nunchecked);
		rc |= 8;
	}
	fflush(stdout);
	e4_order_report_free(rep);
	e4_plan_free(fplan);
	e4_jscan_free(full);
	return rc;
}
