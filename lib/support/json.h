/*
 * json.h --- the JSON writer of every --json report of the e4tools
 * programs and e4debug commands (lib/support/json.c): one document on a
 * FILE, two-space indented (--json=lines: compact, one line), keys in the
 * order written.  Every top-level object starts with "tool" (the program's
 * name) and "version" (e4_version()).
 *
 * Strings (file names, paths, messages) are UTF-8: a string that is valid
 * UTF-8 (RFC 3629) is written as it is, with controls escaped (\n, \t,
 * \u00XX) and U+2028, U+2029 as \u2028, \u2029.  A string holding bytes
 * that are not valid UTF-8 is written with U+FFFD for each such byte and,
 * when it is an object member "KEY", followed by a member "KEY_raw" in
 * which every byte >= 0x80 is \u00XX: the code points of KEY_raw are the
 * bytes of the name (Python: v["KEY_raw"].encode("latin-1")).  So a
 * reader takes KEY_raw when present, else KEY encoded as UTF-8.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_JSON_H
#define E4_SUPPORT_JSON_H

#include <stdio.h>
#include <stdint.h>

struct e4s_json {
	FILE	*f;
	int	depth;
	int	nested;		/* this document nests in a held one */
	int	held;		/* this document was held open */
	int	need_comma[64];
};

/* e4s_json_set_lines() - 1: every document on one line (--json=lines),
 * 0: indented (--json); for the whole program. */
void e4s_json_set_lines(int lines);

/*
 * e4s_json_hold() - the next document written on @f is not ended but held
 * open, so that the one after it nests in it as member @key (a string
 * that outlives the call); the nested document's end ends both: one
 * document per run (e4replay --check-order -o: the replay nests in the
 * check).  e4s_json_release() ends a held document no other one joined
 * (and forgets a hold no document used).
 */
void e4s_json_hold(FILE *f, const char *key);
void e4s_json_release(FILE *f);

/* e4s_json_utf8_valid() - 1 if @s is well-formed UTF-8 (RFC 3629). */
int e4s_json_utf8_valid(const char *s);

/*
 * e4s_text_escape() - @s made safe for a terminal, into @buf (@len bytes,
 * truncated at a whole character, always NUL-terminated); returns @buf.
 * Printable ASCII and valid UTF-8 pass through; a control byte (below
 * 0x20, 0x7f), a C1 control (U+0080..U+009F), a byte of invalid UTF-8
 * and the backslash become \xHH (a newline is \x0a), so a newline
 * cannot split a line and an ESC sequence never reaches the terminal.  Text output only: JSON keeps names exact (KEY_raw).
 */
#define E4S_TEXT_ESC_MAX(n)	(4 * (n) + 1)	/* room for any @s of n bytes */
const char *e4s_text_escape(const char *s, char *buf, size_t len);

/* Start a document on @f (nesting up to 63 levels). */
void e4s_json_init(struct e4s_json *js, FILE *f);
/* Begin an object or array; @key is NULL inside arrays or at top level. */
void e4s_json_obj_begin(struct e4s_json *js, const char *key);
void e4s_json_obj_end(struct e4s_json *js);
void e4s_json_arr_begin(struct e4s_json *js, const char *key);
void e4s_json_arr_end(struct e4s_json *js);
void e4s_json_str(struct e4s_json *js, const char *key, const char *val);
void e4s_json_u64(struct e4s_json *js, const char *key, uint64_t val);
void e4s_json_i64(struct e4s_json *js, const char *key, int64_t val);
/* A number rounded to @decimals places, trailing zeros dropped ("6",
 * "0.25"); null for NaN or an infinity. */
void e4s_json_double(struct e4s_json *js, const char *key, double val,
		     int decimals);
void e4s_json_bool(struct e4s_json *js, const char *key, int val);
void e4s_json_null(struct e4s_json *js, const char *key);
/* Values: @key is NULL inside arrays; strings as said above (an invalid
 * string in an array gets no _raw twin: U+FFFD only). */
/* Finish the document with a newline. */
void e4s_json_finish(struct e4s_json *js);

#endif
