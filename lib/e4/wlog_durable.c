/*
 * wlog_durable.c --- durability promises recorded as MARK entries of a
 * dm-log-writes log (e4tools issue 27): at each "fsync PATH",
 * "fdatasync PATH", "sync" or "syncfs" mark, the file the promise names
 * in the promised state (every entry up to the mark, the journal
 * recovered) against the durable state (only what a power cut right
 * after the mark keeps: entries before the last FLUSH, FUA writes).
 *
 * The rule's sources: POSIX fsync()/fdatasync() (the file's data and
 * metadata, resp. what reading the data back needs, on stable storage
 * when the call returns); ext4_sync_file() and ext4_sync_fs() (a jbd2
 * commit, or a cache flush when no commit is needed); dm-log-writes'
 * flush tracking (a FLUSH is logged after every write completed before
 * it); xfstests generic/455 and 457 (replay-log to a mark, compare the
 * files fsync'ed before it).
 *
 * Both states are read through overlays (overlay_io.c) on write-log
 * devices (wlog_io.c): the caller's device for the promised state, a
 * clone with the non-durable entries dropped for the durable one, and a
 * third (kept open while it does not move) for the state at the last
 * promise for a file's parent directory.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4_int.h"

#define MAX_DEPTH	256	/* directory levels walked for sync */

/* ---- the grammar --------------------------------------------------------- */

static const char *const promise_names[] = {
	"mark", "fsync", "fdatasync", "sync", "syncfs"
};

int e4_wlog_promise_parse(const char *label, const char **path)
{
	if (path)
		*path = NULL;
	if (!label)
		return E4_WLOG_PROMISE_NONE;
	if (!strcmp(label, "sync"))
		return E4_WLOG_PROMISE_SYNC;
	if (!strcmp(label, "syncfs"))
		return E4_WLOG_PROMISE_SYNCFS;
	if (!strncmp(label, "fsync ", 6) && label[6] &&
	    label[strlen(label) - 1] != ' ') {
		if (path)
			*path = label + 6;
		return E4_WLOG_PROMISE_FSYNC;
	}
	if (!strncmp(label, "fdatasync ", 10) && label[10] &&
	    label[strlen(label) - 1] != ' ') {
		if (path)
			*path = label + 10;
		return E4_WLOG_PROMISE_FDATASYNC;
	}
	return E4_WLOG_PROMISE_NONE;
}

const char *e4_wlog_promise_name(int kind)
{
	if (kind < 0 || kind > E4_WLOG_PROMISE_SYNCFS)
		return "?";
	return promise_names[kind];
}

static const char *const field_names[E4_WLOG_D_NFIELDS] = {
	"unrecoverable", "inode", "name", "type", "size", "data", "extra"
};

const char *e4_wlog_dfield_name(int field)
{
	if (field < 0 || field >= E4_WLOG_D_NFIELDS)
		return "?";
	return field_names[field];
}

/* ---- what is durable at a mark ------------------------------------------- */

errcode_t e4_wlog_durable_drop(e4_wlog_t log, uint64_t m, int64_t *flush,
			       uint64_t **drop, size_t *n)
{
	int64_t f = -1;
	uint64_t i;
	size_t k = 0;
	errcode_t retval;

	e4_error_tables_init();
	*drop = NULL;
	*n = 0;
	*flush = -1;
	if (m >= log->nr_entries)
		return EXT2_ET_INVALID_ARGUMENT;
	for (i = m + 1; i-- > 0;)
		if (log->ents[i].flags & E4_WLOG_FLUSH) {
			f = (int64_t)i;
			break;
		}
	*flush = f;
	for (i = f < 0 ? 0 : (uint64_t)f; i <= m; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		if (e->nr_sectors && !(e->flags & E4_WLOG_FUA))
			k++;
	}
	if (!k)
		return 0;
	retval = ext2fs_get_array(k, sizeof(**drop), drop);
	if (retval)
		return retval;
	for (i = f < 0 ? 0 : (uint64_t)f; i <= m; i++) {
		const struct e4_wlog_entry *e = &log->ents[i];

		if (e->nr_sectors && !(e->flags & E4_WLOG_FUA))
			(*drop)[(*n)++] = i;
	}
	return 0;
}

/* ---- states -------------------------------------------------------------- */

/* The device at its point, recovered as the kernel's mount would. */
struct dstate {
	ext2_filsys		dfs;	/* the device's fs (not recovered) */
	struct e4_replayed	rp;	/* rp.fs: the recovered state */
	errcode_t		fail;	/* the kernel's recovery fails (or
					 * no fs): the state is lost */
};

struct lost {
	uint32_t	tid;
	int64_t		entry;		/* its commit write, -1 unknown */
};

struct dctx {
	e4_wlog_dev_t		d, dd;	/* promised, durable (clone) */
	e4_wlog_dev_t		dp;	/* the parents' last promises
					 * (clone) */
	struct dstate		ps;	/* the state there, kept open */
	int64_t			ps_point;	/* its point; -2 none */
	e4_wlog_t		log;
	struct e4_wlog_durable_report *rep;
	size_t			apromises, av, aunchecked;
	uint64_t		spb;	/* log sectors per fs block */
	/* the mark being checked */
	struct e4_wlog_promise	*pr;
	uint64_t		*drop;
	size_t			ndrop;
	struct lost		*lost;	/* its lost commits */
	size_t			nlost, alost;
	struct dstate		*o, *p;	/* promised, durable */
	unsigned char		*obuf, *pbuf;	/* one fs block each */
	unsigned int		bs;
};

static void warn(struct e4_wlog_durable_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct e4_wlog_durable_report *rep, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	e4_vadd_warning(rep->warnings[0], sizeof(rep->warnings[0]), 8,
			&rep->nwarnings, fmt, ap);
	va_end(ap);
}

static void dstate_close(struct dstate *s)
{
	e4_replayed_close(&s->rp);
	if (s->dfs)
		ext2fs_close_free(&s->dfs);
	memset(s, 0, sizeof(*s));
}

/*
 * Open the state of device @d at its point: the fs, its journal
 * recovered in memory as do_point() of wlog_check.c reads a point (full
 * commits, the mount refusal rule, needs_recovery clear: no replay, the
 * live fast commits).  A state the kernel would not recover has
 * s->fail set (0 returned); a read error is returned.
 */
static errcode_t dstate_open(struct dctx *c, e4_wlog_dev_t d,
			     struct dstate *s)
{
	struct e4_replayed *r = &s->rp;
	struct e4_mount_refusal mr;
	errcode_t retval, jerr;

	memset(s, 0, sizeof(*s));
	c->rep->states_opened++;
	retval = ext2fs_open2(e4_wlog_dev_name(d), "", EXT2_FLAG_64BITS |
			      EXT2_FLAG_SKIP_MMP |
			      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			      e4_wlog_io_manager, &s->dfs);
	if (retval) {
		s->dfs = NULL;
		s->fail = retval;	/* no fs there: lost */
		return 0;
	}
	jerr = e4_journal_open(s->dfs, NULL, 0, &r->j);
	if (jerr) {
		if (r->j)
			e4_journal_close(r->j);
		r->j = NULL;
		if (jerr != E4_ERR_NO_JOURNAL ||
		    ext2fs_has_feature_journal_needs_recovery(s->dfs->super)) {
			s->fail = jerr;
			return 0;
		}
	} else if (!ext2fs_has_feature_journal_needs_recovery(
			   s->dfs->super)) {
		/* the kernel wipes the log instead (ext4_load_journal()) */
		e4_journal_close(r->j);
		r->j = NULL;
	}
	if (r->j) {
		retval = e4_journal_scan(r->j, 0, 0, &r->scan);
		if (retval)
			return retval;
		if (r->scan->fail || (r->scan->fc && r->scan->fc->fail)) {
			s->fail = r->scan->fail ? r->scan->fail :
				r->scan->fc->fail;
			return 0;
		}
		retval = e4_plan_build(r->j, r->scan, &r->plan);
		if (retval)
			return retval;
		e4_plan_mount_refused(r->plan, &mr);
		if (mr.err) {
			s->fail = mr.err;
			return 0;
		}
		retval = e4_state_init(r->plan, &r->st);
		if (!retval)
			retval = e4_state_seek(&r->st, r->plan->ntx);
		if (retval)
			return retval;
	}
	retval = e4_overlay_create(s->dfs->io, r->j ? r->j->io : NULL,
				   s->dfs->blocksize,
				   ext2fs_blocks_count(s->dfs->super),
				   r->plan ? &r->st : NULL, &r->ov);
	if (retval)
		return retval;
	retval = e4_overlay_open_fs(r->ov, EXT2_FLAG_SKIP_MMP, &r->fs);
	if (retval) {
		r->fs = NULL;
		if (e4_overlay_error(r->ov))
			return e4_overlay_error(r->ov);
		s->fail = retval;
		return 0;
	}
	if (r->scan && r->scan->fc && r->scan->fc->nreplay) {
		retval = e4_replayed_fc(r);
		if (retval == E4_ERR_FC_REPLAY_FAILS) {
			s->fail = retval;
			return 0;
		}
		if (retval && e4_overlay_error(r->ov))
			retval = e4_overlay_error(r->ov);
		if (retval)
			return retval;
	}
	return 0;
}

/* The first read error of @s's overlay (LOG or BASE), or 0. */
static errcode_t dstate_error(const struct dstate *s)
{
	return s->rp.ov ? e4_overlay_error(s->rp.ov) : 0;
}

/* ---- paths --------------------------------------------------------------- */

/* @path normalized to "/a/b" ("/" the root) into a new string. */
static errcode_t norm_path(const char *path, char **ret)
{
	size_t n = strlen(path), i, k = 0;
	char *s;
	errcode_t retval;

	retval = ext2fs_get_mem(n + 2, &s);
	if (retval)
		return retval;
	for (i = 0; i < n; i++) {
		if (path[i] == '/')
			continue;
		s[k++] = '/';
		while (i < n && path[i] != '/')
			s[k++] = path[i++];
	}
	if (!k)
		s[k++] = '/';
	s[k] = 0;
	*ret = s;
	return 0;
}

/* The parent of normalized @path into @buf ("/" for "/x" and "/"). */
static void parent_path(const char *path, char *buf, size_t len)
{
	const char *sl = strrchr(path, '/');
	size_t n = sl ? (size_t)(sl - path) : 0;

	if (!n)
		n = 1;
	if (n >= len)
		n = len - 1;
	memcpy(buf, path, n);
	buf[n] = 0;
}

/* The inode normalized @path names in @fs (no symlink followed), or 0. */
static ext2_ino_t resolve(ext2_filsys fs, const char *path)
{
	ext2_ino_t dir = EXT2_ROOT_INO, ino;
	const char *p = path, *q;

	while (*p == '/')
		p++;
	while (*p) {
		q = strchr(p, '/');
		if (!q)
			q = p + strlen(p);
		if (ext2fs_lookup(fs, dir, p, (int)(q - p), NULL, &ino))
			return 0;
		dir = ino;
		p = q;
		while (*p == '/')
			p++;
	}
	return dir;
}

/* Read inode @ino of @fs; 1 if it is a live inode (links, no dtime). */
static int live_inode(ext2_filsys fs, ext2_ino_t ino,
		      struct ext2_inode *inode)
{
	if (!ino || ino > fs->super->s_inodes_count ||
	    ext2fs_read_inode(fs, ino, inode))
		return 0;
	return inode->i_links_count && !inode->i_dtime && inode->i_mode;
}

/* ---- violations ---------------------------------------------------------- */

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int dropped(const struct dctx *c, uint64_t e)
{
	return c->ndrop && bsearch(&e, c->drop, c->ndrop, sizeof(*c->drop),
				   u64_cmp) != NULL;
}

/* Add entry @e to @v's missing entries (sorted, no duplicates). */
static void add_missing(struct e4_wlog_dviolation *v, uint64_t e)
{
	size_t i;

	for (i = 0; i < v->nmissing; i++)
		if (v->missing[i] == e)
			return;
	if (v->nmissing < E4_WLOG_DMISSING_MAX) {
		v->missing[v->nmissing++] = e;
		qsort(v->missing, v->nmissing, sizeof(*v->missing), u64_cmp);
	}
	v->nmissing_total++;
}

/*
 * The dropped entries behind a DATA difference: the newest write (up to
 * the mark, on the promised device) of every sector of the promised
 * state's blocks of @ino in the range, when it is dropped.
 */
static void data_missing(struct dctx *c, ext2_ino_t ino,
			 struct e4_wlog_dviolation *v)
{
	ext2_filsys fs = c->o->rp.fs;
	blk64_t lblk, last, pblk;
	uint64_t s;
	int64_t e;
	int src;

	if (!v->len)
		return;
	last = (v->off + v->len - 1) / c->bs;
	for (lblk = v->off / c->bs; lblk <= last; lblk++) {
		pblk = 0;
		if (ext2fs_bmap2(fs, ino, NULL, NULL, 0, lblk, NULL, &pblk) ||
		    !pblk)
			continue;
		for (s = pblk * c->spb; s < (pblk + 1) * c->spb; s++) {
			src = e4_wlog_dev_latest(c->d, s, (int64_t)v->mark,
						 &e);
			if (src != E4_WLOG_SRC_BASE && e >= 0 &&
			    dropped(c, (uint64_t)e))
				add_missing(v, (uint64_t)e);
		}
	}
}

/* Append a violation of the mark being checked; its missing entries. */
static errcode_t add_violation(struct dctx *c, int field, const char *path,
			       ext2_ino_t ino, uint32_t gen, uint64_t want,
			       uint64_t got, uint64_t off, uint64_t len)
{
	struct e4_wlog_durable_report *rep = c->rep;
	struct e4_wlog_dviolation *v;
	errcode_t retval;
	size_t i;

	retval = grow(&rep->v, &c->av, rep->nv + 1, sizeof(*rep->v));
	if (retval)
		return retval;
	v = &rep->v[rep->nv];
	memset(v, 0, sizeof(*v));
	v->mark = c->pr->entry;
	v->field = field;
	v->ino = ino;
	v->generation = gen;
	v->want = want;
	v->got = got;
	v->off = off;
	v->len = len;
	if (path) {
		retval = ext2fs_get_mem(strlen(path) + 1, &v->path);
		if (retval)
			return retval;
		strcpy(v->path, path);
	}
	rep->nv++;
	c->pr->nv++;
	/* lost as the promised state is: no entry makes the difference */
	if (field == E4_WLOG_D_UNRECOVERABLE && want)
		return 0;
	if (field == E4_WLOG_D_DATA)
		data_missing(c, ino, v);
	if (!v->nmissing_total)
		for (i = 0; i < c->nlost; i++)
			if (c->lost[i].entry >= 0)
				add_missing(v, (uint64_t)c->lost[i].entry);
	if (!v->nmissing_total)
		for (i = 0; i < c->ndrop; i++)
			add_missing(v, c->drop[i]);
	return 0;
}

static errcode_t add_unchecked(struct dctx *c, ext2_ino_t ino,
			       errcode_t err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static errcode_t add_unchecked(struct dctx *c, ext2_ino_t ino,
			       errcode_t err, const char *fmt, ...)
{
	struct e4_wlog_durable_report *rep = c->rep;
	struct e4_wlog_unchecked *u;
	errcode_t retval;
	va_list ap;

	retval = grow(&rep->unchecked, &c->aunchecked, rep->nunchecked + 1,
		      sizeof(*rep->unchecked));
	if (retval)
		return retval;
	u = &rep->unchecked[rep->nunchecked++];
	memset(u, 0, sizeof(*u));
	u->entry = (int64_t)c->pr->entry;
	u->ino = ino;
	u->err = err;
	va_start(ap, fmt);
	vsnprintf(u->what, sizeof(u->what), fmt, ap);
	va_end(ap);
	c->pr->unchecked = 1;
	return 0;
}

/* ---- comparing one file -------------------------------------------------- */

/*
 * Read up to @len bytes at @off of inode @ino of @fs (@inode read) into
 * @buf: a fast symlink's target from i_block, else through ext2fs_file.
 * *@got is what was read.
 */
static errcode_t read_bytes(ext2_filsys fs, ext2_ino_t ino,
			    struct ext2_inode *inode, ext2_file_t f,
			    uint64_t off, unsigned char *buf, unsigned int len,
			    unsigned int *got)
{
	errcode_t retval;

	*got = 0;
	if (LINUX_S_ISLNK(inode->i_mode) &&
	    ext2fs_is_fast_symlink(inode)) {
		uint64_t size = EXT2_I_SIZE(inode);

		if (off < size && off < sizeof(inode->i_block)) {
			*got = (unsigned int)((size < sizeof(inode->i_block) ?
					       size : sizeof(inode->i_block)) -
					      off);
			if (*got > len)
				*got = len;
			memcpy(buf, (char *)inode->i_block + off, *got);
		}
		return 0;
	}
	(void)fs;
	(void)ino;
	retval = ext2fs_file_llseek(f, off, EXT2_SEEK_SET, NULL);
	if (!retval)
		retval = ext2fs_file_read(f, buf, len, got);
	return retval;
}

/* Bytes [0, @size) of the file in both states: each differing run a
 * DATA violation (exact first and last differing byte). */
static errcode_t compare_data(struct dctx *c, const char *path,
			      ext2_ino_t ino, struct ext2_inode *oi,
			      struct ext2_inode *pi, uint64_t size)
{
	ext2_file_t of = NULL, pf = NULL;
	uint64_t off, run_start = 0, run_end = 0;
	unsigned int og, pg, n, i;
	int in_run = 0;
	errcode_t retval = 0, rv2;

	if (!(LINUX_S_ISLNK(oi->i_mode) && ext2fs_is_fast_symlink(oi))) {
		retval = ext2fs_file_open(c->o->rp.fs, ino, 0, &of);
		if (retval)
			goto unread;
	}
	if (!(LINUX_S_ISLNK(pi->i_mode) && ext2fs_is_fast_symlink(pi))) {
		retval = ext2fs_file_open(c->p->rp.fs, ino, 0, &pf);
		if (retval)
			goto unread;
	}
	for (off = 0; off < size; off += c->bs) {
		n = size - off < c->bs ? (unsigned int)(size - off) : c->bs;
		retval = read_bytes(c->o->rp.fs, ino, oi, of, off, c->obuf, n,
				    &og);
		if (!retval)
			retval = read_bytes(c->p->rp.fs, ino, pi, pf, off,
					    c->pbuf, n, &pg);
		if (retval)
			goto unread;
		if (og < n)
			memset(c->obuf + og, 0, n - og);
		if (pg < n)
			memset(c->pbuf + pg, 0, n - pg);
		if (!memcmp(c->obuf, c->pbuf, n)) {
			if (in_run) {
				retval = add_violation(c, E4_WLOG_D_DATA,
					path, ino, oi->i_generation, 0, 0,
					run_start, run_end - run_start);
				if (retval)
					goto out;
				in_run = 0;
			}
			continue;
		}
		for (i = 0; c->obuf[i] == c->pbuf[i]; i++)
			;
		if (!in_run)
			run_start = off + i;
		in_run = 1;
		for (i = n; c->obuf[i - 1] == c->pbuf[i - 1]; i--)
			;
		run_end = off + i;
	}
	if (in_run)
		retval = add_violation(c, E4_WLOG_D_DATA, path, ino,
				       oi->i_generation, 0, 0, run_start,
				       run_end - run_start);
	goto out;
unread:
	if (dstate_error(c->o) || dstate_error(c->p))
		goto out;	/* a read error of LOG or BASE: stop */
	retval = add_unchecked(c, ino, retval, "the data of %s", path);
out:
	if (of)
		ext2fs_file_close(of);
	if (pf)
		ext2fs_file_close(pf);
	if (!retval && (rv2 = dstate_error(c->o) ? dstate_error(c->o) :
			dstate_error(c->p)))
		retval = rv2;
	return retval;
}

/* One entry of a directory listing. */
struct dent {
	ext2_ino_t	ino;
	char		*name;
};

struct dlist {
	struct dent	*e;
	size_t		n, a;
	errcode_t	err;
};

static int list_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		   int off, int bsize, char *buf, void *priv)
{
	struct dlist *l = priv;
	int len = ext2fs_dirent_name_len(de);
	errcode_t retval;

	(void)dir;
	(void)entry;
	(void)off;
	(void)bsize;
	(void)buf;
	if (!de->inode || (len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	retval = grow(&l->e, &l->a, l->n + 1, sizeof(*l->e));
	if (!retval)
		retval = ext2fs_get_mem((size_t)len + 1, &l->e[l->n].name);
	if (retval) {
		l->err = retval;
		return DIRENT_ABORT;
	}
	memcpy(l->e[l->n].name, de->name, (size_t)len);
	l->e[l->n].name[len] = 0;
	l->e[l->n++].ino = de->inode;
	return 0;
}

static int dent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dent *)a)->name,
		      ((const struct dent *)b)->name);
}

static void dlist_free(struct dlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		ext2fs_free_mem(&l->e[i].name);
	ext2fs_free_mem(&l->e);
	memset(l, 0, sizeof(*l));
}

/* Directory @ino of @fs, sorted by name. */
static errcode_t list_dir(ext2_filsys fs, ext2_ino_t ino, struct dlist *l)
{
	errcode_t retval;

	memset(l, 0, sizeof(*l));
	retval = ext2fs_dir_iterate2(fs, ino, 0, NULL, list_cb, l);
	if (!retval)
		retval = l->err;
	if (retval) {
		dlist_free(l);
		return retval;
	}
	xsort(l->e, l->n, sizeof(*l->e), dent_cmp);
	return 0;
}

static errcode_t compare_file(struct dctx *c, const char *path,
			      ext2_ino_t ino, int what, int depth);

#define CMP_DATASYNC	0x1	/* fdatasync: size and data only */
#define CMP_ENTRIES	0x2	/* a directory: its entries too */
#define CMP_RECURSE	0x4	/* sync: every file below */

/* Directory @ino: every entry of the promised state in the durable one
 * with the same inode, no other entry; with CMP_RECURSE each child
 * compared (compare_file()). */
static errcode_t compare_dir(struct dctx *c, const char *path,
			     ext2_ino_t ino, int what, int depth)
{
	struct dlist ol, pl;
	size_t i = 0, k = 0;
	char *sub = NULL;
	size_t plen = strlen(path);
	errcode_t retval;
	int cmp;

	retval = list_dir(c->o->rp.fs, ino, &ol);
	if (retval) {
		if (dstate_error(c->o))
			return dstate_error(c->o);
		return add_unchecked(c, ino, retval, "directory %s", path);
	}
	retval = list_dir(c->p->rp.fs, ino, &pl);
	if (retval) {
		dlist_free(&ol);
		if (dstate_error(c->p))
			return dstate_error(c->p);
		/* its blocks do not read as a directory there: every
		 * entry of it is lost */
		memset(&pl, 0, sizeof(pl));
	}
	while (!retval && (i < ol.n || k < pl.n)) {
		const char *name;

		cmp = i >= ol.n ? 1 : k >= pl.n ? -1 :
			strcmp(ol.e[i].name, pl.e[k].name);
		name = cmp <= 0 ? ol.e[i].name : pl.e[k].name;
		retval = ext2fs_resize_mem(0, plen + strlen(name) + 2, &sub);
		if (retval)
			break;
		sprintf(sub, "%s%s%s", path, plen > 1 ? "/" : "", name);
		if (cmp > 0) {
			retval = add_violation(c, E4_WLOG_D_EXTRA, sub, 0, 0,
					       0, pl.e[k].ino, 0, 0);
			k++;
			continue;
		}
		if (cmp < 0 || pl.e[k].ino != ol.e[i].ino) {
			retval = add_violation(c, E4_WLOG_D_NAME, sub,
					       ol.e[i].ino, 0, ol.e[i].ino,
					       cmp < 0 ? 0 : pl.e[k].ino, 0, 0);
		} else if (what & CMP_RECURSE) {
			retval = compare_file(c, sub, ol.e[i].ino, what,
					      depth + 1);
		}
		i++;
		if (cmp == 0)
			k++;
	}
	ext2fs_free_mem(&sub);
	dlist_free(&ol);
	dlist_free(&pl);
	return retval;
}

/* The file @ino (PATH @path in the promised state) in both states. */
static errcode_t compare_file(struct dctx *c, const char *path,
			      ext2_ino_t ino, int what, int depth)
{
	struct ext2_inode oi, pi;
	uint64_t osz, psz;
	errcode_t retval;

	c->pr->files++;
	if (!live_inode(c->o->rp.fs, ino, &oi)) {
		if (dstate_error(c->o))
			return dstate_error(c->o);
		return add_unchecked(c, ino, EXT2_ET_BAD_INODE_NUM,
				     "inode %u (%s) in the promised state",
				     ino, path);
	}
	if (!live_inode(c->p->rp.fs, ino, &pi) ||
	    pi.i_generation != oi.i_generation) {
		if (dstate_error(c->p))
			return dstate_error(c->p);
		return add_violation(c, E4_WLOG_D_INODE, path, ino,
				     oi.i_generation, ino, 0, 0, 0);
	}
	if ((oi.i_mode & LINUX_S_IFMT) != (pi.i_mode & LINUX_S_IFMT))
		return add_violation(c, E4_WLOG_D_TYPE, path, ino,
				     oi.i_generation, oi.i_mode & LINUX_S_IFMT,
				     pi.i_mode & LINUX_S_IFMT, 0, 0);
	osz = EXT2_I_SIZE(&oi);
	psz = EXT2_I_SIZE(&pi);
	if (LINUX_S_ISDIR(oi.i_mode)) {
		/* a directory's i_size follows its blocks; its entries are
		 * what it holds */
		if (!(what & (CMP_ENTRIES | CMP_RECURSE)) ||
		    depth > MAX_DEPTH)
			return 0;
		return compare_dir(c, path, ino, what, depth);
	}
	if (osz != psz) {
		retval = add_violation(c, E4_WLOG_D_SIZE, path, ino,
				       oi.i_generation, osz, psz, 0, 0);
		if (retval)
			return retval;
	}
	if (!LINUX_S_ISREG(oi.i_mode) && !LINUX_S_ISLNK(oi.i_mode))
		return 0;
	return compare_data(c, path, ino, &oi, &pi, osz < psz ? osz : psz);
}

/* ---- one promise --------------------------------------------------------- */

/* The transactions the promised state replays and the durable one does
 * not, with their commit writes. */
static errcode_t find_lost(struct dctx *c)
{
	const struct e4_jscan *os = c->o->rp.scan,
		*ps = c->p->fail ? NULL : c->p->rp.scan;
	size_t i, k;
	blk64_t pblk;
	int64_t e;
	errcode_t retval;

	c->nlost = 0;
	if (!os)
		return 0;
	c->pr->tids_promised = os->ncommitted;
	for (i = 0; i < os->ncommitted; i++) {
		uint32_t tid = os->trans[i].tid;

		for (k = 0; ps && k < ps->ncommitted; k++)
			if (ps->trans[k].tid == tid)
				break;
		if (ps && k < ps->ncommitted)
			continue;
		retval = grow(&c->lost, &c->alost, c->nlost + 1,
			      sizeof(*c->lost));
		if (retval)
			return retval;
		e = -1;
		if (!e4_journal_bmap(c->o->rp.j, os->trans[i].last_jblk,
				     &pblk) &&
		    e4_wlog_dev_latest(c->d, pblk * c->spb,
				       (int64_t)c->pr->entry, &e) !=
		    E4_WLOG_SRC_WRITE)
			e = -1;
		c->lost[c->nlost].tid = tid;
		c->lost[c->nlost++].entry = e;
	}
	c->pr->tids_lost = c->nlost;
	return 0;
}

/* Index of the last promise before @i that covers directory @dir
 * (normalized), or -1 (BASE). */
static int64_t parent_promise(struct dctx *c, size_t i, const char *dir)
{
	const struct e4_wlog_promise *q;

	while (i-- > 0) {
		q = &c->rep->promises[i];
		if (q->kind == E4_WLOG_PROMISE_SYNC ||
		    q->kind == E4_WLOG_PROMISE_SYNCFS ||
		    (q->path && !strcmp(q->path, dir)))
			return (int64_t)i;
	}
	return -1;
}

/*
 * fsync: whether PATH named (@ino, @gen) at the last promise for its
 * parent (the promised state there, or BASE): if not, the name is part
 * of this promise.  Leaves the device's point moved.
 */
static errcode_t name_promised(struct dctx *c, size_t i, ext2_ino_t ino,
			       uint32_t gen, int *ret)
{
	char dir[4096];
	int64_t q, point;
	struct dstate *s = &c->ps;
	struct ext2_inode inode;
	ext2_ino_t was;
	errcode_t retval = 0;

	*ret = 1;
	parent_path(c->pr->path, dir, sizeof(dir));
	if (!strcmp(c->pr->path, "/"))
		return (*ret = 0);	/* the root has no name */
	q = parent_promise(c, i, dir);
	point = q < 0 ? -1 : (int64_t)c->rep->promises[q].entry;
	/* Kept open on its own clone while the promises share it (BASE
	 * for every file of a directory nothing fsync'ed). */
	if (c->ps_point != point) {
		dstate_close(s);
		c->ps_point = -2;
		retval = e4_wlog_dev_set_point(c->dp, point);
		if (!retval)
			retval = dstate_open(c, c->dp, s);
		if (retval) {
			dstate_close(s);
			return retval;
		}
		c->ps_point = point;
	}
	if (!s->fail) {
		was = resolve(s->rp.fs, c->pr->path);
		if (was == ino && live_inode(s->rp.fs, ino, &inode) &&
		    inode.i_generation == gen)
			*ret = 0;
		retval = dstate_error(s);
	}
	return retval;
}

static errcode_t check_promise(struct dctx *c, size_t i)
{
	struct e4_wlog_promise *pr = &c->rep->promises[i];
	struct dstate o, p;
	struct ext2_inode inode;
	ext2_ino_t ino = 0, got;
	int named = 0, what;
	errcode_t retval;

	memset(&o, 0, sizeof(o));
	memset(&p, 0, sizeof(p));
	c->pr = pr;
	c->nlost = 0;
	pr->first_v = c->rep->nv;
	retval = e4_wlog_durable_drop(c->log, pr->entry, &pr->flush,
				      &c->drop, &c->ndrop);
	if (retval)
		return retval;
	pr->dropped = c->ndrop;
	/* The durable state first: one the kernel would not recover loses
	 * every promise of the mark, whatever was promised. */
	retval = e4_wlog_dev_set_point(c->dd, (int64_t)pr->entry);
	if (!retval)
		retval = e4_wlog_dev_set_drop(c->dd, c->drop, c->ndrop);
	if (!retval)
		retval = dstate_open(c, c->dd, &p);
	if (retval)
		goto out;
	if (p.fail) {
		retval = e4_wlog_dev_set_point(c->d, (int64_t)pr->entry);
		if (!retval)
			retval = dstate_open(c, c->d, &o);
		if (retval)
			goto out;
		c->p = &p;
		if (!o.fail) {	/* the lost commits, when known */
			c->o = &o;
			if (pr->path)
				ino = resolve(o.rp.fs, pr->path);
			retval = find_lost(c);
			if (!retval)
				retval = dstate_error(&o);
			if (retval)
				goto out;
		}
		retval = add_violation(c, E4_WLOG_D_UNRECOVERABLE, pr->path,
				       ino, 0, (uint64_t)o.fail,
				       (uint64_t)p.fail, 0, 0);
		goto out;
	}
	/* The promised state, first at the parent's last promise. */
	if (pr->path) {
		retval = e4_wlog_dev_set_point(c->d, (int64_t)pr->entry);
		if (!retval)
			retval = dstate_open(c, c->d, &o);
		if (retval)
			goto out;
		if (o.fail) {
			retval = add_unchecked(c, 0, o.fail, "the promised "
					       "state does not recover");
			goto out;
		}
		ino = resolve(o.rp.fs, pr->path);
		if (!ino || !live_inode(o.rp.fs, ino, &inode)) {
			retval = dstate_error(&o);
			if (!retval)
				retval = add_unchecked(c, 0,
					EXT2_ET_FILE_NOT_FOUND, "%s in the "
					"promised state", pr->path);
			goto out;
		}
		if (pr->kind == E4_WLOG_PROMISE_FSYNC) {
			retval = name_promised(c, i, ino, inode.i_generation,
					       &named);
			if (retval)
				goto out;
			pr->name_promised = named;
		}
	} else {
		retval = e4_wlog_dev_set_point(c->d, (int64_t)pr->entry);
		if (!retval)
			retval = dstate_open(c, c->d, &o);
		if (retval)
			goto out;
		if (o.fail) {
			retval = add_unchecked(c, 0, o.fail, "the promised "
					       "state does not recover");
			goto out;
		}
	}
	c->o = &o;
	c->p = &p;
	retval = find_lost(c);
	if (retval)
		goto out;
	switch (pr->kind) {
	case E4_WLOG_PROMISE_FSYNC:
	case E4_WLOG_PROMISE_FDATASYNC:
		what = CMP_ENTRIES;
		if (pr->kind == E4_WLOG_PROMISE_FDATASYNC)
			what |= CMP_DATASYNC;
		if (named) {
			got = resolve(p.rp.fs, pr->path);
			if (got != ino) {
				retval = add_violation(c, E4_WLOG_D_NAME,
					pr->path, ino, inode.i_generation,
					ino, got, 0, 0);
				if (retval)
					break;
			}
		}
		retval = compare_file(c, pr->path, ino, what, 0);
		break;
	default:	/* sync, syncfs: the whole tree */
		retval = compare_file(c, "/", EXT2_ROOT_INO,
				      CMP_ENTRIES | CMP_RECURSE, 0);
		break;
	}
	if (!retval)
		retval = dstate_error(&o);
	if (!retval)
		retval = dstate_error(&p);
out:
	c->o = c->p = NULL;
	pr->nv = c->rep->nv - pr->first_v;
	if (pr->nv)
		c->rep->broken++;
	dstate_close(&o);
	dstate_close(&p);
	e4_wlog_dev_set_drop(c->dd, NULL, 0);
	ext2fs_free_mem(&c->drop);
	c->ndrop = 0;
	return retval;
}

/* ---- the check ----------------------------------------------------------- */

void e4_wlog_durable_report_free(struct e4_wlog_durable_report *rep)
{
	size_t i;

	if (!rep)
		return;
	for (i = 0; i < rep->nv; i++)
		ext2fs_free_mem(&rep->v[i].path);
	for (i = 0; i < rep->npromises; i++)
		ext2fs_free_mem(&rep->promises[i].path);
	ext2fs_free_mem(&rep->v);
	ext2fs_free_mem(&rep->promises);
	ext2fs_free_mem(&rep->unchecked);
	ext2fs_free_mem(&rep);
}

errcode_t e4_wlog_durable_check(e4_wlog_dev_t d,
				struct e4_wlog_durable_report **ret)
{
	struct e4_wlog_durable_report *rep = NULL;
	struct e4_wlog_promise *pr;
	struct dctx c;
	struct dstate base;
	const char *path;
	errcode_t retval;
	uint64_t i;
	int kind;

	e4_error_tables_init();
	*ret = NULL;
	memset(&c, 0, sizeof(c));
	memset(&base, 0, sizeof(base));
	c.d = d;
	c.ps_point = -2;
	c.log = e4_wlog_dev_log(d);
	retval = ext2fs_get_memzero(sizeof(*rep), &rep);
	if (retval)
		return retval;
	c.rep = rep;
	for (i = 0; i < c.log->nr_entries; i++) {
		const struct e4_wlog_entry *e = &c.log->ents[i];

		if (!(e->flags & E4_WLOG_MARK))
			continue;
		kind = e4_wlog_promise_parse(e->mark, &path);
		if (kind == E4_WLOG_PROMISE_NONE) {
			rep->plain_marks++;
			continue;
		}
		retval = grow(&rep->promises, &c.apromises,
			      rep->npromises + 1, sizeof(*rep->promises));
		if (retval)
			goto out;
		pr = &rep->promises[rep->npromises++];
		memset(pr, 0, sizeof(*pr));
		pr->entry = i;
		pr->kind = kind;
		pr->label = e->mark;
		pr->flush = -1;
		if (path) {
			retval = norm_path(path, &pr->path);
			if (retval)
				goto out;
		}
	}
	if (!rep->npromises)
		goto out;
	/* BASE gives the block size. */
	retval = dstate_open(&c, d, &base);
	if (retval)
		goto out;
	if (!base.dfs) {
		warn(rep, "BASE holds no file system: the block size is "
		     "taken from the first promise's state");
	}
	retval = e4_wlog_dev_clone(d, &c.dd);
	if (!retval)
		retval = e4_wlog_dev_clone(d, &c.dp);
	if (retval)
		goto out;
	for (i = 0; i < rep->npromises; i++) {
		if (!c.bs) {
			struct dstate s;

			if (!base.dfs) {
				e4_wlog_dev_set_point(d, (int64_t)
						      rep->promises[i].entry);
				retval = dstate_open(&c, d, &s);
				if (retval)
					goto out;
				c.bs = s.dfs ? s.dfs->blocksize : 0;
				dstate_close(&s);
			} else {
				c.bs = base.dfs->blocksize;
			}
			if (c.bs) {
				c.spb = c.bs / c.log->sectorsize;
				if (!c.spb || c.bs % c.log->sectorsize) {
					retval = EXT2_ET_INVALID_ARGUMENT;
					goto out;
				}
				retval = ext2fs_get_mem(c.bs, &c.obuf);
				if (!retval)
					retval = ext2fs_get_mem(c.bs,
								&c.pbuf);
				if (retval)
					goto out;
			}
		}
		if (!c.bs) {
			c.pr = &rep->promises[i];
			c.pr->first_v = rep->nv;
			retval = add_unchecked(&c, 0, EXT2_ET_BAD_MAGIC,
					       "no file system at the mark");
			if (retval)
				goto out;
			continue;
		}
		retval = check_promise(&c, (size_t)i);
		if (retval)
			goto out;
	}
out:
	dstate_close(&base);
	dstate_close(&c.ps);
	e4_wlog_dev_free(c.dp);
	e4_wlog_dev_free(c.dd);
	ext2fs_free_mem(&c.lost);
	ext2fs_free_mem(&c.obuf);
	ext2fs_free_mem(&c.pbuf);
	ext2fs_free_mem(&c.drop);
	if (retval) {
		e4_wlog_durable_report_free(rep);
		return retval;
	}
	*ret = rep;
	return 0;
}
