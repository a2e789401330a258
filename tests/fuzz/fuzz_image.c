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

static struct fuzz_tmpl tmpl[2];
static int ready;

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
		fwrite(tmpl[c & 1].buf + 1024, 1, FUZZ_MAX_INPUT, f);
		fclose(f);
	}
}

static void dump_img(struct e4_memimg *m, const char *path)
{
	unsigned char *buf = malloc(m->size);
	FILE *f = fopen(path, "wb");

	if (buf && f && !e4_memimg_pread(m, 0, buf, m->size))
		fwrite(buf, 1, m->size, f);
	if (f)
		fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fuzz_tmpl *t;
	struct e4_memimg m;
	struct e4_fault f;
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	unsigned int ctrl;
	errcode_t retval;

	if (!ready) {
		fuzz_tmpl_built(&tmpl[0], 0);
		fuzz_tmpl_built(&tmpl[1], 1);
		ready = 1;
		dump_seeds();
	}
	if (size < 1)
		return 0;
	if (size > FUZZ_MAX_INPUT + 1)
		size = FUZZ_MAX_INPUT + 1;
	ctrl = data[0];
	t = &tmpl[ctrl & 1];
	if (e4_memimg_init(&m, t->buf, t->size))
		return 0;
	e4_memimg_pwrite(&m, 1024, data + 1, size - 1);
	if (getenv("E4_FUZZ_DUMP_IMG"))	/* debugging: the image as run */
		dump_img(&m, getenv("E4_FUZZ_DUMP_IMG"));

	retval = fuzz_open_ro(&m, &f, (ctrl & 2) ?
			      EXT2_FLAG_IGNORE_CSUM_ERRORS : 0, &fs);
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
