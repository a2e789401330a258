/*
 * order.c --- the alloc-on-commit ordering check (e4tools issue 4), its
 * driver: for each committed transaction Tk of a crash image's journal,
 * open S_(k-1) and S_k (plan.c's states through overlay_io.c), find the
 * inodes Tk touches and hand each to order_inode.c, the fast commits to
 * order_fc.c, the outside-window scan to order_outside.c.  Layers, each
 * using only those below it: order.c > order_fc.c > order_inode.c >
 * order_outside.c > order_map.c > order_evid.c > order_state.c (with
 * order_report.c's findings at the bottom).
 *
 * Semantics: ext4's data=ordered promise (fs/ext4/inode.c,
 * ext4_map_blocks + jbd2 ordered data; unwritten extents in
 * fs/ext4/extents.c), jbd2 recovery rules as in plan.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "order_int.h"

/* Live inodes of @st outside c->touched whose tree holds a block of
 * @left: the owners of journaled extent-tree / indirect blocks. */
static errcode_t find_owners(struct ctx *c, struct state *prev,
			     struct state *cur, struct e4_order_tx *tx,
			     blk64_t *left, size_t nleft, struct imap *a,
			     struct imap *p)
{
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct ext2_inode *inode;
	unsigned int isz = EXT2_INODE_SIZE(cur->fs->super);
	errcode_t retval, err = 0;
	size_t i;
	int *expl = NULL;

	retval = ext2fs_get_memzero(isz, &inode);
	if (retval)
		return retval;
	retval = ext2fs_get_memzero(nleft * sizeof(int), &expl);
	if (retval)
		goto out;
	retval = ext2fs_open_inode_scan(cur->fs, 0, &scan);
	if (retval)
		goto out;
	while (!(err = ext2fs_get_next_inode_full(scan, &ino, inode, isz)) &&
	       ino) {
		int hit = 0;

		if (!inode->i_links_count || !ord_ino_checked(cur->fs, ino) ||
		    (c->ntouched && bsearch(&ino, c->touched, c->ntouched,
					    sizeof(ino), ino_cmp)))
			continue;
		if (!(inode->i_flags & EXT4_EXTENTS_FL) &&
		    !inode->i_block[EXT2_IND_BLOCK] &&
		    !inode->i_block[EXT2_DIND_BLOCK] &&
		    !inode->i_block[EXT2_TIND_BLOCK])
			continue;
		err = ord_get_map(c, cur, ino, inode, a);
		if (err == EXT2_ET_NO_MEMORY) {
			retval = err;
			break;
		}
		if (err && ord_map_unknown(c, cur, a)) {
			err = 0;
			continue;
		}
		if (err) {
			retval = ord_unchecked(c->rep, tx->tid, ino, err,
					       "mapping of inode %u in the "
					       "state after tid %u (searched "
					       "for journaled tree blocks)",
					       ino, tx->tid);
			err = 0;
			if (retval)
				break;
			continue;
		}
		for (i = 0; i < a->ntree && !hit; i++)
			hit = in_sorted(left, nleft, a->tree[i]);
		if (!hit)
			continue;
		retval = ord_do_inode(c, prev, cur, tx, ino, a, p, left, nleft,
				  expl);
		if (retval)
			break;
	}
	if (err && !retval)	/* the scan stopped: the rest unsearched */
		retval = ord_unchecked(c->rep, tx->tid, 0, err, "inodes past "
				       "%u in the state after tid %u (the "
				       "inode scan stopped)", ino, tx->tid);
	ext2fs_close_inode_scan(scan);
out:
	ext2fs_free_mem(&expl);
	ext2fs_free_mem(&inode);
	return retval;
}

static errcode_t check_tx(struct ctx *c, struct state *prev,
			  struct state *cur, const struct e4_jtrans *tr,
			  struct e4_order_tx *tx)
{
	blk64_t *cand = NULL, *left = NULL;
	int *expl = NULL, bad;
	size_t ncand = 0, nleft = 0, i, run, pend_from = c->npend;
	unsigned int ipb = c->bs / EXT2_INODE_SIZE(cur->fs->super);
	struct imap a, p;
	errcode_t retval = 0;

	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	c->ntouched = 0;
	c->npr = 0;
	if (tr->ntags) {
		retval = ext2fs_get_array(tr->ntags, sizeof(*cand), &cand);
		if (retval)
			return retval;
	}
	for (i = 0; i < tr->ntags && !retval; i++) {
		blk64_t b = tr->tags[i].fsblk;
		ext2_ino_t first;
		unsigned int x;

		if (tr->tags[i].csum_ok == 0 || b >= c->nblocks)
			continue;
		if (ord_is_ahead(c, b))	/* tags of one transaction are unique */
			tx->ahead++;
		first = ord_itable_first_ino(cur->fs, b);
		if (first) {
			for (x = 0; x < ipb && !retval; x++)
				if (first + x <= cur->fs->super->s_inodes_count)
					retval = ord_add_touched(c, first + x);
			continue;
		}
		if (!ord_is_meta(c, b))
			cand[ncand++] = b;
	}
	if (retval)
		goto out;
	xsort(cand, ncand, sizeof(*cand), blk_cmp);
	for (i = 0, nleft = 0; i < ncand; i++)	/* unique */
		if (!nleft || cand[nleft - 1] != cand[i])
			cand[nleft++] = cand[i];
	ncand = nleft;
	ord_sort_touched(c);
	retval = ext2fs_get_memzero((ncand + 1) * sizeof(int), &expl);
	if (retval)
		goto out;
	for (i = 0; i < c->ntouched && !retval; i++)
		retval = ord_do_inode(c, prev, cur, tx, c->touched[i], &a, &p,
				  cand, ncand, expl);
	if (retval)
		goto out;
	/* Journaled blocks nobody touched explains: extent-tree blocks, or
	 * on block-mapped file systems possibly indirect blocks. */
	if (ncand) {
		retval = ext2fs_get_array(ncand, sizeof(*left), &left);
		if (retval)
			goto out;
	}
	for (i = 0, nleft = 0; i < ncand; i += run) {
		const struct e4_copy *e;
		size_t b;

		/* runs of consecutive unexplained blocks: one read (a run
		 * that fails is read block by block); a block served by a
		 * copy the scan saw is not read */
		for (run = 1; !expl[i] && i + run < ncand &&
		     run < CHUNK_BLOCKS && !expl[i + run] &&
		     cand[i + run] == cand[i] + run; run++)
			;
		if (expl[i])
			continue;
		if (!ext2fs_has_feature_extents(cur->fs->super)) {
			for (b = 0; b < run; b++)
				left[nleft++] = cand[i + b];
			continue;
		}
		e = ord_known_copy(cur, cand[i]);
		if (e) {
			run = 1;
			if (e->flags & E4_COPY_EXT_MAGIC)
				left[nleft++] = cand[i];
			continue;
		}
		for (b = 1; b < run && !ord_known_copy(cur, cand[i + b]); b++)
			;
		run = b;
		bad = run > 1 && io_channel_read_blk64(cur->fs->io, cand[i],
						       (int)run, c->buf);
		for (b = 0; b < run; b++) {
			unsigned char *d = c->buf + (run > 1 && !bad ?
						     b * c->bs : 0);

			if ((run == 1 || bad) &&
			    io_channel_read_blk64(cur->fs->io, cand[i + b], 1,
						  d))
				continue;
			if (e4_le16(d) == EXT3_EXT_MAGIC)
				left[nleft++] = cand[i + b];
		}
	}
	if (nleft)
		retval = find_owners(c, prev, cur, tx, left, nleft, &a, &p);
	if (!retval)
		retval = ord_cross_checks(c, tr, tx, pend_from);
	if (!retval) {
		ord_resolve_paths(c, cur->fs, c->tx_first_f, 0);
		ord_resolve_paths(c, prev->fs, c->tx_first_f, 1);
	}
out:
	ord_imap_free(&a);
	ord_imap_free(&p);
	ext2fs_free_mem(&cand);
	ext2fs_free_mem(&left);
	ext2fs_free_mem(&expl);
	return retval;
}

/*
 * The first read error the channels below the states met inside the
 * image: libext2fs skips or renames what it could not read, and a check
 * that missed blocks must end in an error, not in a verdict.
 */
static errcode_t states_io_error(const struct state *slot)
{
	errcode_t err = slot[0].ov ? e4_overlay_error(slot[0].ov) : 0;

	if (!err && slot[1].ov)
		err = e4_overlay_error(slot[1].ov);
	return err;
}

static void ctx_free(struct ctx *c)
{
	ext2fs_free_mem(&c->meta);
	ext2fs_free_mem(&c->ahead);
	ext2fs_free_mem(&c->flog);
	ext2fs_free_mem(&c->dfr);
	ext2fs_free_mem(&c->seen);
	ext2fs_free_mem(&c->pend);
	ext2fs_free_mem(&c->pr);
	ext2fs_free_mem(&c->prmax);
	ext2fs_free_mem(&c->touched);
	ext2fs_free_mem(&c->buf);
	ext2fs_free_mem(&c->ibuf);
}

errcode_t e4_order_opts_init(struct e4_order_opts *opts, size_t size)
{
	struct e4_order_opts d;

	e4_error_tables_init();
	memset(&d, 0, sizeof(d));
	d.data_mode = E4_DATA_AUTO;
	d.outside = -1;
	d.stamped = -1;
	return e4_struct_init(opts, size, E4_ORDER_OPTS_SIZE0, &d, sizeof(d));
}

errcode_t e4_order_check(ext2_filsys fs, const struct e4_plan *plan,
			 const struct e4_order_opts *uopts,
			 struct e4_order_report **ret)
{
	/* the caller's opts over this libe4's defaults (e4_struct_in()) */
	struct e4_order_opts kopts, *opts = &kopts;
	struct ctx c;
	struct e4_order_report *rep = NULL;
	const struct e4_jscan *scan = plan->scan;
	struct e4_mount_refusal mr;
	e4_journal_t j = plan->j;
	struct state slot[2], *prev = &slot[0], *cur = &slot[1], *tmp;
	size_t n, k = 0;
	errcode_t retval;
	unsigned int defm;
	int fc_check;
	int walking = 0;

	e4_error_tables_init();
	*ret = NULL;
	e4_order_opts_init(&kopts, sizeof(kopts));
	retval = e4_struct_in(&kopts, sizeof(kopts), uopts,
			      E4_ORDER_OPTS_SIZE0);
	if (retval)
		return retval;
	memset(&c, 0, sizeof(c));
	memset(slot, 0, sizeof(slot));
	if (ext2fs_has_feature_bigalloc(fs->super))
		return E4_ERR_BIGALLOC;
	c.fs0 = fs;
	c.j = j;
	c.plan = plan;
	c.scan = scan;
	c.opts = opts;
	c.bs = fs->blocksize;
	c.nblocks = ext2fs_blocks_count(fs->super);
	retval = ext2fs_get_memzero(sizeof(*rep), &rep);
	if (retval)
		return retval;
	c.rep = rep;
	retval = ext2fs_get_mem((size_t)c.bs * CHUNK_BLOCKS, &c.buf);
	if (!retval)
		retval = ext2fs_get_memzero(EXT2_INODE_SIZE(fs->super) +
					    sizeof(struct ext2_inode_large),
					    &c.ibuf);
	if (retval)
		goto out;

	/* Transactions to check. */
	n = plan->ntx;
	if (opts->has_upto) {
		for (n = 0; n < plan->ntx &&
		     e4_tid_geq(opts->upto, scan->trans[n].tid); n++)
			;
		if (!n || scan->trans[n - 1].tid != opts->upto) {
			retval = E4_ERR_UPTO_NOT_FOUND;
			goto out;
		}
	}
	rep->journal_corrupt = scan->corrupt;
	/* fast commits (fc.c): checked after T_n when T_n is the last */
	fc_check = scan->fc && scan->fc->nreplay && !scan->fail &&
		n == plan->ntx && !scan->fc->fail;
	if (scan->fc && scan->fc->fail)
		ord_warn(rep, "the kernel's recovery fails in the fast-commit "
		     "area (%s): its fast commits are not checked",
				 error_message(scan->fc->fail));
	if (scan->fail)
		ord_warn(rep, "the kernel's recovery of this journal fails (%s): "
		     "it replays nothing", error_message(scan->fail));
	if (scan->corrupt)
		ord_warn(rep, "journal corruption: the scan stopped (%s at "
		     "jblock %llu); checked what was committed",
		     e4_scan_stop_name(scan->stop),
		     (unsigned long long)scan->stop_jblk);

	/* Data mode. */
	defm = fs->super->s_default_mount_opts & EXT3_DEFM_JMODE;
	rep->data_mode = opts->data_mode;
	rep->data_mode_src = E4_DMSRC_GIVEN;
	if (opts->data_mode == E4_DATA_AUTO) {
		rep->data_mode_src = E4_DMSRC_DEFAULT_OPTS;
		if (defm == EXT3_DEFM_JMODE_DATA)
			rep->data_mode = E4_DATA_JOURNAL;
		else if (defm == EXT3_DEFM_JMODE_ORDERED)
			rep->data_mode = E4_DATA_ORDERED;
		else if (defm == EXT3_DEFM_JMODE_WBACK)
			rep->data_mode = E4_DATA_WRITEBACK;
		else
			rep->data_mode_src = E4_DMSRC_ASSUMED;
	}
	c.mode_explicit = rep->data_mode == E4_DATA_ORDERED ||
		rep->data_mode == E4_DATA_WRITEBACK;

	rep->log_from_start = opts->image_is_s0 ||
		(scan->start_tid <= 2 && scan->start_jblk == scan->log_first);
	/* a failing fast-commit scan fails the whole recovery before
	 * PASS_REPLAY (fs/jbd2/recovery.c do_one_pass(): fc_do_one_pass()
	 * in PASS_SCAN) */
	rep->kernel_refuses = scan->fail != 0 ||
		(scan->fc && scan->fc->fail);
	/* recovery replays, then jbd2_journal_load() fails the mount */
	e4_plan_mount_refused(plan, &mr);
	if (!rep->kernel_refuses && mr.err) {
		rep->kernel_refuses = 2;
		ord_warn(rep, "the kernel replays this journal (tid %u: %s), "
		     "then refuses to mount: the states checked are those "
		     "it writes", mr.tid, error_message(mr.err));
	}
	rep->upto = opts->has_upto && n < plan->ntx;
	retval = ord_build_meta(&c);
	if (!retval)
		retval = ord_find_ahead(&c);
	if (!retval)
		retval = ord_build_flog(&c);
	if (retval)
		goto out;
	if (n + fc_check) {
		retval = ext2fs_get_array(n + fc_check, sizeof(*rep->tx),
					  &rep->tx);
		if (retval)
			goto out;
	}

	retval = ord_state_open(&c, 0, prev);
	if (retval)
		goto out;	/* the image itself is unreadable */
	rep->stamped = opts->stamped >= 0 ? opts->stamped :
		ord_detect_stamp(&c, prev);
	retval = states_io_error(slot);
	if (retval)
		goto out;

	walking = 1;
	for (k = 1; k <= n; k++) {
		const struct e4_jtrans *tr = &scan->trans[k - 1];
		struct e4_order_tx *tx = &rep->tx[rep->ntx++];
		errcode_t err;

		memset(tx, 0, sizeof(*tx));
		tx->tid = tr->tid;
		tx->commit_sec = tr->commit_sec;
		tx->commit_nsec = tr->commit_nsec;
		tx->jblocks = tr->ntags;
		tx->revokes = tr->nrevokes;
		c.tx_first_f = rep->nf;
		err = ord_state_open(&c, k, cur);
		retval = states_io_error(slot);
		if (retval)
			goto out;	/* not the state's content: the disk */
		if (err) {
			tx->unreadable = 1;
			retval = ord_unchecked(rep, tr->tid, 0, err, "the state "
					       "after tid %u (every mapping "
					       "and block it changes)",
					       tr->tid);
			if (retval)
				goto out;
			continue;
		}
		rep->last_tid = tr->tid;
		retval = ord_judge_deferred(&c, cur);
		if (!retval)
			retval = check_tx(&c, prev, cur, tr, tx);
		if (!retval)
			retval = ord_merge_pending(&c);
		if (!retval)
			retval = states_io_error(slot);
		if (retval)
			goto out;
		ord_state_close(prev);
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	if (fc_check) {
		retval = ord_check_fc(&c, prev);
		if (retval)
			goto out;
	}
	if (rep->data_mode == E4_DATA_AUTO)
		rep->data_mode = c.data_journaled ? E4_DATA_JOURNAL :
			E4_DATA_ORDERED;
	if (rep->data_mode_src == E4_DMSRC_ASSUMED && c.data_journaled)
		rep->data_mode_src = E4_DMSRC_INFERRED;

	/* --upto: content supplied only after the last checked state */
	for (k = 0; k < c.ndfr && !retval; k++) {
		struct e4_order_finding f;

		memset(&f, 0, sizeof(f));
		f.kind = E4_ORD_NOT_JUDGED;
		f.has_tid = 1;
		f.tid = c.dfr[k].tid;
		f.ino = c.dfr[k].ino;
		f.lblk = c.dfr[k].lblk;
		f.pblk = c.dfr[k].pblk;
		f.len = 1;
		f.conversion = c.dfr[k].conversion;
		f.prior_lost = c.dfr[k].prior_lost;
		f.metadata = c.dfr[k].metadata;
		f.evid_tid = scan->trans[c.dfr[k].known - 1].tid;
		c.tx_first_f = 0;
		retval = ord_add_finding(&c, &f);
	}
	if (retval)
		goto out;
	if (c.ndfr)
		ord_resolve_paths(&c, prev->fs, rep->nf - c.ndfr, 0);
	if (opts->outside > 0 || (opts->outside < 0 && rep->stamped))
		retval = ord_check_outside(&c, prev);
	if (!retval)
		retval = states_io_error(slot);
	if (!retval)
		retval = ord_sort_findings(&c);
out:
	ord_state_free(&slot[0]);
	ord_state_free(&slot[1]);
	ctx_free(&c);
	if (retval && walking && retval != EXT2_ET_NO_MEMORY) {
		/* Fail closed: the caller shows what was not checked. */
		if (k <= n && rep->ntx)
			rep->ntx--;		/* tid k: not fully checked */
		while (k <= n && rep->nf > c.tx_first_f) {
			rep->nf--;
			ext2fs_free_mem(&rep->f[rep->nf].path);
			ext2fs_free_mem(&rep->f[rep->nf].old_path);
		}
		rep->error = retval;
		*ret = rep;
		return retval;
	}
	if (retval) {
		e4_order_report_free(rep);
		return retval;
	}
	*ret = rep;
	return 0;
}
