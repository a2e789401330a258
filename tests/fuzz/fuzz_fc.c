/*
 * fuzz_fc.c --- libFuzzer target: the fast-commit area of
 * tests/images/fast-commit replaced by the input, then scanned (fc.c) and
 * replayed (fc_replay.c, fc_dir.c) on a copy-on-write layer over state
 * S_n (fc_state.c, cow_io.c), as e4replay -n and the replayed views do.
 *
 * Input: u8 ctrl, then the bytes of fast-commit area blocks from jblock
 * 1025 (the area's first) on; the rest of the area keeps its zeros.  ctrl
 * bit 0x1: every HEAD and TAIL gets tid 10 (the expected one) and every
 * TAIL its right crc, so the replay is reached; bit 0x2: also the first
 * tag of the area becomes a HEAD.
 *
 * Properties:
 * - the scan reads at most the area's blocks, plus the one past it;
 * - neither the scan nor the replay writes below the copy-on-write layer
 *   (the in-memory image takes no write);
 * - a scan that does not fail replays its tags in order, setting every
 *   replayed tag's fate (none left "not replayed"), and after it the
 *   state still opens with libext2fs.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>
#include <et/com_err.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fuzz_tmpl tmpl;
static blk64_t fc_first, fc_end;	/* jblocks */
static int ready;

static void init(void)
{
	fuzz_tmpl_bundled(&tmpl, "fast-commit", 0);
	/* this image: s_maxlen 1040, 16 fast-commit blocks */
	fc_first = 1025;
	fc_end = 1040;
	if (tmpl.jlen < fc_end)
		abort();
	ready = 1;
}

static void no_write(void *arg, uint64_t off, uint64_t len)
{
	(void)arg;
	FUZZ_ASSERT(0, "write below the copy-on-write layer at byte %llu "
		    "(%llu bytes)", (unsigned long long)off,
		    (unsigned long long)len);
}

static void put16(unsigned char *p, unsigned int v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

/* ctrl 0x1: the tids and crcs a valid area has, over the input's TLVs. */
static void fix_area(unsigned char *a, size_t nblk, unsigned int bs, int head)
{
	uint32_t crc = 0;
	size_t b;
	unsigned int off, tag, len;

	if (head && nblk)
		put16(a, E4_FC_TAG_HEAD);
	for (b = 0; b < nblk; b++) {
		unsigned char *p = a + b * bs;

		for (off = 0; off + 4 <= bs; off += 4 + len) {
			tag = e4_le16(p + off);
			len = e4_le16(p + off + 2);
			if (len > bs - off - 4)
				break;
			if ((tag == E4_FC_TAG_HEAD || tag == E4_FC_TAG_TAIL)
			    && len >= 8)
				put32(p + off + 4 + (tag == E4_FC_TAG_HEAD ?
						     4 : 0), 10);
			if (tag == E4_FC_TAG_HEAD && len >= 8)
				put32(p + off + 4, 0);
			if (tag == E4_FC_TAG_TAIL && len >= 8) {
				crc = e4_crc32c(crc, p + off, 8);
				put32(p + off + 8, crc);
				crc = 0;
				continue;
			}
			crc = e4_crc32c(crc, p + off, 4 + len);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char area[FUZZ_MAX_INPUT + 4096];
	struct e4_memimg m;
	ext2_filsys fs = NULL, fs2 = NULL;
	e4_journal_t j = NULL;
	struct e4_jscan *scan = NULL;
	struct e4_fc_state *st = NULL;
	io_channel lower = NULL;
	unsigned int bs;
	size_t n, nblk, i;
	uint64_t reads;
	errcode_t retval;

	if (!ready)
		init();
	if (size < 1)
		return 0;
	if (size > FUZZ_MAX_INPUT + 1)
		size = FUZZ_MAX_INPUT + 1;
	bs = tmpl.blocksize;
	n = size - 1;
	nblk = (n + bs - 1) / bs;
	if (nblk > fc_end - fc_first)
		nblk = fc_end - fc_first;
	memset(area, 0, nblk * bs);
	memcpy(area, data + 1, n < nblk * bs ? n : nblk * bs);
	if (data[0] & 0x1)
		fix_area(area, nblk, bs, data[0] & 0x2);
	if (e4_memimg_init(&m, tmpl.buf, tmpl.size))
		return 0;
	for (i = 0; i < fc_end - fc_first; i++) {
		static const unsigned char zero[4096];

		e4_memimg_pwrite(&m, tmpl.jpblk[fc_first + i] * bs,
				 i < nblk ? area + i * bs : zero, bs);
	}
	m.on_write = no_write;
	retval = ext2fs_open2(m.name, NULL, EXT2_FLAG_64BITS |
			      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			      e4_mem_io_manager, &fs);
	if (retval)
		goto out;
	retval = e4_journal_open(fs, NULL, 0, &j);
	if (retval)
		goto out;
	reads = m.nreads;
	retval = e4_journal_scan(j, 0, 0, &scan);
	if (retval || !scan->fc)
		goto out;
	FUZZ_ASSERT(scan->fc->nread <= fc_end - fc_first,
		    "fast-commit scan read %llu blocks",
		    (unsigned long long)scan->fc->nread);
	FUZZ_ASSERT(m.nreads - reads <= 4ULL * j->jsb.maxlen + 64,
		    "scan made %llu reads",
		    (unsigned long long)(m.nreads - reads));
	FUZZ_ASSERT(scan->fc->nreplay <= scan->fc->ntags, "nreplay");
	if (scan->fail || scan->fc->fail || !scan->fc->nreplay)
		goto out;
	retval = e4_mem_io_manager->open(m.name, 0, &lower);
	if (retval)
		goto out;
	io_channel_set_blksize(lower, (int)bs);
	/* S_n would be the overlay; the image itself serves here */
	retval = e4_fc_state_open(lower, bs, scan->fc, &st);
	if (getenv("E4_FUZZ_VERBOSE"))
		fprintf(stderr, "fc: %u fast commits, %zu tags: %s\n",
			scan->fc->nfc, scan->fc->nreplay,
			retval ? error_message(retval) : "replayed");
	if (retval)
		goto out;
	for (i = 0; i < scan->fc->nreplay; i++)
		FUZZ_ASSERT(scan->fc->tags[i].fate != E4_FC_NOT_REPLAYED,
			    "tag %zu left unreplayed", i);
	retval = ext2fs_open2(e4_cow_name(st->cow), NULL, EXT2_FLAG_64BITS |
			      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			      e4_cow_io_manager, &fs2);
	FUZZ_ASSERT(!retval, "the replayed state does not open: %s",
		    error_message(retval));
out:
	if (fs2)
		ext2fs_close_free(&fs2);
	e4_fc_state_close(st);
	if (lower)
		io_channel_close(lower);
	e4_jscan_free(scan);
	e4_journal_close(j);
	if (fs)
		ext2fs_close_free(&fs);
	e4_memimg_free(&m);
	return 0;
}
