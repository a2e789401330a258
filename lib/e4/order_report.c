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
	"inode-reused", "not-judged", "stale-outside-window-permitted",
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

	va_start(ap, fmt);
	e4_vadd_warning(rep->warnings[0], sizeof(rep->warnings[0]), 8,
			&rep->nwarnings, fmt, ap);
	va_end(ap);
}

errcode_t ord_unchecked(struct e4_order_report *rep, uint32_t tid,
			ext2_ino_t ino, errcode_t err, const char *fmt, ...)
{
	struct e4_order_unchecked *u;
	va_list ap;
	errcode_t retval;

	retval = ext2fs_resize_mem(rep->nunchecked * sizeof(*u),
				   (rep->nunchecked + 1) * sizeof(*u),
				   &rep->unchecked);
	if (retval)
		return retval;
	u = &rep->unchecked[rep->nunchecked++];
	memset(u, 0, sizeof(*u));
	u->tid = tid;
	u->ino = ino;
	u->err = err;
	va_start(ap, fmt);
	vsnprintf(u->what, sizeof(u->what), fmt, ap);
	va_end(ap);
	return 0;
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
	 * caller says so explicitly, stale file data is a note, not a
	 * violation, whichever transaction exposed it: one in the window
	 * (stale) or one already checkpointed before it
	 * (stale-outside-window).  Stale directory or symlink blocks stay
	 * violations: metadata is journaled in every mode.  In auto mode
	 * every kind stays a violation.
	 */
	if (rep->data_mode == E4_DATA_WRITEBACK &&
	    rep->data_mode_src == E4_DMSRC_GIVEN) {
		if (fw.kind == E4_ORD_STALE)
			fw.kind = E4_ORD_STALE_PERMITTED;
		else if (fw.kind == E4_ORD_STALE_OUTSIDE)
			fw.kind = E4_ORD_STALE_OUTSIDE_PERMITTED;
	}

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

/* Findings that get a path: violations, reuse, not-judged and writeback
 * notes. */
static int wants_path(const struct e4_order_finding *f, int old)
{
	if (old)
		return f->kind == E4_ORD_INODE_REUSED && !f->old_path;
	return !f->path && (f->kind < E4_ORD_NOTE_FIRST ||
			    f->kind == E4_ORD_INODE_REUSED ||
			    f->kind == E4_ORD_NOT_JUDGED ||
			    f->kind == E4_ORD_STALE_PERMITTED ||
			    f->kind == E4_ORD_STALE_OUTSIDE_PERMITTED);
}

/* Name the inodes of findings[from..) in @fs (one pass over directories). */
void ord_resolve_paths(struct ctx *c, ext2_filsys fs, size_t from, int old)
{
	struct e4_path_req *req = NULL;
	size_t i, n = 0;

	for (i = from; i < c->rep->nf; i++)
		n += wants_path(&c->rep->f[i], old);
	if (!n || ext2fs_get_array(n, sizeof(*req), &req))
		return;
	for (i = from, n = 0; i < c->rep->nf; i++) {
		struct e4_order_finding *f = &c->rep->f[i];

		if (!wants_path(f, old))
			continue;
		req[n].ino = f->ino;
		req[n++].path = old ? &f->old_path : &f->path;
	}
	e4_resolve_paths(fs, req, n);
	ext2fs_free_mem(&req);
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
	ext2fs_free_mem(&rep->unchecked);
	ext2fs_free_mem(&rep);
}
