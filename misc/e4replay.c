/*
 * e4replay.c --- e4tools' journal replayer: scan the jbd2 log of an ext4
 * image as the kernel does, list its transactions, and replay it in place
 * or into a copy (see e4replay(8)).  Options and flow only; the work is
 * done by libe4 (scan.c, revoke.c, replay.c), the output by replay_out.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <et/com_err.h>

#include "e4.h"
#include "e4replay.h"
#include "replay_order.h"
#include "replay_stats.h"

static const char *prog = "e4replay";

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s [-n] [-v] [--json] [--upto TID] [-o OUTPUT]\n"
		"\t[-z UNDO_FILE] [-j JOURNAL_DEV [--journal-output FILE]]\n"
		"\t[--ignore-fast-commit] [--replay-anyway] IMAGE\n"
		"       %s --stats [--json] [--plot FILE.svg|FILE.png] [--all] "
		"IMAGE\n", prog, prog);
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

/*
 * Test hook: with E4REPLAY_FAIL_WRITE_AT=K in the environment, the fs is
 * opened through libe4's fault-injecting io_manager, which fails the K-th
 * write and every later one: a replay interrupted after K-1 writes
 * (tests/r_interrupt).  Returns 1 if the hook is active.
 */
static int open_fault(const char *dev, struct e4_fault *f, ext2_filsys *fs,
		      errcode_t *retval)
{
	const char *k = getenv("E4REPLAY_FAIL_WRITE_AT");

	if (!k || !*k)
		return 0;
	e4_fault_init(f, unix_io_manager, dev);
	f->fail_write_at = strtoull(k, NULL, 0);
	*retval = ext2fs_open2(f->name, NULL, EXT2_FLAG_64BITS |
			       EXT2_FLAG_SKIP_MMP | EXT2_FLAG_RW |
			       EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			       e4_fault_io_manager, fs);
	if (*retval)
		com_err(prog, *retval, "while trying to open %s", dev);
	return 1;
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

/*
 * Open IMAGE (and its journal) read-only and close it again: a run with
 * -o creates OUTPUT only once the input is known to open.
 */
static int probe_input(const char *device, const char *jdev)
{
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;
	int rc = 0;

	if (e4_tool_open_fs(prog, device, E4_OPEN_IGNORE_CSUM, NULL, &fs))
		return E4R_EXIT_ERROR;
	retval = e4_journal_open(fs, jdev, 0, &j);
	if (retval && !(retval == E4_ERR_NO_JOURNAL &&
			!e4_tool_needs_recovery(fs)))
		rc = journal_open_failed(retval, device);
	if (j)
		e4_journal_close(j);
	ext2fs_close_free(&fs);
	return rc;
}

static int parse_tid(const char *s, uint32_t *tid)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v > 0xffffffffULL)
		return -1;
	*tid = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "upto", required_argument, NULL, 'U' },
		{ "journal-output", required_argument, NULL, 'O' },
		{ "ignore-fast-commit", no_argument, NULL, 'F' },
		{ "replay-anyway", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct e4r_opts o;
	struct e4r_run run;
	struct e4_fault fault;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;
	int c, rc = 0, created = 0, jcreated = 0, open_flags, order_rc = 0;
	int jflags;
	char jundo[4096];
	struct named names[6] = {
		{ .what = "IMAGE" }, { .what = "JOURNAL_DEV" },
		{ .what = "OUTPUT" }, { .what = "--journal-output" },
		{ .what = "undo file" }, { .what = "journal undo file" },
	};

	memset(&o, 0, sizeof(o));
	memset(&run, 0, sizeof(run));
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	if (e4replay_is_stats(argc, argv))		/* replay_stats.c */
		return e4replay_stats_main(argc, argv);
	if (e4replay_is_check_order(argc, argv)) {	/* replay_order.c */
		order_rc = e4replay_order_main(argc, argv, &argc, &argv);
		if (!argc)
			return order_rc;
	}

	while ((c = getopt_long(argc, argv, "nvo:z:j:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			o.dry_run = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'J':
			o.json = 1;
			break;
		case 'U':
			if (parse_tid(optarg, &o.upto)) {
				fprintf(stderr, "%s: invalid tid '%s'\n",
					prog, optarg);
				exit(E4R_EXIT_USAGE);
			}
			o.upto_set = 1;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'O':
			o.journal_output = optarg;
			break;
		case 'z':
			o.undo_file = optarg;
			break;
		case 'j':
			o.journal_dev = optarg;
			break;
		case 'F':
			o.ignore_fc = 1;
			break;
		case 'A':
			o.replay_anyway = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	o.device = argv[optind];
	if (o.dry_run && (o.output || o.undo_file || o.journal_output)) {
		fprintf(stderr, "%s: -n writes nothing: -o, -z and "
			"--journal-output make no sense with it\n", prog);
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

	o.target = o.device;
	if (o.output) {
		rc = probe_input(o.device, o.journal_dev);
		if (rc)
			exit(rc);
		retval = sparse_copy(o.device, o.output);
		created = !names[2].exists;
		if (retval) {
			com_err(prog, retval, "while copying %s to %s",
				o.device, o.output);
			rc = E4R_EXIT_ERROR;
			goto out;
		}
		o.target = o.output;
		if (o.journal_output) {
			retval = sparse_copy(o.journal_dev, o.journal_output);
			jcreated = !names[3].exists;
			if (retval) {
				com_err(prog, retval, "while copying %s to %s",
					o.journal_dev, o.journal_output);
				rc = E4R_EXIT_ERROR;
				goto out;
			}
			o.journal_dev = o.journal_output;
		}
	}

	open_flags = E4_OPEN_IGNORE_CSUM | (o.dry_run ? 0 : E4_OPEN_RW);
	if (!o.dry_run && open_fault(o.target, &fault, &fs, &retval)) {
		if (retval) {
			rc = E4R_EXIT_ERROR;
			goto out;
		}
	} else if (e4_tool_open_fs(prog, o.target, open_flags, o.undo_file,
				   &fs)) {
		rc = E4R_EXIT_ERROR;
		goto out;
	}
	jflags = o.dry_run ? 0 : E4_JOURNAL_RW;
	if (!o.dry_run && o.journal_dev && o.undo_file) {
		if (e4_tool_setup_undo(prog, jundo)) {
			rc = E4R_EXIT_ERROR;
			goto out;
		}
		jflags |= E4_JOURNAL_UNDO;
	}
	retval = e4_journal_open(fs, o.journal_dev, jflags, &j);
	if (retval == E4_ERR_NO_JOURNAL && !e4_tool_needs_recovery(fs)) {
		printf("%s: no journal, nothing to replay\n", o.target);
		goto out;
	}
	if (retval) {
		rc = journal_open_failed(retval, o.device);
		goto out;
	}
	rc = e4r_run(prog, &o, fs, j, &run);
out:
	if (j)
		e4_journal_close(j);
	if (fs) {
		retval = ext2fs_close_free(&fs);
		if (retval) {
			com_err(prog, retval, "while closing %s", o.target);
			rc |= E4R_EXIT_ERROR;
		}
	}
	/* Remove only what this run created itself. */
	if (created && (rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)))
		unlink(o.output);
	if (jcreated && (rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)))
		unlink(o.journal_output);
	return rc | order_rc;
}
