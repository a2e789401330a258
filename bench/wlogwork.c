/*
 * wlogwork.c --- benchmark helper for bench/wlog_scale.sh: a deterministic
 * campaign-like workload on a mounted ext4 fs, run through the FUSE write
 * logger (scripts/mkwlog): appends with fsync or fdatasync, overwrites in
 * place, creates, renames over, unlinks, fallocate + O_DIRECT writes, a
 * sync every 256 operations.  The choice of each step comes from a fixed
 * LCG, so the same OPS give the same sequence of system calls.
 * Usage: wlogwork DIR OPS
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFILES		64
#define MAXSIZE		(1024 * 1024)	/* a file past it is unlinked */

static unsigned long long rnd_state = 0x2545f4914f6cdd1dULL;

static unsigned int rnd(unsigned int n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rnd_state >> 33) % n;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "wlogwork: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void fill(char *buf, size_t len, unsigned long op)
{
	size_t i;

	memset(buf, '.', len);
	for (i = 0; i + 64 <= len; i += 64) {
		int n = snprintf(buf + i, 64, "op %lu offset %zu", op, i);

		buf[i + (n > 0 && n < 63 ? n : 62)] = ' ';
		buf[i + 63] = '\n';
	}
}

int main(int argc, char **argv)
{
	unsigned long ops, op;
	char path[4096], path2[4096];
	char *buf;
	void *dbuf;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR OPS\n", argv[0]);
		return 1;
	}
	ops = strtoul(argv[2], NULL, 0);
	buf = malloc(65536);
	if (!buf || posix_memalign(&dbuf, 4096, 65536))
		return 1;
	for (op = 0; op < ops; op++) {
		unsigned int f = rnd(NFILES), kind = rnd(100);
		size_t len = 512 * (1 + rnd(16));
		struct stat st;

		snprintf(path, sizeof(path), "%s/f%02u", argv[1], f);
		fill(buf, len, op);
		if (kind < 40 || kind >= 93) {
			/* append, fsync (or fdatasync) */
			fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
			if (fd < 0)
				die("open", path);
			if (write(fd, buf, len) != (ssize_t)len)
				die("write", path);
			if ((kind < 28 ? fsync(fd) : fdatasync(fd)) < 0)
				die("fsync", path);
			if (fstat(fd, &st) == 0 && st.st_size > MAXSIZE &&
			    unlink(path) < 0)
				die("unlink", path);
			close(fd);
		} else if (kind < 55) {
			/* overwrite in place, fdatasync */
			fd = open(path, O_WRONLY | O_CREAT, 0644);
			if (fd < 0)
				die("open", path);
			if (fstat(fd, &st) < 0)
				die("fstat", path);
			if (pwrite(fd, buf, len, st.st_size ?
				   rnd((unsigned int)st.st_size) : 0) !=
			    (ssize_t)len)
				die("pwrite", path);
			if (fdatasync(fd) < 0)
				die("fdatasync", path);
			close(fd);
		} else if (kind < 65) {
			/* create afresh (truncate), write, fsync */
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				die("open", path);
			if (write(fd, buf, len) != (ssize_t)len)
				die("write", path);
			if (fsync(fd) < 0)
				die("fsync", path);
			close(fd);
		} else if (kind < 73) {
			/* write a temporary, fsync, rename it over */
			snprintf(path2, sizeof(path2), "%s/tmp", argv[1]);
			fd = open(path2, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				die("open", path2);
			if (write(fd, buf, len) != (ssize_t)len)
				die("write", path2);
			if (fsync(fd) < 0)
				die("fsync", path2);
			close(fd);
			if (rename(path2, path) < 0)
				die("rename", path2);
		} else if (kind < 80) {
			/* unlink */
			if (unlink(path) < 0 && errno != ENOENT)
				die("unlink", path);
		} else {
			/* fallocate 64 KiB past the end, O_DIRECT write of
			 * 4 KiB into it, fsync */
			off_t at;

			fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0644);
			if (fd < 0)
				die("open", path);
			if (fstat(fd, &st) < 0)
				die("fstat", path);
			if (st.st_size > MAXSIZE && ftruncate(fd, 0) < 0)
				die("ftruncate", path);
			at = st.st_size > MAXSIZE ? 0 :
				(st.st_size + 4095) & ~(off_t)4095;
			if (fallocate(fd, 0, at, 65536) < 0)
				die("fallocate", path);
			memcpy(dbuf, buf, 4096);
			if (pwrite(fd, dbuf, 4096, at + 4096 * rnd(16)) != 4096)
				die("pwrite O_DIRECT", path);
			if (fsync(fd) < 0)
				die("fsync", path);
			close(fd);
		}
		if (op % 256 == 255)
			sync();
	}
	free(buf);
	free(dbuf);
	return 0;
}
