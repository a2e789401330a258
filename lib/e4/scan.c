/*
 * scan.c --- the kernel's PASS_SCAN over the jbd2 log: find the
 * transactions, their tags, revoke records and commit blocks, and where
 * and why the log ends.
 *
 * Source: fs/jbd2/recovery.c do_one_pass() (Linux 6.x); journal.rst.
 * The blocks are decoded and their checksums checked by jblock.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4.h"
#include "e4_int.h"

#define CHUNK_BYTES	(1U << 20)	/* largest sequential journal read (cache
					 * warm for the checksums after it) */
#define FIRST_CHUNK	(64U << 10)	/* first read; doubles up to CHUNK */
#define DEFER_CHUNK	(8U << 10)	/* reads with E4_SCANF_DEFER_CSUM: the
					 * descriptor, revoke and commit
					 * blocks, not the copies between */

/* A window of the journal read in one go, in jblocks [start, start+n). */
struct lreader {
	e4_journal_t	j;
	unsigned char	*buf;
	blk64_t		cap;		/* jblocks the buffer may grow to */
	blk64_t		alloc;		/* jblocks the buffer holds now */
	blk64_t		want;		/* jblocks for the next read */
	blk64_t		start, n;
	blk64_t		log_end;
	uint64_t	nreads;
	struct e4_jview	*view;		/* in place from the page cache when
					 * mapped (jview.c), else NULL */
};

struct lr_copy_arg {
	unsigned char	*dst;
	unsigned int	bs;
};

/* e4_jview_apply() function: copy one jblock out of the mapping. */
static void lr_copy(void *arg, const unsigned char *d)
{
	struct lr_copy_arg *c = arg;

	memcpy(c->dst, d, c->bs);
}

/*
 * The jblock @jblk, from the window or from a new read starting there and
 * running, without wrapping, to the log end (or the journal end past it).
 */
static errcode_t lr_get(struct lreader *r, blk64_t jblk,
			const unsigned char **p)
{
	e4_journal_t j = r->j;
	struct lr_copy_arg ca;
	blk64_t end, count;
	errcode_t retval;

	if (jblk >= r->start && jblk < r->start + r->n) {
		*p = r->buf + (jblk - r->start) * j->blocksize;
		return 0;
	}
	end = jblk < r->log_end ? r->log_end : j->real_len;
	if (jblk >= end)
		return EXT2_ET_BAD_BLOCK_NUM;
	if (e4_jview_mapped(r->view) || e4_jview_changed(r->view)) {
		/* One block copied out of the page cache under the view's
		 * SIGBUS guard: the caller keeps the pointer a while. */
		if (!r->alloc) {
			retval = ext2fs_get_mem(j->blocksize, &r->buf);
			if (retval)
				return retval;
			r->alloc = 1;
		}
		r->n = 0;
		ca.dst = r->buf;
		ca.bs = j->blocksize;
		retval = e4_jview_apply(r->view, jblk, 1, NULL, lr_copy, &ca);
		if (retval == E4_ERR_CHANGED_SIZE)
			return retval;
		if (!retval) {
			r->nreads++;
			r->start = jblk;
			r->n = 1;
			*p = r->buf;
			return 0;
		}
	}
	count = end - jblk;
	if (count > r->want)
		count = r->want;
	r->n = 0;
	if (count > r->alloc) {	/* grow with want: small logs stay small */
		retval = ext2fs_resize_mem(r->alloc * j->blocksize,
					   count * j->blocksize, &r->buf);
		if (retval)
			return retval;
		r->alloc = count;
	}
	retval = e4_journal_read(j, jblk, count, r->buf);
	r->nreads++;
	if (retval && count > 1) {
		/* Find out whether this very block is unreadable. */
		count = 1;
		retval = e4_journal_read(j, jblk, 1, r->buf);
		r->nreads++;
	}
	if (retval)
		return retval;
	if (r->want * 2 <= r->cap)
		r->want *= 2;
	r->start = jblk;
	r->n = count;
	*p = r->buf;
	return 0;
}

/* ---- the scan ---------------------------------------------------------- */

struct scanner {
	e4_journal_t	j;
	struct e4_jscan	*s;
	struct lreader	r;
	uint32_t	incompat, compat;
	struct e4_jcodec codec;		/* checksums, seed computed once */
	size_t		trans_alloc, ev_alloc;
	size_t		tag_alloc, rev_alloc;	/* of the current trans */
	struct e4_jtag	*dtags;		/* tags of one descriptor */
	blk64_t		*drevs;
	size_t		dmax;
	int		defer;		/* E4_SCANF_DEFER_CSUM applies */
	int		hash;		/* E4_SCANF_HASH */
	/* e4_journal_scan_resume(): the walk goes on after the kept
	 * transactions (s->trans[0..ntrans) on entry) */
	int		resumed;
	blk64_t		r_next;		/* the jblock after the last commit */
	uint32_t	r_tid;		/* the tid expected there */
	uint64_t	r_time;		/* the last commit's h_commit_sec */
	blk64_t		r_walked;	/* log blocks of the kept ones */
};

static blk64_t wrap(const struct e4_jscan *s, blk64_t v)
{
	if (v >= s->log_end)
		v -= s->log_end - s->log_first;
	return v;
}

static errcode_t add_event(struct scanner *sc, uint32_t tid, blk64_t jblk,
			   int kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static errcode_t add_event(struct scanner *sc, uint32_t tid, blk64_t jblk,
			   int kind, const char *fmt, ...)
{
	struct e4_jscan *s = sc->s;
	struct e4_scan_event *e;
	errcode_t retval;
	va_list ap;

	retval = grow(&s->events, &sc->ev_alloc, s->nevents + 1, sizeof(*e));
	if (retval)
		return retval;
	e = &s->events[s->nevents++];
	e->tid = tid;
	e->jblk = jblk;
	e->kind = kind;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return 0;
}

/* The transaction entry for @tid: the last one, or a new one at @jblk. */
static errcode_t cur_trans(struct scanner *sc, uint32_t tid, blk64_t jblk,
			   struct e4_jtrans **ret)
{
	struct e4_jscan *s = sc->s;
	struct e4_jtrans *t;
	errcode_t retval;

	if (s->ntrans && s->trans[s->ntrans - 1].tid == tid) {
		*ret = &s->trans[s->ntrans - 1];
		return 0;
	}
	retval = grow(&s->trans, &sc->trans_alloc, s->ntrans + 1, sizeof(*t));
	if (retval)
		return retval;
	t = &s->trans[s->ntrans++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first_jblk = jblk;
	t->commit_csum_ok = -1;
	sc->tag_alloc = sc->rev_alloc = 0;
	*ret = t;
	return 0;
}

/*
 * A descriptor or revoke block (@what) of transaction @tid at jblock @pos:
 * count it in the transaction (*@tp) and check its tail checksum.  A
 * failure is not decided here: the kernel sets need_check_commit_time
 * and lets the next commit block's time decide (recovery.c do_one_pass()).
 */
static errcode_t tail_block(struct scanner *sc, uint32_t tid, blk64_t pos,
			    const uint8_t *b, const char *what,
			    struct e4_jtrans **tp, int *need_check)
{
	errcode_t retval;

	retval = cur_trans(sc, tid, pos, tp);
	if (retval)
		return retval;
	(*tp)->last_jblk = pos;
	(*tp)->nblocks++;
	if (e4_jblock_tail_csum_ok(&sc->codec, b))
		return 0;
	*need_check = 1;
	(*tp)->bad_block_csum = 1;
	return add_event(sc, tid, pos, E4_SCAN_DESC_CSUM,
			 "%s block %llu fails its tail checksum: the next "
			 "commit decides (need_check_commit_time)", what,
			 (unsigned long long)pos);
}

static void stop_at(struct e4_jscan *s, enum e4_scan_stop why, blk64_t jblk)
{
	s->stop = why;
	s->stop_jblk = jblk;
}

/* The fast-commit area: blocks [log_end + 1, maxlen) (kernel j_fc_first
 * .. j_fc_last).  Counts blocks starting with a known TLV tag and reads
 * the HEAD tag's tid (ext4_fc_replay_scan(), fs/ext4/fast_commit.c). */
static void scan_fc(struct scanner *sc)
{
	struct e4_jscan *s = sc->s;
	e4_journal_t j = sc->j;
	blk64_t b, maxlen = j->jsb.maxlen;
	const unsigned char *p;
	uint16_t tag, len;

	if (!(sc->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT))
		return;
	for (b = s->log_end + 1; b < maxlen && b < j->real_len; b++) {
		if (lr_get(&sc->r, b, &p))
			break;
		tag = e4_le16(p);
		len = e4_le16(p + 2);
		if (tag < E4_FC_TAG_ADD_RANGE || tag > E4_FC_TAG_HEAD ||
		    len > j->blocksize - E4_FC_TL_SIZE)
			continue;
		s->fc_blocks_used++;
		if (b == s->log_end + 1 && tag == E4_FC_TAG_HEAD &&
		    len >= 8) {
			s->fc_head_tid = e4_le32(p + E4_FC_TL_SIZE + 4);
			s->fc_live = s->fc_head_tid == s->end_tid;
		}
	}
}

static errcode_t do_scan(struct scanner *sc, int flags, uint32_t upto)
{
	struct e4_jscan *s = sc->s;
	e4_journal_t j = sc->j;
	unsigned int bs = j->blocksize;
	blk64_t next = s->start_jblk, pos, walked = 0;
	uint32_t tid = s->start_tid, crc32_sum = ~0U, found;
	uint64_t commit_time, last_time = 0;
	int need_check = 0, end_set = 0, v1, async, ok;
	const unsigned char *b, *d;
	struct e4_jtrans *t;
	errcode_t retval;
	size_t i, n;

	v1 = !!(sc->compat & JBD2_FEATURE_COMPAT_CHECKSUM);
	async = !!(sc->incompat & JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT);
	if (sc->resumed) {	/* at a commit boundary: crc32_sum reset,
				 * no check pending, the log not ended */
		next = sc->r_next;
		tid = sc->r_tid;
		last_time = sc->r_time;
		walked = sc->r_walked;
	}

	for (;;) {
		if (next >= j->jsb.maxlen) {
			s->fail = E4_ERR_JOURNAL_CORRUPT;
			stop_at(s, E4_SCAN_IO_ERROR, next);
			return add_event(sc, tid, next, E4_SCAN_IO_ERROR,
				"jblock %llu past s_maxlen: recovery fails "
				"(recovery.c jread: EFSCORRUPTED)",
				(unsigned long long)next);
		}
		retval = lr_get(&sc->r, next, &b);
		if (retval) {
			s->fail = retval;
			stop_at(s, E4_SCAN_IO_ERROR, next);
			return add_event(sc, tid, next, E4_SCAN_IO_ERROR,
				"jblock %llu unreadable: recovery fails "
				"(recovery.c jread)",
				(unsigned long long)next);
		}
		pos = next;
		next = wrap(s, next + 1);
		if (e4_be32(b + JBD2_H_MAGIC) != JBD2_MAGIC) {
			stop_at(s, E4_SCAN_NO_MAGIC, pos);
			break;
		}
		if (e4_be32(b + JBD2_H_SEQUENCE) != tid) {
			stop_at(s, E4_SCAN_SEQUENCE, pos);
			break;
		}
		switch (e4_be32(b + JBD2_H_BLOCKTYPE)) {
		case JBD2_DESCRIPTOR_BLOCK:
			walked++;
			retval = tail_block(sc, tid, pos, b, "descriptor",
					    &t, &need_check);
			if (retval)
				return retval;
			t->ndescriptors++;
			n = e4_jdesc_parse(b, bs, sc->incompat, sc->dtags,
					   sc->dmax);
			if (n > sc->dmax)	/* cannot happen: dmax = bs */
				n = sc->dmax;
			retval = grow(&t->tags, &sc->tag_alloc, t->ntags + n,
				      sizeof(*t->tags));
			if (retval)
				return retval;
			if (v1 && !end_set)
				crc32_sum = e4_crc32_be(crc32_sum, b, bs);
			/* b may move when the window is refilled. */
			for (i = 0; i < n; i++) {
				struct e4_jtag *g = &t->tags[t->ntags++];

				*g = sc->dtags[i];
				g->jblk = next;
				next = wrap(s, next + 1);
				t->last_jblk = g->jblk;
				t->nblocks++;
				walked++;
				if (!(v1 && !end_set) && !sc->codec.v2v3)
					continue;
				if (!(v1 && !end_set) && sc->defer) {
					g->csum_ok = E4_CSUM_PENDING;
					s->ncsum_pending++;
					continue;
				}
				retval = lr_get(&sc->r, g->jblk, &d);
				if (retval && v1 && !end_set) {
					/* calc_chksums(): io error ends the
					 * scan quietly. */
					stop_at(s, E4_SCAN_IO_ERROR, g->jblk);
					goto done;
				}
				if (retval) {
					g->csum_ok = 0;
					continue;
				}
				if (v1 && !end_set)
					crc32_sum = e4_crc32_be(crc32_sum,
								    d, bs);
				if (sc->codec.v2v3)
					g->csum_ok = e4_jtag_csum_ok(
						&sc->codec, g, tid, d);
				if (sc->hash) {
					g->hash = e4_jblock_hash(d, bs,
						g->flags & JBD2_FLAG_ESCAPE);
					g->hashed = 1;
					g->facts = e4_jblock_facts(d, bs,
						g->fsblk,
						g->flags & JBD2_FLAG_ESCAPE);
				}
			}
			continue;

		case JBD2_COMMIT_BLOCK:
			walked++;
			retval = cur_trans(sc, tid, pos, &t);
			if (retval)
				return retval;
			t->last_jblk = pos;
			t->nblocks++;
			t->has_commit = 1;
			e4_jcommit_decode(b, t);
			commit_time = t->commit_sec;
			found = t->commit_csum;
			if (need_check) {
				if (commit_time >= last_time) {
					s->fail = E4_ERR_JOURNAL_CHECKSUM;
					stop_at(s, E4_SCAN_DESC_CSUM, pos);
					return add_event(sc, tid, pos,
						E4_SCAN_DESC_CSUM,
						"tid %u: a block failed its "
						"checksum and the commit time "
						"did not go back: recovery "
						"fails (EFSBADCRC)", tid);
				}
				stop_at(s, E4_SCAN_STALE, pos);
				retval = add_event(sc, tid, pos, E4_SCAN_STALE,
					"tid %u: bad block checksum and older "
					"commit time: stale log from lazy "
					"journal init, end of log", tid);
				if (retval)
					return retval;
				goto done;
			}
			if (v1) {
				if (end_set) {
					s->has_failed_commit = 1;
					s->failed_commit = s->end_tid;
					s->corrupt = 1;
					stop_at(s, E4_SCAN_COMMIT_CSUM, pos);
					retval = add_event(sc, tid, pos,
						E4_SCAN_COMMIT_CSUM,
						"commit of tid %u after the "
						"failed async commit of tid "
						"%u: journal corrupt "
						"(j_failed_commit)", tid,
						s->end_tid);
					if (retval)
						return retval;
					break;
				}
				ok = (crc32_sum == found &&
				      t->commit_csum_type ==
						JBD2_CRC32_CHKSUM &&
				      t->commit_csum_size ==
						JBD2_CRC32_CHKSUM_SIZE) ||
				     (t->commit_csum_type == 0 &&
				      t->commit_csum_size == 0 && found == 0);
				t->commit_csum_ok = ok;
				if (ok) {
					crc32_sum = ~0U;
					goto chksum_ok;
				}
				goto chksum_error;
			}
			ok = e4_jcommit_csum_check(&sc->codec, b);
			if (sc->codec.v2v3)
				t->commit_csum_ok = !!ok;
			if (ok == 2) {
				t->commit_partial = 1;
				retval = add_event(sc, tid, pos, 0,
					"tid %u: commit block checksum "
					"matches its header only (incomplete "
					"commit block, accepted)", tid);
				if (retval)
					return retval;
			}
			if (ok)
				goto chksum_ok;
chksum_error:
			if (commit_time < last_time) {
				stop_at(s, E4_SCAN_STALE, pos);
				retval = add_event(sc, tid, pos, E4_SCAN_STALE,
					"tid %u: commit checksum fails and "
					"the commit time went back: stale "
					"block, end of log", tid);
				if (retval)
					return retval;
				goto done;
			}
			s->end_tid = tid;
			end_set = 1;
			s->corrupt = 1;
			if (!async) {
				s->has_failed_commit = 1;
				s->failed_commit = tid;
				stop_at(s, E4_SCAN_COMMIT_CSUM, pos);
				retval = add_event(sc, tid, pos,
					E4_SCAN_COMMIT_CSUM,
					"tid %u: commit block checksum "
					"fails: not replayed, journal "
					"corrupt (j_failed_commit)", tid);
				if (retval)
					return retval;
				break;
			}
			retval = add_event(sc, tid, pos, E4_SCAN_COMMIT_CSUM,
				"tid %u: commit block checksum fails with "
				"async_commit: log ends before it, scan goes "
				"on", tid);
			if (retval)
				return retval;
chksum_ok:
			last_time = commit_time;
			tid++;
			if ((flags & E4_SCANF_UPTO) && !end_set &&
			    tid - 1 == upto) {
				stop_at(s, E4_SCAN_UPTO, next);
				goto done;
			}
			continue;

		case JBD2_REVOKE_BLOCK:
			walked++;
			retval = tail_block(sc, tid, pos, b, "revoke", &t,
					    &need_check);
			if (retval)
				return retval;
			t->nrevoke_blocks++;
			retval = e4_jrevoke_parse(b, bs, sc->incompat,
						  sc->drevs, sc->dmax, &n);
			if (retval) {
				s->fail = retval;
				stop_at(s, E4_SCAN_BAD_REVOKE, pos);
				return add_event(sc, tid, pos,
					E4_SCAN_BAD_REVOKE,
					"revoke block %llu: r_count %u "
					"exceeds the block: recovery fails "
					"(scan_revoke_records: EINVAL)",
					(unsigned long long)pos,
					e4_be32(b + JBD2_REVOKE_COUNT));
			}
			retval = grow(&t->revokes, &sc->rev_alloc,
				      t->nrevokes + n, sizeof(*t->revokes));
			if (retval)
				return retval;
			if (n)	/* t->revokes is still NULL when n == 0 */
				memcpy(t->revokes + t->nrevokes, sc->drevs,
				       n * sizeof(*sc->drevs));
			t->nrevokes += n;
			t->nrevoke_records += n;
			continue;

		default:
			stop_at(s, E4_SCAN_BLOCKTYPE, pos);
			goto done;
		}
		break;
	}
done:
	if (!end_set)
		s->end_tid = tid;
	s->log_blocks = walked;
	return 0;
}

/* Committed tags failing their checksum: nbad_tag_csum, corrupt. */
static void count_bad_tags(struct e4_jscan *s)
{
	size_t i, k;

	s->nbad_tag_csum = 0;
	for (i = 0; i < s->ncommitted; i++)
		for (k = 0; s->trans[i].committed &&
		     k < s->trans[i].ntags; k++)
			if (s->trans[i].tags[k].csum_ok == 0)
				s->nbad_tag_csum++;
	if (s->nbad_tag_csum)
		s->corrupt = 1;
}

static void finish(struct e4_jscan *s)
{
	size_t i;

	s->ncommitted = 0;
	for (i = 0; i < s->ntrans; i++) {
		struct e4_jtrans *t = &s->trans[i];

		t->committed = !s->fail && t->has_commit &&
			e4_tid_gt(s->end_tid, t->tid);
		if (t->committed)
			s->ncommitted = i + 1;
	}
	count_bad_tags(s);
	if (s->fail)
		s->corrupt = 1;
}

/* A tag left E4_CSUM_PENDING and its transaction's tid. */
struct ptag {
	struct e4_jtag	*g;
	uint32_t	tid;
};

static int cmp_ptag_jblk(const void *a, const void *b)
{
	const struct ptag *x = a, *y = b;

	return x->g->jblk < y->g->jblk ? -1 : x->g->jblk > y->g->jblk;
}

/* Pending tags a thread checks by itself (a view on the mapping), and
 * threads for a log this size. */
#define CHECK_THREADS_MIN	8192
#define CHECK_THREADS_MAX	4

/* One thread's share of the pending tags, pt[a, b), sorted by jblk. */
struct ckpart {
	struct ptag		*pt;
	size_t			a, b;
	struct e4_jview		*v;	/* a dup: never reads through the
					 * channel */
	const struct e4_jcodec	*codec;
	unsigned int		bs;
	blk64_t			cap;
	errcode_t		err;	/* E4_ERR_CHANGED_SIZE: stopped */
};

/* One run for e4_jview_apply(): tags pt[a, b) of @codec. */
struct ckrun {
	const struct e4_jcodec	*codec;
	struct ptag		*pt;
	size_t			a, b;
	unsigned int		bs;
};

/*
 * Ask for the next copy of a run while this one is checksummed: each
 * jblock of the mapping is its own page, where the cpu's prefetcher
 * stops, so a checksum of page-cache memory waits on every line without
 * it (measured here: 40% less time for the checksums of a 600 MiB log).
 */
static inline void prefetch_block(const unsigned char *next, int any,
				  unsigned int bs)
{
	unsigned int l;

	if (!any)
		return;
	for (l = 0; l < bs; l += 64)
		__builtin_prefetch(next + l);
}

/* Check tags pt[a, b), consecutive jblocks whose copies are at @d. */
static void check_run(const struct e4_jcodec *codec, struct ptag *pt,
		      size_t a, size_t b, const unsigned char *d,
		      unsigned int bs)
{
	size_t i;

	for (i = a; i < b; i++) {
		prefetch_block(d + (i + 1 - a) * bs, i + 1 < b, bs);
		pt[i].g->csum_ok = e4_jtag_csum_ok(codec, pt[i].g, pt[i].tid,
						   d + (i - a) * bs);
	}
}

/* e4_jview_apply() function: check_run() on a struct ckrun. */
static void check_run_fn(void *arg, const unsigned char *d)
{
	struct ckrun *r = arg;

	check_run(r->codec, r->pt, r->a, r->b, d, r->bs);
}

/* Check the tags of @arg's share that the mapping serves; the rest stay
 * E4_CSUM_PENDING for the caller (all of it once the file changed size,
 * c->err).  A pthread start routine. */
static void *check_part(void *arg)
{
	struct ckpart *c = arg;
	struct ckrun r = { c->codec, c->pt, 0, 0, c->bs };
	errcode_t retval;
	size_t a, b, i;

	for (a = c->a; a < c->b; a = b) {
		for (b = a + 1; b < c->b && b - a < c->cap &&
		     c->pt[b].g->jblk == c->pt[b - 1].g->jblk + 1; b++)
			;
		r.a = a;
		r.b = b;
		retval = e4_jview_apply(c->v, c->pt[a].g->jblk, b - a, NULL,
					check_run_fn, &r);
		if (retval == E4_ERR_CHANGED_SIZE) {
			/* a run cut short: none of it counts */
			for (i = a; i < b; i++)
				c->pt[i].g->csum_ok = E4_CSUM_PENDING;
			c->err = retval;
			break;
		}
	}
	return NULL;
}

/*
 * With a mapped view and a log worth it, check the pending tags on up to
 * CHECK_THREADS_MAX threads (one per cpu), each a contiguous share of
 * @pt in its own view on the mapping: the checksums read the page cache
 * in place, as fast as the cpus go.  What a share cannot map is left
 * pending.  Best effort: a thread that cannot start leaves its share.
 */
static errcode_t check_threaded(struct e4_jview *view, struct ptag *pt,
				size_t n, const struct e4_jcodec *codec,
				unsigned int bs, blk64_t cap)
{
	errcode_t err = 0;
	struct ckpart part[CHECK_THREADS_MAX];
	pthread_t th[CHECK_THREADS_MAX];
	int started[CHECK_THREADS_MAX] = { 0 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt, t;

	if (!e4_jview_mapped(view) || n < CHECK_THREADS_MIN || ncpu < 2)
		return 0;
	nt = ncpu > CHECK_THREADS_MAX ? CHECK_THREADS_MAX : (size_t)ncpu;
	for (t = 0; t < nt; t++) {
		part[t].pt = pt;
		part[t].a = n * t / nt;
		part[t].b = n * (t + 1) / nt;
		part[t].codec = codec;
		part[t].bs = bs;
		part[t].cap = cap;
		part[t].err = 0;
		part[t].v = NULL;
		if (e4_jview_dup(view, &part[t].v))
			continue;
		/* share 0 on this thread */
		started[t] = t && !pthread_create(&th[t], NULL, check_part,
						  &part[t]);
	}
	if (part[0].v)
		check_part(&part[0]);
	for (t = 0; t < nt; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		e4_jview_close(part[t].v);
		if (part[t].err)
			err = part[t].err;
	}
	return err;
}

errcode_t e4_jscan_check_tags(e4_journal_t j, struct e4_jscan *s)
{
	unsigned int bs = j->blocksize;
	blk64_t cap = CHUNK_BYTES / bs;
	struct e4_jcodec codec;
	struct e4_jview *view = NULL;
	struct ptag *pt = NULL;
	unsigned char *buf = NULL;
	struct ckrun r = { NULL, NULL, 0, 0, bs };
	size_t n = 0, i, k, a, b;
	errcode_t retval;

	e4_error_tables_init();
	if (!s->ncsum_pending)
		return 0;
	e4_jcodec_init(&codec, &j->jsb, bs);
	r.codec = &codec;
	retval = ext2fs_get_array(s->ncsum_pending, sizeof(*pt), &pt);
	if (!retval)
		retval = ext2fs_get_mem(cap * bs, &buf);
	if (!retval)
		retval = e4_jview_open(j, &view);
	if (retval)
		goto out;
	for (i = 0; i < s->ntrans; i++)
		for (k = 0; k < s->trans[i].ntags && n < s->ncsum_pending;
		     k++)
			if (s->trans[i].tags[k].csum_ok == E4_CSUM_PENDING) {
				pt[n].g = &s->trans[i].tags[k];
				pt[n++].tid = s->trans[i].tid;
			}
	/* in log order: sorted unless the log wraps */
	for (i = 1; i < n && pt[i - 1].g->jblk < pt[i].g->jblk; i++)
		;
	if (i < n)
		xsort(pt, n, sizeof(*pt), cmp_ptag_jblk);
	r.pt = pt;
	retval = check_threaded(view, pt, n, &codec, bs, cap);
	if (retval)
		goto out;	/* the file changed size under the check */
	/* what the threads left (or all of it): runs on this thread */
	for (a = 0; a < n; a = b) {
		if (pt[a].g->csum_ok != E4_CSUM_PENDING) {
			b = a + 1;
			continue;
		}
		for (b = a + 1; b < n && b - a < cap &&
		     pt[b].g->csum_ok == E4_CSUM_PENDING &&
		     pt[b].g->jblk == pt[b - 1].g->jblk + 1; b++)
			;
		r.a = a;
		r.b = b;
		retval = e4_jview_apply(view, pt[a].g->jblk, b - a, buf,
					check_run_fn, &r);
		if (retval == E4_ERR_CHANGED_SIZE)
			goto out;
		if (retval) {
			retval = 0;
			/* As the scan: an unreadable copy fails. */
			for (i = a; i < b; i++)
				pt[i].g->csum_ok = !e4_journal_read(j,
						pt[i].g->jblk, 1, buf) &&
					e4_jtag_csum_ok(&codec, pt[i].g,
							pt[i].tid, buf);
			continue;
		}
	}
	s->ncsum_pending = 0;
	count_bad_tags(s);
out:
	e4_jview_close(view);
	ext2fs_free_mem(&pt);
	ext2fs_free_mem(&buf);
	return retval;
}

/*
 * The fast-commit area for the scan's end_tid (fc.c; the kernel runs
 * fc_do_one_pass() at the end of PASS_SCAN).  With an upto tid the fast
 * commits apply only when that tid is the last full commit: a full scan
 * tells.
 */
static errcode_t fc_scan(e4_journal_t j, int flags, struct e4_jscan *s)
{
	struct e4_jscan *full = NULL;
	errcode_t retval;

	if (!(j->jsb.feature_incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) ||
	    s->fail || s->stop == E4_SCAN_EMPTY)
		return 0;
	if (!(flags & E4_SCANF_UPTO) || s->stop != E4_SCAN_UPTO)
		return e4_fc_scan(j, s->end_tid, &s->fc);
	retval = e4_journal_scan(j, flags & ~E4_SCANF_UPTO, 0, &full);
	if (retval)
		return retval;
	if (!full->fail && full->end_tid == s->end_tid) {
		s->fc = full->fc;
		full->fc = NULL;
	} else {
		retval = ext2fs_get_memzero(sizeof(*s->fc), &s->fc);
		if (!retval) {
			s->fc->expected_tid = s->end_tid;
			s->fc->stop = E4_FC_STOP_NOT_LAST;
			s->fc->first_jblk = s->fc->end_jblk =
				e4_jsb_log_end(j->sb) + 1;
		}
	}
	e4_jscan_free(full);
	return retval;
}

/* Copy transactions @from[0..n) into @s (tags and revokes too). */
static errcode_t copy_trans(struct scanner *sc, const struct e4_jtrans *from,
			    size_t n)
{
	struct e4_jscan *s = sc->s;
	size_t i, k;
	errcode_t retval;

	retval = ext2fs_get_array(n, sizeof(*s->trans), &s->trans);
	if (retval)
		return retval;
	sc->trans_alloc = n;
	for (i = 0; i < n; i++) {
		struct e4_jtrans *t = &s->trans[i];

		*t = from[i];
		t->tags = NULL;
		t->revokes = NULL;
		s->ntrans = i + 1;
		if (from[i].ntags) {
			retval = ext2fs_get_array(from[i].ntags,
						  sizeof(*t->tags), &t->tags);
			if (retval) {
				t->ntags = t->nrevokes = 0;
				return retval;
			}
			memcpy(t->tags, from[i].tags,
			       from[i].ntags * sizeof(*t->tags));
			for (k = 0; k < t->ntags; k++)	/* as read */
				t->tags[k].fate = E4_TAG_UNPLANNED;
		}
		if (from[i].nrevokes) {
			retval = ext2fs_get_array(from[i].nrevokes,
						  sizeof(*t->revokes),
						  &t->revokes);
			if (retval) {
				t->nrevokes = 0;
				return retval;
			}
			memcpy(t->revokes, from[i].revokes,
			       from[i].nrevokes * sizeof(*t->revokes));
		}
	}
	return 0;
}

static errcode_t scan_common(e4_journal_t j, int flags, uint32_t upto,
			     const struct e4_jscan *prev, size_t m, size_t k,
			     struct e4_jscan **ret);

errcode_t e4_journal_scan(e4_journal_t j, int flags, uint32_t upto,
			  struct e4_jscan **ret)
{
	return scan_common(j, flags, upto, NULL, 0, 0, ret);
}

errcode_t e4_journal_scan_resume(e4_journal_t j, e4_journal_t pj,
				 const struct e4_jscan *prev,
				 struct e4_jscan **ret)
{
	const struct e4_jsb *a = &j->jsb, *b;
	size_t m, k;

	if (!pj || !prev)
		goto full;
	b = &pj->jsb;
	/* The same journal, laid out alike, with the same checksums; its
	 * sequence and start may have moved on (a checkpoint). */
	if (j->external || pj->external ||
	    j->blocksize != pj->blocksize || j->sb_jblk != pj->sb_jblk ||
	    j->real_len != pj->real_len || j->nruns != pj->nruns ||
	    (j->nruns && memcmp(j->runs, pj->runs,
				j->nruns * sizeof(*j->runs))) ||
	    a->blocktype != b->blocktype || a->blocksize != b->blocksize ||
	    a->maxlen != b->maxlen || a->first != b->first ||
	    a->errno_ != b->errno_ ||
	    a->feature_compat != b->feature_compat ||
	    a->feature_incompat != b->feature_incompat ||
	    a->feature_ro_compat != b->feature_ro_compat ||
	    memcmp(a->uuid, b->uuid, sizeof(a->uuid)) ||
	    a->checksum_type != b->checksum_type ||
	    a->num_fc_blks != b->num_fc_blks || !a->start ||
	    e4_jsb_log_end(j->sb) != prev->log_end)
		goto full;
	/* A plain scan that ended normally, nothing odd on the way. */
	if (prev->fail || prev->nevents || prev->upto_set ||
	    prev->has_failed_commit || prev->ncsum_pending ||
	    (prev->stop != E4_SCAN_NO_MAGIC && prev->stop != E4_SCAN_SEQUENCE &&
	     prev->stop != E4_SCAN_BLOCKTYPE) ||
	    prev->log_first != a->first)
		goto full;
	k = prev->ncommitted;
	for (m = 0; m < k; m++)
		if (prev->trans[m].tid == a->sequence)
			break;
	if (m == k || prev->trans[m].first_jblk != a->start)
		goto full;
	for (; k > m; k--)	/* never a tag left unhashed or pending */
		if (prev->trans[k - 1].has_commit &&
		    prev->trans[k - 1].committed)
			break;
	if (k == m)
		goto full;
	return scan_common(j, 0, 0, prev, m, k, ret);
full:
	return scan_common(j, 0, 0, NULL, 0, 0, ret);
}

static errcode_t scan_common(e4_journal_t j, int flags, uint32_t upto,
			     const struct e4_jscan *prev, size_t m, size_t k,
			     struct e4_jscan **ret)
{
	struct scanner sc;
	struct e4_jscan *s;
	errcode_t retval;
	unsigned int bs = j->blocksize;

	e4_error_tables_init();
	*ret = NULL;
	memset(&sc, 0, sizeof(sc));
	retval = ext2fs_get_memzero(sizeof(*s), &s);
	if (retval)
		return retval;
	sc.j = j;
	sc.s = s;
	sc.incompat = j->jsb.feature_incompat;
	sc.compat = j->jsb.feature_compat;
	e4_jcodec_init(&sc.codec, &j->jsb, bs);
	sc.hash = !!(flags & E4_SCANF_HASH);
	sc.defer = (flags & E4_SCANF_DEFER_CSUM) && sc.codec.v2v3 &&
		!(sc.compat & JBD2_FEATURE_COMPAT_CHECKSUM);
	s->start_tid = j->jsb.sequence;
	s->start_jblk = j->jsb.start;
	s->log_first = j->jsb.first;
	s->log_end = e4_jsb_log_end(j->sb);
	s->end_tid = s->start_tid;
	s->tag_bytes = sc.codec.tag_bytes;
	s->upto_set = !!(flags & E4_SCANF_UPTO);
	s->upto = upto;
	if (sc.incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		s->csum_version = 3;
	else if (sc.incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		s->csum_version = 2;
	else if (sc.compat & JBD2_FEATURE_COMPAT_CHECKSUM)
		s->csum_version = 1;

	sc.dmax = bs;	/* more tags or records than bytes is impossible */
	sc.r.j = j;
	sc.r.cap = CHUNK_BYTES / bs;
	if (sc.r.cap > j->real_len)	/* no window past the journal */
		sc.r.cap = j->real_len ? j->real_len : 1;
	sc.r.want = FIRST_CHUNK / bs ? FIRST_CHUNK / bs : 1;
	if (sc.r.want > sc.r.cap)
		sc.r.want = sc.r.cap;
	if (sc.defer) {
		sc.r.cap = DEFER_CHUNK / bs ? DEFER_CHUNK / bs : 1;
		if (sc.r.cap > j->real_len)
			sc.r.cap = j->real_len ? j->real_len : 1;
		sc.r.want = sc.r.cap;
	}
	sc.r.log_end = s->log_end;
	sc.r.alloc = sc.r.want;
	retval = ext2fs_get_mem(sc.r.alloc * bs, &sc.r.buf);
	if (!retval)
		retval = ext2fs_get_array(sc.dmax, sizeof(*sc.dtags),
					  &sc.dtags);
	if (!retval)
		retval = ext2fs_get_array(sc.dmax, sizeof(*sc.drevs),
					  &sc.drevs);
	/* Every copy read: in place when the channel allows it (a deferred
	 * scan reads only the few blocks between the copies). */
	if (!retval && !sc.defer && j->jsb.start)
		retval = e4_jview_open(j, &sc.r.view);
	if (retval)
		goto out;

	if (!j->jsb.start) {
		s->stop = E4_SCAN_EMPTY;
	} else if (s->log_end <= s->log_first || s->start_jblk >= s->log_end ||
		   s->log_end > j->real_len) {
		/* No log to walk (the kernel refuses such a superblock in
		 * journal_load_superblock() / fast-commit setup). */
		s->fail = E4_ERR_JOURNAL_CORRUPT;
		stop_at(s, E4_SCAN_IO_ERROR, s->start_jblk);
		retval = add_event(&sc, s->start_tid, s->start_jblk,
				   E4_SCAN_IO_ERROR, "log area [%llu, %llu) "
				   "empty or past the journal: recovery fails",
				   (unsigned long long)s->log_first,
				   (unsigned long long)s->log_end);
		if (retval)
			goto out;
	} else {
		if (prev) {
			const struct e4_jtrans *last = &prev->trans[k - 1];
			size_t i;

			retval = copy_trans(&sc, prev->trans + m, k - m);
			if (retval)
				goto out;
			sc.resumed = 1;
			sc.r_next = wrap(s, last->last_jblk + 1);
			sc.r_tid = last->tid + 1;
			sc.r_time = last->commit_sec;
			for (i = 0; i < s->ntrans; i++)
				sc.r_walked += s->trans[i].nblocks;
		}
		retval = do_scan(&sc, flags, upto);
		if (retval)
			goto out;
	}
	finish(s);
	scan_fc(&sc);
	retval = fc_scan(j, flags, s);
	/* A file another process shrank or grew under the read: no scan of
	 * it means anything (not the kernel's io error; jview.c). */
	if (!retval && e4_jview_changed(sc.r.view))
		retval = E4_ERR_CHANGED_SIZE;
out:
	e4_jview_close(sc.r.view);
	ext2fs_free_mem(&sc.r.buf);
	ext2fs_free_mem(&sc.dtags);
	ext2fs_free_mem(&sc.drevs);
	if (retval) {
		e4_jscan_free(s);
		return retval;
	}
	*ret = s;
	return 0;
}

void e4_jscan_free(struct e4_jscan *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ntrans; i++) {
		ext2fs_free_mem(&s->trans[i].tags);
		ext2fs_free_mem(&s->trans[i].revokes);
	}
	ext2fs_free_mem(&s->trans);
	ext2fs_free_mem(&s->events);
	e4_fcscan_free(s->fc);
	ext2fs_free_mem(&s);
}

const char *e4_scan_stop_name(enum e4_scan_stop stop)
{
	switch (stop) {
	case E4_SCAN_EMPTY:		return "empty";
	case E4_SCAN_NO_MAGIC:		return "no-magic";
	case E4_SCAN_SEQUENCE:		return "sequence";
	case E4_SCAN_BLOCKTYPE:		return "blocktype";
	case E4_SCAN_COMMIT_CSUM:	return "commit-csum";
	case E4_SCAN_DESC_CSUM:		return "block-csum";
	case E4_SCAN_STALE:		return "stale";
	case E4_SCAN_UPTO:		return "upto";
	case E4_SCAN_IO_ERROR:		return "io-error";
	case E4_SCAN_BAD_REVOKE:	return "bad-revoke";
	case E4_SCAN_BAD_TAG_BLOCK:	return "bad-tag-block";
	}
	return "unknown";
}

const char *e4_tag_fate_name(int fate)
{
	switch (fate) {
	case E4_TAG_UNPLANNED:		return "unplanned";
	case E4_TAG_REPLAY:		return "replay";
	case E4_TAG_SUPERSEDED:		return "superseded";
	case E4_TAG_REVOKED:		return "revoked";
	case E4_TAG_BAD_CSUM:		return "bad-csum";
	case E4_TAG_BAD_BLOCK:		return "bad-block";
	case E4_TAG_UNCOMMITTED:	return "uncommitted";
	}
	return "unknown";
}
