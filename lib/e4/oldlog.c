/*
 * oldlog.c --- the older transactions still readable in the log area
 * after the end of the live log: the part of the circular log the kernel
 * would not replay (fs/jbd2/recovery.c do_one_pass() stops at the first
 * block that is not the next transaction's).  What `debugfs logdump -O`
 * shows, walked once around the log instead of until a block without
 * the magic number: from the end of the live log (or the whole log area
 * when s_start is 0) up to s_start, resynchronising on every descriptor,
 * revoke or commit block of a tid older than s_sequence.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "e4_int.h"

#define WINDOW	256	/* jblocks read at a time */

struct walker {
	e4_journal_t	j;
	blk64_t		log_first, log_end;
	unsigned char	*win;		/* WINDOW jblocks */
	blk64_t		wstart, wn;
	struct e4_jtag	*dtags;		/* one descriptor's tags */
	blk64_t		*drevs;		/* one revoke block's records */
	size_t		dmax;
	struct e4_jscan_old *o;
	size_t		alloc;		/* of o->trans */
	size_t		tag_alloc, rev_alloc;	/* of the last entry */
};

static blk64_t wrap(const struct walker *w, blk64_t v)
{
	while (v >= w->log_end)
		v -= w->log_end - w->log_first;
	return v;
}

/* Journal block @jblk from the window, reading WINDOW more if needed. */
static errcode_t get(struct walker *w, blk64_t jblk, const uint8_t **p)
{
	blk64_t n = WINDOW;
	errcode_t retval;

	if (jblk < w->wstart || jblk >= w->wstart + w->wn) {
		if (n > w->log_end - jblk)
			n = w->log_end - jblk;
		w->wn = 0;
		retval = e4_journal_read(w->j, jblk, n, w->win);
		if (retval)
			return retval;
		w->wstart = jblk;
		w->wn = n;
	}
	*p = w->win + (jblk - w->wstart) * w->j->blocksize;
	return 0;
}

static errcode_t begin_trans(struct walker *w, uint32_t tid, blk64_t jblk,
			     struct e4_jtrans **ret)
{
	struct e4_jscan_old *o = w->o;
	struct e4_jtrans *t;
	errcode_t retval;

	retval = grow(&o->trans, &w->alloc, o->ntrans + 1, sizeof(*t));
	if (retval)
		return retval;
	t = &o->trans[o->ntrans++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first_jblk = t->last_jblk = jblk;
	t->commit_csum_ok = -1;		/* not checked */
	w->tag_alloc = w->rev_alloc = 0;
	*ret = t;
	return 0;
}

/* Drop the transaction being read (the last entry): seen only in part. */
static void cut(struct walker *w, struct e4_jtrans **cur)
{
	struct e4_jscan_old *o = w->o;
	struct e4_jtrans *t;

	if (!*cur)
		return;
	t = &o->trans[o->ntrans - 1];
	ext2fs_free_mem(&t->tags);
	ext2fs_free_mem(&t->revokes);
	o->ntrans--;
	o->cut++;
	*cur = NULL;
}

static errcode_t add_tags(struct walker *w, struct e4_jtrans *t,
			  blk64_t pos, size_t n)
{
	errcode_t retval;
	size_t k;

	retval = grow(&t->tags, &w->tag_alloc, t->ntags + n, sizeof(*t->tags));
	if (retval)
		return retval;
	for (k = 0; k < n; k++) {
		struct e4_jtag *g = &t->tags[t->ntags++];

		*g = w->dtags[k];
		g->jblk = wrap(w, pos + 1 + k);
		g->fate = E4_TAG_UNCOMMITTED;
	}
	return 0;
}

static errcode_t add_revokes(struct walker *w, struct e4_jtrans *t, size_t n)
{
	errcode_t retval;

	if (!n)
		return 0;
	retval = grow(&t->revokes, &w->rev_alloc, t->nrevokes + n,
		      sizeof(*t->revokes));
	if (retval)
		return retval;
	memcpy(t->revokes + t->nrevokes, w->drevs, n * sizeof(*w->drevs));
	t->nrevokes += n;
	t->nrevoke_records += n;
	return 0;
}

/* Is jblock @jblk the commit block of some tid?  Sets *@tid. */
static errcode_t commit_at(struct walker *w, blk64_t jblk, int *yes,
			   uint32_t *tid)
{
	const uint8_t *b;
	errcode_t retval;

	*yes = 0;
	retval = get(w, jblk, &b);
	if (retval)
		return retval;
	if (e4_be32(b + JBD2_H_MAGIC) == JBD2_MAGIC &&
	    e4_be32(b + JBD2_H_BLOCKTYPE) == JBD2_COMMIT_BLOCK) {
		*yes = 1;
		*tid = e4_be32(b + JBD2_H_SEQUENCE);
	}
	return 0;
}

static int cmp_age(const void *pa, const void *pb, void *pref)
{
	uint32_t ref = *(const uint32_t *)pref;
	uint32_t a = ref - ((const struct e4_jtrans *)pa)->tid;
	uint32_t b = ref - ((const struct e4_jtrans *)pb)->tid;

	return a > b ? -1 : a < b;	/* oldest (largest age) first */
}

static errcode_t walk(struct walker *w, const struct e4_jscan *s)
{
	struct e4_jscan_old *o = w->o;
	e4_journal_t j = w->j;
	uint32_t ref = s->start_tid, tid, sync_tid = 0;
	blk64_t L = w->log_end - w->log_first, i, pos, len;
	struct e4_jtrans *cur = NULL;
	int in_sync, whole = 0;
	const uint8_t *b;
	errcode_t retval;
	size_t n;

	if (!s->start_jblk) {
		/* An empty log: from s_head (kernel >= 6.4 keeps where the
		 * next transaction would go: the oldest blocks follow it),
		 * else from s_first. */
		o->first_jblk = j->jsb.head >= w->log_first &&
			j->jsb.head < w->log_end ? j->jsb.head : w->log_first;
		len = L;
	} else {
		o->first_jblk = s->ntrans ?
			wrap(w, s->trans[s->ntrans - 1].last_jblk + 1) :
			s->start_jblk;
		len = (s->start_jblk + L - o->first_jblk) % L;
	}
	o->nblocks = len;
	if (!len)
		return 0;
	/* A transaction starting right after the commit of its predecessor
	 * begins there; any other first block may follow lost blocks. */
	retval = commit_at(w, o->first_jblk == w->log_first ?
			   w->log_end - 1 : o->first_jblk - 1, &in_sync,
			   &sync_tid);
	if (retval)
		return retval;
	sync_tid++;
	for (i = 0; i < len; ) {
		uint32_t type;

		pos = wrap(w, o->first_jblk + i);
		retval = get(w, pos, &b);
		if (retval)
			return retval;
		type = e4_be32(b + JBD2_H_MAGIC) == JBD2_MAGIC ?
			e4_be32(b + JBD2_H_BLOCKTYPE) : 0;
		tid = e4_be32(b + JBD2_H_SEQUENCE);
		if (type != JBD2_DESCRIPTOR_BLOCK &&
		    type != JBD2_REVOKE_BLOCK && type != JBD2_COMMIT_BLOCK) {
			o->skipped++;
			goto lost;
		}
		if (!e4_tid_gt(ref, tid)) {
			o->newer_blocks++;
			goto lost;
		}
		if (cur && cur->tid != tid) {
			cut(w, &cur);	/* no commit block: not whole */
			in_sync = 0;
		}
		if (!cur) {
			retval = begin_trans(w, tid, pos, &cur);
			if (retval)
				return retval;
			whole = in_sync && tid == sync_tid &&
				type != JBD2_COMMIT_BLOCK;
		}
		cur->last_jblk = pos;
		switch (type) {
		case JBD2_DESCRIPTOR_BLOCK:
			n = e4_jdesc_parse(b, j->blocksize,
					   j->jsb.feature_incompat, w->dtags,
					   w->dmax);
			if (n > w->dmax)	/* cannot happen: dmax = bs */
				n = w->dmax;
			if (i + 1 + n > len) {	/* runs into the live log */
				o->skipped += len - i;
				cut(w, &cur);
				return 0;
			}
			retval = add_tags(w, cur, pos, n);
			if (retval)
				return retval;
			cur->ndescriptors++;
			cur->nblocks += 1 + n;
			if (n)
				cur->last_jblk = wrap(w, pos + n);
			i += 1 + n;
			continue;
		case JBD2_REVOKE_BLOCK:
			if (e4_jrevoke_parse(b, j->blocksize,
					     j->jsb.feature_incompat,
					     w->drevs, w->dmax, &n)) {
				o->skipped++;
				goto lost;
			}
			if (n > w->dmax)
				n = w->dmax;
			retval = add_revokes(w, cur, n);
			if (retval)
				return retval;
			cur->nrevoke_blocks++;
			cur->nblocks++;
			i++;
			continue;
		default:	/* JBD2_COMMIT_BLOCK */
			cur->nblocks++;
			cur->has_commit = 1;
			e4_jcommit_decode(b, cur);
			if (whole)
				cur = NULL;	/* keep it */
			else
				cut(w, &cur);
			in_sync = 1;
			sync_tid = tid + 1;
			i++;
			continue;
		}
lost:
		/* Not part of an old transaction: what is being read is cut
		 * short, and the next one may have lost its start. */
		cut(w, &cur);
		in_sync = 0;
		i++;
	}
	cut(w, &cur);
	return 0;
}

errcode_t e4_journal_scan_old(e4_journal_t j, const struct e4_jscan *s,
			      struct e4_jscan_old **ret)
{
	struct walker w;
	struct e4_jscan_old *o;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	memset(&w, 0, sizeof(w));
	retval = ext2fs_get_memzero(sizeof(*o), &o);
	if (retval)
		return retval;
	w.j = j;
	w.o = o;
	w.log_first = s->log_first;
	w.log_end = s->log_end;
	w.dmax = j->blocksize;
	if (w.log_end <= w.log_first || w.log_end > j->real_len) {
		*ret = o;	/* no log area to walk: nothing older */
		return 0;
	}
	retval = ext2fs_get_array(WINDOW, j->blocksize, &w.win);
	if (!retval)
		retval = ext2fs_get_array(w.dmax, sizeof(*w.dtags), &w.dtags);
	if (!retval)
		retval = ext2fs_get_array(w.dmax, sizeof(*w.drevs), &w.drevs);
	if (!retval)
		retval = walk(&w, s);
	ext2fs_free_mem(&w.win);
	ext2fs_free_mem(&w.dtags);
	ext2fs_free_mem(&w.drevs);
	if (retval) {
		e4_jscan_old_free(o);
		return retval;
	}
	if (o->ntrans > 1) {
		uint32_t ref = s->start_tid;

		qsort_r(o->trans, o->ntrans, sizeof(*o->trans), cmp_age, &ref);
	}
	*ret = o;
	return 0;
}

void e4_jscan_old_free(struct e4_jscan_old *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->ntrans; i++) {
		ext2fs_free_mem(&o->trans[i].tags);
		ext2fs_free_mem(&o->trans[i].revokes);
	}
	ext2fs_free_mem(&o->trans);
	ext2fs_free_mem(&o);
}
