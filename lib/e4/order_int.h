/*
 * order_int.h --- what the files of the ordering check share (order.c,
 * order_map.c, order_evid.c, order_report.c, order_fc.c): the check's
 * context, the per-state structures and the functions one file calls in
 * another.
 * Private to libe4.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_ORDER_INT_H
#define E4_ORDER_INT_H

#include "e4_int.h"

#define CHUNK_BLOCKS	64	/* data blocks read at once */

struct run {
	blk64_t		lblk, pblk, len;
	int		unwritten;
};

/* The mapping of one inode in one state. */
struct imap {
	struct run	*r;
	size_t		n, alloc;
	blk64_t		*tree;		/* extent-tree / indirect blocks */
	size_t		ntree, talloc;
	int		lost;		/* read through a block whose content
					 * the log cannot show (unknown) */
	errcode_t	err;
};

/* A run of a touched inode in S_k, indexed by pblk. */
struct prun {
	blk64_t		pblk, len, lblk;
	ext2_ino_t	ino;
	int		unwritten;
	int		regular;	/* regular file, not exempt */
};

struct seen {
	ext2_ino_t	ino;
	blk64_t		lblk, pblk;
};

struct range {
	blk64_t		start, len;
};

/* A block the window logs, and the index k (1-based) of the first
 * committed transaction that logs it. */
struct firstlog {
	blk64_t		b;
	size_t		k;
};

/* A new block whose content is unknown in S_k: judged in S_known. */
struct deferred {
	uint32_t	tid;
	ext2_ino_t	ino;
	blk64_t		lblk, pblk;
	size_t		known;
	int		conversion, prior_lost, metadata;
};

struct bmcache {
	ext2_filsys	fs;
	long		g;		/* cached group, -1 none */
	int		uninit;
	unsigned char	*buf;
};

/* One state S_k: its map (plan.c), the overlay serving it on the
 * image's channel, and the fs open on that overlay. */
struct state {
	size_t		k;
	struct e4_state	map;
	e4_overlay_t	ov;
	ext2_filsys	fs;
	struct bmcache	bb, ib;
};

struct ctx {
	ext2_filsys		fs0;
	e4_journal_t		j;
	const struct e4_plan	*plan;
	const struct e4_jscan	*scan;
	const struct e4_order_opts *opts;
	struct e4_order_report	*rep;
	blk64_t			nblocks;
	unsigned int		bs;
	struct range		*meta;
	size_t			nmeta;
	blk64_t			*ahead;
	size_t			nahead;
	struct firstlog		*flog;	/* every logged block: its first k */
	size_t			nflog;
	struct deferred		*dfr;	/* checks waiting for a state in
					 * which their block is known */
	size_t			ndfr, adfr;
	struct seen		*seen, *pend;
	size_t			nseen, npend, aseen, apend;
	size_t			af;	/* findings allocated */
	struct prun		*pr;
	size_t			npr, apr;
	blk64_t			*prmax;
	ext2_ino_t		*touched;
	size_t			ntouched, atouched;
	unsigned char		*buf;	/* CHUNK_BLOCKS blocks */
	unsigned char		*ibuf;	/* one inode */
	int			mode_explicit;	/* ordered/writeback known */
	uint64_t		data_journaled;
	size_t			tx_first_f;	/* first finding of this tx */
};

struct seg {
	uint32_t	tid;
	ext2_ino_t	ino;
	blk64_t		lblk, pblk, len;
	int		conversion, prior_lost;
	int		metadata;	/* directory / symlink blocks */
	int		unwritten;	/* new unwritten: listing only */
};

static inline int in_sorted(const blk64_t *a, size_t n, blk64_t v)
{
	return n && bsearch(&v, a, n, sizeof(*a), blk_cmp) != NULL;
}

/* Layers, bottom up; each file uses only those listed before it:
 * order_report.c, order_state.c, order_evid.c, order_map.c,
 * order_outside.c, order_inode.c, order_fc.c, then order.c (the
 * driver, e4_order_check()). */

/* ---- order_report.c: findings and the report ---------------------------- */

void ord_warn(struct e4_order_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record what could not be read (tid, inode or 0, why); 0 or ENOMEM. */
errcode_t ord_unchecked(struct e4_order_report *rep, uint32_t tid,
			ext2_ino_t ino, errcode_t err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Add a finding to the report, extending a recent contiguous one. */
errcode_t ord_add_finding(struct ctx *c,
			  const struct e4_order_finding *given);
/* Name the inodes of findings[from..) in @fs; @old: the old identities
 * of reuse notes. */
void ord_resolve_paths(struct ctx *c, ext2_filsys fs, size_t from, int old);
/* The checked transaction @tid (the last one if none is). */
struct e4_order_tx *ord_rep_tx(struct ctx *c, uint32_t tid);
/* Sort the findings by the log order of their tid, stably. */
errcode_t ord_sort_findings(struct ctx *c);

/* ---- order_state.c: layout, states, bitmaps (the bottom layer) ------- */

/* 1 if fs block @b is metadata: superblocks, group descriptors, bitmaps,
 * inode tables, the internal journal. */
int ord_is_meta(struct ctx *c, blk64_t b);
/* Build c's sorted metadata ranges (ord_is_meta()). */
errcode_t ord_build_meta(struct ctx *c);
/* The inode-table block holding inode @ino. */
blk64_t ord_itable_block_of(ext2_filsys fs, ext2_ino_t ino);
/* Inode-table block @b -> the first inode it holds, or 0. */
ext2_ino_t ord_itable_first_ino(ext2_filsys fs, blk64_t b);
/* Open S_@k (c->plan's state k: 0 the image, through the overlay) into
 * @st; ord_state_close() closes its fs, ord_state_free() the rest. */
errcode_t ord_state_open(struct ctx *c, size_t k, struct state *st);
void ord_state_close(struct state *st);
void ord_state_free(struct state *st);
/* Bit of fs block @b (inode @ino) in the bitmaps of @st: 1 used, 0 free,
 * -1 unreadable. */
int ord_block_used(struct state *st, blk64_t b);
int ord_inode_used(struct state *st, ext2_ino_t ino);
/* 1 if the check looks at inode @ino's mappings (e4_inode_kind()). */
int ord_ino_checked(ext2_filsys fs, ext2_ino_t ino);

/* ---- order_evid.c: evidence about data ---------------------------------- */

/* 1 if fs block @b is ahead: its image copy equals a journaled copy. */
int ord_is_ahead(struct ctx *c, blk64_t b);
/* Find the ahead blocks of the window (c->ahead, sorted). */
errcode_t ord_find_ahead(struct ctx *c);
/* Every block the window logs with its first transaction (c->flog);
 * counts rep->unknown_blocks.  After ord_find_ahead(). */
errcode_t ord_build_flog(struct ctx *c);
/* Index k of the first committed transaction logging @b, 0 if none. */
size_t ord_first_logged(struct ctx *c, blk64_t b);
/* 1 if the content of fs block @b in @st is unknown (issue 13). */
int ord_is_unknown(struct ctx *c, const struct state *st, blk64_t b);
/* A mapping that failed to parse in @st through a block of unknown
 * content (or m->lost): explained by that rule, not a failed read. */
int ord_map_unknown(struct ctx *c, const struct state *st,
		    const struct imap *m);
/* Judge the deferred checks whose block is known in @st. */
errcode_t ord_judge_deferred(struct ctx *c, struct state *st);
/* The copy that serves fs block @b in @st when the scan already knows
 * what the check asks of it (E4_COPY_FACTS), else NULL: read the block. */
const struct e4_copy *ord_known_copy(const struct state *st, blk64_t b);
/* Check the data of a new segment of a mapping in @st. */
errcode_t ord_check_segment(struct ctx *c, struct state *st,
			    const struct seg *s);
/* 1 if free blocks of @st carry the stale-data stamp. */
int ord_detect_stamp(struct ctx *c, struct state *st);

/* ---- order_map.c: mappings and their diffs ------------------------------ */

/* The mapping of inode @ino (read into @inode) in @st into @m. */
errcode_t ord_get_map(struct ctx *c, struct state *st, ext2_ino_t ino,
		      struct ext2_inode *inode, struct imap *m);
void ord_imap_free(struct imap *m);
/* 1 if (@ino, @l, @p) was a mapping of an earlier checked state. */
int ord_was_seen(struct ctx *c, ext2_ino_t ino, blk64_t l, blk64_t p);
/* Add this transaction's new mappings to the seen set. */
errcode_t ord_merge_pending(struct ctx *c);
/* Diff the mappings @a (S_k) and @p (S_(k-1)) of @ino for Tk. */
errcode_t ord_diff_inode(struct ctx *c, struct state *cur,
			 struct e4_order_tx *tx, ext2_ino_t ino, int metadata,
			 const struct imap *a, const struct imap *p);
/* Index the runs of @m (inode @ino) by pblk for the structural checks. */
errcode_t ord_add_pruns(struct ctx *c, ext2_ino_t ino, int regular,
			const struct imap *m);
/* Structural checks over the touched inodes' mappings in S_k. */
errcode_t ord_cross_checks(struct ctx *c, const struct e4_jtrans *tr,
			   struct e4_order_tx *tx, size_t pend_from);

/* ---- order_outside.c: the outside-window scan --------------------------- */

/* The stamp check of S_n (@st) outside the journal window. */
errcode_t ord_check_outside(struct ctx *c, struct state *st);

/* ---- order_inode.c: one inode of one transaction ---------------------- */

/* Add @ino to c->touched; ord_sort_touched() sorts it, duplicates gone. */
errcode_t ord_add_touched(struct ctx *c, ext2_ino_t ino);
void ord_sort_touched(struct ctx *c);
/* Diff touched inode @ino between @prev and @cur for @tx (its tree blocks
 * found in the sorted @cand[@ncand] marked in @explained; NULL, 0, NULL:
 * none). */
errcode_t ord_do_inode(struct ctx *c, struct state *prev,
		       struct state *cur, struct e4_order_tx *tx,
		       ext2_ino_t ino, struct imap *a, struct imap *p,
		       blk64_t *cand, size_t ncand, int *explained);

/* ---- order_fc.c: the fast commits as the step S_n -> S_fc ------------- */

/* Check the fast commits of c->scan->fc after S_n (@prev) into the next
 * c->rep->tx entry (fast_commit set). */
errcode_t ord_check_fc(struct ctx *c, struct state *prev);

#endif /* E4_ORDER_INT_H */
