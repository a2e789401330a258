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

static struct fuzz_tmpl tmpl[2];
static int ready;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fuzz_tmpl *t;
	struct e4_memimg m;
	struct e4_fault f;
	ext2_filsys fs = NULL;
	struct e4_itable_group ig;
	struct e4_itable_summary s;
	struct e4_itable_result res;
	dgrp_t g, zeroed = 0, bad = 0, baddesc = 0, bad_group;
	blk64_t to_zero = 0;
	errcode_t retval;

	if (!ready) {
		fuzz_tmpl_built(&tmpl[0], 0);
		fuzz_tmpl_built(&tmpl[1], 1);
		ready = 1;
	}
	if (size < 1)
		return 0;
	if (size > FUZZ_MAX_INPUT + 1)
		size = FUZZ_MAX_INPUT + 1;
	t = &tmpl[data[0] & 1];
	if (e4_memimg_init(&m, t->buf, t->size))
		return 0;
	e4_memimg_pwrite(&m, 1024, data + 1, size - 1);
	retval = fuzz_open_ro(&m, &f, (data[0] & 2) ?
			      EXT2_FLAG_IGNORE_CSUM_ERRORS : 0, &fs);
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
