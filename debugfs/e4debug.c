/*
 * e4debug.c --- e4tools' debugfs: an interactive shell (libss) over libe4
 * for inspecting an ext4 image's journal and more.  -R runs one request,
 * -f runs a command file; both use the same command table as the shell.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include <errno.h>
#include <ss/ss.h>

#include "e4debug.h"
#include "../misc/util.h"

extern ss_request_table e4debug_cmds;

int e4debug_check_fs_open(struct e4debug *st, const char *cmd)
{
	if (st->fs)
		return 0;
	com_err(cmd, 0, "Filesystem not open");
	st->exit_status = 1;
	return 1;
}

int e4debug_check_fs_rw(struct e4debug *st, const char *cmd)
{
	if (e4debug_check_fs_open(st, cmd))
		return 1;
	if (st->rw)
		return 0;
	com_err(cmd, 0, "Filesystem opened read/only");
	st->exit_status = 1;
	return 1;
}

void e4debug_close_fs(struct e4debug *st, const char *cmd)
{
	errcode_t retval;

	if (!st->fs)
		return;
	retval = ext2fs_close_free(&st->fs);
	if (retval) {
		com_err(cmd, retval, "while closing %s", st->device);
		st->exit_status = 1;
	}
	free(st->device);
	free(st->journal_dev);
	st->device = st->journal_dev = NULL;
	st->rw = 0;
}

int e4debug_open_fs(struct e4debug *st, const char *cmd, const char *device,
		    const char *journal_dev, int flags)
{
	if (e4_tool_open_fs(cmd, device, flags, NULL, &st->fs)) {
		st->exit_status = 1;
		return 1;
	}
	st->device = strdup(device);
	st->journal_dev = journal_dev ? strdup(journal_dev) : NULL;
	st->rw = !!(flags & E4_OPEN_RW);
	st->open_flags = flags;
	return 0;
}

int e4debug_reopen(struct e4debug *st, const char *cmd)
{
	char *dev = st->device ? strdup(st->device) : NULL;
	char *jdev = st->journal_dev ? strdup(st->journal_dev) : NULL;
	int flags = st->open_flags, rc = 1;

	if (dev && (!st->journal_dev || jdev)) {
		e4debug_close_fs(st, cmd);
		rc = e4debug_open_fs(st, cmd, dev, jdev, flags);
	}
	free(dev);
	free(jdev);
	return rc;
}

/* Let getopt() parse another argv from the start. */
static void reset_getopt(void)
{
	optind = 0;
}

/* -w, -c, -j of both "open" and the command line: 1 if @c was one. */
static int open_option(int c, int *flags, const char **jdev)
{
	switch (c) {
	case 'w':
		*flags |= E4_OPEN_RW;
		return 1;
	case 'c':
		*flags |= E4_OPEN_IGNORE_CSUM;
		return 1;
	case 'j':
		*jdev = optarg;
		return 1;
	}
	return 0;
}

void do_open_filesys(int argc, char **argv, int sci_idx, void *infop)
{
	struct e4debug *st = E4DEBUG(infop);
	const char *jdev = NULL;
	int c, flags = 0;

	(void)sci_idx;
	reset_getopt();
	while ((c = getopt(argc, argv, "wcj:")) != -1)
		if (!open_option(c, &flags, &jdev))
			goto usage;
	if (optind != argc - 1)
		goto usage;
	if (st->fs) {
		com_err(argv[0], 0, "Filesystem %s is still open; close it "
			"first", st->device);
		st->exit_status = 1;
		return;
	}
	e4debug_open_fs(st, argv[0], argv[optind], jdev, flags);
	return;
usage:
	fprintf(stderr, "Usage: %s [-w] [-c] [-j journal_dev] device\n",
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
	if (e4debug_check_fs_open(st, argv[0]))
		return;
	e4debug_close_fs(st, argv[0]);
}

/* Run every line of @file (or stdin for "-") as a request. */
static int run_file(int sci_idx, struct e4debug *st, const char *file)
{
	char line[4096], *nl;
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;

	if (!f) {
		com_err("e4debug", errno, "while opening command file %s",
			file);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!line[0] || line[0] == '#')
			continue;
		printf("e4debug: %s\n", line);
		if (ss_execute_line(sci_idx, line)) {
			fprintf(stderr, "e4debug: unknown request \"%s\"\n",
				line);
			st->exit_status = 1;
		}
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "Usage: e4debug [-w] [-c] [-j journal_dev] "
		"[-R request] [-f cmd_file] [device]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct e4debug st;
	const char *request = NULL, *cmd_file = NULL, *jdev = NULL;
	int c, flags = 0, sci_idx, retval = 0;

	memset(&st, 0, sizeof(st));
	add_error_table(&et_e4_error_table);
	add_error_table(&et_ext2_error_table);
	while ((c = getopt(argc, argv, "wcj:R:f:")) != -1) {
		if (open_option(c, &flags, &jdev))
			continue;
		switch (c) {
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
	if (optind == argc - 1 && e4debug_open_fs(&st, "e4debug",
						  argv[optind], jdev, flags))
		return 1;

	sci_idx = ss_create_invocation("e4debug", "0.1", &st, &e4debug_cmds,
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
