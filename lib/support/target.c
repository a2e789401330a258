/*
 * target.c --- write-target safety for every e4tools program: one place
 * that checks a file or device before the first byte is written (mounted,
 * held by the kernel, backing a mounted loop device, big enough, distinct
 * from the other names), temporary-name-then-rename outputs and undo
 * files, and libblkid probing of what a target holds.
 *
 * The rules follow e2fsprogs (ext2fs_check_mount_point(), mke2fs's
 * check_plausibility() with libblkid) and the kernel's exclusive opens
 * (an O_EXCL open of a block device fails with EBUSY while the kernel
 * holds it: mounted, the external journal of a mounted fs (journal_path=,
 * blkdev_get_by_dev(..., holder)), an md/dm member).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/loop.h>
#include <blkid.h>
#include <et/com_err.h>

#include "undo_guard.h"
#include "stack.h"
#include "target.h"

/* ---- names ---- */

/* Two names for one file: one inode, or two nodes of one block device. */
static int same_file(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode))
		return a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The directory of @path into @dir; returns the base name. */
static const char *split_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, len, ".");
		return path;
	}
	snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path),
		 path);
	return slash + 1;
}

/* Two names of files yet to be created that name one new file. */
static int same_new_file(const char *a, const char *b)
{
	char da[4096], db[4096];
	const char *ba = split_dir(a, da, sizeof(da));
	const char *bb = split_dir(b, db, sizeof(db));
	struct stat sa, sb;

	if (strcmp(ba, bb) || stat(da, &sa) < 0 || stat(db, &sb) < 0)
		return 0;
	return same_file(&sa, &sb);
}

/* ---- in use by the kernel ---- */

/*
 * Is block device @rdev mounted by number (a mount through another node
 * name, or from another mount namespace's view of /dev)?  The mount point
 * goes to @mtpt.  /proc/self/mountinfo field 3 is "major:minor".
 */
static int mounted_by_number(dev_t rdev, char *mtpt, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		char mp[4096];

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min,
			   mp) != 3)
			continue;
		if (makedev(maj, min) == rdev) {
			snprintf(mtpt, len, "%s", mp);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* The first holder of @rdev in sysfs (a dm or md device) into @name. */
static int held_by(dev_t rdev, char *name, size_t len)
{
	char path[128];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders",
		 major(rdev), minor(rdev));
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, len, "%s", de->d_name);
		found = 1;
	}
	closedir(d);
	return found;
}

/*
 * Loop devices this process holds O_EXCL (e4s_check_targets() claims the
 * idle loop devices of a written target's stack): held by us, they are
 * free for our own later checks (an O_EXCL probe would fail on our own
 * claim).  Process state of the tools, not of libe4.
 */
static struct {
	dev_t	rdev;
	int	fd;
} held[E4S_MAX_CLAIMS * 4];
static int nheld;

static int held_by_us(dev_t rdev)
{
	int i;

	for (i = 0; i < nheld; i++)
		if (held[i].rdev == rdev)
			return 1;
	return 0;
}

/*
 * Why block device @node (number @rdev) cannot be written, without an
 * exclusive open: mounted, swap, held by dm/md, and with @parts a
 * partition of it mounted or held.  Into @why; 0 when none.
 */
static int device_used(const char *node, dev_t rdev, int parts, char *why,
		       size_t len)
{
	char buf[4096], sys[160];
	struct dirent *de;
	int mf = 0;
	DIR *d;

	buf[0] = 0;
	if (node && ext2fs_check_mount_point(node, &mf, buf,
					     sizeof(buf)) == 0) {
		if (mf & EXT2_MF_MOUNTED) {
			snprintf(why, len, "is mounted%s%s", buf[0] ?
				 " on " : "", buf);
			return 1;
		}
		if (mf & EXT2_MF_SWAP) {
			snprintf(why, len, "is in use as swap");
			return 1;
		}
	}
	if (mounted_by_number(rdev, buf, sizeof(buf))) {
		snprintf(why, len, "is mounted on %s", buf);
		return 1;
	}
	if (held_by(rdev, buf, sizeof(buf))) {
		snprintf(why, len, "is held by %s (a dm or md device)", buf);
		return 1;
	}
	if (!parts)
		return 0;
	/* A partition of it that is mounted or held. */
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(rdev),
		 minor(rdev));
	d = opendir(sys);
	while (d && (de = readdir(d))) {
		char p[512], num[32];
		unsigned int maj, min;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/partition", sys, de->d_name);
		if (access(p, F_OK))
			continue;
		snprintf(p, sizeof(p), "%s/%s/dev", sys, de->d_name);
		if (e4s_read_line(p, num, sizeof(num)) ||
		    sscanf(num, "%u:%u", &maj, &min) != 2)
			continue;
		if (mounted_by_number(makedev(maj, min), buf, sizeof(buf)) ||
		    held_by(makedev(maj, min), buf, sizeof(buf))) {
			snprintf(why, len, "has partition %s in use (%s)",
				 de->d_name, buf);
			closedir(d);
			return 1;
		}
	}
	if (d)
		closedir(d);
	return 0;
}

/*
 * The kernel's own claim, or another program's exclusive open: an O_EXCL
 * open of @node fails with EBUSY while a mounted fs has it (also as its
 * external journal, journal_path=), md/dm holds it, or another e4tools run
 * or e4debug session has it open read-write (libext2fs opens devices
 * O_EXCL).  1 with @why set when busy; 0 when free, the open left in
 * *@claim when @claim is not NULL (else closed).
 */
static int device_excl_busy(const char *node, dev_t rdev, char *why,
			    size_t len, int *claim)
{
	char who[256];
	struct stat st;
	int fd;

	fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd >= 0) {
		if (claim)
			*claim = fd;
		else
			close(fd);
		return 0;
	}
	if (errno != EBUSY)
		return 0;	/* unreadable: the real open reports it */
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFBLK;
	st.st_rdev = rdev;
	if (!e4s_opener(&st, who, sizeof(who)))
		snprintf(who, sizeof(who), "no process has it open");
	snprintf(why, len, "is in use by the kernel or by another program "
		 "(opening it exclusively failed: mounted, the external "
		 "journal of a mounted file system, an md/dm member, or "
		 "another e4tools run or e4debug session writing it; %s)",
		 who);
	return 1;
}

/*
 * Why block device @node (number @rdev) cannot be written, into @why
 * ("is mounted on /mnt", ...); 0 when it is free.  With @claim, a free
 * device is left open O_EXCL in *@claim (else closed).
 */
static int device_busy(const char *node, dev_t rdev, char *why, size_t len,
		       int *claim)
{
	if (held_by_us(rdev))
		return 0;	/* our O_EXCL claim: nothing else has it */
	if (device_used(node, rdev, 1, why, len))
		return 1;
	return node ? device_excl_busy(node, rdev, why, len, claim) : 0;
}

/* ---- the stack of a target (stack.c) ---- */

/* What the other target @t is, at the end of a chain. */
static const char *role(const struct e4s_target *t)
{
	if (t->flags & E4S_T_UNDO)
		return "an undo file";
	if (!(t->flags & E4S_T_WRITE))
		return "the input";
	if (t->flags & E4S_T_CREATE)
		return "the output";
	return "the image written in place";
}

/* Print why layer @i of @s makes target @t unwritable. */
static void say_layer(const char *prog, const struct e4s_target *t,
		      const struct e4s_stack *s, int i, const char *why,
		      const char *tail)
{
	char chain[2048];

	if (!i) {
		fprintf(stderr, "%s: %s %s %s; %s\n", prog, t->what, t->path,
			why, tail);
		return;
	}
	/* The chain starts with the target's own name. */
	fprintf(stderr, "%s: %s %s %s; %s\n", prog, t->what,
		e4s_stack_chain(s, i, chain, sizeof(chain)), why, tail);
}

/* The device node of block layer @i of @s (the target's own name for
 * layer 0) into @buf, or NULL when there is none. */
static const char *layer_node(const struct e4s_target *t,
			      const struct e4s_stack *s, int i, char *buf,
			      size_t len)
{
	if (!i)
		return t->path;
	return e4s_stack_node(s->l[i].rdev, buf, len);
}

/* Keep claim @fd of @rdev in @t (or close it when there is no room). */
static void keep_claim(struct e4s_target *t, dev_t rdev, int fd)
{
	if (t->nclaims < E4S_MAX_CLAIMS &&
	    nheld < (int)(sizeof(held) / sizeof(held[0]))) {
		t->claim_fd[t->nclaims++] = fd;
		held[nheld].rdev = rdev;
		held[nheld++].fd = fd;
	} else {
		close(fd);
	}
}

/*
 * Every block layer of @s for a written target @t: first what the kernel
 * says without opening (mounted, swap, dm/md), then the O_EXCL probes;
 * with @claim the idle whole loop devices of the stack (not the target,
 * not a partition, not a disk under a partition of the path) stay held.
 * Returns 0, or EBUSY with @why (and *@at, the layer) set.
 */
static errcode_t stack_busy(struct e4s_target *t, const struct e4s_stack *s,
			    int claim, char *why, size_t len, int *at)
{
	char node[300];
	int i;

	if (s->truncated) {
		snprintf(why, len, "sits in a device stack of more than %d "
			 "layers (not followed to the end)", E4S_STACK_MAX);
		*at = 0;
		return EBUSY;
	}
	for (i = 0; i < s->n; i++) {
		const struct e4s_layer *l = &s->l[i];

		if (!l->blk || held_by_us(l->rdev))
			continue;
		if (device_used(layer_node(t, s, i, node, sizeof(node)),
				l->rdev, !l->via_part, why, len)) {
			*at = i;
			return EBUSY;
		}
	}
	for (i = 0; i < s->n; i++) {
		const struct e4s_layer *l = &s->l[i];
		const char *nd;
		int fd = -1, keep;

		/* A disk under a partition: its O_EXCL open fails while
		 * any partition of it is open so (the partition's own
		 * probe sees a claim of the whole disk). */
		if (!l->blk || l->via_part || held_by_us(l->rdev))
			continue;
		nd = layer_node(t, s, i, node, sizeof(node));
		if (!nd)
			continue;
		keep = claim && i && !l->part && major(l->rdev) == 7;
		if (device_excl_busy(nd, l->rdev, why, len,
				     keep ? &fd : NULL)) {
			*at = i;
			return EBUSY;
		}
		if (fd >= 0)
			keep_claim(t, l->rdev, fd);
	}
	return 0;
}

/*
 * Lock target @t and the layers of its stack @s (lock.c): a writer
 * LOCK_EX on every layer (LOCK_SH on a disk under a partition of the
 * path: other partitions of it are written beside), a reader LOCK_SH on
 * the target and what it sits on.  Returns 0 or EBUSY (printed).
 */
static errcode_t lock_stack(const char *prog, struct e4s_target *t,
			    const struct e4s_stack *s)
{
	int excl = !!(t->flags & E4S_T_WRITE);
	char node[300], why[512], tail[640];
	int i;

	for (i = 0; i < s->n; i++) {
		const struct e4s_layer *l = &s->l[i];
		const char *path;
		int h, down = 1, k;

		for (k = i; k >= 0 && down; k = s->l[k].from)
			down = !s->l[k].up;
		if (!excl && !down)
			continue;
		/* A device by its one devtmpfs node: every name of it
		 * takes the same lock. */
		path = l->blk ? e4s_stack_node(l->rdev, node, sizeof(node)) :
			!i ? t->path : l->name;
		if (!path && !i)
			path = t->path;
		if (!path)
			continue;
		h = e4s_lock_take(path, excl && !l->via_part, why,
				  sizeof(why));
		if (h == -1) {
			char msg[700];

			snprintf(msg, sizeof(msg), "is locked: %s (an "
				 "advisory lock: another e4tools run, an "
				 "e4debug session or flock(1))", why);
			snprintf(tail, sizeof(tail), "%s",
				 excl ? "nothing written" : "nothing read");
			say_layer(prog, t, s, i, msg, tail);
			return EBUSY;
		}
		if (h < 0)
			continue;
		if (t->nlocks < E4S_MAX_LOCKS)
			t->lock[t->nlocks++] = h;
		else
			e4s_lock_drop(h);
	}
	return 0;
}

/* A written target: mounted, held, a busy layer, too small? */
static errcode_t check_in_use(const char *prog, struct e4s_target *t,
			      const struct e4s_stack *s)
{
	char why[1024], mtpt[4096];
	errcode_t retval;
	int mf = 0, at = 0;

	if (S_ISREG(t->st.st_mode)) {
		mtpt[0] = 0;
		if (ext2fs_check_mount_point(t->path, &mf, mtpt,
					     sizeof(mtpt)) == 0 &&
		    (mf & (EXT2_MF_MOUNTED | EXT2_MF_SWAP))) {
			fprintf(stderr, "%s: %s %s is %s%s%s; nothing "
				"written\n", prog, t->what, t->path,
				(mf & EXT2_MF_SWAP) ? "in use as swap" :
				"mounted through a loop device",
				mtpt[0] ? " on " : "", mtpt);
			return EBUSY;
		}
	} else if (!S_ISBLK(t->st.st_mode)) {
		return 0;
	}
	if (stack_busy(t, s, 1, why, sizeof(why), &at)) {
		say_layer(prog, t, s, at, why, "nothing written");
		return EBUSY;
	}
	if (S_ISBLK(t->st.st_mode) && t->min_bytes) {
		uint64_t bytes;

		retval = e4s_size_bytes(t->path, &bytes);
		if (retval) {
			com_err(prog, retval, "while finding the size of %s "
				"%s; nothing written", t->what, t->path);
			return retval;
		}
		if (bytes < t->min_bytes) {
			fprintf(stderr, "%s: %s %s holds %" PRIu64 " bytes, "
				"fewer than the %" PRIu64 " needed; nothing "
				"written\n", prog, t->what, t->path, bytes,
				t->min_bytes);
			return ENOSPC;
		}
	}
	return 0;
}

/*
 * Targets @a and @b (both existing) one file through their stacks?  1
 * after printing the chain from one to the other.
 */
static int one_file(const char *prog, const struct e4s_target *t,
		    const struct e4s_stack *stk, int a, int b)
{
	char chain[2048];
	int from = b, to = a, i;

	if (same_file(&t[a].st, &t[b].st)) {
		fprintf(stderr, "%s: %s %s is the same file as %s %s; nothing "
			"done\n", prog, t[b].what, t[b].path, t[a].what,
			t[a].path);
		return 1;
	}
	/* The chain from the later name (OUTPUT, an undo file) down. */
	i = e4s_stack_find(&stk[b], &t[a].st);
	if (i < 0) {
		from = a;
		to = b;
		i = e4s_stack_find(&stk[a], &t[b].st);
	}
	if (i < 0)
		return 0;
	fprintf(stderr, "%s: %s %s is the same file as %s %s (through %s): "
		"%s is %s; nothing done\n", prog, t[b].what, t[b].path,
		t[a].what, t[a].path, e4s_stack_via_loop(&stk[from], i) ?
		"a loop device" : "the block device stack",
		e4s_stack_chain(&stk[from], i, chain, sizeof(chain)),
		role(&t[to]));
	return 1;
}

int e4s_usage_error(errcode_t err)
{
	return err == EINVAL;
}

/* The rest of e4s_check_targets(), with the stacks @stk built. */
static errcode_t check_all(const char *prog, struct e4s_target *t, int n,
			   struct e4s_stack *stk)
{
	char dir[4096];
	errcode_t retval;
	int a, b;

	/* Two names for one file, also through the device stack. */
	for (a = 0; a < n; a++) {
		for (b = a + 1; b < n && t[a].path; b++) {
			if (!t[b].path || t[a].exists != t[b].exists)
				continue;
			if (t[a].exists) {
				if (one_file(prog, t, stk, a, b))
					return EINVAL;
				continue;
			}
			if (!same_new_file(t[a].path, t[b].path))
				continue;
			fprintf(stderr, "%s: %s %s is the same file as %s %s; "
				"nothing done\n", prog, t[b].what, t[b].path,
				t[a].what, t[a].path);
			return EINVAL;
		}
	}
	/* Types, creatable names, e2undo files. */
	for (a = 0; a < n; a++) {
		unsigned int f = t[a].flags;
		mode_t m = t[a].st.st_mode;

		if (!t[a].path)
			continue;
		if (!t[a].exists) {
			if (!(f & E4S_T_CREATE))
				continue;
			split_dir(t[a].path, dir, sizeof(dir));
			if (access(dir, W_OK | X_OK) < 0) {
				retval = errno;
				com_err(prog, retval, "while checking that %s "
					"%s can be created; nothing done",
					t[a].what, t[a].path);
				return retval;
			}
			continue;
		}
		if (!(f & E4S_T_ANY) && !((f & E4S_T_REG) && S_ISREG(m)) &&
		    !((f & E4S_T_BLK) && S_ISBLK(m))) {
			fprintf(stderr, "%s: %s %s is not %s; nothing done\n",
				prog, t[a].what, t[a].path,
				(f & E4S_T_BLK) && (f & E4S_T_REG) ?
				"a regular file or a block device" :
				(f & E4S_T_BLK) ? "a block device" :
				"a regular file");
			return EINVAL;
		}
		if ((f & E4S_T_UNDO) && S_ISREG(m)) {
			int u = e4s_is_undo_file(t[a].path);

			if (u < 0) {
				retval = errno;
				com_err(prog, retval, "while reading %s %s; "
					"nothing done", t[a].what, t[a].path);
				return retval;
			}
			if (!u) {
				fprintf(stderr, "%s: %s %s exists and is not "
					"an e2undo file; not replacing it "
					"(remove it or name another); nothing "
					"done\n", prog, t[a].what, t[a].path);
				return EINVAL;
			}
			split_dir(t[a].path, dir, sizeof(dir));
			if (access(dir, W_OK | X_OK) < 0) {
				retval = errno;
				com_err(prog, retval, "while checking that %s "
					"%s can be replaced; nothing done",
					t[a].what, t[a].path);
				return retval;
			}
		}
	}
	/* Locks first: a holder found is named, not guessed at. */
	for (a = 0; a < n; a++) {
		if (!t[a].path || !t[a].exists || (t[a].flags & E4S_T_UNDO))
			continue;
		retval = lock_stack(prog, &t[a], &stk[a]);
		if (retval)
			return retval;
	}
	/* In use by the kernel; reads of mounted devices warn. */
	for (a = 0; a < n; a++) {
		if (!t[a].path || !t[a].exists)
			continue;
		if (!(t[a].flags & E4S_T_WRITE)) {
			e4s_warn_mounted(prog, t[a].path);
			continue;
		}
		retval = check_in_use(prog, &t[a], &stk[a]);
		if (retval)
			return retval;
	}
	return 0;
}

errcode_t e4s_check_targets(const char *prog, struct e4s_target *t, int n)
{
	struct e4s_stack *stk;
	errcode_t retval;
	int a;

	/* What is filled here, for every target before the first refusal
	 * (e4s_release_targets() may follow any return). */
	for (a = 0; a < n; a++) {
		int k;

		memset(&t[a].st, 0, sizeof(t[a].st));
		t[a].exists = 0;
		t[a].nclaims = 0;
		t[a].nlocks = 0;
		for (k = 0; k < E4S_MAX_CLAIMS; k++)
			t[a].claim_fd[k] = -1;
	}
	for (a = 0; a < n; a++) {
		if (!t[a].path)
			continue;
		if (!*t[a].path) {
			fprintf(stderr, "%s: %s: empty name; nothing written\n",
				prog, t[a].what);
			return EINVAL;
		}
		if (stat(t[a].path, &t[a].st) == 0) {
			t[a].exists = 1;
		} else if (errno != ENOENT) {
			if (!(t[a].flags & E4S_T_CREATE))
				continue;	/* opened later: reported there */
			retval = errno;
			com_err(prog, retval, "while checking %s %s; nothing "
				"written", t[a].what, t[a].path);
			return retval;
		}
	}
	stk = calloc(n > 0 ? (size_t)n : 1, sizeof(*stk));
	if (!stk) {
		com_err(prog, ENOMEM, "while checking what the run writes; "
			"nothing written");
		return ENOMEM;
	}
	for (a = 0; a < n; a++)
		if (t[a].path && t[a].exists)
			e4s_stack_build(t[a].path, &t[a].st, &stk[a]);
	retval = check_all(prog, t, n, stk);
	free(stk);
	if (retval)
		e4s_release_targets(t, n);
	return retval;
}

void e4s_release_targets(struct e4s_target *t, int n)
{
	int a, k;

	for (a = 0; a < n; a++) {
		for (k = 0; k < t[a].nclaims; k++) {
			int i;

			for (i = 0; i < nheld; i++)
				if (held[i].fd == t[a].claim_fd[k])
					held[i] = held[--nheld];
			close(t[a].claim_fd[k]);
		}
		t[a].nclaims = 0;
		for (k = 0; k < t[a].nlocks; k++)
			e4s_lock_drop(t[a].lock[k]);
		t[a].nlocks = 0;
	}
}

errcode_t e4s_check_write(const char *prog, const char *what,
			  const char *path)
{
	struct e4s_target t = {
		.what = what, .path = path,
		.flags = E4S_T_WRITE | E4S_T_ANY,
	};
	errcode_t retval;

	retval = e4s_check_targets(prog, &t, 1);
	e4s_release_targets(&t, 1);
	return retval;
}

/* The files e4s_warn_mounted() warned of: once each per run (the target
 * check and the open both ask). */
static struct { dev_t dev; ino_t ino; } warned[8];
static unsigned int nwarned;

int e4s_warn_mounted(const char *prog, const char *path)
{
	struct e4s_target t = {
		.what = "", .path = path, .flags = E4S_T_WRITE | E4S_T_ANY,
	};
	char why[1024], mtpt[4096], chain[2048], node[300];
	struct e4s_stack *s;
	int mf = 0, busy = 0, i;

	if (stat(path, &t.st) < 0)
		return 0;
	why[0] = mtpt[0] = chain[0] = 0;
	if (S_ISBLK(t.st.st_mode)) {
		busy = device_busy(path, t.st.st_rdev, why, sizeof(why), NULL);
	} else if (S_ISREG(t.st.st_mode) &&
		   ext2fs_check_mount_point(path, &mf, mtpt,
					    sizeof(mtpt)) == 0 &&
		   (mf & EXT2_MF_MOUNTED)) {
		snprintf(why, sizeof(why), "is mounted through a loop "
			 "device%s%s", mtpt[0] ? " on " : "", mtpt);
		busy = 1;
	}
	s = busy ? NULL : malloc(sizeof(*s));
	if (s) {
		/* A layer under it or over it that is in use. */
		e4s_stack_build(path, &t.st, s);
		for (i = 1; i < s->n && !busy; i++) {
			const struct e4s_layer *l = &s->l[i];
			const char *nd;

			if (!l->blk || held_by_us(l->rdev))
				continue;
			nd = e4s_stack_node(l->rdev, node, sizeof(node));
			busy = device_used(nd, l->rdev, !l->via_part, why,
					   sizeof(why)) ||
				(nd && !l->via_part &&
				 device_excl_busy(nd, l->rdev, why,
						  sizeof(why), NULL));
			if (busy)
				e4s_stack_chain(s, i, chain, sizeof(chain));
		}
		free(s);
	}
	if (!busy)
		return 0;
	for (unsigned int k = 0; k < nwarned; k++)
		if (warned[k].dev == t.st.st_dev && warned[k].ino == t.st.st_ino)
			return 1;
	if (nwarned < sizeof(warned) / sizeof(warned[0])) {
		warned[nwarned].dev = t.st.st_dev;
		warned[nwarned++].ino = t.st.st_ino;
	}
	if (chain[0])
		fprintf(stderr, "%s: warning: %s %s: it may change while it "
			"is read, so what is shown may be inconsistent (as "
			"e2fsck -n warns)\n", prog, chain, why);
	else
		fprintf(stderr, "%s: warning: %s %s: it may change while it "
			"is read, so what is shown may be inconsistent (as "
			"e2fsck -n warns)\n", prog, path, why);
	return 1;
}

errcode_t e4s_size_bytes(const char *path, uint64_t *bytes)
{
	struct stat st;
	off_t end;
	int fd;

	if (stat(path, &st) < 0)
		return errno;
	if (!S_ISBLK(st.st_mode)) {
		*bytes = (uint64_t)st.st_size;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	end = lseek(fd, 0, SEEK_END);
	if (end < 0) {
		errcode_t retval = errno;

		close(fd);
		return retval;
	}
	close(fd);
	*bytes = (uint64_t)end;
	return 0;
}

/* ---- outputs ---- */

/*
 * The temporary names of the outputs under way (live_tmp) and of the undo
 * files (live_undo): a SIGINT, SIGTERM or SIGHUP removes them (unlink()
 * of each recorded name is async-signal-safe), then the signal is raised
 * again with its default action, so an interrupted run leaves no
 * ".NAME.e4tmp-XXXXXX" behind (OUTPUT as it was, no undo file of writes
 * that are gone or never made).  Except in place: once a writer that
 * called e4s_defer_interrupts() has written the device through the undo
 * guard (open.c) and no temporary output is under way, the undo file is
 * needed, so the handler only stops the writes (e4s_undo_guard_stop():
 * the next one fails with EINTR); the run ends on its failure path, which
 * names what was written and where its undo file is, and
 * e4s_interrupt_finish() then dies of the signal.  Later signals are
 * ignored until then.  Updated with the three signals blocked.
 */
#define LIVE_MAX	8
static const char *volatile live_tmp[LIVE_MAX];
static const char *volatile live_undo[LIVE_MAX];
static volatile sig_atomic_t live_caught, live_defer;
static const int live_sigs[] = { SIGINT, SIGTERM, SIGHUP };

static int live_any(const char *volatile *names)
{
	size_t i;

	for (i = 0; i < LIVE_MAX; i++)
		if (names[i])
			return 1;
	return 0;
}

static void live_handler(int sig)
{
	int saved = errno;
	struct sigaction sa;
	size_t i;

	if (live_caught)
		return;		/* stopping already */
	if (live_defer && live_any(live_undo) && !live_any(live_tmp) &&
	    e4s_undo_guard_wrote()) {
		live_caught = sig;
		e4s_undo_guard_stop();
		return;
	}
	for (i = 0; i < LIVE_MAX; i++) {
		if (live_tmp[i])
			unlink(live_tmp[i]);
		if (live_undo[i])
			unlink(live_undo[i]);
	}
	errno = saved;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	raise(sig);	/* blocked in here: the default action on return */
}

static void live_block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(live_sigs) / sizeof(live_sigs[0]); i++)
		sigaddset(&set, live_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Record @tmp in @names (NULL: forget @old_tmp in both lists); installs
 * the handlers once. */
static void live_put(const char *volatile *names, const char *old_tmp,
		     const char *tmp)
{
	static int installed;
	sigset_t old;
	size_t i;

	live_block(&old);
	if (!installed && tmp) {
		struct sigaction sa, cur;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = live_handler;
		sigemptyset(&sa.sa_mask);
		for (i = 0; i < sizeof(live_sigs) / sizeof(live_sigs[0]); i++)
			sigaddset(&sa.sa_mask, live_sigs[i]);
		for (i = 0; i < sizeof(live_sigs) / sizeof(live_sigs[0]); i++)
			/* a signal the caller ignores (nohup) stays so */
			if (!sigaction(live_sigs[i], NULL, &cur) &&
			    cur.sa_handler == SIG_DFL)
				sigaction(live_sigs[i], &sa, NULL);
		installed = 1;
	}
	for (i = 0; i < LIVE_MAX; i++) {
		if (tmp && !names[i]) {
			names[i] = tmp;
			break;
		}
		if (!tmp && live_tmp[i] == old_tmp)
			live_tmp[i] = NULL;
		if (!tmp && live_undo[i] == old_tmp)
			live_undo[i] = NULL;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void live_set(const char *old_tmp, const char *tmp)
{
	live_put(live_tmp, old_tmp, tmp);
}

void e4s_defer_interrupts(void)
{
	live_defer = 1;
}

void e4s_interrupt_finish(const char *prog)
{
	int sig = live_caught;
	sigset_t set;

	if (!sig)
		return;
	fprintf(stderr, "%s: stopped by %s at its next write (what was "
		"written and where the undo file is: above)\n", prog,
		sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
		"SIGHUP");
	fflush(stderr);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

errcode_t e4s_output_begin(const char *prog, const char *what,
			   const char *path, struct e4s_output *out)
{
	char dir[4096];
	const char *base;
	struct stat st;
	mode_t mode, mask;
	errcode_t retval;
	size_t len;

	memset(out, 0, sizeof(*out));
	out->path = path;
	out->fd = -1;
	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
		out->is_blk = 1;
		out->fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);
		if (out->fd < 0) {
			retval = errno;
			com_err(prog, retval, "while opening %s %s "
				"exclusively; nothing written", what, path);
			return retval;
		}
		return 0;
	}
	if (stat(path, &st) == 0) {
		mode = st.st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	base = split_dir(path, dir, sizeof(dir));
	len = strlen(dir) + strlen(base) + 32;
	out->tmp = malloc(len);
	if (!out->tmp) {
		com_err(prog, ENOMEM, "while naming a temporary %s", what);
		return ENOMEM;
	}
	/* Same directory, so the final rename stays on one file system. */
	snprintf(out->tmp, len, "%s/.%.200s.e4tmp-XXXXXX", dir, base);
	out->fd = mkostemp(out->tmp, O_CLOEXEC);
	if (out->fd < 0) {
		retval = errno;
		com_err(prog, retval, "while creating a temporary file for %s "
			"%s in %s; nothing written", what, path, dir);
		free(out->tmp);
		out->tmp = NULL;
		return retval;
	}
	live_set(NULL, out->tmp);
	if (fchmod(out->fd, mode) < 0) {
		retval = errno;
		com_err(prog, retval, "while setting the mode of %s",
			out->tmp);
		e4s_output_abort(out);
		return retval;
	}
	/* Test hook (tests/r_sigint): stop here, the temporary file made,
	 * until the test has sent its signal and SIGCONT. */
	if (strcmp(what, "undo file") && getenv("E4_TEST_STOP_OUTPUT"))
		raise(SIGSTOP);
	return 0;
}

/* fsync the directory holding @path, so a rename survives a crash. */
static errcode_t sync_dir(const char *path)
{
	char dir[4096];
	errcode_t retval = 0;
	int fd;

	split_dir(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		retval = errno;
	close(fd);
	return retval;
}

errcode_t e4s_output_commit(const char *prog, struct e4s_output *out)
{
	errcode_t retval = 0;

	if (out->fd >= 0) {
		if (fsync(out->fd) < 0 && errno != EINVAL)
			retval = errno;
		if (close(out->fd) < 0 && !retval)
			retval = errno;
		out->fd = -1;
	}
	if (retval) {
		com_err(prog, retval, "while syncing %s", out->tmp ?
			out->tmp : out->path);
		e4s_output_abort(out);
		return retval;
	}
	if (!out->tmp)
		return 0;
	/* The run may have written it through another descriptor. */
	out->fd = open(out->tmp, O_RDONLY | O_CLOEXEC);
	if (out->fd >= 0) {
		if (fsync(out->fd) < 0 && errno != EINVAL)
			retval = errno;
		close(out->fd);
		out->fd = -1;
	}
	if (retval) {
		com_err(prog, retval, "while syncing %s", out->tmp);
		e4s_output_abort(out);
		return retval;
	}
	if (rename(out->tmp, out->path) < 0) {
		retval = errno;
		com_err(prog, retval, "while renaming %s to %s; %s is as it "
			"was", out->tmp, out->path, out->path);
		e4s_output_abort(out);
		return retval;
	}
	live_set(out->tmp, NULL);
	free(out->tmp);
	out->tmp = NULL;
	retval = sync_dir(out->path);
	if (retval)
		com_err(prog, retval, "while syncing the directory of %s",
			out->path);
	return retval;
}

void e4s_output_abort(struct e4s_output *out)
{
	if (out->fd >= 0)
		close(out->fd);
	out->fd = -1;
	if (out->tmp) {
		unlink(out->tmp);
		live_set(out->tmp, NULL);
		free(out->tmp);
		out->tmp = NULL;
	}
}

/* Is every byte of @buf[0..@n) zero? */
static int all_zero(const unsigned char *buf, size_t n)
{
	return !n || (!buf[0] && !memcmp(buf, buf + 1, n - 1));
}

errcode_t e4s_output_copy(const char *prog, const char *src,
			  struct e4s_output *out)
{
	static unsigned char buf[1 << 20];
	off_t size, data, hole, off, p;
	errcode_t retval = 0;
	struct stat st;
	ssize_t n, w, k;
	int in, src_reg;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		retval = errno;
		goto fail;
	}
	src_reg = S_ISREG(st.st_mode);
	if (!src_reg && !S_ISBLK(st.st_mode)) {
		retval = EINVAL;
		goto fail;
	}
	size = src_reg ? st.st_size : lseek(in, 0, SEEK_END);
	if (size < 0) {
		retval = errno;
		goto fail;
	}
	for (off = 0; off < size; off = hole) {
		data = off;
		hole = size;
		/* A regular file's holes read as zeros: skip them, unless
		 * the output is a device (its old bytes would stay). */
		if (src_reg && !out->is_blk) {
			data = lseek(in, off, SEEK_DATA);
			if (data < 0 && errno == ENXIO)
				break;
			if (data >= 0)
				hole = lseek(in, data, SEEK_HOLE);
			if (data < 0 || hole < 0) {
				retval = errno;
				goto fail;
			}
		}
		for (p = data; p < hole; p += n) {
			size_t want = hole - p < (off_t)sizeof(buf) ?
				(size_t)(hole - p) : sizeof(buf);

			n = pread(in, buf, want, p);
			if (n <= 0) {
				retval = n < 0 ? errno : EIO;
				goto fail;
			}
			/* Zeros of a device input stay holes in a file. */
			if (!out->is_blk && all_zero(buf, (size_t)n))
				continue;
			/* A short write (a full fs) says nothing; the next
			 * one says why (ENOSPC). */
			for (w = 0; w < n; w += k) {
				errno = 0;
				k = pwrite(out->fd, buf + w, (size_t)(n - w),
					   p + w);
				if (k <= 0) {
					retval = k < 0 && errno ? errno : EIO;
					goto fail;
				}
			}
		}
	}
	if (!out->is_blk && ftruncate(out->fd, size) < 0)
		retval = errno;
	if (!retval && fsync(out->fd) < 0 && errno != EINVAL)
		retval = errno;
fail:
	if (in >= 0)
		close(in);
	if (retval)
		com_err(prog, retval, "while copying %s to %s", src, out->path);
	return retval;
}

/* ---- undo files ---- */

#define E2UNDO_MAGIC		"E2UNDO02"	/* lib/ext2fs/undo_io.c */
#define E2UNDO_HDR_NUM_KEYS	8		/* __le64 num_keys */
#define E2UNDO_HDR_SUPER	16		/* __le64 super_offset */
#define E2UNDO_HDR_BLOCK_SIZE	32		/* __le32 block_size */
#define E2UNDO_HDR_FS_OFFSET	64		/* __le64 fs_offset */
#define E2UNDO_SB_SIZE		1024		/* SUPERBLOCK_SIZE */
#define E2UNDO_SB_MAGIC		56		/* s_magic, stored inverted */

static uint64_t le_get(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

int e4s_undo_matches(const char *undo, const char *device)
{
	unsigned char hdr[72], sb[E2UNDO_SB_SIZE], dev[E2UNDO_SB_SIZE];
	uint64_t bs;
	int fd, r = -1;

	fd = open(undo, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, E2UNDO_MAGIC, 8)) {
		close(fd);
		return 0;
	}
	bs = le_get(hdr + E2UNDO_HDR_BLOCK_SIZE, 4);
	if (pread(fd, sb, sizeof(sb), le_get(hdr + E2UNDO_HDR_SUPER, 8) * bs)
	    != (ssize_t)sizeof(sb)) {
		close(fd);
		return 0;
	}
	close(fd);
	sb[E2UNDO_SB_MAGIC] ^= 0xff;
	sb[E2UNDO_SB_MAGIC + 1] ^= 0xff;
	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pread(fd, dev, sizeof(dev), le_get(hdr + E2UNDO_HDR_FS_OFFSET, 8)
		  + 1024) == (ssize_t)sizeof(dev))
		r = !memcmp(sb, dev, sizeof(dev));
	close(fd);
	return r;
}

int e4s_is_undo_file(const char *path)
{
	unsigned char hdr[16];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, hdr, sizeof(hdr), 0);
	close(fd);
	if (n < 0)
		return -1;
	return n == (ssize_t)sizeof(hdr) && !memcmp(hdr, E2UNDO_MAGIC, 8);
}

/* num_keys of the undo header of @path; 0 when unreadable or not one. */
static uint64_t undo_keys(const char *path)
{
	unsigned char hdr[16];
	uint64_t v = 0;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, E2UNDO_MAGIC, 8)) {
		close(fd);
		return 0;
	}
	close(fd);
	for (i = 7; i >= 0; i--)
		v = (v << 8) | hdr[E2UNDO_HDR_NUM_KEYS + i];
	return v;
}

errcode_t e4s_undo_begin(const char *prog, const char *path,
			 struct e4s_undo *u)
{
	errcode_t retval;

	memset(u, 0, sizeof(*u));	/* u->device: NULL unless the caller sets it */
	retval = e4s_output_begin(prog, "undo file", path, &u->out);
	if (retval)
		return retval;
	live_set(u->out.tmp, NULL);	/* an undo file: see live_tmp */
	live_put(live_undo, NULL, u->out.tmp);
	/* libext2fs's undo_io opens it by name; an empty file is new. */
	close(u->out.fd);
	u->out.fd = -1;
	return 0;
}

int e4s_undo_finish(const char *prog, struct e4s_undo *u, int ok)
{
	if (!u->out.tmp)
		return 0;
	if (!undo_keys(u->out.tmp)) {
		e4s_output_abort(&u->out);	/* nothing was written */
		return 0;
	}
	if (!ok && u->device && e4s_undo_matches(u->out.tmp, u->device) != 1) {
		/* e2undo's check_filesystem() would refuse it. */
		fprintf(stderr, "%s: the run failed after writing to %s; its "
			"undo file %s is incomplete: its superblock copy is not "
			"%s's, e2undo refuses it; %s is as it was\n", prog,
			u->device, u->out.tmp, u->device, u->out.path);
		live_set(u->out.tmp, NULL);
		free(u->out.tmp);
		u->out.tmp = NULL;
		return 2;
	}
	if (!ok && u->device)
		fprintf(stderr, "%s: the run failed after writing to %s; the "
			"undo file holds every block it changed: `e2undo %s "
			"%s` restores them (e2undo then asks for e2fsck: the "
			"run did not finish)\n", prog, u->device,
			access(u->out.path, F_OK) ? u->out.path : u->out.tmp,
			u->device);
	if (ok || access(u->out.path, F_OK)) {
		int replaced = !access(u->out.path, F_OK);

		if (e4s_output_commit(prog, &u->out))
			return -1;
		/* As tune2fs, e2fsck, mke2fs, resize2fs -z (e2fsprogs 1.47:
		 * an existing undo file is deleted, the command printed). */
		if (ok && u->device && u->what)
			fprintf(stderr, "%s: its writes to the %s %s can be "
				"undone using the command: e2undo %s %s%s\n",
				prog, u->what, u->device, u->out.path,
				u->device, replaced ? " (the undo file of an "
				"earlier run was replaced)" : "");
		else if (ok && u->device)
			fprintf(stderr, "%s: this run can be undone using the "
				"command: e2undo %s %s%s\n", prog, u->out.path,
				u->device, replaced ? " (the undo file of an "
				"earlier run was replaced)" : "");
		return 1;
	}
	/* A failed run that wrote: both undo files are worth keeping. */
	fprintf(stderr, "%s: the run failed after writing; its undo file is "
		"%s (e2undo it to undo those writes); %s is as it was\n",
		prog, u->out.tmp, u->out.path);
	live_set(u->out.tmp, NULL);
	free(u->out.tmp);
	u->out.tmp = NULL;
	return 2;
}

/* ---- what a target holds ---- */

int e4s_probe_contents(const char *path, char *desc, size_t len)
{
	const char *type = NULL, *usage = NULL, *label = NULL, *uuid = NULL;
	blkid_probe pr;
	int r;

	errno = 0;
	pr = blkid_new_probe_from_filename(path);
	if (!pr) {
		snprintf(desc, len, "libblkid cannot probe %s: %s", path,
			 strerror(errno ? errno : EINVAL));
		return -1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_UUID);
	blkid_probe_enable_partitions(pr, 1);
	r = blkid_do_safeprobe(pr);
	if (r < 0) {
		snprintf(desc, len, r == -2 ? "more than one file system or "
			 "RAID signature (libblkid: ambivalent)" :
			 "a probe error (libblkid)");
		blkid_free_probe(pr);
		return r == -2 ? 1 : -1;
	}
	if (r == 1) {
		blkid_free_probe(pr);
		return 0;
	}
	if (!blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL)) {
		snprintf(desc, len, "a %s partition table", type);
	} else if (!blkid_probe_lookup_value(pr, "TYPE", &type, NULL)) {
		char extra[256] = "";

		blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
		blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
		blkid_probe_lookup_value(pr, "UUID", &uuid, NULL);
		if (uuid || label)
			snprintf(extra, sizeof(extra), " (%s%s%s%s%s%s)",
				 uuid ? "UUID " : "", uuid ? uuid : "",
				 uuid && label ? ", " : "",
				 label ? "label '" : "", label ? label : "",
				 label ? "'" : "");
		if (usage && !strcmp(usage, "raid"))
			snprintf(desc, len, "a RAID member (%s)%s", type, extra);
		else if (usage && !strcmp(usage, "crypto"))
			snprintf(desc, len, "an encrypted volume (%s)%s", type,
				 extra);
		else if (!strcmp(type, "jbd"))
			snprintf(desc, len, "an external journal (jbd)%s",
				 extra);
		else if (usage && strcmp(usage, "filesystem"))
			snprintf(desc, len, "a %s signature%s", type, extra);
		else
			snprintf(desc, len, "%s %s file system%s",
				 strchr("aeiouAEIOU", type[0]) ||
				 !strncmp(type, "ext", 3) ||
				 !strncmp(type, "xfs", 3) ? "an" : "a", type,
				 extra);
	} else {
		snprintf(desc, len, "an unnamed signature (libblkid)");
	}
	blkid_free_probe(pr);
	return 1;
}
