/*
 * plan.c --- the jbd2 replay rule, in one place: which logged copy of each
 * fs block reaches the disk, over the whole window (tag fates, the blocks
 * replay writes) and after any committed transaction Tk (state S_k).
 *
 * The rule (fs/jbd2/recovery.c PASS_REVOKE / PASS_REPLAY, revoke.c
 * jbd2_journal_test_revoke(), Linux 6.x):
 *  - a revoke record for block b in committed tid R cancels every copy of
 *    b logged in a tid <= R (the kernel tests the revoke first);
 *  - a copy whose tag checksum fails is skipped (the kernel skips it and
 *    reports EFSBADCRC at the end);
 *  - every other copy is written where its tag says, as the kernel's
 *    __getblk() + mark_buffer_dirty() does: past the fs end (up to the
 *    device end) and inside the internal journal too;
 *  - but a copy naming a block at or past the end of the fs device fails
 *    the kernel's recovery (__getblk() finds no buffer: "JBD2: Out of
 *    memory during recovery", the mount fails; Linux 6.18 on a loop
 *    device, tests/r_bad_tag_block), and so does, for e4replay, a copy
 *    naming a journal block the replay pass reads after writing it (the
 *    journal superblock, a later block of the window, the fast-commit
 *    area): the kernel then replays what it wrote there, which e4replay
 *    does not model (e4replay(8), DIFFERENCES FROM E2FSCK): the plan
 *    sets scan->fail (E4_ERR_BAD_TAG_BLOCK) and a scan event naming the
 *    tag;
 *  - of the surviving copies of a block the newest wins (the end result of
 *    the kernel writing them in log order).
 * For the whole window the revoke table of every committed transaction
 * decides (e4_plan_build(), O(tags log tags)); for S_k only the revoke
 * records of T1..Tk count, applied transaction by transaction
 * (e4_state_advance(): a revoke of Tk cancels every copy of its block so
 * far, all of which have tids <= Tk's).  Both views skip copies with
 * copy_skip() below: S_n of the states equals the window's winners.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "e4_int.h"
#include "jbd2_fmt.h"

static int cmp_run_pblk(const void *a, const void *b)
{
	const struct e4_jmap_run *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/*
 * The jblock held by fs block @blk of the internal journal of the plan,
 * or -1 when @blk is not one of its blocks.
 */
static long long journal_jblk(const struct e4_plan *p, blk64_t blk)
{
	size_t lo = 0, hi = p->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (blk < p->runs[mid].pblk)
			hi = mid;
		else if (blk >= p->runs[mid].pblk + p->runs[mid].len)
			lo = mid + 1;
		else
			return (long long)(p->runs[mid].jblk +
					   (blk - p->runs[mid].pblk));
	}
	return -1;
}

/*
 * Why a copy that no revoke cancels still does not reach the disk:
 * E4_TAG_BAD_CSUM, or 0 when it does.
 */
static int copy_skip(const struct e4_plan *p, const struct e4_jtag *g)
{
	(void)p;
	if (g->csum_ok == 0)
		return E4_TAG_BAD_CSUM;
	return 0;
}

/* Position of log block @jb in the walk from s_start (wrapping). */
static blk64_t log_pos(const struct e4_jscan *s, blk64_t jb)
{
	if (jb >= s->start_jblk)
		return jb - s->start_jblk;
	return (s->log_end - s->start_jblk) + (jb - s->log_first);
}

/*
 * Whether writing surviving copy @g (in the window, whose last log block
 * is @wend) makes the kernel's recovery fail (0: it does not), with the
 * reason in @why (@len bytes).  Kernel: __getblk() of a block past the
 * device end fails the recovery; a journal block written before the
 * replay pass reads it is re-read as written (not modelled: refused).
 */
static int copy_fails(const struct e4_plan *p, const struct e4_jtag *g,
		      blk64_t wend, char *why, size_t len)
{
	const struct e4_jscan *s = p->scan;
	long long jb;

	if (g->fsblk >= p->nblocks) {
		snprintf(why, len, "tag fsblk %llu (jblock %llu) lies past "
			 "the device end (%llu blocks): the kernel's mount "
			 "fails",
			 (unsigned long long)g->fsblk,
			 (unsigned long long)g->jblk,
			 (unsigned long long)p->nblocks);
		return 1;
	}
	jb = journal_jblk(p, g->fsblk);
	if (jb < 0)
		return 0;
	if (jb == 0 || ((blk64_t)jb >= s->log_end && s->fc) ||
	    ((blk64_t)jb >= s->log_first && (blk64_t)jb < s->log_end &&
	     log_pos(s, (blk64_t)jb) > log_pos(s, g->jblk) &&
	     log_pos(s, (blk64_t)jb) <= log_pos(s, wend))) {
		snprintf(why, len, "tag fsblk %llu (jblock %llu) is "
			 "journal block %lld, which the kernel reads after "
			 "writing it",
			 (unsigned long long)g->fsblk,
			 (unsigned long long)g->jblk, jb);
		return 1;
	}
	return 0;
}

/* Record the kernel's failure at tag @g of tid @tid in the scan. */
static errcode_t plan_fail(struct e4_plan *p, const struct e4_jtag *g,
			   uint32_t tid, const char *why)
{
	struct e4_jscan *s = p->scan;
	struct e4_scan_event *e;
	errcode_t retval;

	retval = ext2fs_resize_array(sizeof(*s->events), s->nevents,
				     s->nevents + 1, &s->events);
	if (retval)
		return retval;
	e = &s->events[s->nevents++];
	e->tid = tid;
	e->jblk = g->jblk;
	e->kind = E4_SCAN_BAD_TAG_BLOCK;
	snprintf(e->msg, sizeof(e->msg), "%s", why);
	s->fail = E4_ERR_BAD_TAG_BLOCK;
	s->corrupt = 1;
	return 0;
}

/* A copy of tag @g of transaction @tid; src_blk resolved later. */
static void copy_of(const struct e4_jtag *g, uint32_t tid,
		    struct e4_copy *c)
{
	c->fsblk = g->fsblk;
	c->jblk = g->jblk;
	c->src_blk = 0;
	c->tid = tid;
	c->flags = ((g->flags & JBD2_FLAG_ESCAPE) ? E4_COPY_ESCAPED : 0) |
		g->facts;
}

/* The sort key of a candidate of the window: fs block, then log order
 * (seq, its index among the candidates). */
struct cand_key {
	blk64_t		fsblk;
	size_t		seq;
};

static int cmp_fsblk_seq(const void *a, const void *b)
{
	const struct cand_key *x = a, *y = b;

	if (x->fsblk != y->fsblk)
		return x->fsblk < y->fsblk ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The revoke table of the committed transactions of @scan. */
static errcode_t window_revokes(const struct e4_jscan *scan,
				struct e4_revoke_table **ret)
{
	struct e4_revoke_table *rt;
	size_t i, k, hint = 0;
	errcode_t retval;

	for (i = 0; i < scan->ncommitted; i++)
		hint += scan->trans[i].nrevokes;
	retval = e4_revoke_new(hint, &rt);
	if (retval)
		return retval;
	for (i = 0; i < scan->ncommitted; i++) {
		const struct e4_jtrans *t = &scan->trans[i];

		for (k = 0; k < t->nrevokes; k++) {
			retval = e4_revoke_set(rt, t->revokes[k], t->tid);
			if (retval) {
				e4_revoke_free(rt);
				return retval;
			}
		}
	}
	*ret = rt;
	return 0;
}

/*
 * The fates of every tag over the window and the winners (log order).
 * A candidate is its tag and tid (12 bytes, the copy built only for the
 * winners) and its sort key.
 */
static errcode_t plan_window(struct e4_plan *p)
{
	struct e4_jscan *scan = p->scan;
	struct e4_replay_result *res = &p->res;
	struct e4_revoke_table *rt = NULL;
	struct e4_jtag **tag = NULL;	/* NULL once superseded */
	uint32_t *tid = NULL;
	struct cand_key *key = NULL;
	size_t i, k, n = 0, total = 0;
	blk64_t wend;
	errcode_t retval;
	char msg[120];
	int why;

	for (i = 0; i < scan->ntrans; i++)
		total += scan->trans[i].ntags;
	retval = window_revokes(scan, &rt);
	if (retval)
		return retval;
	res->nrevoke_blocks = e4_revoke_count(rt);
	if (!total)
		total = 1;
	retval = ext2fs_get_array(total, sizeof(*tag), &tag);
	if (!retval)
		retval = ext2fs_get_array(total, sizeof(*tid), &tid);
	if (!retval)
		retval = ext2fs_get_array(total, sizeof(*key), &key);
	if (retval)
		goto out;
	wend = scan->ncommitted ? scan->trans[scan->ncommitted - 1].last_jblk
		: scan->start_jblk;

	for (i = 0; i < scan->ntrans; i++) {
		struct e4_jtrans *t = &scan->trans[i];

		for (k = 0; k < t->ntags; k++) {
			struct e4_jtag *g = &t->tags[k];

			if (i >= scan->ncommitted) {
				g->fate = E4_TAG_UNCOMMITTED;
				continue;
			}
			res->ntags++;
			/* PASS_REPLAY tests the revoke first. */
			if (e4_revoke_test(rt, g->fsblk, t->tid)) {
				g->fate = E4_TAG_REVOKED;
				res->nrevoked++;
				continue;
			}
			why = copy_skip(p, g);
			if (why) {
				g->fate = why;
				res->nbad_csum++;
				continue;
			}
			if (copy_fails(p, g, wend, msg, sizeof(msg))) {
				/* The kernel tests the checksum first: a
				 * pending one must be known to decide. */
				if (g->csum_ok == E4_CSUM_PENDING) {
					p->csum_needed = 1;
				} else {
					/* The kernel's recovery fails here:
					 * no plan (fates dropped below). */
					retval = plan_fail(p, g, t->tid, msg);
					goto out;
				}
			}
			g->fate = E4_TAG_REPLAY;
			tag[n] = g;
			tid[n] = t->tid;
			key[n].fsblk = g->fsblk;
			key[n].seq = n;
			n++;
		}
	}
	if (res->nbad_csum)
		res->corrupt = 1;

	/* Newest surviving copy of each block wins; the winners stay in
	 * log order. */
	xsort(key, n, sizeof(*key), cmp_fsblk_seq);
	for (i = 0, k = n; i + 1 < n; i++)
		if (key[i + 1].fsblk == key[i].fsblk) {
			tag[key[i].seq]->fate = E4_TAG_SUPERSEDED;
			tag[key[i].seq] = NULL;
			res->nsuperseded++;
			k--;
		}
	ext2fs_free_mem(&key);	/* before the winners are allocated */
	res->nwritten = k;
	retval = ext2fs_get_array(k ? k : 1, sizeof(*p->final), &p->final);
	if (retval)
		goto out;
	for (i = 0, k = 0; i < n; i++)
		if (tag[i])
			copy_of(tag[i], tid[i], &p->final[k++]);
	p->nfinal = k;
out:
	ext2fs_free_mem(&tag);
	ext2fs_free_mem(&tid);
	ext2fs_free_mem(&key);
	e4_revoke_free(rt);
	return retval;
}

/*
 * Blocks of the device holding @fs (ext2fs_get_device_size2(): a file's
 * size, a device's), at least the fs's block count (a name that is no
 * file, such as a write log's, or a truncated image: the fs's size).
 */
static blk64_t dev_blocks(ext2_filsys fs)
{
	blk64_t n = ext2fs_blocks_count(fs->super), d;

	if (fs->device_name &&
	    !ext2fs_get_device_size2(fs->device_name, fs->blocksize, &d) &&
	    d > n)
		n = d;
	return n;
}

errcode_t e4_plan_build(e4_journal_t j, struct e4_jscan *scan,
			struct e4_plan **ret)
{
	struct e4_plan *p;
	errcode_t retval;
	size_t i, k;

	e4_error_tables_init();
	*ret = NULL;
	retval = ext2fs_get_memzero(sizeof(*p), &p);
	if (retval)
		return retval;
	p->j = j;
	p->scan = scan;
	/* A journal file with no fs (e4_journal_open_file()): no bound. */
	p->nblocks = j->fs ? dev_blocks(j->fs) : ~(blk64_t)0;
	p->res.size = sizeof(p->res);
	p->res.new_sequence = scan->end_tid + 1;
	p->res.corrupt = scan->corrupt;
	if (scan->fail) {	/* the kernel replays nothing */
		*ret = p;
		return 0;
	}
	p->ntx = scan->ncommitted;
	if (!j->external && j->nruns) {
		retval = ext2fs_get_array(j->nruns, sizeof(*p->runs),
					  &p->runs);
		if (retval)
			goto fail;
		memcpy(p->runs, j->runs, j->nruns * sizeof(*p->runs));
		p->nruns = j->nruns;
		xsort(p->runs, p->nruns, sizeof(*p->runs), cmp_run_pblk);
	}
	retval = plan_window(p);
	if (retval)
		goto fail;
	if (scan->fail) {	/* plan_window() found the kernel failing */
		ext2fs_free_mem(&p->final);
		memset(&p->res, 0, sizeof(p->res));
		p->res.size = sizeof(p->res);
		p->res.new_sequence = scan->end_tid + 1;
		p->res.corrupt = 1;
		p->nfinal = 0;
		p->ntx = 0;
		/* as a failed scan (scan.c): nothing committed, no fate */
		scan->ncommitted = 0;
		for (i = 0; i < scan->ntrans; i++) {
			scan->trans[i].committed = 0;
			for (k = 0; k < scan->trans[i].ntags; k++)
				scan->trans[i].tags[k].fate =
					E4_TAG_UNPLANNED;
		}
	}
	*ret = p;
	return 0;
fail:
	e4_plan_free(p);
	return retval;
}

void e4_plan_free(struct e4_plan *p)
{
	if (!p)
		return;
	ext2fs_free_mem(&p->runs);
	ext2fs_free_mem(&p->final);
	ext2fs_free_mem(&p);
}

void e4_plan_result(const struct e4_jscan *scan, const struct e4_plan *p,
		    struct e4_replay_result *ures)
{
	struct e4_replay_result res;

	if (e4_struct_size_ok(ures->size, E4_REPLAY_RESULT_SIZE0))
		return;		/* not readied: left alone */
	if (p) {
		res = p->res;
	} else {
		memset(&res, 0, sizeof(res));
		res.new_sequence = scan->end_tid + 1;
		res.corrupt = scan->corrupt;
	}
	res.size = sizeof(res);
	e4_replay_progress_in(&res, ures);	/* the caller's, kept */
	e4_struct_out(ures, &res, sizeof(res));
}

void e4_plan_mount_refused(const struct e4_plan *p,
			   struct e4_mount_refusal *out)
{
	const struct e4_jscan *s = p->scan;
	size_t i, k;

	memset(out, 0, sizeof(*out));
	if (s->fail)
		return;
	for (i = 0; i < p->ntx; i++)
		for (k = 0; k < s->trans[i].ntags; k++) {
			const struct e4_jtag *g = &s->trans[i].tags[k];

			if (g->fate != E4_TAG_BAD_CSUM)
				continue;
			if (!out->nbad++) {
				out->tid = s->trans[i].tid;
				out->tag = g;
			}
		}
	/* a bare journal device: its fs decides, not known here */
	out->wiped = s->start_jblk &&
		!ext2fs_has_feature_journal_dev(p->j->fs->super) &&
		!ext2fs_has_feature_journal_needs_recovery(p->j->fs->super);
	/* jbd2_journal_load(): the recovery's error first, then
	 * j_failed_commit */
	if (out->nbad && !out->wiped) {
		out->err = E4_ERR_JOURNAL_CHECKSUM;
	} else if (s->has_failed_commit) {
		out->err = E4_ERR_JOURNAL_CORRUPT;
		out->tid = s->failed_commit;
	}
}

errcode_t e4_journal_replay_plan(e4_journal_t j, struct e4_jscan *scan,
				 struct e4_replay_result *res)
{
	struct e4_plan *p;
	errcode_t retval;

	e4_error_tables_init();
	retval = e4_struct_size_ok(res->size, E4_REPLAY_RESULT_SIZE0);
	if (retval)
		return retval;
	retval = e4_plan_build(j, scan, &p);
	e4_plan_result(scan, p, res);
	e4_plan_free(p);
	return retval ? retval : scan->fail;
}

/* ---- states S_k ---------------------------------------------------------- */

static int cmp_copy_fsblk(const void *a, const void *b)
{
	const struct e4_copy *x = a, *y = b;

	return x->fsblk < y->fsblk ? -1 : x->fsblk > y->fsblk;
}

/* Stable order by fsblk, keeping log order among equal blocks. */
struct copy_idx {
	struct e4_copy	c;
	size_t		idx;
};

static int cmp_copy_idx(const void *a, const void *b)
{
	const struct copy_idx *x = a, *y = b;
	int r = cmp_copy_fsblk(&x->c, &y->c);

	if (r)
		return r;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Room for @n entries in the state's spare buffer. */
static errcode_t spare_room(struct e4_state *st, size_t n)
{
	errcode_t retval;

	if (n <= st->spare_alloc)
		return 0;
	retval = ext2fs_resize_array(sizeof(*st->spare), st->spare_alloc, n,
				     &st->spare);
	if (!retval)
		st->spare_alloc = n;
	return retval;
}

/* Make the spare buffer the state's map. */
static void spare_swap(struct e4_state *st, size_t n)
{
	struct e4_copy *e = st->ents;
	size_t a = st->alloc;

	st->ents = st->spare;
	st->alloc = st->spare_alloc;
	st->n = n;
	st->spare = e;
	st->spare_alloc = a;
}

errcode_t e4_state_init(const struct e4_plan *p, struct e4_state *st)
{
	e4_error_tables_init();
	memset(st, 0, sizeof(*st));
	st->plan = p;
	return 0;
}

void e4_state_free(struct e4_state *st)
{
	ext2fs_free_mem(&st->ents);
	ext2fs_free_mem(&st->spare);
	memset(st, 0, sizeof(*st));
}

/*
 * Tk's surviving copies, the newest per block, sorted by fsblk, with
 * their blocks on the journal's channel, into *@out (*@nout of them).
 */
static errcode_t tx_copies(const struct e4_plan *p, const struct e4_jtrans *tr,
			   struct copy_idx **out, size_t *nout)
{
	struct copy_idx *t = NULL;
	size_t i, n = 0;
	errcode_t retval;

	*out = NULL;
	*nout = 0;
	if (!tr->ntags)
		return 0;
	retval = ext2fs_get_array(tr->ntags, sizeof(*t), &t);
	if (retval)
		return retval;
	for (i = 0; i < tr->ntags; i++) {
		const struct e4_jtag *g = &tr->tags[i];

		if (copy_skip(p, g))
			continue;
		copy_of(g, tr->tid, &t[n].c);
		retval = e4_journal_bmap(p->j, g->jblk, &t[n].c.src_blk);
		if (retval) {
			ext2fs_free_mem(&t);
			return retval;
		}
		t[n].idx = i;
		n++;
	}
	xsort(t, n, sizeof(*t), cmp_copy_idx);
	*out = t;
	*nout = n;
	return 0;
}

/* Room for @n entries in the state's map (doubling: no copy per step). */
static errcode_t ents_room(struct e4_state *st, size_t n)
{
	size_t na = st->alloc ? st->alloc : 64;
	errcode_t retval;

	if (n <= st->alloc)
		return 0;
	while (na < n)
		na *= 2;
	retval = ext2fs_resize_array(sizeof(*st->ents), st->alloc, na,
				     &st->ents);
	if (!retval)
		st->alloc = na;
	return retval;
}

/* Index of the first entry of ents[0..n) at or after @fsblk. */
static size_t ents_find(const struct e4_copy *e, size_t n, blk64_t fsblk)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].fsblk < fsblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

errcode_t e4_state_advance(struct e4_state *st)
{
	const struct e4_plan *p = st->plan;
	const struct e4_jtrans *tr;
	struct copy_idx *t = NULL;
	blk64_t *rev = NULL;
	size_t nt = 0, nr = 0, a, b, m, ins = 0, w, i, r;
	errcode_t retval;

	e4_error_tables_init();
	if (st->k >= p->ntx)
		return EXT2_ET_INVALID_ARGUMENT;
	tr = &p->scan->trans[st->k];
	retval = tx_copies(p, tr, &t, &nt);
	if (retval)
		return retval;
	if (tr->nrevokes) {
		retval = ext2fs_get_array(tr->nrevokes, sizeof(*rev), &rev);
		if (retval)
			goto out;
		memcpy(rev, tr->revokes, tr->nrevokes * sizeof(*rev));
		nr = tr->nrevokes;
		xsort(rev, nr, sizeof(*rev), blk_cmp);
	}
	/* Tk's newest copy of each block (the last of equal blocks). */
	for (a = 0, m = 0; a < nt; a++)
		if (a + 1 == nt || t[a + 1].c.fsblk != t[a].c.fsblk)
			t[m++] = t[a];
	nt = m;
	for (b = 0; b < nt; b++) {
		i = ents_find(st->ents, st->n, t[b].c.fsblk);
		ins += i == st->n || st->ents[i].fsblk != t[b].c.fsblk;
	}
	retval = ents_room(st, st->n + ins);
	if (retval)
		goto out;
	/*
	 * Merge in place from the top: Tk's copy replaces the one before;
	 * entries move only above the lowest new block (a transaction's
	 * new blocks mostly lie above the map's: little moves).
	 */
	a = st->n;
	w = st->n + ins;
	for (b = nt; b > 0 && w != a; ) {
		if (a && st->ents[a - 1].fsblk > t[b - 1].c.fsblk) {
			st->ents[--w] = st->ents[--a];
			continue;
		}
		if (a && st->ents[a - 1].fsblk == t[b - 1].c.fsblk)
			a--;
		st->ents[--w] = t[--b].c;
	}
	for (; b > 0; b--)	/* no new block below: replacements only */
		st->ents[ents_find(st->ents, a, t[b - 1].c.fsblk)] =
			t[b - 1].c;
	st->n += ins;
	/* A revoke of Tk cancels every copy of its block (all have tids
	 * <= Tk's). */
	for (r = 0, w = 0, a = 0; r < nr; r++) {
		i = ents_find(st->ents, st->n, rev[r]);
		if (i == st->n || st->ents[i].fsblk != rev[r] || i < a)
			continue;
		if (w != a)
			memmove(st->ents + w, st->ents + a,
				(i - a) * sizeof(*st->ents));
		w += i - a;
		a = i + 1;
	}
	if (a) {
		if (w != a)
			memmove(st->ents + w, st->ents + a,
				(st->n - a) * sizeof(*st->ents));
		st->n -= a - w;
	}
	st->k++;
out:
	ext2fs_free_mem(&t);
	ext2fs_free_mem(&rev);
	return retval;
}

/* S_n at once: the window's winners by fsblk, resolved on the channel. */
static errcode_t state_final(struct e4_state *st)
{
	const struct e4_plan *p = st->plan;
	size_t i;
	errcode_t retval;

	retval = spare_room(st, p->nfinal);
	if (retval)
		return retval;
	for (i = 0; i < p->nfinal; i++) {
		st->spare[i] = p->final[i];
		retval = e4_journal_bmap(p->j, p->final[i].jblk,
					 &st->spare[i].src_blk);
		if (retval)
			return retval;
	}
	xsort(st->spare, p->nfinal, sizeof(*st->spare), cmp_copy_fsblk);
	spare_swap(st, p->nfinal);
	st->k = p->ntx;
	return 0;
}

errcode_t e4_state_seek(struct e4_state *st, size_t k)
{
	errcode_t retval;

	e4_error_tables_init();
	if (k > st->plan->ntx)
		k = st->plan->ntx;
	if (k < st->k) {
		st->n = 0;
		st->k = 0;
	}
	if (k == st->plan->ntx && k > st->k + 1)
		return state_final(st);
	while (st->k < k) {
		retval = e4_state_advance(st);
		if (retval)
			return retval;
	}
	return 0;
}

const struct e4_copy *e4_state_lookup(const struct e4_state *st,
				      blk64_t fsblk)
{
	size_t i = e4_state_find(st, fsblk);

	if (st && i < st->n && st->ents[i].fsblk == fsblk)
		return &st->ents[i];
	return NULL;
}

size_t e4_state_find(const struct e4_state *st, blk64_t fsblk)
{
	size_t lo = 0, hi = st ? st->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->ents[mid].fsblk < fsblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

errcode_t e4_log_outcome(e4_journal_t j, const unsigned char *sb,
			 struct e4_log_outcome *out)
{
	unsigned char saved[JBD2_JSB_SIZE];
	struct e4_jsb saved_jsb;
	struct e4_jscan *scan = NULL;
	struct e4_plan *plan = NULL;
	errcode_t retval;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (sb) {
		memcpy(saved, j->sb, JBD2_JSB_SIZE);
		saved_jsb = j->jsb;
		memcpy(j->sb, sb, JBD2_JSB_SIZE);
		e4_jsb_decode(j->sb, &j->jsb);
	}
	retval = e4_journal_scan(j, 0, 0, &scan);
	if (retval)
		goto out;
	out->fail = scan->fail;
	out->start_tid = scan->start_tid;
	out->end_tid = scan->end_tid;
	out->corrupt = scan->corrupt;
	if (scan->fail)
		goto out;
	out->ncommitted = scan->ncommitted;
	for (i = 0; i < scan->ncommitted; i++)
		out->ntags += scan->trans[i].ntags;
	retval = e4_plan_build(j, scan, &plan);
	if (retval)
		goto out;
	e4_plan_mount_refused(plan, &out->refused);
	out->refused.tag = NULL;	/* points into the scan freed here */
out:
	e4_plan_free(plan);
	e4_jscan_free(scan);
	if (sb) {
		memcpy(j->sb, saved, JBD2_JSB_SIZE);
		j->jsb = saved_jsb;
	}
	return retval;
}

int e4_log_outcome_same(const struct e4_log_outcome *a,
			const struct e4_log_outcome *b)
{
	return a->fail == b->fail && a->start_tid == b->start_tid &&
		a->end_tid == b->end_tid && a->ncommitted == b->ncommitted &&
		a->ntags == b->ntags && a->corrupt == b->corrupt &&
		a->refused.err == b->refused.err &&
		a->refused.tid == b->refused.tid &&
		a->refused.nbad == b->refused.nbad;
}
