/*
 * progress.h --- e4replay's progress: e2fsck's -C protocol on a file
 * descriptor, or a meter on a terminal (lib/support/progress.c), fed by
 * the progress callbacks of libe4's long operations (e4.h,
 * e4_progress_fn).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_PROGRESS_H
#define E4_SUPPORT_PROGRESS_H

#include <stdint.h>
#include <time.h>

/* One run's progress (the tool owns it; libe4 gets its address). */
struct e4s_progress {
	int		fd;		/* -C FD > 0: "pass done total device"
					 * lines to it; 0: the meter */
	int		tty;		/* the meter: stderr is a terminal */
	const char	*device;	/* the lines' last field */
	struct timespec	t0;		/* the run's start */
	struct timespec	shown_at;	/* the meter's last redraw */
	int		pass;		/* the last line's or redraw's */
	uint64_t	permille;	/* the last line's done/total, 1/1000 */
	int		shown;		/* the meter is on the terminal */
	int		any;		/* a line or redraw was made */
	int		now;		/* E4_TEST_PROGRESS_NOW: no delay,
					 * no throttle (tests only) */
};

/*
 * e4s_progress_init() - ready @p for a run on @device: with @fd > 0,
 * lines to @fd (the caller checked it is open); with @fd 0, the meter on
 * stderr if stderr is a terminal, else nothing.  The clock starts now.
 */
void e4s_progress_init(struct e4s_progress *p, int fd, const char *device);

/*
 * e4s_progress_cb() - the e4_progress_fn for @priv, a struct
 * e4s_progress: with a fd, one line "PASS DONE TOTAL DEVICE\n" per change
 * of the pass or of DONE/TOTAL in thousandths, and at DONE == TOTAL (so
 * at most 1001 lines a pass; e2fsck/unix.c e2fsck_update_progress()'s
 * format); the meter: a bar redrawn on stderr at most every 100 ms, only
 * once the run has lasted a second, erased when a pass ends.
 */
void e4s_progress_cb(void *priv, int pass, uint64_t done, uint64_t total);

/* e4s_progress_end() - erase the meter if it is shown. */
void e4s_progress_end(struct e4s_progress *p);

#endif
