/*
 * replay_wlog.c --- `e4replay --write-log=LOG`: list a dm-log-writes log
 * (--list), give the device at one of its points with its journal
 * replayed (--at), and check alloc-on-commit ordering at every
 * persistence point (--check-order).  Options, flow and output; the work
 * is libe4's (wlog.c, wlog_io.c, wlog_check.c).
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
#include "util.h"
#include "e4replay.h"
#include "replay_wlog.h"

static const char *prog = "e4replay";

int e4replay_is_wlog(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strncmp(argv[i], "--write-log", 11) &&
		    (argv[i][11] == 0 || argv[i][11] == '='))
			return 1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"Usage: %s --write-log=LOG --list [--json] [--marks] BASE\n"
		"       %s --write-log=LOG --at=ENTRY|MARK [-v] [--json] "
		"[-o OUTPUT] BASE\n"
		"       %s --write-log=LOG --check-order "
		"[--data-mode=auto|ordered|journal|writeback]\n"
		"\t\t[--marks] [-v] [--json] BASE\n", prog, prog, prog);
	return E4R_EXIT_USAGE;
}

/* ---- opening ----------------------------------------------------------- */

void e4replay_wlog_close(struct e4w_input *in)
{
	e4_wlog_dev_free(in->dev);
	if (in->base)
		io_channel_close(in->base);
	e4_wlog_close(in->log);
	memset(in, 0, sizeof(*in));
}

errcode_t e4replay_wlog_open(const char *pname, const char *log_path,
			     const char *base_path, struct e4w_input *in)
{
	io_manager mgr = unix_io_manager;
	const char *name = base_path;
	uint64_t bad = (uint64_t)-1;
	blk64_t bytes;
	errcode_t retval;

	memset(in, 0, sizeof(*in));
	in->log_path = log_path;
	in->base_path = base_path;
	retval = e4_wlog_open(log_path, unix_io_manager, &in->log, &bad);
	if (retval) {
		if (bad == (uint64_t)-1)
			com_err(pname, retval, "in write log %s", log_path);
		else
			com_err(pname, retval, "in write log %s, entry %llu",
				log_path, (unsigned long long)bad);
		return retval;
	}
	retval = ext2fs_get_device_size2(base_path, 1, &bytes);
	if (retval) {
		com_err(pname, retval, "while reading the size of %s",
			base_path);
		goto fail;
	}
	retval = e4_tool_fault_wrap(pname, base_path, &mgr, &name);
	if (!retval)
		retval = mgr->open(name, 0, &in->base);
	if (retval) {
		com_err(pname, retval, "while opening %s", base_path);
		goto fail;
	}
	retval = e4_wlog_check_device(in->log, bytes, &bad);
	if (retval) {
		const struct e4_wlog_entry *e = &in->log->ents[bad];

		com_err(pname, retval, "in write log %s, entry %llu (sectors "
			"%llu-%llu of %u bytes; %s has %llu)", log_path,
			(unsigned long long)bad,
			(unsigned long long)e->sector,
			(unsigned long long)(e->sector + e->nr_sectors - 1),
			in->log->sectorsize, base_path,
			(unsigned long long)(bytes / in->log->sectorsize));
		goto fail;
	}
	retval = e4_wlog_dev_create(in->log, in->base, bytes, &in->dev);
	if (retval) {
		com_err(pname, retval, "while indexing write log %s",
			log_path);
		goto fail;
	}
	return 0;
fail:
	e4replay_wlog_close(in);
	return retval;
}

/* ---- --list ------------------------------------------------------------ */

static void print_log_json(struct e4_json *js, const struct e4w_input *in)
{
	const struct e4_wlog *l = in->log;

	e4_json_obj_begin(js, "log");
	e4_json_str(js, "path", in->log_path);
	e4_json_str(js, "base", in->base_path);
	e4_json_u64(js, "sectorsize", l->sectorsize);
	e4_json_u64(js, "nr_entries", l->nr_entries);
	e4_json_u64(js, "writes", l->nwrites);
	e4_json_u64(js, "flushes", l->nflush);
	e4_json_u64(js, "fua", l->nfua);
	e4_json_u64(js, "discards", l->ndiscard);
	e4_json_u64(js, "marks", l->nmark);
	e4_json_u64(js, "metadata", l->nmeta);
	e4_json_u64(js, "written_bytes", l->written_bytes);
	e4_json_u64(js, "device_bytes", e4_wlog_dev_size(in->dev));
	e4_json_u64(js, "ignored_bytes", l->extra_bytes);
	e4_json_obj_end(js);
}

static void print_flags_json(struct e4_json *js, uint64_t flags)
{
	static const char *names[] = { "FLUSH", "FUA", "DISCARD", "MARK",
				       "METADATA" };
	unsigned int b;

	e4_json_arr_begin(js, "flags");
	for (b = 0; b < 5; b++)
		if (flags & (1ULL << b))
			e4_json_str(js, NULL, names[b]);
	e4_json_arr_end(js);
}

void e4replay_wlog_print_list(const struct e4w_input *in, int json,
			      int marks)
{
	const struct e4_wlog *l = in->log;
	uint64_t i, npoints = 0;
	char fl[64];

	for (i = 0; i < l->nr_entries; i++)
		npoints += e4_wlog_is_point(&l->ents[i], marks);
	if (json) {
		struct e4_json js;

		e4_json_init(&js, stdout);
		e4_json_obj_begin(&js, NULL);
		print_log_json(&js, in);
		e4_json_arr_begin(&js, "entries");
		for (i = 0; i < l->nr_entries; i++) {
			const struct e4_wlog_entry *e = &l->ents[i];

			e4_json_obj_begin(&js, NULL);
			e4_json_u64(&js, "entry", i);
			print_flags_json(&js, e->flags);
			e4_json_u64(&js, "sector", e->sector);
			e4_json_u64(&js, "nr_sectors", e->nr_sectors);
			if (e->mark)
				e4_json_str(&js, "mark", e->mark);
			e4_json_bool(&js, "point", e4_wlog_is_point(e, marks));
			e4_json_obj_end(&js);
		}
		e4_json_arr_end(&js);
		e4_json_arr_begin(&js, "points");
		for (i = 0; i < l->nr_entries; i++)
			if (e4_wlog_is_point(&l->ents[i], marks))
				e4_json_u64(&js, NULL, i);
		e4_json_arr_end(&js);
		e4_json_obj_end(&js);
		e4_json_finish(&js);
		return;
	}
	printf("%s: dm-log-writes log of %s: %llu entries, sector size %u; "
	       "%llu writes (%llu bytes), %llu FLUSH, %llu FUA, %llu DISCARD, "
	       "%llu MARK, %llu METADATA; %llu persistence points%s\n",
	       in->log_path, in->base_path,
	       (unsigned long long)l->nr_entries, l->sectorsize,
	       (unsigned long long)l->nwrites,
	       (unsigned long long)l->written_bytes,
	       (unsigned long long)l->nflush, (unsigned long long)l->nfua,
	       (unsigned long long)l->ndiscard, (unsigned long long)l->nmark,
	       (unsigned long long)l->nmeta, (unsigned long long)npoints,
	       marks ? " (FLUSH, FUA and MARK)" : " (FLUSH or FUA)");
	if (l->extra_bytes)
		printf("%llu bytes after the last entry ignored (not counted "
		       "in nr_entries)\n", (unsigned long long)l->extra_bytes);
	printf("%8s %-22s %12s %10s  %s\n", "entry", "flags", "sector",
	       "sectors", "mark");
	for (i = 0; i < l->nr_entries; i++) {
		const struct e4_wlog_entry *e = &l->ents[i];

		printf("%8llu %-22s %12llu %10llu  %s%s\n",
		       (unsigned long long)i,
		       e4_wlog_flags_string(e->flags, fl, sizeof(fl)),
		       (unsigned long long)e->sector,
		       (unsigned long long)e->nr_sectors,
		       e4_wlog_is_point(e, marks) ? "* " : "",
		       e->mark ? e->mark : "");
	}
	printf("(* persistence point: the device with entries 0..N applied "
	       "is a crash state)\n");
}

/* ---- --at -------------------------------------------------------------- */

/* Write the device at its point to the new file @path: zero chunks are
 * skipped (the file stays sparse), then the size is set and synced. */
static errcode_t write_device(e4_wlog_dev_t d, const char *path)
{
	uint64_t size = e4_wlog_dev_size(d), off, n;
	const size_t chunk = 1 << 20;
	unsigned char *buf = NULL;
	errcode_t retval;
	int fd;

	retval = ext2fs_get_mem(chunk, &buf);
	if (retval)
		return retval;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		ext2fs_free_mem(&buf);
		return errno;
	}
	for (off = 0; off < size && !retval; off += n) {
		n = size - off < chunk ? size - off : chunk;
		retval = e4_wlog_dev_read(d, off, buf, n);
		if (!retval && !e4_block_is_zero(buf, n) &&
		    pwrite(fd, buf, n, off) != (ssize_t)n)
			retval = errno ? errno : EIO;
	}
	if (!retval && ftruncate(fd, size) < 0)
		retval = errno;
	if (!retval && fsync(fd) < 0)
		retval = errno;
	if (close(fd) < 0 && !retval)
		retval = errno;
	ext2fs_free_mem(&buf);
	return retval;
}

struct wopts {
	const char	*log, *base, *output, *at;
	int		list, check, json, verbose, marks, dry_run;
	int		data_mode;
};

static int run_at(struct wopts *w, struct e4w_input *in)
{
	struct e4r_opts o;
	struct e4r_run run;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	uint64_t point;
	errcode_t retval;
	char where[4200], tmp[4200];
	int rc = 0, made = 0;
	struct stat st;

	retval = e4_wlog_find_point(in->log, w->at, &point);
	if (retval) {
		com_err(prog, retval, "(--at=%s) in write log %s", w->at,
			w->log);
		return E4R_EXIT_USAGE;
	}
	e4_wlog_dev_set_point(in->dev, (int64_t)point);
	snprintf(where, sizeof(where), "%s at entry %llu of %s", w->base,
		 (unsigned long long)point, w->log);
	memset(&o, 0, sizeof(o));
	memset(&run, 0, sizeof(run));
	o.verbose = w->verbose;
	o.json = w->json;
	o.device = o.target = where;
	if (!w->output) {
		o.dry_run = 1;
		retval = ext2fs_open2(e4_wlog_dev_name(in->dev), NULL,
				      EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP |
				      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
				      e4_wlog_io_manager, &fs);
		if (retval) {
			com_err(prog, retval, "while opening the file system "
				"of %s", where);
			return E4R_EXIT_ERROR;
		}
	} else {
		if (stat(w->output, &st) == 0) {
			fprintf(stderr, "%s: OUTPUT %s exists; nothing done\n",
				prog, w->output);
			return E4R_EXIT_USAGE;
		}
		snprintf(tmp, sizeof(tmp), "%s.e4tmp%d", w->output,
			 (int)getpid());
		retval = write_device(in->dev, tmp);
		made = retval != EEXIST;
		if (retval) {
			com_err(prog, retval, "while writing %s", tmp);
			rc = E4R_EXIT_ERROR;
			goto out;
		}
		o.output = o.target = w->output;
		if (e4_tool_open_fs(prog, tmp, E4_OPEN_RW |
				    E4_OPEN_IGNORE_CSUM, NULL, &fs)) {
			rc = E4R_EXIT_ERROR;
			goto out;
		}
	}
	retval = e4_journal_open(fs, NULL, w->output ? E4_JOURNAL_RW : 0, &j);
	if (retval == E4_ERR_NO_JOURNAL && !e4_tool_needs_recovery(fs)) {
		printf("%s: no journal, nothing to replay\n", where);
	} else if (retval) {
		com_err(prog, retval, "while opening the journal of %s", where);
		rc = E4R_EXIT_ERROR;
	} else {
		rc = e4r_run(prog, &o, fs, j, &run);
	}
	if (j)
		e4_journal_close(j);
	retval = ext2fs_close_free(&fs);
	if (retval) {
		com_err(prog, retval, "while closing %s", o.target);
		rc |= E4R_EXIT_ERROR;
	}
	if (w->output && !(rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE))) {
		if (rename(tmp, w->output) < 0) {
			com_err(prog, errno, "while renaming %s to %s", tmp,
				w->output);
			rc |= E4R_EXIT_ERROR;
		} else {
			made = 0;
		}
	}
out:
	if (made)
		unlink(tmp);
	return rc;
}

/* ---- main -------------------------------------------------------------- */

int e4replay_wlog_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "write-log", required_argument, NULL, 'W' },
		{ "list", no_argument, NULL, 'L' },
		{ "at", required_argument, NULL, 'A' },
		{ "check-order", no_argument, NULL, 'C' },
		{ "data-mode", required_argument, NULL, 'D' },
		{ "marks", no_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct wopts w;
	struct e4w_input in;
	int c, rc, modes;

	memset(&w, 0, sizeof(w));
	optind = 1;
	while ((c = getopt_long(argc, argv, "vo:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'W':
			w.log = optarg;
			break;
		case 'L':
			w.list = 1;
			break;
		case 'A':
			w.at = optarg;
			break;
		case 'C':
			w.check = 1;
			break;
		case 'D':
			if (!strcmp(optarg, "auto"))
				w.data_mode = E4_DATA_AUTO;
			else if (!strcmp(optarg, "ordered"))
				w.data_mode = E4_DATA_ORDERED;
			else if (!strcmp(optarg, "journal"))
				w.data_mode = E4_DATA_JOURNAL;
			else if (!strcmp(optarg, "writeback"))
				w.data_mode = E4_DATA_WRITEBACK;
			else {
				fprintf(stderr, "%s: invalid data mode '%s'\n",
					prog, optarg);
				return E4R_EXIT_USAGE;
			}
			break;
		case 'M':
			w.marks = 1;
			break;
		case 'J':
			w.json = 1;
			break;
		case 'v':
			w.verbose = 1;
			break;
		case 'o':
			w.output = optarg;
			break;
		default:
			return usage();
		}
	}
	modes = w.list + !!w.at + w.check;
	if (optind != argc - 1 || !w.log || !*w.log || modes != 1)
		return usage();
	w.base = argv[optind];
	if (w.output && !w.at) {
		fprintf(stderr, "%s: -o goes with --at\n", prog);
		return E4R_EXIT_USAGE;
	}
	if (w.data_mode && !w.check) {
		fprintf(stderr, "%s: --data-mode goes with --check-order\n",
			prog);
		return E4R_EXIT_USAGE;
	}
	if (e4replay_wlog_open(prog, w.log, w.base, &in))
		return E4R_EXIT_ERROR;
	if (w.list) {
		e4replay_wlog_print_list(&in, w.json, w.marks);
		rc = 0;
	} else if (w.at) {
		rc = run_at(&w, &in);
	} else {
		fprintf(stderr, "%s: --check-order: not yet\n", prog);
		rc = E4R_EXIT_ERROR;
	}
	e4replay_wlog_close(&in);
	return rc;
}
