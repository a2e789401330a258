/*
 * itable.c --- lazy inode table initialisation (ITABLE_ZEROED): report the
 * per-group state, finish what the kernel's ext4lazyinit thread would do
 * offline, and undo it for tests.
 *
 * The rule is the kernel's ext4_init_inode_table() (fs/ext4/ialloc.c): a
 * group without EXT4_BG_INODE_ZEROED keeps the first
 * DIV_ROUND_UP(inodes_per_group - bg_itable_unused, inodes_per_block)
 * blocks of its inode table (0 when INODE_UNINIT is set) and has the rest,
 * up to s_itb_per_group blocks, zeroed; then ITABLE_ZEROED is set and the
 * group descriptor checksum recomputed.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e4.h"

/*
 * libext2fs exports its numeric progress meter (lib/ext2fs/progress.c, the
 * one mke2fs and resize2fs print) but declares it only in the uninstalled
 * ext2fsP.h.  The library zeroes and fills sizeof() of its own struct
 * (three fields); the padding keeps a larger future struct in bounds.
 */
struct ext2fs_numeric_progress_struct {
	__u64	max;
	int	log_max;
	int	skip_progress;
	char	pad[64];
};
void ext2fs_numeric_progress_init(ext2_filsys fs,
				  struct ext2fs_numeric_progress_struct *p,
				  const char *label, __u64 max);
void ext2fs_numeric_progress_update(ext2_filsys fs,
				    struct ext2fs_numeric_progress_struct *p,
				    __u64 val);
void ext2fs_numeric_progress_close(ext2_filsys fs,
				   struct ext2fs_numeric_progress_struct *p,
				   const char *message);

/* Largest run handed to one discard/zeroout call: undo_io refuses counts
 * above INT_MAX, and smaller runs keep the progress meter moving. */
#define E4_ITABLE_MAX_RUN	((blk64_t)1 << 18)

/* Bytes of the buffer used when zeroes or garbage must be written. */
#define E4_ITABLE_BUF_BYTES	(1024 * 1024)

errcode_t e4_itable_group(ext2_filsys fs, dgrp_t g,
			  struct e4_itable_group *ig)
{
	uint32_t ipg = EXT2_INODES_PER_GROUP(fs->super);
	uint32_t ipb = EXT2_BLOCK_SIZE(fs->super) /
		EXT2_INODE_SIZE(fs->super);
	uint32_t unused;
	blk64_t end;

	e4_error_tables_init();
	memset(ig, 0, sizeof(*ig));	/* zeroed on the error too */
	if (g >= fs->group_desc_count)
		return EXT2_ET_INVALID_ARGUMENT;
	ig->group = g;
	ig->flags = ext2fs_bg_flags(fs, g);
	ig->itable_unused = ext2fs_bg_itable_unused(fs, g);
	ig->itable = ext2fs_inode_table_loc(fs, g);
	ig->itable_blocks = fs->inode_blocks_per_group;
	ig->csum_ok = ext2fs_group_desc_csum_verify(fs, g) ? 1 : 0;
	end = ig->itable + ig->itable_blocks;
	ig->valid = ig->itable_unused <= ipg &&
		ig->itable >= fs->super->s_first_data_block &&
		end > ig->itable &&
		end <= ext2fs_blocks_count(fs->super);
	unused = ig->itable_unused <= ipg ? ig->itable_unused : ipg;
	if (!(ig->flags & EXT2_BG_INODE_UNINIT) && ipb)
		ig->used_blocks = ((blk64_t)(ipg - unused) + ipb - 1) / ipb;
	if (ig->used_blocks > ig->itable_blocks)
		ig->used_blocks = ig->itable_blocks;
	ig->zero_start = ig->itable + ig->used_blocks;
	/* Without group descriptor checksums mke2fs zeroed every table. */
	if (!(ig->flags & EXT2_BG_INODE_ZEROED) &&
	    ext2fs_has_group_desc_csum(fs))
		ig->to_zero = ig->itable_blocks - ig->used_blocks;
	return 0;
}

errcode_t e4_itable_summary(ext2_filsys fs, struct e4_itable_summary *s)
{
	struct e4_itable_group ig;
	errcode_t retval;
	dgrp_t g;

	e4_error_tables_init();
	memset(s, 0, sizeof(*s));
	s->applicable = ext2fs_has_group_desc_csum(fs);
	s->groups = fs->group_desc_count;
	s->first_bad_csum = s->first_bad_desc = (dgrp_t)-1;
	for (g = 0; g < fs->group_desc_count; g++) {
		retval = e4_itable_group(fs, g, &ig);
		if (retval)
			return retval;
		if (ig.flags & EXT2_BG_INODE_UNINIT)
			s->inode_uninit++;
		if (ig.flags & EXT2_BG_BLOCK_UNINIT)
			s->block_uninit++;
		if (ig.flags & EXT2_BG_INODE_ZEROED)
			s->zeroed++;
		else if (s->applicable) {
			s->to_zero_groups++;
			s->to_zero_blocks += ig.to_zero;
		}
		if (!ig.csum_ok && s->bad_csum++ == 0)
			s->first_bad_csum = g;
		if (!ig.valid && s->bad_desc++ == 0)
			s->first_bad_desc = g;
	}
	return 0;
}

/*
 * Everything a write needs before it touches the disk: the group
 * descriptor checksum feature, an empty journal (or E4_ITABLE_FORCE), and
 * every group descriptor sane with a checksum that verifies.
 */
static errcode_t check_writable(ext2_filsys fs, int flags, dgrp_t *bad)
{
	struct e4_itable_summary s;
	errcode_t retval;

	if (bad)
		*bad = (dgrp_t)-1;
	if (!ext2fs_has_group_desc_csum(fs))
		return E4_ERR_NO_UNINIT_BG;
	if (ext2fs_has_feature_journal_needs_recovery(fs->super) &&
	    !(flags & E4_ITABLE_FORCE))
		return E4_ERR_NEEDS_RECOVERY;
	retval = e4_itable_summary(fs, &s);
	if (retval)
		return retval;
	if (s.bad_csum) {
		if (bad)
			*bad = s.first_bad_csum;
		return E4_ERR_GDT_CSUM;
	}
	if (s.bad_desc) {
		if (bad)
			*bad = s.first_bad_desc;
		return E4_ERR_BAD_GROUP_DESC;
	}
	return 0;
}

/* Fill one block of @bs bytes with records of 16 non-zero-led bytes:
 * "E4LAZYGB" then fs block number @blk as little-endian u64. */
static void fill_garbage(char *block, unsigned int bs, blk64_t blk)
{
	uint64_t le = ext2fs_cpu_to_le64(blk);
	unsigned int off;

	for (off = 0; off + 16 <= bs; off += 16) {
		memcpy(block + off, "E4LAZYGB", 8);
		memcpy(block + off + 8, &le, 8);
	}
}

/* Write @count blocks from @blk through fs->io: @buf's zeroes, or garbage
 * (fill_garbage()) when @garbage. */
static errcode_t write_blocks(ext2_filsys fs, blk64_t blk, blk64_t count,
			      int garbage, char *buf, size_t bufblocks)
{
	errcode_t retval;
	blk64_t n, b;

	while (count) {
		n = count < bufblocks ? count : bufblocks;
		for (b = 0; garbage && b < n; b++)
			fill_garbage(buf + b * fs->blocksize, fs->blocksize,
				     blk + b);
		retval = io_channel_write_blk64(fs->io, blk, (int)n, buf);
		if (retval)
			return retval;
		blk += n;
		count -= n;
	}
	return 0;
}

/* Where the zeroing goes: io_channel_discard on a regular file,
 * io_channel_zeroout on a block device, plain writes as the last resort. */
enum zero_method { ZM_DISCARD, ZM_ZEROOUT, ZM_WRITE };

static const char *method_name(enum zero_method m)
{
	return m == ZM_DISCARD ? "punch" : m == ZM_ZEROOUT ? "zeroout" :
		"write";
}

struct zero_ctx {
	ext2_filsys	fs;
	enum zero_method method;
	char		*buf;		/* zeroed, for ZM_WRITE */
	size_t		bufblocks;
};

static errcode_t zero_run(struct zero_ctx *z, blk64_t blk, blk64_t count)
{
	errcode_t retval;

	if (!count)
		return 0;
	if (z->method == ZM_DISCARD) {
		retval = io_channel_discard(z->fs->io, blk, count);
		if (retval != EXT2_ET_UNIMPLEMENTED &&
		    retval != EXT2_ET_OP_NOT_SUPPORTED)
			return retval;
		z->method = ZM_ZEROOUT;
	}
	if (z->method == ZM_ZEROOUT) {
		retval = io_channel_zeroout(z->fs->io, blk, count);
		if (retval != EXT2_ET_UNIMPLEMENTED &&
		    retval != EXT2_ET_OP_NOT_SUPPORTED)
			return retval;
		z->method = ZM_WRITE;
	}
	if (!z->buf) {
		z->bufblocks = E4_ITABLE_BUF_BYTES / z->fs->blocksize;
		retval = ext2fs_get_memzero(z->bufblocks * z->fs->blocksize,
					    &z->buf);
		if (retval)
			return retval;
	}
	return write_blocks(z->fs, blk, count, 0, z->buf, z->bufblocks);
}

/*
 * unix_io's discard and zeroout leave its small block cache alone, so a
 * block of a zeroed run read through fs->io before would still read back
 * from the cache.  Changing the channel's block size is the io_channel
 * call that drops that cache (unix_set_blksize() frees and reallocates
 * it); undo_io passes it through and keeps its own record size once it
 * has written one.
 */
static errcode_t drop_io_cache(ext2_filsys fs)
{
	errcode_t retval;

	retval = io_channel_set_blksize(fs->io, fs->blocksize * 2);
	if (!retval)
		retval = io_channel_set_blksize(fs->io, fs->blocksize);
	return retval;
}

/*
 * Zero the run [@start, @start + @len) unless dry-running, then give
 * groups [@first, @end) ITABLE_ZEROED and a new group descriptor checksum
 * (the kernel's order: zeroout, then the flag and bg_checksum).
 */
static errcode_t flush_run(struct zero_ctx *z, int flags, blk64_t start,
			   blk64_t len, dgrp_t first, dgrp_t end)
{
	ext2_filsys fs = z->fs;
	errcode_t retval;
	dgrp_t g;

	if (flags & E4_ITABLE_DRY_RUN)
		return 0;
	retval = zero_run(z, start, len);
	if (retval)
		return retval;
	for (g = first; g < end; g++) {
		if (ext2fs_bg_flags(fs, g) & EXT2_BG_INODE_ZEROED)
			continue;
		ext2fs_bg_flags_set(fs, g, EXT2_BG_INODE_ZEROED);
		ext2fs_group_desc_csum_set(fs, g);
	}
	ext2fs_mark_super_dirty(fs);
	return 0;
}

/*
 * The runs a finish (@garbage 0: the groups without ITABLE_ZEROED) or an
 * unzero with garbage (@sel, NULL: all) writes must pass
 * e4_block_owner_check(): in the fs, no other metadata, no inode table
 * overlapping another, no inode mapping them.  Returns 0 or its error
 * with *@c naming the block.
 */
static errcode_t check_targets(ext2_filsys fs, const unsigned char *sel,
			       int garbage, struct e4_block_conflict *c)
{
	struct e4_itable_group ig;
	struct e4_block_run *runs;
	errcode_t retval;
	size_t n = 0;
	dgrp_t g;

	retval = ext2fs_get_array(fs->group_desc_count ?
				  fs->group_desc_count : 1, sizeof(*runs),
				  &runs);
	if (retval)
		return retval;
	for (g = 0; g < fs->group_desc_count; g++) {
		if (sel && !sel[g])
			continue;
		e4_itable_group(fs, g, &ig);
		if (!garbage && (ig.flags & EXT2_BG_INODE_ZEROED))
			continue;
		runs[n].lblk = g;
		runs[n].pblk = ig.zero_start;
		runs[n].len = garbage ? ig.itable_blocks - ig.used_blocks :
			ig.to_zero;
		n += runs[n].len != 0;
	}
	retval = e4_block_owner_check(fs, 0, runs, n, E4_OWN_ITABLE, c);
	ext2fs_free_mem(&runs);
	return retval;
}

errcode_t e4_itable_finish(ext2_filsys fs, int flags, dgrp_t *bad_group,
			   struct e4_itable_result *res)
{
	struct ext2fs_numeric_progress_struct progress;
	struct e4_itable_group ig;
	struct zero_ctx z;
	struct stat st;
	blk64_t run_start = 0, run_len = 0;
	dgrp_t g, run_first = 0;
	int in_run = 0, dry = flags & E4_ITABLE_DRY_RUN;
	errcode_t retval;

	e4_error_tables_init();
	memset(res, 0, sizeof(*res));
	memset(&z, 0, sizeof(z));
	z.fs = fs;
	z.method = ZM_DISCARD;
	/* A discard on a block device need not zero (BLKDISCARD). */
	if (stat(fs->device_name, &st) == 0 && S_ISBLK(st.st_mode))
		z.method = ZM_ZEROOUT;
	if (flags & E4_ITABLE_WRITE_ZEROES)
		z.method = ZM_WRITE;
	res->method = method_name(z.method);

	retval = check_writable(fs, flags, bad_group);
	if (!retval)
		retval = check_targets(fs, NULL, 0, &res->conflict);
	if (retval)
		return retval;
	if (!dry && !(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (!dry) {
		/* Dirty cached blocks must not land on a punched range. */
		retval = io_channel_flush(fs->io);
		if (retval)
			return retval;
		for (g = 0; g < fs->group_desc_count; g++)
			if (!(ext2fs_bg_flags(fs, g) & EXT2_BG_INODE_ZEROED))
				res->groups++;
		ext2fs_numeric_progress_init(fs, &progress,
					     "Zeroing inode tables: ",
					     res->groups);
		res->groups = 0;
	}

	/*
	 * Adjacent ranges (flex_bg packs the tables of a flex group back to
	 * back) merge into one run of at most E4_ITABLE_MAX_RUN blocks.
	 */
	for (g = 0; g < fs->group_desc_count; g++) {
		e4_itable_group(fs, g, &ig);
		if (ig.flags & EXT2_BG_INODE_ZEROED)
			continue;
		if (in_run && (ig.zero_start != run_start + run_len ||
			       run_len + ig.to_zero > E4_ITABLE_MAX_RUN)) {
			retval = flush_run(&z, flags, run_start, run_len,
					   run_first, g);
			if (retval)
				goto out;
			res->runs++;
			if (!dry)
				ext2fs_numeric_progress_update(fs, &progress,
							       res->groups);
			in_run = 0;
		}
		if (!in_run) {
			in_run = 1;
			run_first = g;
			run_start = ig.zero_start;
			run_len = 0;
		}
		run_len += ig.to_zero;
		res->groups++;
		res->blocks += ig.to_zero;
	}
	if (in_run) {
		retval = flush_run(&z, flags, run_start, run_len, run_first,
				   fs->group_desc_count);
		if (retval)
			goto out;
		res->runs++;
	}
	if (!dry) {
		/* The zeroes reach the disk before the flags do (the
		 * kernel's barrier after sb_issue_zeroout()). */
		retval = io_channel_flush(fs->io);
		if (!retval && z.method != ZM_WRITE)
			retval = drop_io_cache(fs);
		ext2fs_numeric_progress_close(fs, &progress, "done\n");
	}
out:
	res->method = method_name(z.method);
	ext2fs_free_mem(&z.buf);
	return retval;
}

errcode_t e4_itable_unzero(ext2_filsys fs, const unsigned char *sel,
			   int flags, dgrp_t *bad_group,
			   struct e4_itable_result *res)
{
	struct e4_itable_group ig;
	char *buf = NULL;
	size_t bufblocks = E4_ITABLE_BUF_BYTES / fs->blocksize;
	errcode_t retval;
	dgrp_t g;

	e4_error_tables_init();
	memset(res, 0, sizeof(*res));
	res->method = (flags & E4_ITABLE_GARBAGE) ? "garbage" : "flags";
	retval = check_writable(fs, flags, bad_group);
	if (!retval && (flags & E4_ITABLE_GARBAGE))
		retval = check_targets(fs, sel, 1, &res->conflict);
	if (retval)
		return retval;
	if (!(flags & E4_ITABLE_DRY_RUN) && !(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if ((flags & E4_ITABLE_GARBAGE) && !(flags & E4_ITABLE_DRY_RUN)) {
		retval = ext2fs_get_mem(bufblocks * fs->blocksize, &buf);
		if (retval)
			return retval;
	}
	for (g = 0; g < fs->group_desc_count; g++) {
		if (sel && !sel[g])
			continue;
		e4_itable_group(fs, g, &ig);
		res->groups++;
		if (flags & E4_ITABLE_GARBAGE) {
			res->blocks += ig.itable_blocks - ig.used_blocks;
			res->runs++;
		}
		if (flags & E4_ITABLE_DRY_RUN)
			continue;
		if (flags & E4_ITABLE_GARBAGE) {
			retval = write_blocks(fs, ig.zero_start,
					      ig.itable_blocks -
					      ig.used_blocks, 1, buf,
					      bufblocks);
			if (retval)
				goto out;
		}
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_INODE_ZEROED);
		ext2fs_group_desc_csum_set(fs, g);
		ext2fs_mark_super_dirty(fs);
	}
out:
	ext2fs_free_mem(&buf);
	return retval;
}
