/*
 * order_inode.c --- one inode of one transaction Tk in the ordering
 * check: its mappings in S_(k-1) and S_k handed to the diff
 * (order_map.c) and the evidence (order_evid.c), the inodes Tk touches,
 * reused inode numbers.  Used by order.c (full commits) and order_fc.c
 * (fast commits).
 *
 * Semantics: ext4's data=ordered promise (fs/ext4/inode.c,
 * ext4_map_blocks + jbd2 ordered data; unwritten extents in
 * fs/ext4/extents.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "order_int.h"

/* Inodes whose data the kernel journals (data=journal per inode, and the
 * fs's own files): their journaled blocks are no data-ordering finding. */
static int ino_exempt(ext2_filsys fs, ext2_ino_t ino,
		      const struct ext2_inode *inode)
{
	int kind = e4_inode_kind(fs, ino);

	return (inode->i_flags & EXT3_JOURNAL_DATA_FL) ||
		(kind != E4_INO_FILE && kind != E4_INO_ROOT);
}

/* Read inode @ino of @st into c->ibuf; 1 if it is live there. */
static int read_live(struct ctx *c, struct state *st, ext2_ino_t ino)
{
	struct ext2_inode *inode = (struct ext2_inode *)c->ibuf;
	unsigned int t;

	if (e4_read_inode(st->fs, ino, inode, EXT2_INODE_SIZE(st->fs->super)))
		return -1;	/* unreadable: not "not live" */
	if (!inode->i_links_count)
		return 0;
	switch (ord_inode_used(st, ino)) {
	case 1:
		break;
	case 0:
		return 0;
	default:
		return -1;	/* its inode bitmap is unreadable */
	}
	t = inode->i_mode & LINUX_S_IFMT;
	return t == LINUX_S_IFREG || t == LINUX_S_IFDIR || t == LINUX_S_IFLNK;
}

/* Sort c->touched and drop its duplicates. */
void ord_sort_touched(struct ctx *c)
{
	size_t i, n;

	xsort(c->touched, c->ntouched, sizeof(*c->touched), ino_cmp);
	for (i = 0, n = 0; i < c->ntouched; i++)
		if (!n || c->touched[n - 1] != c->touched[i])
			c->touched[n++] = c->touched[i];
	c->ntouched = n;
}

errcode_t ord_add_touched(struct ctx *c, ext2_ino_t ino)
{
	errcode_t retval;

	retval = grow((void **)&c->touched, &c->atouched, c->ntouched + 1,
		      sizeof(*c->touched));
	if (!retval)
		c->touched[c->ntouched++] = ino;
	return retval;
}

/* Inode @ino live in S_(k-1) and S_k with another i_generation: a reuse
 * note (paths resolved with the tx's findings); @lost: S_(k-1)'s copy was
 * read through an unknown block (the old identity may be older). */
static errcode_t note_reuse(struct ctx *c, struct e4_order_tx *tx,
			    ext2_ino_t ino, uint32_t old_gen, uint32_t new_gen,
			    int lost)
{
	struct e4_order_finding f;

	memset(&f, 0, sizeof(f));
	f.kind = E4_ORD_INODE_REUSED;
	f.has_tid = 1;
	f.tid = tx->tid;
	f.ino = ino;
	f.old_gen = old_gen;
	f.new_gen = new_gen;
	f.prior_lost = lost;
	tx->reused++;
	return ord_add_finding(c, &f);
}

/* Process one touched inode of Tk.  Identity is (ino, i_generation). */
errcode_t ord_do_inode(struct ctx *c, struct state *prev,
		       struct state *cur, struct e4_order_tx *tx,
		       ext2_ino_t ino, struct imap *a, struct imap *p,
		       blk64_t *cand, size_t ncand, int *explained)
{
	struct ext2_inode *inode = (struct ext2_inode *)c->ibuf;
	int regular, exempt, metadata, live;
	uint32_t gen;
	size_t i;
	errcode_t retval;

	if (!ord_ino_checked(cur->fs, ino))
		return 0;
	live = read_live(c, cur, ino);
	if (live < 0)
		return ord_unchecked(c->rep, tx->tid, ino, 0, "inode %u "
				     "unreadable in the state after tid %u "
				     "(its inode table or bitmap block)",
				     ino, tx->tid);
	if (!live)
		return 0;
	regular = LINUX_S_ISREG(inode->i_mode);
	metadata = LINUX_S_ISDIR(inode->i_mode) ||
		LINUX_S_ISLNK(inode->i_mode);
	gen = inode->i_generation;
	exempt = ino_exempt(cur->fs, ino, inode);
	retval = ord_get_map(c, cur, ino, inode, a);
	if (retval == EXT2_ET_NO_MEMORY)
		return retval;
	if (retval && ord_map_unknown(c, cur, a))
		return 0;	/* unknown content in S_k: nothing to diff */
	if (retval)	/* unreadable in S_k: its diff cannot be checked */
		return ord_unchecked(c->rep, tx->tid, ino, retval, "mapping "
				     "of inode %u in the state after tid %u",
				     ino, tx->tid);
	tx->touched++;
	for (i = 0; i < a->ntree; i++)
		if (in_sorted(cand, ncand, a->tree[i]))
			explained[(blk64_t *)bsearch(&a->tree[i], cand, ncand,
						     sizeof(*cand), blk_cmp) -
				  cand] = 1;
	p->n = p->ntree = 0;
	if (read_live(c, prev, ino) > 0) {
		if (inode->i_generation != gen) {
			/* another file: all its mappings are new in Tk */
			retval = note_reuse(c, tx, ino, inode->i_generation,
					    gen, ord_get_map(c, prev, ino,
							     inode, p) ?
					    1 : p->lost);
			if (retval)
				return retval;
			p->n = p->ntree = 0;
			p->lost = 0;
		} else if (ord_get_map(c, prev, ino, inode, p)) {
			p->n = 0;
			p->lost = 1;
		}
	} else {
		blk64_t itb = ord_itable_block_of(prev->fs, ino);
		ext2_ino_t ipg = prev->fs->super->s_inodes_per_group;

		/* free in S_(k-1), or its inode or bitmap block unknown */
		p->lost = ord_is_unknown(c, prev, itb) ||
			ord_is_unknown(c, prev,
				       ext2fs_inode_bitmap_loc(prev->fs,
							(ino - 1) / ipg));
	}
	retval = ord_add_pruns(c, ino, regular && !exempt, a);
	if (retval)
		return retval;
	return ord_diff_inode(c, cur, tx, ino, metadata, a, p);
}
