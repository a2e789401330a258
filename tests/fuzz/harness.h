/*
 * harness.h --- shared parts of the libFuzzer harnesses in tests/fuzz:
 * template images held in memory, placing an input into one, checksum
 * fix-ups, and property checks.  Built with clang (make fuzz) or with gcc
 * and replay_main.c (the regression replayer run by make check).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_FUZZ_HARNESS_H
#define E4_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "e4.h"

/* Largest input a harness uses; longer inputs are cut. */
#define FUZZ_MAX_INPUT	16384

/* A property failed: print it and abort, so libFuzzer keeps the input. */
#define FUZZ_ASSERT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "PROPERTY FAILED %s:%d: %s: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

/* A template image: read-only bytes shared by every run. */
struct fuzz_tmpl {
	unsigned char	*buf;
	uint64_t	size;		/* bytes */
	unsigned int	blocksize;	/* fs block size, bytes */
	blk64_t		nblocks;	/* fs blocks */
	blk64_t		*jpblk;		/* journal: jblock -> fs block */
	blk64_t		jlen;		/* journal length, jblocks */
};

/*
 * fuzz_tmpl_bundled() - load tests/images/@name.img.gz (gunzip) into @t and
 * map its internal journal.  With @clear_log, journal blocks 1.. are zeroed
 * so a run sees only the log the input supplies.  Exits on error.
 */
void fuzz_tmpl_bundled(struct fuzz_tmpl *t, const char *name, int clear_log);

/*
 * fuzz_tmpl_built() - make a small ext4 in memory with ext2fs_initialize:
 * 1 KiB blocks, 4096 blocks, no resize inode, no flex_bg (so the
 * superblock, group descriptors, bitmaps and the start of the inode table,
 * with the journal inode, lie in the first 16 KiB), extents, 64bit,
 * metadata_csum when @csum, and a 1024-block journal.  Exits on error.
 */
void fuzz_tmpl_built(struct fuzz_tmpl *t, int csum);

/* A file of the fuzz_tmpl_files() template. */
#define FUZZ_NFILES	4
struct fuzz_file {
	ext2_ino_t	ino;
	blk64_t		span;		/* first lblk past its last extent */
};

/*
 * fuzz_tmpl_files() - the fs of fuzz_tmpl_built() (with 4 KiB blocks when
 * @bs4k: 16 MiB) with files made by ext2fs_fallocate() (FORCE_UNINIT /
 * FORCE_INIT pieces, physically in order): @f[0] "big", 180 (4 KiB: 345)
 * extents of 4 blocks with lblk gaps of 4, two of three unwritten (extent
 * tree depth 1, full leaves: splits allocate blocks); @f[1] "mixed", 40 contiguous 4-block pieces of
 * alternating flag (mergeable once marked alike), a hole, 40 unwritten
 * blocks past i_size (180 blocks); @f[2] "one", one unwritten extent of
 * 64 blocks in the inode; @f[3] a directory.  Every data block of the
 * three files (written or not) holds its stamp (fuzz_data_stamp()), so a
 * block made readable without being zeroed shows.  Exits on error.
 */
void fuzz_tmpl_files(struct fuzz_tmpl *t, int csum, int bs4k,
		     struct fuzz_file f[FUZZ_NFILES]);

/* fuzz_data_stamp() - the stamp of data block @pblk: its first 8 bytes,
 * FUZZ_DATA_STAMP | @pblk little-endian (the rest of the block is 0xA5). */
#define FUZZ_DATA_STAMP	0xE4DA7A0000000000ULL
void fuzz_data_stamp(unsigned char *buf, blk64_t pblk);

/*
 * fuzz_place_journal() - write @len bytes of @data into journal blocks 0..
 * of the copy-on-write image @m made over @t.  Bytes past the journal are
 * dropped.
 */
void fuzz_place_journal(const struct fuzz_tmpl *t, struct e4_memimg *m,
			const uint8_t *data, size_t len);

/* Control byte bits (first byte of journal-area inputs). */
#define FUZZ_FIX_JSB	0x1	/* recompute the journal superblock csum */
#define FUZZ_FIX_BLOCKS	0x2	/* recompute descriptor/revoke tails and
				 * commit-block checksums (v2/v3) */
#define FUZZ_FIX_TAGS	0x4	/* recompute v2/v3 block tag checksums */

/*
 * fuzz_fix_journal() - apply the FUZZ_FIX_* fix-ups in @ctrl to the
 * journal blocks [0, @nblk) of @m, so the fuzzer's mutations of a
 * checksummed log are not all rejected at the first crc32c.
 */
void fuzz_fix_journal(const struct fuzz_tmpl *t, struct e4_memimg *m,
		      unsigned int ctrl, blk64_t nblk);

/*
 * fuzz_dump_journal() - when $E4_FUZZ_DUMP_JOURNAL names a file, write the
 * journal blocks 0 .. jlen - 1 of @m (in journal order) to it, so a test
 * can rebuild the image a run saw from the template (f_fuzz_regress:
 * e4replay against e2fsck on it).  Aborts on an I/O error.
 */
void fuzz_dump_journal(const struct fuzz_tmpl *t, struct e4_memimg *m);

/*
 * fuzz_open_ro() - open the fs in @m read-only through a fault io_manager
 * that abort()s on any write (E4_FAULT_ABORT_ON_WRITE), so a read-only
 * path that writes is a crash.  @f must outlive the fs.  Returns the
 * ext2fs_open2() error.
 */
errcode_t fuzz_open_ro(struct e4_memimg *m, struct e4_fault *f, int flags,
		       ext2_filsys *fs);

/*
 * fuzz_sb_tmpl() - the built template of the whole-image targets
 * (fuzz_tmpl_built()), with metadata_csum when @csum; both are made on
 * the first call.
 */
const struct fuzz_tmpl *fuzz_sb_tmpl(int csum);

/*
 * fuzz_sb_input() - set up a run of a whole-image target (fuzz_image,
 * fuzz_itable, fuzz_unwritten).  Input: u8 ctrl (bit 0: the
 * metadata_csum template, bit 1: EXT2_FLAG_IGNORE_CSUM_ERRORS), then
 * bytes written over the template from byte 1024 (the superblock) on, at
 * most FUZZ_MAX_INPUT.  Makes @m, a copy-on-write image of the template
 * with the bytes placed (written to the file $E4_FUZZ_DUMP_IMG when set,
 * for debugging), and opens it with fuzz_open_ro() into *@fs, setting
 * *@retval to the open's error.  Returns 0 (the caller frees @m), or -1
 * when there is nothing to run (@m not made).
 */
int fuzz_sb_input(const uint8_t *data, size_t size, struct e4_memimg *m,
		  struct e4_fault *f, ext2_filsys *fs, errcode_t *retval);

/*
 * fuzz_jarea_input() - set up a run of a journal-area target (fuzz_jarea,
 * fuzz_order).  Input: u8 ctrl (FUZZ_FIX_* bits), then bytes placed into
 * journal blocks 0, 1, ... of tests/images/blocksize-1k with its log
 * zeroed (loaded on the first call) and fixed up as ctrl asks (and
 * dumped by fuzz_dump_journal()).  Makes @m and opens it with fuzz_open_ro(@flags) into *@fs, which must
 * succeed (property).  Returns 0 (the caller closes *@fs and frees @m),
 * or -1 when there is nothing to run (@m not made).
 */
int fuzz_jarea_input(const uint8_t *data, size_t size, int flags,
		     struct e4_memimg *m, struct e4_fault *f,
		     ext2_filsys *fs);

/* Read every journal block through e4_journal_read() and _bmap() and
 * check both agree with the mapping. */
void fuzz_read_journal(e4_journal_t j);

/*
 * fuzz_scan_ro() - e4_journal_scan() and e4_journal_replay_plan() on @j
 * (no io but reads), checking that the scan walks at most 2 * s_maxlen
 * log blocks and that no tag past the fs end or inside the journal is
 * planned for replay.
 */
void fuzz_scan_ro(e4_journal_t j);

#endif
