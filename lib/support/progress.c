/*
 * progress.c --- e4replay -C FD and the progress meter (progress.h).
 *
 * The -C protocol is e2fsck's (e2fsck/unix.c e2fsck_update_progress():
 * "%d %lu %lu %s\n", pass, current, max, device, written to the fd that
 * fsck(8) and front ends read); the meter is e2fsck -C 0's idea on
 * stderr, shown only on a terminal and only for a run longer than a
 * second.  Own code.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4.h"
#include "progress.h"

#define METER_WIDTH	40	/* bar characters */
#define METER_LINE	78	/* what an erase covers */

static const char *pass_name(int pass)
{
	switch (pass) {
	case E4_PROGRESS_ORDER:
		return "ordering check";
	case E4_PROGRESS_REPLAY:
		return "replay";
	case E4_PROGRESS_WLOG:
		return "write log";
	case E4_PROGRESS_DURABLE:
		return "promises";
	}
	return "working";
}

/* Milliseconds from @a to @b. */
static long long ms_between(const struct timespec *a,
			    const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000 +
		(b->tv_nsec - a->tv_nsec) / 1000000;
}

void e4s_progress_init(struct e4s_progress *p, int fd, const char *device)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->tty = fd == 0 && isatty(STDERR_FILENO);
	p->device = device;
	p->pass = -1;
	/* test-only (tests/r_progress): the meter from the first call */
	p->now = getenv("E4_TEST_PROGRESS_NOW") != NULL;
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

/* All of @len bytes of @buf to @fd (a closed reader: given up). */
static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

void e4s_progress_end(struct e4s_progress *p)
{
	if (!p || !p->shown)
		return;
	fprintf(stderr, "\r%*s\r", METER_LINE, "");
	fflush(stderr);
	p->shown = 0;
}

void e4s_progress_cb(void *priv, int pass, uint64_t done, uint64_t total)
{
	struct e4s_progress *p = priv;
	uint64_t pm = total ? (done >= total ? 1000 :
			       done * 1000 / total) : 1000;
	struct timespec now;
	char buf[4200];
	int n, i, fill;

	if (p->fd > 0) {
		if (pass == p->pass && pm == p->permille && done != total)
			return;
		p->pass = pass;
		p->permille = pm;
		n = snprintf(buf, sizeof(buf), "%d %llu %llu %s\n", pass,
			     (unsigned long long)done,
			     (unsigned long long)total, p->device);
		if (n > 0)
			write_all(p->fd, buf, (size_t)n < sizeof(buf) ?
				  (size_t)n : sizeof(buf) - 1);
		p->any = 1;
		return;
	}
	if (!p->tty)
		return;
	if (done >= total) {	/* a pass ends: its meter goes */
		e4s_progress_end(p);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!p->now && ms_between(&p->t0, &now) < 1000)
		return;		/* a short run shows nothing */
	if (!p->now && p->shown && pass == p->pass &&
	    ms_between(&p->shown_at, &now) < 100)
		return;
	p->pass = pass;
	p->shown_at = now;
	fill = (int)(pm * METER_WIDTH / 1000);
	n = snprintf(buf, sizeof(buf), "\r%.20s: %s |", p->device,
		     pass_name(pass));
	for (i = 0; i < METER_WIDTH && n < (int)sizeof(buf) - 32; i++)
		buf[n++] = i < fill ? '=' : ' ';
	snprintf(buf + n, sizeof(buf) - n, "| %3llu.%llu%%",
		 (unsigned long long)(pm / 10), (unsigned long long)(pm % 10));
	fputs(buf, stderr);
	fflush(stderr);
	p->shown = 1;
	p->any = 1;
}
