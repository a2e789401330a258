/*
 * json.h --- the JSON writer of every --json report of the e4tools
 * programs and e4debug commands (lib/support/json.c): one document on a
 * FILE, two-space indented, keys in the order written.
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
	int	need_comma[64];
};

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
void e4s_json_bool(struct e4s_json *js, const char *key, int val);
void e4s_json_null(struct e4s_json *js, const char *key);
/* Values: @key is NULL inside arrays; strings are escaped (control and
 * non-ASCII bytes as \\u00XX). */
/* Finish the document with a newline. */
void e4s_json_finish(struct e4s_json *js);

#endif
