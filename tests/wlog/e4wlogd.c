/*
 * e4wlogd.c --- the test suite's block write logger: a FUSE file system
 * that serves one file, "dev", backed by an image file, with direct I/O
 * and single-threaded, and appends every write, flush and discard it
 * receives, in arrival order, to a log in the dm-log-writes format
 * (Linux drivers/md/dm-log-writes.c; xfstests src/log-writes).  A loop
 * device on MNT/dev then logs what a file system on it sends: loop turns
 * REQ_OP_FLUSH into fsync (logged as FLUSH), DISCARD and WRITE_ZEROES
 * into fallocate(PUNCH_HOLE or ZERO_RANGE) (logged as DISCARD: the range
 * reads back as zeros), writes into writes; loop reports a write-back
 * cache without FUA, so a jbd2 commit arrives as FLUSH, write, FLUSH.
 * Writing a label to MNT/mark logs a MARK entry with it.
 *
 * Usage: e4wlogd BACKING LOG MOUNTPOINT   (foreground; fusermount3 -u
 * MOUNTPOINT ends it).  Every entry is in the log, and nr_entries
 * updated, before the request is answered.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define SECTOR		512
#define LOG_MAGIC	0x6a736677736872ULL
#define F_FLUSH		0x1
#define F_DISCARD	0x4
#define F_MARK		0x8

struct logger {
	int		backing, log;
	uint64_t	size;		/* bytes of the backing file */
	uint64_t	nr_entries;
	uint64_t	log_end;	/* bytes */
	int		failed;
};

static struct logger *me(void)
{
	return fuse_get_context()->private_data;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int write_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_super(struct logger *l)
{
	unsigned char sb[SECTOR];

	memset(sb, 0, sizeof(sb));
	put_le64(sb, LOG_MAGIC);
	put_le64(sb + 8, 1);
	put_le64(sb + 16, l->nr_entries);
	sb[24] = SECTOR & 0xff;
	sb[25] = SECTOR >> 8;
	return write_all(l->log, sb, sizeof(sb), 0);
}

/* Append one entry (header sector, then @len bytes of @data) and update
 * nr_entries.  -EIO (and no more logging) on failure. */
static int log_entry(struct logger *l, uint64_t sector, uint64_t nr,
		     uint64_t flags, const void *data, size_t len,
		     const char *mark, size_t mlen)
{
	unsigned char hdr[SECTOR];

	if (l->failed)
		return -EIO;
	memset(hdr, 0, sizeof(hdr));
	put_le64(hdr, sector);
	put_le64(hdr + 8, nr);
	put_le64(hdr + 16, flags);
	put_le64(hdr + 24, mark ? mlen : 0);
	if (mark)
		memcpy(hdr + 32, mark, mlen);
	if (write_all(l->log, hdr, sizeof(hdr), (off_t)l->log_end) ||
	    (len && write_all(l->log, data, len,
			      (off_t)(l->log_end + SECTOR)))) {
		l->failed = 1;
		return -EIO;
	}
	l->log_end += SECTOR + len;
	l->nr_entries++;
	if (write_super(l)) {
		l->failed = 1;
		return -EIO;
	}
	return 0;
}

static void *wl_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	return me();
}

static int wl_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (!strcmp(path, "/dev")) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = (off_t)me()->size;
	} else if (!strcmp(path, "/mark")) {
		st->st_mode = S_IFREG | 0200;
		st->st_nlink = 1;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int wl_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "dev", NULL, 0, 0);
	fill(buf, "mark", NULL, 0, 0);
	return 0;
}

static int wl_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/dev") && strcmp(path, "/mark"))
		return -ENOENT;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int wl_truncate(const char *path, off_t size,
		       struct fuse_file_info *fi)
{
	(void)fi;
	(void)size;
	return strcmp(path, "/mark") ? -EPERM : 0;	/* echo > mark */
}

static int wl_read(const char *path, char *buf, size_t len, off_t off,
		   struct fuse_file_info *fi)
{
	struct logger *l = me();
	ssize_t n;

	(void)fi;
	if (strcmp(path, "/dev"))
		return -EINVAL;
	if ((uint64_t)off >= l->size)
		return 0;
	if ((uint64_t)off + len > l->size)
		len = l->size - (uint64_t)off;
	n = pread(l->backing, buf, len, off);
	return n < 0 ? -errno : (int)n;
}

static int wl_write(const char *path, const char *buf, size_t len, off_t off,
		    struct fuse_file_info *fi)
{
	struct logger *l = me();
	size_t m = len;
	int rc;

	(void)fi;
	if (!strcmp(path, "/mark")) {
		while (m && (buf[m - 1] == '\n' || buf[m - 1] == 0))
			m--;
		if (m > SECTOR - 33)
			m = SECTOR - 33;
		rc = log_entry(l, 0, 0, F_MARK, NULL, 0, buf, m);
		return rc ? rc : (int)len;
	}
	if (strcmp(path, "/dev"))
		return -EINVAL;
	if (off < 0 || (off % SECTOR) || (len % SECTOR) ||
	    (uint64_t)off + len > l->size)
		return -EINVAL;
	if (write_all(l->backing, buf, len, off))
		return -EIO;
	rc = log_entry(l, (uint64_t)off / SECTOR, len / SECTOR, 0, buf, len,
		       NULL, 0);
	return rc ? rc : (int)len;
}

static int wl_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	(void)fi;
	if (strcmp(path, "/dev"))
		return 0;
	return log_entry(me(), 0, 0, F_FLUSH, NULL, 0, NULL, 0);
}

static int wl_fallocate(const char *path, int mode, off_t off, off_t len,
			struct fuse_file_info *fi)
{
	struct logger *l = me();

	(void)fi;
	if (strcmp(path, "/dev"))
		return -EINVAL;
	if (!(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)))
		return 0;	/* plain allocation: the file is full size */
	if (off < 0 || len <= 0 || (off % SECTOR) || (len % SECTOR) ||
	    (uint64_t)off + (uint64_t)len > l->size)
		return -EINVAL;
	if (fallocate(l->backing, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      off, len) < 0)
		return -errno;
	return log_entry(l, (uint64_t)off / SECTOR, (uint64_t)len / SECTOR,
			 F_DISCARD, NULL, 0, NULL, 0);
}

static const struct fuse_operations ops = {
	.init		= wl_init,
	.getattr	= wl_getattr,
	.readdir	= wl_readdir,
	.open		= wl_open,
	.truncate	= wl_truncate,
	.read		= wl_read,
	.write		= wl_write,
	.fsync		= wl_fsync,
	.fallocate	= wl_fallocate,
};

int main(int argc, char **argv)
{
	struct logger l;
	struct stat st;
	char *fargv[8];
	int fargc = 0, rc;

	if (argc != 4) {
		fprintf(stderr, "usage: e4wlogd BACKING LOG MOUNTPOINT\n");
		return 2;
	}
	memset(&l, 0, sizeof(l));
	l.backing = open(argv[1], O_RDWR);
	if (l.backing < 0 || fstat(l.backing, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	l.size = (uint64_t)st.st_size;
	l.log = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (l.log < 0) {
		perror(argv[2]);
		return 1;
	}
	l.log_end = SECTOR;
	if (write_super(&l)) {
		perror(argv[2]);
		return 1;
	}
	fargv[fargc++] = argv[0];
	fargv[fargc++] = "-f";			/* foreground */
	fargv[fargc++] = "-s";			/* single-threaded */
	fargv[fargc++] = "-o";
	fargv[fargc++] = "fsname=e4wlogd,subtype=e4wlogd";
	fargv[fargc++] = argv[3];
	fargv[fargc] = NULL;
	rc = fuse_main(fargc, fargv, &ops, &l);
	if (fsync(l.log) < 0 || close(l.log) < 0 || l.failed) {
		fprintf(stderr, "e4wlogd: %s: log incomplete\n", argv[2]);
		rc = 1;
	}
	close(l.backing);
	return rc;
}
