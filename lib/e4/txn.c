/*
 * txn.c --- crash-safe metadata updates: the writes libext2fs makes between
 * e4_txn_begin() and e4_txn_commit() are held in memory, logged to the
 * file system's own journal as one jbd2 transaction, and only then written
 * in place by replaying that transaction (replay.c) -- the kernel's
 * write-ahead rule, so an interruption anywhere leaves either the old
 * state or a committed transaction that any recovery (e4replay, e2fsck,
 * the kernel) completes.
 *
 * While a transaction is open, fs->io is a capturing io_channel over the
 * real one ("under"): reads see the held blocks, writes go to them.  Held
 * blocks are kept per fs block, so libext2fs's byte-sized superblock writes
 * (io_channel_set_blksize(1024)) work too.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e4.h"
#include "jbd2_fmt.h"

struct held {
	blk64_t		blk;		/* fs block */
	unsigned char	*data;		/* fs->blocksize bytes */
};

struct e4_txn {
	ext2_filsys	fs;
	e4_journal_t	j;
	io_channel	under;		/* the real fs->io */
	int		image_io_was_io;
	io_channel	cap;		/* the capturing channel */
	struct held	*v;		/* held blocks, in order of capture */
	size_t		n, cap_n;
	size_t		*hash;		/* index + 1 into v; 0 = empty */
	size_t		hash_n;		/* power of two */
	int		failed;		/* a capture failed: commit refuses */
};

static struct struct_io_manager txn_manager;

/* ---- held blocks: a hash of fs block -> index in v --------------------- */

static size_t hslot(const struct e4_txn *t, blk64_t blk)
{
	uint64_t h = blk * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> 20) & (t->hash_n - 1);
}

static struct held *find_held(const struct e4_txn *t, blk64_t blk)
{
	size_t i;

	if (!t->hash_n)
		return NULL;
	for (i = hslot(t, blk); t->hash[i]; i = (i + 1) & (t->hash_n - 1))
		if (t->v[t->hash[i] - 1].blk == blk)
			return &t->v[t->hash[i] - 1];
	return NULL;
}

static errcode_t rehash(struct e4_txn *t, size_t n)
{
	size_t *h, i, k;
	errcode_t retval;

	retval = ext2fs_get_arrayzero(n, sizeof(*h), &h);
	if (retval)
		return retval;
	ext2fs_free_mem(&t->hash);
	t->hash = h;
	t->hash_n = n;
	for (i = 0; i < t->n; i++) {
		for (k = hslot(t, t->v[i].blk); h[k]; k = (k + 1) & (n - 1))
			;
		h[k] = i + 1;
	}
	return 0;
}

/* Read fs block @blk from @io whatever its current block size. */
static errcode_t read_fsblk(io_channel io, unsigned int bs, blk64_t blk,
			    void *buf)
{
	unsigned int cb = (unsigned int)io->block_size;

	return io_channel_read_blk64(io, blk * (bs / cb), -(int)bs, buf);
}

/* The held copy of @blk, made from the block on disk if new. */
static errcode_t hold(struct e4_txn *t, blk64_t blk, int whole,
		      struct held **ret)
{
	unsigned int bs = t->fs->blocksize;
	struct held *h = find_held(t, blk);
	unsigned char *data;
	size_t k;
	errcode_t retval;

	if (h) {
		*ret = h;
		return 0;
	}
	if (t->n == t->cap_n) {
		size_t nc = t->cap_n ? 2 * t->cap_n : 64;

		retval = ext2fs_resize_array(sizeof(*t->v), t->cap_n, nc,
					     &t->v);
		if (retval)
			return retval;
		t->cap_n = nc;
	}
	if (2 * (t->n + 1) > t->hash_n) {
		retval = rehash(t, t->hash_n ? 2 * t->hash_n : 256);
		if (retval)
			return retval;
	}
	retval = ext2fs_get_mem(bs, &data);
	if (retval)
		return retval;
	if (!whole) {
		retval = read_fsblk(t->under, bs, blk, data);
		if (retval) {
			ext2fs_free_mem(&data);
			return retval;
		}
	}
	t->v[t->n].blk = blk;
	t->v[t->n].data = data;
	for (k = hslot(t, blk); t->hash[k]; k = (k + 1) & (t->hash_n - 1))
		;
	t->hash[k] = ++t->n;
	*ret = &t->v[t->n - 1];
	return 0;
}

/* ---- the capturing io_channel ------------------------------------------ */

static errcode_t cap_open(const char *name EXT2FS_ATTR((unused)),
			  int flags EXT2FS_ATTR((unused)),
			  io_channel *ret EXT2FS_ATTR((unused)))
{
	return EXT2_ET_UNIMPLEMENTED;	/* made by e4_txn_begin() only */
}

static errcode_t cap_close(io_channel io)
{
	if (--io->refcount > 0)
		return 0;
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return 0;
}

static errcode_t cap_set_blksize(io_channel io, int blksize)
{
	struct e4_txn *t = io->private_data;

	io->block_size = blksize;
	return io_channel_set_blksize(t->under, blksize);
}

/* Bytes [*off, *off + *len) of a call of @count units of the channel. */
static errcode_t span(io_channel io, unsigned long long block, int count,
		      uint64_t *off, uint64_t *len)
{
	*off = (uint64_t)block * (unsigned int)io->block_size;
	*len = count < 0 ? (uint64_t)-(int64_t)count :
		(uint64_t)count * (unsigned int)io->block_size;
	return *len ? 0 : EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t cap_read64(io_channel io, unsigned long long block,
			    int count, void *data)
{
	struct e4_txn *t = io->private_data;
	unsigned int bs = t->fs->blocksize;
	uint64_t off, len, b, end;
	errcode_t retval;

	retval = io_channel_read_blk64(t->under, block, count, data);
	if (retval || !t->n)
		return retval;
	span(io, block, count, &off, &len);
	end = off + len;
	for (b = off / bs; b * bs < end; b++) {
		const struct held *h = find_held(t, b);
		uint64_t lo, hi;

		if (!h)
			continue;
		lo = b * bs > off ? b * bs : off;
		hi = (b + 1) * bs < end ? (b + 1) * bs : end;
		memcpy((unsigned char *)data + (lo - off),
		       h->data + (lo - b * bs), hi - lo);
	}
	return 0;
}

static errcode_t cap_write64(io_channel io, unsigned long long block,
			     int count, const void *data)
{
	struct e4_txn *t = io->private_data;
	unsigned int bs = t->fs->blocksize;
	uint64_t off, len, b, end;
	errcode_t retval;

	retval = span(io, block, count, &off, &len);
	if (retval)
		return retval;
	end = off + len;
	for (b = off / bs; b * bs < end; b++) {
		uint64_t lo = b * bs > off ? b * bs : off;
		uint64_t hi = (b + 1) * bs < end ? (b + 1) * bs : end;
		struct held *h;

		retval = hold(t, b, lo == b * bs && hi == (b + 1) * bs, &h);
		if (retval) {
			t->failed = 1;
			return retval;
		}
		memcpy(h->data + (lo - b * bs),
		       (const unsigned char *)data + (lo - off), hi - lo);
	}
	return 0;
}

static errcode_t cap_read(io_channel io, unsigned long block, int count,
			  void *data)
{
	return cap_read64(io, block, count, data);
}

static errcode_t cap_write(io_channel io, unsigned long block, int count,
			   const void *data)
{
	return cap_write64(io, block, count, data);
}

static errcode_t cap_flush(io_channel io EXT2FS_ATTR((unused)))
{
	return 0;	/* nothing reaches the disk before the commit */
}

static errcode_t cap_get_stats(io_channel io, io_stats *stats)
{
	struct e4_txn *t = io->private_data;

	if (!t->under->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return t->under->manager->get_stats(t->under, stats);
}

static struct struct_io_manager txn_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4 transaction-capturing I/O manager",
	.open		= cap_open,
	.close		= cap_close,
	.set_blksize	= cap_set_blksize,
	.read_blk	= cap_read,
	.write_blk	= cap_write,
	.flush		= cap_flush,
	.get_stats	= cap_get_stats,
	.read_blk64	= cap_read64,
	.write_blk64	= cap_write64,
	/* no write_byte, discard or zeroout: libext2fs falls back to
	 * whole-block writes, which are captured */
};

/* ---- begin / abort ----------------------------------------------------- */

errcode_t e4_txn_begin(ext2_filsys fs, e4_journal_t j, struct e4_txn **ret)
{
	struct e4_txn *t = NULL;
	io_channel io = NULL;
	errcode_t retval;

	*ret = NULL;
	if (!(fs->flags & EXT2_FLAG_RW) || !(j->flags & E4_JOURNAL_RW))
		return E4_ERR_READ_ONLY;
	if (j->fs != fs || fs->io->manager == &txn_manager ||
	    j->io->manager == &txn_manager || j->blocksize != fs->blocksize)
		return EXT2_ET_INVALID_ARGUMENT;
	if (ext2fs_has_feature_journal_needs_recovery(fs->super) ||
	    j->jsb.start)
		return E4_ERR_NEEDS_RECOVERY;
	if (j->jsb.errno_)
		return E4_ERR_TXN_JOURNAL_ERRNO;
	retval = ext2fs_get_memzero(sizeof(*t), &t);
	if (!retval)
		retval = ext2fs_get_memzero(sizeof(*io), &io);
	if (!retval)
		retval = ext2fs_get_mem(sizeof("e4txn"), &io->name);
	if (retval) {
		ext2fs_free_mem(&io);
		ext2fs_free_mem(&t);
		return retval;
	}
	strcpy(io->name, "e4txn");
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &txn_manager;
	io->block_size = fs->io->block_size;
	io->refcount = 1;
	io->flags = fs->io->flags;
	io->private_data = t;
	t->fs = fs;
	t->j = j;
	t->under = fs->io;
	t->cap = io;
	t->image_io_was_io = fs->image_io == fs->io;
	fs->io = io;
	if (t->image_io_was_io)
		fs->image_io = io;
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
	size_t i;

	if (t->under->block_size != (int)fs->blocksize)
		io_channel_set_blksize(t->under, (int)fs->blocksize);
	fs->io = t->under;
	if (t->image_io_was_io)
		fs->image_io = t->under;
	io_channel_close(t->cap);
	for (i = 0; i < t->n; i++)
		ext2fs_free_mem(&t->v[i].data);
	ext2fs_free_mem(&t->v);
	ext2fs_free_mem(&t->hash);
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

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/*
 * Drop held blocks equal to the disk (libext2fs's flush rewrites every
 * group descriptor block and the bitmaps it loaded), sort the rest.
 */
static errcode_t drop_unchanged(struct e4_txn *t, struct e4_txn_result *res)
{
	unsigned int bs = t->fs->blocksize;
	unsigned char *buf;
	size_t i, k = 0;
	errcode_t retval;

	retval = ext2fs_get_mem(bs, &buf);
	if (retval)
		return retval;
	for (i = 0; i < t->n; i++) {
		retval = read_fsblk(t->under, bs, t->v[i].blk, buf);
		if (retval)
			break;
		if (!memcmp(buf, t->v[i].data, bs)) {
			ext2fs_free_mem(&t->v[i].data);
			res->nunchanged++;
			continue;
		}
		t->v[k++] = t->v[i];
	}
	ext2fs_free_mem(&buf);
	if (retval) {
		/* keep what was kept and what was not looked at yet */
		memmove(t->v + k, t->v + i, (t->n - i) * sizeof(*t->v));
		t->n = k + (t->n - i);
		return retval;
	}
	t->n = k;
	ext2fs_free_mem(&t->hash);	/* no lookups from here on */
	t->hash_n = 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_held);
	return 0;
}

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
	while (i < t->n) {
		unsigned char *desc = p, *tag = desc + JBD2_HEADER_SIZE;
		size_t m = t->n - i < per ? t->n - i : per;

		e4_jblock_header(desc, JBD2_DESCRIPTOR_BLOCK, tid);
		p += bs;
		for (k = 0; k < m; k++, p += bs) {
			const struct held *h = &t->v[i + k];
			uint32_t flags = 0;

			memcpy(p, h->data, bs);
			if (e4_be32(p) == JBD2_MAGIC) {	/* escape */
				e4_put_be32(p, 0);
				flags |= JBD2_FLAG_ESCAPE;
			}
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
	e4_put_be64(commit + COMMIT_SEC, (uint64_t)now.tv_sec);
	e4_put_be32(commit + COMMIT_NSEC, (uint32_t)now.tv_nsec);
	if (c.v2v3) {
		e4_jcommit_set_csum(&c, commit);
	} else if (c.v1) {
		commit[COMMIT_CHKSUM_TYPE] = JBD2_CRC32_CHKSUM;
		commit[COMMIT_CHKSUM_SIZE] = JBD2_CRC32_CHKSUM_SIZE;
		e4_put_be32(commit + COMMIT_CHKSUM, crc_be);
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
	if (!retval && t->failed)
		retval = EXT2_ET_NO_MEMORY;
	if (!retval)
		retval = drop_unchanged(t, res);
	if (retval)
		goto fail;
	res->nblocks = t->n;

	/* 2. room: descriptors + data + commit within the log area */
	e4_jcodec_init(&codec, &j->jsb, j->blocksize);
	per = e4_jdesc_tags_per_block(&codec);
	ndesc = (t->n + per - 1) / per;
	nlog = ndesc + t->n + 1;
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
	fs->io = t->under;		/* from here on, real writes */
	if (t->image_io_was_io)
		fs->image_io = t->under;
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
	e4_put_be32(j->sb + JSB_START, j->jsb.first);
	e4_put_be32(j->sb + JSB_SEQUENCE, tid);
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
	if (!scan_is_ours(scan, tid, t->n)) {
		retval = E4_ERR_TXN_VERIFY;
		goto out;
	}
	memset(&rr, 0, sizeof(rr));
	saved = fs->flags & (EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_SUPER_ONLY);
	retval = e4_journal_replay(j, scan, &rr);
	fs->flags = (fs->flags & ~(EXT2_FLAG_MASTER_SB_ONLY |
				   EXT2_FLAG_SUPER_ONLY)) | saved;
	if (!retval && rr.nwritten != t->n)
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
