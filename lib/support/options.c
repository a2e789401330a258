/*
 * options.c --- the one option table of the e4tools programs and e4debug
 * commands, and the parser that fills a struct e4s_req from it (see
 * options.h).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "json.h"
#include "options.h"
#include "parse.h"

/* One option: its id, short letter (0: none), long name (NULL: none). */
struct optdef {
	int		id;
	char		letter;
	const char	*name;
	int		has_arg;
};

static const struct optdef optdefs[] = {
	{ 'v', 'v', NULL, no_argument },
	{ 'n', 'n', NULL, no_argument },
	{ 'f', 'f', NULL, no_argument },
	{ 'l', 'l', NULL, no_argument },
	{ 'O', 'O', NULL, required_argument },
	{ 'E', 'E', NULL, required_argument },
	{ 'j', 'j', NULL, required_argument },
	{ 'z', 'z', NULL, required_argument },
	{ 'o', 'o', NULL, required_argument },
	{ E4S_O_HELP, 'h', "help", no_argument },
	{ E4S_O_VERSION, 'V', "version", no_argument },
	{ E4S_O_JSON, 0, "json", optional_argument },
	{ E4S_O_UPTO, 0, "upto", required_argument },
	{ E4S_O_JOURNAL_OUTPUT, 0, "journal-output", required_argument },
	{ E4S_O_IGNORE_FC, 0, "ignore-fast-commit", no_argument },
	{ E4S_O_JOURNAL_ONLY, 0, "journal-only", no_argument },
	{ E4S_O_REPLAY_ANYWAY, 0, "replay-anyway", no_argument },
	{ E4S_O_CHECK_ORDER, 0, "check-order", no_argument },
	{ E4S_O_REPLAY, 0, "replay", no_argument },
	{ E4S_O_DATA_MODE, 0, "data-mode", required_argument },
	{ E4S_O_OUTSIDE, 0, "outside", required_argument },
	{ E4S_O_STAMPED, 0, "stamped", required_argument },
	{ E4S_O_LIST_MAPPINGS, 0, "list-mappings", no_argument },
	{ E4S_O_LIST_UNWRITTEN, 0, "list-unwritten", no_argument },
	{ E4S_O_MARK_UNWRITTEN, 0, "mark-unwritten", required_argument },
	{ E4S_O_MARK_WRITTEN, 0, "mark-written", required_argument },
	{ E4S_O_KEEP_CONTENTS, 0, "keep-contents", no_argument },
	{ E4S_O_SKIP_HOLES, 0, "skip-holes", no_argument },
	{ E4S_O_REPLAYED, 0, "replayed", no_argument },
	{ E4S_O_STATS, 0, "stats", no_argument },
	{ E4S_O_PLOT, 0, "plot", required_argument },
	{ E4S_O_ALL, 0, "all", no_argument },
	{ 'a', 'a', NULL, no_argument },
	{ 'b', 'b', NULL, required_argument },
	{ 'i', 'i', NULL, required_argument },
	{ 'S', 'S', NULL, no_argument },
	{ 'C', 'C', NULL, required_argument },
	{ E4S_O_WRITE_LOG, 0, "write-log", required_argument },
	{ E4S_O_LIST, 0, "list", no_argument },
	{ E4S_O_AT, 0, "at", required_argument },
	{ E4S_O_MARKS, 0, "marks", no_argument },
	{ E4S_O_REORDER, 0, "reorder", no_argument },
	{ E4S_O_DROP, 0, "drop", required_argument },
	{ E4S_O_CHECK_DURABILITY, 0, "check-durability", no_argument },
	{ E4S_O_DURABLE, 0, "durable", no_argument },
	{ E4S_O_START_MARK, 0, "start-mark", required_argument },
	{ E4S_O_START_ENTRY, 0, "start-entry", required_argument },
	{ E4S_O_LD_FILE, 'f', NULL, required_argument },
	{ E4S_O_LD_OLD, 'O', NULL, no_argument },
	{ E4S_O_DIGEST, 0, "digest", no_argument },
};
#define NOPTDEFS (sizeof(optdefs) / sizeof(optdefs[0]))

void e4s_req_init(struct e4s_req *r)
{
	memset(r, 0, sizeof(*r));
	r->num_fc_blks = (uint32_t)-1;
	r->lazy_itable_init = -1;
	e4_order_opts_init(&r->order, sizeof(r->order));
}

int e4s_add_mark(const char *prog, struct e4s_req *r, char *spec,
		 int unwritten)
{
	struct e4s_mark *m;
	uint64_t n;
	char *c1, *c2;

	if (r->uw_nmarks >= E4S_MAX_MARKS) {
		fprintf(stderr, "%s: at most %d --mark-* options\n", prog,
			E4S_MAX_MARKS);
		return -1;
	}
	m = &r->uw_marks[r->uw_nmarks];
	/* FILE:LBLK:LEN, split from the right: a path may hold ':'. */
	c2 = strrchr(spec, ':');
	if (!c2)
		goto bad;
	*c2 = 0;
	c1 = strrchr(spec, ':');
	*c2 = ':';
	if (!c1 || c1 == spec)
		goto bad;
	if (e4s_scan_num(c1 + 1, (size_t)(c2 - c1 - 1), UINT64_MAX, &n))
		goto bad;
	m->lblk = n;
	if (e4s_scan_num(c2 + 1, strlen(c2 + 1), UINT64_MAX, &n))
		goto bad;
	m->len = n;
	*c1 = 0;
	m->file = spec;
	m->unwritten = unwritten;
	r->uw_nmarks++;
	return 0;
bad:
	fprintf(stderr, "%s: invalid range '%s' (want FILE:LBLK:LEN, FILE a "
		"path in the fs or <ino>, LBLK and LEN in fs blocks)\n",
		prog, spec);
	return -1;
}

/* Parse a comma-separated -E list into @r; 0, or -1 after one line on
 * the first unknown or malformed option. */
static int parse_extended(const char *prog, char *opts, struct e4s_req *r)
{
	char *tok, *save = NULL, *val;
	uint64_t n;

	for (tok = strtok_r(opts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		val = strchr(tok, '=');
		if (val)
			*val++ = 0;
		if (!strcmp(tok, "clear_journal_errno") && !val) {
			r->clear_journal_errno = 1;
		} else if (!strcmp(tok, "num_fc_blks") && val) {
			/* (uint32_t)-1 means unset */
			if (e4s_parse_num(prog, "-E num_fc_blks", val,
					  UINT32_MAX - 1, &n))
				return -1;
			r->num_fc_blks = (uint32_t)n;
		} else if (!strcmp(tok, "journal_uuid") && val) {
			r->journal_uuid = val;
		} else if (!strcmp(tok, "lazy_itable_init") && val &&
			   (!strcmp(val, "0") || !strcmp(val, "1"))) {
			r->lazy_itable_init = *val - '0';
		} else if (!strcmp(tok, "groups") && val) {
			r->itable_groups = val;
		} else if (!strcmp(tok, "garbage") && !val) {
			r->itable_garbage = 1;
		} else {
			fprintf(stderr, "%s: unknown or malformed extended "
				"option '%s'\n", prog, tok);
			return -1;
		}
	}
	return 0;
}

/* An --outside / --stamped / --data-mode word into *@v. */
static int order_word(const char *prog, const char *what,
		      const struct e4s_word *words, struct e4s_req *r, int *v)
{
	r->order_opt_set = 1;
	return e4s_parse_word(prog, what, optarg, words, v);
}

/* Apply option @id (its value in optarg) to @r; 0 or E4S_GETOPT_*. */
static int apply(const char *prog, int id, struct e4s_req *r)
{
	switch (id) {
	case 'v': r->verbose = 1; break;
	case 'n': r->dry_run = 1; break;
	case 'f': r->force++; break;	/* -f -f: 2 */
	case 'l': r->list = 1; break;
	case 'O': r->features = optarg; break;
	case 'E':
		return parse_extended(prog, optarg, r) ? E4S_GETOPT_BAD : 0;
	case 'j': r->journal_dev = optarg; break;
	case 'z': r->undo_file = optarg; break;
	case 'o': r->output = optarg; break;
	case E4S_O_JSON:
		/* --json: indented; --json=lines: one line a document. */
		if (optarg && strcmp(optarg, "lines")) {
			fprintf(stderr, "%s: invalid --json '%s' (--json or "
				"--json=lines)\n", prog, optarg);
			return E4S_GETOPT_BAD;
		}
		r->json = optarg ? 2 : 1;
		e4s_json_set_lines(r->json == 2);
		break;
	case E4S_O_DIGEST:
		r->digest = 1;
		e4s_json_run_want_digest();
		break;
	case E4S_O_UPTO:
		if (e4s_parse_tid(prog, "--upto", optarg, &r->upto))
			return E4S_GETOPT_BAD;
		r->upto_set = r->order.has_upto = 1;
		r->order.upto = r->upto;
		break;
	case E4S_O_JOURNAL_OUTPUT: r->journal_output = optarg; break;
	case E4S_O_IGNORE_FC: r->ignore_fc = 1; break;
	case E4S_O_JOURNAL_ONLY: r->journal_only = 1; break;
	case E4S_O_REPLAY_ANYWAY: r->replay_anyway = 1; break;
	case E4S_O_CHECK_ORDER: r->check_order = 1; break;
	case E4S_O_REPLAY: r->replay_in_place = 1; break;
	case E4S_O_DATA_MODE:
		return order_word(prog, "--data-mode", e4s_data_mode_words,
				  r, &r->order.data_mode) ?
			E4S_GETOPT_BAD : 0;
	case E4S_O_OUTSIDE:
		return order_word(prog, "--outside", e4s_auto_yes_no_words,
				  r, &r->order.outside) ? E4S_GETOPT_BAD : 0;
	case E4S_O_STAMPED:
		return order_word(prog, "--stamped", e4s_auto_yes_no_words,
				  r, &r->order.stamped) ? E4S_GETOPT_BAD : 0;
	case E4S_O_LIST_MAPPINGS:
		r->order_opt_set = r->order.list_mappings = 1;
		break;
	case E4S_O_LIST_UNWRITTEN: r->list_unwritten = 1; break;
	case E4S_O_MARK_UNWRITTEN:
	case E4S_O_MARK_WRITTEN:
		return e4s_add_mark(prog, r, optarg,
				    id == E4S_O_MARK_UNWRITTEN) ?
			E4S_GETOPT_BAD : 0;
	case E4S_O_KEEP_CONTENTS: r->keep_contents = 1; break;
	case E4S_O_SKIP_HOLES: r->skip_holes = 1; break;
	case E4S_O_REPLAYED: r->uw_replayed = 1; break;
	case E4S_O_STATS: r->stats = 1; break;
	case E4S_O_PLOT: r->plot = optarg; break;
	case E4S_O_ALL: r->stats_all = 1; break;
	case 'a': r->verbose = 1; break;	/* every tag */
	case 'S': r->ld_super = 1; break;
	case 'C': {	/* e2fsck's -C FD */
		uint64_t n;

		if (e4s_parse_num(prog, "-C", optarg, INT_MAX, &n))
			return E4S_GETOPT_BAD;
		r->progress_fd = (int)n;
		r->progress_fd_set = 1;
		break;
	}
	case 'b':
	case 'i': {
		uint64_t n;

		if (e4s_parse_num(prog, id == 'b' ? "-b" : "-i", optarg,
				  id == 'b' ? UINT64_MAX : UINT32_MAX, &n))
			return E4S_GETOPT_BAD;
		if (id == 'i' && !n) {
			fprintf(stderr, "%s: -i 0: inode numbers start at 1\n",
				prog);
			return E4S_GETOPT_BAD;
		}
		r->ld_block_set = 1;
		if (id == 'b')
			r->ld_block = n;
		else
			r->ld_inode = (ext2_ino_t)n;
		break;
	}
	case E4S_O_WRITE_LOG: r->write_log = optarg; break;
	case E4S_O_LIST: r->wlog_list = 1; break;
	case E4S_O_AT: r->wlog_at = optarg; break;
	case E4S_O_MARKS: r->wlog_marks = 1; break;
	case E4S_O_REORDER: r->wlog_reorder = 1; break;
	case E4S_O_DROP: r->wlog_drop = optarg; break;
	case E4S_O_CHECK_DURABILITY: r->check_durability = 1; break;
	case E4S_O_DURABLE: r->wlog_durable = 1; break;
	case E4S_O_START_MARK: r->wlog_start_mark = optarg; break;
	case E4S_O_START_ENTRY: r->wlog_start_entry = optarg; break;
	case E4S_O_LD_FILE: r->ld_file = optarg; break;
	case E4S_O_LD_OLD: r->ld_old = 1; break;
	default:
		return E4S_GETOPT_USAGE;
	}
	return 0;
}

static const struct optdef *find_def(int id)
{
	size_t i;

	for (i = 0; i < NOPTDEFS; i++)
		if (optdefs[i].id == id)
			return &optdefs[i];
	return NULL;
}

/*
 * An option that takes a value, given a second time: one line naming both
 * values, E4S_GETOPT_BAD (the first one is not silently replaced).  -E
 * and --mark-(un)written add to a list; -b and -i are one choice.
 */
static int once(const char *prog, int id, const char **seen,
		struct e4s_req *r)
{
	const struct optdef *d = find_def(id);
	size_t i;

	if ((id == 'b' || id == 'i') && r->ld_block_set) {
		fprintf(stderr, "%s: -b or -i given twice: give one block "
			"or one inode\n", prog);
		return E4S_GETOPT_BAD;
	}
	if (!d || d->has_arg != required_argument || id == 'E' ||
	    id == E4S_O_MARK_UNWRITTEN || id == E4S_O_MARK_WRITTEN)
		return 0;
	i = (size_t)(d - optdefs);
	if (seen[i]) {
		char name[64];

		if (d->letter)
			snprintf(name, sizeof(name), "-%c", d->letter);
		else
			snprintf(name, sizeof(name), "--%s", d->name);
		fprintf(stderr, "%s: %s given twice ('%s', then '%s'): give "
			"it once\n", prog, name, seen[i], optarg);
		return E4S_GETOPT_BAD;
	}
	seen[i] = optarg;
	return 0;
}

int e4s_getopt(const char *prog, int argc, char **argv, const int *accept,
	       struct e4s_req *r)
{
	struct option longopts[NOPTDEFS + 1];
	char shortopts[2 * NOPTDEFS + 1];
	int ids[256] = { 0 };	/* a letter -> the accepted option's id */
	const char *seen[NOPTDEFS] = { NULL };	/* values given so far */
	size_t nl = 0, ns = 0;
	const struct optdef *d;
	char *argv0 = argv[0];
	int c, rc = 0;

	for (; *accept; accept++) {
		d = find_def(*accept);
		if (!d)
			continue;
		if (d->letter) {
			ids[(unsigned char)d->letter] = d->id;
			shortopts[ns++] = d->letter;
			if (d->has_arg)
				shortopts[ns++] = ':';
		}
		if (d->name) {
			longopts[nl].name = d->name;
			longopts[nl].has_arg = d->has_arg;
			longopts[nl].flag = NULL;
			longopts[nl].val = d->letter ? d->letter : d->id;
			nl++;
		}
	}
	shortopts[ns] = 0;
	memset(&longopts[nl], 0, sizeof(longopts[nl]));
	optind = 0;	/* parse this argv from its start */
	argv[0] = (char *)prog;	/* getopt's messages name the tool */
	while ((c = getopt_long(argc, argv, shortopts, longopts,
				NULL)) != -1) {
		if (c == '?' || c == ':')
			rc = E4S_GETOPT_USAGE;
		else if (c == 'h')
			rc = E4S_GETOPT_HELP;
		else if (c == 'V')
			rc = E4S_GETOPT_VERSION;
		else {
			int id = c > 0 && c < 256 && ids[c] ? ids[c] : c;

			rc = once(prog, id, seen, r);
			if (!rc)
				rc = apply(prog, id, r);
		}
		if (rc)
			break;
	}
	argv[0] = argv0;
	return rc ? rc : optind;
}

void e4s_print_version(const char *prog)
{
	char line[256];

	e4_version_line(prog, line, sizeof(line));
	printf("%s\n", line);
}

void e4s_usage(FILE *f, const char *prog, const char *usage)
{
	fprintf(f, usage, prog);
}

int e4s_std_getopt(const char *prog, int argc, char **argv,
		   const int *accept, struct e4s_req *r, const char *usage,
		   int usage_status)
{
	int first;

	e4s_com_err_safe();
	if (e4s_json_argv_wants(argc, argv))
		e4s_json_run_begin(usage_status == 16 ? 8 | 16 : ~0u, 0);
	first = e4s_getopt(prog, argc, argv, accept, r);
	if (first == E4S_GETOPT_HELP || first == E4S_GETOPT_VERSION)
		e4s_json_run_cancel();
	switch (first) {
	case E4S_GETOPT_HELP:
		e4s_usage(stdout, prog, usage);
		exit(0);
	case E4S_GETOPT_VERSION:
		e4s_print_version(prog);
		exit(0);
	case E4S_GETOPT_USAGE:
		e4s_usage(stderr, prog, usage);
		exit(usage_status);
	case E4S_GETOPT_BAD:
		exit(usage_status);
	}
	if (r->digest && !r->json) {
		fprintf(stderr, "%s: --digest goes with --json\n", prog);
		exit(usage_status);
	}
	return first;
}
