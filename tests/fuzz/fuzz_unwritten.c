/*
 * fuzz_unwritten.c --- libFuzzer target: extent listing and the dry run
 * of marking ranges (lib/e4/unwritten.c) on fuzzed inodes and extent
 * trees.
 *
 * Input: as fuzz_image (u8 ctrl: bit 0 metadata_csum template, bit 1
 * EXT2_FLAG_IGNORE_CSUM_ERRORS; then bytes from the superblock on of a
 * 4 MiB ext4 built in memory: group descriptors, bitmaps and the inode
 * table's first inodes, among them the root directory and the journal
 * inode with its extent tree).  Runs e4_fs_extents() and, on each of the
 * first 16 inodes, e4_inode_extents() and a dry-run e4_mark_range() both
 * ways, read-only through an io_manager that aborts on any write.
 *
 * Properties: no write; totals add up (unwritten <= all, per-extent sums
 * equal the totals); every extent has len >= 1, lies inside the fs unless
 * the inode's walk reported an error, and reports the right inode; a
 * walk's extents come in increasing lblk order without overlap.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct walk {
	struct e4_extent_totals sum;	/* added up from the callbacks */
	ext2_ino_t	ino;		/* e4_inode_extents(): expected */
	blk64_t		next_lblk;
	int		started;
};

static int on_extent(ext2_filsys fs, const struct e4_extent_rec *r,
		     void *priv)
{
	struct walk *w = priv;

	if (r->error)
		return 0;
	FUZZ_ASSERT(r->len >= 1, "extent of length 0, ino %u", r->ino);
	FUZZ_ASSERT(!w->ino || r->ino == w->ino, "ino %u != %u", r->ino,
		    w->ino);
	(void)fs;
	if (w->ino) {
		FUZZ_ASSERT(!w->started || r->lblk >= w->next_lblk,
			    "ino %u: extents out of order at lblk %llu",
			    r->ino, (unsigned long long)r->lblk);
		w->next_lblk = r->lblk + r->len;
		w->started = 1;
	}
	w->sum.extents++;
	w->sum.blocks += r->len;
	if (r->unwritten) {
		w->sum.unwritten_extents++;
		w->sum.unwritten_blocks += r->len;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_memimg m;
	struct e4_fault f;
	ext2_filsys fs = NULL;
	struct e4_extent_totals tot;
	struct e4_mark_result mr;
	struct walk w;
	ext2_ino_t ino;
	errcode_t retval;

	if (fuzz_sb_input(data, size, &m, &f, &fs, &retval))
		return 0;
	if (retval)
		goto out;

	memset(&w, 0, sizeof(w));
	memset(&tot, 0, sizeof(tot));
	retval = e4_fs_extents(fs, 0, on_extent, &w, &tot);
	if (!retval) {
		FUZZ_ASSERT(tot.extents == w.sum.extents &&
			    tot.blocks == w.sum.blocks &&
			    tot.unwritten_extents == w.sum.unwritten_extents &&
			    tot.unwritten_blocks == w.sum.unwritten_blocks,
			    "fs totals differ from the extents reported");
		FUZZ_ASSERT(tot.unwritten_blocks <= tot.blocks &&
			    tot.files_unwritten <= tot.files, "totals");
	}
	for (ino = 1; ino <= 16 && ino <= fs->super->s_inodes_count; ino++) {
		memset(&w, 0, sizeof(w));
		memset(&tot, 0, sizeof(tot));
		w.ino = ino;
		retval = e4_inode_extents(fs, ino, 0, on_extent, &w, &tot);
		if (!retval)
			FUZZ_ASSERT(tot.extents == w.sum.extents &&
				    tot.blocks == w.sum.blocks,
				    "ino %u totals", ino);
		memset(&mr, 0, sizeof(mr));
		(void)e4_mark_range(fs, NULL, ino, 0, 64, E4_MARK_UNWRITTEN |
				    E4_MARK_SKIP_HOLES | E4_MARK_DRY_RUN, &mr);
		memset(&mr, 0, sizeof(mr));
		(void)e4_mark_range(fs, NULL, ino, 1, ~0U, E4_MARK_WRITTEN |
				    E4_MARK_DRY_RUN, &mr);
	}
	fs->flags &= ~EXT2_FLAG_DIRTY;
	ext2fs_close_free(&fs);
out:
	FUZZ_ASSERT(m.nwrites == 0, "read-only path wrote");
	e4_memimg_free(&m);
	return 0;
}
