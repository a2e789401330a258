/*
 * mmp.c --- multiple mount protection (MMP) around an offline write: the
 * rule e2fsck follows before it writes a file system with the mmp
 * feature, and the clean state it leaves behind.
 *
 * The rule (e2fsprogs 1.47 lib/ext2fs/mmp.c ext2fs_mmp_start() and
 * ext2fs_mmp_stop(), e2fsck/unix.c e2fsck_check_mmp(); the kernel's
 * ext4_multi_mount_protect(), fs/ext4/mmp.c, Linux 6.x, mounts by the same
 * sequence numbers):
 *  - mmp_seq EXT4_MMP_SEQ_CLEAN (0xFF4D4D50): nobody uses the fs;
 *  - EXT4_MMP_SEQ_FSCK (0xE24D4D50): e2fsck (or another offline writer)
 *    holds it: refused at once (EXT2_ET_MMP_FSCK_ON);
 *  - above EXT4_MMP_SEQ_MAX: refused at once (EXT2_ET_MMP_UNKNOWN_SEQ);
 *  - any other value: a node had it mounted (kmmpd bumps the sequence
 *    every s_mmp_update_interval seconds), or crashed with it mounted.
 *    Wait the check interval, min(2 * ci + 1, ci + 60) seconds, where ci
 *    is s_mmp_update_interval, at least EXT4_MMP_MIN_CHECK_INTERVAL (5),
 *    or the block's mmp_check_interval if larger; if the sequence changed
 *    meanwhile the fs is in use (EXT2_ET_MMP_FAILED), else the node is
 *    gone (a crash) and the fs may be taken;
 *  - taking it: write a new random sequence with this host's name, wait
 *    the same interval again, check that nobody replaced it, then write
 *    EXT4_MMP_SEQ_FSCK; the writes follow;
 *  - afterwards write EXT4_MMP_SEQ_CLEAN, so that the next mount does not
 *    wait (ext4_multi_mount_protect() skips both waits on a clean block).
 * A magic or checksum failure is refused too (the kernel's mount fails on
 * both; e2fsck offers to reset the block).  libext2fs implements the
 * sequence (CONFIG_MMP); this file decides when each step applies, for
 * the fs written in place, for IMAGE read into a copy, and for the copy.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "e4.h"

/* ext2fs_mmp_start()'s one wait, seconds, for the block @mmp of @fs. */
static unsigned int mmp_wait(ext2_filsys fs, const struct mmp_struct *mmp)
{
	unsigned int ci = fs->super->s_mmp_update_interval;

	if (ci < EXT4_MMP_MIN_CHECK_INTERVAL)
		ci = EXT4_MMP_MIN_CHECK_INTERVAL;
	if (mmp->mmp_check_interval > ci)
		ci = mmp->mmp_check_interval;
	return 2 * ci + 1 < ci + 60 ? 2 * ci + 1 : ci + 60;
}

/* Copy the identity fields of @mmp into @m. */
static void mmp_fill(const struct mmp_struct *mmp, struct e4_mmp *m)
{
	m->seq = mmp->mmp_seq;
	m->time = mmp->mmp_time;
	memcpy(m->nodename, mmp->mmp_nodename, sizeof(mmp->mmp_nodename));
	m->nodename[sizeof(mmp->mmp_nodename)] = '\0';
	memcpy(m->bdevname, mmp->mmp_bdevname, sizeof(mmp->mmp_bdevname));
	m->bdevname[sizeof(mmp->mmp_bdevname)] = '\0';
}

/*
 * ext2fs_mmp_read() with the checksum verified whatever the fs was opened
 * with (the kernel refuses a block failing it).
 */
static errcode_t mmp_read(ext2_filsys fs)
{
	int saved = fs->flags & EXT2_FLAG_IGNORE_CSUM_ERRORS;
	errcode_t retval;

	if (!fs->mmp_buf) {
		retval = ext2fs_get_mem(fs->blocksize, &fs->mmp_buf);
		if (retval)
			return retval;
	}
	fs->flags &= ~EXT2_FLAG_IGNORE_CSUM_ERRORS;
	retval = ext2fs_mmp_read(fs, fs->super->s_mmp_block, fs->mmp_buf);
	fs->flags |= saved;
	return retval;
}

errcode_t e4_mmp_read(ext2_filsys fs, unsigned int flags, struct e4_mmp *m)
{
	struct mmp_struct *mmp;
	errcode_t retval;
	unsigned int w;

	memset(m, 0, sizeof(*m));
	if (!ext2fs_has_feature_mmp(fs->super))
		return 0;
	m->enabled = 1;
	m->block = fs->super->s_mmp_block;
	retval = mmp_read(fs);
	if (retval)
		return retval;
	mmp = fs->mmp_buf;
	mmp_fill(mmp, m);
	if (mmp->mmp_seq == EXT4_MMP_SEQ_FSCK)
		return EXT2_ET_MMP_FSCK_ON;
	if (mmp->mmp_seq != EXT4_MMP_SEQ_CLEAN &&
	    mmp->mmp_seq > EXT4_MMP_SEQ_MAX)
		return EXT2_ET_MMP_UNKNOWN_SEQ;
	if (flags & E4_MMP_COPY)
		return 0;
	w = mmp_wait(fs, mmp);
	m->check_wait = w;
	if (mmp->mmp_seq != EXT4_MMP_SEQ_CLEAN)
		m->wait = w;		/* the check that the node is gone */
	if (!(flags & E4_MMP_CHECK_ONLY))
		m->wait += w;		/* the check of the new sequence */
	return 0;
}

/* Write @seq with this host's and @name's identity (a copy's take-over). */
static errcode_t mmp_take(ext2_filsys fs, const char *name, uint32_t seq)
{
	struct mmp_struct *mmp = fs->mmp_buf;

	mmp->mmp_seq = seq;
	memset(mmp->mmp_nodename, 0, sizeof(mmp->mmp_nodename));
	if (gethostname((char *)mmp->mmp_nodename,
			sizeof(mmp->mmp_nodename) - 1))
		strcpy((char *)mmp->mmp_nodename, "unknown host");
	memset(mmp->mmp_bdevname, 0, sizeof(mmp->mmp_bdevname));
	strncpy((char *)mmp->mmp_bdevname, name ? name : fs->device_name,
		sizeof(mmp->mmp_bdevname) - 1);
	return ext2fs_mmp_write(fs, fs->super->s_mmp_block, fs->mmp_buf);
}

errcode_t e4_mmp_start(ext2_filsys fs, unsigned int flags, const char *name,
		       struct e4_mmp *m)
{
	int rw = fs->flags & EXT2_FLAG_RW;
	errcode_t retval;

	retval = e4_mmp_read(fs, flags, m);
	if (retval || !m->enabled)
		return retval;
	if (!rw && !(flags & E4_MMP_CHECK_ONLY))
		return E4_ERR_READ_ONLY;
	if (flags & E4_MMP_COPY) {
		/* A copy this run made: no other node has it. */
		retval = mmp_take(fs, name, EXT4_MMP_SEQ_FSCK);
	} else {
		/* ext2fs_mmp_start() on a read-only fs checks, writes
		 * nothing (its "clean_seq" step returns first). */
		if (flags & E4_MMP_CHECK_ONLY)
			fs->flags &= ~EXT2_FLAG_RW;
		retval = ext2fs_mmp_start(fs);
		fs->flags |= rw;
		if (fs->mmp_buf)
			mmp_fill(fs->mmp_buf, m);
		if (flags & E4_MMP_CHECK_ONLY)
			return retval;
	}
	if (retval)
		return retval;
	/* Held (EXT4_MMP_SEQ_FSCK): ext2fs_mmp_stop() needs SKIP_MMP off. */
	fs->flags &= ~EXT2_FLAG_SKIP_MMP;
	m->held = 1;
	return 0;
}

errcode_t e4_mmp_stop(ext2_filsys fs, struct e4_mmp *m)
{
	errcode_t retval;

	if (!m->held)
		return 0;
	retval = ext2fs_mmp_stop(fs);
	fs->flags |= EXT2_FLAG_SKIP_MMP;	/* the close leaves it alone */
	m->held = 0;
	if (!retval) {
		m->seq = EXT4_MMP_SEQ_CLEAN;
		m->clean = 1;
	}
	return retval;
}
