/*
 * mkfiles.c --- benchmark helper for bench/unwritten.sh: create N files in
 * a directory of a mounted ext4 fs, each fallocated to BLOCKS fs blocks
 * (unwritten extents).  STRIDE 0: every other file also gets one O_DIRECT
 * block write in its middle, which splits its unwritten extent in three.
 * STRIDE s > 0: every file gets an O_DIRECT block write at every s-th block
 * (2 * BLOCKS / s extents: a depth-1 tree once past 4).
 * Usage: mkfiles DIR N BLOCKS BLOCKSIZE STRIDE
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, i, b, blocks, bs, stride;
	char path[4096];
	void *buf;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: %s DIR N BLOCKS BLOCKSIZE STRIDE\n",
			argv[0]);
		return 1;
	}
	n = strtoul(argv[2], NULL, 0);
	blocks = strtoul(argv[3], NULL, 0);
	bs = strtoul(argv[4], NULL, 0);
	stride = strtoul(argv[5], NULL, 0);
	if (posix_memalign(&buf, 4096, bs))
		return 1;
	memset(buf, 0xa5, bs);
	for (i = 0; i < n; i++) {
		/* 1000 files per directory, as a real tree would spread. */
		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/d%lu", argv[1],
				 i / 1000);
			if (mkdir(path, 0755) && errno != EEXIST) {
				perror(path);
				return 1;
			}
		}
		snprintf(path, sizeof(path), "%s/d%lu/f%lu", argv[1],
			 i / 1000, i);
		fd = open(path, O_CREAT | O_WRONLY | O_DIRECT, 0644);
		if (fd < 0 || fallocate(fd, 0, 0, (off_t)(blocks * bs))) {
			perror(path);
			return 1;
		}
		for (b = stride ? 0 : blocks / 2; b < blocks;
		     b += stride ? stride : blocks) {
			if (!stride && !(i & 1))
				break;
			if (pwrite(fd, buf, bs, (off_t)(b * bs)) !=
			    (ssize_t)bs) {
				perror(path);
				return 1;
			}
		}
		close(fd);
	}
	return 0;
}
