/*
 * json.h --- the JSON writer of every --json report of the e4tools
 * programs and e4debug commands (lib/support/json.c): one document on a
 * FILE, two-space indented (--json=lines: compact, one line), keys in the
 * order written.  Every top-level object starts with "schema_version"
 * (E4S_JSON_SCHEMA_VERSION, doc/e4tools.schema.json's), "tool" (the
 * program's name) and "version" (e4_version()).
 *
 * A run with --json prints exactly one document on stdout, failures
 * included (e4s_json_run_begin()): its head adds "mode", "image" (and
 * with --digest "image_size", "image_sha512"), its tail "exit" (the
 * process's exit status), "error" {"message", "code"} when the run
 * failed, and "stderr", every line the run wrote there.
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

/* The version of doc/e4tools.schema.json that the documents follow. */
#define E4S_JSON_SCHEMA_VERSION	1

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
/*
 * e4s_com_err_safe() - make com_err() print through e4s_text_escape()
 * (as its default hook does otherwise): every tool calls it first, so an
 * error line naming a file whose name holds a newline or ESC stays one
 * line and harmless.  A --json run's hook does the same.
 */
void e4s_com_err_safe(void);

#define E4S_TEXT_ESC_MAX(n)	(4 * (n) + 1)	/* room for any @s of n bytes */
const char *e4s_text_escape(const char *s, char *buf, size_t len);

/*
 * The run's one document.  e4s_json_argv_wants() - 1 if @argv holds
 * --json or --json=... before any "--" (looked for before parsing, so
 * that a usage error gets its document too).  e4s_json_run_begin() -
 * from now on stdout gets exactly one document: the first top-level
 * document written there is held open (later ones nest in it under the
 * key given to e4s_json_hold(), else "more"), and e4s_json_run_end(STATUS)
 * writes its tail ("exit": STATUS; "error" if STATUS & @fail_mask, its
 * message the first com_err() line or else the first stderr line that is
 * not a warning or usage text, its code com_err()'s; "stderr": the lines
 * the run wrote there, which still reach fd 2 as they are written) or,
 * when nothing was written, a whole document of head and tail.  Without
 * @percmd the run ends at exit() (on_exit(): every exit path prints its
 * document); with it (e4debug, one document per command) the caller
 * calls e4s_json_run_end().  e4s_json_run_cancel() (-h, -V): no
 * document.  e4s_json_run_mode() names the mode (copied),
 * e4s_json_run_want_digest() asks for the size and SHA-512 of
 * the image that e4s_json_run_image() then names (computed there, before
 * the run reads or writes it).
 */
int e4s_json_argv_wants(int argc, char **argv);
void e4s_json_run_begin(unsigned int fail_mask, int percmd);
void e4s_json_run_cancel(void);
int e4s_json_run_active(void);
void e4s_json_run_mode(const char *mode);
void e4s_json_run_want_digest(void);
void e4s_json_run_image(const char *image);
void e4s_json_run_end(int status);

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
