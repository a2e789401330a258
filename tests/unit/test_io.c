/*
 * test_io.c --- unit tests of the memory and fault-injecting io_managers:
 * a file system made in memory by libext2fs, copy-on-write reset, and
 * failing the K-th write.
 */
#include "unit.h"

#define IMG_SIZE (4U << 20)

/* Make a 4 MiB ext4 (4 KiB blocks, no journal) in @m through libext2fs. */
static void make_fs(struct e4_memimg *m)
{
	struct ext2_super_block param;
	ext2_filsys fs;

	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, IMG_SIZE / 4096);
	param.s_log_block_size = 2;
	assert_int_equal(ext2fs_initialize(m->name, EXT2_FLAG_64BITS, &param,
					   e4_mem_io_manager, &fs), 0);
	assert_int_equal(ext2fs_allocate_tables(fs), 0);
	assert_int_equal(ext2fs_mkdir(fs, EXT2_ROOT_INO, 0, 0), 0);
	assert_int_equal(ext2fs_close_free(&fs), 0);
}

static void test_mem_roundtrip(void **state)
{
	struct e4_memimg m;
	ext2_filsys fs;
	unsigned char buf[4096];

	(void)state;
	assert_int_equal(e4_memimg_init(&m, NULL, IMG_SIZE), 0);
	make_fs(&m);
	assert_true(m.nwrites > 0);
	assert_int_equal(ext2fs_open2(m.name, NULL, EXT2_FLAG_64BITS, 0, 0,
				      e4_mem_io_manager, &fs), 0);
	assert_int_equal(ext2fs_blocks_count(fs->super), IMG_SIZE / 4096);
	assert_int_equal(fs->blocksize, 4096);
	assert_int_equal(ext2fs_close_free(&fs), 0);

	/* Reset drops every write: the superblock is gone again. */
	e4_memimg_reset(&m);
	assert_int_equal(m.ndirty, 0);
	assert_int_equal(e4_memimg_pread(&m, 1024, buf, 1024), 0);
	assert_int_equal(buf[56] | buf[57], 0);	/* s_magic */
	assert_int_not_equal(ext2fs_open2(m.name, NULL, 0, 0, 0,
					  e4_mem_io_manager, &fs), 0);
	/* Reads past the end fail. */
	assert_int_equal(e4_memimg_pread(&m, IMG_SIZE - 1, buf, 2),
			 EXT2_ET_SHORT_READ);
	e4_memimg_free(&m);
}

static void test_cow_template(void **state)
{
	struct e4_memimg m;
	unsigned char *base = malloc(3 * 4096 + 100);
	unsigned char buf[8];

	(void)state;
	memset(base, 0x11, 3 * 4096 + 100);
	assert_int_equal(e4_memimg_init(&m, base, 3 * 4096 + 100), 0);
	/* A write straddling pages 0 and 1 copies both, template intact. */
	assert_int_equal(e4_memimg_pwrite(&m, 4092, "ABCDEFGH", 8), 0);
	assert_int_equal(m.ndirty, 2);
	assert_int_equal(base[4092], 0x11);
	assert_int_equal(e4_memimg_pread(&m, 4092, buf, 8), 0);
	assert_memory_equal(buf, "ABCDEFGH", 8);
	/* The short last page. */
	assert_int_equal(e4_memimg_pwrite(&m, 3 * 4096 + 96, "WXYZ", 4), 0);
	assert_int_equal(e4_memimg_pwrite(&m, 3 * 4096 + 97, "WXYZ", 4),
			 EXT2_ET_SHORT_WRITE);
	e4_memimg_reset(&m);
	assert_int_equal(e4_memimg_pread(&m, 4092, buf, 8), 0);
	assert_int_equal(buf[0], 0x11);
	e4_memimg_free(&m);
	free(base);
}

static void test_fault_kth_write(void **state)
{
	struct e4_memimg m;
	struct e4_fault f;
	ext2_filsys fs;
	uint64_t total;

	(void)state;
	assert_int_equal(e4_memimg_init(&m, NULL, IMG_SIZE), 0);
	make_fs(&m);

	/* Count the writes of one superblock update ... */
	e4_fault_init(&f, e4_mem_io_manager, m.name);
	assert_int_equal(ext2fs_open2(f.name, NULL, EXT2_FLAG_64BITS |
				      EXT2_FLAG_RW, 0, 0,
				      e4_fault_io_manager, &fs), 0);
	assert_int_equal(f.nwrites, 0);
	/* s_wtime is written with the superblock: fix it, so both runs
	 * change the same superblock bytes and make the same writes
	 * (with time(NULL) the count depended on the clock). */
	fs->now = 0x10001;
	fs->super->s_mnt_count++;
	ext2fs_mark_super_dirty(fs);
	assert_int_equal(ext2fs_close_free(&fs), 0);
	total = f.nwrites;
	assert_true(total > 0);

	/* ... then fail the last of them: close reports the fault. */
	e4_fault_init(&f, e4_mem_io_manager, m.name);
	f.fail_write_at = total;
	assert_int_equal(ext2fs_open2(f.name, NULL, EXT2_FLAG_64BITS |
				      EXT2_FLAG_RW, 0, 0,
				      e4_fault_io_manager, &fs), 0);
	fs->now = 0x20002;
	fs->super->s_mnt_count++;
	ext2fs_mark_super_dirty(fs);
	assert_int_equal(ext2fs_close_free(&fs), E4_ERR_IO_FAULT);

	/* A failing first read makes the open fail. */
	e4_fault_init(&f, e4_mem_io_manager, m.name);
	f.fail_read_at = 1;
	assert_int_equal(ext2fs_open2(f.name, NULL, EXT2_FLAG_64BITS, 0, 0,
				      e4_fault_io_manager, &fs),
			 E4_ERR_IO_FAULT);
	e4_memimg_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_roundtrip),
		cmocka_unit_test(test_cow_template),
		cmocka_unit_test(test_fault_kth_write),
	};

	add_error_table(&et_e4_error_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
