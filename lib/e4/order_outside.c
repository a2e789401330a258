/*
 * order_outside.c --- the ordering check's outside-window scan: every
 * initialized mapping of every in-use checked inode of the replayed
 * state, not only those the transactions touched, read for the stale
 * stamp (e4stamp); a stale block there is a finding of its own kind
 * (E4_ORD_STALE_OUTSIDE, E4_ORD_STALE_METADATA).  Uses order_map.c's
 * mappings and order_evid.c's evidence.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "order_int.h"

errcode_t ord_check_outside(struct ctx *c, struct state *st)
{
	ext2_filsys fs = st->fs;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct ext2_inode *inode;
	unsigned int isz = EXT2_INODE_SIZE(fs->super);
	struct imap m;
	struct e4_order_finding f;
	errcode_t retval, err = 0;
	size_t i, from = c->rep->nf;
	int used;

	memset(&m, 0, sizeof(m));
	retval = ext2fs_get_memzero(isz, &inode);
	if (retval)
		return retval;
	retval = ext2fs_open_inode_scan(fs, 0, &scan);
	if (retval) {
		ext2fs_free_mem(&inode);
		return retval;
	}
	c->tx_first_f = c->rep->nf;
	while (!(err = ext2fs_get_next_inode_full(scan, &ino, inode, isz)) &&
	       ino) {
		int metadata;

		if (!inode->i_links_count || !ord_ino_checked(fs, ino))
			continue;
		used = ord_inode_used(st, ino);
		if (used < 0) {
			retval = ord_unchecked(c->rep, 0, ino, 0, "inode %u: "
					       "its inode bitmap is unreadable "
					       "(outside-window scan)", ino);
			if (retval)
				break;
			continue;
		}
		if (!used)
			continue;
		metadata = LINUX_S_ISDIR(inode->i_mode) ||
			LINUX_S_ISLNK(inode->i_mode);
		err = ord_get_map(c, st, ino, inode, &m);
		if (err == EXT2_ET_NO_MEMORY) {
			retval = err;
			break;
		}
		if (err && ord_map_unknown(c, st, &m)) {
			err = 0;	/* --upto: S_k has unknown content */
			continue;
		}
		if (err) {
			retval = ord_unchecked(c->rep, 0, ino, err, "mapping "
					       "of inode %u in the replayed "
					       "state (outside-window scan)",
					       ino);
			err = 0;
			if (retval)
				break;
			continue;
		}
		for (i = 0; i < m.n; i++) {
			const struct run *r = &m.r[i];
			blk64_t b, n, x;

			if (r->unwritten)
				continue;
			for (b = 0; b < r->len; b += n) {
				n = r->len - b;
				if (n > CHUNK_BLOCKS)
					n = CHUNK_BLOCKS;
				if (r->pblk + b + n > c->nblocks)
					break;
				err = io_channel_read_blk64(fs->io, r->pblk + b,
							    (int)n, c->buf);
				if (err) {
					retval = ord_unchecked(c->rep, 0, ino,
						err, "data blocks %llu-%llu of "
						"inode %u (outside-window scan)",
						(unsigned long long)(r->pblk + b),
						(unsigned long long)(r->pblk + b +
								     n - 1),
						ino);
					err = 0;
					if (retval)
						goto out;
					break;
				}
				c->rep->outside_blocks += n;
				for (x = 0; x < n; x++) {
					blk64_t p = r->pblk + b + x;
					blk64_t l = r->lblk + b + x;
					size_t s = e4_stamp_block_stale(
						c->buf + x * c->bs, p, c->bs);

					/* with --upto, S_N may still have
					 * blocks a later tid supplies */
					if (!s || ord_was_seen(c, ino, l, p) ||
					    ord_is_unknown(c, st, p))
						continue;
					memset(&f, 0, sizeof(f));
					f.kind = metadata ?
						E4_ORD_STALE_METADATA :
						E4_ORD_STALE_OUTSIDE;
					f.metadata = metadata;
					f.ino = ino;
					f.lblk = l;
					f.pblk = p;
					f.len = 1;
					f.evidence = e4_state_lookup(&st->map,
								       p) ?
						E4_EVID_JOURNAL : E4_EVID_IMAGE;
					f.stale_units = s;
					f.units = e4_stamp_units(0, c->bs);
					retval = ord_add_finding(c, &f);
					if (retval)
						goto out;
				}
			}
		}
	}
	if (err && !retval)	/* the scan stopped: the rest unread */
		retval = ord_unchecked(c->rep, 0, 0, err, "inodes past %u in "
				       "the replayed state (outside-window "
				       "scan stopped)", ino);
	if (retval)
		goto out;
	c->rep->outside_checked = 1;
	ord_resolve_paths(c, fs, from, 0);
out:
	ext2fs_close_inode_scan(scan);
	ord_imap_free(&m);
	ext2fs_free_mem(&inode);
	return retval;
}
