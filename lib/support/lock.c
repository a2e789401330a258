/*
 * lock.c --- advisory locks on the images and devices a run works on:
 * flock(2) LOCK_EX for a writer, LOCK_SH for a reader that needs a
 * consistent view, never waiting (LOCK_NB): a second e4tools run or an
 * e4debug session on the same image is refused with one line naming the
 * holder (/proc/locks, /proc/PID/comm) instead of writing beside it.
 * A block device is locked through its one devtmpfs node, so every name
 * of it takes the same lock; writers of block devices also keep O_EXCL.
 *
 * The locks of one process are counted here (one open file description
 * per locked inode: two flock()s of one file through two descriptors of
 * one process would conflict): process state of the tools, not of libe4.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "stack.h"
#include "target.h"

#define NLOCKS	64

static struct {
	int	fd;		/* -1: free slot */
	dev_t	dev;
	ino_t	ino;
	int	excl;
	int	refs;
} locks[NLOCKS];
static int locks_init;

/* The comm of process @pid into @buf ("?" if gone). */
static void comm_of(long pid, char *buf, size_t len)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%ld/comm", pid);
	snprintf(buf, len, "?");
	f = fopen(p, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

int e4s_lock_holder(const struct stat *st, char *buf, size_t len)
{
	FILE *f = fopen("/proc/locks", "r");
	char line[512];
	int found = 0;

	buf[0] = 0;
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char kind[32], adv[32], mode[32], comm[64];
		unsigned int maj, min;
		unsigned long ino;
		long pid;

		if (strstr(line, "->"))
			continue;	/* a waiter, not a holder */
		if (sscanf(line, "%*d: %31s %31s %31s %ld %x:%x:%lu", kind,
			   adv, mode, &pid, &maj, &min, &ino) != 7 ||
		    strcmp(kind, "FLOCK") || pid == (long)getpid())
			continue;
		if (makedev(maj, min) != st->st_dev || ino != st->st_ino)
			continue;
		comm_of(pid, comm, sizeof(comm));
		snprintf(buf, len, "%s (pid %ld) holds it %s", comm, pid,
			 !strcmp(mode, "WRITE") ? "for writing" :
			 "for reading");
		found = 1;
	}
	fclose(f);
	return found;
}

int e4s_opener(const struct stat *st, char *buf, size_t len)
{
	DIR *proc = opendir("/proc");
	struct dirent *pe;
	int found = 0;

	buf[0] = 0;
	while (proc && !found && (pe = readdir(proc))) {
		char p[300], comm[64];
		struct dirent *fe;
		DIR *fds;
		long pid;

		if (!isdigit((unsigned char)pe->d_name[0]))
			continue;
		pid = strtol(pe->d_name, NULL, 10);
		if (pid == (long)getpid())
			continue;
		snprintf(p, sizeof(p), "/proc/%s/fd", pe->d_name);
		fds = opendir(p);
		while (fds && !found && (fe = readdir(fds))) {
			char q[600];
			struct stat fs;

			if (fe->d_name[0] == '.')
				continue;
			snprintf(q, sizeof(q), "%s/%s", p, fe->d_name);
			if (stat(q, &fs))
				continue;
			if (S_ISBLK(st->st_mode) ? !S_ISBLK(fs.st_mode) ||
			    fs.st_rdev != st->st_rdev :
			    fs.st_dev != st->st_dev || fs.st_ino != st->st_ino)
				continue;
			comm_of(pid, comm, sizeof(comm));
			snprintf(buf, len, "%s (pid %ld) has it open", comm,
				 pid);
			found = 1;
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return found;
}

int e4s_lock_take(const char *path, int excl, char *why, size_t len)
{
	struct stat st;
	int i, fd, slot = -1;

	if (!locks_init) {
		for (i = 0; i < NLOCKS; i++)
			locks[i].fd = -1;
		locks_init = 1;
	}
	why[0] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -2;	/* not ours to lock: the open reports it */
	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) ||
				S_ISBLK(st.st_mode))) {
		close(fd);
		return -2;
	}
	for (i = 0; i < NLOCKS; i++) {
		if (locks[i].fd < 0) {
			if (slot < 0)
				slot = i;
			continue;
		}
		if (locks[i].dev != st.st_dev || locks[i].ino != st.st_ino)
			continue;
		close(fd);
		/* Ours already: a reader's lock becomes a writer's. */
		if (excl && !locks[i].excl) {
			if (flock(locks[i].fd, LOCK_EX | LOCK_NB) < 0) {
				if (!e4s_lock_holder(&st, why, len))
					snprintf(why, len, "another process "
						 "holds a lock on it");
				return -1;
			}
			locks[i].excl = 1;
		}
		locks[i].refs++;
		return i;
	}
	if (slot < 0) {
		close(fd);
		return -2;
	}
	if (flock(fd, (excl ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		int err = errno;

		close(fd);
		if (err != EWOULDBLOCK)
			return -2;	/* no flock here (some FUSE fs) */
		if (!e4s_lock_holder(&st, why, len))
			snprintf(why, len, "another process holds a lock on "
				 "it");
		return -1;
	}
	locks[slot].fd = fd;
	locks[slot].dev = st.st_dev;
	locks[slot].ino = st.st_ino;
	locks[slot].excl = excl;
	locks[slot].refs = 1;
	return slot;
}

void e4s_lock_drop(int h)
{
	if (h < 0 || h >= NLOCKS || locks[h].fd < 0)
		return;
	if (--locks[h].refs > 0)
		return;
	close(locks[h].fd);	/* the lock goes with its last descriptor */
	locks[h].fd = -1;
}
