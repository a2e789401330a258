/*
 * test_replayed.c --- unit tests of replayed.c: the replayed state S_n of
 * a bundled kernel crash image (tests/images/ordered-fallocate-convert:
 * 5 committed transactions; file g, inode 14, exists only once they are
 * replayed), read-only and without writing the image; a fs without a
 * journal opens as itself; live fast commits are replayed on top (in
 * memory); a missing external journal is refused.
 */
#include "unit.h"
#include <stdio.h>
#include <unistd.h>

static char path[64];

/* Unpack tests/images/@name.img.gz to a temporary file (path[]). */
static void unpack(const char *name)
{
	const char *dir = getenv("IMAGES");
	char cmd[512];
	int fd;

	strcpy(path, "/tmp/e4rep-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "gzip -dc %s/%s.img.gz > %s",
		 dir ? dir : "tests/images", name, path);
	assert_int_equal(system(cmd), 0);
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static char *slurp(const char *p, long *len)
{
	FILE *f = fopen(p, "rb");
	char *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), (size_t)*len);
	fclose(f);
	return buf;
}

static void test_state_n(void **state)
{
	struct e4_replayed r;
	struct ext2_inode in0, in;
	ext2_filsys fs;
	char *before, *after, blk[4096];
	long n0, n1;

	(void)state;
	unpack("ordered-fallocate-convert");
	before = slurp(path, &n0);
	assert_int_equal(ext2fs_open2(path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	assert_int_equal(e4_replayed_open(fs, NULL, &r), 0);
	assert_non_null(r.j);
	assert_non_null(r.fs);
	assert_int_equal(r.scan->ncommitted, 5);	/* .info: commits=5 */
	assert_int_equal(r.fs->blocksize, fs->blocksize);
	/* g (inode 14) is written by the journal only. */
	assert_int_equal(ext2fs_read_inode(fs, 14, &in0), 0);
	assert_false(in0.i_flags & EXT4_EXTENTS_FL);
	assert_int_equal(ext2fs_read_inode(r.fs, 14, &in), 0);
	assert_true(in.i_flags & EXT4_EXTENTS_FL);
	assert_int_equal(EXT2_I_SIZE(&in), 1032192);	/* 1 MiB - 16 KiB */
	/* Read-only: the state cannot be written. */
	memset(blk, 0, sizeof(blk));
	assert_int_not_equal(io_channel_write_blk64(r.fs->io, 100, 1, blk),
			     0);
	assert_int_not_equal(ext2fs_write_inode(r.fs, 14, &in), 0);
	e4_replayed_close(&r);
	assert_null(r.fs);
	e4_replayed_close(&r);		/* a closed one is fine */
	ext2fs_close_free(&fs);
	after = slurp(path, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(before);
	free(after);
}

static void test_no_journal(void **state)
{
	struct ext2_super_block param;
	struct e4_replayed r;
	ext2_filsys fs;
	int fd;

	(void)state;
	strcpy(path, "/tmp/e4rep-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, 1024);
	param.s_log_block_size = 2;	/* 4 KiB */
	assert_int_equal(ext2fs_initialize(path, EXT2_FLAG_64BITS, &param,
					   unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_allocate_tables(fs), 0);
	strcpy((char *)fs->super->s_volume_name, "nojournal");
	assert_int_equal(ext2fs_close_free(&fs), 0);
	assert_int_equal(ext2fs_open2(path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	assert_int_equal(e4_replayed_open(fs, NULL, &r), 0);
	assert_null(r.j);
	assert_string_equal((char *)r.fs->super->s_volume_name, "nojournal");
	assert_int_equal(ext2fs_blocks_count(r.fs->super), 1024);
	e4_replayed_close(&r);
	ext2fs_close_free(&fs);
}

/* @name opens but e4_replayed_open() fails with @want, leaving @r clear. */
static void refused(const char *name, errcode_t want)
{
	struct e4_replayed r;
	ext2_filsys fs;

	unpack(name);
	assert_int_equal(ext2fs_open2(path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	assert_int_equal(e4_replayed_open(fs, NULL, &r), want);
	assert_null(r.fs);
	assert_null(r.j);
	assert_null(r.ov);
	ext2fs_close_free(&fs);
}

/*
 * The fast commits of tid 10 are replayed on top of S_n, in memory: inode
 * 19 ("new", 20000 bytes, created and fsynced after the last full commit)
 * exists only then; the image is not written and the state is read-only.
 */
static void test_fast_commit(void **state)
{
	struct e4_replayed r;
	struct ext2_inode in;
	ext2_ino_t ino;
	ext2_filsys fs;
	char *before, *after;
	long n0, n1;

	(void)state;
	unpack("fast-commit");
	before = slurp(path, &n0);
	assert_int_equal(ext2fs_open2(path, NULL, EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs), 0);
	assert_int_equal(ext2fs_read_inode(fs, 19, &in), 0);
	assert_int_equal(in.i_links_count, 0);
	assert_int_equal(e4_replayed_open(fs, NULL, &r), 0);
	assert_non_null(r.fcst);
	assert_int_equal(r.scan->fc->nfc, 11);
	assert_int_equal(ext2fs_namei(r.fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				      "fc/new", &ino), 0);
	assert_int_equal(ino, 19);
	assert_int_equal(ext2fs_read_inode(r.fs, 19, &in), 0);
	assert_int_equal(in.i_links_count, 1);
	assert_int_equal(EXT2_I_SIZE(&in), 20000);
	assert_int_equal(ext2fs_read_inode(r.fs, 13, &in), 0);
	assert_int_equal(EXT2_I_SIZE(&in), 22000);	/* 40 appends */
	assert_int_not_equal(ext2fs_write_inode(r.fs, 13, &in), 0);
	e4_replayed_close(&r);
	ext2fs_close_free(&fs);
	after = slurp(path, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(before);
	free(after);
}

static void test_ext_journal(void **state)
{
	(void)state;
	refused("ext-journal", E4_ERR_EXT_JOURNAL_NEEDED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_state_n, teardown),
		cmocka_unit_test_teardown(test_no_journal, teardown),
		cmocka_unit_test_teardown(test_fast_commit, teardown),
		cmocka_unit_test_teardown(test_ext_journal, teardown),
	};

	add_error_table(&et_e4_error_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
