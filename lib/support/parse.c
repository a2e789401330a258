/*
 * parse.c --- the one parser of command-line numbers and words shared by
 * every e4tools program and e4debug command (see parse.h).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "e4.h"
#include "parse.h"

int e4s_scan_num(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t n = 0, d;
	unsigned int base = 10;
	size_t i = 0;

	if (len && s[0] == '-' && len > 1 && s[1] >= '0' && s[1] <= '9')
		return E4S_NUM_NEGATIVE;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return E4S_NUM_SYNTAX;
	for (; i < len; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (uint64_t)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (uint64_t)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (uint64_t)(c - 'A' + 10);
		else
			return E4S_NUM_SYNTAX;
		if (n > (UINT64_MAX - d) / base)
			return E4S_NUM_RANGE;
		n = n * base + d;
	}
	if (n > max)
		return E4S_NUM_RANGE;
	*v = n;
	return E4S_NUM_OK;
}

/* Print why @s is not a number; returns -1. */
static int bad_num(const char *prog, const char *what, const char *s,
		   int err, uint64_t max)
{
	if (err == E4S_NUM_NEGATIVE)
		fprintf(stderr, "%s: invalid %s '%s': negative\n", prog, what,
			s);
	else if (err == E4S_NUM_RANGE)
		fprintf(stderr, "%s: invalid %s '%s': more than %llu\n", prog,
			what, s, (unsigned long long)max);
	else
		fprintf(stderr, "%s: invalid %s '%s': not a number (decimal, "
			"or hex after 0x)\n", prog, what, s);
	return -1;
}

int e4s_parse_num(const char *prog, const char *what, const char *s,
		  uint64_t max, uint64_t *v)
{
	int err = e4s_scan_num(s, strlen(s), max, v);

	return err ? bad_num(prog, what, s, err, max) : 0;
}

int e4s_parse_tid(const char *prog, const char *what, const char *s,
		  uint32_t *tid)
{
	uint64_t v;

	if (e4s_parse_num(prog, what, s, UINT32_MAX, &v))
		return -1;
	*tid = (uint32_t)v;
	return 0;
}

int e4s_parse_size(const char *prog, const char *what, const char *s,
		   uint64_t *bytes)
{
	size_t len = strlen(s);
	unsigned int shift = 0;
	uint64_t v;
	int err;

	if (len) {
		switch (s[len - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		}
	}
	err = e4s_scan_num(s, len - !!shift, (1ULL << 62) >> shift, &v);
	if (err)
		return bad_num(prog, what, s, err, 1ULL << 62);
	*bytes = v << shift;
	return 0;
}

int e4s_parse_range(const char *prog, const char *what, const char *s,
		    uint64_t *a, uint64_t *b)
{
	const char *dash = strchr(s, '-');
	size_t len = dash ? (size_t)(dash - s) : strlen(s);

	if (e4s_scan_num(s, len, UINT64_MAX, a))
		goto bad;
	*b = *a;
	if (dash && (e4s_scan_num(dash + 1, strlen(dash + 1), UINT64_MAX, b)
		     || *b < *a))
		goto bad;
	return 0;
bad:
	fprintf(stderr, "%s: invalid %s '%s' (want N or N-M)\n", prog, what,
		s);
	return -1;
}

int e4s_parse_word(const char *prog, const char *what, const char *s,
		   const struct e4s_word *words, int *value)
{
	int i;

	for (i = 0; words[i].word; i++)
		if (!strcmp(s, words[i].word)) {
			*value = words[i].value;
			return 0;
		}
	fprintf(stderr, "%s: invalid %s '%s' (", prog, what, s);
	for (i = 0; words[i].word; i++)
		fprintf(stderr, "%s%s", i ? words[i + 1].word ? ", " : " or " :
			"", words[i].word);
	fprintf(stderr, ")\n");
	return -1;
}

const struct e4s_word e4s_data_mode_words[] = {
	{ "auto", E4_DATA_AUTO },
	{ "ordered", E4_DATA_ORDERED },
	{ "journal", E4_DATA_JOURNAL },
	{ "writeback", E4_DATA_WRITEBACK },
	{ NULL, 0 }
};

const struct e4s_word e4s_auto_yes_no_words[] = {
	{ "auto", -1 },
	{ "yes", 1 },
	{ "no", 0 },
	{ NULL, 0 }
};
