/*
 * fuzz_itable.c --- libFuzzer target: lazy inode table state
 * (lib/e4/itable.c) on fuzzed group descriptors.
 *
 * Input: as fuzz_image (u8 ctrl: bit 0 metadata_csum template, bit 1
 * EXT2_FLAG_IGNORE_CSUM_ERRORS; then bytes from the superblock on of a
 * 4 MiB ext4 built in memory, covering the group descriptors).  Runs
 * e4_itable_group() for every group, e4_itable_summary() and the dry runs
 * of e4_itable_finish() and e4_itable_unzero(), read-only through an
 * io_manager that aborts on any write.
 *
 * Properties: no write; the summary agrees with the groups (counts of
 * ZEROED, INODE_UNINIT, bad checksums, blocks to zero); a valid group's
 * range to zero lies inside its inode table and the fs; a dry run writes
 * nothing and never succeeds when a descriptor is bad.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_memimg m;
	struct e4_fault f;
	ext2_filsys fs = NULL;
	struct e4_itable_group ig;
	struct e4_itable_summary s;
	struct e4_itable_result res;
	dgrp_t g, zeroed = 0, bad = 0, baddesc = 0, bad_group;
	blk64_t to_zero = 0;
	errcode_t retval;

	if (fuzz_sb_input(data, size, &m, &f, &fs, &retval))
		return 0;
	if (retval)
		goto out;
	memset(&s, 0, sizeof(s));
	FUZZ_ASSERT(!e4_itable_summary(fs, &s), "summary");
	FUZZ_ASSERT(s.groups == fs->group_desc_count, "groups");
	for (g = 0; g < fs->group_desc_count; g++) {
		FUZZ_ASSERT(!e4_itable_group(fs, g, &ig), "group %u", g);
		zeroed += !!(ig.flags & EXT2_BG_INODE_ZEROED);
		bad += !ig.csum_ok;
		baddesc += !ig.valid;
		to_zero += ig.to_zero;
		if (ig.valid && ig.to_zero) {
			FUZZ_ASSERT(ig.zero_start >= ig.itable &&
				    ig.zero_start + ig.to_zero ==
				    ig.itable + ig.itable_blocks,
				    "group %u: zero range", g);
			FUZZ_ASSERT(ig.itable + ig.itable_blocks <=
				    ext2fs_blocks_count(fs->super),
				    "group %u: table past the fs end", g);
		}
	}
	FUZZ_ASSERT(e4_itable_group(fs, g, &ig) != 0, "group past the end");
	FUZZ_ASSERT(s.zeroed == zeroed, "zeroed %u != %u", s.zeroed, zeroed);
	FUZZ_ASSERT(s.bad_csum == bad, "bad_csum %u != %u", s.bad_csum, bad);
	FUZZ_ASSERT(s.bad_desc == baddesc, "bad_desc");
	FUZZ_ASSERT(!s.applicable || s.to_zero_blocks == to_zero,
		    "to_zero %llu != %llu",
		    (unsigned long long)s.to_zero_blocks,
		    (unsigned long long)to_zero);

	memset(&res, 0, sizeof(res));
	retval = e4_itable_finish(fs, E4_ITABLE_DRY_RUN | E4_ITABLE_FORCE,
				  &bad_group, &res);
	if (!retval)
		FUZZ_ASSERT(!s.bad_csum && !s.bad_desc,
			    "dry-run finish accepted a bad descriptor");
	memset(&res, 0, sizeof(res));
	(void)e4_itable_unzero(fs, NULL, E4_ITABLE_DRY_RUN | E4_ITABLE_FORCE |
			       E4_ITABLE_GARBAGE, &bad_group, &res);
	fs->flags &= ~EXT2_FLAG_DIRTY;
	ext2fs_close_free(&fs);
out:
	FUZZ_ASSERT(m.nwrites == 0, "read-only path wrote");
	e4_memimg_free(&m);
	return 0;
}
