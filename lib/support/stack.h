/*
 * stack.h --- the block-device stack of a file or device (stack.c): what
 * it sits on (a loop device's backing file or device, a partition's disk,
 * a dm/md device's slaves) and what sits on it (loop devices over it,
 * holders, partitions), followed through sysfs to the end, so the target
 * checks of target.c see every layer a write reaches.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_STACK_H
#define E4_SUPPORT_STACK_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define E4S_STACK_MAX	64

/* One layer: a block device or a regular file. */
struct e4s_layer {
	int		blk;		/* a block device (else a file) */
	dev_t		rdev;		/* blk: its number */
	dev_t		dev, dev2;	/* file: st_dev (LOOP_GET_STATUS64's
					 * and stat()'s view) */
	ino_t		ino, ino2;	/* file: st_ino, likewise */
	int		from;		/* the layer it was reached from, -1
					 * for the target itself */
	int		up;		/* reached going up: it sits on
					 * @from (else @from sits on it) */
	int		via_part;	/* a disk reached as the disk of a
					 * partition of the path: only that
					 * partition's range of it is
					 * written (siblings elsewhere on it
					 * are not reached) */
	int		part;		/* a partition (sysfs "partition") */
	char		name[256];	/* /dev/NAME, or the backing path */
};

/*
 * Every layer a write of the target reaches: the target (layer 0), all it
 * sits on (down), then all that sits on any of those (up).  Partitions of
 * a disk reached from one of its partitions are included only when their
 * sector ranges overlap it.  @truncated: more layers than E4S_STACK_MAX.
 */
struct e4s_stack {
	int			n;
	int			truncated;
	struct e4s_layer	l[E4S_STACK_MAX];
};

/*
 * e4s_stack_build() - fill @s with the layers of @path (stat()ed into
 * @st: a regular file or a block device; anything else gives a stack of
 * one layer).  Reads sysfs (/sys/dev/block/MAJ:MIN, /sys/block/loop*) and
 * LOOP_GET_STATUS64 of each bound loop device; never writes.
 */
void e4s_stack_build(const char *path, const struct stat *st,
		     struct e4s_stack *s);

/*
 * e4s_stack_find() - the index of the layer of @s that is the file or
 * device @st (a block device by number, a file by device and inode in
 * either view), or -1.
 */
int e4s_stack_find(const struct e4s_stack *s, const struct stat *st);

/*
 * e4s_stack_chain() - the path from the target to layer @i of @s into
 * @buf: "NAME -> NAME" where the left one sits on the right one, "NAME <-
 * NAME" where the right one sits on the left (e.g. "/dev/loop5 ->
 * /dev/loop4 -> /work/a.img").  Returns @buf.
 */
char *e4s_stack_chain(const struct e4s_stack *s, int i, char *buf,
		      size_t len);

/* e4s_stack_via_loop() - nonzero if the path to layer @i of @s goes
 * through a loop device. */
int e4s_stack_via_loop(const struct e4s_stack *s, int i);

/*
 * e4s_stack_node() - a device node of block device @rdev, for opens and
 * mount checks: /dev/NAME from sysfs when it is that device, else
 * /dev/block/MAJ:MIN; into @buf.  Returns @buf, or NULL when none exists.
 */
char *e4s_stack_node(dev_t rdev, char *buf, size_t len);

/*
 * e4s_read_line() - the first line of @path (a sysfs attribute, a
 * /proc file) into @buf of @len bytes, without its newline.  Returns 0,
 * or -1 when it cannot be opened or read.
 */
int e4s_read_line(const char *path, char *buf, size_t len);

#endif
