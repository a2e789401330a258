/*
 * e4replay.c --- e4tools' journal replayer: scan the jbd2 log of an ext4
 * image as the kernel does, list its transactions, and replay it in place
 * or into a copy, optionally after checking its alloc-on-commit ordering
 * (see e4replay(8)).  Options, path checks and the order of the steps
 * only: the work is done by libe4 (scan.c, revoke.c, replay.c, order.c)
 * through lib/support/replay_run.c and replay_order.c, which print the
 * reports.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <et/com_err.h>

#include "e4.h"
#include "json.h"
#include "open.h"
#include "options.h"
#include "progress.h"
#include "replay.h"
#include "stats.h"
#include "target.h"
#include "wlog.h"

static const char *prog = "e4replay";

static const char usage_text[] =
	"Usage: %1$s [-n] [-v] [--json] [--upto TID] [-o OUTPUT]\n"
	"\t[-z UNDO_FILE] [-j JOURNAL_DEV [--journal-output FILE]] [-C FD]\n"
	"\t[--ignore-fast-commit] [--replay-anyway] [--journal-only] IMAGE\n"
	"       %1$s --check-order [--data-mode=auto|ordered|journal|"
	"writeback]\n"
	"\t[--outside=auto|yes|no] [--stamped=auto|yes|no] "
	"[--list-mappings]\n"
	"\t[-n | -o OUTPUT | --replay] [replay options] IMAGE\n"
	"       %1$s --stats [--json] [--plot FILE.svg|FILE.png] [--all] "
	"[-j JOURNAL_DEV] IMAGE\n"
	"       %1$s --write-log=LOG [--start-mark=LABEL | --start-entry=N] "
	"--list | --at | ... BASE\n"
	"       %1$s --write-log=LOG --list [--json] [--marks] BASE\n"
	"       %1$s --write-log=LOG --at=ENTRY|MARK [--drop=E1,E2,...] "
	"[--durable]\n"
	"\t[-n | -o OUTPUT] [-v] [--json] BASE\n"
	"       %1$s --write-log=LOG --check-order "
	"[--data-mode=auto|ordered|journal|writeback]\n"
	"\t[--marks] [--reorder] [-v] [--json] BASE\n"
	"       %1$s --write-log=LOG --check-durability [-v] [--json] BASE\n"
	"       %1$s --write-log=LOG --stats [--json] "
	"[--plot FILE.svg|FILE.png] BASE\n"
	"       %1$s -V | --version | -h | --help\n";

static void usage(void)
{
	e4s_usage(stderr, prog, usage_text);
	exit(E4R_EXIT_USAGE);
}

/* A file system and its journal, opened once. */
struct opened {
	ext2_filsys	fs;
	e4_journal_t	j;
	errcode_t	jerr;	/* the journal's open error */
};

/*
 * Open the fs on @device (read-write if @rw, through @undo, and the
 * journal device through @jundo) and its journal (JOURNAL_DEV @jdev):
 * 0 with t->jerr set, or the exit status after one line.
 */
static int open_target(const char *device, const char *jdev, int rw,
		       const char *undo, const char *jundo, struct opened *t)
{
	int jflags = rw ? E4_JOURNAL_RW : 0;

	if (e4s_open_fs(prog, device, E4S_OPEN_IGNORE_CSUM |
			(rw ? E4S_OPEN_RW : 0), rw ? undo : NULL, &t->fs))
		return E4R_EXIT_ERROR;
	if (rw && jdev && jundo) {
		if (e4s_setup_undo(prog, jundo))
			return E4R_EXIT_ERROR;
		jflags |= E4_JOURNAL_UNDO;
	}
	t->jerr = e4s_open_journal(prog, t->fs, jdev, jflags, &t->j);
	return 0;
}

/* Close what open_target() opened: E4R_EXIT_ERROR if the fs's close
 * failed (printed), else 0. */
static int close_target(struct opened *t, const char *name, int said)
{
	errcode_t retval;
	int wrote;

	e4_journal_close(t->j);
	t->j = NULL;
	if (!t->fs)
		return 0;
	wrote = (t->fs->flags & EXT2_FLAG_RW) &&
		e4s_chan_written(t->fs->io);
	retval = ext2fs_close_free(&t->fs);
	if (!retval)
		return 0;
	com_err(prog, retval, "while closing %s", name);
	/* The superblocks are written last: a rerun finishes. */
	if (wrote && !said)
		e4s_replay_say_interrupted(prog, name);
	return E4R_EXIT_ERROR;
}

/*
 * What the run writes besides IMAGE in place: OUTPUT and --journal-output
 * (built under a temporary name, or a block device written in place, only
 * once the input decided the replay goes ahead) and the undo files
 * (temporary until the run ends: lib/support/target.c).
 */
struct writes {
	struct e4s_output	out, jout;
	int			out_begun, jout_begun;
	struct e4s_undo		undo, jundo;
	const char		*undo_tmp, *jundo_tmp;	/* NULL: no -z */
	const char		*out_name, *jout_name;	/* what to open */
};

/* Start one output and copy @src into it; 0 or E4R_EXIT_ERROR. */
static int copy_one(const char *what, const char *src, const char *dst,
		    struct e4s_output *out, int *begun, const char **name)
{
	if (e4s_output_begin(prog, what, dst, out))
		return E4R_EXIT_ERROR;
	*begun = 1;
	if (e4s_output_copy(prog, src, out))
		return E4R_EXIT_ERROR;
	/* Closed: libext2fs opens it (a device exclusively) itself. */
	close(out->fd);
	out->fd = -1;
	*name = out->tmp ? out->tmp : dst;
	return 0;
}

/* -o: copy IMAGE into OUTPUT (and JOURNAL_DEV into --journal-output).
 * 0 or E4R_EXIT_ERROR. */
static int copy_outputs(const struct e4s_req *o, struct writes *w)
{
	int rc = copy_one("OUTPUT", o->device, o->output, &w->out,
			  &w->out_begun, &w->out_name);

	if (!rc && o->journal_output)
		rc = copy_one("--journal-output", o->journal_dev,
			      o->journal_output, &w->jout, &w->jout_begun,
			      &w->jout_name);
	return rc;
}

/*
 * The run is over (@rc its status): rename the outputs into place if it
 * succeeded, else drop them; keep each undo file that recorded a write.
 * Returns the bits to add to the status.
 */
static int finish_writes(struct writes *w, int rc)
{
	int ok = !(rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)), add = 0;

	if (w->jout_begun) {
		if (ok && e4s_output_commit(prog, &w->jout))
			ok = 0, add = E4R_EXIT_ERROR;
		if (!ok)
			e4s_output_abort(&w->jout);
	}
	if (w->out_begun) {
		if (ok && e4s_output_commit(prog, &w->out))
			ok = 0, add = E4R_EXIT_ERROR;
		if (!ok)
			e4s_output_abort(&w->out);
	}
	if (w->undo_tmp && e4s_undo_finish(prog, &w->undo, ok) < 0)
		add = E4R_EXIT_ERROR;
	if (w->jundo_tmp && e4s_undo_finish(prog, &w->jundo, ok) < 0)
		add = E4R_EXIT_ERROR;
	return add;
}

/*
 * The run: IMAGE and its journal are opened once (read-write only for a
 * replay in place), scanned and planned once; --check-order checks that
 * plan, and the replay (in place, -n, or into OUTPUT) is decided from the
 * scan before anything is written.  Only a replay into OUTPUT opens a
 * second file system: OUTPUT, the copy of IMAGE, which the same scan
 * describes (its plan is rebuilt for OUTPUT's journal, without io).
 * Returns the exit status.
 */
static int run(struct e4s_req *o, struct writes *w)
{
	int replay = !o->check_order || o->output || o->replay_in_place ||
		o->dry_run;
	int in_place = replay && !o->dry_run && !o->output;
	struct opened in = { 0 }, out = { 0 };
	struct e4_plan *plan = NULL, *out_plan = NULL;
	struct e4_jscan *scan = NULL;
	struct e4s_replay rr;
	int rc, order_rc = 0;
	errcode_t retval;

	memset(&rr, 0, sizeof(rr));
	o->target = o->output ? o->output : o->device;
	rc = open_target(o->device, o->journal_dev, in_place, w->undo_tmp,
			 w->jundo_tmp, &in);
	if (rc)
		goto out;
	if (in.jerr == E4_ERR_NO_JOURNAL && !e4s_needs_recovery(in.fs) &&
	    !o->check_order) {
		if (!o->output || !(rc = copy_outputs(o, w)))
			e4s_replay_say_no_journal(o, o->target);
		goto out;
	}
	if (in.jerr) {
		/* A journal superblock the kernel refuses: 44, nothing
		 * replayed or checked (--check-order too). */
		char jw[PATH_MAX + 64];

		rc = e4s_journal_open_failed(prog, in.fs, in.jerr,
					     e4s_journal_where(jw, sizeof(jw),
							       o->device,
							       o->journal_dev));
		goto out;
	}
	rc = e4s_replay_scan(prog, o, in.j, &scan, &plan);
	if (rc)
		goto out;
	if (o->check_order) {
		/* One JSON document: the replay nests in the check. */
		if (o->json && replay)
			e4s_json_hold(stdout, "replay");
		order_rc = e4s_order_run(prog, o, in.fs, plan, o->device);
		if (!replay ||
		    (order_rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)))
			goto out;
	}
	e4s_replay_decide(prog, o, in.fs, plan, scan, &rr);
	/* -o: IMAGE is not written, but a copy of a fs another node uses is
	 * no crash state: its MMP block is checked as e2fsck checks it
	 * (lib/e4/mmp.c), before OUTPUT is made. */
	if (o->output && !(rr.rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)) &&
	    e4s_replay_writes(o, &rr, in.j) &&
	    e4s_mmp_begin(prog, o->device, in.fs, E4_MMP_CHECK_ONLY, NULL,
			  &rr.mmp))
		e4s_mmp_refuse(&rr);
	/* A replay, or a journal s_errno to carry into the fs superblock
	 * (replay_run.c, the kernel's ext4_clear_journal_err()): OUTPUT
	 * is written, so it is the fs the run opens read-write. */
	if (o->output && !(rr.rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)) &&
	    e4s_replay_writes(o, &rr, in.j)) {
		/* IMAGE is read no more: replay the scan into its copy. */
		e4_plan_free(plan);
		plan = NULL;
		rc |= close_target(&in, o->device, 1);
		rc |= copy_outputs(o, w);
		if (rc)
			goto out;
		rc = open_target(w->out_name, o->journal_output ?
				 w->jout_name : o->journal_dev, 1,
				 w->undo_tmp, w->jundo_tmp, &out);
		if (!rc && out.jerr)
			rc = e4s_journal_open_failed(prog, out.fs, out.jerr,
						     o->device);
		if (rc)
			goto out;
		/* The plan of OUTPUT's journal (the same bytes): no io. */
		retval = e4_plan_build(out.j, scan, &out_plan);
		if (retval) {
			com_err(prog, retval, "while planning the replay of %s",
				o->output);
			rc = E4R_EXIT_ERROR;
			goto out;
		}
		rc = e4s_replay_run(prog, o, out.fs, out_plan, &rr);
		goto out;
	}
	if (o->output && !(rr.rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)))
		rc |= copy_outputs(o, w);
	if (!(rc & E4R_EXIT_ERROR))
		rc |= e4s_replay_run(prog, o, in.fs, plan, &rr);
out:
	e4s_json_release(stdout);
	e4s_fc_cleanup(&rr);	/* a refusal before e4s_replay_run() */
	e4_plan_free(out_plan);
	e4_plan_free(plan);
	e4_jscan_free(scan);
	rc |= close_target(&out, o->output, 1);
	rc |= close_target(&in, o->device, rc & E4R_EXIT_ERROR);
	rc |= finish_writes(w, rc | order_rc);
	return rc | order_rc;
}

/*
 * Check every name before anything is opened for writing (target.c: one
 * file named twice, a wrong type, an undo file that is not one, a target
 * mounted, held by the kernel or backing a busy loop device, an OUTPUT
 * device smaller than IMAGE), start the undo files under temporary names,
 * and run.  Returns the exit status.
 */
static int check_and_run(struct e4s_req *o, const char *jundo)
{
	int replay = !o->check_order || o->output || o->replay_in_place ||
		o->dry_run;
	unsigned int in_w = replay && !o->dry_run && !o->output ?
		E4S_T_WRITE : 0;
	unsigned int out_f = E4S_T_WRITE | E4S_T_CREATE | E4S_T_REG |
		E4S_T_BLK;
	unsigned int undo_f = E4S_T_WRITE | E4S_T_CREATE | E4S_T_REG |
		E4S_T_UNDO;
	struct e4s_target t[6] = {
		{ .what = "IMAGE", .path = o->device,
		  .flags = E4S_T_ANY | in_w },
		{ .what = "JOURNAL_DEV", .path = o->journal_dev,
		  .flags = E4S_T_ANY | in_w },
		{ .what = "OUTPUT", .path = o->output, .flags = out_f },
		{ .what = "--journal-output", .path = o->journal_output,
		  .flags = out_f },
		{ .what = "undo file", .path = o->undo_file, .flags = undo_f },
		{ .what = "journal undo file", .path = jundo,
		  .flags = undo_f },
	};
	struct writes w;
	errcode_t retval;
	int rc;

	memset(&w, 0, sizeof(w));
	/* An OUTPUT device holds all of IMAGE (JOURNAL_DEV): the copy. */
	if (o->output && e4s_size_bytes(o->device, &t[2].min_bytes))
		t[2].min_bytes = 0;
	if (o->journal_output &&
	    e4s_size_bytes(o->journal_dev, &t[3].min_bytes))
		t[3].min_bytes = 0;
	retval = e4s_check_targets(prog, t, 6);
	if (retval)
		return e4s_usage_error(retval) ? E4R_EXIT_USAGE :
			E4R_EXIT_ERROR;
	rc = 0;
	if (o->undo_file) {
		if (e4s_undo_begin(prog, o->undo_file, &w.undo))
			rc = E4R_EXIT_ERROR;
		else
			w.undo_tmp = w.undo.out.tmp;
		/* In place: after a failed run, is it still e2undo's? */
		if (!o->output)
			w.undo.device = o->device;
	}
	if (!rc && jundo) {
		if (e4s_undo_begin(prog, jundo, &w.jundo))
			rc = E4R_EXIT_ERROR;
		else
			w.jundo_tmp = w.jundo.out.tmp;
		/* In place the journal device is written too: its own
		 * e2undo command (e4s_undo_finish()). */
		if (!o->output) {
			w.jundo.device = o->journal_dev;
			w.jundo.what = "external journal";
		}
	}
	if (!rc)
		rc = run(o, &w);
	else
		rc |= finish_writes(&w, rc);
	e4s_release_targets(t, 6);
	return rc;
}

/*
 * --stats: journal statistics, read-only (lib/support/replay_stats.c);
 * -n is allowed (nothing is written anyway), the options of a replay or
 * of --check-order are not.  Returns the exit status.
 */
static int stats_mode(const struct e4s_req *o)
{
	if (!o->stats) {
		fprintf(stderr, "%s: --plot and --all go with --stats\n",
			prog);
		return E4R_EXIT_USAGE;
	}
	if (o->output || o->undo_file || o->journal_output || o->verbose ||
	    o->upto_set || o->ignore_fc || o->replay_anyway ||
	    o->check_order || o->replay_in_place || o->order_opt_set) {
		fprintf(stderr, "%s: --stats reads the journal only: it takes "
			"--json, --plot, --all, -j and -n\n", prog);
		return E4R_EXIT_USAGE;
	}
	{
		/* A reader too: LOCK_SH on IMAGE and JOURNAL_DEV for the
		 * run, so no writer changes them under the statistics. */
		struct e4s_target t[2] = {
			{ .what = "IMAGE", .path = o->device,
			  .flags = E4S_T_ANY },
			{ .what = "JOURNAL_DEV", .path = o->journal_dev,
			  .flags = E4S_T_ANY },
		};
		errcode_t retval = e4s_check_targets(prog, t, 2);
		int rc;

		if (retval) {
			e4s_release_targets(t, 2);
			return e4s_usage_error(retval) ? E4R_EXIT_USAGE :
				E4R_EXIT_ERROR;
		}
		rc = e4s_stats_main(prog, o);
		e4s_release_targets(t, 2);
		return rc;
	}
}

/* The run's progress (a tool's, not libe4's: libe4 gets its address). */
static struct e4s_progress progress;

static void progress_atexit(void)
{
	e4s_progress_end(&progress);	/* a meter left by an error exit */
}

/*
 * -C FD as e2fsck's: FD > 0 gets "pass done total device" lines, FD 0
 * (and no -C) the meter on a terminal's stderr.  FD must be open; not
 * stdout with --json (the report's own stream).  Returns 0 or 1 (one
 * line printed).
 */
static int start_progress(struct e4s_req *o)
{
	int fd = o->progress_fd_set ? o->progress_fd : 0;

	if (fd > 0 && fcntl(fd, F_GETFD) < 0) {
		fprintf(stderr, "%s: -C %d: not an open file descriptor\n",
			prog, fd);
		return 1;
	}
	if (fd == STDOUT_FILENO && o->json) {
		fprintf(stderr, "%s: -C 1 would mix progress into --json's "
			"stdout: give another descriptor\n", prog);
		return 1;
	}
	e4s_progress_init(&progress, fd, o->device);
	o->progress = &progress;
	o->order.progress = e4s_progress_cb;
	o->order.progress_priv = &progress;
	atexit(progress_atexit);
	return 0;
}

/* The "mode" of the run's JSON document (doc/e4tools.schema.json). */
static const char *json_mode(const struct e4s_req *o)
{
	if (o->write_log)
		return o->wlog_list ? "write-log-list" :
			o->wlog_at ? "write-log-at" :
			o->check_durability ? "write-log-check-durability" :
			o->check_order ? "write-log-check-order" :
			o->stats ? "write-log-stats" : "write-log";
	if (o->stats || o->plot || o->stats_all)
		return "stats";
	if (o->check_order)
		return "check-order";
	return o->dry_run ? "dry-run" : "replay";
}

int main(int argc, char **argv)
{
	static const int accept[] = {
		'n', 'v', 'o', 'z', 'j', E4S_O_HELP, E4S_O_VERSION, E4S_O_JSON,
		E4S_O_UPTO,
		E4S_O_JOURNAL_OUTPUT, E4S_O_IGNORE_FC, E4S_O_REPLAY_ANYWAY,
		E4S_O_JOURNAL_ONLY,
		E4S_O_CHECK_ORDER, E4S_O_REPLAY, E4S_O_DATA_MODE,
		E4S_O_OUTSIDE, E4S_O_STAMPED, E4S_O_LIST_MAPPINGS,
		E4S_O_STATS, E4S_O_PLOT, E4S_O_ALL,
		E4S_O_WRITE_LOG, E4S_O_LIST, E4S_O_AT, E4S_O_MARKS,
		E4S_O_REORDER, E4S_O_DROP, E4S_O_CHECK_DURABILITY,
		E4S_O_DURABLE, E4S_O_START_MARK, E4S_O_START_ENTRY, 'C',
		E4S_O_DIGEST, 0
	};
	struct e4s_req o;
	int first, rc;
	char jundo[4096];

	e4s_req_init(&o);
	e4s_defer_interrupts();	/* in place with -z: target.c */
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	first = e4s_std_getopt(prog, argc, argv, accept, &o, usage_text,
			       E4R_EXIT_USAGE);
	e4s_json_run_mode(json_mode(&o));
	if (first < argc)
		e4s_json_run_image(argv[first]);
	if (first != argc - 1)
		usage();
	if (o.output && o.replay_in_place) {
		fprintf(stderr, "%s: --replay replays IMAGE in place, -o "
			"OUTPUT into a copy: give one of them\n", prog);
		exit(E4R_EXIT_USAGE);
	}
	o.device = argv[first];
	if (start_progress(&o))
		exit(E4R_EXIT_USAGE);
	if (o.write_log)	/* a block write log: lib/support/replay_wlog.c */
		return e4s_wlog_run(prog, &o);
	if (o.wlog_list || o.wlog_at || o.wlog_marks || o.wlog_reorder ||
	    o.wlog_drop || o.check_durability || o.wlog_durable ||
	    o.wlog_start_mark || o.wlog_start_entry) {
		fprintf(stderr, "%s: --list, --at, --marks, --reorder, --drop, "
			"--durable, --check-durability, --start-mark and "
			"--start-entry go with --write-log\n", prog);
		exit(E4R_EXIT_USAGE);
	}
	if (o.stats || o.plot || o.stats_all)
		return stats_mode(&o);
	if (!o.check_order && (o.replay_in_place || o.order_opt_set)) {
		fprintf(stderr, "%s: --replay, --data-mode, --outside, "
			"--stamped and --list-mappings go with "
			"--check-order\n", prog);
		exit(E4R_EXIT_USAGE);
	}
	if (o.dry_run && (o.output || o.undo_file || o.journal_output ||
			  o.replay_in_place)) {
		fprintf(stderr, "%s: -n writes nothing: -o, -z, "
			"--journal-output and --replay make no sense with "
			"it\n", prog);
		exit(E4R_EXIT_USAGE);
	}
	if (o.journal_output && !(o.journal_dev && o.output)) {
		fprintf(stderr, "%s: --journal-output goes with -j and -o\n",
			prog);
		exit(E4R_EXIT_USAGE);
	}
	if (o.journal_dev && o.output && !o.journal_output) {
		fprintf(stderr, "%s: replay resets the external journal "
			"too: -o needs --journal-output=FILE with -j\n", prog);
		exit(E4R_EXIT_USAGE);
	}
	if (o.check_order && o.undo_file && !o.output &&
	    !o.replay_in_place) {
		fprintf(stderr, "%s: --check-order alone writes nothing: -z "
			"goes with -o or --replay\n", prog);
		exit(E4R_EXIT_USAGE);
	}

	if (o.undo_file && o.journal_dev) {
		/* The journal device gets its own undo file, UNDO.journal. */
		snprintf(jundo, sizeof(jundo), "%s.journal", o.undo_file);
	}
	rc = check_and_run(&o, o.undo_file && o.journal_dev ? jundo : NULL);
	e4s_interrupt_finish(prog);	/* a deferred SIGINT: dies of it */
	return rc;
}
