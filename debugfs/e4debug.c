/*
 * e4debug.c --- e4tools' debugfs: an interactive shell (libss) over libe4
 * for inspecting an ext4 image's journal and more.  -R runs one request,
 * -f runs a command file; both use the same command table as the shell.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include <errno.h>
#include <ss/ss.h>

#include "e4debug.h"
#include "json.h"
#include "open.h"
#include "options.h"
#include "replay.h"

extern ss_request_table e4debug_cmds;

int e4debug_check_fs_open(struct e4debug *st, const char *cmd)
{
	static const char *const journal_only[] = {
		"jsb", "show_journal_super", "logdump", "transactions",
		"jstats", NULL
	};
	int i;

	if (!st->fs) {
		com_err(cmd, 0, "Filesystem not open");
		st->exit_status = 1;
		return 1;
	}
	if (!e4s_is_journal_dev(st->fs))
		return 0;
	/* A bare external journal device: no fs, only its journal. */
	for (i = 0; journal_only[i]; i++)
		if (!strcmp(cmd, journal_only[i]))
			return 0;
	com_err(cmd, 0, "needs a file system, and %s is an external "
		"journal device, not a file system: only jsb, logdump and "
		"jstats read it", st->device);
	st->exit_status = 1;
	return 1;
}

int e4debug_check_fs_rw(struct e4debug *st, const char *cmd)
{
	if (e4debug_check_fs_open(st, cmd))
		return 1;
	if (st->rw)
		return 0;
	fprintf(stderr, "%s: %s is open read-only: open it with "
		"'open -w' (or start e4debug with -w) to write\n", cmd,
		st->device);
	st->exit_status = 1;
	return 1;
}

int e4debug_parse(struct e4debug *st, int argc, char **argv,
		  const int *accept, int min_ops, int max_ops,
		  const char *usage, struct e4s_req *r)
{
	int first;

	/* @r is filled on every return, -h's too */
	e4s_req_init(r);
	r->device = st->device;
	r->journal_dev = st->journal_dev;
	if (argc == 2 && (!strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "--help"))) {
		printf("Usage: %s %s\n", argv[0], usage);
		return -1;	/* asked for: not an error */
	}
	/* --json: this command prints one document, failures included,
	 * its "exit" the command's own status (dispatch() ends it). */
	if (e4s_json_argv_wants(argc, argv) && !e4s_json_run_active()) {
		e4s_json_run_begin(~0u, 1);
		e4s_json_run_mode(argv[0]);
		e4s_json_run_image(st->device);
		st->json_prev = st->exit_status;
		st->exit_status = 0;
	}
	first = e4s_getopt(argv[0], argc, argv, accept, r);
	if (first >= 0 && argc - first >= min_ops &&
	    (max_ops < 0 || argc - first <= max_ops))
		return first;
	if (first != E4S_GETOPT_BAD)
		fprintf(stderr, "Usage: %s %s\n", argv[0], usage);
	st->exit_status = 1;
	return -1;
}

/*
 * Forget the names of the last open (the fs is closed): an undo file that
 * recorded a write replaces the one named (or, after a failed command
 * over an existing one, is kept under its temporary name, which a line
 * names); one that recorded nothing is removed.
 */
static void free_names(struct e4debug *st)
{
	int ok = !st->exit_status;

	e4s_release_targets(st->targets, 4);
	if (st->undo.out.tmp && e4s_undo_finish("e4debug", &st->undo, ok) < 0)
		st->exit_status = 1;
	if (st->jundo.out.tmp &&
	    e4s_undo_finish("e4debug", &st->jundo, ok) < 0)
		st->exit_status = 1;
	free(st->device);
	free(st->journal_dev);
	free(st->undo_file);
	free(st->journal_undo);
	free(st->undo_path);
	free(st->jundo_path);
	st->device = st->journal_dev = NULL;
	st->undo_file = st->journal_undo = NULL;
	st->undo_path = st->jundo_path = NULL;
	st->undo_used = st->jundo_used = 0;
}

/* Close st->fs only: the names stay for a reopen.  Nonzero on error. */
static int close_only(struct e4debug *st, const char *cmd)
{
	errcode_t retval;

	st->rw = 0;
	if (!st->fs)
		return 0;
	/* ext2fs_close() writes a dirty fs: through the undo file too.
	 * libext2fs's undo_io leaves an undo file no write went to without
	 * a valid header, so a reopen must not append to it. */
	if (st->undo_file && (st->fs->flags & EXT2_FLAG_RW) &&
	    ((st->fs->flags & EXT2_FLAG_DIRTY) ||
	     e4s_chan_wrote(st->fs->io)))
		st->undo_used = 1;
	retval = ext2fs_close_free(&st->fs);
	if (retval) {
		com_err(cmd, retval, "while closing %s", st->device);
		st->exit_status = 1;
		return 1;
	}
	return 0;
}

void e4debug_close_fs(struct e4debug *st, const char *cmd)
{
	close_only(st, cmd);
	free_names(st);
}

/* Open st->device with @flags (the undo file only read-write). */
static int open_names(struct e4debug *st, const char *cmd, int flags)
{
	/* Read-only, a bare external journal device opens too. */
	if (e4s_open_fs(cmd, st->device, flags | (flags & E4S_OPEN_RW ? 0 :
			E4S_OPEN_JOURNAL_DEV), (flags & E4S_OPEN_RW) ?
			st->undo_file : NULL, &st->fs)) {
		st->exit_status = 1;
		return 1;
	}
	st->rw = !!(flags & E4S_OPEN_RW);
	st->open_flags = flags & ~E4S_OPEN_UNDO_RESUME;
	return 0;
}

/* Start undo file @path under a temporary name kept in *@tmp. */
static int begin_undo(const char *cmd, const char *path, struct e4s_undo *u,
		      char **tmp)
{
	if (e4s_undo_begin(cmd, path, u))
		return 1;
	*tmp = strdup(u->out.tmp);
	if (*tmp)
		return 0;
	com_err(cmd, ENOMEM, "while starting undo file %s", path);
	return 1;
}

/*
 * Check the names of an open before anything is written (target.c): with
 * -w the device and the journal device must not be mounted or held by the
 * kernel; an undo file needs -w, must be distinct from them and, if it
 * exists, an e2undo file; with -j UNDO.journal too.  The undo files are
 * then started under temporary names (UNDO.journal emptied now, as UNDO
 * is by the open).
 */
static int check_names(struct e4debug *st, const char *cmd, int flags)
{
	unsigned int w = (flags & E4S_OPEN_RW) ? E4S_T_WRITE : 0;
	unsigned int uf = E4S_T_WRITE | E4S_T_CREATE | E4S_T_REG |
		E4S_T_UNDO;
	struct e4s_target *t = st->targets;
	size_t len;
	int rc;

	if (st->undo_path && !w) {
		com_err(cmd, 0, "undo file %s needs -w (a read-only open "
			"writes nothing); %s not opened", st->undo_path,
			st->device);
		return 1;
	}
	if (st->undo_path && st->journal_dev) {
		len = strlen(st->undo_path) + sizeof(".journal");
		st->jundo_path = malloc(len);
		if (!st->jundo_path) {
			com_err(cmd, ENOMEM, "while opening %s", st->device);
			return 1;
		}
		snprintf(st->jundo_path, len, "%s.journal", st->undo_path);
	}
	t[0] = (struct e4s_target){ .what = "device", .path = st->device,
				    .flags = E4S_T_ANY | w };
	t[1] = (struct e4s_target){ .what = "journal device",
				    .path = st->journal_dev,
				    .flags = E4S_T_ANY | w };
	t[2] = (struct e4s_target){ .what = "undo file",
				    .path = st->undo_path, .flags = uf };
	t[3] = (struct e4s_target){ .what = "journal undo file",
				    .path = st->jundo_path, .flags = uf };
	/* Held for the session: another run is refused meanwhile. */
	rc = e4s_check_targets(cmd, t, 4) != 0;
	if (rc)
		return 1;
	if (st->undo_path &&
	    begin_undo(cmd, st->undo_path, &st->undo, &st->undo_file))
		return 1;
	if (st->jundo_path &&
	    (begin_undo(cmd, st->jundo_path, &st->jundo, &st->journal_undo) ||
	     e4s_setup_undo(cmd, st->journal_undo)))
		return 1;
	return 0;
}

int e4debug_open_fs(struct e4debug *st, const char *cmd, const char *device,
		    const char *journal_dev, const char *undo_file, int flags)
{
	free_names(st);
	st->device = strdup(device);
	st->journal_dev = journal_dev ? strdup(journal_dev) : NULL;
	st->undo_path = undo_file ? strdup(undo_file) : NULL;
	if (!st->device || (journal_dev && !st->journal_dev) ||
	    (undo_file && !st->undo_path)) {
		com_err(cmd, ENOMEM, "while opening %s", device);
		goto fail;
	}
	if (check_names(st, cmd, flags) || open_names(st, cmd, flags))
		goto fail;
	return 0;
fail:
	st->exit_status = 1;
	free_names(st);
	return 1;
}

int e4debug_reopen(struct e4debug *st, const char *cmd, int flags)
{
	if (!st->device || close_only(st, cmd))
		return 1;
	return open_names(st, cmd, flags | (st->undo_used ?
					     E4S_OPEN_UNDO_RESUME : 0));
}

/* Let getopt() parse another argv from the start. */
static void reset_getopt(void)
{
	optind = 0;
}

/* -w, -c, -j, -z of both "open" and the command line: 1 if @c was one. */
static int open_option(int c, int *flags, const char **jdev,
		       const char **undo)
{
	switch (c) {
	case 'w':
		*flags |= E4S_OPEN_RW;
		return 1;
	case 'c':
		*flags |= E4S_OPEN_IGNORE_CSUM;
		return 1;
	case 'j':
		*jdev = optarg;
		return 1;
	case 'z':
		*undo = optarg;
		return 1;
	}
	return 0;
}

void do_open_filesys(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	const char *jdev = NULL, *undo = NULL;
	int c, flags = 0;

	(void)sci_idx;
	reset_getopt();
	while ((c = getopt(argc, argv, "wcj:z:")) != -1)
		if (!open_option(c, &flags, &jdev, &undo))
			goto usage;
	if (optind != argc - 1)
		goto usage;
	if (st->fs) {
		com_err(argv[0], 0, "Filesystem %s is still open; close it "
			"first", st->device);
		st->exit_status = 1;
		return;
	}
	e4debug_open_fs(st, argv[0], argv[optind], jdev, undo, flags);
	return;
usage:
	fprintf(stderr, "Usage: %s [-w] [-c] [-j journal_dev] "
		"[-z undo_file] device\n",
		argv[0]);
	st->exit_status = 1;
}

void do_close_filesys(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);

	(void)sci_idx;
	if (argc != 1) {
		fprintf(stderr, "Usage: %s\n", argv[0]);
		st->exit_status = 1;
		return;
	}
	if (!st->fs) {	/* (a bare journal device closes too) */
		com_err(argv[0], 0, "Filesystem not open");
		st->exit_status = 1;
		return;
	}
	e4debug_close_fs(st, argv[0]);
}

/* 1 if @line is the request "quit" (or "q"), which ends a command file. */
static int is_quit(const char *line)
{
	size_t n;

	line += strspn(line, " \t");
	n = strcspn(line, " \t");
	return (n == 1 && line[0] == 'q') || (n == 4 && !strncmp(line,
								  "quit", 4));
}

/*
 * Run every line of @file (or stdin for "-") as a request, up to a
 * "quit".  A line longer than the buffer is refused whole (never run in
 * pieces), as is a file that cannot be read.
 */
static int run_file(int sci_idx, struct e4debug *st, const char *file)
{
	char line[4096], *nl;
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	unsigned long lineno = 0;
	int c, rc = 0;

	if (!f) {
		com_err("e4debug", errno, "while opening command file %s",
			file);
		return 1;
	}
	/* fopen() opens a directory; reading it fails (EISDIR). */
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		nl = strchr(line, '\n');
		if (nl) {
			*nl = 0;
		} else if (!feof(f)) {
			fprintf(stderr, "e4debug: %s: line %lu is longer than "
				"%zu bytes: not run\n", file, lineno,
				sizeof(line) - 2);
			st->exit_status = 1;
			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (!line[0] || line[0] == '#')
			continue;
		printf("e4debug: %s\n", line);
		if (is_quit(line))
			break;
		if (ss_execute_line(sci_idx, line)) {
			fprintf(stderr, "e4debug: unknown request \"%s\"\n",
				line);
			st->exit_status = 1;
		}
	}
	if (ferror(f)) {
		com_err("e4debug", errno, "while reading command file %s",
			file);
		rc = 1;
	}
	if (f != stdin)
		fclose(f);
	return rc;
}

/*
 * Every request goes through dispatch(), which runs the command of
 * e4debug_cmds and then ends the JSON document a --json command began
 * (e4debug_parse()): one document per command, its "exit" 0 or 1, the
 * session's status keeping every failure.
 */
static void dispatch(int argc, const char *const *argv, int sci_idx,
		     void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	const ss_request_entry *e;
	const char *const *n;

	for (e = e4debug_cmds.requests; e->command_names; e++)
		for (n = e->command_names; *n; n++)
			if (!strcmp(*n, argv[0]))
				goto found;
	return;
found:
	e->function(argc, argv, sci_idx, infop);
	if (e4s_json_run_active()) {
		e4s_json_run_end(st->exit_status ? 1 : 0);
		st->exit_status |= st->json_prev;
	}
}

/* e4debug_cmds with every function dispatch(); NULL if out of memory.
 * (libss's entries are const: they are built with memcpy().) */
static ss_request_table *dispatch_table(void)
{
	static struct _ss_request_table table;
	void (*fn)(int, const char *const *, int, void *) = dispatch;
	struct _ss_request_entry *ents;
	size_t n, i;

	for (n = 0; e4debug_cmds.requests[n].command_names; n++)
		;
	ents = calloc(n + 1, sizeof(*ents));
	if (!ents)
		return NULL;
	memcpy((void *)ents, e4debug_cmds.requests, (n + 1) * sizeof(*ents));
	for (i = 0; i < n; i++)
		memcpy((char *)&ents[i] + offsetof(struct _ss_request_entry,
						   function), &fn, sizeof(fn));
	table.version = e4debug_cmds.version;
	table.requests = ents;
	return &table;
}

static const char usage_text[] =
	"Usage: %1$s [-w] [-c] [-j journal_dev] [-z undo_file]\n"
	"\t[-R request] [-f cmd_file] [device]\n"
	"       %1$s -V | --version | -h | --help\n"
	"Requests: %1$s -R lr lists them; \"help\" in the shell.\n";

static void usage(void)
{
	e4s_usage(stderr, "e4debug", usage_text);
	exit(1);
}

/* -R REQUEST --json: the request's document starts before the device
 * is opened, so that an open that fails has it, saying why. */
static void json_request_begin(const char *request, const char *device)
{
	char *line = strdup(request), *w[64], *save = NULL, *p;
	int n = 0;

	if (!line)
		return;
	for (p = strtok_r(line, " \t", &save); p && n < 64;
	     p = strtok_r(NULL, " \t", &save))
		w[n++] = p;
	if (n && e4s_json_argv_wants(n, w)) {
		e4s_json_run_begin(~0u, 1);
		e4s_json_run_mode(w[0]);
		e4s_json_run_image(device);
	}
	free(line);
}

int main(int argc, char **argv)
{
	struct e4debug st;
	const char *request = NULL, *cmd_file = NULL, *jdev = NULL;
	const char *undo = NULL;
	int c, flags = 0, sci_idx, retval = 0;
	ss_request_table *table;

	memset(&st, 0, sizeof(st));
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	e4s_com_err_safe();
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};

	argv[0] = "e4debug";	/* getopt's messages name the tool */
	while ((c = getopt_long(argc, argv, "wcj:z:R:f:hV", longopts,
				NULL)) != -1) {
		if (open_option(c, &flags, &jdev, &undo))
			continue;
		switch (c) {
		case 'h':
			e4s_usage(stdout, "e4debug", usage_text);
			return 0;
		case 'V':
			e4s_print_version("e4debug");
			return 0;
		case 'R':
			request = optarg;
			break;
		case 'f':
			cmd_file = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind < argc - 1)
		usage();
	if (undo && optind != argc - 1) {
		fprintf(stderr, "e4debug: -z %s goes with a device to open\n",
			undo);
		return 1;
	}
	if (request && optind == argc - 1)
		json_request_begin(request, argv[optind]);
	/* As debugfs: an image that fails to open is reported and the shell
	 * (or a -f file, which may `open` another) runs anyway, without a
	 * file system; the exit status keeps the failure.  A -R request
	 * would only add "not open" to the one line: exit. */
	if (optind == argc - 1 && e4debug_open_fs(&st, "e4debug",
						  argv[optind], jdev, undo,
						  flags)) {
		if (request) {
			e4s_json_run_end(1);
			return 1;
		}
		st.exit_status = 1;
	}

	e4s_json_run_cancel();	/* the request's command begins its own */
	table = dispatch_table();
	if (!table) {
		com_err("e4debug", ENOMEM, "while starting the shell");
		return 1;
	}
	sci_idx = ss_create_invocation("e4debug", "0.1", &st, table,
				       &retval);
	if (retval) {
		ss_perror(sci_idx, retval, "creating invocation");
		return 1;
	}
	ss_add_request_table(sci_idx, &ss_std_requests, 1, &retval);
	if (retval) {
		ss_perror(sci_idx, retval, "adding standard requests");
		return 1;
	}
	if (request) {
		char *line = strdup(request);

		if (ss_execute_line(sci_idx, line)) {
			fprintf(stderr, "e4debug: unknown request \"%s\"\n",
				request);
			st.exit_status = 1;
		}
		free(line);
	} else if (cmd_file) {
		if (run_file(sci_idx, &st, cmd_file))
			st.exit_status = 1;
	} else {
		ss_get_readline(sci_idx);
		ss_listen(sci_idx);
	}
	ss_delete_invocation(sci_idx);
	e4debug_close_fs(&st, "e4debug");
	return st.exit_status;
}
