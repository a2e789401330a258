/*
 * json.c --- the small JSON writer of every --json report (see json.h).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

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

/*
 * The run's one document (e4s_json_run_begin()): what its head says, the
 * copy of stderr and the first error for its tail.  Program state, as
 * the rest of this file's: lib/support serves one program at a time.
 */
static struct {
	int		active;		/* this run prints one document */
	int		open;		/* its head is written, no tail yet */
	int		percmd;		/* e4debug: ended by the shell */
	unsigned int	fail_mask;	/* exit bits that are a failure */
	char		*mode;
	char		*image;
	int		digest, digested;
	uint64_t	size;
	char		sha512[2 * EXT2FS_SHA512_LENGTH + 1];
	char		*err_msg;	/* the first com_err() message */
	long		err_code;
	char		*errbuf;	/* all of stderr since the begin */
	size_t		errlen, errcap;
	FILE		*tee;
} run;

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

static void run_head(struct e4s_json *js);

void e4s_json_obj_begin(struct e4s_json *js, const char *key)
{
	if (!js->depth && !key && js->f == stdout && run.active &&
	    run.open) {
		/* Another document of the run nests in its one document,
		 * under the held key (e4s_json_hold()), else "more". */
		js->nested = 1;
		js->depth = 1;
		js->need_comma[1] = 1;
		json_open(js, hold_f == stdout && hold_key ? hold_key :
			  "more", '{');
		hold_f = NULL;
		return;
	}
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
		if (js->f == stdout && run.active) {
			run_head(js);
			run.open = 1;
			return;
		}
		/* Every document says which schema, program and build
		 * wrote it. */
		e4s_json_u64(js, "schema_version", E4S_JSON_SCHEMA_VERSION);
		e4s_json_str(js, "tool", program_invocation_short_name);
		e4s_json_str(js, "version", e4_version());
	}
}

void e4s_json_obj_end(struct e4s_json *js)
{
	if (js->f == stdout && run.active && run.open &&
	    js->depth == 1 + js->nested) {
		/* The run's document: its tail (exit, error, stderr) is
		 * written when the run ends (e4s_json_run_end()). */
		if (js->nested)
			json_close(js, '}');
		js->nested = 0;
		js->depth = 0;
		js->held = 1;
		return;
	}
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

/* ---- the run's one document ------------------------------------------- */

static void buf_add(const char *p, size_t n)
{
	char *nb;

	if (run.errlen + n + 1 > run.errcap) {
		size_t cap = 2 * (run.errlen + n + 1);

		nb = realloc(run.errbuf, cap);
		if (!nb)
			return;		/* the copy is lost, not the line */
		run.errbuf = nb;
		run.errcap = cap;
	}
	memcpy(run.errbuf + run.errlen, p, n);
	run.errlen += n;
	run.errbuf[run.errlen] = 0;
}

/* stderr's writes: to fd 2 as before, and copied for the document. */
static ssize_t tee_write(void *cookie, const char *p, size_t n)
{
	size_t done = 0;
	ssize_t w;

	(void)cookie;
	if (run.active)		/* between e4debug's documents: no copy */
		buf_add(p, n);
	while (done < n) {
		w = write(2, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += w;
	}
	return n;
}

/* com_err()'s message text (error message, a space, the formatted rest)
 * into @text. */
static void com_err_text(char *text, size_t len, long code, const char *fmt,
			 va_list args)
{
	const char *msg = code ? error_message(code) : "";
	int n;

	n = snprintf(text, len, "%s%s", msg, code && fmt ? " " : "");
	if (fmt && n >= 0 && (size_t)n < len)
		vsnprintf(text + n, len - n, fmt, args);
}

/* A com_err() line on stderr as the default hook prints it (whoami:
 * text), but through e4s_text_escape(): a file name holding a newline or
 * an ESC sequence cannot split the line or reach the terminal. */
static void say_com_err(const char *whoami, const char *text)
{
	char shown[E4S_TEXT_ESC_MAX(2048)];

	if (whoami)
		fprintf(stderr, "%s: ", whoami);
	fprintf(stderr, "%s\n", e4s_text_escape(text, shown, sizeof(shown)));
	fflush(stderr);
}

static void text_com_err(const char *whoami, long code, const char *fmt,
			 va_list args)
{
	char text[2048];

	com_err_text(text, sizeof(text), code, fmt, args);
	say_com_err(whoami, text);
}

void e4s_com_err_safe(void)
{
	set_com_err_hook(text_com_err);
}

/* com_err()'s lines as text_com_err() prints them, the first one kept
 * (exact, unescaped: JSON escapes it) as the run's error with its code. */
static void run_com_err(const char *whoami, long code, const char *fmt,
			va_list args)
{
	char text[2048];

	com_err_text(text, sizeof(text), code, fmt, args);
	if (!run.err_msg) {
		run.err_msg = strdup(text);
		run.err_code = code;
	}
	say_com_err(whoami, text);
}

static void run_on_exit(int status, void *arg)
{
	(void)arg;
	if (run.active && !run.percmd)
		e4s_json_run_end(status);
}

int e4s_json_argv_wants(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--json") ||
		    !strncmp(argv[i], "--json=", 7))
			return 1;
	}
	return 0;
}

void e4s_json_run_begin(unsigned int fail_mask, int percmd)
{
	static cookie_io_functions_t tee_io = { .write = tee_write };
	static int once;

	if (run.active)
		return;
	run.active = 1;
	run.open = 0;
	run.percmd = percmd;
	run.fail_mask = fail_mask;
	free(run.mode);
	run.mode = NULL;
	free(run.image);
	run.image = NULL;
	run.digest = run.digested = 0;
	free(run.err_msg);
	run.err_msg = NULL;
	run.err_code = 0;
	run.errlen = 0;
	if (run.errbuf)
		run.errbuf[0] = 0;
	if (!run.tee) {
		run.tee = fopencookie(NULL, "w", tee_io);
		if (run.tee) {
			setvbuf(run.tee, NULL, _IONBF, 0);
			fflush(stderr);
			stderr = run.tee;	/* glibc: a plain variable */
		}
	}
	set_com_err_hook(run_com_err);
	if (!once && !percmd)
		on_exit(run_on_exit, NULL);
	once = 1;
}

void e4s_json_run_cancel(void)
{
	run.active = 0;
	e4s_com_err_safe();
}

int e4s_json_run_active(void)
{
	return run.active;
}

void e4s_json_run_mode(const char *mode)
{
	free(run.mode);
	run.mode = mode ? strdup(mode) : NULL;
}

void e4s_json_run_want_digest(void)
{
	run.digest = 1;
}

/*
 * The SIGBUS guard of digest_file(): a file cut shorter while it is
 * hashed faults on the mapping (SIGBUS); the handler jumps back and the
 * run reports no digest instead of dying without its document.  Tool
 * code (lib/support), one process, one hash at a time.
 */
static sigjmp_buf digest_jmp;

static void digest_bus(int sig)
{
	(void)sig;
	siglongjmp(digest_jmp, 1);
}

/* ext2fs_sha512() of @sz bytes at @m under the guard; 0, or -1 when the
 * mapping faulted (the file shrank) or the handler could not be set. */
static int sha512_guarded(const void *m, unsigned long long sz,
			  unsigned char *md)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = digest_bus;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old))
		return -1;
	if (sigsetjmp(digest_jmp, 1)) {
		sigaction(SIGBUS, &old, NULL);
		errno = ESTALE;
		return -1;
	}
	ext2fs_sha512(m, sz, md);
	sigaction(SIGBUS, &old, NULL);
	return 0;
}

/* @path's size and SHA-512 (libext2fs's ext2fs_sha512(), one call over
 * the whole file mapped read-only), or 0 and a line on stderr (also when
 * the file shrinks while it is hashed). */
static int digest_file(const char *path)
{
	unsigned char md[EXT2FS_SHA512_LENGTH];
	unsigned long long sz;
	struct stat st;
	void *m = NULL;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		goto fail;
	if (S_ISREG(st.st_mode)) {
		sz = st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		off_t end = lseek(fd, 0, SEEK_END);

		if (end < 0)
			goto fail;
		sz = end;
	} else {
		errno = EINVAL;
		goto fail;
	}
	if (sz) {
		m = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			goto fail;
		madvise(m, sz, MADV_SEQUENTIAL);
	}
	if (sha512_guarded(m ? m : (const void *)"", sz, md)) {
		int e = errno;

		if (m)
			munmap(m, sz);
		close(fd);
		if (e == ESTALE)
			fprintf(stderr, "%s: %s: no digest: it changed size "
				"while it was read\n",
				program_invocation_short_name, path);
		else
			fprintf(stderr, "%s: %s: no digest: %s\n",
				program_invocation_short_name, path,
				strerror(e));
		return 0;
	}
	if (m)
		munmap(m, sz);
	close(fd);
	for (i = 0; i < EXT2FS_SHA512_LENGTH; i++)
		snprintf(run.sha512 + 2 * i, 3, "%02x", md[i]);
	run.size = sz;
	return 1;
fail:
	fprintf(stderr, "%s: %s: no digest: %s\n",
		program_invocation_short_name, path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return 0;
}

void e4s_json_run_image(const char *image)
{
	free(run.image);
	run.image = image ? strdup(image) : NULL;
	run.digested = 0;
	if (run.digest && run.image)
		run.digested = digest_file(run.image);
}

static void run_head(struct e4s_json *js)
{
	e4s_json_u64(js, "schema_version", E4S_JSON_SCHEMA_VERSION);
	e4s_json_str(js, "tool", program_invocation_short_name);
	e4s_json_str(js, "version", e4_version());
	if (run.mode)
		e4s_json_str(js, "mode", run.mode);
	else
		e4s_json_null(js, "mode");
	if (run.image)
		e4s_json_str(js, "image", run.image);
	else
		e4s_json_null(js, "image");
	if (!run.digest)
		return;
	if (run.digested) {
		e4s_json_u64(js, "image_size", run.size);
		e4s_json_str(js, "image_sha512", run.sha512);
	} else {
		e4s_json_null(js, "image_size");
		e4s_json_null(js, "image_sha512");
	}
}

/* The line of stderr that says why the run failed: the first that is
 * not a warning nor usage text. */
static const char *failure_line(char *buf, size_t len)
{
	const char *p = run.errbuf, *nl;
	size_t n;

	for (; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (!n || *p == ' ' || *p == '\t' || !strncmp(p, "Usage:", 6) ||
		    !strncmp(p, "Try ", 4) || memmem(p, n, "warning", 7))
			continue;
		if (n >= len)
			n = len - 1;
		memcpy(buf, p, n);
		buf[n] = 0;
		/* "prog: " is stderr's, not the message's */
		n = strlen(program_invocation_short_name);
		if (!strncmp(buf, program_invocation_short_name, n) &&
		    !strncmp(buf + n, ": ", 2))
			memmove(buf, buf + n + 2, strlen(buf + n + 2) + 1);
		return buf;
	}
	return NULL;
}

void e4s_json_run_end(int status)
{
	struct e4s_json js;
	char line[2048];
	const char *msg, *p, *nl;

	if (!run.active)
		return;
	run.active = 0;
	e4s_com_err_safe();
	fflush(stdout);
	e4s_json_init(&js, stdout);
	if (run.open) {
		js.depth = 1;
		js.need_comma[1] = 1;
	} else {
		json_open(&js, NULL, '{');
		run_head(&js);
	}
	run.open = 0;
	e4s_json_i64(&js, "exit", status);
	if (status & run.fail_mask) {
		msg = run.err_msg;
		if (!msg)
			msg = failure_line(line, sizeof(line));
		if (!msg) {
			snprintf(line, sizeof(line), run.errbuf &&
				 strstr(run.errbuf, "Usage:") ?
				 "usage error (exit status %d): the usage is "
				 "in \"stderr\"" : "failed, exit status %d",
				 status);
			msg = line;
		}
		e4s_json_obj_begin(&js, "error");
		e4s_json_str(&js, "message", msg);
		e4s_json_i64(&js, "code", run.err_msg ? run.err_code : 0);
		e4s_json_obj_end(&js);
	}
	e4s_json_arr_begin(&js, "stderr");
	for (p = run.errbuf; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			e4s_json_str(&js, NULL, p);
			break;
		}
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		e4s_json_str(&js, NULL, line);
	}
	e4s_json_arr_end(&js);
	json_close(&js, '}');
	fputc('\n', stdout);
	fflush(stdout);
	run.errlen = 0;
	if (run.errbuf)
		run.errbuf[0] = 0;
}
