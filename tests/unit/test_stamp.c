/*
 * test_stamp.c --- unit tests of stamp.c: the pattern byte by byte, the
 * fill at any offset, the stale predicate and the counts.
 */
#include "unit.h"

static void test_unit_layout(void **state)
{
	uint8_t u[1024];
	int i;

	(void)state;
	e4_stamp_unit(u, 0x0102030405060708ULL);
	assert_memory_equal(u, "E4JSTALE", 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(u[8 + i], 8 - i);	/* little-endian */
	for (i = 16; i < 1024; i++)
		assert_int_equal(u[i], 0xA5);
	assert_int_equal(e4_stamp_unit_is_stale(u, 0x0102030405060708ULL), 1);
	assert_int_equal(e4_stamp_unit_is_stale(u, 0x0102030405060709ULL), 0);
}

static void test_fill_any_offset(void **state)
{
	uint8_t whole[8192], part[5000];
	uint64_t base = 1024ULL * 77;

	(void)state;
	e4_stamp_fill(whole, base, sizeof(whole));
	/* A fill starting mid-unit equals the matching slice of the whole. */
	e4_stamp_fill(part, base + 1500, sizeof(part));
	assert_memory_equal(part, whole + 1500, sizeof(part));
	e4_stamp_fill(part, base + 3, 5);
	assert_memory_equal(part, "STALE", 5);
	e4_stamp_fill(part, base + 8, 1);
	assert_int_equal(part[0], 77);
}

static void test_count(void **state)
{
	uint8_t b[4096];

	(void)state;
	/* A 4 KiB block 10 of a stamped device: 4 units, all stale. */
	e4_stamp_fill(b, 10 * 4096, sizeof(b));
	assert_int_equal(e4_stamp_units(10 * 4096, sizeof(b)), 4);
	assert_int_equal(e4_stamp_count_stale(b, 10 * 4096, sizeof(b)), 4);
	assert_int_equal(e4_stamp_block_stale(b, 10, 4096), 4);
	/* The same bytes seen as another block: not its own stamp. */
	assert_int_equal(e4_stamp_block_stale(b, 11, 4096), 0);
	/* Partly written: one unit overwritten, one byte of index changed. */
	memset(b, 'x', 1024);
	b[2048 + 8] ^= 1;
	assert_int_equal(e4_stamp_block_stale(b, 10, 4096), 2);
	/* Tail bytes 16.. of a unit do not matter. */
	e4_stamp_fill(b, 10 * 4096, sizeof(b));
	memset(b + 16, 0, 1008);
	assert_int_equal(e4_stamp_block_stale(b, 10, 4096), 4);
	/* Unaligned range: only units starting inside count. */
	assert_int_equal(e4_stamp_units(100, 2048), 2);
	assert_int_equal(e4_stamp_units(100, 1000), 1);
	assert_int_equal(e4_stamp_units(100, 930), 0);
	/* Zero predicate. */
	memset(b, 0, sizeof(b));
	assert_int_equal(e4_block_is_zero(b, sizeof(b)), 1);
	b[4095] = 1;
	assert_int_equal(e4_block_is_zero(b, sizeof(b)), 0);
	assert_int_equal(e4_stamp_block_stale(b, 10, 4096), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_layout),
		cmocka_unit_test(test_fill_any_offset),
		cmocka_unit_test(test_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
