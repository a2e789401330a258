/*
 * replay_wlog.c --- `e4replay --write-log=LOG` and e4debug's wlog_*
 * commands: list a dm-log-writes log (--list), give the device at one of
 * its points with its journal replayed (--at, through replay_run.c), and
 * check alloc-on-commit ordering at every persistence point
 * (--check-order).  Option checks, flow and output; the work is libe4's
 * (wlog.c, wlog_io.c, wlog_check.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <et/com_err.h>
#include <uuid/uuid.h>

#include "e4.h"
#include "json.h"
#include "open.h"
#include "options.h"
#include "parse.h"
#include "progress.h"
#include "replay.h"
#include "stats.h"
#include "target.h"
#include "wlog.h"

/* ---- opening ----------------------------------------------------------- */

void e4s_wlog_close(struct e4s_wlog_input *in)
{
	e4_wlog_dev_free(in->sdev);
	e4_wlog_dev_free(in->dev);
	if (in->base)
		io_channel_close(in->base);
	e4_wlog_close(in->log);
	memset(in, 0, sizeof(*in));
}

/*
 * Issue 18: a log recorded over another device.  BASE's superblock (if it
 * holds an ext2/3/4 one, opened by libext2fs) against the superblocks the
 * log writes (e4_wlog_check_fs(): their UUID, their size); one line.
 */
static errcode_t check_base_fs(const char *pname, struct e4s_wlog_input *in,
			       uint64_t bytes)
{
	struct ext2_super_block found;
	ext2_filsys fs = NULL;
	uint64_t bad = 0;
	char u1[37], u2[37];
	errcode_t retval;
	/* A started run: the state at the start against the rest. */
	const char *name = in->sdev ? e4_wlog_dev_name(in->sdev) :
		in->base_path;
	io_manager mgr = in->sdev ? e4_wlog_io_manager : unix_io_manager;
	e4_wlog_t log = in->sdev ? e4_wlog_dev_log(in->sdev) : in->log;

	if (in->sdev)
		e4_wlog_dev_set_point(in->sdev, -1);
	if (ext2fs_open2(name, "", EXT2_FLAG_64BITS |
			 EXT2_FLAG_SKIP_MMP | EXT2_FLAG_IGNORE_CSUM_ERRORS |
			 EXT2_FLAG_SUPER_ONLY, 0, 0, mgr, &fs))
		fs = NULL;	/* no fs (yet): the log may make it */
	retval = e4_wlog_check_fs(log, fs ? fs->super : NULL, bytes,
				  &bad, &found);
	bad += in->origin;
	if (retval == E4_ERR_WLOG_OTHER_FS) {
		uuid_unparse(found.s_uuid, u1);
		uuid_unparse(fs->super->s_uuid, u2);
		com_err(pname, retval, "in write log %s, entry %llu (it writes "
			"fs UUID %s; %s holds %s: not recorded over it)",
			in->log_path, (unsigned long long)bad, u1,
			in->base_path, u2);
	} else if (retval == E4_ERR_WLOG_PAST_DEVICE) {
		com_err(pname, retval, "in write log %s, entry %llu (it writes "
			"the superblock of a %llu-byte fs; %s has %llu bytes: "
			"recorded on a larger device)", in->log_path,
			(unsigned long long)bad,
			(unsigned long long)(ext2fs_blocks_count(&found) <<
			(found.s_log_block_size + EXT2_MIN_BLOCK_LOG_SIZE)),
			in->base_path, (unsigned long long)bytes);
	} else if (retval) {
		com_err(pname, retval, "while reading write log %s",
			in->log_path);
	}
	if (fs)
		ext2fs_free(fs);
	return retval;
}

/*
 * Where the run starts (e4s_wlog_open()): entry in->origin, in->sdev the
 * device from there; one line and the error otherwise.
 */
static errcode_t find_start(const char *pname, const struct e4s_req *r,
			    struct e4s_wlog_input *in, uint64_t bytes)
{
	const struct e4_wlog *l = in->log;
	uint64_t from = 0, v;
	int skip = r->check_order || r->check_durability || r->stats;
	errcode_t retval;

	if (r->wlog_start_mark) {
		retval = e4_wlog_find_mark(in->log, r->wlog_start_mark, &from);
		if (retval) {
			com_err(pname, retval, "(--start-mark=%s) in write log "
				"%s", r->wlog_start_mark, in->log_path);
			return retval;
		}
	} else if (r->wlog_start_entry) {
		if (e4s_scan_num(r->wlog_start_entry,
				 strlen(r->wlog_start_entry), UINT64_MAX,
				 &v) != E4S_NUM_OK || v >= l->nr_entries) {
			retval = E4_ERR_WLOG_NO_SUCH_ENTRY;
			com_err(pname, retval, "(--start-entry=%s) in write "
				"log %s (%llu entries)", r->wlog_start_entry,
				in->log_path,
				(unsigned long long)l->nr_entries);
			return retval;
		}
		from = v;
	}
	in->start_given = r->wlog_start_mark || r->wlog_start_entry;
	in->origin = from;
	/* The checks begin where a file system with a journal exists:
	 * the points before it hold none yet (the log's own mkfs). */
	if (skip) {
		retval = e4_wlog_find_start(in->dev, from, r->wlog_marks,
					    &in->origin, &in->nofs);
		if (retval == E4_ERR_WLOG_NO_FS) {
			/* why the state at the start has none, too */
			errcode_t why = e4_wlog_dev_fs_at(in->dev,
							  (int64_t)from - 1);

			com_err(pname, retval, "(%s%s: %s; nor do the %llu "
				"persistence point(s) of write log %s from "
				"entry %llu on)", in->base_path,
				from ? " at the start" : "",
				error_message(why),
				(unsigned long long)in->nofs, in->log_path,
				(unsigned long long)from);
			return retval;
		}
		if (retval) {
			com_err(pname, retval, "while looking for the file "
				"system in write log %s over %s",
				in->log_path, in->base_path);
			return retval;
		}
	}
	if (!in->origin)
		return 0;
	retval = e4_wlog_dev_create_start(in->log, in->base, bytes,
					  in->origin, &in->sdev);
	if (retval)
		com_err(pname, retval, "while indexing write log %s from "
			"entry %llu", in->log_path,
			(unsigned long long)in->origin);
	return retval;
}

errcode_t e4s_wlog_open(const char *pname, const struct e4s_req *r,
			struct e4s_wlog_input *in)
{
	io_manager mgr = unix_io_manager;
	const char *log_path = r->write_log, *base_path = r->device;
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
	retval = e4s_fault_wrap(pname, 0, base_path, &mgr, &name);
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
	/* Without a start, BASE against the log before anything is
	 * indexed (as ever); a started run checks the state at its start
	 * against the rest of the log once it is known. */
	if (!r->wlog_start_mark && !r->wlog_start_entry) {
		retval = check_base_fs(pname, in, bytes);
		if (retval)
			goto fail;
	}
	retval = e4_wlog_dev_create(in->log, in->base, bytes, &in->dev);
	if (retval) {
		com_err(pname, retval, "while indexing write log %s",
			log_path);
		goto fail;
	}
	retval = find_start(pname, r, in, bytes);
	if (!retval && (r->wlog_start_mark || r->wlog_start_entry))
		retval = check_base_fs(pname, in, bytes);
	if (retval)
		goto fail;
	return 0;
fail:
	e4s_wlog_close(in);
	return retval;
}

/* The device the checks run on: from the start (or the whole log). */
static e4_wlog_dev_t check_dev(const struct e4s_wlog_input *in)
{
	return in->sdev ? in->sdev : in->dev;
}

/* A started run, as text: one line (nothing without a start). */
static void print_start_text(const struct e4s_wlog_input *in)
{
	char lp_txt[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* the names as text */
	if (!in->origin && !in->nofs)
		return;
	printf("%s: starts at entry %llu",
	       e4s_text_escape(in->log_path, lp_txt, sizeof(lp_txt)),
	       (unsigned long long)in->origin);
	if (in->nofs)
		printf(" (%llu persistence point(s) before it hold no file "
		       "system yet: skipped)", (unsigned long long)in->nofs);
	if (in->origin)
		printf(": the device at entry %llu is BASE",
		       (unsigned long long)in->origin - 1);
	printf("\n");
}

/* ---- --list ------------------------------------------------------------ */

static void print_log_json(struct e4s_json *js, const struct e4s_wlog_input *in)
{
	const struct e4_wlog *l = in->log;

	e4s_json_obj_begin(js, "log");
	e4s_json_str(js, "path", in->log_path);
	e4s_json_str(js, "base", in->base_path);
	e4s_json_u64(js, "sectorsize", l->sectorsize);
	e4s_json_u64(js, "nr_entries", l->nr_entries);
	e4s_json_u64(js, "writes", l->nwrites);
	e4s_json_u64(js, "flushes", l->nflush);
	e4s_json_u64(js, "fua", l->nfua);
	e4s_json_u64(js, "discards", l->ndiscard);
	e4s_json_u64(js, "marks", l->nmark);
	e4s_json_u64(js, "metadata", l->nmeta);
	e4s_json_u64(js, "written_bytes", l->written_bytes);
	e4s_json_u64(js, "device_bytes", e4_wlog_dev_size(in->dev));
	e4s_json_u64(js, "ignored_bytes", l->extra_bytes);
	if (in->origin || in->nofs) {	/* a started run */
		e4s_json_u64(js, "start_entry", in->origin);
		e4s_json_u64(js, "no_fs_points", in->nofs);
	}
	e4s_json_obj_end(js);
}

static void print_flags_json(struct e4s_json *js, uint64_t flags)
{
	static const char *names[] = { "FLUSH", "FUA", "DISCARD", "MARK",
				       "METADATA" };
	unsigned int b;

	e4s_json_arr_begin(js, "flags");
	for (b = 0; b < 5; b++)
		if (flags & (1ULL << b))
			e4s_json_str(js, NULL, names[b]);
	e4s_json_arr_end(js);
}

void e4s_wlog_print_list(const struct e4s_wlog_input *in, int json,
			      int marks)
{
	char lp_txt[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* the names as text */
	char bp_txt[E4S_TEXT_ESC_MAX(PATH_MAX)];
	const struct e4_wlog *l = in->log;
	uint64_t i, npoints = 0;
	char fl[64], mb[E4S_TEXT_ESC_MAX(512)];

	/* A started run lists the entries from the start on. */
	for (i = in->origin; i < l->nr_entries; i++)
		npoints += e4_wlog_is_point(&l->ents[i], marks);
	if (json) {
		struct e4s_json js;

		e4s_json_init(&js, stdout);
		e4s_json_obj_begin(&js, NULL);
		print_log_json(&js, in);
		e4s_json_arr_begin(&js, "entries");
		for (i = in->origin; i < l->nr_entries; i++) {
			const struct e4_wlog_entry *e = &l->ents[i];

			e4s_json_obj_begin(&js, NULL);
			e4s_json_u64(&js, "entry", i);
			print_flags_json(&js, e->flags);
			e4s_json_u64(&js, "sector", e->sector);
			e4s_json_u64(&js, "nr_sectors", e->nr_sectors);
			if (e->mark)
				e4s_json_str(&js, "mark", e->mark);
			e4s_json_bool(&js, "point", e4_wlog_is_point(e, marks));
			e4s_json_obj_end(&js);
		}
		e4s_json_arr_end(&js);
		e4s_json_arr_begin(&js, "points");
		for (i = in->origin; i < l->nr_entries; i++)
			if (e4_wlog_is_point(&l->ents[i], marks))
				e4s_json_u64(&js, NULL, i);
		e4s_json_arr_end(&js);
		e4s_json_obj_end(&js);
		e4s_json_finish(&js);
		return;
	}
	printf("%s: dm-log-writes log of %s: %llu entries, sector size %u; "
	       "%llu writes (%llu bytes), %llu FLUSH, %llu FUA, %llu DISCARD, "
	       "%llu MARK, %llu METADATA; %llu persistence points%s\n",
	       e4s_text_escape(in->log_path, lp_txt, sizeof(lp_txt)),
	       e4s_text_escape(in->base_path, bp_txt, sizeof(bp_txt)),
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
	print_start_text(in);
	printf("%8s %-22s %12s %10s  %s\n", "entry", "flags", "sector",
	       "sectors", "mark");
	for (i = in->origin; i < l->nr_entries; i++) {
		const struct e4_wlog_entry *e = &l->ents[i];

		printf("%8llu %-22s %12llu %10llu  %s%s\n",
		       (unsigned long long)i,
		       e4_wlog_flags_string(e->flags, fl, sizeof(fl)),
		       (unsigned long long)e->sector,
		       (unsigned long long)e->nr_sectors,
		       e4_wlog_is_point(e, marks) ? "* " : "",
		       e->mark ? e4s_text_escape(e->mark, mb, sizeof(mb)) :
		       "");
	}
	printf("(* persistence point: the device with entries 0..N applied "
	       "is a crash state)\n");
}

/* ---- --at -------------------------------------------------------------- */

/*
 * Write the device at its point into @out (e4s_output_begin()): into a
 * file, all-zero 1 MiB chunks stay holes and the size is set; into a
 * block device every byte is written.  Then synced.  Returns 0 or an
 * errno / errcode.
 */
static errcode_t write_device(e4_wlog_dev_t d, struct e4s_output *out)
{
	uint64_t size = e4_wlog_dev_size(d), off, n;
	const size_t chunk = 1 << 20;
	unsigned char *buf = NULL;
	errcode_t retval;

	retval = ext2fs_get_mem(chunk, &buf);
	if (retval)
		return retval;
	for (off = 0; off < size && !retval; off += n) {
		n = size - off < chunk ? size - off : chunk;
		retval = e4_wlog_dev_read(d, off, buf, n);
		if (!retval && (out->is_blk || !e4_block_is_zero(buf, n)) &&
		    pwrite(out->fd, buf, n, (off_t)off) != (ssize_t)n)
			retval = errno ? errno : EIO;
	}
	if (!retval && !out->is_blk && ftruncate(out->fd, (off_t)size) < 0)
		retval = errno;
	if (!retval && fsync(out->fd) < 0)
		retval = errno;
	ext2fs_free_mem(&buf);
	return retval;
}

/*
 * The point named by @spec: an entry number (decimal or 0x hex, by
 * lib/support's one number parser) or a MARK label.
 */
static errcode_t find_point(const struct e4s_wlog_input *in,
			    const char *spec, uint64_t *entry)
{
	uint64_t v;

	if (e4s_scan_num(spec, strlen(spec), UINT64_MAX, &v) == E4S_NUM_OK) {
		if (v >= in->log->nr_entries)
			return E4_ERR_WLOG_NO_SUCH_ENTRY;
		*entry = v;
		return 0;
	}
	return e4_wlog_find_mark(in->log, spec, entry);
}

/*
 * --drop=E1,E2,...: the entries a power cut lost at point @point (a
 * witness of --check-order --reorder).  Each one a number (lib/support's
 * parser), a write or DISCARD up to the point that a volatile write cache
 * can lose: after the last FLUSH before the point (REQ_PREFLUSH makes
 * every write before it durable) and not FUA.  Sets *@ents (malloc'ed)
 * and *@n; one line naming the entry and 16 otherwise.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int parse_drop(const char *prog, const struct e4s_wlog_input *in,
		      const char *spec, uint64_t point, uint64_t **ents,
		      size_t *n)
{
	const char *p = spec, *comma;
	uint64_t v, *a = NULL;
	int64_t flush = -1;
	size_t cnt = 1, k = 0;
	uint64_t i;

	/* A started run: BASE is the state at the start, durable. */
	for (i = in->origin; i <= point; i++)
		if (in->log->ents[i].flags & E4_WLOG_FLUSH)
			flush = (int64_t)i;
	for (comma = spec; *comma; comma++)
		cnt += *comma == ',';
	a = calloc(cnt, sizeof(*a));
	if (!a) {
		com_err(prog, EXT2_ET_NO_MEMORY, "while reading --drop");
		return E4R_EXIT_ERROR;
	}
	for (;;) {
		const struct e4_wlog_entry *e;
		size_t len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (e4s_scan_num(p, len, UINT64_MAX, &v) != E4S_NUM_OK) {
			fprintf(stderr, "%s: --drop: '%.*s' is not an entry "
				"number (want E1,E2,...)\n", prog, (int)len, p);
			goto bad;
		}
		if (v > point) {
			fprintf(stderr, "%s: --drop: entry %llu is after the "
				"point (entry %llu)\n", prog,
				(unsigned long long)v,
				(unsigned long long)point);
			goto bad;
		}
		if (v < in->origin) {
			fprintf(stderr, "%s: --drop: entry %llu is before the "
				"start (entry %llu): in BASE\n", prog,
				(unsigned long long)v,
				(unsigned long long)in->origin);
			goto bad;
		}
		e = &in->log->ents[v];
		if (!e->nr_sectors) {
			fprintf(stderr, "%s: --drop: entry %llu writes "
				"nothing (only writes and DISCARDs can be "
				"lost)\n", prog, (unsigned long long)v);
			goto bad;
		}
		if ((int64_t)v < flush || (e->flags & E4_WLOG_FUA)) {
			char why[64];

			if (e->flags & E4_WLOG_FUA)
				snprintf(why, sizeof(why), "FUA");
			else
				snprintf(why, sizeof(why), "before the FLUSH "
					 "at entry %lld", (long long)flush);
			fprintf(stderr, "%s: --drop: entry %llu is durable at "
				"the point (%s): a power cut cannot lose it\n",
				prog, (unsigned long long)v, why);
			goto bad;
		}
		a[k++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	/* e4_wlog_dev_set_drop() takes them ascending, once each. */
	qsort(a, k, sizeof(*a), cmp_u64);
	for (i = 0, cnt = 0; i < k; i++)
		if (!cnt || a[cnt - 1] != a[i])
			a[cnt++] = a[i];
	*ents = a;
	*n = cnt;
	return 0;
bad:
	free(a);
	return E4R_EXIT_USAGE;
}

/*
 * --at: the device at the point, its journal replayed by replay_run.c's
 * flow: without -o what replay would do (-n) on the device read through
 * the write-log io_manager; with -o the device written to a new file
 * (under a temporary name, renamed at the end) and replayed there.
 */
static int run_at(const char *prog, const struct e4s_req *r0,
		  struct e4s_wlog_input *in)
{
	struct e4s_req r = *r0;
	struct e4s_replay run;
	struct e4_jscan *scan = NULL;
	struct e4_plan *plan = NULL;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	uint64_t point;
	errcode_t retval;
	char where[4200];
	struct e4s_output out;
	uint64_t *drop = NULL;
	size_t ndrop = 0, i;
	int rc = 0, begun = 0;
	int64_t flush = -1;

	retval = find_point(in, r.wlog_at, &point);
	if (retval) {
		com_err(prog, retval, "(--at=%s) in write log %s", r.wlog_at,
			in->log_path);
		return E4R_EXIT_USAGE;
	}
	if (point + 1 < in->origin) {
		fprintf(stderr, "%s: --at=%s: entry %llu is before the start "
			"(entry %llu)\n", prog, r.wlog_at,
			(unsigned long long)point,
			(unsigned long long)in->origin);
		return E4R_EXIT_USAGE;
	}
	if (r.wlog_drop && r.wlog_durable) {
		fprintf(stderr, "%s: --drop and --durable both say which "
			"entries the state lost: give one\n", prog);
		return E4R_EXIT_USAGE;
	}
	if (r.wlog_drop) {
		rc = parse_drop(prog, in, r.wlog_drop, point, &drop, &ndrop);
		if (!rc && e4_wlog_dev_set_drop(in->dev, drop, ndrop))
			rc = E4R_EXIT_ERROR;
		free(drop);	/* set_drop() copied it */
		drop = NULL;
		if (rc)
			return rc;
	}
	e4_wlog_dev_set_point(in->dev, (int64_t)point);
	if (ndrop)
		snprintf(where, sizeof(where), "%s at entry %llu of %s "
			 "without entr%s %s", in->base_path,
			 (unsigned long long)point, in->log_path,
			 ndrop > 1 ? "ies" : "y", r.wlog_drop);
	else
		snprintf(where, sizeof(where), "%s at entry %llu of %s",
			 in->base_path, (unsigned long long)point,
			 in->log_path);
	if (r.wlog_durable) {
		/* Only what is durable there (wlog_durable.c's rule); a
		 * started run's BASE, the state at its start, is. */
		if (in->sdev && point < in->origin) {
			retval = 0;
		} else {
			retval = e4_wlog_durable_drop(
				in->sdev ? e4_wlog_dev_log(in->sdev) : in->log,
				point - in->origin, &flush, &drop, &ndrop);
			for (i = 0; !retval && i < ndrop; i++)
				drop[i] += in->origin;
			if (flush >= 0)
				flush += (int64_t)in->origin;
			else if (in->origin)
				flush = (int64_t)in->origin - 1;
		}
		if (!retval)
			retval = e4_wlog_dev_set_drop(in->dev, drop, ndrop);
		if (retval) {
			com_err(prog, retval, "while dropping what is not "
				"durable at entry %llu",
				(unsigned long long)point);
			ext2fs_free_mem(&drop);
			return E4R_EXIT_ERROR;
		}
		snprintf(where, sizeof(where), "%s at entry %llu of %s, "
			 "durable (%zu entr%s from %lld dropped)",
			 in->base_path, (unsigned long long)point,
			 in->log_path, ndrop, ndrop == 1 ? "y" : "ies",
			 (long long)(flush < 0 ? 0 : flush));
	}
	memset(&run, 0, sizeof(run));
	r.device = r.target = where;
	/* a recorded state: the journal alone (its figures predate the
	 * orphan cleanup) */
	r.journal_only = 1;
	if (!r.output) {
		r.dry_run = 1;
		retval = ext2fs_open2(e4_wlog_dev_name(in->dev), "",
				      EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP |
				      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
				      e4_wlog_io_manager, &fs);
		if (retval) {
			com_err(prog, retval, "while opening the file system "
				"of %s", where);
			rc = E4R_EXIT_ERROR;
			goto out;
		}
	} else {
		/* OUTPUT under a temporary name (a device in place),
		 * renamed over the final name only when the run succeeds. */
		if (e4s_output_begin(prog, "OUTPUT", r.output, &out)) {
			rc = E4R_EXIT_ERROR;
			goto out;
		}
		begun = 1;
		retval = write_device(in->dev, &out);
		close(out.fd);	/* libext2fs opens it itself */
		out.fd = -1;
		if (retval) {
			com_err(prog, retval, "while writing %s", r.output);
			rc = E4R_EXIT_ERROR;
			goto out;
		}
		r.target = r.output;
		if (e4s_open_fs(prog, out.tmp ? out.tmp : r.output,
				E4S_OPEN_RW | E4S_OPEN_IGNORE_CSUM, NULL,
				&fs)) {
			rc = E4R_EXIT_ERROR;
			goto out;
		}
	}
	retval = e4s_open_journal(prog, fs, NULL,
				  r.output ? E4_JOURNAL_RW : 0, &j);
	if (retval == E4_ERR_NO_JOURNAL && !e4s_needs_recovery(fs)) {
		e4s_replay_say_no_journal(&r, where);
	} else if (retval) {
		rc = e4s_journal_open_failed(prog, fs, retval, where);
	} else {
		rc = e4s_replay_scan(prog, &r, j, &scan, &plan);
		if (!rc) {
			e4s_replay_decide(prog, &r, fs, plan, scan, &run);
			rc = e4s_replay_run(prog, &r, fs, plan, &run);
		}
	}
	e4s_fc_cleanup(&run);	/* a refusal before e4s_replay_run() */
	e4_plan_free(plan);
	e4_jscan_free(scan);
	if (j)
		e4_journal_close(j);
	retval = ext2fs_close_free(&fs);
	if (retval) {
		com_err(prog, retval, "while closing %s", r.target);
		rc |= E4R_EXIT_ERROR;
	}
out:
	if (begun) {
		if (!(rc & (E4R_EXIT_ERROR | E4R_EXIT_USAGE)) &&
		    e4s_output_commit(prog, &out))
			rc |= E4R_EXIT_ERROR;
		e4s_output_abort(&out);	/* nothing after a commit */
	}
	e4_wlog_dev_set_drop(in->dev, NULL, 0);
	ext2fs_free_mem(&drop);
	return rc;
}

/* ---- --check-order ----------------------------------------------------- */

static const char *mode_src[] = {
	"given", "default mount options", "inferred: file data journaled",
	"assumed: the mount's data= option is not recorded on disk; see "
	"--data-mode"
};

static void print_entry_or_never(int64_t e)
{
	if (e < 0)
		printf("never");
	else
		printf("entry %lld", (long long)e);
}

/* Same stale block run at two points. */
static int same_run(const struct e4_wlog_finding *a,
		    const struct e4_wlog_finding *b)
{
	return a->kind == b->kind && a->permitted == b->permitted &&
		a->has_tid == b->has_tid && a->tid == b->tid &&
		a->ino == b->ino && a->generation == b->generation &&
		a->lblk == b->lblk && a->pblk == b->pblk && a->len == b->len;
}

static void print_finding_text(const struct e4_wlog_finding *f,
			       int64_t last, size_t npoints)
{
	char pb[E4S_TEXT_ESC_MAX(4096)];

	if (npoints > 1)
		printf("  points %lld-%lld (%zu): ", (long long)f->point,
		       (long long)last, npoints);
	else
		printf("  point %lld: ", (long long)f->point);
	if (f->kind == E4_WLOG_UNRECOVERABLE) {
		printf("unrecoverable: the kernel's journal recovery fails "
		       "here\n");
		return;
	}
	if (f->has_tid)
		printf("tid %u: ", f->tid);
	else
		printf("tid ?: ");
	printf("%s inode %u gen %u", e4_wlog_kind_name(f->kind, f->permitted),
	       f->ino, f->generation);
	if (f->path)
		printf(" (%s)", e4s_text_escape(f->path, pb, sizeof(pb)));
	printf(" lblk %llu pblk %llu len %llu", (unsigned long long)f->lblk,
	       (unsigned long long)f->pblk, (unsigned long long)f->len);
	switch (f->kind) {
	case E4_WLOG_STALE:
		printf(": no entry up to the point wrote it since it was "
		       "last free; stale data exposed%s",
		       f->has_tid ? "" : " (mapping's transaction unknown)");
		break;
	case E4_WLOG_NO_DATA:
		printf(": %s committed at entry %lld before its data was "
		       "written (data write: never)",
		       f->conversion ? "conversion" : "allocation",
		       (long long)f->commit_entry);
		break;
	case E4_WLOG_NO_FLUSH:
		printf(": data written at ");
		print_entry_or_never(f->data_entry);
		printf(", committed at entry %lld with no FLUSH between",
		       (long long)f->commit_entry);
		break;
	}
	if (f->permitted)
		printf(" (permitted by data=writeback)");
	printf("\n");
}

static void print_check_text(const struct e4s_wlog_input *in,
			     const struct e4_wlog_report *rep, int verbose)
{
	char lp_txt[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* the names as text */
	char bp_txt[E4S_TEXT_ESC_MAX(PATH_MAX)];
	size_t i, np = 0;
	uint64_t bad_points = 0;
	char *shown, mb[E4S_TEXT_ESC_MAX(512)];

	for (i = 0; i < rep->ntxns; i++)
		np += rep->txns[i].committed;
	print_start_text(in);
	printf("%s: %s + %llu entries; %zu persistence point(s) checked; "
	       "%zu commit write(s) (%zu checked); data mode %s (%s)\n",
	       e4s_text_escape(in->log_path, lp_txt, sizeof(lp_txt)),
	       e4s_text_escape(in->base_path, bp_txt, sizeof(bp_txt)),
	       (unsigned long long)(in->log->nr_entries - in->origin),
	       rep->npoints,
	       rep->ntxns, np, e4_data_mode_name(rep->data_mode),
	       mode_src[rep->data_mode_src]);
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		printf("warning: %s\n", rep->warnings[i]);
	if (verbose) {
		printf("%10s %12s %7s %7s %9s  %s\n", "tid", "commit entry",
		       "new", "conv", "released", "violations");
		for (i = 0; i < rep->ntxns; i++) {
			const struct e4_wlog_txn *t = &rep->txns[i];

			printf("%10u %12llu %7llu %7llu %9llu  %llu%s\n",
			       t->tid, (unsigned long long)t->commit_entry,
			       (unsigned long long)t->new_blocks,
			       (unsigned long long)t->conversions,
			       (unsigned long long)t->released,
			       (unsigned long long)t->violations,
			       t->committed ? "" : "  (not replayable there)");
		}
	}
	printf("%8s %-24s %-15s %9s %10s\n", "entry", "mark", "committed tids",
	       "blocks", "violations");
	for (i = 0; i < rep->npoints; i++) {
		const struct e4_wlog_point *p = &rep->points[i];
		char tids[32];
		uint64_t v = 0;
		size_t k;

		for (k = 0; k < p->nf; k++)
			if (!rep->f[p->first_f + k].permitted)
				v += rep->f[p->first_f + k].len;
		bad_points += v || p->fail;
		if (!verbose && !v && !p->nf && !p->fail)
			continue;
		if (p->fail)
			snprintf(tids, sizeof(tids), "unrecoverable");
		else if (!p->ntids)
			snprintf(tids, sizeof(tids), "-");
		else if (p->ntids == 1)
			snprintf(tids, sizeof(tids), "%u", p->tids[0]);
		else
			snprintf(tids, sizeof(tids), "%u-%u (%zu)", p->tids[0],
				 p->tids[p->ntids - 1], p->ntids);
		if (p->fast_commits && !p->fail) {
			size_t l = strlen(tids);

			snprintf(tids + l, sizeof(tids) - l, " +%ufc",
				 p->fast_commits);
		}
		printf("%8llu %-24.24s %-15s %9llu %10llu\n",
		       (unsigned long long)p->entry, p->mark ?
		       e4s_text_escape(p->mark, mb, sizeof(mb)) : "-",
		       tids, (unsigned long long)p->blocks,
		       (unsigned long long)v);
	}
	if (!verbose)
		printf("(points without findings not shown; -v shows every "
		       "point and transaction)\n");
	if (rep->nf)
		printf("findings (a stale run found at consecutive points is "
		       "shown once):\n");
	shown = calloc(rep->nf ? rep->nf : 1, 1);
	for (i = 0; i < rep->nf; i++) {
		const struct e4_wlog_finding *f = &rep->f[i];
		size_t pi, k, n = 1;
		int64_t last = f->point;

		if (shown && shown[i])
			continue;
		/* Follow it through the next points while it recurs. */
		for (pi = 0; pi < rep->npoints &&
		     rep->points[pi].entry != (uint64_t)f->point; pi++)
			;
		while (f->kind == E4_WLOG_STALE && shown &&
		       ++pi < rep->npoints) {
			const struct e4_wlog_point *p = &rep->points[pi];

			for (k = p->first_f; k < p->first_f + p->nf; k++)
				if (!shown[k] && same_run(f, &rep->f[k]))
					break;
			if (k == p->first_f + p->nf)
				break;
			shown[k] = 1;
			last = p->entry;
			n++;
		}
		print_finding_text(f, last, n);
	}
	free(shown);
	for (i = 0; i < rep->nunchecked; i++) {
		const struct e4_wlog_unchecked *u = &rep->unchecked[i];

		if (!i)
			printf("not checked (could not be read):\n");
		printf("  entry %lld: %s", (long long)u->entry, u->what);
		if (u->ino)
			printf(" (inode %u)", u->ino);
		printf(": %s\n", error_message(u->err));
	}
	/* A point whose recovery fails is never summed up as OK. */
	printf("%s: %llu violation(s) (%llu blocks) at %llu point(s), %llu "
	       "note(s)", rep->nunchecked ? "INCOMPLETE" :
	       rep->violations ? "FAIL" :
	       rep->unrecoverable ? "UNRECOVERABLE" : "OK",
	       (unsigned long long)rep->violations,
	       (unsigned long long)rep->violation_blocks,
	       (unsigned long long)bad_points,
	       (unsigned long long)rep->notes);
	if (rep->unrecoverable)
		printf(", %llu unrecoverable point(s)",
		       (unsigned long long)rep->unrecoverable);
	printf("%s\n", rep->nunchecked ? " in what was checked" : "");
}

static void print_finding_json(struct e4s_json *js,
			       const struct e4_wlog_finding *f)
{
	e4s_json_obj_begin(js, NULL);
	e4s_json_str(js, "kind", e4_wlog_kind_name(f->kind, f->permitted));
	e4s_json_bool(js, "violation", !f->permitted);
	if (f->kind == E4_WLOG_UNRECOVERABLE) {
		e4s_json_obj_end(js);
		return;
	}
	if (f->has_tid)
		e4s_json_u64(js, "tid", f->tid);
	else
		e4s_json_null(js, "tid");
	e4s_json_u64(js, "ino", f->ino);
	e4s_json_u64(js, "generation", f->generation);
	if (f->path)
		e4s_json_str(js, "path", f->path);
	else
		e4s_json_null(js, "path");
	e4s_json_u64(js, "lblk", f->lblk);
	e4s_json_u64(js, "pblk", f->pblk);
	e4s_json_u64(js, "len", f->len);
	e4s_json_bool(js, "conversion", f->conversion);
	if (f->kind != E4_WLOG_STALE) {
		if (f->data_entry < 0)
			e4s_json_null(js, "data_entry");
		else
			e4s_json_i64(js, "data_entry", f->data_entry);
		e4s_json_i64(js, "commit_entry", f->commit_entry);
	}
	e4s_json_obj_end(js);
}

/* The witness as "E1,E2,..." into @buf (@len bytes; cut with "..."). */
static const char *witness_str(const struct e4_wlog_reorder_viol *v,
			       char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = 0;
	for (i = 0; i < v->nwitness; i++) {
		int w = snprintf(buf + o, len - o, "%s%llu", i ? "," : "",
				 (unsigned long long)v->witness[i]);

		if (w < 0 || (size_t)w >= len - o) {
			snprintf(buf + (len > 4 ? len - 4 : 0),
				 len > 4 ? 4 : len, "...");
			break;
		}
		o += (size_t)w;
	}
	return buf;
}

/* The crash-state count: exact below 2^64, else "more than 2^64". */
static void print_states(uint64_t states)
{
	if (states == UINT64_MAX)
		printf("more than 2^64");
	else
		printf("%llu", (unsigned long long)states);
}

/* What the kernel does, in words (enum e4_wlog_jkind). */
static const char *jkind_what(const struct e4_wlog_reorder_jviol *v)
{
	switch (v->kind) {
	case E4_WLOG_J_REFUSE:
		return v->csum_version >= 2 ? "its tag checksum fails: the "
			"kernel replays the other blocks, then refuses the "
			"mount" : "the commit's crc32 fails (j_failed_commit): "
			"the kernel replays the transactions before it, then "
			"refuses the mount";
	case E4_WLOG_J_GARBAGE:
		return "no journal checksum: the kernel replays the stale "
			"block into it";
	case E4_WLOG_J_LOST:
		return v->logged_copy ? "the commit's crc32 fails, an "
			"interrupted async commit: the kernel does not "
			"replay it" : "the kernel's scan ends before the "
			"commit: it is not replayed";
	}
	return "?";
}

/*
 * --reorder, text: the epochs with volatile writes or findings (all with
 * -v), then each reorder finding with its witness and the --at/--drop
 * that builds it, and a summary line.
 */
static void print_reorder_text(const struct e4_wlog_reorder_report *rr,
			       int verbose)
{
	char pb[E4S_TEXT_ESC_MAX(4096)], wb[512];
	uint64_t max_vw = 0;
	size_t i;

	for (i = 0; i < rr->nepochs; i++)
		if (rr->epochs[i].volatile_writes > max_vw)
			max_vw = rr->epochs[i].volatile_writes;
	printf("reordered states (a volatile write cache: every subset of "
	       "the writes since the last FLUSH): %zu epoch(s), at most "
	       "%llu volatile write(s) in one, ", rr->nepochs,
	       (unsigned long long)max_vw);
	print_states(rr->states);
	printf(" crash state(s); %llu new block(s) judged, %llu witness "
	       "state(s) opened\n", (unsigned long long)rr->blocks,
	       (unsigned long long)rr->witness_states);
	printf("%8s %8s %8s %8s %10s %8s\n", "flush", "last", "volatile",
	       "commits", "violations", "recovery");
	for (i = 0; i < rr->nepochs; i++) {
		const struct e4_wlog_epoch *ep = &rr->epochs[i];

		if (!verbose && !ep->violations && !ep->jviolations)
			continue;
		if (ep->flush_entry < 0)
			printf("%8s", "BASE");
		else
			printf("%8lld", (long long)ep->flush_entry);
		printf(" %8lld %8llu %8llu %10llu %8llu\n",
		       (long long)ep->last_entry,
		       (unsigned long long)ep->volatile_writes,
		       (unsigned long long)ep->commits,
		       (unsigned long long)ep->violations,
		       (unsigned long long)ep->jviolations);
	}
	if (!verbose)
		printf("(epochs without violations not shown; -v shows "
		       "every epoch)\n");
	if (rr->nv)
		printf("reorder findings (a run of blocks with one witness "
		       "is shown once):\n");
	for (i = 0; i < rr->nv; i++) {
		const struct e4_wlog_reorder_viol *v = &rr->v[i];

		printf("  tid %u: %s inode %u gen %u", v->tid,
		       !v->confirmed ? "reorder-unconfirmed" :
		       v->permitted ? "reorder-permitted" : "reorder",
		       v->ino, v->generation);
		if (v->path)
			printf(" (%s)", e4s_text_escape(v->path, pb,
							sizeof(pb)));
		printf(" lblk %llu pblk %llu len %llu: %s committed at entry "
		       "%lld, data write entry %lld lost (last FLUSH: ",
		       (unsigned long long)v->lblk,
		       (unsigned long long)v->pblk,
		       (unsigned long long)v->len,
		       v->conversion ? "conversion" : "allocation",
		       (long long)v->commit_entry, (long long)v->data_entry);
		if (v->flush_entry < 0)
			printf("none, BASE");
		else
			printf("entry %lld", (long long)v->flush_entry);
		printf("); witness: --at=%lld --drop=%s",
		       (long long)v->commit_entry,
		       witness_str(v, wb, sizeof(wb)));
		if (!v->confirmed)
			printf(" (its recovery does not expose it)");
		else if (v->permitted)
			printf(" (permitted by data=writeback)");
		printf("\n");
	}
	if (rr->njv)
		printf("reorder recovery findings (a crash state with T's "
		       "commit block but not this journal write):\n");
	for (i = 0; i < rr->njv; i++) {
		const struct e4_wlog_reorder_jviol *v = &rr->jv[i];

		printf("  tid %u: %s: commit at entry %lld, journal write "
		       "entry %lld lost (last FLUSH: ", v->tid,
		       v->confirmed ? e4_wlog_jkind_name(v->kind) :
		       "reorder-unconfirmed", (long long)v->commit_entry,
		       (long long)v->journal_entry);
		if (v->flush_entry < 0)
			printf("none, BASE");
		else
			printf("entry %lld", (long long)v->flush_entry);
		printf("): journal block %llu (fs block %llu, ",
		       (unsigned long long)v->jblk,
		       (unsigned long long)v->pblk);
		if (v->logged_copy)
			printf("the copy of block %llu",
			       (unsigned long long)v->fsblk);
		else
			printf("a descriptor or revoke block");
		printf(") stale; %s", jkind_what(v));
		printf("; witness: --at=%lld --drop=%lld",
		       (long long)v->commit_entry,
		       (long long)v->journal_entry);
		if (!v->confirmed)
			printf(" (its recovery, %s, is not that)",
			       v->action < 0 ? "not decided" :
			       e4_mount_action_name(v->action));
		printf("\n");
	}
	printf("%s: %llu reorder violation(s) (%llu blocks), %llu note(s), "
	       "%llu unconfirmed\n", rr->violations ? "FAIL" : "OK",
	       (unsigned long long)rr->violations,
	       (unsigned long long)rr->violation_blocks,
	       (unsigned long long)rr->notes,
	       (unsigned long long)rr->unconfirmed);
	printf("%s: %llu journal block(s) judged; %llu reordered state(s) "
	       "the kernel refuses, %llu it replays garbage into, %llu it "
	       "loses a commit of (notes), %llu unconfirmed\n",
	       rr->refused || rr->garbage ? "FAIL" : "OK",
	       (unsigned long long)rr->journal_blocks,
	       (unsigned long long)rr->refused,
	       (unsigned long long)rr->garbage,
	       (unsigned long long)rr->lost,
	       (unsigned long long)rr->junconfirmed);
}

static void print_reorder_json(struct e4s_json *js,
			       const struct e4_wlog_reorder_report *rr)
{
	size_t i, k;

	e4s_json_obj_begin(js, "reorder");
	e4s_json_u64(js, "epochs_count", rr->nepochs);
	if (rr->states == UINT64_MAX)
		e4s_json_null(js, "crash_states");
	else
		e4s_json_u64(js, "crash_states", rr->states);
	e4s_json_u64(js, "blocks_judged", rr->blocks);
	e4s_json_u64(js, "witness_states", rr->witness_states);
	e4s_json_arr_begin(js, "epochs");
	for (i = 0; i < rr->nepochs; i++) {
		const struct e4_wlog_epoch *ep = &rr->epochs[i];

		e4s_json_obj_begin(js, NULL);
		if (ep->flush_entry < 0)
			e4s_json_null(js, "flush_entry");
		else
			e4s_json_i64(js, "flush_entry", ep->flush_entry);
		e4s_json_i64(js, "last_entry", ep->last_entry);
		e4s_json_u64(js, "volatile_writes", ep->volatile_writes);
		e4s_json_u64(js, "commits", ep->commits);
		e4s_json_u64(js, "violations", ep->violations);
		e4s_json_u64(js, "recovery_violations", ep->jviolations);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_arr_begin(js, "findings");
	for (i = 0; i < rr->nv; i++) {
		const struct e4_wlog_reorder_viol *v = &rr->v[i];

		e4s_json_obj_begin(js, NULL);
		e4s_json_str(js, "kind", !v->confirmed ?
			     "reorder-unconfirmed" : v->permitted ?
			     "reorder-permitted" : "reorder");
		e4s_json_bool(js, "violation", v->confirmed && !v->permitted);
		e4s_json_bool(js, "confirmed", v->confirmed);
		e4s_json_u64(js, "tid", v->tid);
		e4s_json_u64(js, "ino", v->ino);
		e4s_json_u64(js, "generation", v->generation);
		if (v->path)
			e4s_json_str(js, "path", v->path);
		else
			e4s_json_null(js, "path");
		e4s_json_u64(js, "lblk", v->lblk);
		e4s_json_u64(js, "pblk", v->pblk);
		e4s_json_u64(js, "len", v->len);
		e4s_json_bool(js, "conversion", v->conversion);
		e4s_json_i64(js, "commit_entry", v->commit_entry);
		e4s_json_i64(js, "data_entry", v->data_entry);
		if (v->flush_entry < 0)
			e4s_json_null(js, "flush_entry");
		else
			e4s_json_i64(js, "flush_entry", v->flush_entry);
		if (v->freed_entry < 0)
			e4s_json_null(js, "freed_entry");
		else
			e4s_json_i64(js, "freed_entry", v->freed_entry);
		e4s_json_i64(js, "at", v->commit_entry);
		e4s_json_arr_begin(js, "witness");
		for (k = 0; k < v->nwitness; k++)
			e4s_json_u64(js, NULL, v->witness[k]);
		e4s_json_arr_end(js);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_u64(js, "violations", rr->violations);
	e4s_json_u64(js, "violation_blocks", rr->violation_blocks);
	e4s_json_u64(js, "notes", rr->notes);
	e4s_json_u64(js, "unconfirmed", rr->unconfirmed);
	e4s_json_u64(js, "journal_blocks_judged", rr->journal_blocks);
	e4s_json_arr_begin(js, "recovery_findings");
	for (i = 0; i < rr->njv; i++) {
		const struct e4_wlog_reorder_jviol *v = &rr->jv[i];

		e4s_json_obj_begin(js, NULL);
		e4s_json_str(js, "kind", e4_wlog_jkind_name(v->kind));
		e4s_json_bool(js, "violation", v->confirmed &&
			      v->kind != E4_WLOG_J_LOST);
		e4s_json_bool(js, "confirmed", v->confirmed);
		if (v->action < 0)
			e4s_json_null(js, "mount");
		else
			e4s_json_str(js, "mount",
				     e4_mount_action_name(v->action));
		e4s_json_u64(js, "tid", v->tid);
		e4s_json_i64(js, "commit_entry", v->commit_entry);
		e4s_json_i64(js, "journal_entry", v->journal_entry);
		if (v->flush_entry < 0)
			e4s_json_null(js, "flush_entry");
		else
			e4s_json_i64(js, "flush_entry", v->flush_entry);
		e4s_json_u64(js, "jblk", v->jblk);
		e4s_json_u64(js, "pblk", v->pblk);
		e4s_json_bool(js, "logged_copy", v->logged_copy);
		if (v->logged_copy)
			e4s_json_u64(js, "fsblk", v->fsblk);
		else
			e4s_json_null(js, "fsblk");
		e4s_json_str(js, "checksum_method", v->csum_version < 4 ?
			     (const char *const[]){ "none", "v1", "v2",
						    "v3" }[v->csum_version] :
			     "none");
		e4s_json_bool(js, "async_commit", v->async_commit);
		e4s_json_i64(js, "at", v->commit_entry);
		e4s_json_arr_begin(js, "witness");
		e4s_json_u64(js, NULL, (uint64_t)v->journal_entry);
		e4s_json_arr_end(js);
		e4s_json_obj_end(js);
	}
	e4s_json_arr_end(js);
	e4s_json_u64(js, "refused", rr->refused);
	e4s_json_u64(js, "garbage", rr->garbage);
	e4s_json_u64(js, "lost", rr->lost);
	e4s_json_u64(js, "recovery_unconfirmed", rr->junconfirmed);
	e4s_json_obj_end(js);
}

static void print_check_json(const struct e4s_wlog_input *in,
			     const struct e4_wlog_report *rep,
			     const struct e4_wlog_reorder_report *rr)
{
	static const char *src[] = { "given", "default_mount_opts",
				     "inferred", "assumed" };
	struct e4s_json js;
	size_t i, k;

	e4s_json_init(&js, stdout);
	e4s_json_obj_begin(&js, NULL);
	print_log_json(&js, in);
	e4s_json_str(&js, "data_mode", e4_data_mode_name(rep->data_mode));
	e4s_json_str(&js, "data_mode_source", src[rep->data_mode_src]);
	e4s_json_arr_begin(&js, "warnings");
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		e4s_json_str(&js, NULL, rep->warnings[i]);
	e4s_json_arr_end(&js);
	e4s_json_arr_begin(&js, "transactions");
	for (i = 0; i < rep->ntxns; i++) {
		const struct e4_wlog_txn *t = &rep->txns[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "tid", t->tid);
		e4s_json_u64(&js, "commit_entry", t->commit_entry);
		e4s_json_bool(&js, "checked", t->committed);
		e4s_json_u64(&js, "new_blocks", t->new_blocks);
		e4s_json_u64(&js, "conversions", t->conversions);
		e4s_json_u64(&js, "released_blocks", t->released);
		e4s_json_u64(&js, "violation_blocks", t->violations);
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_arr_begin(&js, "points");
	for (i = 0; i < rep->npoints; i++) {
		const struct e4_wlog_point *p = &rep->points[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "entry", p->entry);
		if (p->mark)
			e4s_json_str(&js, "mark", p->mark);
		else
			e4s_json_null(&js, "mark");
		e4s_json_bool(&js, "recoverable", !p->fail);
		e4s_json_arr_begin(&js, "committed_tids");
		for (k = 0; k < p->ntids; k++)
			e4s_json_u64(&js, NULL, p->tids[k]);
		e4s_json_arr_end(&js);
		e4s_json_u64(&js, "fast_commits", p->fast_commits);
		e4s_json_u64(&js, "blocks_checked", p->blocks);
		e4s_json_arr_begin(&js, "violations");
		for (k = 0; k < p->nf; k++)
			print_finding_json(&js, &rep->f[p->first_f + k]);
		e4s_json_arr_end(&js);
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_u64(&js, "violations", rep->violations);
	e4s_json_u64(&js, "violation_blocks", rep->violation_blocks);
	e4s_json_u64(&js, "notes", rep->notes);
	e4s_json_u64(&js, "unrecoverable_points", rep->unrecoverable);
	e4s_json_bool(&js, "complete", !rep->nunchecked);
	/* the text summary line's first word */
	e4s_json_str(&js, "verdict", rep->nunchecked ? "INCOMPLETE" :
		     rep->violations ? "FAIL" :
		     rep->unrecoverable ? "UNRECOVERABLE" : "OK");
	e4s_json_arr_begin(&js, "unchecked");
	for (i = 0; i < rep->nunchecked; i++) {
		const struct e4_wlog_unchecked *u = &rep->unchecked[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_i64(&js, "entry", u->entry);
		e4s_json_u64(&js, "tid", u->tid);
		e4s_json_u64(&js, "ino", u->ino);
		e4s_json_str(&js, "what", u->what);
		e4s_json_str(&js, "error", error_message(u->err));
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	if (rr)
		print_reorder_json(&js, rr);
	e4s_json_obj_end(&js);
	e4s_json_finish(&js);
}

static int run_check(const char *prog, const struct e4s_req *r,
		     struct e4s_wlog_input *in)
{
	struct e4_wlog_check_opts co;
	struct e4_wlog_report *rep = NULL;
	struct e4_wlog_reorder_report *rr = NULL;
	errcode_t retval;
	int rc;

	memset(&co, 0, sizeof(co));
	co.data_mode = r->order.data_mode;
	co.marks = r->wlog_marks;
	if (r->progress) {	/* -C FD, the meter */
		co.progress = e4s_progress_cb;
		co.progress_priv = r->progress;
	}
	/* --reorder: the prefix check and the reordered states in one
	 * pass (wlog_reorder.c). */
	if (r->wlog_reorder) {
		retval = e4_wlog_reorder(check_dev(in), &co, &rr);
		if (!retval) {
			e4_wlog_reorder_rebase(rr, in->origin);
			rep = rr->rep;
		}
	} else {
		retval = e4_wlog_check(check_dev(in), &co, &rep);
		if (!retval)
			e4_wlog_report_rebase(rep, in->origin);
	}
	if (retval) {
		com_err(prog, retval, "while checking write log %s over %s",
			in->log_path, in->base_path);
		return E4R_EXIT_ERROR;
	}
	/* As --check-order's: violations 64, a journal the kernel would
	 * refuse at a point 4 (corruption found); --reorder: a reordered
	 * state the kernel replays garbage into 64, one it refuses 4. */
	rc = (rep->violations || (rr && (rr->violations || rr->garbage)) ?
	      E4R_EXIT_VIOLATION : 0) |
		(rep->unrecoverable || (rr && rr->refused) ?
		 E4R_EXIT_CORRUPT : 0);
	if (rep->nunchecked)	/* fail closed: a partial report */
		rc |= E4R_EXIT_ERROR;
	if (r->json) {
		print_check_json(in, rep, rr);
	} else {
		print_check_text(in, rep, r->verbose);
		if (rr)
			print_reorder_text(rr, r->verbose);
	}
	if (rr)
		e4_wlog_reorder_free(rr);	/* and rep */
	else
		e4_wlog_report_free(rep);
	return rc;
}

/* ---- --check-durability -------------------------------------------------- */

/* "entries 12, 13 and 40 more" for a violation's missing entries. */
static void print_missing_text(const struct e4_wlog_dviolation *v)
{
	size_t i;

	if (!v->nmissing_total) {
		printf("; no entry missing");
		return;
	}
	printf("; missing entr%s ", v->nmissing_total == 1 ? "y" : "ies");
	for (i = 0; i < v->nmissing; i++)
		printf("%s%llu", i ? "," : "",
		       (unsigned long long)v->missing[i]);
	if (v->nmissing_total > v->nmissing)
		printf(" and %llu more", (unsigned long long)
		       (v->nmissing_total - v->nmissing));
}

static void print_dviolation_text(const struct e4_wlog_promise *pr,
				  const struct e4_wlog_dviolation *v)
{
	char pb[E4S_TEXT_ESC_MAX(4096)], mb[E4S_TEXT_ESC_MAX(512)];

	printf("  mark %llu \"%s\": ", (unsigned long long)v->mark,
	       e4s_text_escape(pr->label, mb, sizeof(mb)));
	if (v->field == E4_WLOG_D_UNRECOVERABLE) {
		printf("unrecoverable: the durable state's journal does not "
		       "recover (%s): every promise lost",
		       error_message((errcode_t)v->got));
		if (v->want == v->got)
			printf("; the promised state does not recover "
			       "either");
		else if (v->want)
			printf("; the promised state does not recover "
			       "either (%s)",
			       error_message((errcode_t)v->want));
		print_missing_text(v);
		printf("\n");
		return;
	}
	printf("%s", v->path ? e4s_text_escape(v->path, pb, sizeof(pb)) :
	       "?");
	if (v->ino)
		printf(" (inode %u)", v->ino);
	printf(": %s: ", e4_wlog_dfield_name(v->field));
	switch (v->field) {
	case E4_WLOG_D_INODE:
		printf("the file (generation %u) is not in the durable state",
		       v->generation);
		break;
	case E4_WLOG_D_NAME:
		if (v->got)
			printf("names inode %llu in the durable state",
			       (unsigned long long)v->got);
		else
			printf("does not exist in the durable state");
		break;
	case E4_WLOG_D_TYPE:
		printf("mode type 0%llo promised, 0%llo durable",
		       (unsigned long long)v->want,
		       (unsigned long long)v->got);
		break;
	case E4_WLOG_D_SIZE:
		printf("size %llu promised, %llu durable",
		       (unsigned long long)v->want,
		       (unsigned long long)v->got);
		break;
	case E4_WLOG_D_DATA:
		printf("bytes %llu-%llu differ", (unsigned long long)v->off,
		       (unsigned long long)(v->off + v->len - 1));
		break;
	case E4_WLOG_D_EXTRA:
		printf("still names inode %llu in the durable state",
		       (unsigned long long)v->got);
		break;
	}
	print_missing_text(v);
	printf("\n");
}

static void print_durable_text(const struct e4s_wlog_input *in,
			       const struct e4_wlog_durable_report *rep,
			       int verbose)
{
	char lp_txt[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* the names as text */
	char bp_txt[E4S_TEXT_ESC_MAX(PATH_MAX)];
	char pb[E4S_TEXT_ESC_MAX(4096)];
	size_t i, k, nk[5] = { 0 };

	for (i = 0; i < rep->npromises; i++)
		nk[rep->promises[i].kind]++;
	print_start_text(in);
	printf("%s: %s + %llu entries; %zu promise mark(s) checked (%zu "
	       "fsync, %zu fdatasync, %zu sync, %zu syncfs), %llu plain "
	       "mark(s)\n",
	       e4s_text_escape(in->log_path, lp_txt, sizeof(lp_txt)),
	       e4s_text_escape(in->base_path, bp_txt, sizeof(bp_txt)),
	       (unsigned long long)(in->log->nr_entries - in->origin),
	       rep->npromises,
	       nk[E4_WLOG_PROMISE_FSYNC], nk[E4_WLOG_PROMISE_FDATASYNC],
	       nk[E4_WLOG_PROMISE_SYNC], nk[E4_WLOG_PROMISE_SYNCFS],
	       (unsigned long long)rep->plain_marks);
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		printf("warning: %s\n", rep->warnings[i]);
	printf("%8s %-9s %-24s %8s %7s %10s %5s %10s\n", "entry", "promise",
	       "path", "flush", "dropped", "tids lost", "files",
	       "violations");
	for (i = 0; i < rep->npromises; i++) {
		const struct e4_wlog_promise *p = &rep->promises[i];
		char fl[24], tl[24];

		if (!verbose && !p->nv && !p->unchecked)
			continue;
		if (p->flush < 0)
			snprintf(fl, sizeof(fl), "none");
		else
			snprintf(fl, sizeof(fl), "%lld", (long long)p->flush);
		snprintf(tl, sizeof(tl), "%zu/%zu", p->tids_lost,
			 p->tids_promised);
		printf("%8llu %-9s %-24.24s %8s %7llu %10s %5llu %10zu%s\n",
		       (unsigned long long)p->entry,
		       e4_wlog_promise_name(p->kind),
		       p->path ? e4s_text_escape(p->path, pb, sizeof(pb)) :
		       "(every file)", fl, (unsigned long long)p->dropped,
		       tl, (unsigned long long)p->files, p->nv,
		       p->unchecked ? "  (not checked)" : "");
	}
	if (!verbose)
		printf("(promises kept not shown; -v shows every promise)\n");
	if (rep->nv)
		printf("violations (what the mark promised, not durable "
		       "there):\n");
	for (i = 0; i < rep->npromises; i++) {
		const struct e4_wlog_promise *p = &rep->promises[i];

		for (k = 0; k < p->nv; k++)
			print_dviolation_text(p, &rep->v[p->first_v + k]);
	}
	for (i = 0; i < rep->nunchecked; i++) {
		const struct e4_wlog_unchecked *u = &rep->unchecked[i];

		if (!i)
			printf("not checked (could not be read):\n");
		printf("  mark %lld: %s", (long long)u->entry, u->what);
		if (u->ino)
			printf(" (inode %u)", u->ino);
		printf(": %s\n", error_message(u->err));
	}
	printf("%s: %zu violation(s) of %llu promise(s) of %zu%s\n",
	       rep->nunchecked ? "INCOMPLETE" : rep->nv ? "FAIL" : "OK",
	       rep->nv, (unsigned long long)rep->broken, rep->npromises,
	       rep->nunchecked ? " in what was checked" : "");
}

static void print_durable_json(const struct e4s_wlog_input *in,
			       const struct e4_wlog_durable_report *rep)
{
	struct e4s_json js;
	size_t i, k, j;

	e4s_json_init(&js, stdout);
	e4s_json_obj_begin(&js, NULL);
	print_log_json(&js, in);
	e4s_json_arr_begin(&js, "warnings");
	for (i = 0; i < (size_t)rep->nwarnings; i++)
		e4s_json_str(&js, NULL, rep->warnings[i]);
	e4s_json_arr_end(&js);
	e4s_json_u64(&js, "plain_marks", rep->plain_marks);
	e4s_json_arr_begin(&js, "promises");
	for (i = 0; i < rep->npromises; i++) {
		const struct e4_wlog_promise *p = &rep->promises[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "entry", p->entry);
		e4s_json_str(&js, "mark", p->label);
		e4s_json_str(&js, "promise", e4_wlog_promise_name(p->kind));
		if (p->path)
			e4s_json_str(&js, "path", p->path);
		else
			e4s_json_null(&js, "path");
		if (p->flush < 0)
			e4s_json_null(&js, "flush_entry");
		else
			e4s_json_i64(&js, "flush_entry", p->flush);
		e4s_json_u64(&js, "dropped_entries", p->dropped);
		e4s_json_bool(&js, "name_promised", p->name_promised);
		e4s_json_u64(&js, "files", p->files);
		e4s_json_u64(&js, "tids_promised", p->tids_promised);
		e4s_json_u64(&js, "tids_lost", p->tids_lost);
		e4s_json_bool(&js, "checked", !p->unchecked);
		e4s_json_arr_begin(&js, "violations");
		for (k = 0; k < p->nv; k++) {
			const struct e4_wlog_dviolation *v =
				&rep->v[p->first_v + k];

			e4s_json_obj_begin(&js, NULL);
			e4s_json_str(&js, "field",
				     e4_wlog_dfield_name(v->field));
			if (v->path)
				e4s_json_str(&js, "path", v->path);
			else
				e4s_json_null(&js, "path");
			e4s_json_u64(&js, "ino", v->ino);
			e4s_json_u64(&js, "generation", v->generation);
			switch (v->field) {
			case E4_WLOG_D_UNRECOVERABLE:
				e4s_json_str(&js, "error", error_message(
						     (errcode_t)v->got));
				if (v->want)
					e4s_json_str(&js, "promised_error",
						     error_message((errcode_t)
								   v->want));
				else
					e4s_json_null(&js, "promised_error");
				break;
			case E4_WLOG_D_DATA:
				e4s_json_u64(&js, "offset", v->off);
				e4s_json_u64(&js, "length", v->len);
				break;
			case E4_WLOG_D_INODE:
				break;
			default:
				e4s_json_u64(&js, "promised", v->want);
				e4s_json_u64(&js, "durable", v->got);
			}
			e4s_json_arr_begin(&js, "missing_entries");
			for (j = 0; j < v->nmissing; j++)
				e4s_json_u64(&js, NULL, v->missing[j]);
			e4s_json_arr_end(&js);
			e4s_json_u64(&js, "missing_total", v->nmissing_total);
			e4s_json_obj_end(&js);
		}
		e4s_json_arr_end(&js);
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_u64(&js, "violations", rep->nv);
	e4s_json_u64(&js, "broken_promises", rep->broken);
	e4s_json_bool(&js, "complete", !rep->nunchecked);
	/* the text summary line's first word */
	e4s_json_str(&js, "verdict", rep->nunchecked ? "INCOMPLETE" :
		     rep->nv ? "FAIL" : "OK");
	e4s_json_arr_begin(&js, "unchecked");
	for (i = 0; i < rep->nunchecked; i++) {
		const struct e4_wlog_unchecked *u = &rep->unchecked[i];

		e4s_json_obj_begin(&js, NULL);
		e4s_json_i64(&js, "entry", u->entry);
		e4s_json_u64(&js, "ino", u->ino);
		e4s_json_str(&js, "what", u->what);
		e4s_json_str(&js, "error", error_message(u->err));
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_end(&js);
	e4s_json_obj_end(&js);
	e4s_json_finish(&js);
}

static int run_durable(const char *prog, const struct e4s_req *r,
		       struct e4s_wlog_input *in)
{
	struct e4_wlog_durable_report *rep = NULL;
	struct e4_wlog_check_opts co;
	errcode_t retval;
	int rc;

	memset(&co, 0, sizeof(co));
	if (r->progress) {	/* -C FD, the meter */
		co.progress = e4s_progress_cb;
		co.progress_priv = r->progress;
	}
	retval = e4_wlog_durable_check_opts(check_dev(in), &co, &rep);
	if (!retval)
		e4_wlog_durable_rebase(rep, in->origin);
	if (retval) {
		com_err(prog, retval, "while checking the durability promises "
			"of write log %s over %s", in->log_path,
			in->base_path);
		return E4R_EXIT_ERROR;
	}
	/* As --check-order's: violations 64; a partial report 8. */
	rc = rep->nv ? E4R_EXIT_VIOLATION : 0;
	if (rep->nunchecked)
		rc |= E4R_EXIT_ERROR;
	if (r->json)
		print_durable_json(in, rep);
	else
		print_durable_text(in, rep, r->verbose);
	e4_wlog_durable_report_free(rep);
	return rc;
}

/* ---- --stats ------------------------------------------------------------ */

/*
 * --stats: the commit writes' figures (libe4's e4_wlog_stats()), printed
 * after the journal statistics of the device at the log's last entry
 * (replay_stats.c, read through the write-log io_manager).
 */
static int run_stats(const char *prog, const struct e4s_req *r,
		     struct e4s_wlog_input *in)
{
	struct e4_wlog_stats *ws = NULL;
	struct e4s_stats_wlog wl;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;
	char where[4200];
	int rc;

	retval = e4_wlog_stats(check_dev(in), &ws);
	if (retval) {
		com_err(prog, retval, "while finding the commit writes of "
			"write log %s over %s", in->log_path, in->base_path);
		return E4R_EXIT_ERROR;
	}
	e4_wlog_stats_rebase(ws, in->origin);
	if (!r->json)
		print_start_text(in);
	memset(&wl, 0, sizeof(wl));
	wl.log_path = in->log_path;
	wl.base_path = in->base_path;
	wl.point = (int64_t)in->log->nr_entries - 1;
	wl.start_entry = in->origin;
	wl.no_fs_points = in->nofs;
	wl.ws = ws;
	e4_wlog_dev_set_point(in->dev, wl.point);
	if (wl.point < 0)
		snprintf(where, sizeof(where), "%s (write log %s has no "
			 "entries)", in->base_path, in->log_path);
	else
		snprintf(where, sizeof(where), "%s at entry %lld of %s",
			 in->base_path, (long long)wl.point, in->log_path);
	retval = ext2fs_open2(e4_wlog_dev_name(in->dev), "",
			      EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP |
			      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			      e4_wlog_io_manager, &fs);
	if (retval) {
		com_err(prog, retval, "while opening the file system of %s",
			where);
		rc = E4R_EXIT_ERROR;
		goto out;
	}
	retval = e4s_open_journal(prog, fs, NULL, 0, &j);
	if (retval) {
		com_err(prog, retval, "while opening the journal of %s", where);
		rc = E4R_EXIT_ERROR;
		goto out;
	}
	rc = e4s_stats_run_wlog(prog, r, where, j, &wl);
out:
	if (j)
		e4_journal_close(j);
	if (fs)
		ext2fs_close_free(&fs);
	e4_wlog_stats_free(ws);
	return rc;
}

/* ---- the run ------------------------------------------------------------ */

int e4s_wlog_run(const char *prog, const struct e4s_req *r)
{
	struct e4s_target t[4] = {
		{ .what = "BASE", .path = r->device, .flags = E4S_T_ANY },
		{ .what = "LOG", .path = r->write_log, .flags = E4S_T_ANY },
		{ .what = "OUTPUT", .path = r->output,
		  .flags = E4S_T_WRITE | E4S_T_CREATE | E4S_T_REG |
			  E4S_T_BLK },
		{ .what = "--plot", .path = r->plot,
		  .flags = E4S_T_WRITE | E4S_T_CREATE | E4S_T_REG },
	};
	struct e4s_wlog_input in;
	const char *bad = NULL;
	int modes = r->wlog_list + !!r->wlog_at + r->check_order + r->stats +
		r->check_durability, rc;
	errcode_t retval;

	if (!r->write_log || !*r->write_log || modes != 1) {
		fprintf(stderr, "%s: --write-log=LOG takes one of --list, "
			"--at=ENTRY|MARK, --check-order, --check-durability "
			"and --stats\n", prog);
		return E4R_EXIT_USAGE;
	}
	if (r->output && !r->wlog_at)
		bad = "-o goes with --at";
	else if (r->dry_run && (r->output || !(r->wlog_at || r->stats)))
		bad = "-n goes with --at, without -o, and with --stats";
	else if (r->order_opt_set &&
		 (!r->check_order || r->order.outside >= 0 ||
		  r->order.stamped >= 0 || r->order.list_mappings))
		bad = "--data-mode goes with --check-order; --outside, "
			"--stamped and --list-mappings do not go with "
			"--write-log";
	else if (r->journal_dev || r->undo_file || r->journal_output ||
		 r->upto_set || r->replay_in_place || r->ignore_fc ||
		 r->replay_anyway)
		bad = "-j, -z, --journal-output, --upto, --replay, "
			"--ignore-fast-commit and --replay-anyway do not go "
			"with --write-log";
	else if (r->wlog_marks && (r->wlog_at || r->stats))
		bad = "--marks goes with --list and --check-order";
	else if (r->wlog_reorder && !r->check_order)
		bad = "--reorder goes with --check-order";
	else if (r->wlog_drop && !r->wlog_at)
		bad = "--drop goes with --at";
	else if (r->stats_all || (r->plot && !r->stats))
		bad = "--all does not go with --write-log; --plot goes with "
			"--stats";
	else if (r->wlog_durable && !r->wlog_at)
		bad = "--durable goes with --at";
	else if (r->wlog_start_mark && r->wlog_start_entry)
		bad = "--start-mark and --start-entry both say where the log "
			"starts: give one";
	else if (r->verbose && r->stats)
		bad = "-v does not go with --write-log --stats (every commit "
			"write is listed)";
	if (bad) {
		fprintf(stderr, "%s: %s\n", prog, bad);
		return E4R_EXIT_USAGE;
	}
	/* Every file named, checked before anything is opened: LOG and
	 * BASE only read, OUTPUT (--at -o) written, all distinct. */
	if (r->output && e4s_size_bytes(r->device, &t[2].min_bytes))
		t[2].min_bytes = 0;
	rc = e4s_stats_check_plot(prog, r->plot, r->device, NULL);
	if (rc)
		return rc;
	retval = e4s_check_targets(prog, t, 4);
	if (retval)
		return e4s_usage_error(retval) ? E4R_EXIT_USAGE :
			E4R_EXIT_ERROR;
	rc = E4R_EXIT_ERROR;
	retval = e4s_wlog_open(prog, r, &in);
	if (retval == E4_ERR_WLOG_NO_SUCH_MARK ||
	    retval == E4_ERR_WLOG_NO_SUCH_ENTRY)
		rc = E4R_EXIT_USAGE;	/* --start-mark, --start-entry */
	if (!retval) {
		if (r->wlog_list) {
			e4s_wlog_print_list(&in, r->json, r->wlog_marks);
			rc = 0;
		} else if (r->wlog_at) {
			rc = run_at(prog, r, &in);
		} else if (r->stats) {
			rc = run_stats(prog, r, &in);
		} else if (r->check_durability) {
			rc = run_durable(prog, r, &in);
		} else {
			rc = run_check(prog, r, &in);
		}
		e4s_wlog_close(&in);
	}
	e4s_release_targets(t, 4);
	return rc;
}
