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
#include "replay.h"

static const char *prog = "e4replay";

static const char usage_text[] =
	"Usage: %1$s [-n] [-v] [--json] [--upto TID] [-o OUTPUT]\n"
	"\t[-z UNDO_FILE] [-j JOURNAL_DEV [--journal-output FILE]]\n"
	"\t[--ignore-fast-commit] [--replay-anyway] IMAGE\n"
	"       %1$s --check-order [--data-mode=auto|ordered|journal|"
	"writeback]\n"
	"\t[--outside=auto|yes|no] [--stamped=auto|yes|no] "
	"[--list-mappings]\n"
	"\t[-n | -o OUTPUT | --replay] [replay options] IMAGE\n"
	"       %1$s -V | --version | -h | --help\n";

static void usage(void)
{
	e4s_usage(stderr, prog, usage_text);
	exit(E4R_EXIT_USAGE);
}

/*
 * Copy @src to @dst (created or truncated), skipping holes: only the data
 * extents SEEK_DATA/SEEK_HOLE report are written, so a sparse image stays
 * sparse.  Returns 0 or an errno.
 */
static int sparse_copy(const char *src, const char *dst)
{
	static char buf[1 << 20];
	int in, out, err = 0;
	off_t size, data, hole, off;
	struct stat st;
	ssize_t n;

	in = open(src, O_RDONLY);
	if (in < 0)
		return errno;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		err = errno ? errno : EINVAL;
		close(in);
		return err;
	}
	size = st.st_size;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		err = errno;
		close(in);
		return err;
	}
	if (fstat(out, &st) < 0) {
		err = errno;
		goto done;
	}
	if (S_ISBLK(st.st_mode)) {
		/* A device keeps its old bytes in the holes: copy them all. */
		for (off = 0; off < size && !err; off += n) {
			size_t want = size - off < (off_t)sizeof(buf) ?
				(size_t)(size - off) : sizeof(buf);

			n = pread(in, buf, want, off);
			if (n <= 0)
				err = n < 0 ? errno : EIO;
			else if (pwrite(out, buf, n, off) != n)
				err = errno ? errno : EIO;
		}
		goto sync;
	}
	for (off = 0; off < size && !err; off = hole) {
		data = lseek(in, off, SEEK_DATA);
		if (data < 0) {
			if (errno != ENXIO)
				err = errno;
			break;
		}
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0) {
			err = errno;
			break;
		}
		for (off = data; off < hole; off += n) {
			size_t want = hole - off < (off_t)sizeof(buf) ?
				(size_t)(hole - off) : sizeof(buf);

			n = pread(in, buf, want, off);
			if (n <= 0) {
				err = n < 0 ? errno : EIO;
				break;
			}
			if (pwrite(out, buf, n, off) != n) {
				err = errno ? errno : EIO;
				break;
			}
		}
	}
	if (!err && ftruncate(out, size) < 0)
		err = errno;
sync:
	if (!err && fsync(out) < 0)
		err = errno;
done:
	if (close(out) < 0 && !err)
		err = errno;
	close(in);
	return err;
}

/* A file named on the command line, checked before anything is touched. */
struct named {
	const char	*what;		/* "IMAGE", "OUTPUT", ... */
	const char	*path;		/* NULL: not given */
	struct stat	st;
	int		exists;
};

/*
 * Two names for one file: the same inode (hard links, symlinks, "./x"), or
 * two nodes of one block device.
 */
static int same_file(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode))
		return a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Split @path into its directory (into @dir) and returns the base name. */
static const char *split_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, len, ".");
		return path;
	}
	snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path),
		 path);
	return slash + 1;
}

/* 0 if the directory holding @path exists and is writable, else errno. */
static int dir_writable(const char *path)
{
	char dir[4096];

	split_dir(path, dir, sizeof(dir));
	if (access(dir, W_OK | X_OK) < 0)
		return errno;
	return 0;
}

/* Two names of files yet to be created that name the same new file. */
static int same_new_file(const char *a, const char *b)
{
	char da[4096], db[4096];
	const char *ba = split_dir(a, da, sizeof(da));
	const char *bb = split_dir(b, db, sizeof(db));
	struct stat sa, sb;

	if (strcmp(ba, bb) || stat(da, &sa) < 0 || stat(db, &sb) < 0)
		return 0;
	return same_file(&sa, &sb);
}

/*
 * Refuse, before anything is opened or written, a command line where two
 * of IMAGE, JOURNAL_DEV, OUTPUT, --journal-output, the undo file(s) are
 * one file (compared by stat, not by name), an OUTPUT that is neither a
 * regular file, absent, nor a block device, and an undo file that is not
 * a regular file or cannot be created.  Prints one line; returns the exit
 * status (0: fine).
 */
static int check_names(struct named *n, int nn, int first_undo)
{
	int a, b, err;

	for (a = 0; a < nn; a++) {
		if (!n[a].path)
			continue;
		if (stat(n[a].path, &n[a].st) == 0) {
			n[a].exists = 1;
		} else if (errno != ENOENT || a < 2) {
			if (a < 2)	/* IMAGE, JOURNAL_DEV: opened later */
				continue;
			com_err(prog, errno, "while checking %s %s",
				n[a].what, n[a].path);
			return E4R_EXIT_ERROR;
		}
	}
	for (a = 0; a < nn; a++) {
		for (b = a + 1; b < nn && n[a].path; b++) {
			if (!n[b].path || n[a].exists != n[b].exists)
				continue;
			if (n[a].exists ? !same_file(&n[a].st, &n[b].st) :
			    !same_new_file(n[a].path, n[b].path))
				continue;
			fprintf(stderr, "%s: %s %s is the same file as %s %s; "
				"nothing done\n", prog, n[b].what, n[b].path,
				n[a].what, n[a].path);
			return E4R_EXIT_USAGE;
		}
	}
	for (a = 2; a < nn; a++) {
		const char *need = a < first_undo ?
			"a regular file or a block device" :
			"a regular file";

		if (!n[a].path)
			continue;
		if (n[a].exists && !S_ISREG(n[a].st.st_mode) &&
		    !(a < first_undo && S_ISBLK(n[a].st.st_mode))) {
			fprintf(stderr, "%s: %s %s is not %s; nothing done\n",
				prog, n[a].what, n[a].path, need);
			return E4R_EXIT_USAGE;
		}
		if (!n[a].exists && (err = dir_writable(n[a].path))) {
			com_err(prog, err, "while checking that %s %s can be "
				"created; nothing done", n[a].what, n[a].path);
			return E4R_EXIT_ERROR;
		}
	}
	return 0;
}

/*
 * A journal superblock failing e4_jsb_validate(): the kernel refuses to
 * load such a journal (journal_check_superblock(), load_superblock()),
 * so it counts as journal corruption as well as an error (exit 12).
 */
static int jsb_refused(errcode_t retval)
{
	switch (retval) {
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

/* Report a journal that did not open; returns the exit status. */
static int journal_open_failed(errcode_t retval, const char *device)
{
	if (jsb_refused(retval)) {
		com_err(prog, retval, "in the journal of %s: the kernel "
			"refuses this journal; nothing replayed (run e2fsck)",
			device);
		return E4R_EXIT_CORRUPT | E4R_EXIT_ERROR;
	}
	com_err(prog, retval, "while opening the journal of %s", device);
	return E4R_EXIT_ERROR;
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
static int close_target(struct opened *t, const char *name)
{
	errcode_t retval;

	e4_journal_close(t->j);
	t->j = NULL;
	if (!t->fs)
		return 0;
	retval = ext2fs_close_free(&t->fs);
	if (!retval)
		return 0;
	com_err(prog, retval, "while closing %s", name);
	return E4R_EXIT_ERROR;
}

/* -o: copy IMAGE to OUTPUT (and JOURNAL_DEV to --journal-output); sets
 * *@created / *@jcreated for the files it made.  0 or E4R_EXIT_ERROR. */
static int copy_outputs(const struct e4s_req *o, const struct named *names,
			int *created, int *jcreated)
{
	int err;

	err = sparse_copy(o->device, o->output);
	*created = !names[2].exists;
	if (!err && o->journal_output) {
		err = sparse_copy(o->journal_dev, o->journal_output);
		*jcreated = !names[3].exists;
		if (err)
			com_err(prog, err, "while copying %s to %s",
				o->journal_dev, o->journal_output);
	} else if (err) {
		com_err(prog, err, "while copying %s to %s", o->device,
			o->output);
	}
	return err ? E4R_EXIT_ERROR : 0;
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
static int run(struct e4s_req *o, const struct named *names,
	       const char *jundo)
{
	int replay = !o->check_order || o->output || o->replay_in_place ||
		o->dry_run;
	int in_place = replay && !o->dry_run && !o->output;
	struct opened in = { 0 }, out = { 0 };
	struct e4_plan *plan = NULL, *out_plan = NULL;
	struct e4_jscan *scan = NULL;
	struct e4s_replay rr;
	int rc, order_rc = 0, created = 0, jcreated = 0;
	errcode_t retval;

	memset(&rr, 0, sizeof(rr));
	o->target = o->output ? o->output : o->device;
	rc = open_target(o->device, o->journal_dev, in_place, o->undo_file,
			 jundo, &in);
	if (rc)
		goto out;
	if (in.jerr == E4_ERR_NO_JOURNAL && !e4s_needs_recovery(in.fs) &&
	    !o->check_order) {
		if (!o->output ||
		    !(rc = copy_outputs(o, names, &created, &jcreated)))
			printf("%s: no journal, nothing to replay\n",
			       o->target);
		goto out;
	}
	if (in.jerr && o->check_order) {
		com_err(prog, in.jerr, "while opening the journal of %s",
			o->device);
		rc = E4R_EXIT_ERROR;
		goto out;
	}
	if (in.jerr) {
		rc = journal_open_failed(in.jerr, o->device);
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
	if (o->output && !(rr.rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)) &&
	    rr.plan == 2) {
		/* IMAGE is read no more: replay the scan into its copy. */
		e4_plan_free(plan);
		plan = NULL;
		rc |= close_target(&in, o->device);
		rc |= copy_outputs(o, names, &created, &jcreated);
		if (rc)
			goto out;
		rc = open_target(o->output, o->journal_output ?
				 o->journal_output : o->journal_dev, 1,
				 o->undo_file, jundo, &out);
		if (!rc && out.jerr)
			rc = journal_open_failed(out.jerr, o->device);
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
		rc |= copy_outputs(o, names, &created, &jcreated);
	if (!(rc & E4R_EXIT_ERROR))
		rc |= e4s_replay_run(prog, o, in.fs, plan, &rr);
out:
	e4s_json_release(stdout);
	e4s_fc_cleanup(&rr);	/* a refusal before e4s_replay_run() */
	e4_plan_free(out_plan);
	e4_plan_free(plan);
	e4_jscan_free(scan);
	rc |= close_target(&out, o->output);
	rc |= close_target(&in, o->device);
	/* Remove only what this run created itself. */
	if (created && (rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)))
		unlink(o->output);
	if (jcreated && (rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)))
		unlink(o->journal_output);
	return rc | order_rc;
}

int main(int argc, char **argv)
{
	static const int accept[] = {
		'n', 'v', 'o', 'z', 'j', E4S_O_HELP, E4S_O_VERSION, E4S_O_JSON,
		E4S_O_UPTO,
		E4S_O_JOURNAL_OUTPUT, E4S_O_IGNORE_FC, E4S_O_REPLAY_ANYWAY,
		E4S_O_CHECK_ORDER, E4S_O_REPLAY, E4S_O_DATA_MODE,
		E4S_O_OUTSIDE, E4S_O_STAMPED, E4S_O_LIST_MAPPINGS, 0
	};
	struct e4s_req o;
	int first, rc;
	char jundo[4096];
	struct named names[6] = {
		{ .what = "IMAGE" }, { .what = "JOURNAL_DEV" },
		{ .what = "OUTPUT" }, { .what = "--journal-output" },
		{ .what = "undo file" }, { .what = "journal undo file" },
	};

	e4s_req_init(&o);
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	first = e4s_std_getopt(prog, argc, argv, accept, &o, usage_text,
			       E4R_EXIT_USAGE);
	if (first != argc - 1 ||
	    (o.output && o.replay_in_place))
		usage();
	o.device = argv[first];
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
	names[0].path = o.device;
	names[1].path = o.journal_dev;
	names[2].path = o.output;
	names[3].path = o.journal_output;
	names[4].path = o.undo_file;
	names[5].path = o.undo_file && o.journal_dev ? jundo : NULL;
	rc = check_names(names, 6, 4);
	if (rc)
		exit(rc);
	return run(&o, names, names[5].path);
}
