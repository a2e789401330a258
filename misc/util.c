/*
 * util.c --- helpers shared by the e4tools programs: open a file system
 * (mount check, undo file), and a small JSON writer.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <et/com_err.h>

#include "e4.h"
#include "util.h"

/* Is @st the file @path names (same inode, or the same device node)? */
static int same_file(const struct stat *st, const char *path)
{
	struct stat o;

	if (!path || stat(path, &o) < 0)
		return 0;
	if (st->st_dev == o.st_dev && st->st_ino == o.st_ino)
		return 1;
	return (S_ISBLK(st->st_mode) || S_ISCHR(st->st_mode)) &&
		(S_ISBLK(o.st_mode) || S_ISCHR(o.st_mode)) &&
		st->st_rdev == o.st_rdev;
}

errcode_t e4_tool_check_undo(const char *prog, const char *undo_file,
			     const char *device, const char *journal_dev)
{
	struct stat st;
	int fd;

	if (!undo_file || !*undo_file) {
		com_err(prog, 0, "invalid undo file: empty "
			"name");
		return EINVAL;
	}
	if (stat(undo_file, &st) == 0) {
		if (same_file(&st, device) || same_file(&st, journal_dev)) {
			com_err(prog, 0, "undo file %s is the %s itself; "
				"nothing written", undo_file,
				same_file(&st, device) ? "device" :
				"journal device");
			return EINVAL;
		}
		if (!S_ISREG(st.st_mode)) {
			com_err(prog, 0, "undo file %s exists and is not "
				"a regular file; nothing written", undo_file);
			return EINVAL;
		}
		if (access(undo_file, W_OK) < 0) {
			com_err(prog, errno, "while checking undo file %s",
				undo_file);
			return errno;
		}
		return 0;
	}
	/* Try to create it (then remove it): the undo io_manager would. */
	fd = open(undo_file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		errcode_t retval = errno;

		com_err(prog, retval, "while creating undo file %s; nothing "
			"written", undo_file);
		return retval;
	}
	close(fd);
	unlink(undo_file);
	return 0;
}

/*
 * Test-only fault injection (tests/t_fault_tools): E4_FAULT="write:K",
 * "read:K" or "short:K" (comma-separated) routes the file system's io
 * through libe4's fault io_manager (lib/e4/fault_io.c), failing the K-th
 * and every later write (read) with E4_ERR_IO_FAULT, or making the K-th
 * read short.  Unset, nothing changes.  An external journal device is not
 * wrapped.
 */
static struct e4_fault tool_fault;

errcode_t e4_tool_fault_wrap(const char *prog, const char *device,
			     io_manager *io, const char **name)
{
	const char *spec = getenv("E4_FAULT");
	char *copy, *tok, *save = NULL, *end;
	unsigned long long k;

	if (!spec || !*spec)
		return 0;
	e4_fault_init(&tool_fault, *io, device);
	copy = strdup(spec);
	if (!copy)
		return EXT2_ET_NO_MEMORY;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		k = colon ? strtoull(colon + 1, &end, 10) : 0;
		if (!colon || !k || *end) {
			com_err(prog, EXT2_ET_INVALID_ARGUMENT,
				"in E4_FAULT='%s'", spec);
			free(copy);
			return EXT2_ET_INVALID_ARGUMENT;
		}
		*colon = 0;
		if (!strcmp(tok, "write"))
			tool_fault.fail_write_at = k;
		else if (!strcmp(tok, "read"))
			tool_fault.fail_read_at = k;
		else if (!strcmp(tok, "short"))
			tool_fault.short_read_at = k;
		else {
			com_err(prog, EXT2_ET_INVALID_ARGUMENT,
				"in E4_FAULT='%s'", spec);
			free(copy);
			return EXT2_ET_INVALID_ARGUMENT;
		}
	}
	free(copy);
	*io = e4_fault_io_manager;
	*name = tool_fault.name;
	return 0;
}

/* Point the undo io_manager at @undo_file, emptied first if @fresh. */
static errcode_t point_undo(const char *prog, const char *undo_file,
			    int fresh)
{
	errcode_t retval;

	retval = e4_tool_check_undo(prog, undo_file, NULL, NULL);
	if (retval)
		return retval;
	if (fresh && unlink(undo_file) < 0 && errno != ENOENT) {
		retval = errno;
		com_err(prog, retval, "while deleting undo file %s",
			undo_file);
		return retval;
	}
	retval = set_undo_io_backing_manager(unix_io_manager);
	if (!retval)
		retval = set_undo_io_backup_file((char *)undo_file);
	if (retval)
		com_err(prog, retval, "while setting up undo file %s",
			undo_file);
	return retval;
}

errcode_t e4_tool_setup_undo(const char *prog, const char *undo_file)
{
	return point_undo(prog, undo_file, 1);
}

errcode_t e4_tool_resume_undo(const char *prog, const char *undo_file)
{
	return point_undo(prog, undo_file, 0);
}

/*
 * A truncated image: the superblock counts more blocks than the file or
 * device holds (e2fsck's "The filesystem size (according to the
 * superblock) is ... blocks" check).  Nothing beyond the end can be read.
 */
static errcode_t check_size(ext2_filsys fs, const char *device)
{
	blk64_t dev_blocks;
	errcode_t retval;

	retval = ext2fs_get_device_size2(device, fs->blocksize, &dev_blocks);
	if (retval == EXT2_ET_UNIMPLEMENTED)
		return 0;
	if (retval)
		return retval;
	if (dev_blocks && dev_blocks < ext2fs_blocks_count(fs->super))
		return E4_ERR_FS_TRUNCATED;
	return 0;
}

errcode_t e4_tool_open_fs(const char *prog, const char *device, int flags,
			  const char *undo_file, ext2_filsys *ret)
{
	io_manager io = unix_io_manager;
	const char *open_name = device;
	int open_flags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP;
	int mount_flags = 0;
	struct stat st;
	errcode_t retval;

	*ret = NULL;
	if (stat(device, &st) < 0) {
		retval = errno;
		com_err(prog, retval, "while trying to open %s", device);
		return retval;
	}
	if (S_ISDIR(st.st_mode)) {
		retval = EISDIR;
		com_err(prog, retval, "while trying to open %s", device);
		return retval;
	}
	if (flags & E4_OPEN_RW) {
		retval = ext2fs_check_if_mounted(device, &mount_flags);
		if (retval) {
			com_err(prog, retval,
				"while determining whether %s is mounted",
				device);
			return retval;
		}
		if (mount_flags & EXT2_MF_MOUNTED) {
			com_err(prog, E4_ERR_MOUNTED,
				"while opening %s for writing", device);
			return E4_ERR_MOUNTED;
		}
		open_flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
		if (undo_file) {
			retval = e4_tool_check_undo(prog, undo_file, device,
						    NULL);
			if (!retval)
				retval = point_undo(prog, undo_file, !(flags &
						    E4_OPEN_UNDO_RESUME));
			if (retval)
				return retval;
			io = undo_io_manager;
		}
	}
	if (flags & E4_OPEN_IGNORE_CSUM)
		open_flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	retval = e4_tool_fault_wrap(prog, device, &io, &open_name);
	if (retval)
		return retval;
	retval = ext2fs_open2(open_name, NULL, open_flags, 0, 0, io, ret);
	if (retval) {
		com_err(prog, retval, "while trying to open %s", device);
		*ret = NULL;
		return retval;
	}
	retval = check_size(*ret, device);
	if (retval) {
		com_err(prog, retval, "while checking the size of %s", device);
		ext2fs_close_free(ret);
		return retval;
	}
	return 0;
}

int e4_tool_parse_blk(const char *s, size_t len, unsigned long long *v)
{
	unsigned long long n = 0, d;
	unsigned int base = 10;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned long long)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned long long)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned long long)(c - 'A' + 10);
		else
			return -1;
		if (n > (~0ULL - d) / base)
			return -1;		/* overflow */
		n = n * base + d;
	}
	*v = n;
	return 0;
}

int e4_tool_needs_recovery(ext2_filsys fs)
{
	return ext2fs_has_feature_journal_needs_recovery(fs->super);
}

/* ---- JSON ---- */

void e4_json_init(struct e4_json *js, FILE *f)
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

static void json_key(struct e4_json *js, const char *key)
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

static void json_open(struct e4_json *js, const char *key, char c)
{
	json_key(js, key);
	fputc(c, js->f);
	if (js->depth < 63)
		js->depth++;
	js->need_comma[js->depth] = 0;
}

static void json_close(struct e4_json *js, char c)
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

void e4_json_obj_begin(struct e4_json *js, const char *key)
{
	json_open(js, key, '{');
}

void e4_json_obj_end(struct e4_json *js)
{
	json_close(js, '}');
}

void e4_json_arr_begin(struct e4_json *js, const char *key)
{
	json_open(js, key, '[');
}

void e4_json_arr_end(struct e4_json *js)
{
	json_close(js, ']');
}

void e4_json_str(struct e4_json *js, const char *key, const char *val)
{
	json_key(js, key);
	json_string(js->f, val ? val : "");
}

void e4_json_u64(struct e4_json *js, const char *key, uint64_t val)
{
	json_key(js, key);
	fprintf(js->f, "%" PRIu64, val);
}

void e4_json_i64(struct e4_json *js, const char *key, int64_t val)
{
	json_key(js, key);
	fprintf(js->f, "%" PRId64, val);
}

void e4_json_double(struct e4_json *js, const char *key, double val,
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

void e4_json_bool(struct e4_json *js, const char *key, int val)
{
	json_key(js, key);
	fputs(val ? "true" : "false", js->f);
}

void e4_json_null(struct e4_json *js, const char *key)
{
	json_key(js, key);
	fputs("null", js->f);
}

void e4_json_finish(struct e4_json *js)
{
	fputc('\n', js->f);
}
