/*
 * test_overlay.c --- unit tests of overlay_io.c and plan.c: reads through
 * the "e4overlay" io_manager stacked on a backing channel (mapped blocks
 * from the source channel, the rest from the backing one, escapes undone,
 * any block size and byte-count reads), read-only behaviour,
 * ext2fs_open2() on an overlaid superblock, and the S_k map rules (newest
 * copy wins, revokes cancel copies of tids <= theirs, bad-checksum /
 * out-of-fs / in-journal tags left out; S_n equals the replay plan).
 */
#include "unit.h"
#include <stdio.h>
#include <unistd.h>

#define BS	4096
#define NBLK	32

static char img_path[64], src_path[64];

/* Block @b of the image: every byte (b + 1); of the source: 0x80 | b. */
static void write_files(void)
{
	unsigned char buf[BS];
	FILE *f;
	int b;

	strcpy(img_path, "/tmp/e4ovl-img-XXXXXX");
	strcpy(src_path, "/tmp/e4ovl-src-XXXXXX");
	assert_true(mkstemp(img_path) >= 0);
	assert_true(mkstemp(src_path) >= 0);
	f = fopen(img_path, "wb");
	for (b = 0; b < NBLK; b++) {
		memset(buf, b + 1, BS);
		fwrite(buf, BS, 1, f);
	}
	fclose(f);
	f = fopen(src_path, "wb");
	for (b = 0; b < 4; b++) {
		memset(buf, 0x80 | b, BS);
		fwrite(buf, BS, 1, f);
	}
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	write_files();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(img_path);
	unlink(src_path);
	return 0;
}

/* A state holding @n map entries (sorted by fsblk, unique). */
static void hand_state(struct e4_state *st, struct e4_copy *ents, size_t n)
{
	memset(st, 0, sizeof(*st));
	st->ents = ents;
	st->n = n;
}

/* The backing channel of the image, in fs blocks. */
static io_channel open_img(void)
{
	io_channel img;

	assert_int_equal(unix_io_manager->open(img_path, 0, &img), 0);
	assert_int_equal(io_channel_set_blksize(img, BS), 0);
	return img;
}

static void test_reads(void **state)
{
	struct e4_copy ents[] = {
		{ .fsblk = 3, .src_blk = 2 },
		{ .fsblk = 5, .src_blk = 1, .flags = E4_COPY_ESCAPED },
	};
	struct e4_state st;
	unsigned char buf[8 * BS], one[BS];
	io_channel src, io, img;
	e4_overlay_t ov;
	int b, i;

	(void)state;
	hand_state(&st, ents, 2);
	assert_int_equal(unix_io_manager->open(src_path, 0, &src), 0);
	assert_int_equal(io_channel_set_blksize(src, BS), 0);
	img = open_img();
	assert_int_equal(e4_overlay_create(img, src, BS, NBLK, &st, &ov), 0);
	assert_non_null(e4_state_lookup(&st, 3));
	assert_int_equal(e4_state_lookup(&st, 3)->src_blk, 2);
	assert_null(e4_state_lookup(&st, 4));
	assert_null(e4_state_lookup(NULL, 3));
	assert_int_equal(e4_overlay_io_manager->open(e4_overlay_name(ov), 0,
						     &io), 0);
	assert_int_equal(io_channel_set_blksize(io, BS), 0);
	assert_int_equal(io_channel_read_blk64(io, 0, 8, buf), 0);
	for (b = 0; b < 8; b++) {
		int want = b == 3 ? 0x82 : b == 5 ? 0x81 : b + 1;

		for (i = (b == 5 ? 4 : 0); i < BS; i += 97)
			assert_int_equal(buf[b * BS + i], want);
	}
	/* Escaped copy: JBD2_MAGIC restored in its first 4 bytes. */
	assert_int_equal(e4_be32(buf + 5 * BS), JBD2_MAGIC);
	/* 1 KiB channel blocks and byte-count reads across a mapped block. */
	assert_int_equal(io_channel_set_blksize(io, 1024), 0);
	assert_int_equal(io_channel_read_blk64(io, 4 * 3 + 3, 2, one), 0);
	assert_int_equal(one[0], 0x82);		/* last KiB of block 3 */
	assert_int_equal(one[1024], 5);		/* first KiB of block 4 */
	assert_int_equal(io_channel_read_blk64(io, 1, -100, one), 0);
	assert_int_equal(one[0], 1);
	/* Part of an escaped copy (its first KiB): the magic restored too. */
	assert_int_equal(io_channel_read_blk64(io, 4 * 5, 1, one), 0);
	assert_int_equal(e4_be32(one), JBD2_MAGIC);
	assert_int_equal(one[4], 0x81);
	assert_int_equal(one[1023], 0x81);
	assert_int_equal(io_channel_read_blk64(io, 4 * 5, -6, one), 0);
	assert_int_equal(e4_be32(one), JBD2_MAGIC);
	assert_int_equal(one[5], 0x81);
	/* Read-only. */
	assert_int_equal(io_channel_write_blk64(io, 0, 1, one),
			 E4_ERR_READ_ONLY);
	assert_int_equal(io_channel_close(io), 0);
	assert_int_equal(e4_overlay_io_manager->open(e4_overlay_name(ov),
						     IO_FLAG_RW, &io),
			 E4_ERR_READ_ONLY);
	assert_int_equal(e4_overlay_io_manager->open("e4overlay:0x0", 0, &io),
			 EXT2_ET_BAD_DEVICE_NAME);
	assert_int_equal(e4_overlay_io_manager->open(img_path, 0, &io),
			 EXT2_ET_BAD_DEVICE_NAME);
	/* The backing channel kept its own block size. */
	assert_int_equal(img->block_size, BS);
	e4_overlay_free(ov);
	io_channel_close(img);
	io_channel_close(src);
}

/* ext2fs_open2() through the overlay sees an overlaid superblock. */
static void test_open_fs(void **state)
{
	struct ext2_super_block param;
	ext2_filsys fs;
	io_channel src, img;
	e4_overlay_t ov;
	struct e4_copy ent = { .fsblk = 0, .src_blk = 0 };
	struct e4_state st;
	unsigned char blk[BS];
	FILE *f;

	(void)state;
	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, 1024);
	param.s_log_block_size = 2;	/* 4 KiB */
	assert_int_equal(ext2fs_initialize(img_path, EXT2_FLAG_64BITS, &param,
					   unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_allocate_tables(fs), 0);
	strcpy((char *)fs->super->s_volume_name, "image");
	assert_int_equal(ext2fs_close_free(&fs), 0);
	/* The source holds block 0 with another volume name. */
	f = fopen(img_path, "rb");
	assert_int_equal(fread(blk, BS, 1, f), 1);
	fclose(f);
	memcpy(blk + 1024 + offsetof(struct ext2_super_block, s_volume_name),
	       "overlaid", 9);
	f = fopen(src_path, "r+b");
	assert_int_equal(fwrite(blk, BS, 1, f), 1);
	fclose(f);

	assert_int_equal(unix_io_manager->open(src_path, 0, &src), 0);
	assert_int_equal(io_channel_set_blksize(src, BS), 0);
	img = open_img();
	hand_state(&st, &ent, 1);
	assert_int_equal(e4_overlay_create(img, src, BS, NBLK, &st, &ov), 0);
	assert_int_equal(e4_overlay_open_fs(ov, 0, &fs), 0);
	assert_string_equal((char *)fs->super->s_volume_name, "overlaid");
	assert_int_equal(ext2fs_blocks_count(fs->super), 1024);
	assert_int_equal(ext2fs_close_free(&fs), 0);
	/* The state emptied (as a state set back to S_0): the image. */
	st.n = 0;
	assert_int_equal(e4_overlay_open_fs(ov, 0, &fs), 0);
	assert_string_equal((char *)fs->super->s_volume_name, "image");
	ext2fs_close_free(&fs);
	e4_overlay_free(ov);
	/* Without a state: the image as it is. */
	assert_int_equal(e4_overlay_create(img, NULL, BS, 0, NULL, &ov), 0);
	assert_int_equal(e4_overlay_open_fs(ov, 0, &fs), 0);
	assert_string_equal((char *)fs->super->s_volume_name, "image");
	ext2fs_close_free(&fs);
	e4_overlay_free(ov);
	assert_int_equal(e4_overlay_create(NULL, src, BS, 0, NULL, &ov),
			 EXT2_ET_INVALID_ARGUMENT);
	io_channel_close(img);
	io_channel_close(src);
}

/* S_k of a fresh plan of @scan, advanced from S_0 (S_n when k is past
 * the window and more than one step away: from plan->final). */
static size_t map_at(struct e4_journal *jr, struct e4_jscan *scan, size_t k,
		     struct e4_plan **p, struct e4_state *st)
{
	assert_int_equal(e4_plan_build(jr, scan, p), 0);
	assert_int_equal(e4_state_init(*p, st), 0);
	assert_int_equal(e4_state_seek(st, k), 0);
	return st->n;
}

static void map_done(struct e4_plan *p, struct e4_state *st)
{
	e4_state_free(st);
	e4_plan_free(p);
}

/* The S_k map: tags/revokes of a hand-built scan, identity journal map
 * jblk j -> fs block 100 + j. */
static void test_map_state(void **state)
{
	struct ext2_super_block sb;
	struct struct_ext2_filsys fsx;
	struct e4_journal jr;
	struct e4_jmap_run run = { .jblk = 0, .pblk = 100, .len = 50 };
	struct e4_jtag t1[] = {
		{ .fsblk = 10, .jblk = 1, .csum_ok = 1 },
		{ .fsblk = 11, .jblk = 2, .csum_ok = 1 },
		{ .fsblk = 13, .jblk = 3, .csum_ok = 0 },	/* bad csum */
		/* journal block 20, past the window (jblocks 1-11): written,
		 * as the kernel writes it */
		{ .fsblk = 120, .jblk = 5, .csum_ok = -1 },
	};
	struct e4_jtag t2[] = {
		{ .fsblk = 12, .jblk = 7, .csum_ok = 1 },
		{ .fsblk = 14, .jblk = 8, .csum_ok = 1,
		  .flags = JBD2_FLAG_ESCAPE },
	};
	struct e4_jtag t3[] = { { .fsblk = 10, .jblk = 10, .csum_ok = 1 } };
	blk64_t r2[] = { 10, 14 };
	struct e4_jtrans tr[3];
	struct e4_jscan scan;
	struct e4_plan *p;
	struct e4_state st, st2;
	struct e4_copy *e;
	size_t n, i;

	(void)state;
	memset(&sb, 0, sizeof(sb));
	ext2fs_blocks_count_set(&sb, 1000);
	memset(&fsx, 0, sizeof(fsx));
	fsx.super = &sb;
	memset(&jr, 0, sizeof(jr));
	jr.fs = &fsx;
	jr.runs = &run;
	jr.nruns = 1;
	jr.real_len = 50;
	memset(tr, 0, sizeof(tr));
	tr[0].tid = 7; tr[0].tags = t1; tr[0].ntags = 4; tr[0].last_jblk = 6;
	tr[1].tid = 8; tr[1].tags = t2; tr[1].ntags = 2;
	tr[1].revokes = r2; tr[1].nrevokes = 2;
	tr[1].last_jblk = 9;
	tr[2].tid = 9; tr[2].tags = t3; tr[2].ntags = 1; tr[2].last_jblk = 11;
	memset(&scan, 0, sizeof(scan));
	scan.trans = tr;
	scan.ntrans = scan.ncommitted = 3;
	scan.start_jblk = scan.log_first = 1;
	scan.log_end = 50;

	/* S_1: 10, 11 and the journal block 120 from T1; bad csum left out. */
	n = map_at(&jr, &scan, 1, &p, &st);
	e = st.ents;
	assert_int_equal(n, 3);
	assert_int_equal(e[0].fsblk, 10);
	assert_int_equal(e[0].src_blk, 101);
	assert_int_equal(e[0].tid, 7);
	assert_int_equal(e[1].fsblk, 11);
	assert_int_equal(e[2].fsblk, 120);
	assert_int_equal(e[2].src_blk, 105);
	map_done(p, &st);
	/* S_2: T2's revoke of 10 cancels T1's copy, and of 14 its own. */
	n = map_at(&jr, &scan, 2, &p, &st);
	e = st.ents;
	assert_int_equal(n, 3);
	assert_int_equal(e[0].fsblk, 11);
	assert_int_equal(e[1].fsblk, 12);
	assert_int_equal(e[1].src_blk, 107);
	assert_int_equal(e[2].fsblk, 120);
	map_done(p, &st);
	/* S_3: T3 logs 10 again, after the revoke: replayed.  Sorted. */
	n = map_at(&jr, &scan, 3, &p, &st);
	e = st.ents;
	assert_int_equal(n, 4);
	assert_int_equal(e[0].fsblk, 10);
	assert_int_equal(e[0].src_blk, 110);
	assert_int_equal(e[0].tid, 9);
	assert_int_equal(e[1].fsblk, 11);
	assert_int_equal(e[2].fsblk, 12);
	assert_int_equal(e[3].fsblk, 120);
	map_done(p, &st);
	/* The window's fates, and S_n advanced step by step equals S_n built
	 * at once from the plan's winners. */
	n = map_at(&jr, &scan, 3, &p, &st);
	assert_int_equal(t1[0].fate, E4_TAG_REVOKED);	/* T2 revokes 10 */
	assert_int_equal(t1[1].fate, E4_TAG_REPLAY);
	assert_int_equal(t1[2].fate, E4_TAG_BAD_CSUM);
	assert_int_equal(t1[3].fate, E4_TAG_REPLAY);
	assert_int_equal(t2[0].fate, E4_TAG_REPLAY);
	assert_int_equal(t2[1].fate, E4_TAG_REVOKED);	/* its own revoke */
	assert_int_equal(t3[0].fate, E4_TAG_REPLAY);
	assert_int_equal(p->nfinal, 4);
	assert_int_equal(p->res.nrevoked, 2);
	assert_int_equal(p->res.nbad_csum, 1);
	assert_int_equal(p->res.nbad_block, 0);
	assert_int_equal(e4_state_init(p, &st2), 0);
	assert_int_equal(e4_state_seek(&st2, 9), 0);
	assert_int_equal(st2.k, 3);
	assert_int_equal(st2.n, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(st2.ents[i].fsblk, st.ents[i].fsblk);
		assert_int_equal(st2.ents[i].src_blk, st.ents[i].src_blk);
		assert_int_equal(st2.ents[i].tid, st.ents[i].tid);
	}
	assert_int_equal(e4_state_advance(&st2), EXT2_ET_INVALID_ARGUMENT);
	/* Back to S_1 restarts from S_0. */
	assert_int_equal(e4_state_seek(&st2, 1), 0);
	assert_int_equal(st2.n, 3);
	e4_state_free(&st2);
	map_done(p, &st);
	/* k past the committed ones is clamped. */
	n = map_at(&jr, &scan, 9, &p, &st);
	e = st.ents;
	assert_int_equal(n, 4);
	map_done(p, &st);
	/* Escaped flag carried (without the revoke of 14). */
	tr[1].nrevokes = 1;
	n = map_at(&jr, &scan, 2, &p, &st);
	e = st.ents;
	assert_int_equal(n, 4);
	assert_int_equal(e[2].fsblk, 14);
	assert_int_equal(e[2].flags, E4_COPY_ESCAPED);
	map_done(p, &st);
	/* A later tag of the same block in one transaction wins. */
	t2[1].fsblk = 12;
	n = map_at(&jr, &scan, 2, &p, &st);
	e = st.ents;
	assert_int_equal(n, 3);
	assert_int_equal(e[1].fsblk, 12);
	assert_int_equal(e[1].src_blk, 108);
	map_done(p, &st);
	/* A copy the kernel's recovery fails on (plan.c): past the device
	 * end (no device name: the fs's 1000 blocks), or journal block 8,
	 * written at jblock 1 and read later (jblocks 1-11): the plan sets
	 * scan->fail, an event names the tag, nothing is committed. */
	for (i = 0; i < 2; i++) {
		t1[0].fsblk = i ? 108 : 1000;
		scan.fail = 0;
		scan.ncommitted = 3;
		assert_int_equal(e4_plan_build(&jr, &scan, &p), 0);
		assert_int_equal(scan.fail, E4_ERR_BAD_TAG_BLOCK);
		assert_int_equal(p->ntx, 0);
		assert_int_equal(p->nfinal, 0);
		assert_int_equal(scan.ncommitted, 0);
		assert_int_equal(scan.nevents, i + 1);
		assert_int_equal(scan.events[i].kind, E4_SCAN_BAD_TAG_BLOCK);
		assert_int_equal(scan.events[i].tid, 7);
		assert_int_equal(scan.events[i].jblk, 1);
		e4_plan_free(p);
	}
	ext2fs_free_mem(&scan.events);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_fs, setup, teardown),
		cmocka_unit_test(test_map_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
