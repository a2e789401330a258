/*
 * json.c --- the small JSON writer of every --json report (see json.h).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"

void e4s_json_init(struct e4s_json *js, FILE *f)
{
	memset(js, 0, sizeof(*js));
	js->f = f;
}

static void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void json_key(struct e4s_json *js, const char *key)
{
	if (js->need_comma[js->depth])
		fputc(',', js->f);
	js->need_comma[js->depth] = 1;
	if (js->depth) {
		fputc('\n', js->f);
		fprintf(js->f, "%*s", 2 * js->depth, "");
	}
	if (key) {
		json_string(js->f, key);
		fputs(": ", js->f);
	}
}

static void json_open(struct e4s_json *js, const char *key, char c)
{
	json_key(js, key);
	fputc(c, js->f);
	if (js->depth < 63)
		js->depth++;
	js->need_comma[js->depth] = 0;
}

static void json_close(struct e4s_json *js, char c)
{
	int had = js->need_comma[js->depth];

	if (js->depth)
		js->depth--;
	if (had) {
		fputc('\n', js->f);
		fprintf(js->f, "%*s", 2 * js->depth, "");
	}
	fputc(c, js->f);
}

void e4s_json_obj_begin(struct e4s_json *js, const char *key)
{
	json_open(js, key, '{');
}

void e4s_json_obj_end(struct e4s_json *js)
{
	json_close(js, '}');
}

void e4s_json_arr_begin(struct e4s_json *js, const char *key)
{
	json_open(js, key, '[');
}

void e4s_json_arr_end(struct e4s_json *js)
{
	json_close(js, ']');
}

void e4s_json_str(struct e4s_json *js, const char *key, const char *val)
{
	json_key(js, key);
	json_string(js->f, val ? val : "");
}

void e4s_json_u64(struct e4s_json *js, const char *key, uint64_t val)
{
	json_key(js, key);
	fprintf(js->f, "%" PRIu64, val);
}

void e4s_json_i64(struct e4s_json *js, const char *key, int64_t val)
{
	json_key(js, key);
	fprintf(js->f, "%" PRId64, val);
}

void e4s_json_bool(struct e4s_json *js, const char *key, int val)
{
	json_key(js, key);
	fputs(val ? "true" : "false", js->f);
}

void e4s_json_null(struct e4s_json *js, const char *key)
{
	json_key(js, key);
	fputs("null", js->f);
}

void e4s_json_finish(struct e4s_json *js)
{
	fputc('\n', js->f);
}
