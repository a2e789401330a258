/*
 * tune_unwritten.c --- the unwritten-extent part of e4tune and of
 * e4debug's lsuw and mark_*: list unwritten
 * extents of files or of the whole fs (--list-unwritten), and mark ranges
 * of a file unwritten or written (--mark-unwritten, --mark-written)
 * through libe4's unwritten.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "e4.h"
#include "open.h"
#include "parse.h"
#include "tune.h"

int e4s_tune_unwritten_wants_write(const struct e4s_req *o)
{
	return o->uw_nmarks > 0;
}

/* FILE is "<ino>" or a path inside the fs (from the root). */
static errcode_t resolve(ext2_filsys fs, const char *file, ext2_ino_t *ino)
{
	size_t len = strlen(file);
	uint64_t n;

	if (file[0] == '<') {
		if (len < 3 || file[len - 1] != '>' ||
		    e4s_scan_num(file + 1, len - 2, UINT64_MAX, &n))
			return EXT2_ET_FILE_NOT_FOUND;
		if (n == 0 || n > fs->super->s_inodes_count)
			return E4_ERR_BAD_INODE_NUMBER;
		*ino = (ext2_ino_t)n;
		return 0;
	}
	return ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, file, ino);
}

/* ---- listing ---- */

struct list_ctx {
	const char		*prog;
	const char		*device;
	struct e4s_json		*js;
	const char		*path;	/* file being listed, or NULL */
	int			header;
	int			nerrors;
};

static void print_header(struct list_ctx *c)
{
	if (c->header || c->js)
		return;
	printf("%10s %23s %27s %6s %s\n", "Inode", "Logical blocks",
	       "Physical blocks", "Length", "Flags");
	c->header = 1;
}

/* @v right-aligned in @width columns at @p, then a space; returns the end.
 * (A fs-wide listing prints a line per extent: printf was half its time.) */
static char *put_u64(char *p, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (width-- > n)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	*p++ = ' ';
	return p;
}

/* "%10u %10llu - %10llu %12llu - %12llu %6llu %s\n" */
static void print_row(const struct e4_extent_rec *r)
{
	char line[160], *p = line;

	p = put_u64(p, r->ino, 10);
	p = put_u64(p, r->lblk, 10);
	*p++ = '-';
	*p++ = ' ';
	p = put_u64(p, r->lblk + r->len - 1, 10);
	p = put_u64(p, r->pblk, 12);
	*p++ = '-';
	*p++ = ' ';
	p = put_u64(p, r->pblk + r->len - 1, 12);
	p = put_u64(p, r->len, 6);
	if (r->unwritten) {
		memcpy(p, "unwritten", 9);
		p += 9;
	}
	*p++ = '\n';
	fwrite(line, 1, p - line, stdout);
}

static int list_cb(ext2_filsys fs EXT2FS_ATTR((unused)),
		   const struct e4_extent_rec *r, void *priv)
{
	struct list_ctx *c = priv;

	if (r->error) {
		com_err(c->prog, r->error, "while reading the extent tree of "
			"inode %u on %s", r->ino, c->device);
		c->nerrors++;
		if (c->js) {
			e4s_json_obj_begin(c->js, NULL);
			e4s_json_u64(c->js, "ino", r->ino);
			e4s_json_str(c->js, "error", error_message(r->error));
			e4s_json_obj_end(c->js);
		}
		return 0;
	}
	if (c->js) {
		e4s_json_obj_begin(c->js, NULL);
		e4s_json_u64(c->js, "ino", r->ino);
		if (c->path)
			e4s_json_str(c->js, "file", c->path);
		e4s_json_u64(c->js, "lblk", r->lblk);
		e4s_json_u64(c->js, "pblk", r->pblk);
		e4s_json_u64(c->js, "len", r->len);
		e4s_json_bool(c->js, "unwritten", r->unwritten);
		e4s_json_obj_end(c->js);
		return 0;
	}
	print_header(c);
	print_row(r);
	return 0;
}

static void print_totals(const struct e4_extent_totals *t,
			 struct e4s_json *js)
{
	if (js) {
		e4s_json_obj_begin(js, "totals");
		e4s_json_u64(js, "files", t->files);
		e4s_json_u64(js, "files_unwritten", t->files_unwritten);
		e4s_json_u64(js, "extents", t->extents);
		e4s_json_u64(js, "blocks", t->blocks);
		e4s_json_u64(js, "unwritten_extents", t->unwritten_extents);
		e4s_json_u64(js, "unwritten_blocks", t->unwritten_blocks);
		e4s_json_u64(js, "bad_inodes", t->bad_inodes);
		e4s_json_obj_end(js);
		return;
	}
	printf("Files with unwritten extents: %llu\n",
	       (unsigned long long)t->files_unwritten);
	printf("Unwritten extents:            %llu\n",
	       (unsigned long long)t->unwritten_extents);
	printf("Unwritten blocks:             %llu\n",
	       (unsigned long long)t->unwritten_blocks);
	printf("Extent files walked:          %llu\n",
	       (unsigned long long)t->files);
	printf("Extents walked:               %llu\n",
	       (unsigned long long)t->extents);
	printf("Unreadable extent trees:      %llu\n",
	       (unsigned long long)t->bad_inodes);
}

int e4s_tune_unwritten_list(const char *prog, const struct e4s_req *o,
			  ext2_filsys fs, struct e4s_json *js)
{
	struct e4_extent_totals t;
	struct e4_replayed rs;
	struct list_ctx c;
	int flags = o->verbose ? 0 : E4_EXT_UNWRITTEN_ONLY;
	int i, rc = 0, unreplayed = e4s_needs_recovery(fs), nseen = 0;
	errcode_t retval;
	ext2_ino_t ino, *seen = NULL;

	memset(&t, 0, sizeof(t));
	memset(&c, 0, sizeof(c));
	c.prog = prog;
	c.device = o->device;
	c.js = js;
	memset(&rs, 0, sizeof(rs));
	if (o->uw_replayed) {
		/* State S_n through the overlay: nothing is written. */
		retval = e4s_open_replayed(prog, fs, o->journal_dev, &rs);
		if (retval) {
			com_err(prog, retval, "while reading the replayed "
				"state of %s", o->device);
			return 1;
		}
		fs = rs.fs;
		unreplayed = 0;
	}
	if (js) {
		e4s_json_obj_begin(js, "unwritten");
		e4s_json_str(js, "scope", o->uw_nfiles ? "files" : "fs");
		e4s_json_bool(js, "all_extents", o->verbose);
		e4s_json_bool(js, "unreplayed_journal", unreplayed);
		e4s_json_bool(js, "replayed_state", o->uw_replayed);
		e4s_json_arr_begin(js, "extents");
	} else if (unreplayed) {
		printf("Note: the journal needs recovery; this lists the "
		       "unreplayed image (replay it first to see the state "
		       "the kernel would mount)\n");
	}
	if (!o->uw_nfiles) {
		retval = e4_fs_extents(fs, flags, list_cb, &c, &t);
		if (retval) {
			com_err(prog, retval, "while scanning the inodes of %s",
				o->device);
			rc = 1;
		}
	}
	if (o->uw_nfiles) {
		retval = ext2fs_get_array(o->uw_nfiles, sizeof(*seen), &seen);
		if (retval) {
			com_err(prog, retval, "while listing %s", o->device);
			rc = 1;
		}
	}
	for (i = 0; i < o->uw_nfiles && !rc; i++) {
		int k, dup = 0;

		c.path = o->uw_files[i];
		retval = resolve(fs, o->uw_files[i], &ino);
		/* An inode named twice (hard links, the same name or <ino>
		 * again) is listed and counted once: the totals count
		 * inodes, as the fs-wide listing does. */
		for (k = 0; !retval && k < nseen; k++)
			dup |= seen[k] == ino;
		if (dup) {
			if (!js)
				printf("%s: inode %u, listed above\n",
				       o->uw_files[i], ino);
			continue;
		}
		if (!retval) {
			seen[nseen++] = ino;
			retval = e4_inode_extents(fs, ino, flags, list_cb, &c,
						  &t);
		}
		if (retval) {
			com_err(prog, retval, "while listing the extents of "
				"%s on %s", o->uw_files[i], o->device);
			rc = 1;
		}
	}
	/* Fail closed: a read error below the replayed state means blocks
	 * libext2fs skipped, so the listing is partial. */
	retval = rs.ov ? e4_overlay_error(rs.ov) : 0;
	if (retval) {
		com_err(prog, retval, "while reading the replayed state of %s: "
			"the listing is partial", o->device);
		rc = 1;
	}
	if (js) {
		e4s_json_arr_end(js);
		print_totals(&t, js);
		e4s_json_bool(js, "complete", !rc && !c.nerrors);
		e4s_json_obj_end(js);
	} else if (!rc) {
		print_header(&c);
		print_totals(&t, NULL);
		if (c.nerrors)
			printf("Listing incomplete: %d extent tree(s) could "
			       "not be read (see the errors)\n", c.nerrors);
	}
	e4_replayed_close(&rs);
	ext2fs_free_mem(&seen);
	return rc || c.nerrors ? 1 : 0;
}

/* ---- marking ---- */

static void print_result(const char *prog, const struct e4s_mark *m,
			 ext2_ino_t ino, const struct e4_mark_result *r,
			 int dry_run)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	printf("%s: %s blocks %llu-%llu of %s (inode %u) %s: %llu blocks in "
	       "%llu extents changed, %llu already so, %llu in holes skipped, "
	       "%llu zeroed",
	       prog, dry_run ? "would mark" : "marked",
	       (unsigned long long)m->lblk,
	       (unsigned long long)(m->lblk + m->len - 1),
	       e4s_text_escape(m->file, shown, sizeof(shown)), ino,
	       m->unwritten ? "unwritten" : "written",
	       (unsigned long long)r->blocks_changed,
	       (unsigned long long)r->extents_changed,
	       (unsigned long long)r->unchanged_blocks,
	       (unsigned long long)r->hole_blocks,
	       (unsigned long long)r->blocks_zeroed);
	if (!dry_run)
		printf(", %llu merges", (unsigned long long)r->merges);
	if (!dry_run && r->journaled)
		printf("; through the journal: tid %u, %llu blocks",
		       r->txn.tid, (unsigned long long)r->txn.nblocks);
	else if (!dry_run && r->extents_changed)
		printf("; in place (no journal)");
	printf("\n");
}

/*
 * Recover the journal first, as tune2fs does for a read-write open
 * ("Recovering journal."): marks made under a log that still needs
 * replaying would be overwritten by it.  This also finishes a mark that
 * an interruption left committed but not checkpointed.  Returns the
 * tool's exit status.
 */
static int recover(const char *prog, const struct e4s_req *o,
		   ext2_filsys fs)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	struct e4_replay_result rr;
	struct e4_jscan *scan = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;

	e4_replay_result_init(&rr, sizeof(rr));
	retval = e4s_open_journal(prog, fs, o->journal_dev, E4_JOURNAL_RW, &j);
	if (!retval)
		retval = e4_journal_scan(j, 0, 0, &scan);
	if (!retval && scan->fail)
		retval = scan->fail;
	if (!retval) {
		printf("%s: recovering the journal of %s: %zu transactions\n",
		       prog, e4s_text_escape(o->device, shown, sizeof(shown)),
		       scan->ncommitted);
		/* fast commits too (fc_state.c) */
		retval = e4_journal_recover(j, scan, &rr);
	}
	if (!retval)
		retval = e4_fs_reload(fs);
	if (!retval)
		retval = e4_journal_close(j);
	else
		e4_journal_close(j);
	e4_jscan_free(scan);
	if (retval) {
		com_err(prog, retval, "while recovering the journal of %s "
			"(the log is still there: run again, or replay it "
			"with e4replay)", o->device);
		return 1;
	}
	if (rr.fs_error || rr.fs_not_valid) {
		fprintf(stderr, "%s: %s: the journal recorded errors: run "
			"e2fsck -f before marking extents\n", prog, o->device);
		return 1;
	}
	return 0;
}

/*
 * The journal the marks are written through (e4_mark_range(): one
 * transaction each, so an interruption never leaves a file with blocks
 * unmapped), or NULL when the fs has none or -f writes past a log that
 * needs recovery (in place, as before).
 */
static int open_journal(const char *prog, const struct e4s_req *o,
			ext2_filsys fs, int rw, e4_journal_t *ret)
{
	const char *hint = "";
	errcode_t retval;

	*ret = NULL;
	if (!ext2fs_has_feature_journal(fs->super) ||
	    (o->force && e4s_needs_recovery(fs)))
		return 0;
	retval = e4s_open_journal(prog, fs, o->journal_dev, rw ? E4_JOURNAL_RW : 0,
				 ret);
	if (!retval && (*ret)->jsb.start && !o->force) {
		retval = E4_ERR_NEEDS_RECOVERY;
		hint = " (its log is not empty though needs_recovery is "
			"clear: e4replay --replay-anyway or e2fsck decide)";
	} else if (!retval && (*ret)->jsb.start) {
		e4_journal_close(*ret);		/* -f: in place */
		*ret = NULL;
	} else if (!retval && (*ret)->jsb.errno_) {
		retval = E4_ERR_TXN_JOURNAL_ERRNO;
		hint = " (e4tune -E clear_journal_errno, or e2fsck -f)";
	}
	if (!retval)
		return 0;
	com_err(prog, retval, "while opening the journal of %s%s",
		o->journal_dev ? o->journal_dev : o->device, hint);
	e4_journal_close(*ret);
	*ret = NULL;
	return 1;
}

/*
 * A log that the kernel would replay only in part (checksum failures,
 * copies past the fs end or in the journal, a failed commit) or that
 * records an error: marks are refused before anything is written, so
 * e2fsck sees the image as it was.  Returns the tool's exit status.
 */
static int check_log(const char *prog, const struct e4s_req *o,
		     const struct e4_plan *plan)
{
	const struct e4_jscan *scan = plan->scan;
	struct e4_replay_result rr;
	errcode_t retval;

	e4_replay_result_init(&rr, sizeof(rr));
	e4_plan_result(scan, plan, &rr);
	retval = scan->fail;
	if (!retval && (scan->corrupt || scan->has_failed_commit ||
			rr.nbad_csum || rr.nbad_block || plan->j->jsb.errno_))
		retval = E4_ERR_JOURNAL_CORRUPT;
	if (!retval)
		return 0;
	com_err(prog, retval, "in the journal of %s: not marking: the "
		"kernel would replay this log only in part%s (`e4replay -n %s` "
		"shows what; e4replay replays what the kernel would; "
		"e2fsck -fy %s)", o->device, scan->fail ? " or refuse it" : "",
		o->device, scan->fail ? "discards the whole log here" :
		"replays the same and checks the fs");
	return 1;
}

/*
 * Run every mark on @fs: a dry run (@write 0: validation, printed when
 * @print) or the real one.  Returns the tool's exit status.
 */
static int run_marks(const char *prog, const struct e4s_req *o,
		     ext2_filsys fs, e4_journal_t j, int write, int print)
{
	struct e4_mark_result r;
	ext2_ino_t ino;
	errcode_t retval;
	int i, flags;

	for (i = 0; i < o->uw_nmarks; i++) {
		const struct e4s_mark *m = &o->uw_marks[i];

		retval = resolve(fs, m->file, &ino);
		if (retval) {
			com_err(prog, retval, "while looking up %s on %s",
				m->file, o->device);
			return 1;
		}
		flags = m->unwritten ? E4_MARK_UNWRITTEN : E4_MARK_WRITTEN;
		if (o->keep_contents)
			flags |= E4_MARK_KEEP_CONTENTS;
		if (o->skip_holes)
			flags |= E4_MARK_SKIP_HOLES;
		if (!write)
			flags |= E4_MARK_DRY_RUN;
		retval = e4_mark_range(fs, write ? j : NULL, ino, m->lblk,
				       m->len, flags, &r);
		if (retval >= E4_ERR_BLOCK_OUTSIDE_FS &&
		    retval <= E4_ERR_BLOCK_OWNER_UNKNOWN) {
			/* one line: the block and its owner; nothing
			 * written (-n says the same) */
			fprintf(stderr, "%s: %s blocks %llu+%llu of %s "
				"(inode %u) %s on %s: block %llu is %s (%s); "
				"nothing written\n", prog, o->dry_run ?
				"would not mark" : "not marking",
				(unsigned long long)m->lblk,
				(unsigned long long)m->len, m->file, ino,
				m->unwritten ? "unwritten" : "written",
				o->device, (unsigned long long)r.conflict.blk,
				r.conflict.desc, error_message(retval));
			return 1;
		}
		if (retval) {
			com_err(prog, retval, "while marking blocks %llu+%llu "
				"of %s on %s %s", (unsigned long long)m->lblk,
				(unsigned long long)m->len, m->file, o->device,
				m->unwritten ? "unwritten" : "written");
			return 1;
		}
		if (print)
			print_result(prog, m, ino, &r, !write);
	}
	return 0;
}

int e4s_tune_unwritten_write(const char *prog, const struct e4s_req *o,
			   ext2_filsys fs)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	struct e4_replayed rs;
	e4_journal_t j = NULL;
	errcode_t retval;
	int rc;

	/*
	 * A journal that needs recovery: validate (or dry-run) against the
	 * replayed state, read through the overlay, so that bad input
	 * writes nothing; then recover for real.  -f marks the image as it
	 * is (a later recovery may overwrite the marks).
	 */
	if (e4s_needs_recovery(fs) && !o->force) {
		memset(&rs, 0, sizeof(rs));
		retval = e4s_open_replayed(prog, fs, o->journal_dev, &rs);
		if (retval) {
			com_err(prog, retval, "while reading the replayed "
				"state of %s", o->device);
			return 1;
		}
		rc = rs.plan ? check_log(prog, o, rs.plan) : 0;
		if (!rc)
			rc = run_marks(prog, o, rs.fs, NULL, 0, o->dry_run);
		e4_replayed_close(&rs);
		if (rc)
			return rc;
		if (o->dry_run) {
			printf("%s: %s: the journal needs recovery; the run "
			       "would recover it first (counts above are of "
			       "the replayed state)\n", prog,
			       e4s_text_escape(o->device, shown,
					       sizeof(shown)));
			return 0;
		}
		if (recover(prog, o, fs))
			return 1;
	}
	/* Validate everything (a dry run), the journal too, then write. */
	rc = run_marks(prog, o, fs, NULL, 0, o->dry_run);
	if (!rc)
		rc = open_journal(prog, o, fs, !o->dry_run, &j);
	if (rc || o->dry_run) {
		e4_journal_close(j);
		return rc;
	}
	rc = run_marks(prog, o, fs, j, 1, 1);
	retval = e4_journal_close(j);
	if (retval && !rc) {
		com_err(prog, retval, "while closing the journal of %s",
			o->device);
		rc = 1;
	}
	return rc;
}
