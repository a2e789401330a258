/*
 * parse.h --- the one parser of numbers and words given on the command
 * line of every e4tools program and e4debug command (lib/support/parse.c):
 * block numbers, counts, tids, sizes, E4_FAULT counts, and the words of
 * --data-mode, --outside and --stamped.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_PARSE_H
#define E4_SUPPORT_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* What e4s_scan_num() found wrong. */
enum e4s_num_err {
	E4S_NUM_OK = 0,
	E4S_NUM_SYNTAX,		/* empty, a sign, a space, another character */
	E4S_NUM_NEGATIVE,	/* a leading '-' before a digit */
	E4S_NUM_RANGE,		/* more than the caller's maximum */
};

/*
 * e4s_scan_num() - read the @len characters at @s as one unsigned number:
 * decimal, or hex after "0x"/"0X".  A leading 0 is decimal ("010" is ten,
 * not octal eight, as e2fsprogs' parse_num_blocks2() would have it): the
 * tools count blocks and tids, which people write in decimal.  No sign,
 * space or suffix.  Returns E4S_NUM_OK with *@v set (at most @max), or
 * the enum e4s_num_err saying why not; prints nothing.
 */
int e4s_scan_num(const char *s, size_t len, uint64_t max, uint64_t *v);

/*
 * e4s_parse_num() - e4s_scan_num() over the whole string @s, printing on
 * failure the one line "PROG: invalid WHAT 'S': REASON" (@what names the
 * option or argument, e.g. "--upto", "-E num_fc_blks", "LBLK").
 * Returns 0 with *@v set, or -1.
 */
int e4s_parse_num(const char *prog, const char *what, const char *s,
		  uint64_t max, uint64_t *v);

/* e4s_parse_tid() - e4s_parse_num() of a jbd2 tid (32 bits). */
int e4s_parse_tid(const char *prog, const char *what, const char *s,
		  uint32_t *tid);

/*
 * e4s_parse_size() - a byte count: e4s_scan_num() of the digits, then an
 * optional suffix K, M or G (binary, either case), at most 2^62 bytes.
 * Prints "PROG: invalid WHAT 'S': REASON" on failure; returns 0 or -1.
 */
int e4s_parse_size(const char *prog, const char *what, const char *s,
		   uint64_t *bytes);

/*
 * e4s_parse_range() - "N" or "N-M" (N <= M), each by e4s_scan_num()
 * (so "-1" or "N-" is refused); *@a = N, *@b = M (= N alone).  Prints
 * "PROG: invalid WHAT 'S' (want N or N-M)" on failure; returns 0 or -1.
 */
int e4s_parse_range(const char *prog, const char *what, const char *s,
		    uint64_t *a, uint64_t *b);

/* One accepted word of an option and the value it stands for. */
struct e4s_word {
	const char	*word;
	int		value;
};

/*
 * e4s_parse_word() - the value of the word @s among the @words (ended by
 * a NULL word).  On failure prints "PROG: invalid WHAT 'S' (a, b or c)"
 * and returns -1; else 0 with *@value set.
 */
int e4s_parse_word(const char *prog, const char *what, const char *s,
		   const struct e4s_word *words, int *value);

/* The words of --data-mode (enum e4_data_mode) and of --outside and
 * --stamped (-1 auto, 1 yes, 0 no). */
extern const struct e4s_word e4s_data_mode_words[];
extern const struct e4s_word e4s_auto_yes_no_words[];

#endif
