/*
 * fuzz_image.c --- libFuzzer target: whole-image metadata.  A small ext4
 * built in memory by fuzz_tmpl_built() keeps its superblock, group
 * descriptors, bitmaps and the inode table holding the journal inode in
 * its first 16 KiB; the input replaces those bytes.
 *
 * Input: u8 ctrl, then bytes placed at byte offset 1024 (the superblock)
 * of the image.  ctrl bit 0 picks the metadata_csum template, bit 1 opens
 * with EXT2_FLAG_IGNORE_CSUM_ERRORS.  Then every reader on main runs
 * read-only through an io_manager that aborts on any write.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int seeded;

/* With E4_FUZZ_SEED_DIR set (tests/fuzz/mkseeds), write one seed per ctrl
 * value: the template's own first 16 KiB from the superblock on. */
static void dump_seeds(void)
{
	const char *dir = getenv("E4_FUZZ_SEED_DIR");
	char path[4096];
	unsigned char c;
	FILE *f;

	if (!dir)
		return;
	for (c = 0; c < 4; c++) {
		snprintf(path, sizeof(path), "%s/seed-ctrl%u", dir, c);
		f = fopen(path, "wb");
		if (!f)
			continue;
		fputc(c, f);
		fwrite(fuzz_sb_tmpl(c & 1)->buf + 1024, 1, FUZZ_MAX_INPUT, f);
		fclose(f);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_memimg m;
	struct e4_fault f;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	errcode_t retval;

	if (!seeded) {
		dump_seeds();
		seeded = 1;
	}
	if (fuzz_sb_input(data, size, &m, &f, &fs, &retval))
		return 0;
	if (!retval) {
		retval = e4_journal_open(fs, NULL, 0, &j);
		if (j && j->real_len <= 4096)
			fuzz_read_journal(j);
		if (j && !retval)
			fuzz_scan_ro(j);
		e4_journal_close(j);
		ext2fs_close_free(&fs);
	}
	FUZZ_ASSERT(m.nwrites == 0, "read-only path wrote");
	e4_memimg_free(&m);
	return 0;
}
