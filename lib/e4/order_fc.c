/*
 * order_fc.c --- the ordering check's last step over the fast commits:
 * S_n -> S_fc, where S_fc is S_n with the fast commits of the tid after
 * the last full commit replayed in memory (fc_state.c over S_n's
 * overlay).  The inodes their ADD_RANGE tags name are diffed as a
 * transaction's touched inodes are (order.c ord_do_inode()).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "e4.h"
#include "order_int.h"

/*
 * An initialized block an ADD_RANGE maps (newly, or converted from
 * unwritten) must hold its data: a fast commit writes the data first
 * (fs/ext4/fast_commit.c ext4_fc_perform_commit(): the inodes' data is
 * submitted and waited for, ext4_fc_submit_inode_data_all() and
 * ext4_fc_wait_inode_data_all(), before the fast-commit blocks).  Its
 * findings carry the fast commits' tid.  A fast-commit replay the kernel
 * fails too (E4_ERR_FC_REPLAY_FAILS) is the kernel's refusal of the mount
 * (rep->kernel_refuses); one that cannot run for another reason leaves
 * the check incomplete (ord_unchecked(): it fails closed).
 */
errcode_t ord_check_fc(struct ctx *c, struct state *prev)
{
	struct e4_fcscan *fc = c->scan->fc;
	struct e4_order_report *rep = c->rep;
	struct e4_fc_state *fst = NULL;
	struct e4_order_tx *tx;
	struct e4_jtrans none;
	struct state cur;
	io_channel io = NULL;
	struct imap a, p;
	size_t i, pend_from = c->npend;
	errcode_t retval;

	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	memset(&cur, 0, sizeof(cur));
	tx = &rep->tx[rep->ntx++];
	memset(tx, 0, sizeof(*tx));
	tx->tid = fc->expected_tid;
	tx->fast_commit = 1;
	c->tx_first_f = rep->nf;
	c->ntouched = 0;
	c->npr = 0;
	/* a second channel on S_n's overlay: its read errors stay there */
	retval = e4_overlay_io_manager->open(e4_overlay_name(prev->ov), 0,
					     &io);
	if (!retval)
		retval = io_channel_set_blksize(io, (int)c->bs);
	if (!retval)
		retval = e4_fc_state_open(io, c->bs, fc, &fst);
	if (retval == E4_ERR_FC_REPLAY_FAILS) {
		/* The kernel's fast-commit replay fails there too: its
		 * recovery fails after PASS_REPLAY wrote the full commits,
		 * and the mount is refused (e4replay -n: 44). */
		tx->unreadable = 1;
		if (!rep->kernel_refuses)
			rep->kernel_refuses = 2;
		ord_warn(rep, "the fast commits of tid %u: %s: the kernel's "
			 "recovery fails there and the mount is refused",
			 fc->expected_tid, error_message(retval));
		retval = 0;
		goto out;
	}
	if (retval) {
		/* not the kernel's failure but ours: fail closed */
		tx->unreadable = 1;
		retval = ord_unchecked(rep, fc->expected_tid, 0, retval,
				       "the fast commits of tid %u could not "
				       "be replayed", fc->expected_tid);
		goto out;
	}
	cur.k = prev->k + 1;
	cur.map = prev->map;	/* journaled copies: S_n's (not owned) */
	cur.ov = prev->ov;
	cur.fs = fst->fs;
	cur.bb.g = cur.ib.g = -1;
	cur.bb.fs = cur.ib.fs = cur.fs;
	retval = ext2fs_get_mem(c->bs, &cur.bb.buf);
	if (!retval)
		retval = ext2fs_get_mem(c->bs, &cur.ib.buf);
	for (i = 0; !retval && i < fc->nreplay; i++)
		if (fc->tags[i].tag == E4_FC_TAG_ADD_RANGE)
			retval = ord_add_touched(c, fc->tags[i].ino);
	if (retval)
		goto out;
	ord_sort_touched(c);
	for (i = 0; i < c->ntouched && !retval; i++)
		retval = ord_do_inode(c, prev, &cur, tx, c->touched[i], &a,
				      &p, NULL, 0, NULL);
	memset(&none, 0, sizeof(none));
	if (!retval)
		retval = ord_cross_checks(c, &none, tx, pend_from);
	if (!retval) {
		ord_resolve_paths(c, cur.fs, c->tx_first_f, 0);
		ord_resolve_paths(c, prev->fs, c->tx_first_f, 1);
	}
	if (!retval)
		retval = ord_merge_pending(c);
out:
	ord_imap_free(&a);
	ord_imap_free(&p);
	ext2fs_free_mem(&cur.bb.buf);
	ext2fs_free_mem(&cur.ib.buf);
	e4_fc_state_close(fst);
	if (io)
		io_channel_close(io);
	return retval;
}
