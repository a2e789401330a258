/*
 * fuzz_txn.c --- libFuzzer target: sequences of e4_mark_range() through the
 * fs's own journal (lib/e4/txn.c, unwritten.c, replay.c) on an in-memory
 * ext4, undisturbed and interrupted by a write or read error.
 *
 * Input: u8 variant (bits 0-1 journal checksum: none, v1 COMPAT_CHECKSUM,
 * CSUM_V2, CSUM_V3; bit 2 journal 64bit; bit 3 metadata_csum template;
 * bit 4 the fault fails reads instead of writes; bit 5 the 4 KiB block
 * template), u8 K (0: no fault), then up to FT_MAXOPS operations of 5 bytes: u8 op
 * (bits 0-1 file of fuzz_tmpl_files(): big, mixed, one, a directory;
 * bit 2 unwritten, else written; bit 3 E4_MARK_KEEP_CONTENTS; bit 4
 * E4_MARK_SKIP_HOLES; bit 5 raw range), le16 lblk, le16 len (without the
 * raw bit: lblk modulo span + 8, len 1 + itself modulo span + 8).
 *
 * Properties (every state is read back from the image by a fresh
 * read-only open whose io_manager aborts on any write):
 * - every state is consistent: each data and extent tree block is marked
 *   in the block bitmap and used once, the group descriptor and superblock
 *   free counts equal the bitmap's, i_blocks counts data + tree blocks,
 *   e4_inode_extents() walks without error and agrees with the tree;
 *   every data block holds zeros or its template stamp (harness.c
 *   fuzz_data_stamp(): stale data);
 *   the journal superblock has s_start 0 and verifies, needs_recovery is
 *   clear;
 * - a successful op keeps every lblk's pblk and mapped state, gives the
 *   range the requested flag and leaves every other lblk's flag alone;
 *   its counts (blocks_changed, unchanged_blocks, hole_blocks) match the
 *   maps; the bitmap changes exactly by the extent tree blocks allocated
 *   or freed; blocks made written from unwritten read zeros (their stale
 *   stamp unless E4_MARK_KEEP_CONTENTS), every other block keeps its data;
 *   an op changing nothing writes nothing;
 * - a failed op fails validation only (past EOF, hole, range, not a
 *   regular file) and writes nothing;
 * - with K: the same sequence on a copy whose K-th write (or read; K
 *   taken modulo the writes/reads the undisturbed run made after opening,
 *   close included) and every later one fail: ops before it return what
 *   they did undisturbed, the op it hits reports an error (never 0), the
 *   fs is closed as e4tune does, and after recovery (e4_journal_scan +
 *   e4_journal_replay when needs_recovery or s_start is set) the state
 *   (maps, bitmap, free counts, tree blocks, data of written blocks: no
 *   stale block exposed) equals the state before that
 *   op or the undisturbed state after it -- the old one when the image
 *   was left clean, the new one when the journal superblock points at a
 *   log, which then holds exactly one committed transaction; s_start is
 *   never set without needs_recovery; rerunning the remaining ops then
 *   ends in the undisturbed final state.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stddef.h>
#include <string.h>
#include <et/com_err.h>

#include "harness.h"
#include "jbd2_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FT_MAXOPS	8
#define FT_OPSIZE	5
#define FT_NREG		(FUZZ_NFILES - 1)	/* regular files */
#define FT_MAXL		2816		/* lblks kept per file (>= span) */
#define FT_NBLOCKS	4096		/* fs blocks of the template */
#define FT_MAXTREE	32		/* extent tree blocks per file */
#define FT_NOW		0x6500000	/* fs->now: reproducible runs */

#define OP_UNWRITTEN	0x04
#define OP_KEEP		0x08
#define OP_SKIP_HOLES	0x10
#define OP_RAW		0x20

/* What a state of the fs is compared by (zeroed before filling). */
struct fstate {
	uint32_t	pblk[FT_NREG][FT_MAXL];	/* 0: unmapped */
	uint8_t		st[FT_NREG][FT_MAXL];	/* 0 hole, 1 written,
						 * 2 unwritten */
	uint32_t	tree[FT_NREG][FT_MAXTREE];	/* walk order */
	uint32_t	ntree[FT_NREG];
	uint8_t		bmap[FT_NBLOCKS];	/* block bitmap, 1 = used */
	uint64_t	free_blocks;
	/* last: data of each mapped lblk, 0 zeros, 1 its template stamp
	 * (compared for written lblks only, see same_state()) */
	uint8_t		data[FT_NREG][FT_MAXL];
};

struct op {
	unsigned int	code;
	ext2_ino_t	ino;
	int		file;
	blk64_t		lblk, len;
	int		flags;
};

/* Templates by variant bits 3 (metadata_csum) and 5 (4 KiB blocks). */
static struct fuzz_tmpl tmpl[4];
static struct fuzz_file files[4][FUZZ_NFILES];
static unsigned char jsb_var[4][8][JBD2_JSB_SIZE];
static int ready;

/* Per run: states before op 0 .. after op n; scratch. */
static struct fstate snap[FT_MAXOPS + 1], cur;
static uint8_t owner[FT_NBLOCKS];

static void init(void)
{
	static const char *const csum[4] = {
		"", ",journal_checksum", ",journal_checksum_v2",
		",journal_checksum_v3"
	};
	char spec[256];
	unsigned int c, v;
	errcode_t retval;

	for (c = 0; c < 4; c++) {
		fuzz_tmpl_files(&tmpl[c], c & 1, c >> 1, files[c]);
		if (tmpl[c].nblocks != FT_NBLOCKS ||
		    tmpl[c].blocksize != (c >> 1 ? 4096U : 1024U))
			abort();
		for (v = 0; v < FUZZ_NFILES - 1; v++)
			if (files[c][v].span + 8 > FT_MAXL)
				abort();
		for (v = 0; v < 8; v++) {
			memcpy(jsb_var[c][v], tmpl[c].buf +
			       tmpl[c].jpblk[0] * tmpl[c].blocksize, JBD2_JSB_SIZE);
			snprintf(spec, sizeof(spec), "^journal_checksum,"
				 "^journal_checksum_v2,^journal_checksum_v3,"
				 "^journal_64bit%s%s", csum[v & 3],
				 (v & 4) ? ",journal_64bit" : "");
			retval = e4_jsb_edit_features(jsb_var[c][v], spec,
						      (uint32_t)-1,
						      E4_FEAT_FS_64BIT,
						      NULL, 0);
			if (retval) {
				fprintf(stderr, "jsb variant %u: %s\n", v,
					error_message(retval));
				abort();
			}
		}
	}
	ready = 1;
}

/* ---- reading a state back ---------------------------------------------- */

struct walk {
	const struct fstate *s;
	int		k;
	blk64_t		next;
	int		started;
};

static int on_extent(ext2_filsys fs, const struct e4_extent_rec *r,
		     void *priv)
{
	struct walk *w = priv;
	blk64_t i;

	(void)fs;
	FUZZ_ASSERT(!r->error && r->len >= 1, "ino %u: bad record", r->ino);
	FUZZ_ASSERT(!w->started || r->lblk >= w->next,
		    "ino %u: extents out of order at %llu", r->ino,
		    (unsigned long long)r->lblk);
	w->started = 1;
	w->next = r->lblk + r->len;
	for (i = 0; i < r->len; i++)
		FUZZ_ASSERT(r->lblk + i < FT_MAXL &&
			    w->s->pblk[w->k][r->lblk + i] == r->pblk + i &&
			    w->s->st[w->k][r->lblk + i] ==
			    (r->unwritten ? 2 : 1),
			    "e4_inode_extents and the tree disagree at "
			    "lblk %llu", (unsigned long long)(r->lblk + i));
	return 0;
}

static void own(blk64_t b, int tag, const struct fstate *s)
{
	FUZZ_ASSERT(b < FT_NBLOCKS, "block %llu past the fs end",
		    (unsigned long long)b);
	FUZZ_ASSERT(!owner[b], "block %llu used twice (%d, %d)",
		    (unsigned long long)b, owner[b], tag);
	FUZZ_ASSERT(s->bmap[b], "block %llu in use but free in the bitmap",
		    (unsigned long long)b);
	owner[b] = (uint8_t)tag;
}

/* 0: block @pblk of @m is zeros, 1: it holds its template stamp. */
static uint8_t data_kind(struct e4_memimg *m, unsigned int bs, blk64_t pblk)
{
	static unsigned char buf[4096], want[8];
	static const unsigned char zero[4096];

	e4_memimg_pread(m, pblk * bs, buf, bs);
	fuzz_data_stamp(want, pblk);
	if (!memcmp(buf, want, 8))
		return 1;
	FUZZ_ASSERT(!memcmp(buf, zero, bs), "data block %llu is "
		    "neither zeros nor its stamp", (unsigned long long)pblk);
	return 0;
}

/* Read the state of the fs in @m into @s, checking its consistency. */
static void read_state(struct e4_memimg *m, const struct fuzz_tmpl *t,
		       const struct fuzz_file *ff, struct fstate *s)
{
	ext2_filsys fs = NULL;
	ext2_extent_handle_t h;
	struct ext2fs_extent ext;
	struct ext2_inode inode;
	struct e4_fault f;
	struct e4_extent_totals tot;
	struct walk w;
	uint64_t nused;
	errcode_t retval;
	blk64_t b, i, ndata;
	dgrp_t g;
	int k, op;

	memset(s, 0, sizeof(*s));
	memset(owner, 0, sizeof(owner));
	retval = fuzz_open_ro(m, &f, 0, &fs);
	FUZZ_ASSERT(!retval, "open: %s", error_message(retval));
	retval = ext2fs_read_block_bitmap(fs);
	FUZZ_ASSERT(!retval, "read bitmap: %s", error_message(retval));
	for (b = fs->super->s_first_data_block; b < FT_NBLOCKS; b++)
		if (ext2fs_test_block_bitmap2(fs->block_map, b))
			s->bmap[b] = 1;
		else
			s->free_blocks++;
	for (nused = 0, g = 0; g < fs->group_desc_count; g++)
		nused += ext2fs_bg_free_blocks_count(fs, g);
	FUZZ_ASSERT(nused == s->free_blocks, "group descriptors: %llu free, "
		    "bitmap %llu", (unsigned long long)nused,
		    (unsigned long long)s->free_blocks);
	FUZZ_ASSERT(ext2fs_free_blocks_count(fs->super) == s->free_blocks,
		    "superblock: %llu free, bitmap %llu",
		    (unsigned long long)ext2fs_free_blocks_count(fs->super),
		    (unsigned long long)s->free_blocks);
	for (i = 0; i < t->jlen; i++)
		own(t->jpblk[i], 100, s);

	for (k = 0; k < FT_NREG; k++) {
		retval = ext2fs_read_inode(fs, ff[k].ino, &inode);
		if (!retval)
			retval = ext2fs_extent_open2(fs, ff[k].ino, &inode,
						     &h);
		FUZZ_ASSERT(!retval, "file %d: %s", k, error_message(retval));
		ndata = 0;
		for (op = EXT2_EXTENT_ROOT; ; op = EXT2_EXTENT_NEXT) {
			retval = ext2fs_extent_get(h, op, &ext);
			if (retval == EXT2_ET_EXTENT_NO_NEXT)
				break;
			FUZZ_ASSERT(!retval, "file %d: extent walk: %s", k,
				    error_message(retval));
			if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
				if (ext.e_flags &
				    EXT2_EXTENT_FLAGS_SECOND_VISIT)
					continue;
				FUZZ_ASSERT(s->ntree[k] < FT_MAXTREE,
					    "file %d: tree too big", k);
				s->tree[k][s->ntree[k]++] =
					(uint32_t)ext.e_pblk;
				own(ext.e_pblk, 10 + k, s);
				continue;
			}
			for (i = 0; i < ext.e_len; i++) {
				blk64_t l = ext.e_lblk + i;

				FUZZ_ASSERT(l < FT_MAXL && !s->st[k][l],
					    "file %d: lblk %llu", k,
					    (unsigned long long)l);
				s->pblk[k][l] = (uint32_t)(ext.e_pblk + i);
				s->st[k][l] = (ext.e_flags &
					       EXT2_EXTENT_FLAGS_UNINIT) ?
					2 : 1;
				own(ext.e_pblk + i, 1 + k, s);
				s->data[k][l] = data_kind(m, t->blocksize,
							  ext.e_pblk + i);
				ndata++;
			}
		}
		ext2fs_extent_free(h);
		FUZZ_ASSERT(ext2fs_inode_i_blocks(fs, &inode) ==
			    (ndata + s->ntree[k]) * (fs->blocksize / 512),
			    "file %d: i_blocks %llu for %llu data + %u tree "
			    "blocks", k, (unsigned long long)
			    ext2fs_inode_i_blocks(fs, &inode),
			    (unsigned long long)ndata, s->ntree[k]);
		memset(&w, 0, sizeof(w));
		memset(&tot, 0, sizeof(tot));
		w.s = s;
		w.k = k;
		retval = e4_inode_extents(fs, ff[k].ino, 0, on_extent, &w,
					  &tot);
		FUZZ_ASSERT(!retval && tot.blocks == ndata,
			    "file %d: e4_inode_extents: %s", k,
			    error_message(retval));
	}
	ext2fs_close_free(&fs);
}

/* The log is empty and needs_recovery clear, on disk. */
static void check_clean(struct e4_memimg *m, const struct fuzz_tmpl *t,
			const char *when)
{
	unsigned char sb[1024], jsb[JBD2_JSB_SIZE];
	uint32_t incompat;

	e4_memimg_pread(m, 1024, sb, sizeof(sb));
	e4_memimg_pread(m, t->jpblk[0] * t->blocksize, jsb, sizeof(jsb));
	incompat = sb[0x60] | sb[0x61] << 8 | sb[0x62] << 16 |
		(uint32_t)sb[0x63] << 24;
	FUZZ_ASSERT(!(incompat & EXT3_FEATURE_INCOMPAT_RECOVER),
		    "%s: needs_recovery set", when);
	FUZZ_ASSERT(e4_be32(jsb + JBD2_JSB_START) == 0, "%s: s_start %u", when,
		    e4_be32(jsb + JBD2_JSB_START));
	FUZZ_ASSERT(e4_jsb_csum_ok(jsb), "%s: jsb checksum", when);
}

/* Where states @a and @b first differ, for the report. */
static void diff_state(const struct fstate *a, const struct fstate *b)
{
	int k;
	unsigned int l;

	for (k = 0; k < FT_NREG; k++)
		for (l = 0; l < FT_MAXL; l++)
			if (a->pblk[k][l] != b->pblk[k][l] ||
			    a->st[k][l] != b->st[k][l]) {
				fprintf(stderr, "file %d lblk %u: pblk %u st %u"
					" vs pblk %u st %u\n", k, l,
					a->pblk[k][l], a->st[k][l],
					b->pblk[k][l], b->st[k][l]);
				return;
			}
	for (l = 0; l < FT_NBLOCKS; l++)
		if (a->bmap[l] != b->bmap[l]) {
			fprintf(stderr, "bitmap differs at block %u\n", l);
			return;
		}
	fprintf(stderr, "free %llu vs %llu; tree blocks differ\n",
		(unsigned long long)a->free_blocks,
		(unsigned long long)b->free_blocks);
}

/* Same maps, bitmap, counts, tree blocks, and data of written lblks (an
 * unwritten block's data cannot be read: a failed op may have zeroed it). */
static int same_state(const struct fstate *a, const struct fstate *b)
{
	int k, l;

	if (memcmp(a, b, offsetof(struct fstate, data)))
		return 0;
	for (k = 0; k < FT_NREG; k++)
		for (l = 0; l < FT_MAXL; l++)
			if (a->st[k][l] == 1 && a->data[k][l] != b->data[k][l])
				return 0;
	return 1;
}

/* ---- operations -------------------------------------------------------- */

static unsigned int le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static void parse_op(const uint8_t *p, const struct fuzz_file *ff,
		     struct op *o)
{
	blk64_t span;

	o->code = p[0];
	o->file = p[0] & 3;
	o->ino = ff[o->file].ino;
	span = ff[o->file].span + 8;
	o->lblk = le16(p + 1);
	o->len = le16(p + 3);
	if (!(p[0] & OP_RAW)) {
		o->lblk %= span;
		o->len = 1 + o->len % span;
	}
	o->flags = (p[0] & OP_UNWRITTEN) ? E4_MARK_UNWRITTEN :
		E4_MARK_WRITTEN;
	if (p[0] & OP_KEEP)
		o->flags |= E4_MARK_KEEP_CONTENTS;
	if (p[0] & OP_SKIP_HOLES)
		o->flags |= E4_MARK_SKIP_HOLES;
}

static int validation_error(errcode_t e)
{
	return e == E4_ERR_PAST_EOF || e == E4_ERR_HOLE_IN_RANGE ||
		e == E4_ERR_RANGE || e == E4_ERR_NOT_REGULAR;
}

/* Check a successful @o that turned state @a into @b. */
static void check_op(const struct fstate *a, const struct fstate *b,
		     const struct op *o, const struct e4_mark_result *r)
{
	uint8_t want = (o->flags & E4_MARK_UNWRITTEN) ? 2 : 1;
	uint64_t changed = 0, same = 0, holes = 0, ta = 0, tb = 0;
	static uint8_t tmark[FT_NBLOCKS];
	unsigned int l, i;
	int k;

	for (k = 0; k < FT_NREG; k++)
		for (l = 0; l < FT_MAXL; l++) {
			int in = k == o->file && l >= o->lblk &&
				l < o->lblk + o->len;
			int zeroed = in && a->st[k][l] == 2 && want == 1 &&
				!(o->flags & E4_MARK_KEEP_CONTENTS);

			/* written from unwritten: zeros unless kept */
			FUZZ_ASSERT(!a->st[k][l] ||
				    b->data[k][l] == (zeroed ? 0 :
						      a->data[k][l]),
				    "file %d lblk %u: data %u -> %u%s", k, l,
				    a->data[k][l], b->data[k][l],
				    zeroed ? " (to be zeroed)" : "");

			FUZZ_ASSERT(a->pblk[k][l] == b->pblk[k][l] &&
				    !a->st[k][l] == !b->st[k][l],
				    "file %d lblk %u: pblk %u -> %u", k, l,
				    a->pblk[k][l], b->pblk[k][l]);
			if (!in) {
				FUZZ_ASSERT(a->st[k][l] == b->st[k][l],
					    "file %d lblk %u outside the range"
					    " changed flag", k, l);
				continue;
			}
			if (!a->st[k][l]) {
				holes++;
				continue;
			}
			FUZZ_ASSERT(b->st[k][l] == want,
				    "file %d lblk %u: flag not set", k, l);
			if (a->st[k][l] == want)
				same++;
			else
				changed++;
		}
	FUZZ_ASSERT(o->lblk + o->len <= FT_MAXL, "success past the map");
	FUZZ_ASSERT(r->blocks_changed == changed &&
		    r->unchanged_blocks == same && r->hole_blocks == holes,
		    "counts: changed %llu/%llu same %llu/%llu holes %llu/%llu",
		    (unsigned long long)r->blocks_changed,
		    (unsigned long long)changed,
		    (unsigned long long)r->unchanged_blocks,
		    (unsigned long long)same,
		    (unsigned long long)r->hole_blocks,
		    (unsigned long long)holes);
	/* The bitmap moves by the tree blocks, nothing else. */
	memset(tmark, 0, sizeof(tmark));
	for (k = 0; k < FT_NREG; k++) {
		for (i = 0; i < a->ntree[k]; i++, ta++)
			tmark[a->tree[k][i]] ^= 1;
		for (i = 0; i < b->ntree[k]; i++, tb++)
			tmark[b->tree[k][i]] ^= 1;
	}
	for (l = 0; l < FT_NBLOCKS; l++)
		FUZZ_ASSERT((a->bmap[l] != b->bmap[l]) == tmark[l],
			    "bitmap bit %u changed %d, tree change %d", l,
			    a->bmap[l] != b->bmap[l], tmark[l]);
	FUZZ_ASSERT(a->free_blocks + ta == b->free_blocks + tb,
		    "free blocks %llu -> %llu, tree blocks %llu -> %llu",
		    (unsigned long long)a->free_blocks,
		    (unsigned long long)b->free_blocks,
		    (unsigned long long)ta, (unsigned long long)tb);
}

static errcode_t do_op(ext2_filsys fs, e4_journal_t j, const struct op *o,
		       struct e4_mark_result *r)
{
	memset(r, 0, sizeof(*r));
	return e4_mark_range(fs, j, o->ino, o->lblk, o->len, o->flags, r);
}

/* ---- opening, closing, recovering ------------------------------------- */

/* The template of variant @v. */
static int tmpl_of(unsigned int v)
{
	return ((v >> 3) & 1) | ((v >> 4) & 2);
}

static void image_init(struct e4_memimg *m, unsigned int v)
{
	int c = tmpl_of(v);

	if (e4_memimg_init(m, tmpl[c].buf, tmpl[c].size))
		abort();
	e4_memimg_pwrite(m, tmpl[c].jpblk[0] * tmpl[c].blocksize,
			 jsb_var[c][v & 7], JBD2_JSB_SIZE);
}

/* Open read-write as e4tune does (one 1 KiB superblock write: no
 * orig_super), with the journal. */
static errcode_t open_rw(const char *name, io_manager mgr, ext2_filsys *fs,
			 e4_journal_t *j)
{
	errcode_t retval;

	*fs = NULL;
	*j = NULL;
	retval = ext2fs_open2(name, NULL, EXT2_FLAG_64BITS | EXT2_FLAG_RW,
			      0, 0, mgr, fs);
	if (retval)
		return retval;
	(*fs)->now = FT_NOW;
	ext2fs_free_mem(&(*fs)->orig_super);
	return e4_journal_open(*fs, NULL, E4_JOURNAL_RW, j);
}

static errcode_t close_rw(ext2_filsys fs, e4_journal_t j, int flush)
{
	errcode_t retval, r2;

	retval = e4_journal_close(j);
	if (!fs)
		return retval;
	if (!flush)
		fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
			       EXT2_FLAG_IB_DIRTY | EXT2_FLAG_CHANGED);
	r2 = ext2fs_close_free(&fs);
	return retval ? retval : r2;
}

/*
 * Recover the journal of @m if needs_recovery or s_start say so.  Returns
 * what the image held before: 0 clean, 1 needs_recovery with an empty log,
 * 2 a log to replay (s_start set), which must hold exactly one committed
 * transaction (each op is one).
 */
static int recover(struct e4_memimg *m)
{
	ext2_filsys fs;
	e4_journal_t j;
	struct e4_jscan *scan = NULL;
	struct e4_replay_result rr;
	errcode_t retval;
	int nr, how;

	retval = open_rw(m->name, e4_mem_io_manager, &fs, &j);
	FUZZ_ASSERT(!retval, "open for recovery: %s", error_message(retval));
	nr = !!ext2fs_has_feature_journal_needs_recovery(fs->super);
	how = j->jsb.start ? 2 : nr;
	if (getenv("E4_FUZZ_VERBOSE"))
		fprintf(stderr, "before recovery: needs_recovery %d, "
			"s_start %u\n", nr, j->jsb.start);
	FUZZ_ASSERT(nr || !j->jsb.start, "s_start %u without needs_recovery",
		    j->jsb.start);
	if (how) {
		retval = e4_journal_scan(j, 0, 0, &scan);
		FUZZ_ASSERT(!retval && !scan->fail, "recovery scan: %s",
			    error_message(retval ? retval : scan->fail));
		FUZZ_ASSERT(scan->ncommitted == (how == 2 ? 1U : 0U) &&
			    !scan->corrupt, "%zu committed transactions in a "
			    "log with s_start %u", scan->ncommitted,
			    j->jsb.start);
		e4_replay_result_init(&rr, sizeof(rr));
		retval = e4_journal_replay(j, scan, &rr);
		FUZZ_ASSERT(!retval, "recovery: %s", error_message(retval));
		FUZZ_ASSERT(!rr.fs_error && !rr.fs_not_valid,
			    "recovery marked the fs in error");
		e4_jscan_free(scan);
	}
	retval = close_rw(fs, j, 0);
	FUZZ_ASSERT(!retval, "close after recovery: %s",
		    error_message(retval));
	return how;
}

/* ---- the target ---------------------------------------------------------- */

/* Reads (@rd) or writes made through @f so far. */
static uint64_t io_count(const struct e4_fault *f, int rd)
{
	return rd ? f->nreads : f->nwrites;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct op ops[FT_MAXOPS];
	errcode_t rc[FT_MAXOPS], r;
	uint64_t cend[FT_MAXOPS + 1], w0, base, total, k;
	struct e4_mark_result res;
	struct e4_memimg m, m2;
	struct e4_fault f, f2;
	const struct fuzz_tmpl *t;
	const struct fuzz_file *ff;
	ext2_filsys fs;
	e4_journal_t j;
	unsigned int v;
	size_t n, i, fi;
	int how, rd;
	const char *what;

	if (!ready)
		init();
	if (size < 2)
		return 0;
	v = data[0];
	rd = !!(v & 0x10);
	what = rd ? "read" : "write";
	t = &tmpl[tmpl_of(v)];
	ff = files[tmpl_of(v)];
	n = (size - 2) / FT_OPSIZE;
	if (n > FT_MAXOPS)
		n = FT_MAXOPS;
	for (i = 0; i < n; i++)
		parse_op(data + 2 + i * FT_OPSIZE, ff, &ops[i]);

	/* The undisturbed run, io counted by an unarmed e4_fault. */
	image_init(&m, v);
	read_state(&m, t, ff, &snap[0]);
	e4_fault_init(&f, e4_mem_io_manager, m.name);
	r = open_rw(f.name, e4_fault_io_manager, &fs, &j);
	FUZZ_ASSERT(!r, "open: %s", error_message(r));
	base = io_count(&f, rd);
	for (i = 0; i < n; i++) {
		w0 = f.nwrites;
		rc[i] = do_op(fs, j, &ops[i], &res);
		cend[i] = io_count(&f, rd);
		if (rc[i]) {
			FUZZ_ASSERT(validation_error(rc[i]),
				    "op %zu (0x%02x %llu+%llu) failed: %s", i,
				    ops[i].code,
				    (unsigned long long)ops[i].lblk,
				    (unsigned long long)ops[i].len,
				    error_message(rc[i]));
			FUZZ_ASSERT(f.nwrites == w0, "failed op %zu wrote", i);
			snap[i + 1] = snap[i];
			continue;
		}
		FUZZ_ASSERT(res.extents_changed || f.nwrites == w0,
			    "op %zu changed nothing but wrote", i);
		FUZZ_ASSERT(!res.extents_changed || res.journaled,
			    "op %zu not journaled", i);
		check_clean(&m, t, "after an op");
		read_state(&m, t, ff, &snap[i + 1]);
		check_op(&snap[i], &snap[i + 1], &ops[i], &res);
		if (getenv("E4_FUZZ_VERBOSE"))
			fprintf(stderr, "op %zu: %llu blocks changed, %llu "
				"merges, tid %u, %llu blocks logged, tree "
				"blocks %u, free %llu\n", i,
				(unsigned long long)res.blocks_changed,
				(unsigned long long)res.merges, res.txn.tid,
				(unsigned long long)res.txn.nblocks,
				snap[i + 1].ntree[ops[i].file],
				(unsigned long long)snap[i + 1].free_blocks);
	}
	r = close_rw(fs, j, 1);
	FUZZ_ASSERT(!r, "close: %s", error_message(r));
	cend[n] = io_count(&f, rd);
	total = cend[n] - base;
	check_clean(&m, t, "after close");
	read_state(&m, t, ff, &cur);
	FUZZ_ASSERT(same_state(&cur, &snap[n]), "close changed the state");
	if (getenv("E4_FUZZ_VERBOSE"))
		fprintf(stderr, "%zu ops, %llu %s\n", n,
			(unsigned long long)total, what);
	if (!data[1] || !total)
		goto out;

	/* The same run with io k and all after it failing. */
	k = base + (data[1] - 1) % total + 1;
	image_init(&m2, v);
	e4_fault_init(&f2, e4_mem_io_manager, m2.name);
	if (rd)
		f2.fail_read_at = k;
	else
		f2.fail_write_at = k;
	r = open_rw(f2.name, e4_fault_io_manager, &fs, &j);
	FUZZ_ASSERT(!r, "open: %s", error_message(r));
	for (fi = 0; fi < n; fi++) {
		r = do_op(fs, j, &ops[fi], &res);
		FUZZ_ASSERT(r || io_count(&f2, rd) < k, "op %zu returned 0 "
			    "though %s %llu failed", fi, what,
			    (unsigned long long)k);
		if (io_count(&f2, rd) >= k)
			break;
		FUZZ_ASSERT(r == rc[fi], "op %zu: %s, undisturbed %s", fi,
			    error_message(r), error_message(rc[fi]));
	}
	FUZZ_ASSERT((fi ? cend[fi - 1] : base) < k && k <= cend[fi],
		    "%s %llu failed in op %zu, not where expected", what,
		    (unsigned long long)k, fi);
	/* as e4tune: close (a flush if anything is dirty) after the error */
	r = close_rw(fs, j, 1);
	FUZZ_ASSERT(fi < n || rd || r, "close with write %llu failing "
		    "reported no error", (unsigned long long)k);
	if (getenv("E4_FUZZ_VERBOSE"))
		fprintf(stderr, "%s %llu of %llu..%llu failed in op %zu\n",
			what, (unsigned long long)k,
			(unsigned long long)base + 1,
			(unsigned long long)cend[n], fi);

	/* Recovered: the state before that op or after it, nothing else. */
	how = recover(&m2);
	check_clean(&m2, t, "after recovery");
	read_state(&m2, t, ff, &cur);
	/* Nothing marked for recovery: not a byte of metadata changed; a
	 * committed log: the new state. */
	FUZZ_ASSERT(how != 0 || same_state(&cur, &snap[fi]),
		    "%s %llu failing in op %zu: clean image, new state", what,
		    (unsigned long long)k, fi);
	FUZZ_ASSERT(how != 2 || same_state(&cur, &snap[fi < n ? fi + 1 : n]),
		    "%s %llu failing in op %zu: committed log recovered "
		    "to the old state", what, (unsigned long long)k, fi);
	if (!same_state(&cur, &snap[fi]) &&
	    !same_state(&cur, &snap[fi < n ? fi + 1 : n])) {
		diff_state(&cur, &snap[fi]);
		diff_state(&cur, &snap[fi < n ? fi + 1 : n]);
		FUZZ_ASSERT(0, "%s %llu failing in op %zu: recovered state "
			    "is neither the old nor the new one", what,
			    (unsigned long long)k, fi);
	}

	/* Rerun what is left: the undisturbed end state. */
	r = open_rw(m2.name, e4_mem_io_manager, &fs, &j);
	FUZZ_ASSERT(!r, "reopen: %s", error_message(r));
	for (i = fi; i < n; i++) {
		r = do_op(fs, j, &ops[i], &res);
		FUZZ_ASSERT(r == rc[i], "rerun op %zu: %s, undisturbed %s", i,
			    error_message(r), error_message(rc[i]));
	}
	r = close_rw(fs, j, 1);
	FUZZ_ASSERT(!r, "close after the rerun: %s", error_message(r));
	check_clean(&m2, t, "after the rerun");
	read_state(&m2, t, ff, &cur);
	if (!same_state(&cur, &snap[n])) {
		diff_state(&cur, &snap[n]);
		FUZZ_ASSERT(0, "rerun after %s %llu failed: not the "
			    "undisturbed end state", what,
			    (unsigned long long)k);
	}
	e4_memimg_free(&m2);
out:
	e4_memimg_free(&m);
	return 0;
}
