/*
 * txn.c --- crash-safe metadata updates: the writes libext2fs makes between
 * e4_txn_begin() and e4_txn_commit() are held in memory, logged to the
 * file system's own journal as one jbd2 transaction, and only then written
 * in place by replaying that transaction (replay.c) -- the kernel's
 * write-ahead rule, so an interruption anywhere leaves either the old
 * state or a committed transaction that any recovery (e4replay, e2fsck,
 * the kernel) completes.
 *
 * While a transaction is open, fs->io is a capturing io_channel
 * (capture_io.c) over the real one: reads see the held blocks, writes go
 * to them; the log is built with jblock.c.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e4.h"
#include "jbd2_fmt.h"

struct e4_txn {
	ext2_filsys	fs;
	e4_journal_t	j;
	struct e4_capture *cap;		/* holds the writes; cap->under is
					 * the real fs->io */
	int		image_io_was_io;
};

/* ---- begin / abort ----------------------------------------------------- */

errcode_t e4_txn_begin(ext2_filsys fs, e4_journal_t j, struct e4_txn **ret)
{
	struct e4_txn *t = NULL;
	errcode_t retval;

	e4_error_tables_init();
	*ret = NULL;
	if (!(fs->flags & EXT2_FLAG_RW) || !(j->flags & E4_JOURNAL_RW))
		return E4_ERR_READ_ONLY;
	if (j->fs != fs || fs->io->manager == e4_capture_io_manager ||
	    j->io->manager == e4_capture_io_manager ||
	    j->blocksize != fs->blocksize)
		return EXT2_ET_INVALID_ARGUMENT;
	if (ext2fs_has_feature_journal_needs_recovery(fs->super) ||
	    j->jsb.start)
		return E4_ERR_NEEDS_RECOVERY;
	if (j->jsb.errno_)
		return E4_ERR_TXN_JOURNAL_ERRNO;
	retval = ext2fs_get_memzero(sizeof(*t), &t);
	if (!retval)
		retval = e4_capture_new(fs->io, fs->blocksize, &t->cap);
	if (retval) {
		ext2fs_free_mem(&t);
		return retval;
	}
	t->fs = fs;
	t->j = j;
	t->image_io_was_io = fs->image_io == fs->io;
	fs->io = t->cap->io;
	if (t->image_io_was_io)
		fs->image_io = t->cap->io;
	*ret = t;
	return 0;
}

/*
 * Put the real channel back and free @t.  After a failure the in-memory
 * fs (descriptors, bitmaps, inode cache, superblock) holds changes that
 * are not on disk: it is reloaded from the disk (e4_fs_reload()), so a
 * caller that goes on (the e4debug shell) never flushes them later; if
 * even that fails, the dirty flags are cleared.
 */
static void txn_end(struct e4_txn *t, int failed)
{
	ext2_filsys fs = t->fs;
	io_channel under = t->cap->under;

	if (under->block_size != (int)fs->blocksize)
		io_channel_set_blksize(under, (int)fs->blocksize);
	fs->io = under;
	if (t->image_io_was_io)
		fs->image_io = under;
	e4_capture_free(t->cap);
	ext2fs_free_mem(&t);
	if (failed && e4_fs_reload(fs))
		fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
			       EXT2_FLAG_IB_DIRTY | EXT2_FLAG_CHANGED);
}

void e4_txn_abort(struct e4_txn *t)
{
	if (t)
		txn_end(t, 1);
}

/* ---- commit ------------------------------------------------------------ */

/*
 * Lay out the log of @t: descriptor blocks each followed by their data
 * blocks, then the commit block (jbd2's journal_commit_transaction() and
 * the formats of journal.rst "Descriptor Block", "Commit"), in @log
 * (from jblock s_first on; the caller sized it).
 */
static void build_log(struct e4_txn *t, uint32_t tid, unsigned char *log)
{
	e4_journal_t j = t->j;
	unsigned int bs = j->blocksize;
	struct e4_jcodec c;
	size_t per, i = 0, k;
	uint32_t crc_be = ~0U;
	unsigned char *p = log, *commit;
	struct timespec now;

	e4_jcodec_init(&c, &j->jsb, bs);
	per = e4_jdesc_tags_per_block(&c);
	while (i < t->cap->n) {
		unsigned char *desc = p, *tag = desc + JBD2_HEADER_SIZE;
		size_t m = t->cap->n - i < per ? t->cap->n - i : per;

		e4_jblock_header(desc, JBD2_DESCRIPTOR_BLOCK, tid);
		p += bs;
		for (k = 0; k < m; k++, p += bs) {
			const struct e4_held *h = &t->cap->v[i + k];
			uint32_t flags = 0;

			memcpy(p, h->data, bs);
			if (e4_jblock_escape(p))
				flags |= JBD2_FLAG_ESCAPE;
			if (k)
				flags |= JBD2_FLAG_SAME_UUID;
			if (k == m - 1)
				flags |= JBD2_FLAG_LAST_TAG;
			tag += e4_jdesc_put_tag(&c, tag, h->blk, flags,
						e4_jtag_csum(&c, tid, p));
		}
		e4_jblock_set_tail_csum(&c, desc);
		if (c.v1) {
			crc_be = e4_crc32_be(crc_be, desc, bs);
			for (k = 0; k < m; k++)
				crc_be = e4_crc32_be(crc_be,
						     desc + (k + 1) * bs, bs);
		}
		i += m;
	}
	commit = p;
	e4_jblock_header(commit, JBD2_COMMIT_BLOCK, tid);
	/* libext2fs's clock: fs->now (E2FSPROGS_FAKE_TIME) when set */
	if (t->fs->now) {
		now.tv_sec = t->fs->now;
		now.tv_nsec = 0;
	} else
		clock_gettime(CLOCK_REALTIME, &now);
	e4_put_be64(commit + JBD2_COMMIT_SEC, (uint64_t)now.tv_sec);
	e4_put_be32(commit + JBD2_COMMIT_NSEC, (uint32_t)now.tv_nsec);
	if (c.v2v3) {
		e4_jcommit_set_csum(&c, commit);
	} else if (c.v1) {
		commit[JBD2_COMMIT_CHKSUM_TYPE] = JBD2_CRC32_CHKSUM;
		commit[JBD2_COMMIT_CHKSUM_SIZE] = JBD2_CRC32_CHKSUM_SIZE;
		e4_put_be32(commit + JBD2_COMMIT_CHKSUM, crc_be);
	}
}

/* Is the scan of our own log exactly the transaction we wrote? */
static int scan_is_ours(const struct e4_jscan *s, uint32_t tid, size_t n)
{
	size_t k;

	if (s->fail || s->ncommitted != 1 || s->ntrans != 1 ||
	    s->trans[0].tid != tid || s->trans[0].ntags != n ||
	    s->trans[0].nrevokes || s->corrupt)
		return 0;
	for (k = 0; k < n; k++)
		if (s->trans[0].tags[k].csum_ok == 0)
			return 0;
	return 1;
}

errcode_t e4_txn_commit(struct e4_txn *t, struct e4_txn_result *res)
{
	struct e4_txn_result dummy;
	ext2_filsys fs = t->fs;
	e4_journal_t j = t->j;
	unsigned int bs = fs->blocksize;
	int saved = fs->flags & (EXT2_FLAG_MASTER_SB_ONLY |
				 EXT2_FLAG_SUPER_ONLY);
	uint32_t tid = j->jsb.sequence, log_end;
	size_t ndesc, nlog, room, per;
	unsigned char *log = NULL;
	struct e4_jscan *scan = NULL;
	struct e4_replay_result rr;
	struct e4_jcodec codec;
	errcode_t retval;

	e4_error_tables_init();
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	res->tid = tid;

	/* 1. everything libext2fs holds in memory, into the held blocks;
	 * the superblock copy says needs_recovery, as the kernel's does */
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	fs->flags &= ~EXT2_FLAG_SUPER_ONLY;
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_mark_super_dirty(fs);
	retval = ext2fs_flush2(fs, 0);
	ext2fs_clear_feature_journal_needs_recovery(fs->super);
	fs->flags = (fs->flags & ~(EXT2_FLAG_MASTER_SB_ONLY |
				   EXT2_FLAG_SUPER_ONLY)) | saved;
	if (!retval && t->cap->failed)
		retval = EXT2_ET_NO_MEMORY;
	if (!retval)
		retval = e4_capture_drop_unchanged(t->cap, &res->nunchanged);
	if (retval)
		goto fail;
	res->nblocks = t->cap->n;

	/* 2. room: descriptors + data + commit within the log area */
	e4_jcodec_init(&codec, &j->jsb, j->blocksize);
	per = e4_jdesc_tags_per_block(&codec);
	ndesc = (t->cap->n + per - 1) / per;
	nlog = ndesc + t->cap->n + 1;
	log_end = e4_jsb_log_end(j->sb);
	room = log_end > j->jsb.first ? log_end - j->jsb.first : 0;
	if (nlog + 1 > room) {		/* + the end marker */
		retval = E4_ERR_TXN_TOO_BIG;
		goto fail;
	}
	res->njblocks = nlog;
	retval = ext2fs_get_memzero((nlog + 1) * bs, &log);
	if (retval)
		goto fail;
	build_log(t, tid, log);

	/*
	 * 3. The log: descriptor and data blocks and an end marker (a block
	 * without JBD2_MAGIC, so no stale block can extend our log), a
	 * flush, the commit block, a flush.  The journal superblock still
	 * says s_start 0, so nobody reads this log yet: an interruption
	 * here leaves the old state, and a rerun writes the same log.
	 * Then needs_recovery in the superblock on disk, then the journal
	 * superblock pointing at the log (the kernel's order: the flag is
	 * set before the log is live).
	 */
	fs->io = t->cap->under;		/* from here on, real writes */
	if (t->image_io_was_io)
		fs->image_io = t->cap->under;
	retval = 0;
	if (j->jsb.feature_incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT)
		/* a stale fast-commit area must not follow our tid */
		retval = e4_journal_write(j, log_end, 1, log + nlog * bs);
	if (!retval)
		retval = e4_journal_write(j, j->jsb.first, nlog - 1, log);
	if (!retval)
		retval = e4_journal_write(j, j->jsb.first + nlog, 1,
					  log + nlog * bs);
	if (!retval)
		retval = io_channel_flush(j->io);
	if (!retval)
		retval = e4_journal_write(j, j->jsb.first + nlog - 1, 1,
					  log + (nlog - 1) * bs);
	if (!retval)
		retval = io_channel_flush(j->io);
	if (!retval)
		retval = e4_super_set_recover(fs);	/* the old one */
	if (retval)
		goto out;
	e4_put_be32(j->sb + JBD2_JSB_START, j->jsb.first);
	e4_put_be32(j->sb + JBD2_JSB_SEQUENCE, tid);
	retval = e4_journal_write_sb(j);
	if (retval)
		goto out;

	/* 4. checkpoint: recover our own transaction (replay.c) */
	retval = e4_journal_scan(j, 0, 0, &scan);
	if (retval)
		goto out;
	if (scan->stop == E4_SCAN_IO_ERROR && scan->fail) {
		retval = scan->fail;	/* the log stays for a recovery */
		goto out;
	}
	if (!scan_is_ours(scan, tid, t->cap->n)) {
		retval = E4_ERR_TXN_VERIFY;
		goto out;
	}
	e4_replay_result_init(&rr, sizeof(rr));
	saved = fs->flags & (EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_SUPER_ONLY);
	retval = e4_journal_replay(j, scan, &rr);
	fs->flags = (fs->flags & ~(EXT2_FLAG_MASTER_SB_ONLY |
				   EXT2_FLAG_SUPER_ONLY)) | saved;
	if (!retval && rr.nwritten != t->cap->n)
		retval = E4_ERR_TXN_VERIFY;
	/* fs->group_desc and the bitmaps in memory are what was logged */
out:
	e4_jscan_free(scan);
	ext2fs_free_mem(&log);
	txn_end(t, retval != 0);
	return retval;
fail:
	/* nothing was written */
	ext2fs_free_mem(&log);
	txn_end(t, 1);
	return retval;
}
