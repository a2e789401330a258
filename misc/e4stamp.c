/*
 * e4stamp.c --- stamp a file or device with the stale-data pattern, or
 * count the stale units it still holds (see e4stamp(8)).  The pattern and
 * the predicate live in libe4 (lib/e4/stamp.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <et/com_err.h>

#include "e4.h"
#include "json.h"
#include "options.h"
#include "parse.h"
#include "target.h"

static const char *prog = "e4stamp";

static const char usage_text[] =
	"Usage: %1$s [-f] [-o offset] [-l length] [-s size] "
	"[-b bufsize] device\n"
	"       %1$s -c [--json [--digest]] [-o offset] [-l length] device\n"
	"       %1$s -c [--json [--digest]] -B blocksize device "
	"block[-block]...\n"
	"       %1$s -V | --version | -h | --help\n"
	"Sizes and offsets in bytes, suffixes K M G; multiples of "
	"1024.\n";

static void usage(void)
{
	e4s_usage(stderr, prog, usage_text);
	exit(16);
}

/*
 * Progress on a terminal, in the style of libext2fs's numeric progress
 * meter (ext2fs_numeric_progress_update(): "label: done/total", redrawn
 * in place with backspaces, at most once a second).
 */
struct progress {
	int	on;
	time_t	last;
	int	width;		/* characters drawn last */
};

static void progress_update(struct progress *p, uint64_t done,
			    uint64_t total)
{
	time_t now;

	if (!p->on)
		return;
	now = time(NULL);
	if (now == p->last && done < total)
		return;
	p->last = now;
	p->width = printf("%*s%llu/%llu MiB", 0, "",
			  (unsigned long long)(done >> 20),
			  (unsigned long long)((total + (1 << 20) - 1) >> 20));
	printf("%.*s", p->width, "\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b"
	       "\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b");
	fflush(stdout);
}

static void progress_init(struct progress *p, const char *dev)
{
	memset(p, 0, sizeof(*p));
	p->on = isatty(STDOUT_FILENO);
	if (p->on)
		printf("Stamping %s: ", dev);
}

static void progress_close(struct progress *p)
{
	if (p->on)
		printf("%*s%.*s done\n", p->width, "", p->width,
		       "\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b"
		       "\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b");
}

static int do_stamp(const char *dev, int fd, uint64_t off, uint64_t len,
		    size_t bufsize)
{
	struct progress prog_meter;
	unsigned char *buf;
	uint64_t pos = off;

	buf = malloc(bufsize);
	if (!buf) {
		com_err(prog, ENOMEM, "while allocating a %zu-byte buffer",
			bufsize);
		return 8;
	}
	progress_init(&prog_meter, dev);
	while (pos < off + len) {
		size_t n = bufsize;
		ssize_t w;

		progress_update(&prog_meter, pos - off, len);

		if (n > off + len - pos)
			n = off + len - pos;
		e4_stamp_fill(buf, pos, n);
		w = pwrite(fd, buf, n, (off_t)pos);
		if (w != (ssize_t)n) {
			com_err(prog, w < 0 ? errno : EIO,
				"while writing %s at byte %llu", dev,
				(unsigned long long)pos);
			free(buf);
			return 8;
		}
		pos += n;
	}
	free(buf);
	progress_close(&prog_meter);
	if (fsync(fd) && errno != EINVAL) {
		com_err(prog, errno, "while syncing %s", dev);
		return 8;
	}
	return 0;
}

/* Count stale units in [off, off+len); with @bs, also stale blocks. */
static int count_range(const char *dev, int fd, uint64_t off, uint64_t len,
		       unsigned int bs, size_t bufsize, uint64_t *units,
		       uint64_t *stale, uint64_t *blocks, uint64_t *sblocks)
{
	unsigned char *buf;
	uint64_t pos = off;

	if (bs && bufsize % bs)
		bufsize = bs;
	buf = malloc(bufsize);
	if (!buf) {
		com_err(prog, ENOMEM, "while allocating a buffer");
		return 8;
	}
	while (pos < off + len) {
		size_t n = bufsize, i;
		ssize_t r;

		if (n > off + len - pos)
			n = off + len - pos;
		r = pread(fd, buf, n, (off_t)pos);
		if (r != (ssize_t)n) {
			com_err(prog, r < 0 ? errno : EIO,
				"while reading %s at byte %llu", dev,
				(unsigned long long)pos);
			free(buf);
			return 8;
		}
		*units += e4_stamp_units(pos, n);
		if (bs) {
			for (i = 0; i < n; i += bs) {
				size_t s = e4_stamp_count_stale(buf + i,
								pos + i, bs);
				*stale += s;
				*blocks += 1;
				*sblocks += s != 0;
			}
		} else {
			*stale += e4_stamp_count_stale(buf, pos, n);
		}
		pos += n;
	}
	free(buf);
	return 0;
}
/*
 * ftruncate() said EFBIG: the file system holding @dev allows no file of
 * @size bytes.  Find its largest file size (4 KiB steps, by ftruncate()
 * itself: the limit is the file system's, e.g. 16 TiB - 4 KiB for ext4
 * with 4 KiB blocks), put the size back to @was, and say both.
 */
/* "a FIFO", "a character device", ... for a refusal line. */
static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
		S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" :
		S_ISLNK(m) ? "a symbolic link" : "not a file";
}

static void say_max_size(int fd, const char *dev, off_t size, off_t was)
{
	uint64_t lo = (uint64_t)was / 4096, hi = (uint64_t)size / 4096, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ftruncate(fd, (off_t)(mid * 4096)) == 0)
			lo = mid;
		else
			hi = mid;
	}
	if (ftruncate(fd, was))
		com_err(prog, errno, "while putting the size of %s back", dev);
	fprintf(stderr, "%s: -s %jd bytes: the file system holding %s "
		"allows files of at most about %ju bytes (%ju GiB; EFBIG); "
		"nothing written\n",
		prog, (intmax_t)size, dev, (uintmax_t)lo * 4096,
		(uintmax_t)(lo * 4096 >> 30));
}


int main(int argc, char **argv)
{
	char shown[E4S_TEXT_ESC_MAX(PATH_MAX)];	/* a name as text */
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "digest", no_argument, NULL, 'D' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	long long off = 0, len = -1, size = -1, bufsize = 1 << 20, v;
	long long bs = 0;
	uint64_t uv, a, b;
	char what[4];
	int c, check = 0, json = 0, force = 0, fd, rc = 0, i, created;
	int digest = 0;
	uint64_t units = 0, stale = 0, blocks = 0, sblocks = 0, devsize;
	const char *dev;
	struct stat st;
	off_t end;

	add_error_table(&et_e4_error_table);
	e4s_com_err_safe();
	/* --json: one document, failures and usage errors included. */
	if (e4s_json_argv_wants(argc, argv))
		e4s_json_run_begin(8 | 16, 0);
	argv[0] = (char *)prog;	/* getopt's messages name the tool */
	while ((c = getopt_long(argc, argv, "cfB:o:l:s:b:hV", longopts,
				NULL)) != -1) {
		const char *arg = optarg;

		switch (c) {
		case 'h':
			e4s_json_run_cancel();
			e4s_usage(stdout, prog, usage_text);
			return 0;
		case 'V':
			e4s_json_run_cancel();
			e4s_print_version(prog);
			return 0;
		case 'D': digest = 1; e4s_json_run_want_digest(); break;
		case 'c': check = 1; break;
		case 'f': force = 1; break;
		case 'J': json = 1; break;
		case 'o': case 'l': case 's': case 'b': case 'B':
			snprintf(what, sizeof(what), "-%c", c);
			if (e4s_parse_size(prog, what, arg, &uv))
				return 16;
			v = (long long)uv;
			if (v % 1024 || ((c == 'b' || c == 'B') && v == 0)) {
				fprintf(stderr, "%s: invalid -%c '%s' (a "
					"multiple of 1024 up to 4E, suffixes "
					"K M G)\n", prog, c, arg);
				return 16;
			}
			if (c == 'B' && (v & (v - 1))) {
				fprintf(stderr, "%s: invalid -B '%s' (a "
					"power of two)\n", prog, arg);
				return 16;
			}
			if (c == 'o') off = v;
			else if (c == 'l') len = v;
			else if (c == 's') size = v;
			else if (c == 'b') bufsize = v;
			else bs = v;
			break;
		default:
			usage();
		}
	}
	e4s_json_run_mode(check ? "count" : "stamp");
	if (optind < argc)
		e4s_json_run_image(argv[optind]);
	if (optind >= argc)
		usage();
	if (digest && !json) {
		fprintf(stderr, "%s: --digest goes with --json\n", prog);
		return 16;
	}
	if (!check && (argc - optind != 1 || bs || json)) {
		fprintf(stderr, "%s: %s goes with -c\n", prog,
			bs ? "-B" : json ? "--json" : "a block list");
		return 16;
	}
	if (check && size >= 0) {
		fprintf(stderr, "%s: -s does not go with -c\n", prog);
		return 16;
	}
	if (check && argc - optind > 1 && !bs) {
		fprintf(stderr, "%s: block numbers need -B blocksize\n",
			prog);
		return 16;
	}
	if (check && argc - optind > 1 && (off || len >= 0)) {
		fprintf(stderr, "%s: -o and -l do not go with a block "
			"list\n", prog);
		return 16;
	}
	dev = argv[optind];
	if (check && force) {
		fprintf(stderr, "%s: -f goes with stamping, not -c\n", prog);
		return 16;
	}
	if (check) {
		/* A shared lock for a consistent count; mounted: a warning. */
		struct e4s_target t = {
			.what = "device", .path = dev, .flags = E4S_T_ANY,
		};
		errcode_t retval = e4s_check_targets(prog, &t, 1);

		/* t's lock is held until the process exits. */
		if (retval)
			return e4s_usage_error(retval) ? 16 : 8;
	} else {
		errcode_t retval;
		char found[512];
		struct e4s_target t = {
			.what = "device", .path = dev,
			.flags = E4S_T_WRITE | E4S_T_REG | E4S_T_BLK |
			(size >= 0 ? E4S_T_CREATE : 0),
		};

		/* Mounted, held, a busy layer under or over it, locked by
		 * another run: never, even with -f.  The lock and the
		 * claims are held until the process exits. */
		retval = e4s_check_targets(prog, &t, 1);
		if (retval)
			return e4s_usage_error(retval) ? 16 : 8;
		/* What it holds (libblkid), as mke2fs asks: -f to go on. */
		if (t.exists && !force) {
			int r = e4s_probe_contents(dev, found, sizeof(found));

			if (r) {
				fprintf(stderr, "%s: %s %s %s; stamping "
					"destroys it: use -f to stamp it "
					"anyway; nothing written\n", prog, dev,
					r > 0 ? "holds" : "cannot be probed:",
					found);
				return 8;
			}
		}
	}
	/* -s: the range must fit the new size; decided before any open. */
	if (size >= 0) {
		if (len < 0)
			len = size > off ? size - off : 0;
		if (off + len > size) {
			fprintf(stderr, "%s: range [%lld, %lld) lies past "
				"-s %lld bytes; nothing written\n", prog, off,
				off + len, size);
			return 16;
		}
	}
	/*
	 * -c reads a regular file or a block device, nothing else: a FIFO's
	 * open would block until a writer comes (and its reads consume
	 * what it carries), a character device or socket has no size to
	 * check a range against (/dev/zero: "0 of 0 units").  Decided by
	 * stat(2), before any open.
	 */
	if (check && stat(dev, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "%s: %s is %s, not a regular file or block "
			"device; nothing checked\n", prog, dev,
			file_kind(st.st_mode));
		return 16;
	}
	created = 0;
	fd = open(dev, check ? O_RDONLY | O_NONBLOCK : O_RDWR |
		  (stat(dev, &st) == 0 && S_ISBLK(st.st_mode) ? O_EXCL : 0));
	/* (a name swapped for a FIFO after the stat: O_NONBLOCK keeps the
	 * open from waiting, and the fstat() below refuses it) */
	if (fd >= 0 && check && (fstat(fd, &st) || (!S_ISREG(st.st_mode) &&
						    !S_ISBLK(st.st_mode)))) {
		fprintf(stderr, "%s: %s is %s, not a regular file or block "
			"device; nothing checked\n", prog, dev,
			file_kind(st.st_mode));
		close(fd);
		return 16;
	}
	if (fd < 0 && errno == ENOENT && size >= 0) {
		fd = open(dev, O_RDWR | O_CREAT | O_EXCL, 0644);
		created = fd >= 0;
	}
	if (fd < 0) {
		com_err(prog, errno, "while opening %s", dev);
		return 8;
	}
	if (size >= 0) {
		const char *why = NULL;
		int shrink = 0;

		errno = 0;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode))
			why = "-s needs a regular file";
		else if ((shrink = st.st_size > size))
			/* Shrinking would lose what lies past the range. */
			why = "-s is smaller than the file: e4stamp never "
			      "shrinks a file";
		else if (ftruncate(fd, size) && errno == EFBIG) {
			/* Name the limit (the size is put back). */
			say_max_size(fd, dev, size, st.st_size);
			why = "";
		}
		if (why || errno) {
			if (why && *why)
				fprintf(stderr, "%s: cannot set the size of "
					"%s to %lld bytes: %s; nothing "
					"written\n", prog, dev, size, why);
			else if (!why)
				com_err(prog, errno, "while setting the "
					"size of %s; nothing written", dev);
			close(fd);
			if (created)
				unlink(dev);
			return shrink ? 16 : 8;
		}
	}
	end = lseek(fd, 0, SEEK_END);
	if (end < 0) {
		com_err(prog, errno, "while finding the size of %s", dev);
		close(fd);
		return 8;
	}
	devsize = (uint64_t)end;
	if (len < 0)
		len = devsize > (uint64_t)off ? (long long)(devsize - off) : 0;
	if ((uint64_t)off + len > devsize) {
		fprintf(stderr, "%s: range [%lld, %lld) lies past the end of "
			"%s (%llu bytes)\n", prog, off, off + len, dev,
			(unsigned long long)devsize);
		close(fd);
		return 16;
	}
	if (!check) {
		rc = do_stamp(dev, fd, off, len, bufsize);
		if (!rc)
			printf("%s: stamped bytes [%lld, %lld) (%lld units)\n",
			       e4s_text_escape(dev, shown, sizeof(shown)),
			       off, off + len, len / 1024);
		close(fd);
		return rc;
	}
	if (argc - optind > 1) {
		for (i = optind + 1; i < argc && !rc; i++) {
			if (e4s_parse_range(prog, "block range", argv[i], &a,
					    &b)) {
				close(fd);
				return 16;
			}
			if (b >= devsize / bs) {
				fprintf(stderr, "%s: block range '%s' lies "
					"past the end of %s (%llu blocks of "
					"%lld bytes)\n", prog, argv[i], dev,
					(unsigned long long)(devsize / bs),
					bs);
				close(fd);
				return 16;
			}
			rc = count_range(dev, fd, a * bs, (b - a + 1) * bs,
					 bs, bufsize, &units, &stale, &blocks,
					 &sblocks);
		}
	} else {
		rc = count_range(dev, fd, off, len, bs, bufsize, &units,
				 &stale, &blocks, &sblocks);
	}
	close(fd);
	if (rc)
		return rc;
	if (!units) {
		/* Nothing looked at is no count: an empty file or range,
		 * or one shorter than a unit's 16-byte stamp. */
		fprintf(stderr, "%s: %s: no 1024-byte unit in the range "
			"[%lld, %lld) (%llu bytes); nothing checked\n", prog,
			dev, off, off + len, (unsigned long long)devsize);
		return 8;
	}
	if (json) {
		struct e4s_json js;

		e4s_json_init(&js, stdout);
		e4s_json_obj_begin(&js, NULL);
		e4s_json_u64(&js, "units", units);
		e4s_json_u64(&js, "stale_units", stale);
		if (bs) {
			e4s_json_u64(&js, "blocksize", bs);
			e4s_json_u64(&js, "blocks", blocks);
			e4s_json_u64(&js, "stale_blocks", sblocks);
		}
		e4s_json_obj_end(&js);
		e4s_json_finish(&js);
	} else {
		printf("%s: %llu of %llu units stale",
		       e4s_text_escape(dev, shown, sizeof(shown)),
		       (unsigned long long)stale, (unsigned long long)units);
		if (bs)
			printf(", %llu of %llu blocks stale",
			       (unsigned long long)sblocks,
			       (unsigned long long)blocks);
		printf("\n");
	}
	return 0;
}
