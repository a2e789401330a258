/*
 * fuzz_jarea.c --- libFuzzer target: the journal area of a real kernel
 * crash image (tests/images/blocksize-1k, 1 KiB blocks, csum v3).
 *
 * Input: u8 ctrl (FUZZ_FIX_* checksum fix-ups), then bytes placed into
 * journal blocks 0, 1, 2, ... of a copy-on-write image whose log blocks
 * were zeroed, so the input is the journal superblock and the start of
 * the log.  Runs every reader of the journal that is on main (open, read,
 * scan, replay plan), read-only
 * through an io_manager that aborts on any write.
 *
 * Properties: no write; e4_journal_read() and _bmap() agree and refuse
 * blocks past the journal.
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
	e4_journal_t j = NULL;
	errcode_t retval;

	if (fuzz_jarea_input(data, size, 0, &m, &f, &fs))
		return 0;
	retval = e4_journal_open(fs, NULL, 0, &j);
	if (j)
		fuzz_read_journal(j);
	if (j && !retval)
		fuzz_scan_ro(j);
	e4_journal_close(j);
	ext2fs_close_free(&fs);
	FUZZ_ASSERT(m.nwrites == 0, "read-only path wrote");
	e4_memimg_free(&m);
	return 0;
}
