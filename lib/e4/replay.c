/*
 * replay.c --- write a replay plan (plan.c: each fs block once, its newest
 * surviving copy) to the file system, then mark the journal empty and the
 * fs recovered as e2fsck does; reload an open fs after replay.
 *
 * Source: fs/jbd2/recovery.c PASS_REPLAY and
 * jbd2_journal_recover() (Linux 6.x); e2fsck/journal.c
 * recover_ext3_journal(), e2fsck_journal_release(),
 * e2fsck_check_ext3_journal() (e2fsprogs 1.47) for the superblocks.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4.h"
#include "e4_int.h"

#define CHUNK_BYTES	(1U << 20)	/* journal read / fs write batch: 1 MiB
					 * stays in the cpu cache between the
					 * read and the writes (8 MiB: +15% cpu) */

/*
 * A copy replay reads: a tag to write (fate E4_TAG_REPLAY) or whose
 * checksum E4_SCANF_DEFER_CSUM left to this read (E4_CSUM_PENDING), with
 * its transaction's tid.
 */
struct rtag {
	struct e4_jtag	*g;
	uint32_t	tid;
};

/* qsort_r() helper: indexes into the batch, by fs block. */
static int cmp_idx_fsblk(const void *a, const void *b, void *arg)
{
	const struct rtag *w = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return w[x].g->fsblk < w[y].g->fsblk ? -1 :
		w[x].g->fsblk > w[y].g->fsblk;
}

/*
 * Writeback hint: when the fs lives in a regular file or block device we
 * can open by name, each batch's range is handed to sync_file_range(2)
 * (SYNC_FILE_RANGE_WRITE: start writeback, do not wait) so that the disk
 * writes overlap with reading the next batch instead of all waiting for
 * the final flush.  Best effort: -1 when not possible.
 */
static int wb_open(ext2_filsys fs)
{
	if (!fs->device_name)
		return -1;
	return open(fs->device_name, O_RDONLY | O_CLOEXEC);
}

static void wb_start(int fd, blk64_t blk, size_t count, unsigned int bs)
{
	if (fd >= 0)
		(void)sync_file_range(fd, (off64_t)blk * bs,
				      (off64_t)count * bs,
				      SYNC_FILE_RANGE_WRITE);
}

/* The copies replay reads, in log order: the committed transactions'. */
struct rcursor {
	const struct e4_plan *p;
	size_t		t, k;		/* transaction, tag */
};

static int rtag_wanted(const struct e4_jtag *g)
{
	return g->fate == E4_TAG_REPLAY || g->csum_ok == E4_CSUM_PENDING;
}

/* The next copy to read at or after the cursor into *@r; 0 at the end. */
static int rc_next(struct rcursor *c, struct rtag *r)
{
	const struct e4_jscan *s = c->p->scan;

	for (; c->t < c->p->ntx; c->t++, c->k = 0)
		for (; c->k < s->trans[c->t].ntags; c->k++)
			if (rtag_wanted(&s->trans[c->t].tags[c->k])) {
				r->g = &s->trans[c->t].tags[c->k++];
				r->tid = s->trans[c->t].tid;
				return 1;
			}
	return 0;
}

/*
 * Write the winners in one read of the log: batches of CHUNK_BYTES of
 * copies in log order, each read once (runs of consecutive jblocks into
 * consecutive slots, so descriptor blocks fall out); a deferred tag checksum is
 * checked on the batch before any of it is written (*@recheck set and
 * nothing more written when one fails or cannot be read: the plan must
 * be built again); the batch's winners are unescaped in place and
 * written sorted by fs block, runs of consecutive blocks in one write,
 * straight from the read buffer when their slots are consecutive too.
 */
static errcode_t write_blocks(const struct e4_plan *p,
			      struct e4_replay_result *res, int *recheck,
			      uint64_t *ptotal)
{
	e4_journal_t j = p->j;
	ext2_filsys fs = j->fs;
	unsigned int bs = j->blocksize;
	blk64_t cap = CHUNK_BYTES / bs, ncopies = 0;
	unsigned char *rbuf = NULL, *wbuf = NULL;
	struct rcursor cur = { p, 0, 0 };
	struct rtag *bt = NULL, r;
	struct e4_jcodec codec;
	size_t *idx = NULL, i, m, nw, q;
	errcode_t retval;
	int more, wb = wb_open(fs);
	e4_progress_fn progress = res->progress;
	uint64_t done = 0;

	*recheck = 0;
	e4_jcodec_init(&codec, &j->jsb, bs);
	while (rc_next(&cur, &r))
		ncopies++;
	/* progress: copies read and written, once per batch; a second
	 * call after a recheck (*ptotal set) reports nothing */
	if (*ptotal)
		progress = NULL;
	*ptotal = ncopies;
	if (progress)
		progress(res->progress_priv, E4_PROGRESS_REPLAY, 0, ncopies);
	if (cap > ncopies)	/* small logs, small buffers */
		cap = ncopies;
	if (!cap)
		cap = 1;
	retval = ext2fs_get_mem(cap * bs, &rbuf);
	if (!retval)
		retval = ext2fs_get_mem(cap * bs, &wbuf);
	if (!retval)
		retval = ext2fs_get_array(cap, sizeof(*idx), &idx);
	if (!retval)
		retval = ext2fs_get_array(cap, sizeof(*bt), &bt);
	if (retval)
		goto out;

	cur.t = cur.k = 0;
	more = rc_next(&cur, &r);
	while (more) {
		int pending = 0;

		/* One batch: the next cap copies in log order, copy i in
		 * slot i of rbuf, read in runs of consecutive jblocks. */
		for (m = 0; more && m < cap; m++) {
			bt[m] = r;
			pending |= r.g->csum_ok == E4_CSUM_PENDING;
			more = rc_next(&cur, &r);
		}
		for (i = 0, retval = 0; i < m && !retval; i += q) {
			for (q = 1; i + q < m &&
			     bt[i + q].g->jblk == bt[i].g->jblk + q; q++)
				;
			retval = e4_journal_read(j, bt[i].g->jblk, q,
						 rbuf + i * bs);
			res->nreads++;
		}
		if (retval && pending) {
			/* which copy is unreadable decides: replan */
			*recheck = 1;
			retval = 0;
			goto out;
		}
		if (retval)
			goto out;
		for (i = 0, nw = 0; i < m; i++) {
			struct e4_jtag *g = bt[i].g;
			unsigned char *d = rbuf + i * bs;

			if (g->csum_ok == E4_CSUM_PENDING) {
				g->csum_ok = e4_jtag_csum_ok(&codec, g,
							     bt[i].tid, d);
				p->scan->ncsum_pending--;
				if (!g->csum_ok) {
					*recheck = 1;
					goto out;
				}
			}
			if (g->fate == E4_TAG_REPLAY)
				idx[nw++] = i;
		}
		for (i = 0; i < nw; i++)
			e4_jblock_unescape(rbuf + idx[i] * bs,
					   bt[idx[i]].g->flags &
					   JBD2_FLAG_ESCAPE);
		/* (a file written in order is logged in order: often
		 * sorted already) */
		for (i = 1; i < nw && bt[idx[i - 1]].g->fsblk <
			    bt[idx[i]].g->fsblk; i++)
			;
		if (i < nw)
			qsort_r(idx, nw, sizeof(*idx), cmp_idx_fsblk, bt);
		for (i = 0; i < nw; ) {
			blk64_t start = bt[idx[i]].g->fsblk;
			unsigned char *src = rbuf + idx[i] * bs;
			size_t n = 1;

			/* consecutive fs blocks in consecutive slots: no
			 * copy (a run made of several pieces of the log is
			 * several writes, each from the read buffer) */
			while (i + n < nw &&
			       bt[idx[i + n]].g->fsblk == start + n &&
			       idx[i + n] == idx[i] + n)
				n++;
			retval = io_channel_write_blk64(fs->io, start, (int)n,
							src);
			res->nwrites++;
			if (retval)
				goto out;
			wb_start(wb, start, n, bs);
			i += n;
		}
		done += m;
		if (progress)
			progress(res->progress_priv, E4_PROGRESS_REPLAY, done,
				 ncopies);
	}
out:
	if (wb >= 0)
		close(wb);
	ext2fs_free_mem(&rbuf);
	ext2fs_free_mem(&wbuf);
	ext2fs_free_mem(&idx);
	ext2fs_free_mem(&bt);
	return retval;
}

/*
 * Read (@write 0) or write the 1 KiB primary superblock by a byte-count
 * transfer, as libext2fs writes it: unix_io serves those from the disk,
 * never from its block cache (which can still hold the superblock's block
 * as replay wrote it).
 */
static errcode_t sb_io(ext2_filsys fs, unsigned char *buf, int write)
{
	/*
	 * Through the fs's own block size: the superblock's bytes
	 * 1024..2047 read (and written back) with the fs block holding
	 * them.  Not with a 1 KiB block size on the channel: libext2fs's
	 * undo io_manager takes the block size of its first write as the
	 * undo file's, and an undo file of 1 KiB blocks under a 4 KiB fs
	 * is replayed by e2undo to the wrong places (a replay that writes
	 * only superblocks left the image unrestorable).
	 */
	unsigned int bs = fs->blocksize;
	blk64_t blk = SUPERBLOCK_OFFSET / bs;
	unsigned int off = SUPERBLOCK_OFFSET % bs;
	unsigned char *b = NULL;
	errcode_t retval;

	retval = ext2fs_get_mem(bs, &b);
	if (retval)
		return retval;
	retval = io_channel_read_blk64(fs->io, blk, 1, b);
	if (!retval && write) {
		memcpy(b + off, buf, SUPERBLOCK_SIZE);
		retval = io_channel_write_blk64(fs->io, blk, 1, b);
		if (!retval)
			retval = io_channel_flush(fs->io);
	} else if (!retval) {
		memcpy(buf, b + off, SUPERBLOCK_SIZE);
	}
	ext2fs_free_mem(&b);
	return retval;
}

/* Superblock field offsets (bytes) used on the raw copy. */
#define SB_MAGIC		0x38	/* le16 */
#define SB_STATE		0x3A	/* le16 */
#define SB_FEATURE_INCOMPAT	0x60	/* le32 */
#define SB_FEATURE_RO_COMPAT	0x64	/* le32 */
#define SB_CHECKSUM		0x3FC	/* le32: crc32c(~0) of the bytes before */

static void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

/* Set the checksum of raw superblock @buf if it says metadata_csum. */
static void sb_csum(unsigned char *buf)
{
	if (e4_le32(buf + SB_FEATURE_RO_COMPAT) &
	    EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		put_le32(buf + SB_CHECKSUM,
			 e4_crc32c(~0U, buf, SB_CHECKSUM));
}

/*
 * Can libext2fs go on with the replayed superblock @sb in place of
 * fs->super?  Only when the fields it computes the layout from (and
 * divides by) are unchanged; a log may carry any superblock (an online
 * resize, or garbage: fuzz_jreplay made one with s_blocks_per_group 0).
 */
static int sb_same_layout(ext2_filsys fs, struct ext2_super_block *sb)
{
	struct ext2_super_block *o = fs->super;
	uint32_t keep = ~(uint32_t)EXT3_FEATURE_INCOMPAT_RECOVER;

	return sb->s_magic == EXT2_SUPER_MAGIC &&
		sb->s_log_block_size == o->s_log_block_size &&
		sb->s_log_cluster_size == o->s_log_cluster_size &&
		sb->s_blocks_per_group == o->s_blocks_per_group &&
		sb->s_clusters_per_group == o->s_clusters_per_group &&
		sb->s_inodes_per_group == o->s_inodes_per_group &&
		sb->s_inodes_count == o->s_inodes_count &&
		sb->s_first_data_block == o->s_first_data_block &&
		ext2fs_blocks_count(sb) == ext2fs_blocks_count(o) &&
		sb->s_desc_size == o->s_desc_size &&
		sb->s_inode_size == o->s_inode_size &&
		sb->s_first_meta_bg == o->s_first_meta_bg &&
		sb->s_reserved_gdt_blocks == o->s_reserved_gdt_blocks &&
		(sb->s_feature_incompat & keep) ==
			(o->s_feature_incompat & keep) &&
		sb->s_feature_ro_compat == o->s_feature_ro_compat &&
		sb->s_feature_compat == o->s_feature_compat;
}

/*
 * Load raw superblock @buf into fs->super when its layout is the same;
 * drop fs->orig_super (without it libext2fs writes the superblock in one
 * 1 KiB write, not one per changed field: an interruption never leaves a
 * superblock failing its checksum).  Returns 0 or E4_ERR_SB_LAYOUT.
 */
static errcode_t sb_load(ext2_filsys fs, const unsigned char *buf)
{
	struct ext2_super_block sb;

	memcpy(&sb, buf, SUPERBLOCK_SIZE);
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_super(&sb);
#endif
	ext2fs_free_mem(&fs->orig_super);
	if (!sb_same_layout(fs, &sb))
		return E4_ERR_SB_LAYOUT;
	memcpy(fs->super, &sb, SUPERBLOCK_SIZE);
	return 0;
}

/*
 * In memory after a replay: nothing dirty (a close must not write the old
 * superblock back), the superblock @sbuf now on disk if libext2fs can use
 * it (else res->sb_layout_changed); later flushes write the primary
 * superblock only.
 */
static void sb_settle(ext2_filsys fs, const unsigned char *sbuf,
		      struct e4_replay_result *res)
{
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_CHANGED);
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_SUPER_ONLY;
	res->sb_layout_changed = sb_load(fs, sbuf) != 0;
}

errcode_t e4_super_set_recover(ext2_filsys fs)
{
	unsigned char sbuf[SUPERBLOCK_SIZE];
	errcode_t retval;

	e4_error_tables_init();
	retval = sb_io(fs, sbuf, 0);
	if (retval)
		return retval;
	if (e4_le16(sbuf + SB_MAGIC) != EXT2_SUPER_MAGIC)
		return EXT2_ET_BAD_MAGIC;
	put_le32(sbuf + SB_FEATURE_INCOMPAT,
		 e4_le32(sbuf + SB_FEATURE_INCOMPAT) |
		 EXT3_FEATURE_INCOMPAT_RECOVER);
	sb_csum(sbuf);
	return sb_io(fs, sbuf, 1);
}

/*
 * The kernel's ext4_clear_journal_err() (fs/ext4/super.c), run by every
 * mount that loads the journal, whatever its log holds: a nonzero journal
 * s_errno (the error jbd2_journal_abort() recorded) marks the fs
 * superblock ERROR_FS ("Marked fs in need of filesystem check"), then the
 * journal's s_errno is cleared.  The fs superblock goes first: an
 * interruption between the two writes leaves both marked, and a rerun
 * does the rest.
 */
errcode_t e4_journal_clear_err(e4_journal_t j, int *marked)
{
	ext2_filsys fs = j->fs;
	unsigned char sbuf[SUPERBLOCK_SIZE];
	errcode_t retval;

	e4_error_tables_init();
	*marked = 0;
	if (!e4_be32(j->sb + JBD2_JSB_ERRNO))
		return 0;
	if (!(j->flags & E4_JOURNAL_RW) || !(fs->flags & EXT2_FLAG_RW))
		return E4_ERR_READ_ONLY;
	retval = sb_io(fs, sbuf, 0);
	if (retval)
		return retval;
	if (e4_le16(sbuf + SB_MAGIC) != EXT2_SUPER_MAGIC)
		return EXT2_ET_BAD_MAGIC;
	put_le16(sbuf + SB_STATE, e4_le16(sbuf + SB_STATE) | EXT2_ERROR_FS);
	sb_csum(sbuf);
	retval = sb_io(fs, sbuf, 1);
	if (retval)
		return retval;
	fs->super->s_state |= EXT2_ERROR_FS;
	e4_put_be32(j->sb + JBD2_JSB_ERRNO, 0);
	j->jsb.errno_ = 0;
	retval = e4_journal_write_sb(j);
	if (!retval)
		*marked = 1;
	return retval;
}

errcode_t e4_replay_result_init(struct e4_replay_result *res, size_t size)
{
	struct e4_replay_result d;

	e4_error_tables_init();
	memset(&d, 0, sizeof(d));
	return e4_struct_init(res, size, E4_REPLAY_RESULT_SIZE0, &d,
			      sizeof(d));
}

static errcode_t journal_replay(e4_journal_t j, struct e4_jscan *scan,
				struct e4_replay_result *res)
{
	struct e4_plan *p;
	errcode_t retval;

	/* @res is filled on every return, the refusals' too */
	e4_plan_result(scan, NULL, res);
	if (!(j->flags & E4_JOURNAL_RW) || !(j->fs->flags & EXT2_FLAG_RW))
		return E4_ERR_READ_ONLY;
	/* The log reset would drop fast commits the kernel replays. */
	if (!scan->fail && scan->fc && scan->fc->nreplay)
		return E4_ERR_FAST_COMMIT;
	retval = e4_plan_build(j, scan, &p);
	if (!retval)
		retval = e4_plan_replay(p, res);
	e4_plan_free(p);
	return retval;
}

/*
 * The public replays: the caller's @ures checked by its size, then
 * filled up to it from a result of this libe4's size
 * (e4_replay_result_init()).
 */
static errcode_t user_result_in(struct e4_replay_result *res,
				const struct e4_replay_result *ures)
{
	errcode_t retval;

	e4_error_tables_init();
	retval = e4_struct_size_ok(ures->size, E4_REPLAY_RESULT_SIZE0);
	if (retval)
		return retval;
	e4_replay_result_init(res, sizeof(*res));
	e4_replay_progress_in(res, ures);
	return 0;
}

static errcode_t user_result(errcode_t (*fn)(e4_journal_t,
					     struct e4_jscan *,
					     struct e4_replay_result *),
			     e4_journal_t j, struct e4_jscan *scan,
			     struct e4_replay_result *ures)
{
	struct e4_replay_result res;
	errcode_t retval;

	retval = user_result_in(&res, ures);
	if (retval)
		return retval;
	retval = fn(j, scan, &res);
	e4_struct_out(ures, &res, sizeof(res));
	return retval;
}

errcode_t e4_journal_replay(e4_journal_t j, struct e4_jscan *scan,
			    struct e4_replay_result *ures)
{
	return user_result(journal_replay, j, scan, ures);
}

errcode_t e4_plan_replay(const struct e4_plan *p,
			 struct e4_replay_result *res)
{
	e4_error_tables_init();
	return e4_plan_replay_fc(p, NULL, res);
}

/* plan_replay()'s modes */
#define REPLAY_E2FSCK	0	/* blocks, then the superblocks */
#define REPLAY_REFUSED	1	/* blocks only */
#define REPLAY_KERNEL	2	/* blocks, then the superblocks unless a
				 * pending tag checksum failed */

static errcode_t plan_replay(const struct e4_plan *p,
			     struct e4_fc_state *fcst,
			     struct e4_replay_result *res, int mode);

/*
 * The public entry points: the caller's result checked by its size and
 * filled up to it (e4_replay_result_init()).
 */
static errcode_t plan_replay_user(const struct e4_plan *p,
				  struct e4_fc_state *fcst,
				  struct e4_replay_result *ures, int mode)
{
	struct e4_replay_result res;
	errcode_t retval;

	retval = user_result_in(&res, ures);
	if (retval)
		return retval;
	retval = plan_replay(p, fcst, &res, mode);
	e4_struct_out(ures, &res, sizeof(res));
	return retval;
}

errcode_t e4_plan_replay_fc(const struct e4_plan *p,
			    struct e4_fc_state *fcst,
			    struct e4_replay_result *res)
{
	return plan_replay_user(p, fcst, res, REPLAY_E2FSCK);
}

errcode_t e4_plan_replay_kernel(const struct e4_plan *p,
				struct e4_replay_result *res)
{
	return plan_replay_user(p, NULL, res, REPLAY_KERNEL);
}

errcode_t e4_plan_replay_refused(const struct e4_plan *p,
				 struct e4_replay_result *res)
{
	return plan_replay_user(p, NULL, res, REPLAY_REFUSED);
}

/*
 * The replay of @p: its blocks (1), then, unless @mode is REPLAY_REFUSED
 * (the kernel's PASS_REPLAY of a journal it then refuses to mount) or
 * REPLAY_KERNEL found a copy failing its tag checksum in its one read of
 * the log (then E4_ERR_JOURNAL_CHECKSUM), the superblocks (2-4).
 */
static errcode_t plan_replay(const struct e4_plan *p,
			     struct e4_fc_state *fcst,
			     struct e4_replay_result *res, int mode)
{
	int blocks_only = mode == REPLAY_REFUSED, found_bad = 0;

	e4_journal_t j = p->j;
	ext2_filsys fs = j->fs;
	unsigned char sbuf[SUPERBLOCK_SIZE];
	struct e4_plan *replan = NULL, *own = NULL;
	errcode_t retval;
	uint16_t state;
	int errno_set, recheck;
	uint64_t ptotal = 0;

	e4_error_tables_init();
	e4_plan_result(p->scan, p, res);
	if (!(j->flags & E4_JOURNAL_RW) || !(fs->flags & EXT2_FLAG_RW))
		return E4_ERR_READ_ONLY;
	if (p->scan->fail)
		return p->scan->fail;
	if (p->csum_needed) {
		/* plan.c: a copy fails the recovery unless its pending tag
		 * checksum fails: decide before the first write. */
		retval = e4_jscan_check_tags(j, p->scan);
		if (!retval)
			retval = e4_plan_build(j, p->scan, &replan);
		if (retval)
			goto out;
		if (p->scan->fail) {
			retval = p->scan->fail;
			goto out;
		}
		/* the caller's plan is left as it is; this one is freed
		 * on the way out */
		own = replan;
		replan = NULL;
		p = own;
		e4_plan_result(p->scan, p, res);
	}

	/* 1. the blocks, flushed; then the fast commits' (fc_state.c) */
	retval = write_blocks(p, res, &recheck, &ptotal);
	if (!retval && recheck) {
		/*
		 * A deferred tag checksum failed (or its copy could not be
		 * read): what was written so far is final (each block's
		 * winner was checked first, and another block's copy does
		 * not change it); check every pending tag, plan again and
		 * write the new plan's blocks (the same bytes again for
		 * those already written).
		 */
		uint64_t nreads = res->nreads, nwrites = res->nwrites;

		retval = e4_jscan_check_tags(j, p->scan);
		if (!retval)
			retval = e4_plan_build(j, p->scan, &replan);
		if (!retval) {
			e4_plan_result(p->scan, replan, res);
			res->nreads = nreads;
			res->nwrites = nwrites;
			retval = write_blocks(replan, res, &recheck, &ptotal);
			/* the first call's pass, ended */
			if (!retval && res->progress)
				res->progress(res->progress_priv,
					      E4_PROGRESS_REPLAY, ptotal,
					      ptotal);
		}
		/* the kernel's PASS_REPLAY skipped the bad copies the
		 * same way; then it refuses the mount */
		if (!retval && mode == REPLAY_KERNEL && res->nbad_csum)
			blocks_only = found_bad = 1;
	}
	if (!retval)
		retval = io_channel_flush(fs->io);
	if (!retval && fcst)
		retval = e4_fc_state_write(fcst, fs->io);
	if (retval)
		goto out;
	if (blocks_only) {
		/* jbd2_journal_load() fails after jbd2_journal_recover():
		 * the journal is not reset, the fs superblock is what the
		 * log wrote.  In memory it is that one too, so that a close
		 * (libext2fs adds the bytes written to s_kbytes_written and
		 * sets s_wtime, as the kernel's failed mount does) writes
		 * nothing of the old one back. */
		retval = sb_io(fs, sbuf, 0);
		if (retval)
			goto out;
		sb_settle(fs, sbuf, res);
		res->new_sequence = p->scan->start_tid;
		if (found_bad)
			retval = E4_ERR_JOURNAL_CHECKSUM;
		goto out;
	}

	/*
	 * 2. the fs superblock as replay left it, with the journal's error
	 * state carried over but needs_recovery still set: an interruption
	 * from here on leaves an image that a rerun replays again (the
	 * replay is idempotent) or, after 3, finds with an empty log.  The
	 * superblock is changed as raw bytes: the log may have replaced it
	 * with one libext2fs cannot work with.
	 */
	retval = sb_io(fs, sbuf, 0);
	if (retval)
		goto out;
	state = e4_le16(sbuf + SB_STATE);
	errno_set = j->jsb.errno_ != 0;
	if (errno_set || p->scan->has_failed_commit) {
		state |= EXT2_ERROR_FS;
		res->fs_error = 1;
	}
	if (res->nbad_csum || res->nbad_block) {
		state &= ~EXT2_VALID_FS;
		res->fs_not_valid = 1;
	}
	put_le16(sbuf + SB_STATE, state);
	sb_csum(sbuf);
	retval = sb_io(fs, sbuf, 1);
	if (retval)
		goto out;

	/* 3. the journal superblock: log empty, next tid */
	e4_put_be32(j->sb + JBD2_JSB_START, 0);
	e4_put_be32(j->sb + JBD2_JSB_SEQUENCE, res->new_sequence);
	e4_put_be32(j->sb + JBD2_JSB_ERRNO, 0);
	retval = e4_journal_write_sb(j);
	if (retval)
		goto out;

	/* 4. only now: recovered */
	put_le32(sbuf + SB_FEATURE_INCOMPAT,
		 e4_le32(sbuf + SB_FEATURE_INCOMPAT) &
		 ~(uint32_t)EXT3_FEATURE_INCOMPAT_RECOVER);
	sb_csum(sbuf);
	retval = sb_io(fs, sbuf, 1);
	if (retval)
		goto out;

	sb_settle(fs, sbuf, res);
out:
	e4_plan_free(replan);
	e4_plan_free(own);
	return retval;
}

errcode_t e4_fs_reload(ext2_filsys fs)
{
	unsigned char sbuf[SUPERBLOCK_SIZE];
	blk64_t blk;
	dgrp_t i;
	errcode_t retval;

	e4_error_tables_init();
	retval = sb_io(fs, sbuf, 0);
	if (!retval)
		retval = sb_load(fs, sbuf);
	if (retval)
		return retval;
	for (i = 0; i < fs->desc_blocks; i++) {
		blk = ext2fs_descriptor_block_loc2(fs,
					fs->super->s_first_data_block, i);
		retval = io_channel_read_blk64(fs->io, blk, 1,
				(char *)fs->group_desc + (size_t)i *
				fs->blocksize);
		if (retval)
			return retval;
	}
	ext2fs_flush_icache(fs);
	if (fs->block_map) {
		ext2fs_free_block_bitmap(fs->block_map);
		fs->block_map = NULL;
	}
	if (fs->inode_map) {
		ext2fs_free_inode_bitmap(fs->inode_map);
		fs->inode_map = NULL;
	}
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
		       EXT2_FLAG_IB_DIRTY);
	/* as the kernel after recovery: later flushes leave the backup
	 * superblocks and descriptors alone */
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_SUPER_ONLY;
	return 0;
}

/*
 * e4_journal_recover(): full commits, then the fast commits on the state
 * they leave (fc_state.c), in one replay.
 */
static errcode_t journal_recover(e4_journal_t j, struct e4_jscan *scan,
				 struct e4_replay_result *res);

errcode_t e4_journal_recover(e4_journal_t j, struct e4_jscan *scan,
			     struct e4_replay_result *ures)
{
	return user_result(journal_recover, j, scan, ures);
}

static errcode_t journal_recover(e4_journal_t j, struct e4_jscan *scan,
				 struct e4_replay_result *res)
{
	struct e4_fc_state *fcst = NULL;
	struct e4_plan *p = NULL;
	errcode_t retval;

	if (scan->fc && scan->fc->fail && !scan->fail) {
		e4_plan_result(scan, NULL, res);
		return scan->fc->fail;
	}
	retval = e4_plan_build(j, scan, &p);
	if (retval) {
		e4_plan_result(scan, NULL, res);
		return retval;
	}
	if (scan->fc && scan->fc->nreplay) {
		retval = e4_fc_state_open_plan(j->fs, p, &fcst);
		e4_fc_state_detach(fcst);
	}
	if (!retval)
		retval = e4_plan_replay_fc(p, fcst, res);
	else
		e4_plan_result(scan, p, res);
	e4_fc_state_close(fcst);
	e4_plan_free(p);
	return retval;
}
