/*
 * order_report.c --- the ordering check's report: findings (merged into
 * runs, counted per transaction, sorted by tid), warnings, the paths of
 * the inodes of violations and notes (both identities of a reused inode),
 * and names of kinds and data modes.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "order_int.h"

static const char *kind_names[E4_ORD_NKINDS] = {
	"stale", "outside-fs", "into-metadata", "double-mapped",
	"free-in-bitmap", "data-journaled", "stale-outside-window",
	"stale-metadata",
	"unverified", "suspect-zero", "mapping", "stale-permitted",
	"inode-reused", "not-judged",
};

const char *e4_order_kind_name(int kind)
{
	if (kind < 0 || kind >= E4_ORD_NKINDS)
		return "?";
	return kind_names[kind];
}

const char *e4_data_mode_name(int mode)
{
	static const char *n[] = { "auto", "ordered", "journal", "writeback" };

	if (mode < 0 || mode > E4_DATA_WRITEBACK)
		return "?";
	return n[mode];
}

void ord_warn(struct e4_order_report *rep, const char *fmt, ...)
{
	va_list ap;

	if (rep->nwarnings >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(rep->warnings[rep->nwarnings++], sizeof(rep->warnings[0]),
		  fmt, ap);
	va_end(ap);
}

struct e4_order_tx *ord_rep_tx(struct ctx *c, uint32_t tid)
{
	size_t i;

	for (i = c->rep->ntx; i > 0; i--)
		if (c->rep->tx[i - 1].tid == tid)
			return &c->rep->tx[i - 1];
	return &c->rep->tx[c->rep->ntx - 1];
}

errcode_t ord_add_finding(struct ctx *c,
			  const struct e4_order_finding *given)
{
	struct e4_order_report *rep = c->rep;
	struct e4_order_finding fw = *given;
	const struct e4_order_finding *f = &fw;
	size_t i;
	errcode_t retval;

	/*
	 * data=writeback promises no ordering of data against metadata
	 * (Documentation/filesystems/ext4.rst, "data=writeback"): when the
	 * caller says so explicitly, stale data exposed by a transaction is
	 * a note, not a violation.  In auto mode it stays a violation.
	 */
	if (fw.kind == E4_ORD_STALE && rep->data_mode == E4_DATA_WRITEBACK &&
	    rep->data_mode_src == E4_DMSRC_GIVEN)
		fw.kind = E4_ORD_STALE_PERMITTED;

	/* Extend a recent finding of the same kind when contiguous. */
	for (i = rep->nf; i > c->tx_first_f && i + 4 > rep->nf; i--) {
		struct e4_order_finding *p = &rep->f[i - 1];

		if (p->kind == f->kind && p->has_tid == f->has_tid &&
		    p->tid == f->tid && p->ino == f->ino &&
		    p->prior_lost == f->prior_lost &&
		    p->conversion == f->conversion &&
		    p->unwritten == f->unwritten &&
		    p->metadata == f->metadata &&
		    p->evidence == f->evidence &&
		    p->evid_tid == f->evid_tid &&
		    p->other_ino == f->other_ino &&
		    p->lblk + p->len == f->lblk &&
		    p->pblk + p->len == f->pblk &&
		    (f->kind != E4_ORD_DOUBLE_MAPPED ||
		     p->other_lblk + p->len == f->other_lblk)) {
			p->len += f->len;
			p->stale_units += f->stale_units;
			p->units += f->units;
			goto count;
		}
	}
	retval = grow((void **)&rep->f, &c->af, rep->nf + 1, sizeof(*rep->f));
	if (retval)
		return retval;
	rep->f[rep->nf++] = *f;
	if (f->kind < E4_ORD_NOTE_FIRST)
		rep->violations++;
	else if (f->kind != E4_ORD_MAPPING)
		rep->notes++;
count:
	if (f->kind < E4_ORD_NOTE_FIRST) {
		rep->violation_blocks += f->len;
		if (f->has_tid && rep->ntx)
			ord_rep_tx(c, f->tid)->violations += f->len;
	}
	return 0;
}

struct path_ctx {
	struct ctx	*c;
	ext2_filsys	fs;
	ext2_ino_t	dir;
	size_t		from;
	int		old;	/* name the reuse notes' old identity */
};

/* Findings that get a path: violations, reuse, not-judged and writeback
 * notes. */
static int wants_path(const struct e4_order_finding *f, int old)
{
	if (old)
		return f->kind == E4_ORD_INODE_REUSED && !f->old_path;
	return !f->path && (f->kind < E4_ORD_NOTE_FIRST ||
			    f->kind == E4_ORD_INODE_REUSED ||
			    f->kind == E4_ORD_NOT_JUDGED ||
			    f->kind == E4_ORD_STALE_PERMITTED);
}

static int path_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent,
		   int offset, int blocksize, char *buf, void *priv)
{
	struct path_ctx *pc = priv;
	struct e4_order_report *rep = pc->c->rep;
	int len = ext2fs_dirent_name_len(dirent);
	char *dname = NULL, *path;
	size_t i;

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (!dirent->inode || (len == 1 && dirent->name[0] == '.') ||
	    (len == 2 && dirent->name[0] == '.' && dirent->name[1] == '.'))
		return 0;
	for (i = pc->from; i < rep->nf; i++) {
		struct e4_order_finding *f = &rep->f[i];

		if (f->ino != dirent->inode || !wants_path(f, pc->old))
			continue;
		if (!dname && ext2fs_get_pathname(pc->fs, pc->dir, 0, &dname))
			return 0;
		if (ext2fs_get_mem(strlen(dname) + len + 2, &path))
			break;
		sprintf(path, "%s%s%.*s", dname,
			strcmp(dname, "/") ? "/" : "", len, dirent->name);
		if (pc->old)
			f->old_path = path;
		else
			f->path = path;
	}
	ext2fs_free_mem(&dname);
	return 0;
}

/* Name the inodes of findings[from..) in @fs (one pass over directories). */
void ord_resolve_paths(struct ctx *c, ext2_filsys fs, size_t from, int old)
{
	struct path_ctx pc = { c, fs, 0, from, old };
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct ext2_inode inode;
	size_t i;
	int need = 0;

	for (i = from; i < c->rep->nf; i++)
		if (wants_path(&c->rep->f[i], old))
			need = 1;
	if (!need || ext2fs_open_inode_scan(fs, 0, &scan))
		return;
	while (!ext2fs_get_next_inode(scan, &ino, &inode) && ino) {
		if (!inode.i_links_count || !LINUX_S_ISDIR(inode.i_mode) ||
		    (inode.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		pc.dir = ino;
		ext2fs_dir_iterate2(fs, ino, 0, NULL, path_cb, &pc);
	}
	ext2fs_close_inode_scan(scan);
}

struct fkey {
	size_t	cls, pos, idx;
};

static int fkey_cmp(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Findings in log order of their tid, stably (deferred judgements are
 * made after their own tid); those outside the window last. */
errcode_t ord_sort_findings(struct ctx *c)
{
	struct e4_order_report *rep = c->rep;
	struct e4_order_finding *f;
	struct fkey *k;
	size_t i, t = 0;
	errcode_t retval;

	if (rep->nf < 2)
		return 0;
	retval = ext2fs_get_array(rep->nf, sizeof(*k), &k);
	if (retval)
		return retval;
	retval = ext2fs_get_array(rep->nf, sizeof(*f), &f);
	if (retval) {
		ext2fs_free_mem(&k);
		return retval;
	}
	for (i = 0; i < rep->nf; i++) {
		k[i].idx = i;
		k[i].cls = !rep->f[i].has_tid;
		k[i].pos = 0;
		if (!rep->f[i].has_tid)
			continue;
		if (t >= rep->ntx || rep->tx[t].tid != rep->f[i].tid)
			for (t = 0; t < rep->ntx &&
			     rep->tx[t].tid != rep->f[i].tid; t++)
				;
		k[i].pos = t;
	}
	xsort(k, rep->nf, sizeof(*k), fkey_cmp);
	for (i = 0; i < rep->nf; i++)
		f[i] = rep->f[k[i].idx];
	memcpy(rep->f, f, rep->nf * sizeof(*f));
	ext2fs_free_mem(&f);
	ext2fs_free_mem(&k);
	return 0;
}

void e4_order_report_free(struct e4_order_report *rep)
{
	size_t i;

	if (!rep)
		return;
	for (i = 0; i < rep->nf; i++) {
		ext2fs_free_mem(&rep->f[i].path);
		ext2fs_free_mem(&rep->f[i].old_path);
	}
	ext2fs_free_mem(&rep->f);
	ext2fs_free_mem(&rep->tx);
	ext2fs_free_mem(&rep);
}
