/*
 * test_stats.c --- unit tests of stats.c: median and nearest-rank p90,
 * log2 bucket edges, intervals between consecutive tids only, negative
 * intervals named, shared commit times, garbage times, no transaction.
 */
#include "unit.h"

/* A transaction with @nblocks log blocks, @ntags tags, committed at
 * @sec.@nsec. */
static struct e4_jtrans tx(uint32_t tid, blk64_t nblocks, size_t ntags,
			   uint64_t sec, uint32_t nsec)
{
	struct e4_jtrans t;

	memset(&t, 0, sizeof(t));
	t.tid = tid;
	t.nblocks = nblocks;
	t.ntags = ntags;
	t.ndescriptors = ntags ? 1 : 0;
	t.has_commit = 1;
	t.commit_sec = sec;
	t.commit_nsec = nsec;
	return t;
}

static void test_dist(void **state)
{
	struct e4_jtrans t[10];
	struct e4_jstats *st;
	int i;

	(void)state;
	/* blocks 1..10: median 5.5, p90 = v[ceil(9) - 1] = 9 */
	for (i = 0; i < 10; i++)
		t[i] = tx(100 + i, i + 1, i, 1000, i * 1000000);
	assert_int_equal(e4_jstats_compute(t, 10, 3000, &st), 0);
	assert_int_equal(st->transactions, 10);
	assert_true(st->blocks.median == 5.5);
	assert_true(st->blocks.p90 == 9);
	assert_true(st->blocks.mean == 5.5);
	assert_true(st->blocks.total == 55);
	assert_true(st->tags.min == 0 && st->tags.max == 9);
	assert_int_equal(st->hist_tags.zero, 1);
	assert_int_equal(st->max_txn_blocks, 1000);
	/* 9 intervals of exactly 1 ms */
	assert_int_equal(st->interval_ms.count, 9);
	assert_true(st->interval_ms.min == 1 && st->interval_ms.max == 1);
	assert_int_equal(st->hist_interval.bucket[0], 9);
	assert_true(st->span_seconds == 0.009);
	assert_true(st->commits_per_second > 999.9 &&
		    st->commits_per_second < 1000.1);
	e4_jstats_free(st);
	/* 11 values 0..10: median 5, p90 = v[ceil(9.9) - 1] = v[9] = 9 */
	for (i = 0; i < 10; i++)
		t[i] = tx(100 + i, i, 0, 1000, 0);
	assert_int_equal(e4_jstats_compute(t, 9, 0, &st), 0);
	assert_true(st->blocks.median == 4);
	assert_true(st->blocks.p90 == 8);	/* v[ceil(8.1) - 1] = v[8] */
	e4_jstats_free(st);
}

static void test_buckets(void **state)
{
	static const blk64_t v[] = { 1, 2, 3, 4, 7, 8, 1023, 1024 };
	struct e4_jtrans t[8];
	struct e4_jstats *st;
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++)
		t[i] = tx(i, v[i], 1, 5, 0);
	assert_int_equal(e4_jstats_compute(t, 8, 0, &st), 0);
	assert_int_equal(st->hist_blocks.bucket[0], 1);	/* 1 */
	assert_int_equal(st->hist_blocks.bucket[1], 2);	/* 2, 3 */
	assert_int_equal(st->hist_blocks.bucket[2], 2);	/* 4, 7 */
	assert_int_equal(st->hist_blocks.bucket[3], 1);	/* 8 */
	assert_int_equal(st->hist_blocks.bucket[9], 1);	/* 1023 */
	assert_int_equal(st->hist_blocks.bucket[10], 1);	/* 1024 */
	assert_int_equal(st->hist_blocks.nbuckets, 11);
	/* all at one time: 8 share it, 7 intervals of 0 ms */
	assert_int_equal(st->shared_trans, 8);
	assert_int_equal(st->shared_times, 1);
	assert_int_equal(st->shared_max, 8);
	assert_int_equal(st->hist_interval.zero, 7);
	assert_true(st->span_seconds == 0);
	assert_true(st->commits_per_second == 0);
	assert_true(e4_jstat_bucket_low(10) == 1024);
	e4_jstats_free(st);
}

static void test_negative_and_gaps(void **state)
{
	struct e4_jtrans t[5];
	struct e4_jstats *st;

	(void)state;
	t[0] = tx(7, 3, 1, 100, 0);
	t[1] = tx(8, 3, 1, 102, 500000000);	/* +2500 ms */
	t[2] = tx(9, 3, 1, 101, 0);		/* -1500 ms */
	t[3] = tx(11, 3, 1, 200, 0);		/* tid gap: no interval */
	t[4] = tx(12, 3, 1, 200, 250000);	/* +0.25 ms */
	assert_int_equal(e4_jstats_compute(t, 5, 0, &st), 0);
	assert_int_equal(st->interval_ms.count, 3);
	assert_int_equal(st->nnegative, 1);
	assert_int_equal(st->negative[0].prev_tid, 8);
	assert_int_equal(st->negative[0].tid, 9);
	assert_true(st->negative[0].ms == -1500);
	assert_int_equal(st->hist_interval.negative, 1);
	assert_int_equal(st->hist_interval.below_one, 1);
	assert_int_equal(st->hist_interval.bucket[11], 1);	/* 2500 */
	assert_int_equal(st->points[2].back, 1);
	assert_int_equal(st->points[1].back, 0);
	assert_true(st->interval_ms.min == -1500);
	assert_true(st->interval_ms.max == 2500);
	assert_true(st->span_seconds == 100.00025);
	assert_int_equal(st->intervals_subsecond, 1);
	assert_int_equal(st->intervals_timer, 0);
	assert_int_equal(st->shared_trans, 0);
	e4_jstats_free(st);
}

static void test_odd_times(void **state)
{
	struct e4_jtrans t[2];
	struct e4_jstats *st;

	(void)state;
	/* No times at all (a tool that writes none), and garbage ones. */
	t[0] = tx(1, 2, 0, 0, 0);
	t[1] = tx(2, 2, 0, 0, 0);
	assert_int_equal(e4_jstats_compute(t, 2, 0, &st), 0);
	assert_int_equal(st->all_times_zero, 1);
	e4_jstats_free(st);
	t[0] = tx(1, 2, 0, 7713914941840818176ULL, 0);
	t[1] = tx(2, 2, 0, 1, 0);
	assert_int_equal(e4_jstats_compute(t, 2, 0, &st), 0);
	assert_int_equal(st->all_times_zero, 0);
	assert_int_equal(st->nnegative, 1);
	assert_true(st->span_seconds > 7.7e18);
	e4_jstats_free(st);
	/* None: zeros, no arrays. */
	assert_int_equal(e4_jstats_compute(t, 0, 1024, &st), 0);
	assert_int_equal(st->transactions, 0);
	assert_int_equal(st->blocks.count, 0);
	assert_null(st->points);
	assert_int_equal(st->max_txn_blocks, 341);
	e4_jstats_free(st);
	e4_jstats_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dist),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_negative_and_gaps),
		cmocka_unit_test(test_odd_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
