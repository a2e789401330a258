/*
 * fuzz_jreplay.c --- libFuzzer target: scan and replay a fuzzed log into
 * a copy-on-write in-memory image (lib/e4/scan.c, revoke.c, replay.c).
 *
 * Input: as fuzz_jarea (u8 ctrl with FUZZ_FIX_* bits, then journal blocks
 * 0, 1, ... of tests/images/blocksize-1k with its log zeroed).  ctrl bit
 * 0x10 adds fault injection: the replay is redone with its K-th write
 * failing (every K up to 24), then rerun, and must end in the image of the
 * undisturbed replay.
 *
 * Properties:
 * - the scan terminates, walking at most 2 * s_maxlen log blocks with at
 *   most 4 * s_maxlen + 64 read calls;
 * - replay writes only fs blocks named by tags of committed transactions
 *   (never inside the journal or past the fs end), the fs superblock and
 *   the journal superblock; a failed scan (scan->fail) writes nothing;
 * - tags naming a block past the fs end or inside the journal are never
 *   planned for replay;
 * - a second replay (when the replayed fs still opens: a fuzzed log may
 *   overwrite a group descriptor block) writes only the two superblocks
 *   and changes nothing but s_wtime and the journal's s_sequence (and
 *   their checksums);
 * - a replay interrupted by a write error, then rerun, ends in the same
 *   image as an undisturbed one.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <string.h>
#include <et/com_err.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fuzz_tmpl tmpl;
static unsigned char *in_journal;	/* per fs block: 1 = journal */
static int ready;

struct wcheck {
	unsigned char	*allowed;	/* per fs block */
	int		sb_only;	/* only the two superblocks */
	int		nothing;	/* no write at all */
	uint64_t	nwrites;
};

static int is_sb_block(blk64_t b)
{
	/* 1 KiB blocks: the fs superblock is block 1 */
	return b == (tmpl.blocksize == 1024 ? 1 : 0) || b == tmpl.jpblk[0];
}

static void on_write(void *arg, uint64_t off, uint64_t len)
{
	struct wcheck *w = arg;
	blk64_t b, last;

	w->nwrites++;
	FUZZ_ASSERT(!w->nothing, "write at byte %llu after a failed scan",
		    (unsigned long long)off);
	if (!len)
		return;
	last = (off + len - 1) / tmpl.blocksize;
	for (b = off / tmpl.blocksize; b <= last; b++) {
		FUZZ_ASSERT(b < tmpl.nblocks, "write past the fs end: %llu",
			    (unsigned long long)b);
		if (is_sb_block(b))
			continue;
		FUZZ_ASSERT(!w->sb_only, "second replay wrote block %llu",
			    (unsigned long long)b);
		FUZZ_ASSERT(!in_journal[b], "write inside the journal: %llu",
			    (unsigned long long)b);
		FUZZ_ASSERT(w->allowed && w->allowed[b],
			    "write to block %llu named by no committed tag",
			    (unsigned long long)b);
	}
}

static void init(void)
{
	blk64_t i;

	fuzz_tmpl_bundled(&tmpl, "blocksize-1k", 1);
	in_journal = calloc(tmpl.nblocks, 1);
	if (!in_journal)
		abort();
	for (i = 0; i < tmpl.jlen; i++)
		in_journal[tmpl.jpblk[i]] = 1;
	ready = 1;
}

/* Make the image: template, input in the journal, checksum fix-ups. */
static int make_img(struct e4_memimg *m, const uint8_t *data, size_t size)
{
	if (e4_memimg_init(m, tmpl.buf, tmpl.size))
		return -1;
	fuzz_place_journal(&tmpl, m, data + 1, size - 1);
	fuzz_fix_journal(&tmpl, m, data[0],
			 (size - 1 + tmpl.blocksize - 1) / tmpl.blocksize);
	return 0;
}

/*
 * Open, scan and replay the image behind channel name @name.  Returns the
 * first error; with @w checks the properties as it goes.  *@failed says
 * whether the scan itself refused.
 */
static errcode_t replay(struct e4_memimg *m, io_manager mgr, const char *name,
			struct wcheck *w, int *failed, int *opened)
{
	ext2_filsys fs = NULL;
	e4_journal_t j = NULL;
	struct e4_jscan *scan = NULL;
	struct e4_replay_result res;
	errcode_t retval, r2;
	uint64_t reads;
	size_t t, k;

	*failed = 0;
	*opened = 0;
	retval = ext2fs_open2(name, NULL, EXT2_FLAG_64BITS | EXT2_FLAG_RW |
			      EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0, mgr, &fs);
	if (retval)
		return retval;
	retval = e4_journal_open(fs, NULL, E4_JOURNAL_RW, &j);
	if (retval)
		goto out;
	*opened = 1;
	reads = m->nreads;
	retval = e4_journal_scan(j, 0, 0, &scan);
	if (retval)
		goto out;
	if (w) {
		FUZZ_ASSERT(scan->log_blocks <= 2ULL * j->jsb.maxlen,
			    "scan walked %llu blocks, s_maxlen %u",
			    (unsigned long long)scan->log_blocks,
			    j->jsb.maxlen);
		FUZZ_ASSERT(m->nreads - reads <= 4ULL * j->jsb.maxlen + 64,
			    "scan made %llu reads, s_maxlen %u",
			    (unsigned long long)(m->nreads - reads),
			    j->jsb.maxlen);
		FUZZ_ASSERT(scan->ncommitted <= scan->ntrans, "ncommitted");
		if (!w->sb_only) {
			memset(w->allowed, 0, tmpl.nblocks);
			for (t = 0; t < scan->ncommitted; t++)
				for (k = 0; k < scan->trans[t].ntags; k++) {
					blk64_t b = scan->trans[t].tags[k].fsblk;

					if (b < tmpl.nblocks)
						w->allowed[b] = 1;
				}
		}
		w->nothing = scan->fail != 0;
		*failed = scan->fail != 0;
	}
	e4_replay_result_init(&res, sizeof(res));
	retval = e4_journal_replay(j, scan, &res);
	if (w && !retval) {
		for (t = 0; t < scan->ntrans; t++)
			for (k = 0; k < scan->trans[t].ntags; k++) {
				const struct e4_jtag *g =
					&scan->trans[t].tags[k];

				if (g->fsblk >= tmpl.nblocks ||
				    in_journal[g->fsblk])
					FUZZ_ASSERT(g->fate !=
						    E4_TAG_REPLAY,
						    "bad block %llu planned",
						    (unsigned long long)
						    g->fsblk);
			}
	}
	if (w)
		w->nothing = 0;
out:
	e4_jscan_free(scan);
	r2 = e4_journal_close(j);
	if (!retval)
		retval = r2;
	/* replay left fs->group_desc stale: drop it without a flush */
	if (fs)
		fs->flags &= ~EXT2_FLAG_DIRTY;
	r2 = ext2fs_close_free(&fs);
	if (!retval)
		retval = r2;
	return retval;
}

/* Offsets in the fs superblock that a replay rewrites every time. */
static void mask_sb(unsigned char *sb)
{
	memset(sb + 0x30, 0, 4);	/* s_wtime */
	memset(sb + 0x274, 0, 1);	/* s_wtime_hi */
	memset(sb + 0x3FC, 0, 4);	/* s_checksum */
}

static void mask_jsb(unsigned char *jsb)
{
	memset(jsb + JBD2_JSB_SEQUENCE, 0, 4);
	memset(jsb + JBD2_JSB_CHECKSUM, 0, 4);
}

/* Compare the images @a and @b on every page either has written. */
static void same_image(struct e4_memimg *a, struct e4_memimg *b,
		       const char *what)
{
	static unsigned char pa[4096], pb[4096];
	struct e4_memimg *side[2] = { a, b };
	uint64_t i, pg, off;
	unsigned int bs = tmpl.blocksize, o;
	int s;

	for (s = 0; s < 2; s++)
		for (i = 0; i < side[s]->ndirty; i++) {
			pg = side[s]->dirty[i];
			off = pg * 4096;
			if (e4_memimg_pread(a, off, pa, 4096) ||
			    e4_memimg_pread(b, off, pb, 4096))
				continue;
			for (o = 0; o < 4096; o += bs) {
				blk64_t blk = (off + o) / bs;

				if (blk == (bs == 1024 ? 1 : 0)) {
					mask_sb(pa + o + (bs == 1024 ? 0 :
							  1024));
					mask_sb(pb + o + (bs == 1024 ? 0 :
							  1024));
				}
				if (blk == tmpl.jpblk[0]) {
					mask_jsb(pa + o);
					mask_jsb(pb + o);
				}
			}
			FUZZ_ASSERT(!memcmp(pa, pb, 4096),
				    "%s: images differ in page %llu", what,
				    (unsigned long long)pg);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_memimg m, m2;
	struct wcheck w;
	struct e4_fault f;
	unsigned char sb1[1024], sb2[1024], j1[1024], j2[1024];
	errcode_t retval;
	uint64_t k, total;
	int failed, opened;

	if (!ready)
		init();
	if (size < 1)
		return 0;
	if (size > FUZZ_MAX_INPUT + 1)
		size = FUZZ_MAX_INPUT + 1;
	if (make_img(&m, data, size))
		return 0;
	fuzz_dump_journal(&tmpl, &m);
	memset(&w, 0, sizeof(w));
	w.allowed = calloc(tmpl.nblocks, 1);
	if (!w.allowed)
		abort();
	m.on_write = on_write;
	m.on_write_arg = &w;
	retval = replay(&m, e4_mem_io_manager, m.name, &w, &failed, &opened);
	total = w.nwrites;
	if (getenv("E4_FUZZ_VERBOSE"))
		fprintf(stderr, "replay: %s, scan %s, %llu writes\n",
			retval ? error_message(retval) : "ok",
			failed ? "refused" : "ok",
			(unsigned long long)total);
	if (retval || failed)
		goto out;

	/* Replay twice: only the superblocks, and only the tid moves on. */
	e4_memimg_pread(&m, 1024, sb1, 1024);
	e4_memimg_pread(&m, tmpl.jpblk[0] * tmpl.blocksize, j1, 1024);
	w.sb_only = 1;
	retval = replay(&m, e4_mem_io_manager, m.name, &w, &failed, &opened);
	/* The log may have written blocks libext2fs then refuses (a group
	 * descriptor block, the journal inode): nothing more to compare. */
	if (!opened)
		goto out;
	FUZZ_ASSERT(!retval, "second replay failed: %s",
		    error_message(retval));
	e4_memimg_pread(&m, 1024, sb2, 1024);
	e4_memimg_pread(&m, tmpl.jpblk[0] * tmpl.blocksize, j2, 1024);
	mask_sb(sb1);
	mask_sb(sb2);
	mask_jsb(j1);
	mask_jsb(j2);
	FUZZ_ASSERT(!memcmp(sb1, sb2, 1024), "second replay changed the sb");
	FUZZ_ASSERT(!memcmp(j1, j2, 1024), "second replay changed the jsb");
	w.sb_only = 0;

	/* Interrupted replays, rerun, end where the undisturbed one did. */
	if (!(data[0] & 0x10))
		goto out;
	for (k = 1; k <= total && k <= 24; k++) {
		if (make_img(&m2, data, size))
			break;
		e4_fault_init(&f, e4_mem_io_manager, m2.name);
		f.fail_write_at = k;
		retval = replay(&m2, e4_fault_io_manager, f.name, NULL,
				&failed, &opened);
		FUZZ_ASSERT(retval, "replay with write %llu of %llu failing "
			    "reported no error", (unsigned long long)k,
			    (unsigned long long)total);
		retval = replay(&m2, e4_mem_io_manager, m2.name, NULL,
				&failed, &opened);
		FUZZ_ASSERT(!retval, "rerun after fault %llu failed: %s",
			    (unsigned long long)k, error_message(retval));
		same_image(&m, &m2, "rerun after a write fault");
		e4_memimg_free(&m2);
	}
out:
	free(w.allowed);
	e4_memimg_free(&m);
	return 0;
}
