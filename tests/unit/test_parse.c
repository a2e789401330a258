/*
 * test_parse.c --- unit tests of lib/support/parse.c and options.c: the
 * one number parser (decimal, 0x hex, a leading 0 decimal; signs,
 * overflow, empty refused), tids, sizes, ranges, option words, and the
 * option table filling a request; the escaping of names and labels for
 * text output (json.c e4s_text_escape()).
 */
#include "unit.h"
#include "json.h"
#include "options.h"
#include "parse.h"

static int scan(const char *s, uint64_t max, uint64_t *v)
{
	return e4s_scan_num(s, strlen(s), max, v);
}

static void test_numbers(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(scan("010", UINT64_MAX, &v), E4S_NUM_OK);
	assert_int_equal(v, 10);			/* not octal */
	assert_int_equal(scan("0377", UINT64_MAX, &v), E4S_NUM_OK);
	assert_int_equal(v, 377);
	assert_int_equal(scan("0x1F", UINT64_MAX, &v), E4S_NUM_OK);
	assert_int_equal(v, 31);
	assert_int_equal(scan("0", UINT64_MAX, &v), E4S_NUM_OK);
	assert_int_equal(v, 0);
	assert_int_equal(scan("18446744073709551615", UINT64_MAX, &v),
			 E4S_NUM_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(scan("18446744073709551616", UINT64_MAX, &v),
			 E4S_NUM_RANGE);			/* 2^64 */
	assert_int_equal(scan("0x10000000000000000", UINT64_MAX, &v),
			 E4S_NUM_RANGE);
	assert_int_equal(scan("4294967296", UINT32_MAX, &v), E4S_NUM_RANGE);
	assert_int_equal(scan("-1", UINT64_MAX, &v), E4S_NUM_NEGATIVE);
	assert_int_equal(scan("", UINT64_MAX, &v), E4S_NUM_SYNTAX);
	assert_int_equal(scan("0x", UINT64_MAX, &v), E4S_NUM_SYNTAX);
	assert_int_equal(scan("+1", UINT64_MAX, &v), E4S_NUM_SYNTAX);
	assert_int_equal(scan(" 1", UINT64_MAX, &v), E4S_NUM_SYNTAX);
	assert_int_equal(scan("1k", UINT64_MAX, &v), E4S_NUM_SYNTAX);
	assert_int_equal(scan("08", UINT64_MAX, &v), E4S_NUM_OK);
	assert_int_equal(v, 8);
	assert_int_equal(scan("9x", UINT64_MAX, &v), E4S_NUM_SYNTAX);
	assert_int_equal(scan("-", UINT64_MAX, &v), E4S_NUM_SYNTAX);
	/* A length bounds the scan: "12" of "123". */
	assert_int_equal(e4s_scan_num("123", 2, UINT64_MAX, &v), E4S_NUM_OK);
	assert_int_equal(v, 12);
}

static void test_parsers(void **state)
{
	uint64_t a, b;
	uint32_t tid;
	int w;

	(void)state;
	assert_int_equal(e4s_parse_tid("t", "--upto", "010", &tid), 0);
	assert_int_equal(tid, 10);
	assert_int_equal(e4s_parse_tid("t", "--upto", "4294967296", &tid), -1);
	assert_int_equal(e4s_parse_tid("t", "--upto", "-1", &tid), -1);
	assert_int_equal(e4s_parse_size("t", "-s", "4K", &a), 0);
	assert_int_equal(a, 4096);
	assert_int_equal(e4s_parse_size("t", "-s", "0x10M", &a), 0);
	assert_int_equal(a, 16 << 20);
	assert_int_equal(e4s_parse_size("t", "-s", "K", &a), -1);
	assert_int_equal(e4s_parse_size("t", "-s", "99999999999999999G", &a),
			 -1);
	assert_int_equal(e4s_parse_range("t", "range", "3-5", &a, &b), 0);
	assert_true(a == 3 && b == 5);
	assert_int_equal(e4s_parse_range("t", "range", "7", &a, &b), 0);
	assert_true(a == 7 && b == 7);
	assert_int_equal(e4s_parse_range("t", "range", "5-3", &a, &b), -1);
	assert_int_equal(e4s_parse_range("t", "range", "-1", &a, &b), -1);
	assert_int_equal(e4s_parse_range("t", "range", "1-", &a, &b), -1);
	assert_int_equal(e4s_parse_word("t", "--data-mode", "journal",
					e4s_data_mode_words, &w), 0);
	assert_int_equal(w, E4_DATA_JOURNAL);
	assert_int_equal(e4s_parse_word("t", "--outside", "maybe",
					e4s_auto_yes_no_words, &w), -1);
}

static void test_getopt(void **state)
{
	static const int accept[] = { 'n', 'o', E4S_O_UPTO, E4S_O_JSON,
				      E4S_O_MARK_UNWRITTEN, 0 };
	char a0[] = "prog", a1[] = "--upto", a2[] = "010", a3[] = "-n",
	     a4[] = "img", a5[] = "--mark-unwritten", a6[] = "a:b:0x10:3",
	     a7[] = "--json";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, NULL };
	char b1[] = "-v", *bad[] = { a0, b1, a4, NULL };
	char c1[] = "--upto=1x", *badval[] = { a0, c1, a4, NULL };
	struct e4s_req r;
	int first;

	(void)state;
	e4s_req_init(&r);
	first = e4s_getopt("t", 8, argv, accept, &r);
	assert_int_equal(first, 7);		/* operands permuted last */
	assert_string_equal(argv[first], "img");
	assert_true(r.upto_set && r.upto == 10 && r.order.has_upto &&
		    r.order.upto == 10);
	assert_true(r.dry_run && r.json && r.uw_nmarks == 1);
	assert_string_equal(r.uw_marks[0].file, "a:b");
	assert_true(r.uw_marks[0].lblk == 16 && r.uw_marks[0].len == 3);
	assert_int_equal(r.order.outside, -1);	/* unset */
	e4s_req_init(&r);
	assert_int_equal(e4s_getopt("t", 3, bad, accept, &r),
			 E4S_GETOPT_USAGE);
	e4s_req_init(&r);
	assert_int_equal(e4s_getopt("t", 3, badval, accept, &r),
			 E4S_GETOPT_BAD);
}

/* Controls, C1 controls, invalid UTF-8 and '\\' as \xHH; the rest passes;
 * a short buffer cuts at a whole character. */
static void test_text_escape(void **state)
{
	char buf[E4S_TEXT_ESC_MAX(32)], small[8];

	(void)state;
	assert_string_equal(e4s_text_escape("/d/f 1.txt", buf, sizeof(buf)),
			    "/d/f 1.txt");
	assert_string_equal(e4s_text_escape("a\nb", buf, sizeof(buf)),
			    "a\\x0ab");
	assert_string_equal(e4s_text_escape("\x1b[2J\x7f", buf, sizeof(buf)),
			    "\\x1b[2J\\x7f");
	assert_string_equal(e4s_text_escape("x\\y", buf, sizeof(buf)),
			    "x\\x5cy");
	/* valid UTF-8 passes; C1 CSI (U+009B), a lone 0xff, a truncated
	 * sequence and an overlong form do not */
	assert_string_equal(e4s_text_escape("\xc3\xa9\xe2\x82\xac", buf,
					    sizeof(buf)),
			    "\xc3\xa9\xe2\x82\xac");
	assert_string_equal(e4s_text_escape("\xc2\x9b\xff\xe2\x82", buf,
					    sizeof(buf)),
			    "\\xc2\\x9b\\xff\\xe2\\x82");
	assert_string_equal(e4s_text_escape("\xc0\xaf", buf, sizeof(buf)),
			    "\\xc0\\xaf");
	assert_string_equal(e4s_text_escape("ab\ncd", small, sizeof(small)),
			    "ab\\x0ac");
	assert_string_equal(e4s_text_escape("abcdefgh", small, sizeof(small)),
			    "abcdefg");
	assert_string_equal(e4s_text_escape("", buf, sizeof(buf)), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_escape),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_getopt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
