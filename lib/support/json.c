/*
 * json.c --- the small JSON writer of every --json report (see json.h).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "e4.h"
#include "json.h"

/*
 * How documents are written, for the whole program (set by the --json
 * option, e4s_json_set_lines()), and the document held open by
 * e4s_json_hold() for the next one to nest in.
 */
static int json_lines;
static FILE *held_f, *hold_f;
static const char *held_key, *hold_key;

void e4s_json_set_lines(int lines)
{
	json_lines = lines;
}

void e4s_json_init(struct e4s_json *js, FILE *f)
{
	memset(js, 0, sizeof(*js));
	js->f = f;
}

/* Length of the well-formed UTF-8 sequence at @p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), 0 if there is none. */
static int utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xe0 && p[1] < 0xa0) ||
		    (p[0] == 0xed && p[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xf0 && p[1] < 0x90) ||
		    (p[0] == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

int e4s_json_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	for (; *p; p += n)
		if (!(n = utf8_len(p)))
			return 0;
	return 1;
}

const char *e4s_text_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	int n, i;

	if (!len)
		return buf;
	for (; *p; p += n) {
		n = utf8_len(p);
		/* printable ASCII and valid UTF-8 past the C1 controls
		 * (U+0080..U+009F, C2 80..C2 9F: 0x9b is CSI on a UTF-8
		 * terminal) pass through */
		if (n == 1 && *p >= 0x20 && *p < 0x7f && *p != '\\') {
			if (o + 1 >= len)
				break;
			buf[o++] = (char)*p;
			continue;
		}
		if (n > 1 && !(p[0] == 0xc2 && p[1] < 0xa0)) {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
			continue;
		}
		if (!n)
			n = 1;		/* a byte that starts no sequence */
		if (o + 4 * n >= len)
			break;
		for (i = 0; i < n; i++)
			o += snprintf(buf + o, len - o, "\\x%02x", p[i]);
	}
	buf[o] = 0;
	return buf;
}

/*
 * @s as a JSON string.  @raw 0: UTF-8 passes through (U+2028 and U+2029
 * as \u2028, \u2029, which JavaScript cannot take raw), a byte that
 * starts no valid sequence becomes U+FFFD.  @raw 1: every byte >= 0x80
 * is \u00XX, so the string's code points are the bytes (latin-1).
 * Controls are escaped in both.
 */
static void json_string_mode(FILE *f, const char *s, int raw)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', f);
	for (; *p; p += n) {
		n = 1;
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			continue;
		case '\\':
			fputs("\\\\", f);
			continue;
		case '\n':
			fputs("\\n", f);
			continue;
		case '\t':
			fputs("\\t", f);
			continue;
		}
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p < 0x80) {
			fputc(*p, f);
		} else if (raw) {
			fprintf(f, "\\u%04x", *p);
		} else if (!(n = utf8_len(p))) {
			fputs("\\ufffd", f);
			n = 1;
		} else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 &&
			   (p[2] == 0xa8 || p[2] == 0xa9)) {
			fprintf(f, "\\u%04x", 0x2000 | (p[2] & 0x3f));
		} else {
			fwrite(p, 1, n, f);
		}
	}
	fputc('"', f);
}

static void json_string(FILE *f, const char *s)
{
	json_string_mode(f, s, 0);
}

static void json_key(struct e4s_json *js, const char *key)
{
	if (js->need_comma[js->depth])
		fputc(',', js->f);
	js->need_comma[js->depth] = 1;
	if (js->depth && !json_lines) {
		fputc('\n', js->f);
		fprintf(js->f, "%*s", 2 * js->depth, "");
	}
	if (key) {
		json_string(js->f, key);
		fputs(json_lines ? ":" : ": ", js->f);
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
	if (had && !json_lines) {
		fputc('\n', js->f);
		fprintf(js->f, "%*s", 2 * js->depth, "");
	}
	fputc(c, js->f);
}

void e4s_json_obj_begin(struct e4s_json *js, const char *key)
{
	if (!js->depth && !key && held_f == js->f) {
		/* The document nests in the held one, under held_key. */
		held_f = NULL;
		js->nested = 1;
		js->depth = 1;
		js->need_comma[1] = 1;
		json_open(js, held_key, '{');
		return;
	}
	json_open(js, key, '{');
	if (js->depth == 1 && !key) {
		/* Every document says which program and build wrote it. */
		e4s_json_str(js, "tool", program_invocation_short_name);
		e4s_json_str(js, "version", e4_version());
	}
}

void e4s_json_obj_end(struct e4s_json *js)
{
	if (js->depth == 1 && !js->nested && hold_f == js->f) {
		/* Held open for the next document (e4s_json_hold()). */
		held_f = hold_f;
		held_key = hold_key;
		hold_f = NULL;
		js->depth = 0;
		js->held = 1;
		return;
	}
	json_close(js, '}');
	if (js->nested && js->depth == 1) {
		js->nested = 0;
		json_close(js, '}');
	}
}

void e4s_json_hold(FILE *f, const char *key)
{
	hold_f = f;
	hold_key = key;
}

void e4s_json_release(FILE *f)
{
	if (hold_f == f)
		hold_f = NULL;
	if (held_f != f)
		return;
	held_f = NULL;
	fputs(json_lines ? "}\n" : "\n}\n", f);
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
	char rawkey[128];

	if (!val)
		val = "";
	json_key(js, key);
	json_string(js->f, val);
	if (key && !e4s_json_utf8_valid(val)) {
		snprintf(rawkey, sizeof(rawkey), "%s_raw", key);
		json_key(js, rawkey);
		json_string_mode(js->f, val, 1);
	}
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

void e4s_json_double(struct e4s_json *js, const char *key, double val,
		     int decimals)
{
	char buf[64], *end;

	json_key(js, key);
	if (val != val || val - val != 0) {	/* NaN or infinite */
		fputs("null", js->f);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", decimals, val);
	if (strchr(buf, '.')) {
		for (end = buf + strlen(buf) - 1; *end == '0'; end--)
			*end = 0;
		if (*end == '.')
			*end = 0;
	}
	fputs(strcmp(buf, "-0") ? buf : "0", js->f);
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
	if (js->held)
		return;
	fputc('\n', js->f);
}
