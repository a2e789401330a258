/*
 * stack.c --- the block-device stack of a target, from sysfs: a loop
 * device sits on its backing file or device (loop/backing_file,
 * LOOP_GET_STATUS64), a partition on its disk, a dm/md device on its
 * slaves/; holders/, the partitions of a disk and the loop devices over a
 * file or device sit on it.  target.c checks every layer: a loop device
 * over a loop device over the input is the input, a loop device over a
 * mounted one writes the mounted fs.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/loop.h>

#include "stack.h"

#define LOOP_MAJOR_NR	7

/* A bound loop device and what it sits on. */
struct loop_ent {
	dev_t	rdev;
	int	on_blk;		/* backed by a block device */
	dev_t	brdev;		/* on_blk: its number */
	dev_t	dev, dev2;	/* a file: both views (stack.h) */
	ino_t	ino, ino2;
	char	name[32];	/* loopN */
	char	backing[224];	/* loop/backing_file */
};

struct loops {
	int		n;
	struct loop_ent	e[256];
};

int e4s_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return 0;
}

/* "MAJ:MIN" in sysfs file @path; 0 or -1. */
static int dev_of(const char *path, dev_t *rdev)
{
	unsigned int maj, min;
	char num[32];

	if (e4s_read_line(path, num, sizeof(num)) ||
	    sscanf(num, "%u:%u", &maj, &min) != 2)
		return -1;
	*rdev = makedev(maj, min);
	return 0;
}

/* Every bound loop device (/sys/block/loop*), in one pass. */
static void scan_loops(struct loops *lt)
{
	struct dirent *de;
	DIR *d = opendir("/sys/block");

	lt->n = 0;
	while (d && (de = readdir(d)) &&
	       lt->n < (int)(sizeof(lt->e) / sizeof(lt->e[0]))) {
		struct loop_ent *e = &lt->e[lt->n];
		struct loop_info64 li;
		char p[300];
		struct stat st;
		int fd, have_ioctl = 0;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%.31s", de->d_name);
		snprintf(p, sizeof(p), "/sys/block/%s/dev", de->d_name);
		if (dev_of(p, &e->rdev))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file",
			 de->d_name);
		if (e4s_read_line(p, e->backing, sizeof(e->backing)))
			continue;	/* not bound */
		if (!stat(e->backing, &st)) {
			/* sysfs and stat() tell it; no open of a device
			 * that may be another program's. */
			if (S_ISBLK(st.st_mode)) {
				e->on_blk = 1;
				e->brdev = st.st_rdev;
			} else {
				e->dev = e->dev2 = st.st_dev;
				e->ino = e->ino2 = st.st_ino;
			}
			lt->n++;
			continue;
		}
		/* A deleted or unreachable backing name: ask the device. */
		snprintf(p, sizeof(p), "/dev/%s", de->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			if (!ioctl(fd, LOOP_GET_STATUS64, &li))
				have_ioctl = 1;
			close(fd);
		}
		if (!have_ioctl)
			continue;	/* nothing known of its backing */
		if (li.lo_rdevice) {
			e->on_blk = 1;
			e->brdev = (dev_t)li.lo_rdevice;
		} else {
			e->dev = e->dev2 = (dev_t)li.lo_device;
			e->ino = e->ino2 = (ino_t)li.lo_inode;
		}
		lt->n++;
	}
	if (d)
		closedir(d);
}

char *e4s_stack_node(dev_t rdev, char *buf, size_t len)
{
	char p[300], link[PATH_MAX];
	struct stat st;
	ssize_t k;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(rdev),
		 minor(rdev));
	k = readlink(p, link, sizeof(link) - 1);
	if (k > 0) {
		const char *base;

		link[k] = 0;
		base = strrchr(link, '/');
		snprintf(buf, len, "/dev/%s", base ? base + 1 : link);
		if (!stat(buf, &st) && S_ISBLK(st.st_mode) &&
		    st.st_rdev == rdev)
			return buf;
	}
	snprintf(buf, len, "/dev/block/%u:%u", major(rdev), minor(rdev));
	if (!stat(buf, &st) && S_ISBLK(st.st_mode) && st.st_rdev == rdev)
		return buf;
	return NULL;
}

static int same_layer(const struct e4s_layer *a, const struct e4s_layer *b)
{
	if (a->blk || b->blk)
		return a->blk && b->blk && a->rdev == b->rdev;
	return (a->dev == b->dev && a->ino == b->ino) ||
		(a->dev2 == b->dev2 && a->ino2 == b->ino2) ||
		(a->dev == b->dev2 && a->ino == b->ino2) ||
		(a->dev2 == b->dev && a->ino2 == b->ino);
}

/* Add layer @x reached from @from (going up if @up); its index, or -1
 * when it is there already or there is no room. */
static int add(struct e4s_stack *s, struct e4s_layer *x, int from, int up)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (same_layer(&s->l[i], x))
			return -1;
	if (s->n >= E4S_STACK_MAX) {
		s->truncated = 1;
		return -1;
	}
	x->from = from;
	x->up = up;
	s->l[s->n] = *x;
	return s->n++;
}

/* A block layer for @rdev, its name from sysfs. */
static void blk_layer(struct e4s_layer *x, dev_t rdev)
{
	char p[300];
	struct stat st;

	memset(x, 0, sizeof(*x));
	x->blk = 1;
	x->rdev = rdev;
	if (!e4s_stack_node(rdev, x->name, sizeof(x->name)))
		snprintf(x->name, sizeof(x->name), "block device %u:%u",
			 major(rdev), minor(rdev));
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", major(rdev),
		 minor(rdev));
	x->part = !stat(p, &st);
}

/* The sector range of partition @rdev; 0 or -1. */
static int part_range(dev_t rdev, unsigned long long *start,
		      unsigned long long *size)
{
	char p[300], v[64];

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/start", major(rdev),
		 minor(rdev));
	if (e4s_read_line(p, v, sizeof(v)) || sscanf(v, "%llu", start) != 1)
		return -1;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/size", major(rdev),
		 minor(rdev));
	if (e4s_read_line(p, v, sizeof(v)) || sscanf(v, "%llu", size) != 1)
		return -1;
	return 0;
}

/* Do partitions @a and @b of one disk overlap?  Unknown: they do. */
static int parts_overlap(dev_t a, dev_t b)
{
	unsigned long long sa, na, sb, nb;

	if (part_range(a, &sa, &na) || part_range(b, &sb, &nb))
		return 1;
	return sa < sb + nb && sb < sa + na;
}

/* The layers under block layer @i (its backing, disk, slaves). */
static void go_down(struct e4s_stack *s, const struct loops *lt, int i)
{
	struct e4s_layer x;
	char p[300], link[PATH_MAX];
	dev_t rdev = s->l[i].rdev;
	struct dirent *de;
	DIR *d;
	int k;

	for (k = 0; k < lt->n; k++) {
		const struct loop_ent *e = &lt->e[k];

		if (e->rdev != rdev)
			continue;
		memset(&x, 0, sizeof(x));
		if (e->on_blk) {
			blk_layer(&x, e->brdev);
		} else {
			x.dev = e->dev;
			x.ino = e->ino;
			x.dev2 = e->dev2;
			x.ino2 = e->ino2;
		}
		snprintf(x.name, sizeof(x.name), "%s", e->backing);
		add(s, &x, i, 0);
	}
	if (s->l[i].part) {
		ssize_t n;
		char *slash;

		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(rdev),
			 minor(rdev));
		n = readlink(p, link, sizeof(link) - 40);
		if (n > 0) {
			dev_t disk;
			char full[PATH_MAX + 40];

			link[n] = 0;
			slash = strrchr(link, '/');
			if (slash) {
				*slash = 0;
				snprintf(full, sizeof(full),
					 "/sys/dev/block/%s/dev", link);
				if (!dev_of(full, &disk)) {
					blk_layer(&x, disk);
					x.via_part = 1;
					add(s, &x, i, 0);
				}
			}
		}
	}
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/slaves", major(rdev),
		 minor(rdev));
	d = opendir(p);
	while (d && (de = readdir(d))) {
		char q[600];
		dev_t sr;

		if (de->d_name[0] == '.')
			continue;
		snprintf(q, sizeof(q), "/sys/class/block/%s/dev", de->d_name);
		if (dev_of(q, &sr))
			continue;
		blk_layer(&x, sr);
		add(s, &x, i, 0);
	}
	if (d)
		closedir(d);
}

/* The partition of the path to disk layer @i (reached via_part). */
static dev_t path_part(const struct e4s_stack *s, int i)
{
	int f = s->l[i].from;

	return f >= 0 && s->l[f].blk && s->l[f].part ? s->l[f].rdev : 0;
}

/* The layers on layer @i (loop devices over it, holders, partitions). */
static void go_up(struct e4s_stack *s, const struct loops *lt, int i)
{
	struct e4s_layer x, *me = &s->l[i];
	char p[300];
	struct dirent *de;
	DIR *d;
	int k;

	for (k = 0; k < lt->n; k++) {
		const struct loop_ent *e = &lt->e[k];
		struct e4s_layer f;

		if (me->blk) {
			if (!e->on_blk || e->brdev != me->rdev)
				continue;
		} else {
			memset(&f, 0, sizeof(f));
			f.dev = e->dev;
			f.ino = e->ino;
			f.dev2 = e->dev2;
			f.ino2 = e->ino2;
			if (e->on_blk || !same_layer(&f, me))
				continue;
		}
		blk_layer(&x, e->rdev);
		add(s, &x, i, 1);
		me = &s->l[i];
	}
	if (!me->blk)
		return;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/holders",
		 major(me->rdev), minor(me->rdev));
	d = opendir(p);
	while (d && (de = readdir(d))) {
		char q[600];
		dev_t hr;

		if (de->d_name[0] == '.')
			continue;
		snprintf(q, sizeof(q), "/sys/class/block/%s/dev", de->d_name);
		if (dev_of(q, &hr))
			continue;
		blk_layer(&x, hr);
		add(s, &x, i, 1);
	}
	if (d)
		closedir(d);
	/* Partitions: subdirectories with a "partition" file. */
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", major(s->l[i].rdev),
		 minor(s->l[i].rdev));
	d = opendir(p);
	while (d && (de = readdir(d))) {
		char q[600];
		struct stat st;
		dev_t pr, mine;

		if (de->d_name[0] == '.')
			continue;
		snprintf(q, sizeof(q), "%s/%s/partition", p, de->d_name);
		if (stat(q, &st))
			continue;
		snprintf(q, sizeof(q), "%s/%s/dev", p, de->d_name);
		if (dev_of(q, &pr))
			continue;
		/* Reached from one partition: only the ones overlapping
		 * it share bytes with the path. */
		mine = s->l[i].via_part ? path_part(s, i) : 0;
		if (mine && pr != mine && !parts_overlap(pr, mine))
			continue;
		blk_layer(&x, pr);
		add(s, &x, i, 1);
	}
	if (d)
		closedir(d);
}

void e4s_stack_build(const char *path, const struct stat *st,
		     struct e4s_stack *s)
{
	struct loops *lt;
	int i;

	memset(&s->l[0], 0, sizeof(s->l[0]));
	s->n = 1;
	s->truncated = 0;
	s->l[0].from = -1;
	snprintf(s->l[0].name, sizeof(s->l[0].name), "%s", path);
	if (S_ISBLK(st->st_mode)) {
		char p[300];
		struct stat ps;

		s->l[0].blk = 1;
		s->l[0].rdev = st->st_rdev;
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition",
			 major(st->st_rdev), minor(st->st_rdev));
		s->l[0].part = !stat(p, &ps);
	} else if (S_ISREG(st->st_mode)) {
		s->l[0].dev = s->l[0].dev2 = st->st_dev;
		s->l[0].ino = s->l[0].ino2 = st->st_ino;
	} else {
		return;
	}
	lt = malloc(sizeof(*lt));
	if (!lt)
		return;
	scan_loops(lt);
	/* Down from the target, to the end of every branch... */
	for (i = 0; i < s->n; i++)
		if (s->l[i].blk)
			go_down(s, lt, i);
	/* ...then up from each of those, and from all that is found. */
	for (i = 0; i < s->n; i++)
		go_up(s, lt, i);
	free(lt);
}

int e4s_stack_find(const struct e4s_stack *s, const struct stat *st)
{
	struct e4s_layer x;
	int i;

	memset(&x, 0, sizeof(x));
	if (S_ISBLK(st->st_mode)) {
		x.blk = 1;
		x.rdev = st->st_rdev;
	} else {
		x.dev = x.dev2 = st->st_dev;
		x.ino = x.ino2 = st->st_ino;
	}
	for (i = 0; i < s->n; i++)
		if (same_layer(&s->l[i], &x))
			return i;
	return -1;
}

char *e4s_stack_chain(const struct e4s_stack *s, int i, char *buf,
		      size_t len)
{
	int path[E4S_STACK_MAX], n = 0, k;
	size_t at = 0;

	for (k = i; k >= 0 && n < E4S_STACK_MAX; k = s->l[k].from)
		path[n++] = k;
	buf[0] = 0;
	for (k = n - 1; k >= 0 && at < len; k--) {
		int w = snprintf(buf + at, len - at, "%s%s",
				 k == n - 1 ? "" : s->l[path[k]].up ?
				 " <- " : " -> ", s->l[path[k]].name);

		if (w < 0)
			break;
		at += (size_t)w;
	}
	return buf;
}

int e4s_stack_via_loop(const struct e4s_stack *s, int i)
{
	for (; i >= 0; i = s->l[i].from)
		if (s->l[i].blk && major(s->l[i].rdev) == LOOP_MAJOR_NR)
			return 1;
	return 0;
}
