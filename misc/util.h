/*
 * util.h --- helpers shared by the e4tools programs (not part of libe4):
 * opening a file system the e2fsprogs way, undo files, and a small JSON
 * writer for --json output.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_MISC_UTIL_H
#define E4_MISC_UTIL_H

#include <stdio.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* Flags for e4_tool_open_fs(). */
#define E4_OPEN_RW		0x1	/* open read-write */
#define E4_OPEN_IGNORE_CSUM	0x2	/* EXT2_FLAG_IGNORE_CSUM_ERRORS */
#define E4_OPEN_FORCE		0x4	/* -f: skip the needs_recovery check */
#define E4_OPEN_UNDO_RESUME	0x8	/* keep an existing undo file and
					 * append to it (e4_tool_resume_undo) */

/*
 * e4_tool_open_fs() - open the file system on @device for program @prog.
 * Read-only unless E4_OPEN_RW.  With E4_OPEN_RW: refuses a mounted fs, and
 * routes writes through libext2fs's undo io_manager when @undo_file is not
 * NULL (an existing undo file is replaced, as tune2fs does; with
 * E4_OPEN_UNDO_RESUME appended to instead).  Prints a
 * one-line com_err message naming @device on failure.  Returns 0 or the
 * error.
 */
errcode_t e4_tool_open_fs(const char *prog, const char *device, int flags,
			  const char *undo_file, ext2_filsys *ret);

/*
 * e4_tool_setup_undo() - point libext2fs's process-wide undo io_manager at
 * @undo_file (replacing an existing one) over unix_io_manager; the caller
 * then opens through undo_io_manager.  Prints a one-line error; returns 0
 * or the error.
 */
errcode_t e4_tool_setup_undo(const char *prog, const char *undo_file);

/*
 * e4_tool_resume_undo() - as e4_tool_setup_undo() but keep an existing
 * @undo_file: libext2fs's undo_io appends to it when the superblock it
 * recorded at its last close is the device's (undo_io.c
 * try_reopen_undo_file(); else the open fails with
 * EXT2_ET_UNDO_FILE_WRONG), so one program that closes and reopens a
 * file system keeps one undo file.  Returns 0 or the error (printed).
 */
errcode_t e4_tool_resume_undo(const char *prog, const char *undo_file);

/*
 * e4_tool_check_undo() - refuse an undo file that cannot serve: empty
 * name, the same file as @device or @journal_dev (either may be NULL;
 * compared by st_dev/st_ino, and st_rdev for device nodes), an existing
 * file that is not a regular file or not writable, or a name that cannot
 * be created (the check creates and removes it).  Writes nothing else.
 * Prints one line naming the undo file; returns 0 or the error.
 */
errcode_t e4_tool_check_undo(const char *prog, const char *undo_file,
			     const char *device, const char *journal_dev);

/*
 * e4_tool_fault_wrap() - test-only: when the environment variable
 * E4_FAULT is set ("write:K", "read:K", "short:K", comma-separated), make
 * *@io the fault-injecting io_manager wrapping the old *@io on @device and
 * *@name the channel name to open; else change nothing.  Used by
 * e4_tool_open_fs().  Returns 0 or EXT2_ET_INVALID_ARGUMENT (printed).
 */
errcode_t e4_tool_fault_wrap(const char *prog, const char *device,
			     io_manager *io, const char **name);

/*
 * e4_tool_parse_blk() - parse the @len characters at @s as a block number
 * or count: decimal, or hex after 0x (a leading 0 is NOT octal); no sign,
 * space or other character.  Returns 0 and sets *@v, or -1.
 */
int e4_tool_parse_blk(const char *s, size_t len, unsigned long long *v);

/* e4_tool_needs_recovery() - nonzero if the fs superblock says so. */
int e4_tool_needs_recovery(ext2_filsys fs);

/* ---- JSON writer ---- */
struct e4_json {
	FILE	*f;
	int	depth;
	int	need_comma[64];
};

void e4_json_init(struct e4_json *js, FILE *f);
/* Begin an object or array; @key is NULL inside arrays or at top level. */
void e4_json_obj_begin(struct e4_json *js, const char *key);
void e4_json_obj_end(struct e4_json *js);
void e4_json_arr_begin(struct e4_json *js, const char *key);
void e4_json_arr_end(struct e4_json *js);
void e4_json_str(struct e4_json *js, const char *key, const char *val);
void e4_json_u64(struct e4_json *js, const char *key, uint64_t val);
void e4_json_i64(struct e4_json *js, const char *key, int64_t val);
/* A number rounded to @decimals places, trailing zeros dropped ("6",
 * "0.25"); null for NaN or an infinity. */
void e4_json_double(struct e4_json *js, const char *key, double val,
		    int decimals);
void e4_json_bool(struct e4_json *js, const char *key, int val);
void e4_json_null(struct e4_json *js, const char *key);
/* Finish the document with a newline. */
void e4_json_finish(struct e4_json *js);

#endif
