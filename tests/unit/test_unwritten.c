/*
 * test_unwritten.c --- unit tests of unwritten.c on a file system built
 * here with libext2fs (ext2fs_initialize, files by ext2fs_fallocate):
 * listing (block-mapped files too), marking both ways, dry-run counts,
 * zeroing, holes, errors, maximum extent lengths; block_owner.c's rule.
 */
#include "unit.h"

#include <unistd.h>

#define BS	4096

struct fx {
	char		path[64];
	ext2_filsys	fs;
	ext2_ino_t	ino;	/* 100 blocks, unwritten, i_size 100 blocks */
};

static int setup(void **state)
{
	struct ext2_super_block param;
	struct ext2_inode inode;
	struct fx *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	strcpy(f->path, "/tmp/e4-unit-uw-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8192 * BS), 0);	/* sparse */
	close(fd);
	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, 8192);
	param.s_log_block_size = 2;		/* 4096 bytes */
	param.s_inodes_count = 256;
	ext2fs_set_feature_extents(&param);
	ext2fs_set_feature_metadata_csum(&param);
	assert_int_equal(ext2fs_initialize(f->path, EXT2_FLAG_RW |
					   EXT2_FLAG_64BITS, &param,
					   unix_io_manager, &f->fs), 0);
	assert_int_equal(ext2fs_allocate_tables(f->fs), 0);
	assert_int_equal(ext2fs_mkdir(f->fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      0), 0);
	assert_int_equal(ext2fs_new_inode(f->fs, EXT2_ROOT_INO,
					  LINUX_S_IFREG | 0644, 0, &f->ino),
			 0);
	ext2fs_inode_alloc_stats2(f->fs, f->ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	inode.i_flags = EXT4_EXTENTS_FL;	/* i_block zero: libext2fs
						 * writes the header */
	assert_int_equal(ext2fs_inode_size_set(f->fs, &inode, 100 * BS), 0);
	assert_int_equal(ext2fs_write_new_inode(f->fs, f->ino, &inode), 0);
	assert_int_equal(ext2fs_fallocate(f->fs, EXT2_FALLOCATE_FORCE_UNINIT,
					  f->ino, NULL, ~0ULL, 0, 100), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ext2fs_close_free(&f->fs);
	unlink(f->path);
	free(f);
	return 0;
}

struct got {
	struct e4_extent_rec	r[16];
	int			n;
};

static int collect(ext2_filsys fs, const struct e4_extent_rec *r,
		   void *priv)
{
	struct got *g = priv;

	(void)fs;
	if (g->n < 16)
		g->r[g->n] = *r;
	g->n++;
	return 0;
}

static void list(struct fx *f, struct got *g, struct e4_extent_totals *t)
{
	memset(g, 0, sizeof(*g));
	memset(t, 0, sizeof(*t));
	assert_int_equal(e4_inode_extents(f->fs, f->ino, 0, collect, g, t), 0);
}

/* Assert extent @k is [lblk, lblk+len) with flag @uw. */
static void ext_is(const struct got *g, int k, blk64_t lblk, blk64_t len,
		   int uw)
{
	assert_true(k < g->n);
	assert_int_equal(g->r[k].lblk, lblk);
	assert_int_equal(g->r[k].len, len);
	assert_int_equal(g->r[k].unwritten, uw);
}

static void test_list(void **state)
{
	struct fx *f = *state;
	struct e4_extent_totals t;
	struct got g;

	list(f, &g, &t);
	assert_int_equal(g.n, 1);
	ext_is(&g, 0, 0, 100, 1);
	assert_int_equal(t.files, 1);
	assert_int_equal(t.files_unwritten, 1);
	assert_int_equal(t.unwritten_extents, 1);
	assert_int_equal(t.unwritten_blocks, 100);
	/* fs-wide: the root directory's extent too, one unwritten file */
	memset(&g, 0, sizeof(g));
	memset(&t, 0, sizeof(t));
	assert_int_equal(e4_fs_extents(f->fs, E4_EXT_UNWRITTEN_ONLY, collect,
				       &g, &t), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].ino, f->ino);
	assert_int_equal(t.files, 2);
	assert_int_equal(t.extents, 2);
	assert_int_equal(t.files_unwritten, 1);
}

/*
 * A block-mapped file on the extent fs (as ext3 files are after
 * tune2fs -O extent): lblk 0..19 at consecutive pblks (its indirect block
 * elsewhere), a hole, lblk 30.  With E4_EXT_BLOCK_MAPPED e4_fs_extents()
 * reports its data blocks as initialized runs, each lblk at the pblk
 * ext2fs_bmap2() looks up; without it, or with E4_EXT_UNWRITTEN_ONLY, the
 * inode is not reported.
 */
static void test_block_mapped(void **state)
{
	struct fx *f = *state;
	struct ext2_inode inode;
	struct e4_extent_totals t;
	struct got g;
	ext2_ino_t ino;
	blk64_t goal, glen, p, l;
	int k, mine;

	assert_int_equal(ext2fs_new_inode(f->fs, EXT2_ROOT_INO,
					  LINUX_S_IFREG | 0644, 0, &ino), 0);
	ext2fs_inode_alloc_stats2(f->fs, ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	assert_int_equal(ext2fs_inode_size_set(f->fs, &inode, 31 * BS), 0);
	assert_int_equal(ext2fs_write_new_inode(f->fs, ino, &inode), 0);
	assert_int_equal(ext2fs_new_range(f->fs, 0, 2000, 21, NULL, &goal,
					  &glen), 0);
	assert_int_equal(glen, 21);
	for (l = 0; l < 21; l++)
		ext2fs_block_alloc_stats2(f->fs, goal + l, +1);
	for (l = 0; l < 21; l++) {
		p = goal + l;	/* BMAP_ALLOC: the indirect block */
		assert_int_equal(ext2fs_bmap2(f->fs, ino, NULL, NULL,
					      BMAP_SET | BMAP_ALLOC,
					      l < 20 ? l : 30, NULL, &p), 0);
	}
	assert_int_equal(ext2fs_read_inode(f->fs, ino, &inode), 0);
	assert_false(inode.i_flags & EXT4_EXTENTS_FL);
	assert_true(inode.i_block[EXT2_IND_BLOCK] &&
		    (inode.i_block[EXT2_IND_BLOCK] < goal ||
		     inode.i_block[EXT2_IND_BLOCK] >= goal + 21));
	for (k = 0; k < 3; k++) {
		int flags = k == 0 ? 0 : k == 1 ? E4_EXT_BLOCK_MAPPED :
			E4_EXT_BLOCK_MAPPED | E4_EXT_UNWRITTEN_ONLY;

		memset(&g, 0, sizeof(g));
		memset(&t, 0, sizeof(t));
		assert_int_equal(e4_fs_extents(f->fs, flags, collect, &g, &t),
				 0);
		for (l = 0, mine = 0; l < (blk64_t)g.n && l < 16; l++)
			if (g.r[l].ino == ino)
				mine++;
		if (k != 1) {
			assert_int_equal(mine, 0);
			continue;
		}
		assert_int_equal(mine, 2);
		for (l = 0; l < (blk64_t)g.n; l++) {
			const struct e4_extent_rec *r = &g.r[l];
			blk64_t i;

			if (r->ino != ino)
				continue;
			assert_true(r->block_mapped);
			assert_false(r->unwritten);
			assert_true(r->lblk == 0 ? r->len == 20 :
				    r->lblk == 30 && r->len == 1);
			for (i = 0; i < r->len; i++) {
				assert_int_equal(ext2fs_bmap2(f->fs, ino, NULL,
							      NULL, 0,
							      r->lblk + i,
							      NULL, &p), 0);
				assert_int_equal(r->pblk + i, p);
			}
		}
		assert_int_equal(t.files, 3);	/* root, the fixture, ino */
	}
}

static void test_mark_both_ways(void **state)
{
	struct fx *f = *state;
	struct e4_mark_result r, dry;
	struct e4_extent_totals t;
	struct got g;
	blk64_t pblk;

	list(f, &g, &t);
	pblk = g.r[0].pblk;
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 10, 10, E4_MARK_WRITTEN |
				       E4_MARK_KEEP_CONTENTS, &r), 0);
	assert_int_equal(r.extents_changed, 1);
	assert_int_equal(r.blocks_changed, 10);
	assert_int_equal(r.blocks_zeroed, 0);
	list(f, &g, &t);
	assert_int_equal(g.n, 3);
	ext_is(&g, 0, 0, 10, 1);
	ext_is(&g, 1, 10, 10, 0);
	ext_is(&g, 2, 20, 80, 1);
	assert_int_equal(g.r[1].pblk, pblk + 10);
	assert_int_equal(g.r[2].pblk, pblk + 20);
	/* The dry run counts what the real run then does, and writes
	 * nothing. */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 100,
				       E4_MARK_UNWRITTEN | E4_MARK_DRY_RUN,
				       &dry), 0);
	list(f, &g, &t);
	assert_int_equal(g.n, 3);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 100,
				       E4_MARK_UNWRITTEN, &r), 0);
	assert_int_equal(dry.blocks_changed, 10);
	assert_int_equal(dry.unchanged_blocks, 90);
	assert_int_equal(r.blocks_changed, dry.blocks_changed);
	assert_int_equal(r.extents_changed, dry.extents_changed);
	assert_int_equal(r.merges, 2);
	list(f, &g, &t);
	assert_int_equal(g.n, 1);
	ext_is(&g, 0, 0, 100, 1);
	assert_int_equal(g.r[0].pblk, pblk);
}

static void test_zeroing(void **state)
{
	struct fx *f = *state;
	struct e4_extent_totals t;
	struct got g;
	char *buf = malloc(4 * BS), *zero = calloc(1, 4 * BS);
	blk64_t pblk, k;

	assert_non_null(buf);
	assert_non_null(zero);
	list(f, &g, &t);
	pblk = g.r[0].pblk;
	memset(buf, 0x5a, 4 * BS);
	assert_int_equal(io_channel_write_blk64(f->fs->io, pblk, 4, buf), 0);
	/* --keep-contents: the bytes stay */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 2, E4_MARK_WRITTEN |
				       E4_MARK_KEEP_CONTENTS, NULL), 0);
	memset(buf, 0, 4 * BS);
	assert_int_equal(io_channel_read_blk64(f->fs->io, pblk, 4, buf), 0);
	assert_int_equal(buf[0], 0x5a);
	assert_int_equal(buf[4 * BS - 1], 0x5a);
	/* default: blocks 2-3 are zeroed before they become written */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 2, 2, E4_MARK_WRITTEN,
				       NULL), 0);
	assert_int_equal(io_channel_read_blk64(f->fs->io, pblk, 4, buf), 0);
	assert_int_equal(buf[2 * BS - 1], 0x5a);
	assert_memory_equal(buf + 2 * BS, zero, 2 * BS);
	list(f, &g, &t);
	assert_int_equal(g.n, 2);
	ext_is(&g, 0, 0, 4, 0);		/* merged */
	/* A long run (io_channel_zeroout) over blocks that sit in unix_io's
	 * cache: reads afterwards must see zeros, not the cached bytes. */
	memset(buf, 0x5a, 4 * BS);
	for (k = 4; k < 24; k += 4)
		assert_int_equal(io_channel_write_blk64(f->fs->io, pblk + k, 4,
							buf), 0);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 4, 20, E4_MARK_WRITTEN,
				       NULL), 0);
	for (k = 4; k < 24; k += 4) {
		assert_int_equal(io_channel_read_blk64(f->fs->io, pblk + k, 4,
						       buf), 0);
		assert_memory_equal(buf, zero, 4 * BS);
	}
	free(buf);
	free(zero);
}

static void test_holes_and_errors(void **state)
{
	struct fx *f = *state;
	struct e4_mark_result r;
	struct e4_extent_totals t;
	ext2_ino_t dir;
	struct got g;

	assert_int_equal(ext2fs_punch(f->fs, f->ino, NULL, NULL, 40, 49), 0);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 30, 30, E4_MARK_WRITTEN,
				       &r), E4_ERR_HOLE_IN_RANGE);
	list(f, &g, &t);
	assert_int_equal(g.n, 2);		/* untouched */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 30, 30, E4_MARK_WRITTEN |
				       E4_MARK_SKIP_HOLES, &r), 0);
	assert_int_equal(r.hole_blocks, 10);
	assert_int_equal(r.blocks_changed, 20);
	assert_int_equal(r.blocks_zeroed, 20);
	list(f, &g, &t);
	assert_int_equal(g.n, 4);
	ext_is(&g, 0, 0, 30, 1);
	ext_is(&g, 1, 30, 10, 0);
	ext_is(&g, 2, 50, 10, 0);
	ext_is(&g, 3, 60, 40, 1);

	assert_int_equal(e4_mark_range(f->fs, NULL, 0, 0, 1, E4_MARK_WRITTEN, NULL),
			 E4_ERR_BAD_INODE_NUMBER);
	assert_int_equal(e4_mark_range(f->fs, NULL, 257, 0, 1, E4_MARK_WRITTEN,
				       NULL), E4_ERR_BAD_INODE_NUMBER);
	/* the root directory is below s_first_ino; a directory above */
	assert_int_equal(e4_mark_range(f->fs, NULL, EXT2_ROOT_INO, 0, 1,
				       E4_MARK_WRITTEN, NULL),
			 E4_ERR_RESERVED_INODE);
	assert_int_equal(ext2fs_mkdir(f->fs, EXT2_ROOT_INO, 0, "d"), 0);
	assert_int_equal(ext2fs_namei(f->fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      "d", &dir), 0);
	assert_int_equal(e4_mark_range(f->fs, NULL, dir, 0, 1, E4_MARK_WRITTEN,
				       NULL), E4_ERR_NOT_REGULAR);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 5, 0, E4_MARK_WRITTEN,
				       NULL), E4_ERR_RANGE);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0xffffffffULL, 1,
				       E4_MARK_UNWRITTEN, NULL), E4_ERR_RANGE);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 95, 10, E4_MARK_WRITTEN,
				       NULL), E4_ERR_PAST_EOF);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 95, 10,
				       E4_MARK_UNWRITTEN, NULL),
			 E4_ERR_PAST_EOF);
	assert_int_equal(e4_inode_extents(f->fs, 0, 0, NULL, NULL, NULL),
			 E4_ERR_BAD_INODE_NUMBER);
	list(f, &g, &t);
	assert_int_equal(g.n, 4);
}

/* Inodes the kernel reads by itself are refused, whatever their number;
 * the same inode is accepted once no superblock field names it. */
static void test_reserved(void **state)
{
	struct fx *f = *state;
	struct ext2_super_block *sb = f->fs->super;
	__u32 *fields[] = { &sb->s_journal_inum, &sb->s_usr_quota_inum,
			    &sb->s_grp_quota_inum, &sb->s_prj_quota_inum,
			    &sb->s_orphan_file_inum };
	struct e4_mark_result r;
	size_t i;

	assert_true(f->ino >= EXT2_FIRST_INO(sb));
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		__u32 old = *fields[i];

		*fields[i] = f->ino;
		assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 1,
					       E4_MARK_WRITTEN, NULL),
				 E4_ERR_RESERVED_INODE);
		assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 1,
					       E4_MARK_UNWRITTEN |
					       E4_MARK_DRY_RUN, NULL),
				 E4_ERR_RESERVED_INODE);
		*fields[i] = old;
	}
	for (i = 1; i < EXT2_FIRST_INO(sb); i++)
		assert_int_equal(e4_mark_range(f->fs, NULL, i, 0, 1,
					       E4_MARK_UNWRITTEN, NULL),
				 E4_ERR_RESERVED_INODE);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 1,
				       E4_MARK_WRITTEN | E4_MARK_DRY_RUN,
				       &r), 0);
	assert_int_equal(r.blocks_changed, 1);
}

/*
 * Maximum extent lengths (kernel fs/ext4/ext4_extents.h): an unwritten
 * extent holds at most EXT_UNWRITTEN_MAX_LEN = 32767 blocks, an
 * initialized one EXT_INIT_MAX_LEN = 32768 (ee_len 32768 means 32768
 * initialized blocks; above it, unwritten with ee_len - 32768).  A file of
 * BIG_LEN physically contiguous blocks, marked written and then unwritten
 * as a whole, is cut (and merged back) into extents of exactly those
 * lengths.  The fixture: 3 groups of 32768 4 KiB blocks, flex_bg (all
 * bitmaps and inode tables in group 0), the file allocated from block
 * BIG_GOAL: group 1 past its backup superblock and descriptors, and group 2
 * (no backup), one free run up to the end of the fs.
 */
#define BIG_BLOCKS	98304
#define BIG_GOAL	34000
#define BIG_LEN		64000

static int setup_big(void **state)
{
	struct ext2_super_block param;
	struct ext2_inode inode;
	struct fx *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	strcpy(f->path, "/tmp/e4-unit-uwbig-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)BIG_BLOCKS * BS), 0);
	close(fd);
	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, BIG_BLOCKS);
	param.s_log_block_size = 2;
	param.s_inodes_count = 256;
	param.s_log_groups_per_flex = 4;
	ext2fs_set_feature_extents(&param);
	ext2fs_set_feature_flex_bg(&param);
	ext2fs_set_feature_sparse_super(&param);
	assert_int_equal(ext2fs_initialize(f->path, EXT2_FLAG_RW |
					   EXT2_FLAG_64BITS, &param,
					   unix_io_manager, &f->fs), 0);
	assert_int_equal(ext2fs_allocate_tables(f->fs), 0);
	assert_int_equal(ext2fs_mkdir(f->fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      0), 0);
	assert_int_equal(ext2fs_new_inode(f->fs, EXT2_ROOT_INO,
					  LINUX_S_IFREG | 0644, 0, &f->ino),
			 0);
	ext2fs_inode_alloc_stats2(f->fs, f->ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_links_count = 1;
	inode.i_flags = EXT4_EXTENTS_FL;
	assert_int_equal(ext2fs_inode_size_set(f->fs, &inode,
					       (blk64_t)BIG_LEN * BS), 0);
	assert_int_equal(ext2fs_write_new_inode(f->fs, f->ino, &inode), 0);
	assert_int_equal(ext2fs_fallocate(f->fs, EXT2_FALLOCATE_FORCE_UNINIT,
					  f->ino, NULL, BIG_GOAL, 0, BIG_LEN),
			 0);
	*state = f;
	return 0;
}

/* Assert the extents of @f are @n pieces of the lengths @len[], all with
 * flag @uw, physically contiguous from @pblk. */
static void pieces_are(struct fx *f, int n, const blk64_t *len, int uw,
		       blk64_t pblk)
{
	struct e4_extent_totals t;
	struct got g;
	blk64_t l = 0;
	int k;

	list(f, &g, &t);
	assert_int_equal(g.n, n);
	for (k = 0; k < n; k++) {
		ext_is(&g, k, l, len[k], uw);
		assert_int_equal(g.r[k].pblk, pblk + l);
		l += len[k];
	}
	assert_int_equal(l, BIG_LEN);
}

/*
 * block_owner.c: the rule on this fs -- the file's own blocks pass; the
 * superblock, descriptors, bitmaps and inode table are metadata; past
 * the end is outside; the root directory's block, the file's block at
 * another lblk and two overlapping runs are shared; the unused part of
 * an inode table passes as an itable target.
 */
static void test_block_owner(void **state)
{
	struct fx *f = *state;
	ext2_filsys fs = f->fs;
	struct e4_block_conflict c;
	struct e4_block_run r[2];
	blk64_t p = 0, dir = 0, it = ext2fs_inode_table_loc(fs, 0);

	assert_int_equal(ext2fs_bmap2(fs, f->ino, NULL, NULL, 0, 0, NULL, &p),
			 0);
	assert_int_equal(ext2fs_bmap2(fs, EXT2_ROOT_INO, NULL, NULL, 0, 0,
				      NULL, &dir), 0);
	assert_true(p && dir);
	r[0] = (struct e4_block_run){ .lblk = 0, .pblk = p, .len = 100 };
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c), 0);
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 0, 0, &c), 0);

	r[0] = (struct e4_block_run){ .lblk = 0, .pblk = it + 1, .len = 2 };
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_METADATA);
	assert_int_equal(c.blk, it + 1);
	assert_string_equal(c.desc, "the inode table of group 0 (its block 1)");
	r[0].pblk = ext2fs_block_bitmap_loc(fs, 0);
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_METADATA);
	assert_string_equal(c.desc, "the block bitmap of group 0");
	r[0].pblk = ext2fs_inode_bitmap_loc(fs, 0);
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_METADATA);
	assert_string_equal(c.desc, "the inode bitmap of group 0");
	r[0].pblk = 0;
	r[0].len = 1;
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_METADATA);
	assert_string_equal(c.desc, "the superblock of group 0");
	r[0].pblk = 1;
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_METADATA);
	assert_string_equal(c.desc, "the group descriptors of group 0");

	r[0].pblk = 8190;
	r[0].len = 4;
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_OUTSIDE_FS);
	assert_int_equal(c.blk, 8192);

	r[0].pblk = dir;
	r[0].len = 1;
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_SHARED);
	assert_int_equal(c.owner, EXT2_ROOT_INO);
	assert_string_equal(c.desc, "data of inode 2 (lblk 0)");
	/* its own block, but at lblk 0, not 5 */
	r[0] = (struct e4_block_run){ .lblk = 5, .pblk = p, .len = 1 };
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 1, 0, &c),
			 E4_ERR_BLOCK_SHARED);
	assert_int_equal(c.owner, f->ino);
	/* one block in two runs */
	r[0] = (struct e4_block_run){ .lblk = 0, .pblk = p, .len = 2 };
	r[1] = (struct e4_block_run){ .lblk = 1, .pblk = p + 1, .len = 1 };
	assert_int_equal(e4_block_owner_check(fs, f->ino, r, 2, 0, &c),
			 E4_ERR_BLOCK_SHARED);

	/* the end of the inode table as lazy init zeroes it */
	r[0] = (struct e4_block_run){ .lblk = 0,
		.pblk = it + fs->inode_blocks_per_group - 1, .len = 1 };
	assert_int_equal(e4_block_owner_check(fs, 0, r, 1, E4_OWN_ITABLE, &c),
			 0);
	assert_int_equal(e4_block_owner_check(fs, 0, r, 1, 0, &c),
			 E4_ERR_BLOCK_METADATA);
}

static void test_max_lengths(void **state)
{
	struct fx *f = *state;
	static const blk64_t uw2[] = { 32767, BIG_LEN - 32767 };
	struct e4_extent_totals t;
	struct e4_mark_result r;
	struct got g;
	blk64_t pblk;

	/* libext2fs's fallocate cuts unwritten extents at 32767 */
	list(f, &g, &t);
	pblk = g.r[0].pblk;
	assert_int_equal(pblk, BIG_GOAL);
	pieces_are(f, 2, uw2, 1, pblk);
	/* Written 32767 + 1 blocks: the two written neighbours merge into
	 * one extent of the initialized maximum, 32768. */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 32767,
				       E4_MARK_WRITTEN |
				       E4_MARK_KEEP_CONTENTS, &r), 0);
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 32767, 1,
				       E4_MARK_WRITTEN |
				       E4_MARK_KEEP_CONTENTS, &r), 0);
	assert_int_equal(r.merges, 1);
	list(f, &g, &t);
	assert_int_equal(g.n, 2);
	ext_is(&g, 0, 0, 32768, 0);
	ext_is(&g, 1, 32768, BIG_LEN - 32768, 1);
	/* One more written block does not merge: 32769 is past it. */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 32768, 1,
				       E4_MARK_WRITTEN |
				       E4_MARK_KEEP_CONTENTS, &r), 0);
	assert_int_equal(r.merges, 0);
	list(f, &g, &t);
	assert_int_equal(g.n, 3);
	ext_is(&g, 0, 0, 32768, 0);
	ext_is(&g, 1, 32768, 1, 0);
	ext_is(&g, 2, 32769, BIG_LEN - 32769, 1);
	/* The 32768 written blocks made unwritten: cut at the unwritten
	 * maximum, 32767, and the 1-block rest cannot merge into it. */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 0, 32768,
				       E4_MARK_UNWRITTEN, &r), 0);
	assert_int_equal(r.blocks_changed, 32768);
	list(f, &g, &t);
	assert_int_equal(g.n, 4);
	ext_is(&g, 0, 0, 32767, 1);
	ext_is(&g, 1, 32767, 1, 1);
	ext_is(&g, 2, 32768, 1, 0);
	ext_is(&g, 3, 32769, BIG_LEN - 32769, 1);
	/* The written block made unwritten: it and both unwritten
	 * neighbours on its right merge (31233 blocks), the 32767-block
	 * extent on the left takes no more. */
	assert_int_equal(e4_mark_range(f->fs, NULL, f->ino, 32768, 1,
				       E4_MARK_UNWRITTEN, &r), 0);
	assert_int_equal(r.merges, 2);
	pieces_are(f, 2, uw2, 1, pblk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_mapped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mark_both_ways, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_zeroing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holes_and_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_block_owner, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reserved, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_max_lengths, setup_big,
						teardown),
	};

	add_error_table(&et_e4_error_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
